/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_SCHEDULER_HELPER_H
#define COLLECTIVE_SCHEDULER_HELPER_H

#include "ns3/collective-scheduler.h"
#include "ns3/object-factory.h"
#include "ns3/training-cluster.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Installs a CollectiveScheduler on a controller node for a
 * TrainingCluster: the scheduler hears of every job the cluster starts and of
 * its collectives and departure, and its decisions reach the job's NICs on
 * the cluster's fabric.
 *
 * Schedulers are found by short name (GetName() of any registered
 * CollectiveScheduler subclass: fair, isolated, cassini, crux, mltcp, ...)
 * or by TypeId name, so a new policy needs no change here.
 */
class CollectiveSchedulerHelper
{
  public:
    CollectiveSchedulerHelper();

    /**
     * \param name a short name or a TypeId name ("ns3::CassiniScheduler")
     * \throw std::invalid_argument for an unknown name; the message lists the known ones
     */
    void SetScheduler(const std::string& name);

    /**
     * Set an attribute of the scheduler to be installed.
     * \throw std::invalid_argument if the scheduler has no such attribute or the value is invalid
     */
    void SetAttribute(const std::string& name, const std::string& value);

    /// \return the TypeId name of scheduler \p name (short or TypeId name), or "" if unknown
    static std::string FindScheduler(const std::string& name);
    /// \return the short names of every registered scheduler, sorted
    static std::vector<std::string> GetSchedulerNames();

    /**
     * Create the controller node and the scheduler, and connect them to
     * \p cluster (call before the simulation starts). Policies that ask for
     * it (CollectiveScheduler::StartsJobsGated) get each job with its gates
     * closed, before its first packet. The classes the policy may move jobs
     * to (CollectiveScheduler::GetPriorityClasses) become lossless in the
     * cluster's network (ClusterNetwork::AddLosslessClasses: every switch of
     * a RoceFabric). The network is the scheduler's control
     * (SchedulerControl), at either level.
     */
    Ptr<CollectiveScheduler> Install(Ptr<TrainingCluster> cluster) const;

    /// Create the scheduler without installing it (to ask it what the fabric needs first).
    Ptr<CollectiveScheduler> Create() const;
    /// Install \p scheduler (from Create()) as Install(cluster) does.
    void Install(Ptr<CollectiveScheduler> scheduler, Ptr<TrainingCluster> cluster) const;

  private:
    ObjectFactory m_factory;
};

} // namespace ns3

#endif /* COLLECTIVE_SCHEDULER_HELPER_H */
