/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EPOCH_PLAN_INTERNAL_H
#define EPOCH_PLAN_INTERNAL_H

// What the planners' implementation files share (epoch-plan.cc and
// epoch-plan-brute-force.cc): validation errors, walking jobs in id order,
// chaining, and the capacity ledger.

#include "epoch-plan.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace epoch_plan
{

/// Capacity may be exceeded by this much (rounding of sums of usages).
inline constexpr double kCapacityTolerance = 1e-9;

using Key = std::pair<uint32_t, uint32_t>;

[[noreturn]] inline void
Fail(const std::string& what)
{
    throw std::invalid_argument("epoch-plan: " + what);
}

/// The jobs in increasing id order: every function walks collectives in
/// (job id, index) order, whatever the order of PlanInstance::jobs.
inline std::vector<const PlanJob*>
JobsById(const PlanInstance& instance)
{
    std::vector<const PlanJob*> jobs;
    for (const auto& j : instance.jobs)
    {
        jobs.push_back(&j);
    }
    std::sort(jobs.begin(), jobs.end(), [](const PlanJob* a, const PlanJob* b) {
        return a->id < b->id;
    });
    return jobs;
}

/// Capacity of \p link reserved in slot \p t (< horizon).
inline double
Reserved(const PlanInstance& instance, uint32_t link, int64_t t)
{
    auto it = instance.reserved.find(link);
    return it == instance.reserved.end() ? 0.0 : it->second[t];
}

/// Earliest start of the collective after one that starts no earlier than
/// \p previousStart and runs \p previousDuration: horizon (deferred) once the
/// chain is past the horizon.
inline int64_t
ChainEarliest(const PlanInstance& instance,
              const PlanJob& job,
              uint32_t index,
              int64_t previousStart,
              int64_t previousDuration)
{
    const PlanCollective& c = job.collectives[index];
    if (index == 0)
    {
        return std::min(c.readySlot, instance.horizon);
    }
    if (previousStart >= instance.horizon)
    {
        return instance.horizon;
    }
    const int64_t after = previousStart + previousDuration + job.computeSlots;
    return std::min(std::max(c.readySlot, after), instance.horizon);
}

/// The shortest duration among the routes of \p c.
inline int64_t
ShortestDuration(const PlanCollective& c)
{
    int64_t d = c.duration;
    for (const PlanRoute& r : c.alternatives)
    {
        d = std::min(d, r.duration);
    }
    return d;
}

/**
 * Smith's rule over the next collective of each job (\p next[j] indexes
 * \p jobs[j]'s collectives): the largest weight / shortest duration first
 * (cross-multiplied), ties by position. \return \p jobs.size() when every
 * job is done.
 */
inline std::size_t
SmithsNext(const std::vector<const PlanJob*>& jobs, const std::vector<uint32_t>& next)
{
    std::size_t pick = jobs.size();
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        if (next[j] >= jobs[j]->collectives.size())
        {
            continue;
        }
        if (pick == jobs.size())
        {
            pick = j;
            continue;
        }
        const PlanCollective& a = jobs[j]->collectives[next[j]];
        const PlanCollective& b = jobs[pick]->collectives[next[pick]];
        if (a.weight * static_cast<double>(ShortestDuration(b)) >
            b.weight * static_cast<double>(ShortestDuration(a)))
        {
            pick = j;
        }
    }
    return pick;
}

/**
 * The list scheduling the greedy planner and Harmonics' coordinator share:
 * one collective at a time in Smith's order (SmithsNext), each no earlier
 * than its chain allows (ChainEarliest), at the start and route \p choose
 * picks for it: choose(collective, earliest) returns {start, route}, start
 * = horizon to defer it. A collective started inside the horizon takes its
 * capacity in \p ledger; \p plan gets every start and every route but 0.
 */
template <typename LedgerT, typename Choose>
void
PlaceInSmithsOrder(const PlanInstance& instance, LedgerT& ledger, Plan& plan, Choose choose)
{
    const std::vector<const PlanJob*> jobs = JobsById(instance);
    std::vector<uint32_t> next(jobs.size(), 0);
    std::vector<int64_t> previousStart(jobs.size(), 0);
    std::vector<int64_t> previousDuration(jobs.size(), 0);
    while (true)
    {
        const std::size_t pick = SmithsNext(jobs, next);
        if (pick == jobs.size())
        {
            break;
        }
        const PlanJob& job = *jobs[pick];
        const uint32_t k = next[pick];
        const PlanCollective& c = job.collectives[k];
        const int64_t earliest =
            ChainEarliest(instance, job, k, previousStart[pick], previousDuration[pick]);
        const std::pair<int64_t, uint32_t> chosen = choose(c, earliest);
        const int64_t start = chosen.first;
        const uint32_t route = chosen.second;
        if (start < instance.horizon)
        {
            ledger.Take(c, route, start);
        }
        plan.start[{job.id, k}] = start;
        if (route != 0)
        {
            plan.route[{job.id, k}] = route;
        }
        previousStart[pick] = start;
        previousDuration[pick] = c.Duration(route);
        ++next[pick];
    }
}

/// Capacity already taken per link and slot, reservations included: the
/// ledger of the greedy and of the brute force.
class Ledger
{
  public:
    explicit Ledger(const PlanInstance& instance)
        : m_horizon(instance.horizon)
    {
        for (const auto& job : instance.jobs)
        {
            for (const auto& c : job.collectives)
            {
                for (uint32_t route = 0; route < c.Routes(); ++route)
                {
                    for (const auto& [link, u] : c.Usage(route))
                    {
                        if (m_taken.count(link) == 0)
                        {
                            auto r = instance.reserved.find(link);
                            m_taken[link] = r == instance.reserved.end()
                                                ? std::vector<double>(m_horizon, 0.0)
                                                : r->second;
                        }
                    }
                }
            }
        }
    }

    /// Whether \p c fits on route \p r when started at \p s < horizon.
    bool Fits(const PlanCollective& c, uint32_t r, int64_t s) const
    {
        bool fits = true;
        c.ForEachUse(r, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
            const int64_t end = std::min(s + e, m_horizon);
            for (auto it = usage.begin(); fits && it != usage.end(); ++it)
            {
                const std::vector<double>& taken = m_taken.at(it->first);
                for (int64_t t = s + b; t < end; ++t)
                {
                    if (taken[t] + it->second > 1.0 + kCapacityTolerance)
                    {
                        fits = false;
                        break;
                    }
                }
            }
        });
        return fits;
    }

    /// Take the capacity of \p c on route \p r started at \p s < horizon;
    /// returns what to hand to Restore() to undo it exactly.
    std::vector<std::pair<double*, double>> Take(const PlanCollective& c, uint32_t r, int64_t s)
    {
        std::vector<std::pair<double*, double>> undo;
        c.ForEachUse(r, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
            const int64_t end = std::min(s + e, m_horizon);
            for (const auto& [link, u] : usage)
            {
                std::vector<double>& taken = m_taken.at(link);
                for (int64_t t = s + b; t < end; ++t)
                {
                    undo.emplace_back(&taken[t], taken[t]);
                    taken[t] += u;
                }
            }
        });
        return undo;
    }

    /// Capacity of \p link taken in slot \p t (< horizon), reservations included.
    double Taken(uint32_t link, int64_t t) const
    {
        return m_taken.at(link)[t];
    }

    static void Restore(const std::vector<std::pair<double*, double>>& undo)
    {
        for (auto it = undo.rbegin(); it != undo.rend(); ++it)
        {
            *it->first = it->second;
        }
    }

  private:
    int64_t m_horizon;
    std::map<uint32_t, std::vector<double>> m_taken;
};

} // namespace epoch_plan
} // namespace ns3

#endif /* EPOCH_PLAN_INTERNAL_H */
