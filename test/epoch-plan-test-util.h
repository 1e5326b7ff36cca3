/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EPOCH_PLAN_TEST_UTIL_H
#define EPOCH_PLAN_TEST_UTIL_H

// Builders of plan instances and checks of MILP answers shared by the epoch-plan tests.

#include "ns3/cbc-milp-solver.h"
#include "ns3/epoch-plan.h"
#include "ns3/milp-model.h"

#include <gtest/gtest.h>
#include <random>
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

inline PlanRoute
Route(int64_t duration, std::map<uint32_t, double> usage)
{
    PlanRoute r;
    r.duration = duration;
    r.usage = std::move(usage);
    return r;
}

/// A random tiny instance with routes: 2-3 jobs of 1-2 collectives, horizon
/// 4-7, 2-4 links, each collective with 0-2 alternatives on random links.
inline PlanInstance
RandomRoutedInstance(std::mt19937& rng)
{
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const double usages[] = {0.5, 0.6, 1.0};
    auto usageOn = [&](int links) {
        std::map<uint32_t, double> usage;
        const int a = pick(0, links - 1);
        const int b = pick(0, links - 1);
        usage[static_cast<uint32_t>(10 + a)] = usages[pick(0, 2)];
        usage[static_cast<uint32_t>(10 + b)] = usages[pick(0, 2)];
        return usage;
    };
    PlanInstance in;
    in.horizon = pick(4, 7);
    const int links = pick(2, 4);
    const int jobs = pick(2, 3);
    for (int j = 0; j < jobs; ++j)
    {
        PlanJob job = Job(static_cast<uint32_t>(2 * j + 3), pick(0, 1), {});
        const int n = pick(1, 2);
        for (int k = 0; k < n; ++k)
        {
            const int ready = pick(0, 2);
            const int duration = pick(1, 3);
            const int weight = pick(1, 3);
            PlanCollective c = Coll(ready, duration, weight, usageOn(links));
            const int alternatives = pick(0, 2);
            for (int a = 0; a < alternatives; ++a)
            {
                const int d = pick(1, 3);
                c.alternatives.push_back(Route(d, usageOn(links)));
            }
            job.collectives.push_back(c);
        }
        in.jobs.push_back(job);
    }
    return in;
}

/// A random tiny instance whose collectives have 1-3 segments (gaps
/// between them, some reaching past the duration into the job's compute).
inline PlanInstance
RandomSegmentedInstance(std::mt19937& rng)
{
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const double usages[] = {0.4, 0.6, 1.0};
    PlanInstance in;
    in.horizon = pick(5, 8);
    const int links = pick(1, 3);
    const int jobs = pick(2, 3);
    for (int j = 0; j < jobs; ++j)
    {
        PlanJob job = Job(static_cast<uint32_t>(j + 1), pick(0, 2), {});
        const int n = pick(1, 2);
        for (int k = 0; k < n; ++k)
        {
            PlanCollective c = Coll(pick(0, 2), pick(1, 3), pick(1, 3), {});
            const int64_t reach = c.duration + job.computeSlots;
            int64_t t = 0;
            while (t < reach && c.segments.size() < 3)
            {
                const int64_t b = t + pick(0, 1);
                if (b >= reach)
                {
                    break;
                }
                const int64_t e = std::min<int64_t>(reach, b + pick(1, 2));
                PlanSegment seg{b, e, {}};
                seg.usage[static_cast<uint32_t>(pick(0, links - 1))] = usages[pick(0, 2)];
                c.segments.push_back(std::move(seg));
                t = e + pick(0, 1);
            }
            c.usage = PeakUsage(c.segments);
            job.collectives.push_back(std::move(c));
        }
        in.jobs.push_back(std::move(job));
    }
    return in;
}

/// A horizon long enough that no plan needs to defer anything: every
/// collective one after the other on its slowest route.
inline int64_t
SerialHorizon(const PlanInstance& in)
{
    int64_t h = 1;
    for (const PlanJob& j : in.jobs)
    {
        for (const PlanCollective& c : j.collectives)
        {
            int64_t slowest = 0;
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                slowest = std::max(slowest, c.Duration(r));
            }
            h += c.readySlot + slowest + j.computeSlots;
        }
    }
    return h;
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

/**
 * The brute force's plan of \p in (at most \p maxCombinations), checked:
 * feasible; the MILP's proven plan at its objective; and a feasible point of
 * the model at that objective.
 */
inline Plan
ExpectMilpMatchesBruteForce(const PlanInstance& in, uint64_t maxCombinations)
{
    const Plan brute = BruteForcePlan(in, maxCombinations);
    std::string why;
    EXPECT_TRUE(CheckPlan(in, brute, &why)) << why;
    CbcMilpSolver cbc;
    const Plan milp = SolvePlan(in, cbc, Exact());
    ExpectMilpAnswer(milp);
    EXPECT_TRUE(CheckPlan(in, milp, &why)) << why;
    EXPECT_NEAR(milp.objective, brute.objective, 1e-6);
    const MilpModel model = BuildPlanModel(in);
    const std::vector<double> x = Encode(model, brute);
    EXPECT_TRUE(model.IsFeasible(x, 1e-9, &why)) << why;
    EXPECT_NEAR(model.Evaluate(x), brute.objective, 1e-9);
    return brute;
}

} // namespace epoch_plan_test
} // namespace ns3

#endif /* EPOCH_PLAN_TEST_UTIL_H */
