/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HARMONICS_PLANNER_H
#define HARMONICS_PLANNER_H

#include "harmonics-coordinator.h"

#include "ns3/nstime.h"

#include <set>
#include <string>

namespace ns3
{

/// What Harmonics' planning of one instance needs besides the instance.
struct HarmonicsInput
{
    std::map<uint32_t, int32_t> jobRack; ///< job -> its rack; -1 or absent: it crosses racks
    RackUplinks uplinks;                 ///< the racks' uplinks, for the coordinator's aggregates
    Time origin;                         ///< when slot 0 begins
    Time slot{NanoSeconds(1)};           ///< slot length (> 0)
    /// job -> the iteration its collective 0 is (absent: 0); collective k is iteration + k
    std::map<uint32_t, uint32_t> firstIteration;
    /// Racks whose jobs left the previous plan since it was made (a collective
    /// that ended more than a slot away from its planned end, or ran unplanned).
    std::set<int32_t> disturbed;
};

/// Harmonics' plan of one instance, tier by tier.
struct HarmonicsPlan
{
    Plan plan;                      ///< the merged plan (method "harmonics")
    uint32_t globalJobs{0};         ///< jobs the coordinator placed
    double coordinatorUs{0};        ///< the coordinator's wall-clock time
    uint64_t coordinatorChoices{0}; ///< (slot, route) pairs the coordinator may weigh
    /// The coordinator's view: per rack and direction, per slot, the load of
    /// the rack's uplinks as a fraction of their aggregate capacity.
    std::map<UplinkGroup, std::vector<double>> aggregate;

    /// Per rack: its Local Scheduler's plan.
    struct Local
    {
        int32_t rack{0};
        uint32_t jobs{0};
        bool solved{true};   ///< false: the previous plan was kept, no solve
        std::string why;     ///< why it was solved ("first", "jobs", "disturbed", "infeasible")
        uint32_t carried{0}; ///< collectives of the warm start carried over from the previous plan
        bool warmStart{false}; ///< the solve started from the previous plan (completed)
        double wallUs{0};      ///< wall-clock time of its solve (0 when kept)
        Plan plan;             ///< its plan (method "kept" when kept)
    };

    std::vector<Local> locals;
    double schedulingUs{0}; ///< coordinator + the slowest Local Scheduler that solved
    /// Exact start times of the kept collectives (off the slot grid when the
    /// origin moved by a fraction of a slot); the plan has them at the next slot.
    std::map<std::pair<uint32_t, uint32_t>, Time> keptStart;

    /// Every local plan solved and proven optimal and nothing left to the coordinator.
    bool Proven() const;
};

/**
 * \ingroup collective-scheduling
 * \brief Harmonics (CoNEXT 2025): a light Global Coordinator and one Local
 * Scheduler per rack, re-planning incrementally.
 *
 * Each Replan plans an instance: a job whose ranks all sit in one rack
 * (HarmonicsInput::jobRack) belongs to that rack's Local Scheduler; the
 * others cross racks and belong to the Global Coordinator
 * (PlanCoordinator), which fixes their start slots and spine assignments
 * (routes) on the racks' aggregate uplink capacity; their per-link usage is
 * then reserved for the Local Schedulers, each an epoch MILP (SolvePlan:
 * starts and routes) over its rack's jobs.
 *
 * Incremental: a rack keeps its previous plan (the same absolute start
 * times, no solve) unless it changed since: its set of jobs differs, it is
 * disturbed (HarmonicsInput::disturbed), or the previous plan does not
 * cover or no longer fits its collectives (one not placed then that a plan
 * could now start within the horizon, one whose
 * planned start has passed, a route no longer offered, a ready time or the
 * running collectives' reservations it now violates). The coordinator runs
 * every time, after the kept racks, whose usage it respects. A re-solved
 * rack's MILP starts from its previous plan: the collectives it still
 * covers where they still fit, the others placed greedily after them.
 */
class HarmonicsPlanner
{
  public:
    /// Plan \p instance (see above), solving with \p solver and \p options.
    HarmonicsPlan Replan(const PlanInstance& instance,
                         const HarmonicsInput& input,
                         const MilpSolver& solver,
                         const MilpSolveOptions& options);

    /**
     * The planned window of iteration \p iteration of job \p job, from the
     * last plan that placed it.
     * \return false if no plan placed it
     */
    bool PlannedWindow(uint32_t job, uint32_t iteration, Time* start, Time* end) const;

    /// Drop what is known of job \p job (it is done).
    void Forget(uint32_t job);

  private:
    /// A collective as a plan placed it.
    struct Placed
    {
        Time start;                        ///< absolute start
        Time length;                       ///< duration in slots x slot
        int64_t duration{1};               ///< slots
        std::map<uint32_t, double> usage;  ///< its route's usage
        std::vector<PlanSegment> segments; ///< its route's segments
    };

    /**
     * The previous placements of \p part's collectives on the grid of \p input,
     * each job's chain up to its first collective that has none or no longer
     * fits (\p exact, if given: their absolute starts).
     * \return the number of collectives placed
     */
    uint32_t MapPrevious(const PlanInstance& part,
                         const HarmonicsInput& input,
                         Plan* out,
                         std::map<std::pair<uint32_t, uint32_t>, Time>* exact) const;

    std::map<uint32_t, std::map<uint32_t, Placed>> m_placed; ///< job -> iteration -> placement
    std::map<int32_t, std::set<uint32_t>> m_rackJobs;        ///< the racks' jobs at the last plan
    bool m_planned{false};                                   ///< a plan was made
};

/**
 * \ingroup collective-scheduling
 * Harmonics' planning of \p instance from scratch (every rack solved; see
 * HarmonicsPlanner), with \p jobRack and \p uplinks as in HarmonicsInput.
 * Used by the scheduling-time benchmark.
 */
HarmonicsPlan PlanHarmonics(const PlanInstance& instance,
                            const std::map<uint32_t, int32_t>& jobRack,
                            const RackUplinks& uplinks,
                            const MilpSolver& solver,
                            const MilpSolveOptions& options);

} // namespace ns3

#endif /* HARMONICS_PLANNER_H */
