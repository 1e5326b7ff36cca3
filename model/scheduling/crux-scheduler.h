/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CRUX_SCHEDULER_H
#define CRUX_SCHEDULER_H

#include "collective-scheduler.h"
#include "route-candidates.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Crux (Cao et al., SIGCOMM 2024): GPU-intensity-aware path selection
 * and priority assignment. Never gates.
 *
 * Whenever a job arrives or leaves, every active job is re-planned:
 *  1. GPU intensity I_j = W_j / t_j, with W_j = compute time per iteration x
 *     workers (GPU-seconds) and t_j the job's communication time per
 *     iteration alone: the time its ops have bytes on the fabric
 *     (SchedulerJob::FabricTime: every op of its graph that crosses the
 *     fabric, gated or not; the paper's t_j is the job's communication
 *     time, which for an LLM job is all of its traffic, not its data-parallel
 *     phase). Jobs without fabric traffic are left out.
 *  2. Paths, jobs in decreasing intensity (ties: smaller id first): the
 *     connections of a job between one host pair share one UDP source port
 *     (the NIC keys it by job and destination), so each (job, src, dst) group
 *     gets one path. Candidates are the paths of PathCandidates probe ports
 *     and of the group's own ports; the one with the least maximum load
 *     already placed on its links wins, then the least summed load, then the
 *     path the group uses now (equal loads are no reason to move), then the
 *     smaller port; the group keeps its port if that leads to the path won.
 *     Load of a link: sum of 8 x bytes / rate of the groups placed on it
 *     before. A source port is set only when it changes.
 *  3. Priorities: CruxClasses (contention DAG over the chosen paths,
 *     Max-K-Cut) with K = min(Classes, 7), because traffic class 7 carries
 *     control frames; Crux class c (larger first) becomes traffic class c,
 *     served in strict priority. A class is set only when it changes.
 *
 * A priority class or source port reaches a job's NICs ControlDelay after
 * the decision and applies to the queue pairs posted from then on: packets
 * already queued, and queue pairs already created, keep their class and
 * their path.
 */
class CruxScheduler : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId();
    CruxScheduler();
    ~CruxScheduler() override;

    /// Classes 0 to min(Classes, 7) - 1, those CruxClasses compresses to.
    uint8_t GetPriorityClasses() const override;

  protected:
    void DoDispose() override;
    void DoJobArrived(const SchedulerJob& job) override;
    void DoJobDone(uint32_t job) override;

  private:
    /// (job, src host, dst host)
    using GroupKey = std::tuple<uint32_t, uint32_t, uint32_t>;

    /// Re-plan paths and classes of every active job except \p departed (-1: none).
    void Plan(int64_t departed);

    uint32_t m_classes;    ///< K of the Max-K-Cut compression, before the fabric's limit
    uint32_t m_candidates; ///< probe ports per host pair
    double m_correction;   ///< k_j, the same for every job
    std::map<GroupKey, uint16_t> m_ports;   ///< source port set for a group
    std::map<uint32_t, int16_t> m_jobClass; ///< traffic class set for a job
    EcmpPathProbe m_probe;                  ///< distinct paths per host pair
};

} // namespace ns3

#endif /* CRUX_SCHEDULER_H */
