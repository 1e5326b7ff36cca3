/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PLAN_COARSENING_H
#define PLAN_COARSENING_H

#include "epoch-plan.h"

#include <cstddef>
#include <cstdint>

/**
 * \file
 * Fewer, longer slots for a plan instance whose MILP is too large to solve
 * within a plan's time. A coarse slot joins \c factor slots. A plan of the
 * coarse instance, its starts multiplied by the factor, is a plan of the
 * original: every time the coarse instance gives is rounded the safe way
 * (ready times, durations and compute up, reservations and uses to the
 * largest of the slots joined), so what fits there fits here. The price is
 * the rounding: starts only on coarse boundaries and gaps of up to a coarse
 * slot between a job's collectives.
 */

namespace ns3
{

/**
 * \p instance with slots \p factor times as long: horizon, ready slots,
 * durations and compute rounded up; each coarse slot reserves and uses the
 * most any of its slots does.
 * \throw std::invalid_argument if \p factor < 1 or \p instance is invalid
 */
PlanInstance CoarsenPlanInstance(const PlanInstance& instance, int64_t factor);

/**
 * A plan of \p instance from a plan of CoarsenPlanInstance(instance,
 * factor): each start times \p factor, deferred kept deferred, routes
 * kept. Its objective is the original instance's; it is not proven.
 */
Plan RefinePlan(const PlanInstance& instance, const Plan& coarse, int64_t factor);

/**
 * SolvePlan, on slots coarsened by the smallest factor whose MILP has at most
 * \p maxNonzeros constraint terms (0: no limit), when the instance's own
 * MILP has more. The coarse plan, refined, is returned if it beats the
 * greedy plan of \p instance, else the greedy plan is; either way
 * Plan::slotFactor says which slots the solver saw.
 */
Plan SolvePlanWithin(const PlanInstance& instance,
                     const MilpSolver& solver,
                     const MilpSolveOptions& options,
                     std::size_t maxNonzeros);

} // namespace ns3

#endif /* PLAN_COARSENING_H */
