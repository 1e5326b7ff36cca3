/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A plan instance split into its independent parts: jobs that may share a
 * link (on any candidate route) stay together, reservations go with their
 * links, and the parts' optimal plans joined are an optimal plan of the
 * whole (checked against brute force on each independent piece).
 */
#include "epoch-plan-test-util.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/plan-components.h"

#include <gtest/gtest.h>
#include <random>
#include <set>

using namespace ns3;
using namespace ns3::epoch_plan_test;

namespace
{

std::set<uint32_t>
JobIds(const PlanInstance& in)
{
    std::set<uint32_t> ids;
    for (const PlanJob& j : in.jobs)
    {
        ids.insert(j.id);
    }
    return ids;
}

/// \p in with every link id moved up by \p offset and every job id by \p jobOffset.
PlanInstance
Shifted(const PlanInstance& in, uint32_t offset, uint32_t jobOffset)
{
    auto shift = [offset](const std::map<uint32_t, double>& usage) {
        std::map<uint32_t, double> out;
        for (const auto& [link, share] : usage)
        {
            out[link + offset] = share;
        }
        return out;
    };
    PlanInstance out = in;
    out.reserved.clear();
    for (const auto& [link, r] : in.reserved)
    {
        out.reserved[link + offset] = r;
    }
    for (PlanJob& j : out.jobs)
    {
        j.id += jobOffset;
        for (PlanCollective& c : j.collectives)
        {
            c.usage = shift(c.usage);
            for (PlanRoute& r : c.alternatives)
            {
                r.usage = shift(r.usage);
            }
        }
    }
    return out;
}

} // namespace

TEST(PlanComponents, JobsThatMayShareALinkOnAnyRouteStayTogether)
{
    PlanInstance in;
    in.horizon = 6;
    // Job 1 and job 2 meet only on job 2's alternative route (link 7).
    in.jobs.push_back(Job(1, 0, {Coll(0, 2, 1, {{7, 1.0}})}));
    PlanCollective c2 = Coll(0, 2, 1, {{8, 1.0}});
    c2.alternatives.push_back(Route(2, {{7, 0.5}}));
    in.jobs.push_back(Job(2, 0, {c2}));
    in.jobs.push_back(Job(3, 1, {Coll(0, 1, 1, {{9, 1.0}}), Coll(1, 1, 1, {{9, 1.0}})}));
    in.jobs.push_back(Job(4, 0, {Coll(1, 1, 2, {{10, 0.5}})}));
    in.reserved[10] = std::vector<double>(6, 0.5);
    in.reserved[11] = std::vector<double>(6, 1.0); // used by no job

    const std::vector<PlanInstance> parts = SplitPlanInstance(in);
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(JobIds(parts[0]), (std::set<uint32_t>{1, 2}));
    EXPECT_EQ(JobIds(parts[1]), (std::set<uint32_t>{3}));
    EXPECT_EQ(JobIds(parts[2]), (std::set<uint32_t>{4}));
    for (const PlanInstance& p : parts)
    {
        EXPECT_EQ(p.horizon, 6);
        EXPECT_NO_THROW(p.Validate());
    }
    EXPECT_TRUE(parts[0].reserved.empty());
    EXPECT_TRUE(parts[1].reserved.empty());
    ASSERT_EQ(parts[2].reserved.size(), 1u);
    EXPECT_EQ(parts[2].reserved.at(10), in.reserved.at(10));
}

TEST(PlanComponents, OneSharedLinkJoinsEveryJob)
{
    PlanInstance in;
    in.horizon = 4;
    for (uint32_t j = 0; j < 5; ++j)
    {
        // A chain: job j uses links j and j+1, so all are joined through their neighbours.
        in.jobs.push_back(Job(j, 0, {Coll(0, 1, 1, {{j, 0.5}, {j + 1, 0.5}})}));
    }
    const std::vector<PlanInstance> parts = SplitPlanInstance(in);
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].jobs.size(), 5u);
}

TEST(PlanComponents, PartsSolvedApartGiveTheWholesOptimum)
{
    std::mt19937 rng(20261201);
    for (int trial = 0; trial < 12; ++trial)
    {
        // Two or three random instances on disjoint links: the whole has at
        // least that many parts, and its optimum is the sum of the pieces'
        // brute-force optima (nothing couples pieces on disjoint links).
        PlanInstance whole;
        double reference = 0;
        const int pieces = 2 + trial % 2;
        for (int k = 0; k < pieces; ++k)
        {
            PlanInstance piece = Shifted(RandomRoutedInstance(rng), 100 * k, 1000 * k);
            piece.horizon = 4;
            for (auto& [link, r] : piece.reserved)
            {
                r.resize(4, 0.0);
            }
            reference += BruteForcePlan(piece).objective;
            whole.horizon = 4;
            whole.jobs.insert(whole.jobs.end(), piece.jobs.begin(), piece.jobs.end());
            whole.reserved.insert(piece.reserved.begin(), piece.reserved.end());
        }
        const std::vector<PlanInstance> parts = SplitPlanInstance(whole);
        EXPECT_GE(parts.size(), static_cast<std::size_t>(pieces)) << "trial " << trial;

        MilpSolveOptions exact;
        exact.relativeGap = 0;
        std::vector<Plan> plans;
        for (const PlanInstance& p : parts)
        {
            plans.push_back(SolvePlan(p, CbcMilpSolver(), exact));
        }
        const Plan joined = JoinPlans(plans);
        std::string why;
        EXPECT_TRUE(CheckPlan(whole, joined, &why)) << "trial " << trial << ": " << why;
        EXPECT_TRUE(joined.proven);
        EXPECT_EQ(joined.method, "milp");
        EXPECT_NEAR(PlanObjective(whole, joined), reference, 1e-9) << "trial " << trial;
        EXPECT_NEAR(joined.objective, reference, 1e-9) << "trial " << trial;
        std::size_t variables = 0;
        for (const Plan& p : plans)
        {
            variables += p.solve.variables;
        }
        EXPECT_EQ(joined.solve.variables, variables);
    }
}

TEST(PlanComponents, AJoinedPlanIsProvenOnlyIfEveryPartIs)
{
    Plan a;
    a.method = "milp";
    a.proven = true;
    a.objective = 3;
    a.start[{1, 0}] = 2;
    a.solve.status = MilpStatus::OPTIMAL;
    a.solve.objective = 3;
    a.solve.bound = 3;
    Plan b;
    b.method = "greedy";
    b.proven = false;
    b.objective = 5;
    b.start[{2, 0}] = 0;
    b.route[{2, 0}] = 1;
    b.solve.status = MilpStatus::NO_SOLUTION;
    const Plan j = JoinPlans({a, b});
    EXPECT_FALSE(j.proven);
    EXPECT_EQ(j.method, "greedy");
    EXPECT_EQ(j.solve.status, MilpStatus::NO_SOLUTION);
    EXPECT_DOUBLE_EQ(j.objective, 8);
    EXPECT_EQ(j.start.size(), 2u);
    EXPECT_EQ(j.RouteOf(2, 0), 1u);
    EXPECT_TRUE(std::isnan(j.solve.bound)); // b's bound is unknown
}
