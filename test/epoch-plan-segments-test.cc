/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Plans of collectives whose link use varies over their run (segments: an
 * iteration's ops each in its own slots, none in the compute between them):
 * two jobs interleave in each other's compute gaps where the one-phase model
 * of the same traffic serialises them; the MILP matches the brute force on
 * random segmented instances, the greedy is feasible and no better, and the
 * lower bound stays below the optimum; a segment reaching into the compute
 * before the next collective holds its slots; bad segments are named.
 */

#include "epoch-plan-test-util.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/epoch-plan.h"
#include "ns3/plan-lower-bound.h"

#include <gtest/gtest.h>
#include <random>

using namespace ns3;
using namespace ns3::epoch_plan_test;

namespace
{

/// A collective of \p duration slots using link 7 fully in the slots of \p busy.
PlanCollective
Bursts(int64_t duration, const std::vector<std::pair<int64_t, int64_t>>& busy)
{
    PlanCollective c = Coll(0, duration, 1.0, {});
    for (const auto& [b, e] : busy)
    {
        c.segments.push_back({b, e, {{7, 1.0}}});
    }
    c.usage = PeakUsage(c.segments);
    return c;
}

/// The one-phase view of \p c: its busy slots spread over its duration.
PlanCollective
OnePhase(const PlanCollective& c)
{
    PlanCollective flat = c;
    flat.segments.clear();
    flat.usage.clear();
    for (const auto& [link, slots] : c.LinkSlots(0))
    {
        flat.usage[link] = slots / static_cast<double>(c.duration);
    }
    return flat;
}

} // namespace

TEST(EpochPlanSegmentsTest, JobsInterleaveInEachOthersComputeGaps)
{
    // Each job's iteration: a bucket (slot 0), compute (slot 1), a bucket
    // (slot 2), each bucket at the link's full rate. Per op, the second job
    // starts one slot later and its buckets fill the first one's gaps: 3 + 4.
    PlanInstance in;
    in.horizon = 12;
    in.jobs = {Job(1, 0, {Bursts(3, {{0, 1}, {2, 3}})}), Job(2, 0, {Bursts(3, {{0, 1}, {2, 3}})})};
    const Plan brute = BruteForcePlan(in);
    EXPECT_DOUBLE_EQ(brute.objective, 7.0);
    CbcMilpSolver cbc;
    const Plan milp = SolvePlan(in, cbc, Exact());
    EXPECT_DOUBLE_EQ(milp.objective, 7.0);
    EXPECT_DOUBLE_EQ(GreedyPlan(in).objective, 7.0);

    // As one phase each (2/3 of the link for 3 slots), the two cannot
    // overlap: the second waits for the whole phase, 3 + 6.
    PlanInstance phases = in;
    for (PlanJob& j : phases.jobs)
    {
        j.collectives[0] = OnePhase(j.collectives[0]);
    }
    const Plan serial = SolvePlan(phases, cbc, Exact());
    EXPECT_DOUBLE_EQ(serial.objective, 9.0);
    // The one-phase plan is feasible per op too, but 9/7 of the best.
    std::string why;
    EXPECT_TRUE(CheckPlan(in, serial, &why)) << why;
    EXPECT_DOUBLE_EQ(PlanObjective(in, serial), 9.0);
}

TEST(EpochPlanSegmentsTest, MilpMatchesBruteForceOnRandomSegmentedInstances)
{
    std::mt19937 rng(20261207);
    CbcMilpSolver cbc;
    int greedyWorse = 0;
    int segmentsWithGaps = 0;
    int bounded = 0;
    for (int i = 0; i < 60; ++i)
    {
        const PlanInstance in = RandomSegmentedInstance(rng);
        SCOPED_TRACE("instance " + std::to_string(i));
        for (const PlanJob& j : in.jobs)
        {
            for (const PlanCollective& c : j.collectives)
            {
                segmentsWithGaps += c.segments.size() > 1 ? 1 : 0;
            }
        }
        const Plan brute = ExpectMilpMatchesBruteForce(in, 100000000);
        std::string why;
        const Plan greedy = GreedyPlan(in);
        EXPECT_TRUE(CheckPlan(in, greedy, &why)) << why;
        EXPECT_GE(greedy.objective, brute.objective - 1e-9);
        greedyWorse += greedy.objective > brute.objective + 1e-9 ? 1 : 0;

        // The bound's chains run on past the horizon, where a deferred
        // collective's "finish" does not: it bounds plans that defer nothing.
        bool defers = false;
        for (const auto& [key, start] : brute.start)
        {
            defers = defers || start == in.horizon;
        }
        if (!defers)
        {
            ++bounded;
            const PlanBound bound = PlanLowerBound(in, cbc, Exact(), PlanBoundObjective::WEIGHTED);
            EXPECT_LE(bound.value, brute.objective + 1e-6);
        }
    }
    EXPECT_GT(segmentsWithGaps, 20);
    EXPECT_GT(greedyWorse, 0);
    EXPECT_GT(bounded, 20);
}

TEST(EpochPlanSegmentsTest, UseReachingIntoTheNextComputeHoldsItsSlots)
{
    // Job 1 runs 2 slots, computes 2, and its next iteration's traffic
    // before its first planned op uses the link in slot 3 (in that compute).
    PlanCollective c = Bursts(2, {{0, 1}, {3, 4}});
    PlanInstance in;
    in.horizon = 10;
    in.jobs = {Job(1, 2, {c}), Job(2, 0, {Coll(3, 1, 1.0, {{7, 1.0}})})};
    const Plan brute = BruteForcePlan(in);
    EXPECT_EQ(brute.start.at({1, 0}), 0);
    EXPECT_EQ(brute.start.at({2, 0}), 4); // slot 3 is job 1's
    Plan clash = brute;
    clash.start[{2, 0}] = 3;
    std::string why;
    EXPECT_FALSE(CheckPlan(in, clash, &why));
    EXPECT_NE(why.find("slot 3"), std::string::npos) << why;
}

TEST(EpochPlanSegmentsTest, ValidateNamesBadSegments)
{
    auto error = [](const PlanCollective& c) {
        PlanInstance in;
        in.horizon = 6;
        in.jobs = {Job(4, 1, {c})};
        try
        {
            in.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(error(Bursts(2, {{0, 1}, {2, 3}})), ""); // reaches into the compute: fine
    EXPECT_NE(error(Bursts(2, {{0, 2}, {1, 3}})).find("job 4 collective 0 segment 1"),
              std::string::npos);
    EXPECT_NE(error(Bursts(2, {{2, 4}})).find("end by the duration plus the job's compute, 3"),
              std::string::npos);
    PlanCollective wrongPeak = Bursts(2, {{0, 1}});
    wrongPeak.usage[7] = 0.5;
    EXPECT_NE(error(wrongPeak).find("largest segment usage"), std::string::npos);
    PlanCollective zero = Bursts(2, {{0, 1}});
    zero.segments[0].usage[7] = 0.0;
    zero.usage = {{7, 1.0}};
    EXPECT_NE(error(zero).find("segment 0: field usage of link 7"), std::string::npos);
}
