/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SYMPHONY_SCHEDULER_H
#define SYMPHONY_SCHEDULER_H

#include "epoch-scheduler.h"

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
 * MaxNonzeros a part too large for its slots is solved on longer ones
 * (SolvePlanWithin).
 */
class SymphonyScheduler : public EpochScheduler
{
  public:
    static TypeId GetTypeId();

  protected:
    Plan PlanEpoch(const PlanInstance& instance) override;
    /// One MILP over everything, timed as the "scheduling" part.
    Plan SolveCentrally(const PlanInstance& instance, const MilpSolveOptions& options);

  private:
    bool m_byParts;         ///< SolveByParts
    uint64_t m_maxNonzeros; ///< MaxNonzeros
};

} // namespace ns3

#endif /* SYMPHONY_SCHEDULER_H */
