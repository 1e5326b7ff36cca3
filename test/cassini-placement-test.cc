/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/cassini-placement.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <stdexcept>

using namespace ns3;

namespace
{

/// Demand of a job on a link at integer time t, its profile moved later by s.
double
DemandAt(const CassiniJob& j, uint32_t link, int64_t t, int64_t s)
{
    const int64_t phase = ((t - s) % j.period + j.period) % j.period;
    double d = 0.0;
    for (const auto& in : j.demand.at(link))
    {
        if (phase >= in.start && phase < in.end)
        {
            d += in.demand;
        }
    }
    return d;
}

/// 1 - mean excess over capacity, sampled at every integer time of the LCM circle.
double
BruteScore(const std::vector<CassiniJob>& jobs, uint32_t link, const std::map<uint32_t, int64_t>& s)
{
    int64_t l = 1;
    for (const auto& j : jobs)
    {
        if (j.demand.count(link))
        {
            l = std::lcm(l, j.period);
        }
    }
    double excess = 0.0;
    for (int64_t t = 0; t < l; ++t)
    {
        double total = 0.0;
        for (const auto& j : jobs)
        {
            if (j.demand.count(link))
            {
                total += DemandAt(j, link, t, s.count(j.id) ? s.at(j.id) : 0);
            }
        }
        excess += std::max(0.0, total - 1.0);
    }
    return 1.0 - excess / static_cast<double>(l);
}

CassiniJob
Job(uint32_t id, int64_t period, std::map<uint32_t, std::vector<DemandInterval>> demand)
{
    return CassiniJob{id, period, std::move(demand)};
}

CassiniJob
FixedJob(uint32_t id, int64_t period, std::map<uint32_t, std::vector<DemandInterval>> demand)
{
    return CassiniJob{id, period, std::move(demand), true};
}

/// Brute-force best shift of job \p free on \p link, all other jobs at 0: {smallest best shift,
/// score}.
std::pair<int64_t, double>
BruteBestShift(const std::vector<CassiniJob>& jobs, uint32_t link, uint32_t free, int64_t period)
{
    int64_t bestShift = -1;
    double best = -1e9;
    for (int64_t s = 0; s < period; ++s)
    {
        const double v = BruteScore(jobs, link, {{free, s}});
        if (v > best + 1e-12)
        {
            best = v;
            bestShift = s;
        }
    }
    return {bestShift, best};
}

} // namespace

TEST(CassiniPlacementTest, TwoIdenticalJobsInterleaveByHalfAPeriod)
{
    const std::vector<CassiniJob> jobs = {Job(1, 100, {{7, {{50, 100, 1.0}}}}),
                                          Job(2, 100, {{7, {{50, 100, 1.0}}}})};
    const auto r = ComputeCassiniShifts(jobs);

    // Independent brute force over every integer shift of the second job.
    double best = -1.0;
    int64_t bestShift = -1;
    for (int64_t s = 0; s < 100; ++s)
    {
        const double v = BruteScore(jobs, 7, {{1, 0}, {2, s}});
        if (v > best + 1e-12)
        {
            best = v;
            bestShift = s;
        }
    }
    EXPECT_DOUBLE_EQ(best, 1.0);
    EXPECT_EQ(bestShift, 50);
    EXPECT_EQ(r.linkShift.at(7).at(2), 50);
    EXPECT_NEAR(r.linkScore.at(7), best, 1e-9);
    EXPECT_EQ(r.shift.at(1), 0);
    EXPECT_EQ(r.shift.at(2), 50);
    EXPECT_EQ(r.inconsistentEdges, 0u);
}

TEST(CassiniPlacementTest, CoarseAngleStepsStillFindTheInterleaving)
{
    const std::vector<CassiniJob> jobs = {Job(1, 100, {{7, {{50, 100, 1.0}}}}),
                                          Job(2, 100, {{7, {{50, 100, 1.0}}}})};
    const auto r = ComputeCassiniShifts(jobs, 4); // rotations of 25 units
    EXPECT_EQ(r.shift.at(2), 50);
    EXPECT_NEAR(r.linkScore.at(7), 1.0, 1e-12);
}

TEST(CassiniPlacementTest, ThreeJobsMatchBruteForce)
{
    const std::vector<CassiniJob> jobs = {
        Job(1, 100, {{3, {{0, 40, 1.0}}}}),
        Job(2, 100, {{3, {{30, 80, 0.6}}}}),
        Job(3, 200, {{3, {{0, 60, 0.8}, {100, 170, 0.5}}}}),
    };
    const auto r = ComputeCassiniShifts(jobs);

    double best = -1e9;
    for (int64_t s2 = 0; s2 < 100; ++s2)
    {
        for (int64_t s3 = 0; s3 < 200; ++s3)
        {
            best = std::max(best, BruteScore(jobs, 3, {{1, 0}, {2, s2}, {3, s3}}));
        }
    }
    EXPECT_NEAR(r.linkScore.at(3), best, 1e-9);
    // The reported shifts really achieve the reported score.
    EXPECT_NEAR(BruteScore(jobs, 3, r.linkShift.at(3)), best, 1e-9);
    EXPECT_NEAR(BruteScore(jobs, 3, r.shift), best, 1e-9);
    EXPECT_NEAR(CassiniLinkScore(jobs, 3, r.shift), best, 1e-9);
    EXPECT_LT(best, 1.0); // total demand exceeds capacity on average: no perfect fit
}

TEST(CassiniPlacementTest, ChainOfLinksHonoursBothLinks)
{
    // A on l1; B on l1 and l2; C on l2 (a tree: no conflicts possible).
    const std::vector<CassiniJob> jobs = {
        Job(10, 100, {{1, {{0, 30, 1.0}}}}),
        Job(20, 100, {{1, {{10, 60, 1.0}}}, {2, {{70, 100, 0.9}}}}),
        Job(30, 50, {{2, {{0, 20, 1.0}}}}),
    };
    const auto r = ComputeCassiniShifts(jobs);
    EXPECT_EQ(r.inconsistentEdges, 0u);
    for (uint32_t link : {1u, 2u})
    {
        // Each link's brute-force optimum is reached under the global shifts.
        double best = -1e9;
        for (int64_t a = 0; a < 100; ++a)
        {
            std::map<uint32_t, int64_t> s = link == 1
                                                ? std::map<uint32_t, int64_t>{{10, 0}, {20, a}}
                                                : std::map<uint32_t, int64_t>{{20, 0}, {30, a}};
            best = std::max(best, BruteScore(jobs, link, s));
        }
        EXPECT_NEAR(BruteScore(jobs, link, r.shift), best, 1e-9) << "link " << link;
        // Relative shifts agree modulo each job's period.
        const auto& ls = r.linkShift.at(link);
        const uint32_t a = ls.begin()->first;
        const int64_t offset = r.shift.at(a) - ls.at(a);
        for (const auto& j : jobs)
        {
            if (ls.count(j.id))
            {
                EXPECT_EQ(((r.shift.at(j.id) - ls.at(j.id) - offset) % j.period + j.period) %
                              j.period,
                          0);
            }
        }
    }
    for (const auto& j : jobs)
    {
        EXPECT_GE(r.shift.at(j.id), 0);
        EXPECT_LT(r.shift.at(j.id), j.period);
    }
}

TEST(CassiniPlacementTest, ConflictingTriangleReportsInconsistency)
{
    // Each pair wants to be half a period apart: impossible for three jobs.
    const std::vector<DemandInterval> half = {{50, 100, 1.0}};
    const std::vector<CassiniJob> jobs = {
        Job(1, 100, {{1, half}, {3, half}}),
        Job(2, 100, {{1, half}, {2, half}}),
        Job(3, 100, {{2, half}, {3, half}}),
    };
    const auto r = ComputeCassiniShifts(jobs);
    EXPECT_GE(r.inconsistentEdges, 1u);
    double honoured = 0.0;
    for (uint32_t link : {1u, 2u, 3u})
    {
        EXPECT_NEAR(r.linkScore.at(link), 1.0, 1e-12);
        honoured += BruteScore(jobs, link, r.shift);
    }
    EXPECT_LT(honoured, 3.0 - 1e-9); // some link cannot get its interleaving
}

TEST(CassiniPlacementTest, ManyJobsUseGreedyAndStayValid)
{
    std::vector<CassiniJob> jobs;
    for (uint32_t i = 0; i < 6; ++i)
    {
        jobs.push_back(Job(i, 120, {{5, {{static_cast<int64_t>(10 * i), 100, 0.4}}}}));
    }
    const auto r = ComputeCassiniShifts(jobs);
    const auto again = ComputeCassiniShifts(jobs);
    EXPECT_EQ(r.shift, again.shift);
    EXPECT_NEAR(BruteScore(jobs, 5, r.linkShift.at(5)), r.linkScore.at(5), 1e-9);
    EXPECT_GE(r.linkScore.at(5), BruteScore(jobs, 5, {}) - 1e-9); // no worse than no shifts
}

TEST(CassiniPlacementTest, LcmCapThrows)
{
    const std::vector<CassiniJob> shared = {Job(1, 9999991, {{1, {{0, 10, 1.0}}}}),
                                            Job(2, 9999973, {{1, {{0, 10, 1.0}}}})};
    EXPECT_THROW(ComputeCassiniShifts(shared), std::invalid_argument);
    // The same periods on different links are fine.
    const std::vector<CassiniJob> apart = {Job(1, 9999991, {{1, {{0, 10, 1.0}}}}),
                                           Job(2, 9999973, {{2, {{0, 10, 1.0}}}})};
    EXPECT_NO_THROW(ComputeCassiniShifts(apart));
}

TEST(CassiniPlacementTest, BadInputThrows)
{
    EXPECT_THROW(ComputeCassiniShifts({Job(1, 0, {})}), std::invalid_argument);
    EXPECT_THROW(ComputeCassiniShifts({Job(1, 100, {{1, {{50, 120, 1.0}}}})}),
                 std::invalid_argument);
    EXPECT_THROW(ComputeCassiniShifts({Job(1, 100, {{1, {{0, 50, 1.5}}}})}), std::invalid_argument);
    EXPECT_THROW(ComputeCassiniShifts({Job(1, 100, {}), Job(1, 100, {})}), std::invalid_argument);
    EXPECT_THROW(ComputeCassiniShifts({Job(1, 100, {})}, 0), std::invalid_argument);
}

TEST(CassiniPlacementTest, FreeJobFitsAroundAFixedJob)
{
    // The free job has the smaller id and a different period: the fixed job still keeps 0.
    const std::vector<CassiniJob> jobs = {
        Job(1, 50, {{4, {{0, 20, 0.7}}}}),
        FixedJob(2, 100, {{4, {{30, 70, 0.8}}}}),
    };
    const auto r = ComputeCassiniShifts(jobs);
    const auto [bestShift, best] = BruteBestShift(jobs, 4, 1, 50);
    EXPECT_EQ(r.shift.at(2), 0);
    EXPECT_EQ(r.shift.at(1), bestShift);
    EXPECT_NEAR(r.linkScore.at(4), best, 1e-9);
    EXPECT_NEAR(BruteScore(jobs, 4, r.shift), best, 1e-9);
    EXPECT_EQ(r.inconsistentEdges, 0u);
    EXPECT_NE(bestShift, 0); // the free job, first by id, really had to move
}

TEST(CassiniPlacementTest, FreeJobFitsAroundTwoFixedJobs)
{
    const std::vector<CassiniJob> jobs = {
        Job(1, 100, {{6, {{0, 40, 0.9}}}}),
        FixedJob(2, 100, {{6, {{0, 30, 1.0}}}}),
        FixedJob(3, 50, {{6, {{10, 25, 0.5}}}}),
    };
    const auto r = ComputeCassiniShifts(jobs);
    const auto [bestShift, best] = BruteBestShift(jobs, 6, 1, 100);
    EXPECT_EQ(r.shift.at(2), 0);
    EXPECT_EQ(r.shift.at(3), 0);
    EXPECT_EQ(r.linkShift.at(6).at(2), 0);
    EXPECT_EQ(r.linkShift.at(6).at(3), 0);
    EXPECT_EQ(r.shift.at(1), bestShift);
    EXPECT_NEAR(r.linkScore.at(6), best, 1e-9);
    EXPECT_NEAR(BruteScore(jobs, 6, r.shift), best, 1e-9);
    EXPECT_EQ(r.inconsistentEdges, 0u);
}

TEST(CassiniPlacementTest, FreeJobBetweenTwoFixedJobsFollowsTheFirst)
{
    // Free job 0 on links 1 and 2; fixed job 1 on link 1, fixed job 2 on link 2. Link 1 alone
    // wants job 0 at 50, link 2 alone at 40 (smallest of 40..70): the loop through the two fixed
    // jobs (both at 0) cannot honour both, and the lower fixed id is expanded first.
    const std::vector<CassiniJob> jobs = {
        Job(0, 100, {{1, {{0, 50, 1.0}}}, {2, {{0, 50, 1.0}}}}),
        FixedJob(1, 100, {{1, {{0, 50, 1.0}}}}),
        FixedJob(2, 100, {{2, {{20, 40, 1.0}}}}),
    };
    const auto r = ComputeCassiniShifts(jobs);
    const auto [best1Shift, best1] = BruteBestShift(jobs, 1, 0, 100);
    const auto [best2Shift, best2] = BruteBestShift(jobs, 2, 0, 100);
    ASSERT_NE(best1Shift, best2Shift); // the test needs the links to disagree
    EXPECT_EQ(r.shift.at(1), 0);
    EXPECT_EQ(r.shift.at(2), 0);
    EXPECT_EQ(r.shift.at(0), best1Shift);
    EXPECT_EQ(r.linkShift.at(1).at(0), best1Shift);
    EXPECT_EQ(r.linkShift.at(2).at(0), best2Shift);
    EXPECT_NEAR(r.linkScore.at(1), best1, 1e-9);
    EXPECT_NEAR(r.linkScore.at(2), best2, 1e-9);
    EXPECT_EQ(r.inconsistentEdges, 1u); // edge (job 0, link 2)
    // Here link 2's demand still fits under link 1's choice.
    EXPECT_NEAR(BruteScore(jobs, 2, r.shift), best2, 1e-9);
}

TEST(CassiniPlacementTest, FixedJobKeepsItsPhaseInGreedySearch)
{
    // Six free jobs exceed kCassiniMaxExhaustiveJobs; the fixed one still has only rotation 0.
    std::vector<CassiniJob> jobs = {FixedJob(9, 120, {{5, {{30, 90, 0.5}}}})};
    for (uint32_t i = 0; i < 6; ++i)
    {
        jobs.push_back(Job(i, 120, {{5, {{static_cast<int64_t>(10 * i), 100, 0.3}}}}));
    }
    const auto r = ComputeCassiniShifts(jobs);
    EXPECT_EQ(r.shift.at(9), 0);
    EXPECT_EQ(r.linkShift.at(5).at(9), 0);
    EXPECT_NEAR(BruteScore(jobs, 5, r.shift), r.linkScore.at(5), 1e-9);
    EXPECT_GE(r.linkScore.at(5), BruteScore(jobs, 5, {}) - 1e-9); // no worse than no shifts
}
