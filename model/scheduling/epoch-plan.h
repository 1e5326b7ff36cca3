/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EPOCH_PLAN_H
#define EPOCH_PLAN_H

#include "ns3/milp-solver.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

/**
 * \file
 * The time-indexed scheduling problem of Symphony and Harmonics (see
 * doc/collective-scheduling.rst and MISSION.md "The scheduling problem"),
 * as plain data, with an exact MILP formulation, a greedy (Smith's rule,
 * earliest feasible slot) and an independent feasibility check. No
 * simulator objects: slots are integers, links are ids.
 *
 * Time is cut into slots 0 .. horizon-1. Each job has a chain of
 * collectives (its communication phases, in order). Each collective has
 * one or more candidate routes (route 0: its connections' default ECMP
 * paths; the others: alternative source ports), each with its own duration
 * and link usage; a plan chooses a route and a start slot for each. Collective
 * k of a job may start at slot >= its readySlot and, for k > 0, at slot >=
 * start of collective k-1 + the duration of the route it took + the job's
 * computeSlots (the job computes between its collectives). Once started on
 * route r, a collective runs for duration(r) slots and uses fraction
 * usage(r)[l] of each link l in every one of them, or, for a route given as
 * segments, the usage of the segment covering each slot: an iteration's
 * ops (data-parallel buckets, pipeline and expert traffic) use their links
 * in their own slots, and the compute between them uses none. A segment may
 * reach past the duration, into the compute before the job's next
 * collective (the next iteration's traffic before its first planned op). Per link and slot, the
 * usage of the collectives running there plus the reserved capacity must not
 * exceed 1. A collective may also be deferred past the horizon ("start" =
 * horizon, on route 0, finishing at horizon + its route-0 duration, no
 * capacity used), which keeps every instance feasible; chaining still holds
 * (a deferred collective defers the rest of its chain). Objective: minimize
 * the sum over collectives of weight x (start + duration of its route), the
 * weighted finish times.
 */

namespace ns3
{

/// Part of a route's use of the links: over slots [begin, end) from the collective's start.
struct PlanSegment
{
    int64_t begin{0};                 ///< first slot, from the collective's start (>= 0)
    int64_t end{1};                   ///< one past its last slot (> begin)
    std::map<uint32_t, double> usage; ///< link id -> fraction of the link used, in (0, 1]

    bool operator==(const PlanSegment& o) const
    {
        return begin == o.begin && end == o.end && usage == o.usage;
    }
};

/// Each link's largest usage among \p segments (a segmented route's usage).
std::map<uint32_t, double> PeakUsage(const std::vector<PlanSegment>& segments);

/**
 * Use given slot by slot (slot t: link id -> fraction) as segments: runs of
 * equal slots, each fraction capped at 1, those below 1e-9 and empty slots
 * left out.
 */
std::vector<PlanSegment> SegmentsOfSlots(const std::vector<std::map<uint32_t, double>>& bySlot);

/// One candidate route of a collective: how long it runs on it and what it uses.
struct PlanRoute
{
    int64_t duration{1}; ///< slots it runs once started (>= 1)
    /// link id -> fraction of the link used, in (0, 1]: in every slot of its
    /// duration, or, with segments, the largest use of each (PeakUsage)
    std::map<uint32_t, double> usage;
    /// Its use slot by slot when it varies: disjoint, in order, within the
    /// duration plus the job's computeSlots; empty: usage over [0, duration).
    std::vector<PlanSegment> segments;
    /// The estimate duration rounds up, in slots, in (0, duration]; 0: duration
    /// (only lower bounds read it, see PlanLowerBound).
    double exactDuration{0};
};

/// One collective to place.
struct PlanCollective
{
    int64_t readySlot{0};                ///< earliest start slot (>= 0)
    int64_t duration{1};                 ///< slots it runs on route 0 (>= 1)
    double weight{1.0};                  ///< w_c (> 0)
    std::map<uint32_t, double> usage;    ///< route 0: link id -> fraction used, in (0, 1]
    std::vector<PlanRoute> alternatives; ///< routes 1, 2, ...: other candidate routings
    double exactDuration{0};             ///< route 0's unrounded duration in slots (see PlanRoute)
    std::vector<PlanSegment> segments;   ///< route 0's use slot by slot (see PlanRoute)
    double exactReady{-1}; ///< unrounded ready time in slots, <= readySlot; < 0: readySlot
    /// The route that belongs to an assignment made for all jobs together (Crux's
    /// least-loaded one), whose routes keep off each other; -1: none. A greedy
    /// planner prefers it among choices that are otherwise equal, where the lowest
    /// route would let the first collective placed block the next one's only free path.
    int32_t jointRoute{-1};

    /// Number of candidate routes (1 + alternatives).
    uint32_t Routes() const
    {
        return 1 + static_cast<uint32_t>(alternatives.size());
    }

    /// Slots route \p r runs.
    int64_t Duration(uint32_t r) const
    {
        return r == 0 ? duration : alternatives.at(r - 1).duration;
    }

    /// Unrounded slots route \p r runs (its duration if none is given).
    double ExactDuration(uint32_t r) const
    {
        const double e = r == 0 ? exactDuration : alternatives.at(r - 1).exactDuration;
        return e > 0 ? e : static_cast<double>(Duration(r));
    }

    /// Unrounded ready time in slots.
    double ExactReady() const
    {
        return exactReady >= 0 ? exactReady : static_cast<double>(readySlot);
    }

    /// Link usage of route \p r (with segments: each link's largest).
    const std::map<uint32_t, double>& Usage(uint32_t r) const
    {
        return r == 0 ? usage : alternatives.at(r - 1).usage;
    }

    /// Segments of route \p r (empty: Usage(r) over its whole duration).
    const std::vector<PlanSegment>& Segments(uint32_t r) const
    {
        return r == 0 ? segments : alternatives.at(r - 1).segments;
    }

    /**
     * Call \p f(begin, end, usage) for each stretch of slots [begin, end),
     * from the start, over which route \p r uses \p usage: its segments in
     * order, or its usage over its whole duration.
     */
    template <typename F>
    void ForEachUse(uint32_t r, F&& f) const
    {
        const std::vector<PlanSegment>& segs = Segments(r);
        if (segs.empty())
        {
            f(int64_t{0}, Duration(r), Usage(r));
            return;
        }
        for (const PlanSegment& seg : segs)
        {
            f(seg.begin, seg.end, seg.usage);
        }
    }

    /// One past the last slot, from the start, in which route \p r uses a link.
    int64_t Reach(uint32_t r) const
    {
        const std::vector<PlanSegment>& segs = Segments(r);
        return segs.empty() ? Duration(r) : std::max(Duration(r), segs.back().end);
    }

    /// Slots of link use of route \p r, link by link (Σ usage x slots): what
    /// it asks of the links whenever it runs.
    std::map<uint32_t, double> LinkSlots(uint32_t r) const
    {
        std::map<uint32_t, double> total;
        ForEachUse(r, [&total](int64_t b, int64_t e, const std::map<uint32_t, double>& u) {
            for (const auto& [link, x] : u)
            {
                total[link] += x * static_cast<double>(e - b);
            }
        });
        return total;
    }
};

/// A job's chain of collectives.
struct PlanJob
{
    uint32_t id{0};
    int64_t computeSlots{0};                 ///< compute between two collectives of the chain
    double exactComputeSlots{-1};            ///< unrounded, <= computeSlots; < 0: computeSlots
    std::vector<PlanCollective> collectives; ///< in order; the first may be ready already

    /// Unrounded compute slots.
    double ExactCompute() const
    {
        return exactComputeSlots >= 0 ? exactComputeSlots : static_cast<double>(computeSlots);
    }
};

/// A whole instance.
struct PlanInstance
{
    int64_t horizon{1};        ///< number of slots (>= 1)
    std::vector<PlanJob> jobs; ///< unique ids
    /// link id -> capacity already reserved per slot (vector of horizon values in [0, 1]);
    /// a link absent here has nothing reserved.
    std::map<uint32_t, std::vector<double>> reserved;

    /// \throw std::invalid_argument naming the offending job, collective or link
    void Validate() const;
};

/// A solution: the start slot of every collective (horizon = deferred).
struct Plan
{
    /// (job id, collective index) -> start slot in [readySlot, horizon), or
    /// horizon = deferred
    std::map<std::pair<uint32_t, uint32_t>, int64_t> start;
    /// (job id, collective index) -> the route it takes; absent means route 0
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> route;
    double objective{0}; ///< sum of weight x (start + duration of its route)

    /// The route of collective \p index of job \p job (0 if none is set).
    uint32_t RouteOf(uint32_t job, uint32_t index) const
    {
        auto it = route.find({job, index});
        return it == route.end() ? 0 : it->second;
    }

    std::string method; ///< "milp", "greedy" or "brute-force"
    MilpResult solve;   ///< the solver's statistics when method is "milp"
    bool proven{false}; ///< proven optimal
    /// Slots of the instance per slot the solver saw (1: its own; see
    /// SolvePlanWithin)
    int64_t slotFactor{1};
};

/// Sum of weight x (start + duration) of \p plan over \p instance.
double PlanObjective(const PlanInstance& instance, const Plan& plan);

/**
 * Whether \p plan is feasible for \p instance, checked directly on the
 * definition (ready slots, chaining, capacity per link and slot including
 * the reservations, every collective placed once).
 * \param why if not null and the plan is infeasible, what is wrong
 */
bool CheckPlan(const PlanInstance& instance, const Plan& plan, std::string* why = nullptr);

/**
 * The per-link, per-slot capacity \p plan uses (to hand to other planners
 * as reservations): link id -> horizon values.
 */
std::map<uint32_t, std::vector<double>> PlanUsage(const PlanInstance& instance, const Plan& plan);

/**
 * The time-indexed MILP of \p instance: binary x[j][k][r][s] for each route r
 * and s in [earliest possible start, horizon) plus one deferred variable
 * (slot horizon, route 0), one (route, start) per collective, chaining as
 * linear constraints on the start times and route durations, capacity per
 * link and slot, weighted finish times as the objective. Start slots where
 * the reservations leave no room for the collective alone on that route get
 * no variable, and capacity rows that no choice can violate are left out.
 * Names: x_j<job>_k<index>_s<slot> (route 0), x_j<job>_k<index>_r<route>_s<slot>
 * (other routes), one_j<job>_k<index>, chain_j<job>_k<index>,
 * cap_l<link>_t<slot>.
 */
MilpModel BuildPlanModel(const PlanInstance& instance);

/**
 * Solve \p instance with \p solver. A start plan is given as a warm start
 * (replacing options.warmStart): \p start when it is given and passes
 * CheckPlan (a previous plan carried over, say), else the greedy plan. The
 * start plan is returned (its method, the solver's result kept in
 * Plan::solve) if the solver ends without a solution, so a plan always
 * comes back feasible.
 * \throw std::logic_error if the solver's answer fails CheckPlan or its
 * objective differs from the decoded plan's
 */
Plan SolvePlan(const PlanInstance& instance,
               const MilpSolver& solver,
               const MilpSolveOptions& options,
               const Plan* start = nullptr);

/**
 * Smith's rule: collectives in decreasing weight / shortest route duration
 * (ties: job id, then index), each chain in order, each on the route and at
 * the slot that finish earliest among those where it fits the capacity left
 * (ties: the lower route; deferred past the horizon if none). Feasible by
 * construction; not optimal in general.
 */
Plan GreedyPlan(const PlanInstance& instance);

/**
 * Exhaustive search over every route and start slot of every collective (for
 * tests and tiny instances). Among optimal plans, the first found walking
 * collectives in (job id, index) order, slots ascending, routes ascending.
 * \throw std::invalid_argument if the start vectors that respect ready slots
 * and chaining number more than \p maxCombinations
 */
Plan BruteForcePlan(const PlanInstance& instance, uint64_t maxCombinations = 2000000);

} // namespace ns3

#endif /* EPOCH_PLAN_H */
