/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HARMONICS_SCHEDULER_H
#define HARMONICS_SCHEDULER_H

#include "epoch-scheduler.h"
#include "harmonics-planner.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Harmonics as a collective scheduler: the epoch planner of
 * EpochScheduler with HarmonicsPlanner's two tiers.
 *
 * A job's rack is its hosts' rack (SchedulerControl::GetHostRack; on a
 * rail-optimized fabric the rail group) when they share one; the others
 * cross racks. The racks' uplinks, for the
 * coordinator's aggregates, are the first and last links above the hosts'
 * switches on every ECMP path (probed) of the cross-rack jobs' host pairs.
 *
 * Incremental re-planning: a rack is disturbed when a collective of one of
 * its jobs ends more than a slot before or after the end its plan gave it,
 * or ends without a plan; a kept rack's collectives keep their exact start
 * times (PlannedStart).
 *
 * Scheduling time: the coordinator (modelled from the (slot, route) pairs it
 * may weigh), then the slowest Local Scheduler that solved (they run in
 * parallel; a kept rack costs nothing), charged with ChargeSolve. Each
 * plan's decision notes the tier of every job ("tiers": job -> {"tier":
 * "coordinator"} or {"tier": "local", "rack": r}), the coordinator's and
 * each Local Scheduler's work ("coordinator", "locals"); a decision that
 * opens a job's gate at its planned start notes the tier that planned it
 * ("tier", and "rack" for a local one).
 */
class HarmonicsScheduler : public EpochScheduler
{
  public:
    static TypeId GetTypeId();

  protected:
    Plan PlanEpoch(const PlanInstance& instance) override;
    Time PlannedStart(uint32_t job,
                      uint32_t index,
                      int64_t slot,
                      Time origin,
                      Time slotLength) const override;
    void NotePlannedStart(uint32_t job) override;
    void DoCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket) override;
    void DoJobDone(uint32_t job) override;

  private:
    /// The rack of job \p job, -1 if it crosses racks (or a rack is unknown).
    int32_t JobRack(uint32_t job) const;
    /// Add the uplinks on the ECMP paths of job \p job's cross-rack host pairs.
    void LearnUplinks(uint32_t job);

    HarmonicsPlanner m_planner;
    EcmpPathProbe m_probe;
    RackUplinks m_uplinks;
    std::set<uint32_t> m_probed;        ///< jobs whose paths were probed
    std::set<int32_t> m_disturbed;      ///< racks disturbed since the last plan
    std::map<uint32_t, int32_t> m_tier; ///< job -> its rack, -1: the coordinator's
    Time m_keptOrigin{-1};              ///< origin of the plan m_keptStart belongs to
    std::map<std::pair<uint32_t, uint32_t>, Time> m_keptStart;
};

} // namespace ns3

#endif /* HARMONICS_SCHEDULER_H */
