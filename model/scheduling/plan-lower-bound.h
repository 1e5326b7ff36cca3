/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PLAN_LOWER_BOUND_H
#define PLAN_LOWER_BOUND_H

#include "epoch-plan.h"

#include <map>
#include <utility>

/**
 * \file
 * A lower bound on the weighted completion time of a PlanInstance that holds
 * for any policy, not only for slot plans: the linear relaxation of a
 * preemptive, rate-sharing version of the problem, in continuous time.
 *
 * What a policy may do in the relaxation: run any collective, from its
 * (unrounded) ready time on, on any mix of its candidate routes at any rate
 * up to the rate it has alone (so that it runs at least as long as its
 * shortest route alone), several collectives sharing a link at once as long
 * as their usages, scaled by their rates, fit the link with the reservations.
 * Fair sharing, priorities, gates and slot plans are all such policies. Let
 * z(c, r, t) be the fraction of slot t during which c runs on route r at full
 * rate (sum over r at most 1) and q(c) the part of its work left past the
 * horizon. Then, with D(c, r) its unrounded duration on r and Dmin(c) the
 * shortest:
 *
 *   sum_{r,t} z(c, r, t) / D(c, r) + q(c) = 1                 (all work done)
 *   sum_{c,r} usage(c, r, l) z(c, r, t) <= 1 - reserved(l, t)  (links)
 *   M(c) = sum_{r,t} t z(c, r, t) / D(c, r) + horizon q(c)     (mean busy time, from below)
 *   C(c) >= M(c) + Dmin(c) / 2,  C(c) >= ready(c) + Dmin(c)
 *   chaining, k > 0: C(k) >= C(k-1) + compute + Dmin(k),
 *                    M(k) >= C(k-1) + compute + Dmin(k) / 2 - 1
 *
 * Each holds for every real schedule: work runs at most at its alone rate,
 * so its busy-time mean is at least Dmin / 2 before its end and after its
 * start; M counts the work of slot t at t, at most one slot before it runs.
 * Minimizing sum w(c) C(c) over this LP therefore gives a value no policy
 * beats, in slots (times are measured from the instance's time 0).
 *
 * Counting work at the start of its slot loses up to a slot per collective;
 * the LP may cut every slot into \p resolution steps (t above then counts
 * steps, links keep the reservations of their slot), which tightens the
 * bound at the cost of a larger LP.
 */

namespace ns3
{

/// Which collectives the bound weighs.
enum class PlanBoundObjective
{
    WEIGHTED,      ///< every collective with its weight (the plans' objective)
    LAST_OF_CHAIN, ///< each job's last collective with weight 1 (sum of job completions)
};

/// The bound and what the LP found.
struct PlanBound
{
    double value{0};    ///< lower bound on the objective, in slots
    bool solved{false}; ///< the LP was solved; if not, value is the chains' own bound
    /// (job id, collective index) -> the LP's completion time C, in slots
    std::map<std::pair<uint32_t, uint32_t>, double> completion;
    MilpResult solve; ///< the LP solve's statistics
};

/**
 * Each chain alone on its fastest routes, from its unrounded ready time: the
 * bound without any link constraint (what PlanLowerBound never goes below).
 */
double ChainsAloneBound(const PlanInstance& instance, PlanBoundObjective objective);

/**
 * The LP described above, solved with \p solver. A solve that ends without
 * a proven optimum falls back on ChainsAloneBound (solved = false), so the
 * value is a bound whatever happens.
 */
PlanBound PlanLowerBound(const PlanInstance& instance,
                         const MilpSolver& solver,
                         const MilpSolveOptions& options,
                         PlanBoundObjective objective,
                         uint32_t resolution = 1);

/// The LP itself (names: z_j<job>_k<index>_r<route>_u<step>, q_, m_, c_ per collective).
/// \throw std::invalid_argument for an invalid instance or a resolution of 0
MilpModel BuildPlanBoundModel(const PlanInstance& instance,
                              PlanBoundObjective objective,
                              uint32_t resolution = 1);

} // namespace ns3

#endif /* PLAN_LOWER_BOUND_H */
