/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/crux-priorities.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <stdexcept>

using namespace ns3;

namespace
{

/// Independent model of the contention DAG: (high index, low index, weight).
struct Edge
{
    size_t high;
    size_t low;
    double weight;
};

std::vector<Edge>
ReferenceDag(const std::vector<CruxJob>& jobs)
{
    std::vector<Edge> edges;
    for (size_t a = 0; a < jobs.size(); ++a)
    {
        for (size_t b = a + 1; b < jobs.size(); ++b)
        {
            bool share = false;
            for (uint32_t l : jobs[a].links)
            {
                share = share || std::count(jobs[b].links.begin(), jobs[b].links.end(), l) > 0;
            }
            if (!share)
            {
                continue;
            }
            const double pa = jobs[a].k * jobs[a].computeWork / jobs[a].commTime;
            const double pb = jobs[b].k * jobs[b].computeWork / jobs[b].commTime;
            const bool aHigh = pa > pb || (pa == pb && jobs[a].id < jobs[b].id);
            edges.push_back(aHigh ? Edge{a, b, pb} : Edge{b, a, pa});
        }
    }
    return edges;
}

/// Best cut over all K^n assignments that respect the DAG.
double
BruteForceBestCut(const std::vector<CruxJob>& jobs, uint32_t K)
{
    const auto edges = ReferenceDag(jobs);
    const size_t n = jobs.size();
    std::vector<uint32_t> c(n, 0);
    double best = -1.0;
    while (true)
    {
        bool ok = true;
        double cut = 0.0;
        for (const auto& e : edges)
        {
            ok = ok && c[e.high] >= c[e.low];
            cut += c[e.high] != c[e.low] ? e.weight : 0.0;
        }
        if (ok)
        {
            best = std::max(best, cut);
        }
        size_t i = 0;
        while (i < n && ++c[i] == K)
        {
            c[i++] = 0;
        }
        if (i == n)
        {
            break;
        }
    }
    return best;
}

double
ReferenceCut(const std::vector<CruxJob>& jobs, const std::map<uint32_t, uint32_t>& cls)
{
    double cut = 0.0;
    for (const auto& e : ReferenceDag(jobs))
    {
        cut += cls.at(jobs[e.high].id) != cls.at(jobs[e.low].id) ? e.weight : 0.0;
    }
    return cut;
}

std::vector<CruxJob>
RandomJobs(uint32_t seed, size_t n, uint32_t links)
{
    std::mt19937 rng(seed);
    std::vector<CruxJob> jobs;
    for (size_t i = 0; i < n; ++i)
    {
        CruxJob j;
        j.id = 100 + static_cast<uint32_t>(i) * 7;
        j.computeWork = 1.0 + rng() % 50;
        j.commTime = 1.0 + rng() % 20;
        j.k = rng() % 4 == 0 ? 2.0 : 1.0;
        const uint32_t count = 1 + rng() % 2;
        for (uint32_t k = 0; k < count; ++k)
        {
            j.links.push_back(rng() % links);
        }
        jobs.push_back(j);
    }
    return jobs;
}

void
ExpectRespectsOrder(const std::vector<CruxJob>& jobs, const std::map<uint32_t, uint32_t>& cls)
{
    for (const auto& e : ReferenceDag(jobs))
    {
        EXPECT_GE(cls.at(jobs[e.high].id), cls.at(jobs[e.low].id));
    }
}

} // namespace

TEST(CruxPrioritiesTest, PrioritiesFollowIntensityTimesCorrection)
{
    std::vector<CruxJob> jobs = {{1, 100.0, 10.0, 1.0, {0}},
                                 {2, 100.0, 20.0, 1.0, {0}},
                                 {3, 30.0, 1.0, 1.0, {0}},
                                 {4, 100.0, 20.0, 3.0, {0}}};
    const auto p = CruxPriorities(jobs);
    ASSERT_EQ(p.size(), 4u);
    EXPECT_DOUBLE_EQ(p[0], 10.0);
    EXPECT_DOUBLE_EQ(p[1], 5.0);
    EXPECT_DOUBLE_EQ(p[2], 30.0);
    EXPECT_DOUBLE_EQ(p[3], 15.0);
    // All share link 0: classes with K >= n follow the priority order strictly.
    const auto c = CruxClasses(jobs, 8);
    EXPECT_GT(c.at(3), c.at(4));
    EXPECT_GT(c.at(4), c.at(1));
    EXPECT_GT(c.at(1), c.at(2));
}

TEST(CruxPrioritiesTest, JobsThatShareNoLinkCanShareAClass)
{
    // Two independent contending pairs, two classes: every edge can be cut
    // only if non-contending jobs share classes.
    std::vector<CruxJob> jobs = {{1, 40.0, 1.0, 1.0, {0}},
                                 {2, 10.0, 1.0, 1.0, {0}},
                                 {3, 30.0, 1.0, 1.0, {1}},
                                 {4, 20.0, 1.0, 1.0, {1}}};
    const auto c = CruxClasses(jobs, 2);
    EXPECT_NE(c.at(1), c.at(2));
    EXPECT_NE(c.at(3), c.at(4));
    EXPECT_EQ(c.at(1), c.at(3)); // the higher job of each pair in the top class
    EXPECT_EQ(c.at(2), c.at(4));
    EXPECT_DOUBLE_EQ(CruxCutWeight(jobs, c), 10.0 + 20.0);
}

TEST(CruxPrioritiesTest, EnoughClassesSeparateEveryContendingPair)
{
    for (uint32_t seed = 1; seed <= 10; ++seed)
    {
        for (size_t n : {8u, 15u}) // exact and order-preserving paths
        {
            const auto jobs = RandomJobs(seed, n, 3);
            for (uint32_t K : {static_cast<uint32_t>(n), 64u})
            {
                const auto c = CruxClasses(jobs, K);
                ExpectRespectsOrder(jobs, c);
                for (const auto& e : ReferenceDag(jobs))
                {
                    EXPECT_NE(c.at(jobs[e.high].id), c.at(jobs[e.low].id));
                }
                for (const auto& [id, cls] : c)
                {
                    EXPECT_LT(cls, K);
                }
            }
        }
    }
}

TEST(CruxPrioritiesTest, CompressionMatchesBruteForceOnSmallDags)
{
    for (uint32_t seed = 1; seed <= 30; ++seed)
    {
        const size_t n = 6 + seed % 3;
        const auto jobs = RandomJobs(seed, n, 4);
        for (uint32_t K : {2u, 3u})
        {
            const auto c = CruxClasses(jobs, K);
            ASSERT_EQ(c.size(), n);
            ExpectRespectsOrder(jobs, c);
            for (const auto& [id, cls] : c)
            {
                EXPECT_LT(cls, K);
            }
            const double best = BruteForceBestCut(jobs, K);
            EXPECT_NEAR(ReferenceCut(jobs, c), best, 1e-9) << "seed " << seed << " K " << K;
            EXPECT_NEAR(CruxCutWeight(jobs, c), best, 1e-9);
            EXPECT_TRUE(CruxRespectsOrder(jobs, c));
        }
    }
}

TEST(CruxPrioritiesTest, OrderPreservingCompressionIsValidAndBounded)
{
    for (uint32_t seed = 1; seed <= 5; ++seed)
    {
        const auto jobs = RandomJobs(seed, 13, 5);
        const auto c = CruxClasses(jobs, 2); // beyond the exact limit
        ExpectRespectsOrder(jobs, c);
        const double best = BruteForceBestCut(jobs, 2);
        EXPECT_LE(ReferenceCut(jobs, c), best + 1e-9);
        // On small inputs the exact program is at least as good.
        const auto small = RandomJobs(seed, 8, 3);
        EXPECT_LE(CruxCutWeight(small, CruxClassesOrderPreserving(small, 2)),
                  CruxCutWeight(small, CruxClasses(small, 2)) + 1e-9);
    }
}

TEST(CruxPrioritiesTest, DeterministicAndIndependentOfInputOrder)
{
    for (uint32_t seed = 1; seed <= 5; ++seed)
    {
        auto jobs = RandomJobs(seed, 8, 3);
        const auto a = CruxClasses(jobs, 3);
        EXPECT_EQ(a, CruxClasses(jobs, 3));
        std::reverse(jobs.begin(), jobs.end());
        EXPECT_EQ(a, CruxClasses(jobs, 3));
    }
}

TEST(CruxPrioritiesTest, BadInputThrows)
{
    EXPECT_THROW(CruxPriorities({{1, 1.0, 0.0, 1.0, {}}}), std::invalid_argument);
    EXPECT_THROW(CruxPriorities({{1, -1.0, 1.0, 1.0, {}}}), std::invalid_argument);
    EXPECT_THROW(CruxPriorities({{1, 1.0, 1.0, 0.0, {}}}), std::invalid_argument);
    EXPECT_THROW(CruxPriorities({{1, 1.0, 1.0, 1.0, {}}, {1, 2.0, 1.0, 1.0, {}}}),
                 std::invalid_argument);
    EXPECT_THROW(CruxClasses({{1, 1.0, 1.0, 1.0, {}}}, 0), std::invalid_argument);
}
