/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The lower bound of the plans: at or below the optimum of every tiny
// instance and below what a rate-sharing policy (fair sharing, simulated
// here as a fluid) achieves, above the chains alone when links are shared,
// and never raised by more candidate routes.

#include "epoch-plan-test-util.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/plan-lower-bound.h"

#include <gtest/gtest.h>
#include <limits>
#include <random>

using namespace ns3;
using namespace ns3::epoch_plan_test;

namespace
{

MilpSolveOptions
LpOptions()
{
    MilpSolveOptions o;
    o.relativeGap = 0;
    return o;
}

double
Bound(const PlanInstance& in,
      PlanBoundObjective objective = PlanBoundObjective::WEIGHTED,
      uint32_t resolution = 4)
{
    const PlanBound b = PlanLowerBound(in, CbcMilpSolver(), LpOptions(), objective, resolution);
    EXPECT_TRUE(b.solved) << ToString(b.solve.status);
    return b.value;
}

/**
 * Fair sharing as a fluid, in continuous time: every job runs its chain on
 * route \p routeOf(job, k), from its unrounded ready time, with compute
 * between collectives; running collectives get max-min fair rates (each at
 * most its alone rate 1, a link's sum of usage x rate at most 1), recomputed
 * at every start and end. Returns sum of weight x completion (WEIGHTED).
 */
template <typename RouteOf>
double
FairSharing(const PlanInstance& in, RouteOf routeOf)
{
    struct Run
    {
        const PlanJob* job;
        uint32_t k{0};
        double readyAt{0};
        double left{1}; ///< fraction of the work left
        bool done{false};
    };

    std::vector<Run> runs;
    for (const PlanJob& j : in.jobs)
    {
        runs.push_back({&j, 0, j.collectives[0].ExactReady(), 1.0, j.collectives.empty()});
    }
    double now = 0;
    double objective = 0;
    for (int guard = 0; guard < 10000; ++guard)
    {
        std::vector<std::size_t> active;
        double nextReady = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < runs.size(); ++i)
        {
            if (runs[i].done)
            {
                continue;
            }
            if (runs[i].readyAt <= now + 1e-12)
            {
                active.push_back(i);
            }
            else
            {
                nextReady = std::min(nextReady, runs[i].readyAt);
            }
        }
        if (active.empty() && !std::isfinite(nextReady))
        {
            return objective;
        }
        // Progressive filling.
        std::vector<double> rate(runs.size(), 0.0);
        std::vector<bool> frozen(runs.size(), false);
        std::size_t unfrozen = active.size();
        while (unfrozen > 0)
        {
            std::map<uint32_t, std::pair<double, double>> link; // used, growing usage
            for (std::size_t i : active)
            {
                const Run& r = runs[i];
                const PlanCollective& c = r.job->collectives[r.k];
                for (const auto& [l, u] : c.Usage(routeOf(r.job->id, r.k)))
                {
                    link[l].first += u * rate[i];
                    link[l].second += frozen[i] ? 0.0 : u;
                }
            }
            double step = std::numeric_limits<double>::infinity();
            for (std::size_t i : active)
            {
                if (!frozen[i])
                {
                    step = std::min(step, 1.0 - rate[i]);
                }
            }
            for (const auto& [l, v] : link)
            {
                if (v.second > 0)
                {
                    step = std::min(step, (1.0 - v.first) / v.second);
                }
            }
            for (std::size_t i : active)
            {
                if (!frozen[i])
                {
                    rate[i] += step;
                }
            }
            for (std::size_t i : active)
            {
                if (frozen[i])
                {
                    continue;
                }
                const Run& r = runs[i];
                bool full = rate[i] >= 1.0 - 1e-12;
                for (const auto& [l, u] : r.job->collectives[r.k].Usage(routeOf(r.job->id, r.k)))
                {
                    double used = 0;
                    for (std::size_t o : active)
                    {
                        const Run& ro = runs[o];
                        const auto& uo = ro.job->collectives[ro.k].Usage(routeOf(ro.job->id, ro.k));
                        auto it = uo.find(l);
                        used += it == uo.end() ? 0.0 : it->second * rate[o];
                    }
                    full = full || used >= 1.0 - 1e-12;
                }
                if (full)
                {
                    frozen[i] = true;
                    --unfrozen;
                }
            }
        }
        double dt = nextReady - now;
        for (std::size_t i : active)
        {
            const Run& r = runs[i];
            const double d = r.job->collectives[r.k].ExactDuration(routeOf(r.job->id, r.k));
            dt = std::min(dt, r.left * d / rate[i]);
        }
        now += dt;
        for (std::size_t i : active)
        {
            Run& r = runs[i];
            const double d = r.job->collectives[r.k].ExactDuration(routeOf(r.job->id, r.k));
            r.left -= dt * rate[i] / d;
            if (r.left <= 1e-9)
            {
                objective += r.job->collectives[r.k].weight * now;
                if (++r.k == r.job->collectives.size())
                {
                    r.done = true;
                }
                else
                {
                    r.left = 1.0;
                    r.readyAt = now + r.job->ExactCompute();
                }
            }
        }
    }
    ADD_FAILURE() << "fluid simulation did not end";
    return objective;
}

/// \p in with unrounded durations, ready and compute times below the slot values.
PlanInstance
WithExactTimes(PlanInstance in, std::mt19937& rng)
{
    std::uniform_real_distribution<double> frac(0.3, 1.0);
    for (PlanJob& j : in.jobs)
    {
        j.exactComputeSlots = j.computeSlots * frac(rng);
        for (PlanCollective& c : j.collectives)
        {
            c.exactReady = c.readySlot * frac(rng);
            c.exactDuration = c.duration * frac(rng);
            for (PlanRoute& r : c.alternatives)
            {
                r.exactDuration = r.duration * frac(rng);
            }
        }
    }
    return in;
}

} // namespace

// No slot plan beats the bound: it is at or below the exact optimum of
// every tiny instance (and so below the greedy), and never below the chains alone.
TEST(PlanLowerBoundTest, AtOrBelowTheOptimumOfEveryTinyInstance)
{
    std::mt19937 rng(5);
    int aboveAlone = 0;
    int contended = 0;
    for (int i = 0; i < 40; ++i)
    {
        PlanInstance in = RandomRoutedInstance(rng);
        in.horizon = SerialHorizon(in);
        SCOPED_TRACE("instance " + std::to_string(i));
        const Plan best = SolvePlan(in, CbcMilpSolver(), Exact());
        ASSERT_TRUE(best.proven);
        const double alone = ChainsAloneBound(in, PlanBoundObjective::WEIGHTED);
        const double bound = Bound(in);
        EXPECT_GE(bound, alone - 1e-9);
        EXPECT_LE(bound, best.objective + 1e-6);
        aboveAlone += bound > alone + 1e-6 ? 1 : 0;
        contended += best.objective > alone + 1e-6 ? 1 : 0;
    }
    // Where the links cost the optimum something, the bound mostly sees it.
    EXPECT_GT(contended, 5);
    EXPECT_GE(2 * aboveAlone, contended) << aboveAlone << " of " << contended;
}

// Nor does a policy outside the slot model: fair sharing in continuous
// time, on the default routes or on a random mix, with unrounded times.
TEST(PlanLowerBoundTest, BelowFairSharingInContinuousTime)
{
    std::mt19937 rng(17);
    for (int i = 0; i < 40; ++i)
    {
        PlanInstance in = WithExactTimes(RandomRoutedInstance(rng), rng);
        in.horizon = SerialHorizon(in);
        SCOPED_TRACE("instance " + std::to_string(i));
        const double bound = Bound(in);
        EXPECT_LE(bound, FairSharing(in, [](uint32_t, uint32_t) { return 0u; }) + 1e-6);
        std::map<std::pair<uint32_t, uint32_t>, uint32_t> mix;
        for (const PlanJob& j : in.jobs)
        {
            for (uint32_t k = 0; k < j.collectives.size(); ++k)
            {
                mix[{j.id, k}] = rng() % j.collectives[k].Routes();
            }
        }
        EXPECT_LE(bound, FairSharing(in, [&mix](uint32_t j, uint32_t k) {
                             return mix.at({j, k});
                         }) + 1e-6);
    }
}

// Two collectives of 4 slots need all of link 7: alone they would end at
// 4 and 4; together one ends at 8 at best (12 in all, fair sharing 16).
// The bound sees the shared link.
TEST(PlanLowerBoundTest, ASharedLinkRaisesItAboveTheChainsAlone)
{
    PlanInstance in;
    in.horizon = 12;
    in.jobs = {Job(1, 0, {Coll(0, 4, 1.0, {{7, 1.0}})}), Job(2, 0, {Coll(0, 4, 1.0, {{7, 1.0}})})};
    EXPECT_DOUBLE_EQ(ChainsAloneBound(in, PlanBoundObjective::WEIGHTED), 8);
    const double bound = Bound(in);
    EXPECT_GE(bound, 10.0);
    EXPECT_LE(bound, 12.0 + 1e-9);

    // On a second route the collision goes away, and so does the excess.
    in.jobs[1].collectives[0].alternatives.push_back(Route(4, {{9, 1.0}}));
    EXPECT_NEAR(Bound(in), 8.0, 1e-6);
}

// More candidates can only lower it.
TEST(PlanLowerBoundTest, MoreCandidatesNeverRaiseIt)
{
    std::mt19937 rng(23);
    for (int i = 0; i < 30; ++i)
    {
        PlanInstance in = RandomRoutedInstance(rng);
        in.horizon = SerialHorizon(in);
        PlanInstance fewer = in;
        for (PlanJob& j : fewer.jobs)
        {
            for (PlanCollective& c : j.collectives)
            {
                c.alternatives.clear();
            }
        }
        EXPECT_LE(Bound(in), Bound(fewer) + 1e-6) << "instance " << i;
    }
}

// Job completions: one chain alone ends at its unrounded ready time plus
// its collectives and the compute between them, and only its last counts.
TEST(PlanLowerBoundTest, LastOfChainIsTheJobCompletion)
{
    PlanInstance in;
    in.horizon = 40;
    PlanJob j = Job(1, 3, {Coll(2, 4, 5.0, {{7, 1.0}}), Coll(0, 5, 5.0, {{7, 1.0}})});
    j.exactComputeSlots = 2.5;
    j.collectives[0].exactReady = 1.5;
    j.collectives[0].exactDuration = 3.5;
    j.collectives[1].exactDuration = 4.25;
    in.jobs = {j};
    EXPECT_NEAR(Bound(in, PlanBoundObjective::LAST_OF_CHAIN), 1.5 + 3.5 + 2.5 + 4.25, 1e-6);
    EXPECT_NEAR(Bound(in), 5.0 * (1.5 + 3.5) + 5.0 * (1.5 + 3.5 + 2.5 + 4.25), 1e-6);
}

// Unrounded values are checked against the slot values they round.
TEST(PlanLowerBoundTest, ExactTimesAboveTheirSlotsAreRejected)
{
    PlanInstance in;
    in.horizon = 10;
    in.jobs = {Job(1, 0, {Coll(0, 2, 1.0, {{7, 1.0}})})};
    in.jobs[0].collectives[0].exactDuration = 2.5;
    EXPECT_THROW(BuildPlanBoundModel(in, PlanBoundObjective::WEIGHTED), std::invalid_argument);
    in.jobs[0].collectives[0].exactDuration = 1.5;
    in.jobs[0].collectives[0].exactReady = 0.5;
    EXPECT_THROW(BuildPlanBoundModel(in, PlanBoundObjective::WEIGHTED), std::invalid_argument);
}
