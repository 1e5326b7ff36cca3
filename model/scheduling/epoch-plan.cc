/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "epoch-plan.h"

#include "ns3/unit-strings.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Capacity may be exceeded by this much (rounding of sums of usages).
constexpr double kCapacityTolerance = 1e-9;

using Key = std::pair<uint32_t, uint32_t>;

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("epoch-plan: " + what);
}

std::string
Where(uint32_t job, uint32_t index)
{
    return "job " + std::to_string(job) + " collective " + std::to_string(index);
}

/// The jobs in increasing id order: every function walks collectives in
/// (job id, index) order, whatever the order of PlanInstance::jobs.
std::vector<const PlanJob*>
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
double
Reserved(const PlanInstance& instance, uint32_t link, int64_t t)
{
    auto it = instance.reserved.find(link);
    return it == instance.reserved.end() ? 0.0 : it->second[t];
}

/// Earliest start of the collective after one that starts no earlier than
/// \p previous: horizon (deferred) once the chain is past the horizon.
int64_t
ChainEarliest(const PlanInstance& instance,
              const PlanJob& job,
              uint32_t index,
              int64_t previousStart)
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
    const int64_t after = previousStart + job.collectives[index - 1].duration + job.computeSlots;
    return std::min(std::max(c.readySlot, after), instance.horizon);
}

/// Whether \p c fits in an empty plan starting at slot \p s < horizon (the
/// reservations alone leave room for it on every link and slot it runs in).
bool
FitsAlone(const PlanInstance& instance, const PlanCollective& c, int64_t s)
{
    const int64_t end = std::min(s + c.duration, instance.horizon);
    for (const auto& [link, u] : c.usage)
    {
        for (int64_t t = s; t < end; ++t)
        {
            if (Reserved(instance, link, t) + u > 1.0 + kCapacityTolerance)
            {
                return false;
            }
        }
    }
    return true;
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
                for (const auto& [link, u] : c.usage)
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

    /// Whether \p c fits when started at \p s < horizon.
    bool Fits(const PlanCollective& c, int64_t s) const
    {
        const int64_t end = std::min(s + c.duration, m_horizon);
        for (const auto& [link, u] : c.usage)
        {
            const std::vector<double>& taken = m_taken.at(link);
            for (int64_t t = s; t < end; ++t)
            {
                if (taken[t] + u > 1.0 + kCapacityTolerance)
                {
                    return false;
                }
            }
        }
        return true;
    }

    /// Take the capacity of \p c started at \p s < horizon; returns what to
    /// hand to Restore() to undo it exactly.
    std::vector<std::pair<double*, double>> Take(const PlanCollective& c, int64_t s)
    {
        std::vector<std::pair<double*, double>> undo;
        const int64_t end = std::min(s + c.duration, m_horizon);
        for (const auto& [link, u] : c.usage)
        {
            std::vector<double>& taken = m_taken.at(link);
            for (int64_t t = s; t < end; ++t)
            {
                undo.emplace_back(&taken[t], taken[t]);
                taken[t] += u;
            }
        }
        return undo;
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

/// The MILP with, per collective, its start slots and their variables.
struct IndexedModel
{
    MilpModel model;
    /// (job id, index) -> (start slot, variable index), increasing slots,
    /// the last one the deferred slot = horizon.
    std::map<Key, std::vector<std::pair<int64_t, std::size_t>>> starts;
};

IndexedModel
Build(const PlanInstance& instance)
{
    instance.Validate();
    const int64_t horizon = instance.horizon;
    IndexedModel im;
    MilpModel& m = im.model;

    struct OnLink
    {
        double usage;
        int64_t duration;
        const std::vector<std::pair<int64_t, std::size_t>>* starts;
    };

    std::map<uint32_t, std::vector<OnLink>> onLink;
    for (const PlanJob* job : JobsById(instance))
    {
        // First start slot that can hold collective k-1 (horizon if none).
        int64_t previousFirst = 0;
        for (uint32_t k = 0; k < job->collectives.size(); ++k)
        {
            const PlanCollective& c = job->collectives[k];
            const std::string tag = "_j" + std::to_string(job->id) + "_k" + std::to_string(k);
            auto& starts = im.starts[{job->id, k}];
            const int64_t earliest = ChainEarliest(instance, *job, k, previousFirst);
            for (int64_t s = earliest; s <= horizon; ++s)
            {
                // Slots where the reservations leave no room even for c alone
                // get no variable.
                if (s == horizon || FitsAlone(instance, c, s))
                {
                    starts.emplace_back(s, m.AddBinary("x" + tag + "_s" + std::to_string(s)));
                }
            }
            previousFirst = starts.front().first;

            std::vector<MilpModel::Term> one;
            for (const auto& [s, var] : starts)
            {
                one.push_back({var, 1.0});
                m.AddObjectiveTerm(var, c.weight * static_cast<double>(s + c.duration));
            }
            m.AddConstraint("one" + tag, std::move(one), MilpModel::Sense::EQUAL, 1.0);

            if (k > 0 && starts.size() > 1)
            {
                // start_k - start_{k-1} + gap x_k[horizon] >= gap: the chaining,
                // lifted when k is deferred (start_{k-1} <= horizon always).
                const double gap =
                    static_cast<double>(job->collectives[k - 1].duration + job->computeSlots);
                std::vector<MilpModel::Term> chain;
                for (const auto& [s, var] : starts)
                {
                    const double coef = static_cast<double>(s) + (s == horizon ? gap : 0.0);
                    if (coef != 0.0)
                    {
                        chain.push_back({var, coef});
                    }
                }
                for (const auto& [s, var] : im.starts[{job->id, k - 1}])
                {
                    if (s != 0)
                    {
                        chain.push_back({var, -static_cast<double>(s)});
                    }
                }
                m.AddConstraint("chain" + tag,
                                std::move(chain),
                                MilpModel::Sense::GREATER_EQUAL,
                                gap);
            }

            if (starts.size() > 1)
            {
                for (const auto& [link, u] : c.usage)
                {
                    onLink[link].push_back({u, c.duration, &starts});
                }
            }
        }
    }

    for (const auto& [link, list] : onLink)
    {
        for (int64_t t = 0; t < horizon; ++t)
        {
            // A collective runs in slot t if it starts in (t - duration, t].
            std::vector<MilpModel::Term> terms;
            double possible = 0.0;
            for (const OnLink& o : list)
            {
                bool any = false;
                for (const auto& [s, var] : *o.starts)
                {
                    if (s > t - o.duration && s <= t && s < horizon)
                    {
                        terms.push_back({var, o.usage});
                        any = true;
                    }
                }
                possible += any ? o.usage : 0.0;
            }
            const double room = 1.0 - Reserved(instance, link, t);
            // One start per collective: a row whose collectives all fit at
            // once can never bind.
            if (possible <= room + kCapacityTolerance)
            {
                continue;
            }
            m.AddConstraint("cap_l" + std::to_string(link) + "_t" + std::to_string(t),
                            std::move(terms),
                            MilpModel::Sense::LESS_EQUAL,
                            room);
        }
    }
    return im;
}

/// Throws std::logic_error unless \p plan passes CheckPlan.
void
Verify(const PlanInstance& instance, const Plan& plan)
{
    std::string why;
    if (!CheckPlan(instance, plan, &why))
    {
        throw std::logic_error("epoch-plan: " + plan.method + " plan is infeasible: " + why);
    }
}

} // namespace

void
PlanInstance::Validate() const
{
    if (horizon < 1)
    {
        Fail("field horizon must be >= 1, got " + std::to_string(horizon));
    }
    std::set<uint32_t> ids;
    for (const auto& job : jobs)
    {
        const std::string j = "job " + std::to_string(job.id);
        if (!ids.insert(job.id).second)
        {
            Fail(j + ": duplicate job id");
        }
        if (job.computeSlots < 0)
        {
            Fail(j + ": field computeSlots must be >= 0, got " + std::to_string(job.computeSlots));
        }
        for (uint32_t k = 0; k < job.collectives.size(); ++k)
        {
            const PlanCollective& c = job.collectives[k];
            const std::string w = Where(job.id, k);
            if (c.readySlot < 0)
            {
                Fail(w + ": field readySlot must be >= 0, got " + std::to_string(c.readySlot));
            }
            if (c.duration < 1)
            {
                Fail(w + ": field duration must be >= 1, got " + std::to_string(c.duration));
            }
            if (!(c.weight > 0.0) || !std::isfinite(c.weight))
            {
                Fail(w + ": field weight must be finite and > 0, got " + FormatReal(c.weight));
            }
            for (const auto& [link, u] : c.usage)
            {
                if (!(u > 0.0 && u <= 1.0))
                {
                    Fail(w + ": field usage of link " + std::to_string(link) +
                         " must be in (0, 1], got " + FormatReal(u));
                }
            }
        }
    }
    for (const auto& [link, values] : reserved)
    {
        const std::string l = "field reserved of link " + std::to_string(link);
        if (static_cast<int64_t>(values.size()) != horizon)
        {
            Fail(l + ": has " + std::to_string(values.size()) + " values for horizon " +
                 std::to_string(horizon));
        }
        for (std::size_t t = 0; t < values.size(); ++t)
        {
            if (!(values[t] >= 0.0 && values[t] <= 1.0))
            {
                Fail(l + " slot " + std::to_string(t) + ": must be in [0, 1], got " +
                     FormatReal(values[t]));
            }
        }
    }
}

double
PlanObjective(const PlanInstance& instance, const Plan& plan)
{
    double sum = 0.0;
    for (const auto& job : instance.jobs)
    {
        for (uint32_t k = 0; k < job.collectives.size(); ++k)
        {
            auto it = plan.start.find({job.id, k});
            if (it == plan.start.end())
            {
                Fail("plan has no start for " + Where(job.id, k));
            }
            const PlanCollective& c = job.collectives[k];
            sum += c.weight * static_cast<double>(it->second + c.duration);
        }
    }
    return sum;
}

bool
CheckPlan(const PlanInstance& instance, const Plan& plan, std::string* why)
{
    instance.Validate();
    auto report = [why](const std::string& text) {
        if (why)
        {
            *why = text;
        }
        return false;
    };
    const int64_t horizon = instance.horizon;
    std::size_t count = 0;
    // link -> usage per slot, reservations included
    std::map<uint32_t, std::vector<double>> load;
    for (const auto& job : instance.jobs)
    {
        for (uint32_t k = 0; k < job.collectives.size(); ++k)
        {
            const PlanCollective& c = job.collectives[k];
            const std::string w = Where(job.id, k);
            auto it = plan.start.find({job.id, k});
            if (it == plan.start.end())
            {
                return report(w + " has no start");
            }
            ++count;
            const int64_t s = it->second;
            if (s == horizon)
            {
                continue; // deferred: always allowed, uses nothing
            }
            if (s > horizon)
            {
                return report(w + " starts at " + std::to_string(s) + ", past the horizon " +
                              std::to_string(horizon));
            }
            if (s < c.readySlot)
            {
                return report(w + " starts at " + std::to_string(s) + " before its ready slot " +
                              std::to_string(c.readySlot));
            }
            if (k > 0)
            {
                auto prev = plan.start.find({job.id, k - 1});
                if (prev == plan.start.end())
                {
                    return report(Where(job.id, k - 1) + " has no start");
                }
                const int64_t free =
                    prev->second + job.collectives[k - 1].duration + job.computeSlots;
                if (s < free)
                {
                    return report(w + " starts at " + std::to_string(s) + " before slot " +
                                  std::to_string(free) + " (collective " + std::to_string(k - 1) +
                                  " starts at " + std::to_string(prev->second) + ", runs " +
                                  std::to_string(job.collectives[k - 1].duration) +
                                  ", then compute " + std::to_string(job.computeSlots) + ")");
                }
            }
            for (const auto& [link, u] : c.usage)
            {
                auto& slots = load[link];
                slots.resize(horizon, 0.0);
                for (int64_t t = s; t < std::min(s + c.duration, horizon); ++t)
                {
                    slots[t] += u;
                }
            }
        }
    }
    if (count != plan.start.size())
    {
        for (const auto& [key, s] : plan.start)
        {
            bool known = false;
            for (const auto& job : instance.jobs)
            {
                known = known || (job.id == key.first && key.second < job.collectives.size());
            }
            if (!known)
            {
                return report("plan places unknown " + Where(key.first, key.second));
            }
        }
    }
    for (const auto& [link, slots] : load)
    {
        for (int64_t t = 0; t < horizon; ++t)
        {
            const double reserved = Reserved(instance, link, t);
            if (reserved + slots[t] > 1.0 + kCapacityTolerance)
            {
                return report("link " + std::to_string(link) + " slot " + std::to_string(t) +
                              ": reserved " + FormatReal(reserved) + " + used " +
                              FormatReal(slots[t]) + " > 1");
            }
        }
    }
    if (why)
    {
        why->clear();
    }
    return true;
}

std::map<uint32_t, std::vector<double>>
PlanUsage(const PlanInstance& instance, const Plan& plan)
{
    const int64_t horizon = instance.horizon;
    std::map<uint32_t, std::vector<double>> usage;
    for (const auto& job : instance.jobs)
    {
        for (uint32_t k = 0; k < job.collectives.size(); ++k)
        {
            const PlanCollective& c = job.collectives[k];
            auto it = plan.start.find({job.id, k});
            if (it == plan.start.end())
            {
                Fail("plan has no start for " + Where(job.id, k));
            }
            for (const auto& [link, u] : c.usage)
            {
                auto& slots = usage[link];
                slots.resize(horizon, 0.0);
                for (int64_t t = std::max<int64_t>(it->second, 0);
                     t < std::min(it->second + c.duration, horizon);
                     ++t)
                {
                    slots[t] += u;
                }
            }
        }
    }
    return usage;
}

MilpModel
BuildPlanModel(const PlanInstance& instance)
{
    return Build(instance).model;
}

Plan
SolvePlan(const PlanInstance& instance, const MilpSolver& solver, const MilpSolveOptions& options)
{
    Plan greedy = GreedyPlan(instance);
    IndexedModel im = Build(instance);
    const std::size_t n = im.model.GetNumVariables();

    MilpSolveOptions opts = options;
    opts.warmStart.assign(n, 0.0);
    for (const auto& [key, starts] : im.starts)
    {
        const int64_t s = greedy.start.at(key);
        auto it = std::find_if(starts.begin(), starts.end(), [s](const auto& sv) {
            return sv.first == s;
        });
        if (it == starts.end())
        {
            throw std::logic_error("epoch-plan: greedy start " + std::to_string(s) + " of " +
                                   Where(key.first, key.second) + " has no model variable");
        }
        opts.warmStart[it->second] = 1.0;
    }

    MilpResult result = solver.Solve(im.model, opts);
    if (!result.HasSolution())
    {
        greedy.solve = std::move(result);
        Verify(instance, greedy);
        return greedy;
    }
    if (result.values.size() != n)
    {
        throw std::logic_error("epoch-plan: solver returned " +
                               std::to_string(result.values.size()) + " values for " +
                               std::to_string(n) + " variables");
    }

    Plan plan;
    plan.method = "milp";
    for (const auto& [key, starts] : im.starts)
    {
        // argmax: the first start with the largest value
        auto best = starts.begin();
        for (auto it = starts.begin(); it != starts.end(); ++it)
        {
            if (result.values[it->second] > result.values[best->second])
            {
                best = it;
            }
        }
        plan.start[key] = best->first;
    }
    plan.objective = PlanObjective(instance, plan);
    plan.proven = result.status == MilpStatus::OPTIMAL;
    Verify(instance, plan);
    if (std::fabs(plan.objective - result.objective) >
        1e-6 * std::max(1.0, std::fabs(plan.objective)))
    {
        throw std::logic_error("epoch-plan: solver objective " + FormatReal(result.objective) +
                               " differs from the decoded plan's " + FormatReal(plan.objective));
    }
    plan.solve = std::move(result);
    return plan;
}

Plan
GreedyPlan(const PlanInstance& instance)
{
    instance.Validate();
    const int64_t horizon = instance.horizon;
    const std::vector<const PlanJob*> jobs = JobsById(instance);
    Ledger ledger(instance);
    std::vector<uint32_t> next(jobs.size(), 0);
    std::vector<int64_t> previousStart(jobs.size(), 0);

    Plan plan;
    plan.method = "greedy";
    while (true)
    {
        // Smith's rule over the next collective of each job: the largest
        // weight / duration first (cross-multiplied), ties by job id.
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
            if (a.weight * static_cast<double>(b.duration) >
                b.weight * static_cast<double>(a.duration))
            {
                pick = j;
            }
        }
        if (pick == jobs.size())
        {
            break;
        }
        const PlanJob& job = *jobs[pick];
        const uint32_t k = next[pick];
        const PlanCollective& c = job.collectives[k];
        int64_t start = horizon;
        for (int64_t s = ChainEarliest(instance, job, k, previousStart[pick]); s < horizon; ++s)
        {
            if (ledger.Fits(c, s))
            {
                start = s;
                ledger.Take(c, s);
                break;
            }
        }
        plan.start[{job.id, k}] = start;
        previousStart[pick] = start;
        ++next[pick];
    }
    plan.objective = PlanObjective(instance, plan);
    return plan;
}

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
    // Number of start vectors that respect ready slots and chaining,
    // counted per job from its last collective back, saturating.
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
        // ways[s]: completions of collectives k+1.. after collective k starts at s.
        std::vector<uint64_t> ways(horizon + 1, 1);
        for (uint32_t k = n - 1; k >= 1; --k)
        {
            // suffix[s] = sum of ways over starts s..horizon of collective k
            std::vector<uint64_t> suffix(horizon + 2, 0);
            for (int64_t s = horizon; s >= 0; --s)
            {
                suffix[s] = std::min(cap, suffix[s + 1] + ways[s]);
            }
            std::vector<uint64_t> before(horizon + 1);
            for (int64_t s = 0; s <= horizon; ++s)
            {
                before[s] = suffix[ChainEarliest(instance, *job, k, s)];
            }
            ways = std::move(before);
        }
        uint64_t total = 0;
        for (int64_t s = ChainEarliest(instance, *job, 0, 0); s <= horizon; ++s)
        {
            total = std::min(cap, total + ways[s]);
        }
        combinations = mul(combinations, total);
    }
    if (combinations > maxCombinations)
    {
        Fail("brute force would enumerate more than " + std::to_string(maxCombinations) +
             " start vectors");
    }

    // Lower bound on the objective of items i.. (each at its earliest start
    // from the ready slots alone), to cut branches that cannot win.
    std::vector<double> restBound(items.size() + 1, 0.0);
    {
        std::vector<int64_t> earliest(items.size());
        for (std::size_t i = 0; i < items.size(); ++i)
        {
            const Item& it = items[i];
            earliest[i] =
                ChainEarliest(instance, *it.job, it.index, it.index == 0 ? 0 : earliest[i - 1]);
        }
        for (std::size_t i = items.size(); i-- > 0;)
        {
            const PlanCollective& c = items[i].job->collectives[items[i].index];
            restBound[i] =
                restBound[i + 1] + c.weight * static_cast<double>(earliest[i] + c.duration);
        }
    }

    Ledger ledger(instance);
    std::vector<int64_t> starts(items.size(), 0);
    std::vector<int64_t> best;
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
            bestObjective = partial;
            return;
        }
        const Item& it = items[i];
        const PlanCollective& c = it.job->collectives[it.index];
        const int64_t lo =
            ChainEarliest(instance, *it.job, it.index, it.index == 0 ? 0 : starts[i - 1]);
        for (int64_t s = lo; s <= horizon; ++s)
        {
            const double value = partial + c.weight * static_cast<double>(s + c.duration);
            starts[i] = s;
            if (s == horizon)
            {
                search(i + 1, value);
            }
            else if (ledger.Fits(c, s))
            {
                const auto undo = ledger.Take(c, s);
                search(i + 1, value);
                Ledger::Restore(undo);
            }
        }
    };
    search(0, 0.0);

    Plan plan;
    plan.method = "brute-force";
    plan.proven = true;
    for (std::size_t i = 0; i < items.size(); ++i)
    {
        plan.start[{items[i].job->id, items[i].index}] = best[i];
    }
    plan.objective = PlanObjective(instance, plan);
    return plan;
}

} // namespace ns3
