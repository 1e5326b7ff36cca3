/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/cbc-milp-solver.h"
#include "ns3/milp-model.h"
#include "ns3/milp-solver.h"

#include <CoinLpIO.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

using Kind = MilpModel::VarKind;
using Sense = MilpModel::Sense;
constexpr double kInf = MilpModel::kInfinity;

/// Runs \p fn and returns the message of the std::invalid_argument it throws
/// ("" if it throws nothing).
template <typename F>
std::string
InvalidArgumentMessage(F fn)
{
    try
    {
        fn();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

// ------------------------------------------------------------------ knapsack

struct Knapsack
{
    std::vector<int> value;
    std::vector<int> weight;
    int capacity;
};

/// Seeded instance; strongly correlated (value = weight + 10) if \p hard.
Knapsack
MakeKnapsack(std::size_t n, uint32_t seed, bool hard)
{
    std::mt19937 rng(seed);
    Knapsack k;
    int total = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        const int w = 10 + static_cast<int>(rng() % 90);
        k.weight.push_back(w);
        k.value.push_back(hard ? w + 10 : 5 + static_cast<int>(rng() % 95));
        total += w;
    }
    k.capacity = total / 2;
    return k;
}

MilpModel
KnapsackModel(const Knapsack& k)
{
    MilpModel m;
    std::vector<MilpModel::Term> weights;
    std::vector<MilpModel::Term> values;
    for (std::size_t i = 0; i < k.value.size(); ++i)
    {
        const std::size_t x = m.AddBinary("take_" + std::to_string(i));
        weights.push_back({x, static_cast<double>(k.weight[i])});
        values.push_back({x, static_cast<double>(k.value[i])});
    }
    m.AddConstraint("capacity", weights, Sense::LESS_EQUAL, k.capacity);
    m.SetObjective(values, 0.0, false);
    return m;
}

int
BruteForceKnapsack(const Knapsack& k)
{
    const std::size_t n = k.value.size();
    int best = 0;
    for (uint32_t mask = 0; mask < (1u << n); ++mask)
    {
        int w = 0;
        int v = 0;
        for (std::size_t i = 0; i < n; ++i)
        {
            if (mask & (1u << i))
            {
                w += k.weight[i];
                v += k.value[i];
            }
        }
        if (w <= k.capacity)
        {
            best = std::max(best, v);
        }
    }
    return best;
}

/// Exact optimum by dynamic programming over capacities.
int
DpKnapsack(const Knapsack& k)
{
    std::vector<int> best(k.capacity + 1, 0);
    for (std::size_t i = 0; i < k.value.size(); ++i)
    {
        for (int c = k.capacity; c >= k.weight[i]; --c)
        {
            best[c] = std::max(best[c], best[c - k.weight[i]] + k.value[i]);
        }
    }
    return best[k.capacity];
}

/// Weight and value of a 0/1 vector, checked independently of MilpModel.
std::pair<int, int>
KnapsackTotals(const Knapsack& k, const std::vector<double>& x)
{
    int w = 0;
    int v = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        EXPECT_TRUE(x[i] == 0.0 || x[i] == 1.0) << "item " << i << " = " << x[i];
        if (x[i] == 1.0)
        {
            w += k.weight[i];
            v += k.value[i];
        }
    }
    return {w, v};
}

// -------------------------------------------------------- toy scheduling

/// A job needing p consecutive slots of one unit-capacity resource.
struct ToyJob
{
    int p;       ///< duration, slots
    double w;    ///< weight
    int release; ///< earliest start slot
};

/// Job `after` starts at least p_before + gap slots after `before` starts.
struct ToyChain
{
    int before;
    int after;
    int gap;
};

struct ToyInstance
{
    std::vector<ToyJob> jobs;
    int slots;
    std::vector<ToyChain> chains;
};

/// Time-indexed model of the instance (the shape of the epoch MILP):
/// x[j][s] = 1 if job j starts in slot s; every job finishes inside the
/// horizon; minimize sum_j w_j (start_j + p_j).
struct ToyModel
{
    MilpModel model;
    std::vector<std::vector<std::pair<int, std::size_t>>> starts; ///< per job: (slot, var)
};

ToyModel
BuildToyModel(const ToyInstance& inst)
{
    ToyModel t;
    t.starts.resize(inst.jobs.size());
    for (std::size_t j = 0; j < inst.jobs.size(); ++j)
    {
        const ToyJob& job = inst.jobs[j];
        std::vector<MilpModel::Term> once;
        for (int s = job.release; s + job.p <= inst.slots; ++s)
        {
            const std::size_t x =
                t.model.AddBinary("x_j" + std::to_string(j) + "_s" + std::to_string(s));
            t.starts[j].emplace_back(s, x);
            once.push_back({x, 1.0});
            t.model.AddObjectiveTerm(x, job.w * (s + job.p));
        }
        t.model.AddConstraint("start_once_j" + std::to_string(j), once, Sense::EQUAL, 1.0);
    }
    for (int slot = 0; slot < inst.slots; ++slot)
    {
        std::vector<MilpModel::Term> busy;
        for (std::size_t j = 0; j < inst.jobs.size(); ++j)
        {
            for (const auto& [s, x] : t.starts[j])
            {
                if (s <= slot && slot < s + inst.jobs[j].p)
                {
                    busy.push_back({x, 1.0});
                }
            }
        }
        t.model.AddConstraint("capacity_s" + std::to_string(slot), busy, Sense::LESS_EQUAL, 1.0);
    }
    for (std::size_t c = 0; c < inst.chains.size(); ++c)
    {
        const ToyChain& ch = inst.chains[c];
        std::vector<MilpModel::Term> diff;
        for (const auto& [s, x] : t.starts[ch.after])
        {
            diff.push_back({x, static_cast<double>(s)});
        }
        for (const auto& [s, x] : t.starts[ch.before])
        {
            diff.push_back({x, -static_cast<double>(s)});
        }
        t.model.AddConstraint("chain_" + std::to_string(c),
                              diff,
                              Sense::GREATER_EQUAL,
                              inst.jobs[ch.before].p + ch.gap);
    }
    return t;
}

/// Objective of start slots \p start, or nullopt if they break a rule.
std::optional<double>
ToyCost(const ToyInstance& inst, const std::vector<int>& start)
{
    double cost = 0.0;
    for (std::size_t a = 0; a < inst.jobs.size(); ++a)
    {
        const ToyJob& ja = inst.jobs[a];
        if (start[a] < ja.release || start[a] + ja.p > inst.slots)
        {
            return std::nullopt;
        }
        for (std::size_t b = a + 1; b < inst.jobs.size(); ++b)
        {
            const bool disjoint =
                start[a] + ja.p <= start[b] || start[b] + inst.jobs[b].p <= start[a];
            if (!disjoint)
            {
                return std::nullopt;
            }
        }
        cost += ja.w * (start[a] + ja.p);
    }
    for (const auto& ch : inst.chains)
    {
        if (start[ch.after] < start[ch.before] + inst.jobs[ch.before].p + ch.gap)
        {
            return std::nullopt;
        }
    }
    return cost;
}

/// Best cost over every combination of start slots; nullopt if none is valid.
std::optional<double>
BruteForceToy(const ToyInstance& inst)
{
    const std::size_t n = inst.jobs.size();
    std::vector<int> start(n, 0);
    std::optional<double> best;
    while (true)
    {
        if (auto c = ToyCost(inst, start); c && (!best || *c < *best))
        {
            best = c;
        }
        std::size_t i = 0;
        while (i < n && ++start[i] == inst.slots)
        {
            start[i++] = 0;
        }
        if (i == n)
        {
            return best;
        }
    }
}

/// Start slots read from a solution: exactly one start per job.
std::vector<int>
DecodeStarts(const ToyModel& t, const std::vector<double>& values)
{
    std::vector<int> start;
    for (std::size_t j = 0; j < t.starts.size(); ++j)
    {
        int count = 0;
        int slot = -1;
        for (const auto& [s, x] : t.starts[j])
        {
            if (values[x] == 1.0)
            {
                ++count;
                slot = s;
            }
            else
            {
                EXPECT_EQ(values[x], 0.0) << "job " << j << " slot " << s;
            }
        }
        EXPECT_EQ(count, 1) << "job " << j;
        start.push_back(slot);
    }
    return start;
}

ToyInstance
RandomToy(uint32_t seed, std::size_t jobs, int slots)
{
    std::mt19937 rng(seed);
    ToyInstance inst;
    inst.slots = slots;
    for (std::size_t j = 0; j < jobs; ++j)
    {
        inst.jobs.push_back(ToyJob{1 + static_cast<int>(rng() % 3),
                                   1.0 + static_cast<double>(rng() % 5),
                                   static_cast<int>(rng() % 4)});
    }
    if (rng() % 2)
    {
        inst.chains.push_back(ToyChain{0, 1, static_cast<int>(rng() % 3)});
    }
    return inst;
}

// -------------------------------------------------------------------- tests

TEST(MilpSolver, KnapsackMatchesBruteForce)
{
    CbcMilpSolver solver;
    MilpSolveOptions exact;
    exact.relativeGap = 0.0;
    for (uint32_t seed : {1u, 2u, 3u, 4u, 5u})
    {
        const Knapsack k = MakeKnapsack(12, seed, false);
        const MilpModel m = KnapsackModel(k);
        const int optimum = BruteForceKnapsack(k);

        const MilpResult r = solver.Solve(m, exact);
        ASSERT_EQ(r.status, MilpStatus::OPTIMAL) << "seed " << seed << ": " << ToString(r.status);
        EXPECT_NEAR(r.objective, optimum, 1e-9) << "seed " << seed;
        EXPECT_NEAR(r.bound, optimum, 1e-6) << "seed " << seed;
        EXPECT_LE(r.gap, 1e-9);
        ASSERT_EQ(r.values.size(), 12u);
        const auto [w, v] = KnapsackTotals(k, r.values);
        EXPECT_LE(w, k.capacity);
        EXPECT_EQ(v, optimum);
        EXPECT_EQ(r.variables, 12u);
        EXPECT_EQ(r.constraints, 1u);
        EXPECT_EQ(r.nonzeros, 12u);
        EXPECT_TRUE(r.message.empty()) << r.message;

        // Default options (gap 1e-4): optimal, or a proven gap within it.
        const MilpResult d = solver.Solve(m, MilpSolveOptions{});
        ASSERT_TRUE(d.HasSolution()) << ToString(d.status);
        EXPECT_TRUE(m.IsFeasible(d.values));
        EXPECT_GE(d.objective, optimum * (1.0 - 1e-4) - 1e-9);
        EXPECT_LE(d.objective, optimum + 1e-9);
        EXPECT_GE(d.bound, optimum - 1e-6);

        // A loose gap may stop early: any claim must hold against the optimum.
        MilpSolveOptions loose;
        loose.relativeGap = 0.2;
        const MilpResult g = solver.Solve(m, loose);
        ASSERT_TRUE(g.HasSolution()) << ToString(g.status);
        EXPECT_TRUE(m.IsFeasible(g.values));
        EXPECT_GE(g.bound, optimum - 1e-6);
        EXPECT_LE(g.objective, optimum + 1e-9);
        EXPECT_NEAR(g.gap, MilpRelativeGap(g.objective, g.bound), 1e-12);
        EXPECT_LE(g.gap, 0.2 + 1e-9);
        if (g.status == MilpStatus::OPTIMAL)
        {
            EXPECT_NEAR(g.objective, optimum, 1e-9);
        }
    }
}

TEST(MilpSolver, LinearProgramsHitTheirAnalyticOptimum)
{
    CbcMilpSolver solver;
    {
        // max 3x + 2y: x + y <= 4, x + 3y <= 6, 0 <= x <= 3, y >= 0.
        // Vertex (3, 1): the gradient (3, 2) = 2 (1, 1) + 1 (1, 0) lies in
        // the cone of the active constraints, so it is the unique optimum, 11.
        MilpModel m;
        const auto x = m.AddVariable("x", 0.0, 3.0);
        const auto y = m.AddVariable("y", 0.0, kInf);
        m.AddConstraint("sum", {{x, 1.0}, {y, 1.0}}, Sense::LESS_EQUAL, 4.0);
        m.AddConstraint("mix", {{x, 1.0}, {y, 3.0}}, Sense::LESS_EQUAL, 6.0);
        m.SetObjective({{x, 3.0}, {y, 2.0}}, 0.0, false);
        const MilpResult r = solver.Solve(m, MilpSolveOptions{});
        ASSERT_EQ(r.status, MilpStatus::OPTIMAL) << ToString(r.status);
        EXPECT_NEAR(r.objective, 11.0, 1e-7);
        EXPECT_NEAR(r.values[x], 3.0, 1e-7);
        EXPECT_NEAR(r.values[y], 1.0, 1e-7);
        EXPECT_NEAR(r.bound, 11.0, 1e-6);
    }
    {
        // min 2x + 3y + 1: x + y >= 4, x - y == 1, y free below.
        // x = y + 1 gives 2y + 1 >= 4, so y = 1.5, x = 2.5, objective 10.5.
        MilpModel m;
        const auto x = m.AddVariable("x", 0.0, 10.0);
        const auto y = m.AddVariable("y", -kInf, 10.0);
        m.AddConstraint("cover", {{x, 1.0}, {y, 1.0}}, Sense::GREATER_EQUAL, 4.0);
        m.AddConstraint("link", {{x, 1.0}, {y, -1.0}}, Sense::EQUAL, 1.0);
        m.SetObjective({{x, 2.0}, {y, 3.0}}, 1.0, true);
        const MilpResult r = solver.Solve(m, MilpSolveOptions{});
        ASSERT_EQ(r.status, MilpStatus::OPTIMAL) << ToString(r.status);
        EXPECT_NEAR(r.objective, 10.5, 1e-7);
        EXPECT_NEAR(r.values[x], 2.5, 1e-7);
        EXPECT_NEAR(r.values[y], 1.5, 1e-7);
    }
}

TEST(MilpSolver, RepeatedAndCancellingTermsAddUp)
{
    // x + x <= 3 is 2x <= 3: the largest integer x is 1. x - x + y <= 2
    // leaves y <= 2.
    MilpModel m;
    const auto x = m.AddVariable("x", 0.0, 10.0, Kind::INTEGER);
    const auto y = m.AddVariable("y", 0.0, 10.0, Kind::INTEGER);
    m.AddConstraint("twice", {{x, 1.0}, {x, 1.0}}, Sense::LESS_EQUAL, 3.0);
    m.AddConstraint("cancel", {{x, 1.0}, {x, -1.0}, {y, 1.0}}, Sense::LESS_EQUAL, 2.0);
    m.SetObjective({{x, 1.0}, {y, 1.0}, {y, 0.5}}, 0.0, false);
    const MilpResult r = CbcMilpSolver().Solve(m, MilpSolveOptions{});
    ASSERT_EQ(r.status, MilpStatus::OPTIMAL);
    EXPECT_EQ(r.values[x], 1.0);
    EXPECT_EQ(r.values[y], 2.0);
    EXPECT_NEAR(r.objective, 4.0, 1e-9);
}

TEST(MilpSolver, DegenerateModels)
{
    CbcMilpSolver solver;
    {
        // No constraints: min x over integer x in [2, 5].
        MilpModel m;
        const auto x = m.AddVariable("x", 2.0, 5.0, Kind::INTEGER);
        m.SetObjective({{x, 1.0}});
        const MilpResult r = solver.Solve(m, MilpSolveOptions{});
        ASSERT_EQ(r.status, MilpStatus::OPTIMAL);
        EXPECT_EQ(r.values[x], 2.0);
    }
    {
        // No variables: the constant objective, or infeasible if an empty
        // constraint cannot hold.
        MilpModel m;
        m.SetObjective({}, 7.0);
        MilpResult r = solver.Solve(m, MilpSolveOptions{});
        ASSERT_EQ(r.status, MilpStatus::OPTIMAL);
        EXPECT_EQ(r.objective, 7.0);
        m.AddConstraint("impossible", {}, Sense::GREATER_EQUAL, 1.0);
        r = solver.Solve(m, MilpSolveOptions{});
        EXPECT_EQ(r.status, MilpStatus::INFEASIBLE);
    }
}

TEST(MilpSolver, InfeasibleModels)
{
    CbcMilpSolver solver;
    auto expectInfeasible = [&solver](const MilpModel& m, const char* what) {
        const MilpResult r = solver.Solve(m, MilpSolveOptions{});
        EXPECT_EQ(r.status, MilpStatus::INFEASIBLE) << what << ": " << ToString(r.status);
        EXPECT_TRUE(r.values.empty()) << what;
        EXPECT_TRUE(std::isnan(r.objective)) << what;
        EXPECT_FALSE(r.HasSolution()) << what;
    };
    {
        MilpModel m; // two binaries cannot sum to 3
        const auto a = m.AddBinary("a");
        const auto b = m.AddBinary("b");
        m.AddConstraint("three", {{a, 1.0}, {b, 1.0}}, Sense::GREATER_EQUAL, 3.0);
        m.SetObjective({{a, 1.0}});
        expectInfeasible(m, "binary");
    }
    {
        MilpModel m; // x + y <= 1 and x + y >= 2
        const auto x = m.AddVariable("x", 0.0, kInf);
        const auto y = m.AddVariable("y", 0.0, kInf);
        m.AddConstraint("low", {{x, 1.0}, {y, 1.0}}, Sense::LESS_EQUAL, 1.0);
        m.AddConstraint("high", {{x, 1.0}, {y, 1.0}}, Sense::GREATER_EQUAL, 2.0);
        m.SetObjective({{x, 1.0}});
        expectInfeasible(m, "linear");
    }
    {
        MilpModel m; // 2x == 1 has a fractional solution only
        const auto x = m.AddVariable("x", 0.0, 5.0, Kind::INTEGER);
        m.AddConstraint("half", {{x, 2.0}}, Sense::EQUAL, 1.0);
        m.SetObjective({{x, 1.0}});
        expectInfeasible(m, "integrality");
    }
}

TEST(MilpSolver, UnboundedModels)
{
    // min -x - y with x - y <= 1, x, y >= 0: y -> inf along x = y.
    for (Kind kind : {Kind::CONTINUOUS, Kind::INTEGER})
    {
        MilpModel m;
        const auto x = m.AddVariable("x", 0.0, kInf, kind);
        const auto y = m.AddVariable("y", 0.0, kInf, kind);
        m.AddConstraint("c", {{x, 1.0}, {y, -1.0}}, Sense::LESS_EQUAL, 1.0);
        m.SetObjective({{x, -1.0}, {y, -1.0}});
        const MilpResult r = CbcMilpSolver().Solve(m, MilpSolveOptions{});
        EXPECT_EQ(r.status, MilpStatus::UNBOUNDED) << ToString(kind) << ": " << ToString(r.status);
        EXPECT_TRUE(r.values.empty());
    }
}

TEST(MilpSolver, TimeIndexedSchedulingMatchesBruteForce)
{
    CbcMilpSolver solver;
    MilpSolveOptions exact;
    exact.relativeGap = 0.0;

    // A hand-made instance: four jobs on eight slots, job 3 chained after
    // job 0 with one idle slot in between.
    ToyInstance fixed{{{2, 3.0, 0}, {1, 1.0, 0}, {3, 4.0, 1}, {2, 2.0, 2}}, 8, {{0, 3, 1}}};
    std::vector<ToyInstance> instances{fixed};
    for (uint32_t seed = 10; seed < 22; ++seed)
    {
        instances.push_back(RandomToy(seed, seed % 2 ? 3 : 4, seed % 3 ? 8 : 6));
    }
    int infeasible = 0;
    for (std::size_t i = 0; i < instances.size(); ++i)
    {
        const ToyInstance& inst = instances[i];
        const ToyModel t = BuildToyModel(inst);
        const std::optional<double> optimum = BruteForceToy(inst);
        const MilpResult r = solver.Solve(t.model, exact);
        if (!optimum)
        {
            ++infeasible;
            EXPECT_EQ(r.status, MilpStatus::INFEASIBLE) << "instance " << i;
            continue;
        }
        ASSERT_EQ(r.status, MilpStatus::OPTIMAL) << "instance " << i << ": " << ToString(r.status);
        EXPECT_NEAR(r.objective, *optimum, 1e-9) << "instance " << i;
        // The plan itself, checked without the model.
        const std::vector<int> start = DecodeStarts(t, r.values);
        const std::optional<double> cost = ToyCost(inst, start);
        ASSERT_TRUE(cost.has_value()) << "instance " << i << ": plan breaks a rule";
        EXPECT_NEAR(*cost, *optimum, 1e-9) << "instance " << i;
        std::string why;
        EXPECT_TRUE(t.model.IsFeasible(r.values, 1e-9, &why)) << why;
    }
    // The random set covers both outcomes.
    EXPECT_GT(infeasible, 0);
    EXPECT_LT(infeasible, static_cast<int>(instances.size()) - 1);
}

TEST(MilpSolver, TimeLimitNeverClaimsOptimalWrongly)
{
    // 60 strongly correlated items: hard for branch and bound, exact by
    // dynamic programming. A tiny limit may stop CBC anywhere; whatever it
    // returns must be consistent with the true optimum.
    const Knapsack k = MakeKnapsack(60, 99, true);
    const MilpModel m = KnapsackModel(k);
    const int optimum = DpKnapsack(k);
    MilpSolveOptions opt;
    opt.timeLimitSeconds = 1e-3;
    opt.relativeGap = 0.0;

    auto check = [&](const MilpResult& r, const char* what) {
        switch (r.status)
        {
        case MilpStatus::OPTIMAL:
            EXPECT_NEAR(r.objective, optimum, 1e-9) << what;
            break;
        case MilpStatus::FEASIBLE:
            EXPECT_LE(r.objective, optimum + 1e-9) << what;
            break;
        case MilpStatus::NO_SOLUTION:
            EXPECT_TRUE(r.values.empty()) << what;
            EXPECT_TRUE(std::isnan(r.objective)) << what;
            break;
        default:
            ADD_FAILURE() << what << ": unexpected status " << ToString(r.status) << " "
                          << r.message;
        }
        if (std::isfinite(r.bound))
        {
            EXPECT_GE(r.bound, optimum - 1e-6) << what << ": bound below the optimum";
        }
        if (r.HasSolution())
        {
            std::string why;
            EXPECT_TRUE(m.IsFeasible(r.values, 1e-9, &why)) << what << ": " << why;
            const auto [w, v] = KnapsackTotals(k, r.values);
            EXPECT_LE(w, k.capacity) << what;
            EXPECT_NEAR(r.objective, v, 1e-9) << what;
        }
    };
    CbcMilpSolver solver;
    check(solver.Solve(m, opt), "cold");

    // A greedy warm start is feasible, so a solution is always returned and
    // it is at least as good.
    std::vector<double> greedy(k.value.size(), 0.0);
    int room = k.capacity;
    int greedyValue = 0;
    for (std::size_t i = 0; i < greedy.size(); ++i)
    {
        if (k.weight[i] <= room)
        {
            room -= k.weight[i];
            greedy[i] = 1.0;
            greedyValue += k.value[i];
        }
    }
    opt.warmStart = greedy;
    const MilpResult warm = solver.Solve(m, opt);
    check(warm, "warm");
    EXPECT_TRUE(warm.warmStartUsed);
    ASSERT_TRUE(warm.HasSolution()) << ToString(warm.status);
    EXPECT_GE(warm.objective, greedyValue - 1e-9);
}

TEST(MilpSolver, WarmStartIsCheckedBeforeUse)
{
    const Knapsack k = MakeKnapsack(12, 7, false);
    const MilpModel m = KnapsackModel(k);
    MilpSolveOptions opt;
    opt.relativeGap = 0.0;
    opt.warmStart.assign(12, 1.0); // everything: over capacity
    const MilpResult bad = CbcMilpSolver().Solve(m, opt);
    EXPECT_FALSE(bad.warmStartUsed);
    ASSERT_EQ(bad.status, MilpStatus::OPTIMAL);
    EXPECT_NEAR(bad.objective, BruteForceKnapsack(k), 1e-9);

    opt.warmStart.assign(12, 0.0); // nothing: feasible, value 0
    const MilpResult good = CbcMilpSolver().Solve(m, opt);
    EXPECT_TRUE(good.warmStartUsed);
    ASSERT_EQ(good.status, MilpStatus::OPTIMAL);
    EXPECT_NEAR(good.objective, BruteForceKnapsack(k), 1e-9);
}

TEST(MilpSolver, SameModelSameResult)
{
    // Three knapsack constraints: CBC has to branch.
    {
        std::mt19937 rng(1);
        MilpModel m;
        std::vector<std::vector<MilpModel::Term>> rows(3);
        std::vector<int> total(3, 0);
        for (int i = 0; i < 30; ++i)
        {
            const auto x = m.AddBinary("x" + std::to_string(i));
            for (int r = 0; r < 3; ++r)
            {
                const int w = 10 + static_cast<int>(rng() % 90);
                rows[r].push_back({x, static_cast<double>(w)});
                total[r] += w;
            }
            m.AddObjectiveTerm(x, 10 + static_cast<double>(rng() % 90));
        }
        for (int r = 0; r < 3; ++r)
        {
            m.AddConstraint("capacity_" + std::to_string(r),
                            rows[r],
                            Sense::LESS_EQUAL,
                            total[r] / 2);
        }
        m.SetObjective(m.GetObjectiveTerms(), 0.0, false);
        for (uint32_t threads : {1u, 2u})
        {
            MilpSolveOptions opt;
            opt.relativeGap = 0.0;
            opt.threads = threads;
            const MilpResult a = CbcMilpSolver().Solve(m, opt);
            const MilpResult b = CbcMilpSolver().Solve(m, opt);
            ASSERT_EQ(a.status, MilpStatus::OPTIMAL) << ToString(a.status);
            EXPECT_EQ(a.status, b.status) << "threads " << threads;
            EXPECT_EQ(a.values, b.values) << "threads " << threads;
            EXPECT_EQ(a.objective, b.objective) << "threads " << threads;
            EXPECT_EQ(a.nodes, b.nodes) << "threads " << threads;
            EXPECT_TRUE(m.IsFeasible(a.values));
        }
    }

    // Equal weights and durations leave many optimal plans: a repeatable
    // solver must pick the same one every time.
    ToyInstance inst{{{2, 1.0, 0}, {2, 1.0, 0}, {2, 1.0, 1}, {1, 1.0, 0}, {1, 1.0, 2}, {3, 1.0, 0}},
                     14,
                     {{0, 1, 0}}};
    const ToyModel t = BuildToyModel(inst);
    CbcMilpSolver solver;
    for (uint32_t threads : {1u, 2u})
    {
        MilpSolveOptions opt;
        opt.threads = threads;
        opt.seed = 7;
        const MilpResult a = solver.Solve(t.model, opt);
        const MilpResult b = solver.Solve(t.model, opt);
        ASSERT_TRUE(a.HasSolution()) << ToString(a.status);
        EXPECT_EQ(a.status, b.status) << "threads " << threads;
        EXPECT_EQ(a.values, b.values) << "threads " << threads;
        EXPECT_EQ(a.objective, b.objective) << "threads " << threads;
        EXPECT_EQ(a.nodes, b.nodes) << "threads " << threads;
        EXPECT_NEAR(a.objective, *BruteForceToy(inst), 1e-9) << "threads " << threads;
    }
}

TEST(MilpModel, ValidateNamesTheBadItem)
{
    auto base = []() {
        MilpModel m;
        m.AddVariable("x", 0.0, 1.0);
        m.AddVariable("y", 0.0, 1.0, Kind::INTEGER);
        m.AddConstraint("c", {{0, 1.0}, {1, 1.0}}, Sense::LESS_EQUAL, 1.0);
        m.SetObjective({{0, 1.0}});
        return m;
    };
    EXPECT_EQ(InvalidArgumentMessage([&] { base().Validate(); }), "");

    struct Case
    {
        const char* what;
        void (*mutate)(MilpModel&);
        const char* expected; ///< substring of the message
    };

    const std::vector<Case> cases{
        {"duplicate variable",
         [](MilpModel& m) { m.AddVariable("x", 0, 1); },
         "variable 'x' (index 2): duplicate name"},
        {"empty variable name", [](MilpModel& m) { m.AddVariable("", 0, 1); }, "empty name"},
        {"crossed bounds", [](MilpModel& m) { m.AddVariable("z", 2, 1); }, "variable 'z'"},
        {"NaN bound", [](MilpModel& m) { m.AddVariable("z", std::nan(""), 1); }, "'z'"},
        {"lower bound +inf", [](MilpModel& m) { m.AddVariable("z", kInf, kInf); }, "'z'"},
        {"binary bounds",
         [](MilpModel& m) { m.AddVariable("b", 0, 2, Kind::BINARY); },
         "variable 'b' (index 2): binary bounds"},
        {"duplicate constraint",
         [](MilpModel& m) { m.AddConstraint("c", {}, Sense::EQUAL, 0); },
         "constraint 'c' (index 1): duplicate name"},
        {"NaN coefficient",
         [](MilpModel& m) {
             m.AddConstraint("d", {{1, std::nan("")}}, Sense::EQUAL, 0);
         },
         "constraint 'd' (index 1) term 0 (variable 'y'): coefficient"},
        {"unknown variable",
         [](MilpModel& m) {
             m.AddConstraint("d", {{0, 1.0}, {9, 1.0}}, Sense::EQUAL, 0);
         },
         "constraint 'd' (index 1) term 1: unknown variable index 9"},
        {"infinite rhs",
         [](MilpModel& m) {
             m.AddConstraint("d", {{0, 1.0}}, Sense::LESS_EQUAL, kInf);
         },
         "constraint 'd'"},
        {"NaN objective", [](MilpModel& m) { m.AddObjectiveTerm(1, std::nan("")); }, "objective"},
        {"unknown objective variable",
         [](MilpModel& m) { m.AddObjectiveTerm(5, 1.0); },
         "objective term 1: unknown variable index 5"},
        {"NaN objective constant",
         [](MilpModel& m) { m.SetObjective({}, std::nan("")); },
         "objective: constant"},
    };
    for (const auto& c : cases)
    {
        MilpModel m = base();
        c.mutate(m);
        const std::string msg = InvalidArgumentMessage([&] { m.Validate(); });
        EXPECT_NE(msg.find(c.expected), std::string::npos)
            << c.what << ": got \"" << msg << "\", expected to contain \"" << c.expected << "\"";
        // Solving an invalid model is refused the same way.
        EXPECT_THROW(CbcMilpSolver().Solve(m, MilpSolveOptions{}), std::invalid_argument) << c.what;
    }
}

TEST(MilpModel, IsFeasibleReportsTheViolation)
{
    MilpModel m;
    const auto x = m.AddVariable("x", 0.0, 4.0, Kind::INTEGER);
    const auto y = m.AddVariable("y", -1.0, 1.0);
    const auto b = m.AddBinary("b");
    m.AddConstraint("cap", {{x, 1.0}, {y, 2.0}}, Sense::LESS_EQUAL, 5.0);
    m.AddConstraint("need", {{x, 1.0}, {b, 1.0}}, Sense::GREATER_EQUAL, 2.0);
    m.AddConstraint("fix", {{y, 1.0}, {b, -1.0}}, Sense::EQUAL, 0.0);
    m.SetObjective({{x, 2.0}, {y, -1.0}, {b, 10.0}}, 3.0);

    std::string why = "stale";
    EXPECT_TRUE(m.IsFeasible({2.0, 1.0, 1.0}, 1e-9, &why));
    EXPECT_EQ(why, "");
    EXPECT_DOUBLE_EQ(m.Evaluate({2.0, 1.0, 1.0}), 3.0 + 4.0 - 1.0 + 10.0);

    struct Case
    {
        std::vector<double> values;
        const char* expected;
    };

    const std::vector<Case> cases{
        {{5.0, 0.0, 0.0}, "variable 'x' = 5 above its upper bound 4"},
        {{2.0, -2.0, 0.0}, "variable 'y' = -2 below its lower bound -1"},
        {{2.5, 0.0, 0.0}, "variable 'x' = 2.5 is not integral"},
        {{2.0, 0.5, 0.5}, "variable 'b' = 0.5 is not integral"},
        {{4.0, 1.0, 1.0}, "constraint 'cap'"},
        {{1.0, 0.0, 0.0}, "constraint 'need'"},
        {{2.0, 0.0, 1.0}, "constraint 'fix'"},
        {{std::nan(""), 0.0, 0.0}, "variable 'x' is NaN"},
    };
    for (const auto& c : cases)
    {
        EXPECT_FALSE(m.IsFeasible(c.values, 1e-9, &why)) << c.expected;
        EXPECT_NE(why.find(c.expected), std::string::npos)
            << "got \"" << why << "\", expected to contain \"" << c.expected << "\"";
    }
    // Within tolerance is feasible; size mismatches are errors.
    EXPECT_TRUE(m.IsFeasible({2.0 + 1e-8, 1.0, 1.0 - 1e-8}, 1e-6));
    EXPECT_THROW(m.IsFeasible({1.0, 0.0}), std::invalid_argument);
    EXPECT_THROW(m.Evaluate({1.0}), std::invalid_argument);
}

TEST(MilpSolver, OptionsAreValidated)
{
    MilpModel m;
    const auto x = m.AddBinary("x");
    m.SetObjective({{x, 1.0}});
    CbcMilpSolver solver;
    auto bad = [&](void (*mutate)(MilpSolveOptions&), const char* field) {
        MilpSolveOptions opt;
        mutate(opt);
        const std::string msg = InvalidArgumentMessage([&] { solver.Solve(m, opt); });
        EXPECT_NE(msg.find(field), std::string::npos) << "got \"" << msg << "\"";
    };
    bad([](MilpSolveOptions& o) { o.timeLimitSeconds = -1; }, "timeLimitSeconds");
    bad([](MilpSolveOptions& o) { o.relativeGap = std::nan(""); }, "relativeGap");
    bad([](MilpSolveOptions& o) { o.threads = 0; }, "threads");
    bad([](MilpSolveOptions& o) { o.seed = 0; }, "seed");
    bad([](MilpSolveOptions& o) { o.warmStart = {0.0, 1.0}; }, "warmStart");
}

TEST(MilpModel, WritesLpThatCbcReadsBack)
{
    MilpModel m;
    const auto x = m.AddVariable("x", 0.0, 4.0, Kind::INTEGER);
    const auto y = m.AddVariable("flow rate", -kInf, kInf); // free; name needs fixing
    const auto b = m.AddBinary("b");
    const auto z = m.AddVariable("z", 1.0, kInf);
    m.AddConstraint("cap", {{x, 1.0}, {y, -2.5}}, Sense::LESS_EQUAL, 5.0);
    m.AddConstraint("need", {{x, 1.0}, {b, 1.0}, {z, 1.0}}, Sense::GREATER_EQUAL, 2.0);
    m.AddConstraint("fix", {{y, 1.0}, {b, -1.0}}, Sense::EQUAL, 0.0);
    m.SetObjective({{x, 2.0}, {y, -1.0}, {b, 10.0}, {z, 1.0}}, 3.0, false);

    std::ostringstream lp;
    m.WriteLp(lp);
    const std::string expected = "\\ 4 variables, 3 constraints\n"
                                 "Maximize\n"
                                 " obj: 2 x - 1 flow_rate + 10 b + 1 z + 3\n"
                                 "Subject To\n"
                                 " cap: 1 x - 2.5 flow_rate <= 5\n"
                                 " need: 1 x + 1 b + 1 z >= 2\n"
                                 " fix: 1 flow_rate - 1 b = 0\n"
                                 "Bounds\n"
                                 " 0 <= x <= 4\n"
                                 " flow_rate free\n"
                                 " z >= 1\n"
                                 "Generals\n"
                                 " x\n"
                                 "Binaries\n"
                                 " b\n"
                                 "End\n";
    EXPECT_EQ(lp.str(), expected);

    // CoinLpIO (CBC's own reader) accepts it and sees the same problem.
    const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                       ("milp-test-" + std::to_string(::getpid()) + ".lp");
    std::ofstream(file) << lp.str();
    CoinLpIO reader;
    reader.readLp(file.c_str());
    std::filesystem::remove(file);
    ASSERT_EQ(reader.getNumCols(), 4);
    ASSERT_EQ(reader.getNumRows(), 3);
    const double* obj = reader.getObjCoefficients();
    // CoinLpIO stores a maximization negated.
    const double dir = reader.getObjCoefficients()[0] < 0 ? -1.0 : 1.0;
    EXPECT_DOUBLE_EQ(dir * obj[0], 2.0);
    EXPECT_DOUBLE_EQ(dir * obj[1], -1.0);
    EXPECT_DOUBLE_EQ(dir * obj[2], 10.0);
    EXPECT_DOUBLE_EQ(dir * obj[3], 1.0);
    EXPECT_DOUBLE_EQ(reader.getColLower()[0], 0.0);
    EXPECT_DOUBLE_EQ(reader.getColUpper()[0], 4.0);
    EXPECT_LE(reader.getColLower()[1], -1e30);
    EXPECT_GE(reader.getColUpper()[1], 1e30);
    EXPECT_DOUBLE_EQ(reader.getColUpper()[2], 1.0);
    EXPECT_DOUBLE_EQ(reader.getColLower()[3], 1.0);
    EXPECT_TRUE(reader.isInteger(0));
    EXPECT_FALSE(reader.isInteger(1));
    EXPECT_TRUE(reader.isInteger(2));
    EXPECT_FALSE(reader.isInteger(3));
    EXPECT_DOUBLE_EQ(reader.getRowUpper()[0], 5.0);
    EXPECT_DOUBLE_EQ(reader.getRowLower()[1], 2.0);
    EXPECT_DOUBLE_EQ(reader.getRowLower()[2], 0.0);
    EXPECT_DOUBLE_EQ(reader.getRowUpper()[2], 0.0);
    EXPECT_DOUBLE_EQ(std::fabs(reader.objectiveOffset()), 3.0);
    EXPECT_STREQ(reader.getColNames()[1], "flow_rate");
    EXPECT_STREQ(reader.getRowNames()[1], "need");
}

} // namespace
