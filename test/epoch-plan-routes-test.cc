/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Routes as decisions in the time-indexed plan: each collective may take one
// of several candidate routings, each with its own links and duration.

#include "epoch-plan-test-util.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/epoch-plan.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

using namespace ns3;
using namespace ns3::epoch_plan_test;

namespace
{

/// \p in with every alternative route removed.
PlanInstance
DefaultRoutesOnly(PlanInstance in)
{
    for (auto& job : in.jobs)
    {
        for (auto& c : job.collectives)
        {
            c.alternatives.clear();
        }
    }
    return in;
}

/// \p in with each collective held to its route \p r (its last if it has fewer): a
/// policy that fixes the routing, as ECMP (r = 0) or Crux's least-loaded choice does.
PlanInstance
FixedRoute(PlanInstance in, uint32_t r)
{
    for (auto& job : in.jobs)
    {
        for (auto& c : job.collectives)
        {
            const uint32_t keep = std::min(r, c.Routes() - 1);
            if (keep > 0)
            {
                c.duration = c.alternatives[keep - 1].duration;
                c.usage = c.alternatives[keep - 1].usage;
            }
            c.alternatives.clear();
        }
    }
    return in;
}

} // namespace

// The joint route-and-start MILP finds the brute-force optimum; both plans
// are feasible, and the brute-force plan is a feasible point of the model
// with the same objective.
TEST(EpochPlanRoutesTest, MilpMatchesBruteForce)
{
    std::mt19937 rng(31);
    int rerouted = 0;
    for (int i = 0; i < 40; ++i)
    {
        const PlanInstance in = RandomRoutedInstance(rng);
        SCOPED_TRACE("instance " + std::to_string(i));
        const Plan brute = ExpectMilpMatchesBruteForce(in, 50000000);
        rerouted += brute.route.empty() ? 0 : 1;
    }
    // The instances exercise the routes: some optima leave the default.
    EXPECT_GT(rerouted, 5);
}

// More candidates never raise the optimum (the default route is always
// among them), and the greedy stays feasible and no better than it.
TEST(EpochPlanRoutesTest, CandidatesNeverRaiseTheOptimumAndGreedyIsFeasible)
{
    std::mt19937 rng(77);
    int strictlyBetter = 0;
    int heldCompared = 0;
    for (int i = 0; i < 60; ++i)
    {
        const PlanInstance in = RandomRoutedInstance(rng);
        SCOPED_TRACE("instance " + std::to_string(i));
        const Plan routed = BruteForcePlan(in, 50000000);
        const Plan fixed = BruteForcePlan(DefaultRoutesOnly(in), 50000000);
        EXPECT_LE(routed.objective, fixed.objective + 1e-9);
        strictlyBetter += routed.objective < fixed.objective - 1e-9 ? 1 : 0;
        // Nor does any policy that fixes the routing do better, however it
        // times it (compared where that policy's best defers nothing: a
        // deferred collective costs the default route's duration).
        for (uint32_t r = 0; r < 3; ++r)
        {
            const Plan held = BruteForcePlan(FixedRoute(in, r), 50000000);
            const bool defers = std::any_of(held.start.begin(), held.start.end(), [&in](auto& s) {
                return s.second >= in.horizon;
            });
            if (!defers)
            {
                EXPECT_LE(routed.objective, held.objective + 1e-9) << "routing " << r;
                ++heldCompared;
            }
        }

        const Plan greedy = GreedyPlan(in);
        std::string why;
        EXPECT_TRUE(CheckPlan(in, greedy, &why)) << why;
        EXPECT_GE(greedy.objective, routed.objective - 1e-9);
        const MilpModel model = BuildPlanModel(in);
        EXPECT_TRUE(model.IsFeasible(Encode(model, greedy), 1e-9, &why)) << why;
    }
    EXPECT_GT(strictlyBetter, 5);
    EXPECT_GT(heldCompared, 60);
}

// Two jobs collide on link 7 on their default routes; job 2 has an
// alternative on link 9: both run at once instead of one after the other.
TEST(EpochPlanRoutesTest, AnAlternativeRouteRemovesTheCollision)
{
    PlanInstance in;
    in.horizon = 10;
    in.jobs = {Job(1, 0, {Coll(0, 3, 1.0, {{7, 1.0}})}), Job(2, 0, {Coll(0, 3, 1.0, {{7, 1.0}})})};
    const Plan serial = SolvePlan(in, CbcMilpSolver(), Exact());
    EXPECT_DOUBLE_EQ(serial.objective, 3 + 6);

    in.jobs[1].collectives[0].alternatives.push_back(Route(3, {{9, 1.0}}));
    for (const Plan& p : {SolvePlan(in, CbcMilpSolver(), Exact()), GreedyPlan(in)})
    {
        SCOPED_TRACE(p.method);
        EXPECT_DOUBLE_EQ(p.objective, 3 + 3);
        EXPECT_EQ(p.start.at({1, 0}), 0);
        EXPECT_EQ(p.start.at({2, 0}), 0);
        EXPECT_EQ(p.RouteOf(2, 0), 1u);
        EXPECT_EQ(p.RouteOf(1, 0), 0u);
    }
}

// A slower alternative is taken only when waiting for the fast route costs more.
TEST(EpochPlanRoutesTest, SlowerRouteOnlyWhenItFinishesFirst)
{
    PlanInstance in;
    in.horizon = 12;
    // Link 7 is reserved for the first 2 slots; the alternative on link 9 takes 4 slots.
    in.reserved[7] = std::vector<double>(12, 0.0);
    in.reserved[7][0] = in.reserved[7][1] = 1.0;
    PlanCollective c = Coll(0, 2, 1.0, {{7, 1.0}});
    c.alternatives.push_back(Route(4, {{9, 1.0}}));
    in.jobs = {Job(1, 0, {c})};
    Plan p = SolvePlan(in, CbcMilpSolver(), Exact());
    EXPECT_EQ(p.RouteOf(1, 0), 0u); // wait 2 + run 2 = 4 = run 4 at once: the lower route
    EXPECT_EQ(p.start.at({1, 0}), 2);
    EXPECT_DOUBLE_EQ(p.objective, 4);

    in.reserved[7][2] = 1.0; // now waiting costs 3 + 2 = 5 > 4
    p = SolvePlan(in, CbcMilpSolver(), Exact());
    EXPECT_EQ(p.RouteOf(1, 0), 1u);
    EXPECT_EQ(p.start.at({1, 0}), 0);
    EXPECT_DOUBLE_EQ(p.objective, 4);
}

// Chaining follows the duration of the route the previous collective took,
// and the checker rejects what breaks the route rules.
TEST(EpochPlanRoutesTest, CheckPlanFollowsTheRouteTaken)
{
    PlanInstance in;
    in.horizon = 20;
    PlanCollective first = Coll(0, 2, 1.0, {{7, 1.0}});
    first.alternatives.push_back(Route(5, {{9, 1.0}}));
    in.jobs = {Job(1, 1, {first, Coll(0, 2, 1.0, {{7, 1.0}})})};

    Plan p;
    p.start[{1, 0}] = 0;
    p.start[{1, 1}] = 3; // 0 + 2 + compute 1: fine on route 0
    std::string why;
    EXPECT_TRUE(CheckPlan(in, p, &why)) << why;
    p.route[{1, 0}] = 1; // route 1 runs 5 slots: collective 1 may start at 6 only
    EXPECT_FALSE(CheckPlan(in, p, &why));
    EXPECT_NE(why.find("before slot 6"), std::string::npos) << why;
    p.start[{1, 1}] = 6;
    EXPECT_TRUE(CheckPlan(in, p, &why)) << why;
    EXPECT_DOUBLE_EQ(PlanObjective(in, p), (0 + 5) + (6 + 2));

    p.route[{1, 1}] = 1; // collective 1 has one route only
    EXPECT_FALSE(CheckPlan(in, p, &why));
    EXPECT_NE(why.find("route 1 of 1"), std::string::npos) << why;
    p.route.erase({1, 1});
    p.start[{1, 0}] = 20; // deferred, but on route 1
    p.start[{1, 1}] = 20;
    EXPECT_FALSE(CheckPlan(in, p, &why));
    EXPECT_NE(why.find("deferred on route 1"), std::string::npos) << why;
}

// A bad alternative is named by its route.
TEST(EpochPlanRoutesTest, ValidateNamesTheRoute)
{
    PlanInstance in;
    in.horizon = 4;
    PlanCollective c = Coll(0, 2, 1.0, {{7, 1.0}});
    c.alternatives.push_back(Route(0, {{9, 1.0}}));
    in.jobs = {Job(4, 0, {c})};
    try
    {
        in.Validate();
        FAIL() << "no error";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("job 4 collective 0 route 1: field duration"),
                  std::string::npos)
            << e.what();
    }
}
