/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "plan-components.h"

#include <algorithm>
#include <boost/pending/disjoint_sets.hpp>
#include <cmath>
#include <map>

namespace ns3
{

std::vector<PlanInstance>
SplitPlanInstance(const PlanInstance& instance)
{
    const std::size_t n = instance.jobs.size();
    std::vector<std::size_t> rank(n);
    std::vector<std::size_t> parent(n);
    boost::disjoint_sets<std::size_t*, std::size_t*> sets(rank.data(), parent.data());
    for (std::size_t i = 0; i < n; ++i)
    {
        sets.make_set(i);
    }
    std::map<uint32_t, std::size_t> firstUser; // link -> first job that may use it
    for (std::size_t i = 0; i < n; ++i)
    {
        for (const PlanCollective& c : instance.jobs[i].collectives)
        {
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                for (const auto& [link, share] : c.Usage(r))
                {
                    auto [it, fresh] = firstUser.emplace(link, i);
                    if (!fresh)
                    {
                        sets.union_set(i, it->second);
                    }
                }
            }
        }
    }
    std::map<std::size_t, std::size_t> partOf; // representative -> index in parts
    std::vector<PlanInstance> parts;
    for (std::size_t i = 0; i < n; ++i)
    {
        auto [it, fresh] = partOf.emplace(sets.find_set(i), parts.size());
        if (fresh)
        {
            parts.emplace_back();
            parts.back().horizon = instance.horizon;
        }
        PlanInstance& part = parts[it->second];
        part.jobs.push_back(instance.jobs[i]);
        for (const PlanCollective& c : instance.jobs[i].collectives)
        {
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                for (const auto& [link, share] : c.Usage(r))
                {
                    auto reserved = instance.reserved.find(link);
                    if (reserved != instance.reserved.end())
                    {
                        part.reserved.insert(*reserved);
                    }
                }
            }
        }
    }
    if (parts.empty())
    {
        parts.push_back(instance);
    }
    return parts;
}

Plan
JoinPlans(const std::vector<Plan>& parts)
{
    Plan joined;
    joined.method = "milp";
    joined.proven = true;
    joined.solve.status = MilpStatus::OPTIMAL;
    joined.solve.objective = 0;
    joined.solve.bound = 0;
    joined.solve.warmStartUsed = true;
    for (const Plan& p : parts)
    {
        joined.start.insert(p.start.begin(), p.start.end());
        joined.route.insert(p.route.begin(), p.route.end());
        joined.objective += p.objective;
        joined.proven = joined.proven && p.proven;
        joined.slotFactor = std::max(joined.slotFactor, p.slotFactor);
        if (joined.method == "milp" && p.method != "milp")
        {
            joined.method = p.method;
        }
        MilpResult& s = joined.solve;
        s.status = std::max(s.status, p.solve.status);
        s.objective += p.solve.objective;
        s.bound += p.solve.bound;
        s.wallSeconds += p.solve.wallSeconds;
        s.nodes += p.solve.nodes;
        s.iterations += p.solve.iterations;
        s.variables += p.solve.variables;
        s.constraints += p.solve.constraints;
        s.nonzeros += p.solve.nonzeros;
        s.warmStartUsed = s.warmStartUsed && p.solve.warmStartUsed;
        if (s.message.empty())
        {
            s.message = p.solve.message;
        }
    }
    joined.solve.gap = MilpRelativeGap(joined.solve.objective, joined.solve.bound);
    return joined;
}

} // namespace ns3
