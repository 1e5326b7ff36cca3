/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SYMPHONY_SCHEDULER_H
#define SYMPHONY_SCHEDULER_H

#include "epoch-scheduler.h"
#include "harmonics-planner.h"

#include <map>
#include <set>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Symphony (ICNP 2025): one central planner solves the time-indexed
 * MILP over every job and every link at each epoch boundary and on each job
 * arrival and departure, with CBC, within TimeLimit and RelativeGap (a solve
 * that stops without a solution falls back to the greedy plan). With
 * SolveByParts it solves each independent part of the plan (SplitPlanInstance)
 * on its own, which keeps clusters of hundreds of jobs solvable; with
 * KeepParts as well, a part whose jobs are the ones it had at the last plan
 * and kept to that plan (each collective ended within a slot of its planned
 * end) keeps its plan, and a part that changed is solved from its previous
 * plan as a warm start, as Harmonics' Local Schedulers are (HarmonicsPlanner).
 */
class SymphonyScheduler : public EpochScheduler
{
  public:
    static TypeId GetTypeId();

  protected:
    Plan PlanEpoch(const PlanInstance& instance) override;
    /// One MILP over everything, timed as the "scheduling" part.
    Plan SolveCentrally(const PlanInstance& instance, const MilpSolveOptions& options);
    void DoCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket) override;
    void DoJobDone(uint32_t job) override;

  private:
    /// SolveByParts with KeepParts: the parts that changed, each from its previous plan.
    Plan SolveChangedParts(const PlanInstance& instance);

    bool m_byParts;   ///< SolveByParts
    bool m_keepParts; ///< KeepParts
    /// The parts' plans as they were made (each part is one of its "racks").
    HarmonicsPlanner m_parts;
    std::map<uint32_t, int32_t> m_partOf; ///< job -> its part (its first job's id) at the last plan
    std::set<int32_t> m_disturbed;        ///< parts that left their plans since the last plan
};

} // namespace ns3

#endif /* SYMPHONY_SCHEDULER_H */
