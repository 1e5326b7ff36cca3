/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HARMONICS_SCHEDULER_H
#define HARMONICS_SCHEDULER_H

#include "epoch-scheduler.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Harmonics (CoNEXT 2025): a light Global Coordinator and one Local
 * Scheduler per rack.
 *
 * At each epoch (and job arrival and departure) the instance is split: a
 * job whose ranks all sit in one rack belongs to that rack's Local
 * Scheduler; the others (crossing racks) to the Global Coordinator. The
 * coordinator places its collectives greedily (Smith's rule, earliest
 * feasible slot on a capacity ledger of the links they use, GreedyPlan) and
 * hands the capacity they take to the local schedulers as reservations;
 * each local scheduler then solves the time-indexed MILP for its rack's
 * jobs over its rack's links (with CBC, TimeLimit, RelativeGap). Local
 * schedulers are independent (parallel in a deployment), so the scheduling
 * time of an epoch is the coordinator's time plus the slowest local solve;
 * each part is recorded ("coordinator", "local", "scheduling").
 *
 * When every job stays inside a rack there is nothing to coordinate and the
 * local MILPs together are Symphony's MILP (racks share no links).
 */
struct HarmonicsPlan
{
    Plan plan;                      ///< the merged plan (method "harmonics")
    uint32_t globalJobs{0};         ///< jobs the coordinator placed
    double coordinatorUs{0};        ///< the coordinator's wall-clock time
    uint64_t coordinatorChoices{0}; ///< routes x slots the coordinator's greedy may scan

    /// Per rack: jobs, wall-clock time and the local plan (its solver statistics).
    struct Local
    {
        int32_t rack{0};
        uint32_t jobs{0};
        double wallUs{0};
        Plan plan;
    };

    std::vector<Local> locals;
    double schedulingUs{0}; ///< coordinator + the slowest local planner

    /// Every local plan proven optimal and nothing left to the coordinator.
    bool Proven() const;
};

/**
 * \ingroup collective-scheduling
 * Harmonics' planning of \p instance: the jobs with \p jobRack -1 (or
 * absent) cross racks and are placed greedily by the Global Coordinator; the
 * others are planned per rack by a Local Scheduler each (an MILP solved by
 * \p solver with \p options), with the coordinator's capacity as
 * reservations. Used by HarmonicsScheduler and by the scheduling-time
 * benchmark.
 */
HarmonicsPlan PlanHarmonics(const PlanInstance& instance,
                            const std::map<uint32_t, int32_t>& jobRack,
                            const MilpSolver& solver,
                            const MilpSolveOptions& options);

/**
 * \ingroup collective-scheduling
 * \brief Harmonics as a collective scheduler (see above and PlanHarmonics).
 */
class HarmonicsScheduler : public EpochScheduler
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;

  protected:
    Plan PlanEpoch(const PlanInstance& instance) override;
};

} // namespace ns3

#endif /* HARMONICS_SCHEDULER_H */
