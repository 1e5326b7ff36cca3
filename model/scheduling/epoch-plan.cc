/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "epoch-plan.h"

#include "epoch-plan-internal.h"

#include "ns3/unit-strings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

using namespace epoch_plan;

namespace
{

std::string
Where(uint32_t job, uint32_t index)
{
    return "job " + std::to_string(job) + " collective " + std::to_string(index);
}

/// Whether \p c on route \p r fits in an empty plan starting at slot \p s <
/// horizon (the reservations alone leave room for it on every link and slot
/// it runs in).
bool
FitsAlone(const PlanInstance& instance, const PlanCollective& c, uint32_t r, int64_t s)
{
    bool fits = true;
    c.ForEachUse(r, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
        const int64_t end = std::min(s + e, instance.horizon);
        for (const auto& [link, u] : usage)
        {
            for (int64_t t = s + b; fits && t < end; ++t)
            {
                fits = Reserved(instance, link, t) + u <= 1.0 + kCapacityTolerance;
            }
        }
    });
    return fits;
}

/// Add \p c's use of its links on route \p r, started at slot \p s, to \p load
/// (link -> a value per slot of the horizon).
void
AddUse(std::map<uint32_t, std::vector<double>>& load,
       const PlanCollective& c,
       uint32_t r,
       int64_t s,
       int64_t horizon)
{
    c.ForEachUse(r, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
        for (const auto& [link, u] : usage)
        {
            auto& slots = load[link];
            slots.resize(horizon, 0.0);
            for (int64_t t = std::max<int64_t>(s + b, 0); t < std::min(s + e, horizon); ++t)
            {
                slots[t] += u;
            }
        }
    });
}

/// \throw std::invalid_argument (naming \p where) unless \p segments are
/// disjoint, in order, within [0, \p reach), with usages in (0, 1], and
/// \p peak is each link's largest usage among them (if there are any).
void
ValidateSegments(const std::vector<PlanSegment>& segments,
                 const std::map<uint32_t, double>& peak,
                 int64_t reach,
                 const std::string& where)
{
    int64_t previousEnd = 0;
    for (std::size_t i = 0; i < segments.size(); ++i)
    {
        const PlanSegment& seg = segments[i];
        const std::string w = where + " segment " + std::to_string(i);
        if (seg.begin < previousEnd || seg.end <= seg.begin || seg.end > reach)
        {
            Fail(w + ": slots [" + std::to_string(seg.begin) + ", " + std::to_string(seg.end) +
                 ") must follow the previous segment's end " + std::to_string(previousEnd) +
                 " and end by the duration plus the job's compute, " + std::to_string(reach));
        }
        previousEnd = seg.end;
        for (const auto& [link, u] : seg.usage)
        {
            if (!(u > 0.0 && u <= 1.0))
            {
                Fail(w + ": field usage of link " + std::to_string(link) +
                     " must be in (0, 1], got " + FormatReal(u));
            }
        }
    }
    if (!segments.empty() && PeakUsage(segments) != peak)
    {
        Fail(where + ": field usage must be each link's largest segment usage (PeakUsage)");
    }
}

/// One choice of a collective in the MILP: a start slot on a route, and its variable.
struct Choice
{
    int64_t slot;    ///< start slot; horizon = deferred
    uint32_t route;  ///< route index (0 when deferred)
    std::size_t var; ///< variable index in the model
};

/// The MILP with, per collective, its choices and their variables.
struct IndexedModel
{
    MilpModel model;
    /// (job id, index) -> choices by route then slot, the last one the
    /// deferred slot = horizon.
    std::map<Key, std::vector<Choice>> choices;
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
        int64_t begin; ///< its use from slot start + begin
        int64_t end;   ///< to start + end
        const Choice* choice;
        std::size_t collective; ///< a number unique to the collective
    };

    std::map<uint32_t, std::vector<OnLink>> onLink;
    std::size_t collectiveNumber = 0;
    for (const PlanJob* job : JobsById(instance))
    {
        // First start slot that can hold collective k-1 (horizon if none),
        // and the shortest duration it can have.
        int64_t previousFirst = 0;
        int64_t previousShortest = 0;
        for (uint32_t k = 0; k < job->collectives.size(); ++k, ++collectiveNumber)
        {
            const PlanCollective& c = job->collectives[k];
            const std::string tag = "_j" + std::to_string(job->id) + "_k" + std::to_string(k);
            auto& choices = im.choices[{job->id, k}];
            const int64_t earliest =
                ChainEarliest(instance, *job, k, previousFirst, previousShortest);
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                const std::string routeTag = r == 0 ? "" : "_r" + std::to_string(r);
                for (int64_t s = earliest; s < horizon; ++s)
                {
                    // Slots where the reservations leave no room even for c
                    // alone on this route get no variable.
                    if (FitsAlone(instance, c, r, s))
                    {
                        choices.push_back(
                            {s, r, m.AddBinary("x" + tag + routeTag + "_s" + std::to_string(s))});
                    }
                }
            }
            choices.push_back(
                {horizon, 0, m.AddBinary("x" + tag + "_s" + std::to_string(horizon))});
            previousFirst = horizon;
            for (const Choice& ch : choices)
            {
                previousFirst = std::min(previousFirst, ch.slot);
            }
            previousShortest = ShortestDuration(c);

            std::vector<MilpModel::Term> one;
            for (const Choice& ch : choices)
            {
                one.push_back({ch.var, 1.0});
                m.AddObjectiveTerm(ch.var,
                                   c.weight * static_cast<double>(ch.slot + c.Duration(ch.route)));
            }
            m.AddConstraint("one" + tag, std::move(one), MilpModel::Sense::EQUAL, 1.0);

            if (k > 0 && choices.size() > 1)
            {
                // start_k - (start_{k-1} + duration_{k-1}) + gap x_k[horizon] >= compute:
                // the chaining, lifted when k is deferred by gap = the longest
                // duration of k-1 + compute (start_{k-1} <= horizon always).
                const PlanCollective& p = job->collectives[k - 1];
                int64_t longest = p.duration;
                for (const PlanRoute& r : p.alternatives)
                {
                    longest = std::max(longest, r.duration);
                }
                const double gap = static_cast<double>(longest + job->computeSlots);
                std::map<std::size_t, double> coefs;
                for (const Choice& ch : choices)
                {
                    coefs[ch.var] +=
                        static_cast<double>(ch.slot) + (ch.slot == horizon ? gap : 0.0);
                }
                for (const Choice& ch : im.choices[{job->id, k - 1}])
                {
                    coefs[ch.var] -= static_cast<double>(ch.slot + p.Duration(ch.route));
                }
                std::vector<MilpModel::Term> chain;
                for (const auto& [var, coef] : coefs)
                {
                    if (coef != 0.0)
                    {
                        chain.push_back({var, coef});
                    }
                }
                m.AddConstraint("chain" + tag,
                                std::move(chain),
                                MilpModel::Sense::GREATER_EQUAL,
                                static_cast<double>(job->computeSlots));
            }

            if (choices.size() > 1)
            {
                for (const Choice& ch : choices)
                {
                    if (ch.slot == horizon)
                    {
                        continue;
                    }
                    c.ForEachUse(
                        ch.route,
                        [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
                            for (const auto& [link, u] : usage)
                            {
                                onLink[link].push_back({u, b, e, &ch, collectiveNumber});
                            }
                        });
                }
            }
        }
    }

    for (const auto& [link, list] : onLink)
    {
        for (int64_t t = 0; t < horizon; ++t)
        {
            // A use covers slot t if it starts in (t - end, t - begin].
            std::vector<MilpModel::Term> terms;
            std::map<std::size_t, double> most; // collective -> its largest usage here
            for (const OnLink& o : list)
            {
                const int64_t s = o.choice->slot;
                if (s > t - o.end && s <= t - o.begin)
                {
                    terms.push_back({o.choice->var, o.usage});
                    double& u = most[o.collective];
                    u = std::max(u, o.usage);
                }
            }
            double possible = 0.0;
            for (const auto& [collective, u] : most)
            {
                possible += u;
            }
            const double room = 1.0 - Reserved(instance, link, t);
            // One choice per collective: a row whose collectives all fit at
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
        if (job.exactComputeSlots > static_cast<double>(job.computeSlots))
        {
            Fail(j + ": field exactComputeSlots must be <= computeSlots, got " +
                 FormatReal(job.exactComputeSlots));
        }
        for (uint32_t k = 0; k < job.collectives.size(); ++k)
        {
            const PlanCollective& c = job.collectives[k];
            const std::string w = Where(job.id, k);
            if (c.readySlot < 0)
            {
                Fail(w + ": field readySlot must be >= 0, got " + std::to_string(c.readySlot));
            }
            if (!(c.weight > 0.0) || !std::isfinite(c.weight))
            {
                Fail(w + ": field weight must be finite and > 0, got " + FormatReal(c.weight));
            }
            if (c.exactReady > static_cast<double>(c.readySlot))
            {
                Fail(w + ": field exactReady must be <= readySlot, got " +
                     FormatReal(c.exactReady));
            }
            if (c.jointRoute < -1 || c.jointRoute >= static_cast<int32_t>(c.Routes()))
            {
                Fail(w + ": field jointRoute must be -1 or a route, got " +
                     std::to_string(c.jointRoute));
            }
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                const std::string wr = r == 0 ? w : w + " route " + std::to_string(r);
                if (c.Duration(r) < 1)
                {
                    Fail(wr + ": field duration must be >= 1, got " +
                         std::to_string(c.Duration(r)));
                }
                const double exact = c.ExactDuration(r);
                if (!(exact > 0.0 && exact <= static_cast<double>(c.Duration(r))))
                {
                    Fail(wr + ": field exactDuration must be in (0, duration], got " +
                         FormatReal(exact));
                }
                for (const auto& [link, u] : c.Usage(r))
                {
                    if (!(u > 0.0 && u <= 1.0))
                    {
                        Fail(wr + ": field usage of link " + std::to_string(link) +
                             " must be in (0, 1], got " + FormatReal(u));
                    }
                }
                ValidateSegments(c.Segments(r), c.Usage(r), c.Duration(r) + job.computeSlots, wr);
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
            const uint32_t r = plan.RouteOf(job.id, k);
            if (r >= c.Routes())
            {
                Fail("plan gives " + Where(job.id, k) + " route " + std::to_string(r) + " of " +
                     std::to_string(c.Routes()));
            }
            sum += c.weight * static_cast<double>(it->second + c.Duration(r));
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
            const uint32_t r = plan.RouteOf(job.id, k);
            if (r >= c.Routes())
            {
                return report(w + " takes route " + std::to_string(r) + " of " +
                              std::to_string(c.Routes()));
            }
            if (s == horizon)
            {
                if (r != 0)
                {
                    return report(w + " is deferred on route " + std::to_string(r) +
                                  " (deferred collectives take route 0)");
                }
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
                const PlanCollective& p = job.collectives[k - 1];
                const uint32_t pr = plan.RouteOf(job.id, k - 1);
                const int64_t ran = pr < p.Routes() ? p.Duration(pr) : p.duration;
                const int64_t free = prev->second + ran + job.computeSlots;
                if (s < free)
                {
                    return report(w + " starts at " + std::to_string(s) + " before slot " +
                                  std::to_string(free) + " (collective " + std::to_string(k - 1) +
                                  " starts at " + std::to_string(prev->second) + ", runs " +
                                  std::to_string(ran) + ", then compute " +
                                  std::to_string(job.computeSlots) + ")");
                }
            }
            AddUse(load, c, r, s, horizon);
        }
    }
    for (const auto& [key, r] : plan.route)
    {
        if (plan.start.count(key) == 0)
        {
            return report("plan routes unplaced " + Where(key.first, key.second));
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
            AddUse(usage, c, plan.RouteOf(job.id, k), it->second, horizon);
        }
    }
    return usage;
}

std::map<uint32_t, double>
PeakUsage(const std::vector<PlanSegment>& segments)
{
    std::map<uint32_t, double> peak;
    for (const PlanSegment& seg : segments)
    {
        for (const auto& [link, u] : seg.usage)
        {
            double& p = peak[link];
            p = std::max(p, u);
        }
    }
    return peak;
}

MilpModel
BuildPlanModel(const PlanInstance& instance)
{
    return Build(instance).model;
}

Plan
SolvePlan(const PlanInstance& instance,
          const MilpSolver& solver,
          const MilpSolveOptions& options,
          const Plan* start)
{
    Plan initial = start != nullptr && CheckPlan(instance, *start) ? *start : GreedyPlan(instance);
    initial.objective = PlanObjective(instance, initial);
    initial.proven = false;
    IndexedModel im = Build(instance);
    const std::size_t n = im.model.GetNumVariables();

    MilpSolveOptions opts = options;
    opts.warmStart.assign(n, 0.0);
    for (const auto& [key, choices] : im.choices)
    {
        const int64_t s = initial.start.at(key);
        const uint32_t r = initial.RouteOf(key.first, key.second);
        auto it = std::find_if(choices.begin(), choices.end(), [s, r](const Choice& ch) {
            return ch.slot == s && ch.route == r;
        });
        if (it == choices.end())
        {
            throw std::logic_error("epoch-plan: " + initial.method + " start " + std::to_string(s) +
                                   " on route " + std::to_string(r) + " of " +
                                   Where(key.first, key.second) + " has no model variable");
        }
        opts.warmStart[it->var] = 1.0;
    }

    MilpResult result = solver.Solve(im.model, opts);
    if (!result.HasSolution())
    {
        initial.solve = std::move(result);
        Verify(instance, initial);
        return initial;
    }
    if (result.values.size() != n)
    {
        throw std::logic_error("epoch-plan: solver returned " +
                               std::to_string(result.values.size()) + " values for " +
                               std::to_string(n) + " variables");
    }

    Plan plan;
    plan.method = "milp";
    for (const auto& [key, choices] : im.choices)
    {
        // argmax: the first choice with the largest value
        auto best = choices.begin();
        for (auto it = choices.begin(); it != choices.end(); ++it)
        {
            if (result.values[it->var] > result.values[best->var])
            {
                best = it;
            }
        }
        plan.start[key] = best->slot;
        if (best->route != 0)
        {
            plan.route[key] = best->route;
        }
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

std::vector<PlanSegment>
SegmentsOfSlots(const std::vector<std::map<uint32_t, double>>& bySlot)
{
    std::vector<PlanSegment> segments;
    for (int64_t t = 0; t < static_cast<int64_t>(bySlot.size()); ++t)
    {
        std::map<uint32_t, double> u;
        for (const auto& [link, x] : bySlot[t])
        {
            if (x > 1e-9)
            {
                u[link] = std::min(1.0, x);
            }
        }
        if (u.empty())
        {
            continue;
        }
        if (!segments.empty() && segments.back().end == t && segments.back().usage == u)
        {
            ++segments.back().end;
            continue;
        }
        segments.push_back({t, t + 1, std::move(u)});
    }
    return segments;
}

Plan
GreedyPlan(const PlanInstance& instance)
{
    instance.Validate();
    const int64_t horizon = instance.horizon;
    Ledger ledger(instance);
    Plan plan;
    plan.method = "greedy";
    PlaceInSmithsOrder(instance, ledger, plan, [&](const PlanCollective& c, int64_t earliest) {
        // The route and slot that finish first (ties: the lower route).
        int64_t start = horizon;
        uint32_t route = 0;
        int64_t finish = std::numeric_limits<int64_t>::max();
        for (uint32_t r = 0; r < c.Routes(); ++r)
        {
            for (int64_t s = earliest; s < horizon && s + c.Duration(r) < finish; ++s)
            {
                if (ledger.Fits(c, r, s))
                {
                    start = s;
                    route = r;
                    finish = s + c.Duration(r);
                    break;
                }
            }
        }
        return std::make_pair(start, route);
    });
    plan.objective = PlanObjective(instance, plan);
    return plan;
}

} // namespace ns3
