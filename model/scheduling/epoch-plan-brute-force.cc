/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The exhaustive planner, for tests and tiny instances (see epoch-plan.h).

#include "epoch-plan-internal.h"
#include "epoch-plan.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

using namespace epoch_plan;

Plan
BruteForcePlan(const PlanInstance& instance, uint64_t maxCombinations)
{
    instance.Validate();
    const int64_t horizon = instance.horizon;

    struct Item
    {
        const PlanJob* job;
        uint32_t index;
    };

    std::vector<Item> items;
    // Number of (route, start) vectors that respect ready slots and
    // chaining, counted per job from its last collective back, saturating.
    const uint64_t cap = maxCombinations + 1;
    auto mul = [cap](uint64_t a, uint64_t b) {
        return (a != 0 && b > cap / a) ? cap : std::min(cap, a * b);
    };
    uint64_t combinations = 1;
    for (const PlanJob* job : JobsById(instance))
    {
        const uint32_t n = job->collectives.size();
        for (uint32_t k = 0; k < n; ++k)
        {
            items.push_back({job, k});
        }
        if (n == 0)
        {
            continue;
        }
        // choices(k, s): routes collective k can take at start s (1 when deferred).
        auto routesAt = [&](uint32_t k, int64_t s) -> uint64_t {
            return s == horizon ? 1 : job->collectives[k].Routes();
        };
        // ways[s][r]: completions of collectives k+1.. after collective k starts at s on route r.
        const PlanCollective* last = &job->collectives[n - 1];
        std::vector<std::vector<uint64_t>> ways(horizon + 1,
                                                std::vector<uint64_t>(last->Routes(), 1));
        for (uint32_t k = n - 1; k >= 1; --k)
        {
            // suffix[s] = completions summed over starts s..horizon and routes of collective k
            std::vector<uint64_t> suffix(horizon + 2, 0);
            for (int64_t s = horizon; s >= 0; --s)
            {
                uint64_t here = 0;
                for (uint64_t r = 0; r < routesAt(k, s); ++r)
                {
                    here = std::min(cap, here + ways[s][r]);
                }
                suffix[s] = std::min(cap, suffix[s + 1] + here);
            }
            const PlanCollective& p = job->collectives[k - 1];
            std::vector<std::vector<uint64_t>> before(horizon + 1,
                                                      std::vector<uint64_t>(p.Routes(), 0));
            for (int64_t s = 0; s <= horizon; ++s)
            {
                for (uint32_t r = 0; r < p.Routes(); ++r)
                {
                    before[s][r] = suffix[ChainEarliest(instance, *job, k, s, p.Duration(r))];
                }
            }
            ways = std::move(before);
        }
        uint64_t total = 0;
        for (int64_t s = ChainEarliest(instance, *job, 0, 0, 0); s <= horizon; ++s)
        {
            for (uint64_t r = 0; r < routesAt(0, s); ++r)
            {
                total = std::min(cap, total + ways[s][r]);
            }
        }
        combinations = mul(combinations, total);
    }
    if (combinations > maxCombinations)
    {
        Fail("brute force would enumerate more than " + std::to_string(maxCombinations) +
             " route and start vectors");
    }

    // Lower bound on the objective of items i.. (each at its earliest start
    // from the ready slots alone, on its shortest route), to cut branches
    // that cannot win.
    std::vector<double> restBound(items.size() + 1, 0.0);
    {
        std::vector<int64_t> earliest(items.size());
        for (std::size_t i = 0; i < items.size(); ++i)
        {
            const Item& it = items[i];
            const int64_t previous =
                it.index == 0 ? 0 : ShortestDuration(it.job->collectives[it.index - 1]);
            earliest[i] = ChainEarliest(instance,
                                        *it.job,
                                        it.index,
                                        it.index == 0 ? 0 : earliest[i - 1],
                                        previous);
        }
        for (std::size_t i = items.size(); i-- > 0;)
        {
            const PlanCollective& c = items[i].job->collectives[items[i].index];
            restBound[i] = restBound[i + 1] +
                           c.weight * static_cast<double>(earliest[i] + ShortestDuration(c));
        }
    }

    Ledger ledger(instance);
    std::vector<int64_t> starts(items.size(), 0);
    std::vector<uint32_t> routes(items.size(), 0);
    std::vector<int64_t> best;
    std::vector<uint32_t> bestRoutes;
    double bestObjective = std::numeric_limits<double>::infinity();
    auto better = [&bestObjective](double value) {
        return std::isinf(bestObjective) ||
               value < bestObjective - 1e-9 * std::max(1.0, std::fabs(bestObjective));
    };

    std::function<void(std::size_t, double)> search = [&](std::size_t i, double partial) {
        if (!better(partial + restBound[i]))
        {
            return;
        }
        if (i == items.size())
        {
            best = starts;
            bestRoutes = routes;
            bestObjective = partial;
            return;
        }
        const Item& it = items[i];
        const PlanCollective& c = it.job->collectives[it.index];
        int64_t lo = ChainEarliest(instance, *it.job, it.index, 0, 0);
        if (it.index > 0)
        {
            const PlanCollective& p = it.job->collectives[it.index - 1];
            lo = ChainEarliest(instance,
                               *it.job,
                               it.index,
                               starts[i - 1],
                               p.Duration(routes[i - 1]));
        }
        for (int64_t s = lo; s <= horizon; ++s)
        {
            starts[i] = s;
            if (s == horizon)
            {
                routes[i] = 0;
                search(i + 1, partial + c.weight * static_cast<double>(s + c.duration));
                continue;
            }
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                routes[i] = r;
                if (ledger.Fits(c, r, s))
                {
                    const auto undo = ledger.Take(c, r, s);
                    search(i + 1, partial + c.weight * static_cast<double>(s + c.Duration(r)));
                    Ledger::Restore(undo);
                }
            }
        }
    };
    search(0, 0.0);

    Plan plan;
    plan.method = "brute-force";
    plan.proven = true;
    for (std::size_t i = 0; i < items.size(); ++i)
    {
        const Key key{items[i].job->id, items[i].index};
        plan.start[key] = best[i];
        if (bestRoutes[i] != 0)
        {
            plan.route[key] = bestRoutes[i];
        }
    }
    plan.objective = PlanObjective(instance, plan);
    return plan;
}

} // namespace ns3
