/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * CBC through the MILP layer: knapsacks and a time-indexed toy against brute
 * force, analytic LPs, infeasible and unbounded models, time limits, warm
 * starts and repeatability.
 */
#include "ns3/cbc-milp-solver.h"
#include "ns3/milp-model.h"
#include "ns3/milp-solver.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

using Kind = MilpModel::VarKind;
using Sense = MilpModel::Sense;
constexpr double kInf = MilpModel::kInfinity;

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

/// \p share: the part of the resource a running job takes; any share above
/// one half still lets one job run at a time.
ToyModel
BuildToyModel(const ToyInstance& inst, double share = 1.0)
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
                    busy.push_back({x, share});
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

/// Jobs on one machine from slot 0 with no release dates, no chains and
/// \p spare slots beyond their total duration.
ToyInstance
SingleMachineToy(uint32_t seed, std::size_t jobs, int spare)
{
    std::mt19937 rng(seed);
    ToyInstance inst;
    inst.slots = spare;
    for (std::size_t j = 0; j < jobs; ++j)
    {
        const int p = 1 + static_cast<int>(rng() % 6);
        inst.jobs.push_back(ToyJob{p, 1.0 + static_cast<double>(rng() % 9), 0});
        inst.slots += p;
    }
    return inst;
}

/// Smith's rule: jobs by increasing p / w (ties by index). Back to back from
/// slot 0 in this order is optimal for one machine without release dates or
/// chains.
std::vector<std::size_t>
SmithOrder(const ToyInstance& inst)
{
    std::vector<std::size_t> order(inst.jobs.size());
    for (std::size_t j = 0; j < order.size(); ++j)
    {
        order[j] = j;
    }
    std::stable_sort(order.begin(), order.end(), [&inst](std::size_t a, std::size_t b) {
        return inst.jobs[a].p * inst.jobs[b].w < inst.jobs[b].p * inst.jobs[a].w;
    });
    return order;
}

/// Weighted completion time of the jobs run back to back in \p order.
double
BackToBackCost(const ToyInstance& inst, const std::vector<std::size_t>& order)
{
    double cost = 0.0;
    int t = 0;
    for (std::size_t j : order)
    {
        t += inst.jobs[j].p;
        cost += inst.jobs[j].w * t;
    }
    return cost;
}

/// The model's values for the jobs run back to back in \p order.
std::vector<double>
BackToBackValues(const ToyInstance& inst, const ToyModel& t, const std::vector<std::size_t>& order)
{
    std::vector<double> x(t.model.GetNumVariables(), 0.0);
    int slot = 0;
    for (std::size_t j : order)
    {
        for (const auto& [s, var] : t.starts[j])
        {
            if (s == slot)
            {
                x[var] = 1.0;
            }
        }
        slot += inst.jobs[j].p;
    }
    return x;
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

TEST(MilpSolver, PreprocessingKeepsTheOptimum)
{
    // The same optimum, bound and proof with CBC's preprocessing on (the
    // default) and off, against brute force and Smith's rule.
    CbcMilpSolver solver;
    auto solveBoth = [&solver](const MilpModel& m, double optimum, const std::string& what) {
        for (bool preprocess : {true, false})
        {
            MilpSolveOptions opt;
            opt.relativeGap = 0.0;
            opt.preprocess = preprocess;
            const MilpResult r = solver.Solve(m, opt);
            const std::string where = what + (preprocess ? " (preprocessed)" : " (plain)");
            ASSERT_EQ(r.status, MilpStatus::OPTIMAL) << where << ": " << ToString(r.status);
            EXPECT_NEAR(r.objective, optimum, 1e-9) << where;
            EXPECT_NEAR(r.bound, optimum, 1e-6) << where;
            EXPECT_LE(r.gap, 1e-9) << where;
            std::string why;
            EXPECT_TRUE(m.IsFeasible(r.values, 1e-9, &why)) << where << ": " << why;
        }
    };
    for (uint32_t seed : {11u, 13u})
    {
        const Knapsack k = MakeKnapsack(12, seed, seed == 13);
        solveBoth(KnapsackModel(k), BruteForceKnapsack(k), "knapsack " + std::to_string(seed));
    }
    int compared = 0;
    for (uint32_t seed = 30; compared < 2; ++seed)
    {
        const ToyInstance inst = RandomToy(seed, 4, 8);
        if (const std::optional<double> optimum = BruteForceToy(inst))
        {
            solveBoth(BuildToyModel(inst).model, *optimum, "toy " + std::to_string(seed));
            ++compared;
        }
    }
    // Shares of 0.9 give preprocessing coefficients to tighten.
    const ToyInstance single = SingleMachineToy(8, 5, 8);
    solveBoth(BuildToyModel(single, 0.9).model,
              BackToBackCost(single, SmithOrder(single)),
              "one machine");

    const ToyInstance impossible{{{3, 1.0, 0}, {3, 1.0, 0}}, 5, {}};
    for (bool preprocess : {true, false})
    {
        MilpSolveOptions opt;
        opt.preprocess = preprocess;
        EXPECT_EQ(solver.Solve(BuildToyModel(impossible).model, opt).status, MilpStatus::INFEASIBLE)
            << "preprocess " << preprocess;
    }
}

TEST(MilpSolver, TimeLimitDuringPreprocessing)
{
    // CBC 2.10's preprocessing crashed (CglPreProcess::postProcess) when the
    // time limit passed between its passes and there was a solution to map
    // back, e.g. a warm start; with no solution it claimed infeasibility.
    // Shares of 0.9 make it run several passes on this small model. The
    // limits sweep the whole solve, whatever this machine's speed, so some
    // land among the passes; every result must hold against Smith's rule
    // whatever the limit stopped.
    const ToyInstance inst = SingleMachineToy(8, 5, 8);
    const ToyModel t = BuildToyModel(inst, 0.9);
    std::vector<std::size_t> order = SmithOrder(inst);
    const double optimum = BackToBackCost(inst, order);
    std::swap(order[0], order[1]); // a good warm start, not the best
    const std::vector<double> warm = BackToBackValues(inst, t, order);
    ASSERT_TRUE(t.model.IsFeasible(warm));
    const double warmCost = BackToBackCost(inst, order);
    ASSERT_GT(warmCost, optimum);

    CbcMilpSolver solver;
    MilpSolveOptions opt;
    opt.relativeGap = 0.0;
    opt.warmStart = warm;
    const MilpResult full = solver.Solve(t.model, opt);
    ASSERT_EQ(full.status, MilpStatus::OPTIMAL) << ToString(full.status);
    EXPECT_NEAR(full.objective, optimum, 1e-9);

    for (const bool warmStart : {true, false})
    {
        opt.warmStart = warmStart ? warm : std::vector<double>{};
        // With a warm start the crash came from limits among the passes;
        // without one the false "infeasible" came from limits passing just
        // as preprocessing started, early in the solve.
        const int steps = warmStart ? 8 : 64;
        for (int k = 1; k <= (warmStart ? 7 : 12); ++k)
        {
            opt.timeLimitSeconds = full.wallSeconds * k / steps;
            const MilpResult r = solver.Solve(t.model, opt);
            const std::string where = std::string(warmStart ? "warm" : "cold") + ", limit " +
                                      std::to_string(opt.timeLimitSeconds) + " s";
            if (std::isfinite(r.bound))
            {
                EXPECT_LE(r.bound, optimum + 1e-6) << where;
            }
            if (!r.HasSolution())
            {
                EXPECT_FALSE(warmStart) << where << ": warm start lost";
                EXPECT_EQ(r.status, MilpStatus::NO_SOLUTION) << where << ": " << ToString(r.status);
                continue;
            }
            if (r.status == MilpStatus::OPTIMAL)
            {
                EXPECT_NEAR(r.objective, optimum, 1e-9) << where;
            }
            else
            {
                EXPECT_EQ(r.status, MilpStatus::FEASIBLE) << where << ": " << ToString(r.status);
            }
            EXPECT_GE(r.objective, optimum - 1e-9) << where;
            if (warmStart)
            {
                EXPECT_LE(r.objective, warmCost + 1e-9) << where;
            }
            const std::optional<double> cost = ToyCost(inst, DecodeStarts(t, r.values));
            ASSERT_TRUE(cost.has_value()) << where << ": plan breaks a rule";
            EXPECT_NEAR(*cost, r.objective, 1e-9) << where;
        }
    }
}

} // namespace
