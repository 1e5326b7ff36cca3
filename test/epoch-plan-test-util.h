/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EPOCH_PLAN_TEST_UTIL_H
#define EPOCH_PLAN_TEST_UTIL_H

// Builders of plan instances and checks of MILP answers shared by the epoch-plan tests.

#include "ns3/epoch-plan.h"
#include "ns3/milp-model.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ns3
{
namespace epoch_plan_test
{

inline PlanCollective
Coll(int64_t ready, int64_t duration, double weight, std::map<uint32_t, double> usage)
{
    PlanCollective c;
    c.readySlot = ready;
    c.duration = duration;
    c.weight = weight;
    c.usage = std::move(usage);
    return c;
}

inline PlanJob
Job(uint32_t id, int64_t compute, std::vector<PlanCollective> collectives)
{
    PlanJob j;
    j.id = id;
    j.computeSlots = compute;
    j.collectives = std::move(collectives);
    return j;
}

/// The model's variable values that encode \p plan (by the documented names).
inline std::vector<double>
Encode(const MilpModel& model, const Plan& plan)
{
    std::vector<double> x(model.GetNumVariables(), 0.0);
    for (const auto& [key, s] : plan.start)
    {
        const uint32_t r = plan.RouteOf(key.first, key.second);
        const std::string name =
            "x_j" + std::to_string(key.first) + "_k" + std::to_string(key.second) +
            (r == 0 ? "" : "_r" + std::to_string(r)) + "_s" + std::to_string(s);
        bool found = false;
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            if (model.GetVariable(i).name == name)
            {
                x[i] = 1.0;
                found = true;
            }
        }
        EXPECT_TRUE(found) << name;
    }
    return x;
}

/// \p plan came from a solution of the MILP, proven exactly when the solver
/// says OPTIMAL. (Optimality itself is checked against the brute force: CBC
/// may end on the warm start without reporting a bound that meets it.)
inline void
ExpectMilpAnswer(const Plan& plan)
{
    EXPECT_EQ(plan.method, "milp");
    EXPECT_TRUE(plan.solve.HasSolution());
    EXPECT_EQ(plan.proven, plan.solve.status == MilpStatus::OPTIMAL);
}

inline MilpSolveOptions
Exact()
{
    MilpSolveOptions o;
    o.relativeGap = 0.0; // prove optimality
    return o;
}

} // namespace epoch_plan_test
} // namespace ns3

#endif /* EPOCH_PLAN_TEST_UTIL_H */
