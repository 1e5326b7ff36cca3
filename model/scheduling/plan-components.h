/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PLAN_COMPONENTS_H
#define PLAN_COMPONENTS_H

#include "epoch-plan.h"

#include <vector>

/**
 * \file
 * A plan instance split into its independent parts, and the parts' plans
 * joined again. Two jobs are in one part when a link that any candidate
 * route of a collective of one may use is one that a route of the other's
 * may use: no choice made in one part changes the capacity the other has,
 * so the parts' optimal plans together are an optimal plan of the whole,
 * and each part's MILP is a fraction of the whole's size.
 */

namespace ns3
{

/**
 * \p instance split into its independent parts (see the file comment).
 * Parts are in the order of their first job, jobs in their order in
 * \p instance; each part keeps the horizon and the reservations of the
 * links its jobs may use. One part (a copy of \p instance) if nothing splits.
 */
std::vector<PlanInstance> SplitPlanInstance(const PlanInstance& instance);

/**
 * The plans of the parts of an instance as one plan: every start and route,
 * the objectives summed, proven if every part's is, method "milp" if every
 * part was solved by the MILP (else the first other method met), and the
 * solver's statistics summed (variables, constraints, nonzeros, nodes, wall
 * time), its status the worst of the parts' and its bound the sum of theirs
 * (NaN if any is unknown).
 */
Plan JoinPlans(const std::vector<Plan>& parts);

} // namespace ns3

#endif /* PLAN_COMPONENTS_H */
