/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Plans on longer slots: a plan of the coarsened instance, its starts
 * multiplied by the factor, fits the original (checked by CheckPlan on
 * random instances with segments, routes and reservations); on a case
 * worked by hand the rounding costs exactly what the arithmetic says;
 * SolvePlanWithin coarsens only a MILP over its limit, never returns worse
 * than the greedy plan, and flags the plan as not proven.
 */

#include "epoch-plan-test-util.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/epoch-plan.h"
#include "ns3/plan-coarsening.h"

#include <gtest/gtest.h>
#include <random>

using namespace ns3;
using namespace ns3::epoch_plan_test;

namespace
{

/// RandomSegmentedInstance over a longer horizon, with an alternative route
/// on some collectives and part of a link reserved in some slots.
PlanInstance
RandomInstance(std::mt19937& rng)
{
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    PlanInstance in = RandomSegmentedInstance(rng);
    in.horizon = pick(6, 13);
    for (PlanJob& job : in.jobs)
    {
        for (PlanCollective& c : job.collectives)
        {
            if (pick(0, 1) == 1)
            {
                c.alternatives.push_back(Route(pick(1, 4), {{3, 0.5}}));
            }
        }
    }
    std::vector<double> reserved(in.horizon, 0.0);
    for (double& r : reserved)
    {
        r = pick(0, 3) == 0 ? 0.5 : 0.0;
    }
    in.reserved[0] = reserved;
    return in;
}

} // namespace

TEST(PlanCoarseningTest, CoarsePlansRefinedFitTheOriginalInstance)
{
    std::mt19937 rng(11);
    const CbcMilpSolver cbc;
    MilpSolveOptions options;
    options.relativeGap = 0.0;
    int placed = 0;
    for (int i = 0; i < 60; ++i)
    {
        const PlanInstance in = RandomInstance(rng);
        for (int64_t f = 1; f <= 4; ++f)
        {
            const PlanInstance coarse = CoarsenPlanInstance(in, f);
            EXPECT_EQ(coarse.horizon, (in.horizon + f - 1) / f);
            for (const Plan& p : {GreedyPlan(coarse), SolvePlan(coarse, cbc, options)})
            {
                const Plan refined = RefinePlan(in, p, f);
                std::string why;
                EXPECT_TRUE(CheckPlan(in, refined, &why))
                    << "instance " << i << " factor " << f << ": " << why;
                EXPECT_EQ(refined.slotFactor, f);
                EXPECT_EQ(refined.proven, p.proven && f == 1);
                for (const auto& [key, s] : refined.start)
                {
                    EXPECT_TRUE(s == in.horizon || s % f == 0) << s;
                    placed += s < in.horizon ? 1 : 0;
                }
            }
        }
    }
    EXPECT_GT(placed, 500); // the check above saw placed collectives, not only deferred ones
}

TEST(PlanCoarseningTest, RoundingCostsWhatTheArithmeticSays)
{
    // Two jobs, one link: A (3 slots, ready 0), then B (3 slots, ready 1).
    // On the original slots B follows A at slot 3: finishes 3 + 6 = 9. On
    // slots twice as long, A takes 2 coarse slots and B is ready at coarse
    // slot 1, so B starts at coarse slot 2 = slot 4: finishes 3 + 7 = 10.
    PlanInstance in;
    in.horizon = 12;
    in.jobs = {Job(1, 0, {Coll(0, 3, 1.0, {{5, 1.0}})}), Job(2, 0, {Coll(1, 3, 1.0, {{5, 1.0}})})};
    EXPECT_DOUBLE_EQ(BruteForcePlan(in).objective, 9.0);
    const PlanInstance coarse = CoarsenPlanInstance(in, 2);
    EXPECT_EQ(coarse.horizon, 6);
    EXPECT_EQ(coarse.jobs[1].collectives[0].readySlot, 1);
    EXPECT_EQ(coarse.jobs[1].collectives[0].duration, 2);
    const Plan refined = RefinePlan(in, BruteForcePlan(coarse), 2);
    EXPECT_EQ(refined.start.at({1, 0}), 0);
    EXPECT_EQ(refined.start.at({2, 0}), 4);
    EXPECT_DOUBLE_EQ(refined.objective, 10.0);
    // Reservations and segment uses keep the largest of the slots joined.
    in.reserved[5] = std::vector<double>(12, 0.0);
    in.reserved[5][3] = 0.25;
    in.jobs[0].collectives[0].segments = {{0, 1, {{5, 0.5}}}, {1, 3, {{5, 1.0}}}};
    const PlanInstance c2 = CoarsenPlanInstance(in, 2);
    EXPECT_EQ(c2.reserved.at(5), (std::vector<double>{0, 0.25, 0, 0, 0, 0}));
    EXPECT_EQ(c2.jobs[0].collectives[0].segments, (std::vector<PlanSegment>{{0, 2, {{5, 1.0}}}}));
}

TEST(PlanCoarseningTest, OnlyAMilpOverTheLimitIsCoarsenedAndNeverWorseThanGreedy)
{
    std::mt19937 rng(5);
    const CbcMilpSolver cbc;
    MilpSolveOptions options;
    options.relativeGap = 0.0;
    int coarsened = 0;
    for (int i = 0; i < 30; ++i)
    {
        const PlanInstance in = RandomInstance(rng);
        const std::size_t nonzeros = BuildPlanModel(in).GetNumNonzeros();
        const Plan own = SolvePlanWithin(in, cbc, options, nonzeros);
        EXPECT_EQ(own.slotFactor, 1);
        EXPECT_DOUBLE_EQ(own.objective, SolvePlan(in, cbc, options).objective);
        const Plan within = SolvePlanWithin(in, cbc, options, nonzeros / 3);
        EXPECT_TRUE(CheckPlan(in, within));
        EXPECT_FALSE(within.proven);
        EXPECT_LE(within.objective, GreedyPlan(in).objective + 1e-9);
        EXPECT_GE(within.objective, own.objective - 1e-9);
        if (within.slotFactor > 1)
        {
            ++coarsened;
            EXPECT_LE(BuildPlanModel(CoarsenPlanInstance(in, within.slotFactor)).GetNumNonzeros(),
                      nonzeros / 3);
        }
    }
    EXPECT_EQ(coarsened, 30);
}

TEST(PlanCoarseningTest, BadFactorIsRefused)
{
    PlanInstance in;
    in.jobs = {Job(1, 0, {Coll(0, 1, 1.0, {{5, 1.0}})})};
    EXPECT_THROW(CoarsenPlanInstance(in, 0), std::invalid_argument);
}
