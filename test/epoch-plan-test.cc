/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "epoch-plan-test-util.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/epoch-plan.h"
#include "ns3/milp-model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::epoch_plan_test;

namespace
{

/// A random tiny instance: 2-4 jobs of 1-2 collectives, horizon 4-8, 1-3
/// links, usages in {0.5, 0.6, 1.0}, sometimes a reservation. Job ids are
/// sparse and the jobs shuffled, so nothing relies on their order.
PlanInstance
RandomTinyInstance(std::mt19937& rng)
{
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const double usages[] = {0.5, 0.6, 1.0};
    const double reservations[] = {0.0, 0.0, 0.4, 0.5, 1.0};
    PlanInstance in;
    in.horizon = pick(4, 8);
    const int links = pick(1, 3);
    auto linkId = [](int l) { return static_cast<uint32_t>(2 * l + 5); };
    const int jobs = pick(2, 4);
    for (int j = 0; j < jobs; ++j)
    {
        PlanJob job = Job(static_cast<uint32_t>(3 * j + 1), pick(0, 2), {});
        const int n = pick(1, 2);
        for (int k = 0; k < n; ++k)
        {
            std::map<uint32_t, double> usage;
            for (int l = 0; l < links; ++l)
            {
                if (pick(0, 9) < 6)
                {
                    usage[linkId(l)] = usages[pick(0, 2)];
                }
            }
            if (usage.empty())
            {
                usage[linkId(pick(0, links - 1))] = usages[pick(0, 2)];
            }
            const int ready = pick(0, 3); // one draw per statement: a fixed order
            const int duration = pick(1, 3);
            const int weight = pick(1, 3);
            job.collectives.push_back(Coll(ready, duration, weight, usage));
        }
        in.jobs.push_back(job);
    }
    std::shuffle(in.jobs.begin(), in.jobs.end(), rng);
    if (pick(0, 1) == 1)
    {
        std::vector<double> r(in.horizon);
        for (auto& v : r)
        {
            v = reservations[pick(0, 4)];
        }
        in.reserved[linkId(pick(0, links - 1))] = r;
    }
    return in;
}

/// The collectives in (job id, index) order.
std::vector<std::pair<uint32_t, uint32_t>>
Keys(const PlanInstance& in)
{
    std::vector<std::pair<uint32_t, uint32_t>> keys;
    for (const auto& j : in.jobs)
    {
        for (uint32_t k = 0; k < j.collectives.size(); ++k)
        {
            keys.emplace_back(j.id, k);
        }
    }
    std::sort(keys.begin(), keys.end());
    return keys;
}

uint64_t
CountCollectives(const PlanInstance& in)
{
    return Keys(in).size();
}

/// The naive search: every vector in [0, horizon]^n in lexicographic order,
/// judged by CheckPlan alone; the first strictly best one.
Plan
NaiveOptimum(const PlanInstance& in)
{
    const auto keys = Keys(in);
    std::vector<int64_t> v(keys.size(), 0);
    Plan best;
    double bestObjective = INFINITY;
    while (true)
    {
        Plan p;
        for (std::size_t i = 0; i < keys.size(); ++i)
        {
            p.start[keys[i]] = v[i];
        }
        if (CheckPlan(in, p))
        {
            const double obj = PlanObjective(in, p);
            if (obj < bestObjective - 1e-9)
            {
                bestObjective = obj;
                best = p;
            }
        }
        std::size_t i = keys.size();
        while (i > 0 && v[i - 1] == in.horizon)
        {
            v[--i] = 0;
        }
        if (i == 0)
        {
            break;
        }
        ++v[i - 1];
    }
    best.objective = bestObjective;
    return best;
}

/// A solver that returns a fixed result and records the model and options.
class FakeSolver : public MilpSolver
{
  public:
    explicit FakeSolver(std::function<MilpResult(const MilpModel&)> answer)
        : m_answer(std::move(answer))
    {
    }

    std::string GetName() const override
    {
        return "fake";
    }

    MilpResult Solve(const MilpModel& model, const MilpSolveOptions& options) const override
    {
        warmStart = options.warmStart;
        return m_answer(model);
    }

    mutable std::vector<double> warmStart;

  private:
    std::function<MilpResult(const MilpModel&)> m_answer;
};

/// Message of the std::invalid_argument \p in.Validate() throws ("" if none).
std::string
ValidateMessage(const PlanInstance& in)
{
    try
    {
        in.Validate();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

// Two jobs on link 7, one collective each, ready at 0, 3 slots long.
PlanInstance
TwoJobs(double usage, int64_t horizon = 10)
{
    PlanInstance in;
    in.horizon = horizon;
    in.jobs = {Job(1, 0, {Coll(0, 3, 1.0, {{7, usage}})}),
               Job(2, 0, {Coll(0, 3, 1.0, {{7, usage}})})};
    return in;
}

} // namespace

// (1) The MILP optimum equals the brute force's, which equals the naive
// search's where that is small enough; all pass CheckPlan, and the model
// accepts the brute-force optimum with the same objective.
TEST(EpochPlanTest, MilpMatchesBruteForceOnRandomTinyInstances)
{
    std::mt19937 rng(20240611);
    CbcMilpSolver cbc;
    int naiveChecked = 0;
    for (int i = 0; i < 40; ++i)
    {
        const PlanInstance in = RandomTinyInstance(rng);
        SCOPED_TRACE("instance " + std::to_string(i));
        const Plan brute = BruteForcePlan(in, 100000000);
        std::string why;
        EXPECT_TRUE(CheckPlan(in, brute, &why)) << why;
        EXPECT_EQ(brute.method, "brute-force");

        const Plan milp = SolvePlan(in, cbc, Exact());
        ExpectMilpAnswer(milp);
        EXPECT_TRUE(CheckPlan(in, milp, &why)) << why;
        EXPECT_NEAR(milp.objective, brute.objective, 1e-6);
        EXPECT_NEAR(milp.objective, PlanObjective(in, milp), 1e-9);

        const MilpModel model = BuildPlanModel(in);
        const std::vector<double> x = Encode(model, brute);
        EXPECT_TRUE(model.IsFeasible(x, 1e-9, &why)) << why;
        EXPECT_NEAR(model.Evaluate(x), brute.objective, 1e-9);

        if (std::pow(in.horizon + 1.0, static_cast<double>(CountCollectives(in))) <= 2e5)
        {
            ++naiveChecked;
            const Plan naive = NaiveOptimum(in);
            EXPECT_NEAR(naive.objective, brute.objective, 1e-9);
            EXPECT_EQ(naive.start, brute.start); // same tie rule: lexicographically first
        }
    }
    EXPECT_GE(naiveChecked, 5);
}

// (2) The greedy is feasible, no better than the optimum, and a feasible
// point of the model with the same objective (so it is a valid warm start).
TEST(EpochPlanTest, GreedyIsFeasibleAndNoBetterThanOptimum)
{
    std::mt19937 rng(7);
    int strictlyWorse = 0;
    for (int i = 0; i < 150; ++i)
    {
        const PlanInstance in = RandomTinyInstance(rng);
        SCOPED_TRACE("instance " + std::to_string(i));
        const Plan greedy = GreedyPlan(in);
        std::string why;
        EXPECT_EQ(greedy.method, "greedy");
        EXPECT_TRUE(CheckPlan(in, greedy, &why)) << why;
        const Plan brute = BruteForcePlan(in, 100000000);
        EXPECT_GE(greedy.objective, brute.objective - 1e-9);
        strictlyWorse += greedy.objective > brute.objective + 1e-9 ? 1 : 0;

        const MilpModel model = BuildPlanModel(in);
        const std::vector<double> x = Encode(model, greedy);
        EXPECT_TRUE(model.IsFeasible(x, 1e-9, &why)) << why;
        EXPECT_NEAR(model.Evaluate(x), greedy.objective, 1e-9);
    }
    // The instances are hard enough that Smith's rule is not always optimal.
    EXPECT_GT(strictlyWorse, 0);
}

// Smith's rule: the higher weight / duration goes first; a chain waits for
// its predecessor plus compute.
TEST(EpochPlanTest, GreedyFollowsSmithsRule)
{
    PlanInstance in;
    in.horizon = 20;
    // weight/duration: job 5 -> 1/4, job 9 -> 2/2 = 1: job 9 first.
    in.jobs = {Job(5, 0, {Coll(0, 4, 1.0, {{1, 1.0}})}),
               Job(9, 2, {Coll(0, 2, 2.0, {{1, 1.0}}), Coll(0, 1, 1.0, {{1, 1.0}})})};
    const Plan g = GreedyPlan(in);
    // job 9 k0 at 0 (ratio 1); then job 9 k1 (ratio 1) vs job 5 (0.25):
    // job 9 k1 at 0 + 2 + 2 = 4; job 5 at 2 (slots 2..5 collide with 4) -> 5.
    EXPECT_EQ(g.start.at({9, 0}), 0);
    EXPECT_EQ(g.start.at({9, 1}), 4);
    EXPECT_EQ(g.start.at({5, 0}), 5);
    EXPECT_DOUBLE_EQ(g.objective, 2.0 * 2 + 1.0 * 5 + 1.0 * 9);
}

// (3) CheckPlan catches each kind of violation.
TEST(EpochPlanTest, CheckPlanCatchesViolations)
{
    PlanInstance in;
    in.horizon = 8;
    in.jobs = {Job(1, 1, {Coll(2, 2, 1.0, {{4, 0.6}}), Coll(0, 1, 1.0, {{4, 0.6}})}),
               Job(2, 0, {Coll(0, 3, 1.0, {{4, 0.6}})})};
    in.reserved[4] = {0, 0, 0, 0, 0, 0, 0.5, 0};
    Plan ok;
    ok.start = {{{1, 0}, 2}, {{1, 1}, 5}, {{2, 0}, 7}};
    std::string why;
    ASSERT_TRUE(CheckPlan(in, ok, &why)) << why;

    auto expectBad = [&in](Plan p, const std::string& needle) {
        std::string why;
        EXPECT_FALSE(CheckPlan(in, p, &why)) << needle;
        EXPECT_NE(why.find(needle), std::string::npos) << why;
    };
    Plan over = ok;
    over.start[{2, 0}] = 0; // slots 0..2 fine, but job 1 k0 runs 2..3: 0.6 + 0.6 in slot 2
    expectBad(over, "link 4 slot 2");
    Plan reservedClash = ok;
    reservedClash.start[{1, 1}] = 6; // 0.5 reserved + 0.6 in slot 6
    expectBad(reservedClash, "link 4 slot 6");
    Plan chain = ok;
    chain.start[{1, 1}] = 4; // needs >= 2 + 2 + 1 = 5
    expectBad(chain, "job 1 collective 1 starts at 4 before slot 5");
    Plan early = ok;
    early.start[{1, 0}] = 1;
    expectBad(early, "before its ready slot 2");
    Plan missing = ok;
    missing.start.erase({2, 0});
    expectBad(missing, "job 2 collective 0 has no start");
    Plan extra = ok;
    extra.start[{2, 1}] = 8;
    expectBad(extra, "unknown job 2 collective 1");
    Plan past = ok;
    past.start[{2, 0}] = 9;
    expectBad(past, "past the horizon");
    Plan deferredHead = ok;
    deferredHead.start[{1, 0}] = 8; // deferred: the rest of the chain must be too
    expectBad(deferredHead, "job 1 collective 1 starts at 5 before slot 11");
    deferredHead.start[{1, 1}] = 8;
    EXPECT_TRUE(CheckPlan(in, deferredHead, &why)) << why;
}

// (4) Usage 1: the two jobs take turns (3 + 6 = 9); usage 0.5: together (3 + 3).
TEST(EpochPlanTest, FullUsageSerializesHalfUsageShares)
{
    CbcMilpSolver cbc;
    const PlanInstance full = TwoJobs(1.0);
    const Plan serial = SolvePlan(full, cbc, Exact());
    EXPECT_DOUBLE_EQ(serial.objective, 9.0);
    std::vector<int64_t> starts{serial.start.at({1, 0}), serial.start.at({2, 0})};
    std::sort(starts.begin(), starts.end());
    EXPECT_EQ(starts, (std::vector<int64_t>{0, 3}));
    ExpectMilpAnswer(serial);

    const Plan shared = SolvePlan(TwoJobs(0.5), cbc, Exact());
    EXPECT_DOUBLE_EQ(shared.objective, 6.0);
    EXPECT_EQ(shared.start.at({1, 0}), 0);
    EXPECT_EQ(shared.start.at({2, 0}), 0);

    // Horizon 4: the second may still start at slot 3 (it runs past the
    // horizon, where nothing is checked): 3 + 6 again, not deferred (3 + 7).
    EXPECT_DOUBLE_EQ(SolvePlan(TwoJobs(1.0, 4), cbc, Exact()).objective, 9.0);
}

// Deferral: a link reserved in every slot defers the collective and the rest
// of its chain (start = horizon, finish = horizon + duration).
TEST(EpochPlanTest, FullyReservedLinkDefersTheChain)
{
    PlanInstance in;
    in.horizon = 5;
    in.jobs = {Job(1, 1, {Coll(0, 2, 2.0, {{3, 0.5}}), Coll(0, 1, 1.0, {})})};
    in.reserved[3] = {0.6, 0.6, 0.6, 0.6, 0.6};
    CbcMilpSolver cbc;
    const Plan p = SolvePlan(in, cbc, Exact());
    EXPECT_EQ(p.start.at({1, 0}), 5);
    EXPECT_EQ(p.start.at({1, 1}), 5);
    EXPECT_DOUBLE_EQ(p.objective, 2.0 * (5 + 2) + 1.0 * (5 + 1));
    EXPECT_DOUBLE_EQ(BruteForcePlan(in).objective, p.objective);
    EXPECT_EQ(GreedyPlan(in).start, p.start);

    // With room from slot 2 on: 2..3, then 3 slots later (2 + 2 + 1 = 5 = horizon: deferred).
    in.reserved[3] = {0.6, 0.6, 0.5, 0.5, 0.5};
    const Plan q = SolvePlan(in, cbc, Exact());
    EXPECT_EQ(q.start.at({1, 0}), 2);
    EXPECT_EQ(q.start.at({1, 1}), 5);
    EXPECT_DOUBLE_EQ(q.objective, 2.0 * 4 + 1.0 * 6);
}

// The model's size on a hand-counted instance: a start per slot from the
// ready slot to the horizon except where the reservation leaves no room for
// the collective alone; capacity rows only where two collectives can clash.
TEST(EpochPlanTest, ModelSizeAndNames)
{
    PlanInstance in = TwoJobs(1.0, 5);
    in.jobs[0].collectives[0].readySlot = 1;
    in.jobs[1].collectives[0].readySlot = 1;
    in.jobs[0].collectives[0].duration = 2;
    in.jobs[1].collectives[0].duration = 2;
    MilpModel m = BuildPlanModel(in);
    // starts 1..5 each; two "one" rows; link 7 can clash in slots 1..4.
    EXPECT_EQ(m.GetNumVariables(), 10u);
    EXPECT_EQ(m.GetNumConstraints(), 2u + 4u);
    EXPECT_EQ(m.GetVariable(0).name, "x_j1_k0_s1");
    EXPECT_EQ(m.GetConstraint(0).name, "one_j1_k0");
    EXPECT_EQ(m.GetConstraints().back().name, "cap_l7_t4");

    // Slot 2 fully reserved: starts 1 and 2 (which would run in slot 2) go.
    in.reserved[7] = {0, 0, 1.0, 0, 0};
    m = BuildPlanModel(in);
    EXPECT_EQ(m.GetNumVariables(), 6u);        // starts 3, 4, 5 each
    EXPECT_EQ(m.GetNumConstraints(), 2u + 2u); // slots 3 and 4

    // One job alone can never exceed the capacity: no capacity row at all.
    in.jobs.pop_back();
    m = BuildPlanModel(in);
    EXPECT_EQ(m.GetNumConstraints(), 1u);

    // A chain: one "chain" row, the second collective's earliest start
    // raised to 3 + 2 + 1 = 6.
    in.reserved.clear();
    in.horizon = 10;
    in.jobs[0].computeSlots = 1;
    in.jobs[0].collectives[0].readySlot = 3;
    in.jobs[0].collectives.push_back(Coll(0, 1, 1.0, {}));
    m = BuildPlanModel(in);
    EXPECT_EQ(m.GetNumVariables(), 8u + 5u); // starts 3..10 and 6..10
    EXPECT_EQ(m.GetNumConstraints(), 3u);
    EXPECT_EQ(m.GetConstraints().back().name, "chain_j1_k1");
}

// (5) A time limit too small for CBC still gives a feasible plan.
TEST(EpochPlanTest, TinyTimeLimitStillGivesFeasiblePlan)
{
    std::mt19937 rng(99);
    PlanInstance in;
    in.horizon = 30;
    for (uint32_t j = 0; j < 6; ++j)
    {
        PlanJob job = Job(j, 2, {});
        for (int k = 0; k < 3; ++k)
        {
            const int64_t ready = rng() % 4;
            const int64_t duration = 1 + rng() % 4;
            const double weight = 1 + rng() % 3;
            const auto a = static_cast<uint32_t>(rng() % 4);
            const auto b = static_cast<uint32_t>(4 + rng() % 4);
            job.collectives.push_back(Coll(ready, duration, weight, {{a, 0.6}, {b, 1.0}}));
        }
        in.jobs.push_back(job);
    }
    MilpSolveOptions o;
    o.timeLimitSeconds = 1e-6;
    CbcMilpSolver cbc;
    const Plan p = SolvePlan(in, cbc, o);
    std::string why;
    EXPECT_TRUE(CheckPlan(in, p, &why)) << why;
    EXPECT_TRUE(p.method == "greedy" || p.method == "milp") << p.method;
    EXPECT_LE(p.objective, GreedyPlan(in).objective + 1e-9);
}

// A solver with no answer: the greedy plan comes back, with the solver's status.
TEST(EpochPlanTest, NoSolutionFallsBackToGreedy)
{
    const PlanInstance in = TwoJobs(1.0);
    FakeSolver none([](const MilpModel& m) {
        MilpResult r;
        r.status = MilpStatus::NO_SOLUTION;
        r.variables = m.GetNumVariables();
        return r;
    });
    const Plan p = SolvePlan(in, none, MilpSolveOptions());
    EXPECT_EQ(p.method, "greedy");
    EXPECT_FALSE(p.proven);
    EXPECT_EQ(p.solve.status, MilpStatus::NO_SOLUTION);
    EXPECT_EQ(p.start, GreedyPlan(in).start);

    // The warm start handed over is the greedy plan, one value per variable.
    const MilpModel model = BuildPlanModel(in);
    EXPECT_EQ(none.warmStart, Encode(model, GreedyPlan(in)));
}

// A solver answer that breaks the instance is an error, not a plan.
TEST(EpochPlanTest, InfeasibleSolverAnswerThrows)
{
    const PlanInstance in = TwoJobs(1.0);
    FakeSolver liar([](const MilpModel& m) {
        MilpResult r;
        r.status = MilpStatus::OPTIMAL;
        r.values.assign(m.GetNumVariables(), 0.0);
        for (std::size_t i = 0; i < m.GetNumVariables(); ++i)
        {
            const std::string& n = m.GetVariable(i).name;
            if (n == "x_j1_k0_s0" || n == "x_j2_k0_s1") // both on link 7 in slot 1
            {
                r.values[i] = 1.0;
            }
        }
        r.objective = m.Evaluate(r.values);
        return r;
    });
    try
    {
        SolvePlan(in, liar, MilpSolveOptions());
        ADD_FAILURE() << "no exception";
    }
    catch (const std::logic_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("link 7 slot 1"), std::string::npos) << e.what();
    }
}

// (6) The same instance twice gives the same plans.
TEST(EpochPlanTest, Repeatable)
{
    std::mt19937 rng(5);
    CbcMilpSolver cbc;
    for (int i = 0; i < 5; ++i)
    {
        const PlanInstance in = RandomTinyInstance(rng);
        const Plan a = SolvePlan(in, cbc, Exact());
        const Plan b = SolvePlan(in, cbc, Exact());
        EXPECT_EQ(a.start, b.start);
        EXPECT_EQ(a.objective, b.objective);
        EXPECT_EQ(GreedyPlan(in).start, GreedyPlan(in).start);
        EXPECT_EQ(BruteForcePlan(in, 100000000).start, BruteForcePlan(in, 100000000).start);
    }
}

// PlanUsage: what each link carries per slot, reservations excluded.
TEST(EpochPlanTest, PlanUsageSumsRunningCollectives)
{
    PlanInstance in;
    in.horizon = 6;
    in.jobs = {Job(1, 0, {Coll(0, 3, 1.0, {{2, 0.5}, {3, 1.0}})}),
               Job(2, 0, {Coll(0, 2, 1.0, {{2, 0.25}})}),
               Job(3, 0, {Coll(0, 2, 1.0, {{4, 0.5}})})};
    in.reserved[2] = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
    Plan p;
    p.start = {{{1, 0}, 4}, {{2, 0}, 1}, {{3, 0}, 6}}; // 1 runs past the horizon, 3 deferred
    const auto u = PlanUsage(in, p);
    EXPECT_EQ(u.at(2), (std::vector<double>{0, 0.25, 0.25, 0, 0.5, 0.5}));
    EXPECT_EQ(u.at(3), (std::vector<double>{0, 0, 0, 0, 1.0, 1.0}));
    EXPECT_EQ(u.at(4), (std::vector<double>(6, 0.0)));
}

// The brute force refuses instances beyond its limit.
TEST(EpochPlanTest, BruteForceLimit)
{
    PlanInstance in = TwoJobs(1.0, 10); // 11 x 11 start vectors
    EXPECT_NO_THROW(BruteForcePlan(in, 121));
    EXPECT_THROW(BruteForcePlan(in, 120), std::invalid_argument);
    // A chain 2, compute 0, durations 3: first at s (0..10), second at
    // min(s + 3, 10)..10: s = 0..7 give 8, 7, ..., 1; s = 8, 9, 10 give 1 each: 39.
    in.jobs[0].collectives.push_back(Coll(0, 1, 1.0, {}));
    in.jobs.pop_back();
    EXPECT_NO_THROW(BruteForcePlan(in, 39));
    EXPECT_THROW(BruteForcePlan(in, 38), std::invalid_argument);
}

// (7) Validate names the offending field, job, collective or link.
TEST(EpochPlanTest, ValidateNamesTheField)
{
    const PlanInstance good = TwoJobs(0.5);
    EXPECT_EQ(ValidateMessage(good), "");

    auto expect = [](const PlanInstance& in, std::initializer_list<const char*> needles) {
        const std::string msg = ValidateMessage(in);
        EXPECT_NE(msg, "");
        for (const char* n : needles)
        {
            EXPECT_NE(msg.find(n), std::string::npos) << "'" << n << "' not in: " << msg;
        }
    };
    PlanInstance in = good;
    in.horizon = 0;
    expect(in, {"horizon"});
    in = good;
    in.jobs[1].id = 1;
    expect(in, {"job 1", "duplicate"});
    in = good;
    in.jobs[1].collectives[0].duration = 0;
    expect(in, {"job 2 collective 0", "duration"});
    in = good;
    in.jobs[0].collectives[0].readySlot = -1;
    expect(in, {"job 1 collective 0", "readySlot"});
    in = good;
    in.jobs[0].collectives[0].weight = 0.0;
    expect(in, {"job 1 collective 0", "weight"});
    in = good;
    in.jobs[0].collectives[0].weight = NAN;
    expect(in, {"job 1 collective 0", "weight"});
    in = good;
    in.jobs[1].collectives[0].usage[9] = 1.5;
    expect(in, {"job 2 collective 0", "usage", "link 9"});
    in = good;
    in.jobs[1].collectives[0].usage[9] = 0.0;
    expect(in, {"job 2 collective 0", "usage", "link 9"});
    in = good;
    in.jobs[1].computeSlots = -2;
    expect(in, {"job 2", "computeSlots"});
    in = good;
    in.reserved[7] = std::vector<double>(9, 0.0);
    expect(in, {"reserved", "link 7", "9 values"});
    in = good;
    in.reserved[7] = std::vector<double>(10, 0.0);
    in.reserved[7][4] = 1.2;
    expect(in, {"reserved", "link 7", "slot 4"});

    // Every entry point validates.
    in = good;
    in.horizon = 0;
    CbcMilpSolver cbc;
    EXPECT_THROW(BuildPlanModel(in), std::invalid_argument);
    EXPECT_THROW(GreedyPlan(in), std::invalid_argument);
    EXPECT_THROW(BruteForcePlan(in), std::invalid_argument);
    EXPECT_THROW(SolvePlan(in, cbc, MilpSolveOptions()), std::invalid_argument);
    EXPECT_THROW(CheckPlan(in, Plan()), std::invalid_argument);
}
