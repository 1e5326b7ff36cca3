/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "plan-lower-bound.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

using Term = MilpModel::Term;
using Sense = MilpModel::Sense;

std::string
Suffix(uint32_t job, uint32_t index)
{
    return "_j" + std::to_string(job) + "_k" + std::to_string(index);
}

double
ShortestExact(const PlanCollective& c)
{
    double d = c.ExactDuration(0);
    for (uint32_t r = 1; r < c.Routes(); ++r)
    {
        d = std::min(d, c.ExactDuration(r));
    }
    return d;
}

double
WeightOf(const PlanJob& job, uint32_t k, PlanBoundObjective objective)
{
    if (objective == PlanBoundObjective::WEIGHTED)
    {
        return job.collectives[k].weight;
    }
    return k + 1 == job.collectives.size() ? 1.0 : 0.0;
}

/**
 * Each link's least usage over route \p r's duration: what the collective
 * surely uses of it whenever it runs. A segmented route's use varies over
 * its run, and the relaxation, which may run any part of a collective at
 * any time, cannot tell which part runs when: only the least use is a
 * load every schedule has (0 for a link it leaves idle in some slot).
 */
std::map<uint32_t, double>
LeastUsage(const PlanCollective& c, uint32_t r)
{
    if (c.Segments(r).empty())
    {
        return c.Usage(r);
    }
    std::map<uint32_t, double> least = c.Usage(r);
    int64_t covered = 0;
    c.ForEachUse(r, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
        const int64_t from = std::max(b, covered);
        const int64_t to = std::min(e, c.Duration(r));
        if (from > covered) // a gap: nothing is used in it
        {
            least.clear();
        }
        if (to > from)
        {
            covered = to;
            for (auto it = least.begin(); it != least.end();)
            {
                auto u = usage.find(it->first);
                if (u == usage.end())
                {
                    it = least.erase(it);
                    continue;
                }
                it->second = std::min(it->second, u->second);
                ++it;
            }
        }
    });
    if (covered < c.Duration(r))
    {
        least.clear();
    }
    return least;
}

/// Earliest unrounded start of every collective of \p job when it runs alone.
std::vector<double>
EarliestStarts(const PlanJob& job)
{
    std::vector<double> e(job.collectives.size());
    for (std::size_t k = 0; k < e.size(); ++k)
    {
        e[k] = k == 0 ? job.collectives[0].ExactReady()
                      : e[k - 1] + ShortestExact(job.collectives[k - 1]) + job.ExactCompute();
    }
    return e;
}

/// Indices of one collective's variables.
struct Columns
{
    std::vector<Term> work; ///< z / D terms: fraction of the work per (route, slot)
    std::vector<Term> busy; ///< t z / D terms of the mean busy time
    std::size_t deferred{0};
    std::size_t mean{0};
    std::size_t completion{0};
};

/// The LP and where each collective's completion variable is.
struct BoundModel
{
    MilpModel model;
    std::vector<std::pair<std::pair<uint32_t, uint32_t>, std::size_t>> completions;
};

BoundModel Build(const PlanInstance& instance, PlanBoundObjective objective, uint32_t resolution);

} // namespace

double
ChainsAloneBound(const PlanInstance& instance, PlanBoundObjective objective)
{
    double value = 0;
    for (const PlanJob& job : instance.jobs)
    {
        const std::vector<double> e = EarliestStarts(job);
        for (uint32_t k = 0; k < job.collectives.size(); ++k)
        {
            value += WeightOf(job, k, objective) * (e[k] + ShortestExact(job.collectives[k]));
        }
    }
    return value;
}

MilpModel
BuildPlanBoundModel(const PlanInstance& instance, PlanBoundObjective objective, uint32_t resolution)
{
    return Build(instance, objective, resolution).model;
}

namespace
{

BoundModel
Build(const PlanInstance& instance, PlanBoundObjective objective, uint32_t resolution)
{
    instance.Validate();
    if (resolution < 1)
    {
        throw std::invalid_argument("plan-lower-bound: resolution must be >= 1");
    }
    BoundModel built;
    MilpModel& m = built.model;
    // The LP's time unit is 1 / resolution slot: every time below is in it.
    const double unit = resolution;
    const int64_t steps = instance.horizon * resolution;
    const double horizon = static_cast<double>(steps);
    // Per (link, step): the rate terms of every collective that may use it.
    std::map<std::pair<uint32_t, int64_t>, std::vector<Term>> load;
    for (const PlanJob& job : instance.jobs)
    {
        const std::vector<double> earliest = EarliestStarts(job);
        std::size_t previous = 0;
        for (uint32_t k = 0; k < job.collectives.size(); ++k)
        {
            const PlanCollective& c = job.collectives[k];
            const std::string s = Suffix(job.id, k);
            const double dmin = ShortestExact(c) * unit;
            const double ready = earliest[k] * unit;
            Columns col;
            const int64_t first = static_cast<int64_t>(std::floor(ready));
            std::vector<std::map<uint32_t, double>> low;
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                low.push_back(LeastUsage(c, r));
            }
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                const double d = c.ExactDuration(r) * unit;
                for (int64_t t = first; t < steps; ++t)
                {
                    const std::size_t z =
                        m.AddVariable("z" + s + "_r" + std::to_string(r) + "_u" + std::to_string(t),
                                      0.0,
                                      1.0);
                    col.work.push_back({z, 1.0 / d});
                    col.busy.push_back({z, static_cast<double>(t) / d});
                    for (const auto& [link, u] : low[r])
                    {
                        load[{link, t}].push_back({z, u});
                    }
                }
            }
            col.deferred = m.AddVariable("q" + s, 0.0, 1.0);
            col.mean = m.AddVariable("m" + s, 0.0, MilpModel::kInfinity);
            col.completion = m.AddVariable("c" + s, 0.0, MilpModel::kInfinity);

            std::vector<Term> done = col.work;
            done.push_back({col.deferred, 1.0});
            m.AddConstraint("done" + s, done, Sense::EQUAL, 1.0);
            // At most its alone rate in total, whatever the mix of routes.
            for (int64_t t = first; t < steps; ++t)
            {
                std::vector<Term> rate;
                for (uint32_t r = 0; r < c.Routes(); ++r)
                {
                    const std::size_t perRoute = static_cast<std::size_t>(steps - first);
                    rate.push_back(
                        {col.work[r * perRoute + static_cast<std::size_t>(t - first)].var, 1.0});
                }
                if (rate.size() > 1)
                {
                    m.AddConstraint("rate" + s + "_u" + std::to_string(t),
                                    rate,
                                    Sense::LESS_EQUAL,
                                    1.0);
                }
            }
            std::vector<Term> mean = col.busy;
            mean.push_back({col.deferred, horizon});
            mean.push_back({col.mean, -1.0});
            m.AddConstraint("mean" + s, mean, Sense::EQUAL, 0.0);
            m.AddConstraint("after" + s,
                            {{col.completion, 1.0}, {col.mean, -1.0}},
                            Sense::GREATER_EQUAL,
                            dmin / 2);
            m.AddConstraint("alone" + s,
                            {{col.completion, 1.0}},
                            Sense::GREATER_EQUAL,
                            ready + dmin);
            if (k == 0)
            {
                m.AddConstraint("start" + s,
                                {{col.mean, 1.0}},
                                Sense::GREATER_EQUAL,
                                ready + dmin / 2 - 1);
            }
            else
            {
                const double gap = job.ExactCompute() * unit;
                m.AddConstraint("chain" + s,
                                {{col.completion, 1.0}, {previous, -1.0}},
                                Sense::GREATER_EQUAL,
                                gap + dmin);
                m.AddConstraint("chainmean" + s,
                                {{col.mean, 1.0}, {previous, -1.0}},
                                Sense::GREATER_EQUAL,
                                gap + dmin / 2 - 1);
            }
            const double w = WeightOf(job, k, objective);
            if (w > 0)
            {
                m.AddObjectiveTerm(col.completion, w);
            }
            previous = col.completion;
            built.completions.push_back({{job.id, k}, col.completion});
        }
    }
    for (auto& [key, terms] : load)
    {
        const auto& [link, t] = key;
        auto it = instance.reserved.find(link);
        const double free =
            1.0 - (it == instance.reserved.end() ? 0.0 : it->second[t / resolution]);
        double most = 0;
        for (const Term& term : terms)
        {
            most += term.coef;
        }
        if (most <= free)
        {
            continue; // no mix of rates can exceed it
        }
        m.AddConstraint("cap_l" + std::to_string(link) + "_u" + std::to_string(t),
                        std::move(terms),
                        Sense::LESS_EQUAL,
                        std::max(0.0, free));
    }
    return built;
}

} // namespace

PlanBound
PlanLowerBound(const PlanInstance& instance,
               const MilpSolver& solver,
               const MilpSolveOptions& options,
               PlanBoundObjective objective,
               uint32_t resolution)
{
    const BoundModel built = Build(instance, objective, resolution);
    PlanBound bound;
    bound.value = ChainsAloneBound(instance, objective);
    bound.solve = solver.Solve(built.model, options);
    if (bound.solve.status != MilpStatus::OPTIMAL)
    {
        return bound;
    }
    bound.solved = true;
    // The LP's optimum; never below the chains alone, which it implies
    // (solver tolerances aside).
    bound.value = std::max(bound.value, bound.solve.objective / resolution);
    for (const auto& [key, var] : built.completions)
    {
        bound.completion[key] = bound.solve.values[var] / resolution;
    }
    return bound;
}

} // namespace ns3
