/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "harmonics-planner.h"

#include "epoch-plan-internal.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

namespace ns3
{

using namespace epoch_plan;

namespace
{

double
MicrosecondsSince(std::chrono::steady_clock::time_point begin)
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin)
        .count();
}

/// \p base plus \p usage, capped at 1 (vectors of \p horizon values).
void
AddUsage(std::map<uint32_t, std::vector<double>>& base,
         const std::map<uint32_t, std::vector<double>>& usage,
         int64_t horizon)
{
    for (const auto& [link, u] : usage)
    {
        auto& r = base[link];
        r.resize(horizon, 0.0);
        for (int64_t t = 0; t < horizon && t < static_cast<int64_t>(u.size()); ++t)
        {
            r[t] = std::min(1.0, r[t] + u[t]);
        }
    }
}

/// The reservations of \p all on the links \p part's collectives may use.
std::map<uint32_t, std::vector<double>>
Restrict(const std::map<uint32_t, std::vector<double>>& all, const PlanInstance& part)
{
    std::map<uint32_t, std::vector<double>> out;
    for (const PlanJob& j : part.jobs)
    {
        for (const PlanCollective& c : j.collectives)
        {
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                for (const auto& [link, u] : c.Usage(r))
                {
                    auto it = all.find(link);
                    if (it != all.end())
                    {
                        out.emplace(link, it->second);
                    }
                }
            }
        }
    }
    return out;
}

/// Slots of \p slot from \p origin to \p t (t >= origin), rounded down and up.
std::pair<int64_t, int64_t>
SlotsFrom(Time origin, Time t, Time slot)
{
    const int64_t d = (t - origin).GetTimeStep();
    const int64_t l = slot.GetTimeStep();
    return {d / l, (d + l - 1) / l};
}

/**
 * \p prefix completed into a plan of \p part: each job's placements of
 * \p prefix in chain order while they fit (every job's before any other
 * placement), then each job's remaining collectives, in job order, on the
 * route and at the slot that finish first among those that fit (deferred if
 * none), as GreedyPlan places them.
 */
Plan
Complete(const PlanInstance& part, const Plan& prefix)
{
    const std::vector<const PlanJob*> jobs = JobsById(part);
    Ledger ledger(part);
    std::vector<uint32_t> next(jobs.size(), 0);
    std::vector<int64_t> previousStart(jobs.size(), 0);
    std::vector<int64_t> previousDuration(jobs.size(), 0);
    Plan plan;
    plan.method = "carried";
    auto place = [&](std::size_t j, int64_t s, uint32_t r) {
        const PlanJob& job = *jobs[j];
        const PlanCollective& c = job.collectives[next[j]];
        if (s < part.horizon)
        {
            ledger.Take(c, r, s);
        }
        plan.start[{job.id, next[j]}] = s;
        if (r != 0)
        {
            plan.route[{job.id, next[j]}] = r;
        }
        previousStart[j] = s;
        previousDuration[j] = c.Duration(r);
        ++next[j];
    };
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        const PlanJob& job = *jobs[j];
        while (next[j] < job.collectives.size())
        {
            const Key key{job.id, next[j]};
            auto it = prefix.start.find(key);
            if (it == prefix.start.end())
            {
                break;
            }
            const PlanCollective& c = job.collectives[next[j]];
            const uint32_t r = prefix.RouteOf(key.first, key.second);
            const int64_t earliest =
                ChainEarliest(part, job, next[j], previousStart[j], previousDuration[j]);
            if (it->second >= part.horizon || it->second < earliest ||
                !ledger.Fits(c, r, it->second))
            {
                break;
            }
            place(j, it->second, r);
        }
    }
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        const PlanJob& job = *jobs[j];
        while (next[j] < job.collectives.size())
        {
            const PlanCollective& c = job.collectives[next[j]];
            const int64_t earliest =
                ChainEarliest(part, job, next[j], previousStart[j], previousDuration[j]);
            int64_t start = part.horizon;
            uint32_t route = 0;
            int64_t finish = std::numeric_limits<int64_t>::max();
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                for (int64_t s = earliest; s < part.horizon && s + c.Duration(r) < finish; ++s)
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
            place(j, start, route);
        }
    }
    plan.objective = PlanObjective(part, plan);
    return plan;
}

/**
 * Add to \p plan, after each job's collectives it places (a prefix of the
 * chain), those that no plan can start within the horizon: the first one not
 * placed and the rest of its chain, when its earliest start (its ready slot,
 * or the end of the placed one before it plus the job's compute) is at or
 * past the horizon. Such a deferral is no decision: a solve would make it too.
 * \return the number of collectives deferred
 */
uint32_t
DeferForced(const PlanInstance& part, Plan* plan)
{
    uint32_t count = 0;
    for (const PlanJob& job : part.jobs)
    {
        int64_t previousStart = 0;
        int64_t previousDuration = 0;
        uint32_t k = 0;
        for (; k < job.collectives.size(); ++k)
        {
            auto it = plan->start.find({job.id, k});
            if (it == plan->start.end())
            {
                break;
            }
            previousStart = it->second;
            previousDuration = job.collectives[k].Duration(plan->RouteOf(job.id, k));
        }
        if (k == job.collectives.size() ||
            ChainEarliest(part, job, k, previousStart, previousDuration) < part.horizon)
        {
            continue;
        }
        for (; k < job.collectives.size(); ++k)
        {
            plan->start[{job.id, k}] = part.horizon;
            ++count;
        }
    }
    return count;
}

} // namespace

bool
HarmonicsPlan::Proven() const
{
    if (globalJobs > 0)
    {
        return false;
    }
    return std::all_of(locals.begin(), locals.end(), [](const Local& l) {
        return l.solved && l.plan.proven;
    });
}

uint32_t
HarmonicsPlanner::MapPrevious(const PlanInstance& part,
                              const HarmonicsInput& input,
                              Plan* out,
                              std::map<std::pair<uint32_t, uint32_t>, Time>* exact) const
{
    uint32_t count = 0;
    for (const PlanJob& job : part.jobs)
    {
        auto placed = m_placed.find(job.id);
        if (placed == m_placed.end())
        {
            continue;
        }
        auto f = input.firstIteration.find(job.id);
        const uint32_t first = f == input.firstIteration.end() ? 0 : f->second;
        int64_t previousEnd = 0;
        for (uint32_t k = 0; k < job.collectives.size(); ++k)
        {
            auto it = placed->second.find(first + k);
            if (it == placed->second.end())
            {
                break;
            }
            const Placed& p = it->second;
            if (p.start < input.origin || p.length != input.slot * p.duration)
            {
                break; // its planned start has passed, or the grid changed
            }
            const int64_t s = SlotsFrom(input.origin, p.start, input.slot).second;
            const PlanCollective& c = job.collectives[k];
            if (s >= part.horizon || s < c.readySlot ||
                (k > 0 && s < previousEnd + job.computeSlots))
            {
                break;
            }
            uint32_t route = c.Routes();
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                if (c.Duration(r) == p.duration && c.Usage(r) == p.usage &&
                    c.Segments(r) == p.segments)
                {
                    route = r;
                    break;
                }
            }
            if (route == c.Routes())
            {
                break; // that route is no longer offered
            }
            out->start[{job.id, k}] = s;
            if (route != 0)
            {
                out->route[{job.id, k}] = route;
            }
            if (exact)
            {
                (*exact)[{job.id, k}] = p.start;
            }
            previousEnd = s + p.duration;
            ++count;
        }
    }
    return count;
}

HarmonicsPlan
HarmonicsPlanner::Replan(const PlanInstance& instance,
                         const HarmonicsInput& input,
                         const MilpSolver& solver,
                         const MilpSolveOptions& options)
{
    instance.Validate();
    if (!(input.slot > Time(0)))
    {
        throw std::invalid_argument("harmonics: field slot must be > 0");
    }
    const int64_t horizon = instance.horizon;
    // Split: a job is local to a rack when every rank of it is in that rack.
    PlanInstance global;
    global.horizon = horizon;
    std::map<int32_t, PlanInstance> local;
    for (const PlanJob& j : instance.jobs)
    {
        auto it = input.jobRack.find(j.id);
        if (it != input.jobRack.end() && it->second >= 0)
        {
            local[it->second].horizon = horizon;
            local[it->second].jobs.push_back(j);
        }
        else
        {
            global.jobs.push_back(j);
        }
    }

    HarmonicsPlan out;
    out.plan.method = "harmonics";
    // Racks that keep their previous plan; what they use is reserved for the coordinator.
    std::map<uint32_t, std::vector<double>> forCoordinator = instance.reserved;
    std::map<int32_t, std::string> why;
    for (auto& [rack, part] : local)
    {
        std::set<uint32_t> ids;
        for (const PlanJob& j : part.jobs)
        {
            ids.insert(j.id);
        }
        part.reserved = Restrict(instance.reserved, part);
        auto previous = m_rackJobs.find(rack);
        if (!m_planned)
        {
            why[rack] = "first";
            continue;
        }
        if (previous == m_rackJobs.end() || previous->second != ids)
        {
            why[rack] = "jobs";
            continue;
        }
        if (input.disturbed.count(rack) > 0)
        {
            why[rack] = "disturbed";
            continue;
        }
        HarmonicsPlan::Local l;
        l.rack = rack;
        l.jobs = static_cast<uint32_t>(part.jobs.size());
        l.solved = false;
        l.plan.method = "kept";
        std::map<std::pair<uint32_t, uint32_t>, Time> exact;
        const uint32_t mapped =
            MapPrevious(part, input, &l.plan, &exact) + DeferForced(part, &l.plan);
        uint32_t total = 0;
        for (const PlanJob& j : part.jobs)
        {
            total += static_cast<uint32_t>(j.collectives.size());
        }
        if (mapped != total || !CheckPlan(part, l.plan))
        {
            why[rack] = "changed";
            continue;
        }
        l.plan.objective = PlanObjective(part, l.plan);
        // The kept collectives take the slots their exact windows touch.
        std::map<uint32_t, std::vector<double>> usage;
        for (const PlanJob& j : part.jobs)
        {
            for (uint32_t k = 0; k < j.collectives.size(); ++k)
            {
                if (l.plan.start.at({j.id, k}) >= horizon)
                {
                    continue; // deferred
                }
                const PlanCollective& c = j.collectives[k];
                const uint32_t r = l.plan.RouteOf(j.id, k);
                const Time begin = exact.at({j.id, k});
                c.ForEachUse(r, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& use) {
                    const int64_t from =
                        SlotsFrom(input.origin, begin + input.slot * b, input.slot).first;
                    const int64_t to =
                        SlotsFrom(input.origin, begin + input.slot * e, input.slot).second;
                    for (const auto& [link, u] : use)
                    {
                        auto& slots = usage[link];
                        slots.resize(horizon, 0.0);
                        for (int64_t t = from; t < std::min(to, horizon); ++t)
                        {
                            slots[t] += u;
                        }
                    }
                });
            }
        }
        AddUsage(forCoordinator, usage, horizon);
        out.keptStart.insert(exact.begin(), exact.end());
        out.plan.start.insert(l.plan.start.begin(), l.plan.start.end());
        out.plan.route.insert(l.plan.route.begin(), l.plan.route.end());
        out.locals.push_back(std::move(l));
    }

    // Global Coordinator: the cross-rack collectives on the racks' aggregate uplinks.
    out.globalJobs = static_cast<uint32_t>(global.jobs.size());
    std::map<uint32_t, std::vector<double>> reserved = forCoordinator;
    auto begin = std::chrono::steady_clock::now();
    if (!global.jobs.empty())
    {
        global.reserved = Restrict(forCoordinator, global);
        CoordinatorPlan g = PlanCoordinator(global, input.uplinks);
        out.coordinatorChoices = g.choices;
        out.aggregate = std::move(g.aggregate);
        AddUsage(reserved, PlanUsage(global, g.plan), horizon);
        out.plan.start.insert(g.plan.start.begin(), g.plan.start.end());
        out.plan.route.insert(g.plan.route.begin(), g.plan.route.end());
    }
    out.coordinatorUs = MicrosecondsSince(begin);

    // Local Schedulers of the racks that changed: independent MILPs with the
    // coordinator's usage reserved, each warm-started from its previous plan.
    double slowestUs = 0;
    for (auto& [rack, part] : local)
    {
        if (why.count(rack) == 0)
        {
            continue; // kept
        }
        begin = std::chrono::steady_clock::now();
        part.reserved = Restrict(reserved, part);
        HarmonicsPlan::Local l;
        l.rack = rack;
        l.jobs = static_cast<uint32_t>(part.jobs.size());
        l.why = why.at(rack);
        Plan carried;
        l.carried = MapPrevious(part, input, &carried, nullptr);
        Plan start;
        if (l.carried > 0)
        {
            start = Complete(part, carried);
            l.warmStart = CheckPlan(part, start);
        }
        l.plan = SolvePlan(part, solver, options, l.warmStart ? &start : nullptr);
        l.wallUs = MicrosecondsSince(begin);
        slowestUs = std::max(slowestUs, l.wallUs);
        out.plan.start.insert(l.plan.start.begin(), l.plan.start.end());
        out.plan.route.insert(l.plan.route.begin(), l.plan.route.end());
        out.locals.push_back(std::move(l));
    }
    std::sort(out.locals.begin(), out.locals.end(), [](const auto& a, const auto& b) {
        return a.rack < b.rack;
    });
    out.schedulingUs = out.coordinatorUs + slowestUs;
    out.plan.proven = out.Proven();
    out.plan.objective = PlanObjective(instance, out.plan);

    // Remember where every collective went, in absolute time.
    m_rackJobs.clear();
    for (const auto& [rack, part] : local)
    {
        for (const PlanJob& j : part.jobs)
        {
            m_rackJobs[rack].insert(j.id);
        }
    }
    for (const PlanJob& j : instance.jobs)
    {
        auto f = input.firstIteration.find(j.id);
        const uint32_t first = f == input.firstIteration.end() ? 0 : f->second;
        auto& placed = m_placed[j.id];
        // The running collective (first - 1) stays for its end to be compared.
        placed.erase(placed.begin(), placed.lower_bound(first > 0 ? first - 1 : 0));
        for (uint32_t k = 0; k < j.collectives.size(); ++k)
        {
            const std::pair<uint32_t, uint32_t> key{j.id, k};
            const int64_t s = out.plan.start.at(key);
            if (s >= horizon)
            {
                placed.erase(first + k); // deferred: not placed
                continue;
            }
            const uint32_t r = out.plan.RouteOf(j.id, k);
            const PlanCollective& c = j.collectives[k];
            auto kept = out.keptStart.find(key);
            Placed p;
            p.start = kept != out.keptStart.end() ? kept->second : input.origin + input.slot * s;
            p.duration = c.Duration(r);
            p.length = input.slot * p.duration;
            p.usage = c.Usage(r);
            p.segments = c.Segments(r);
            placed[first + k] = std::move(p);
        }
    }
    m_planned = true;
    return out;
}

bool
HarmonicsPlanner::PlannedWindow(uint32_t job, uint32_t iteration, Time* start, Time* end) const
{
    auto j = m_placed.find(job);
    if (j == m_placed.end())
    {
        return false;
    }
    auto it = j->second.find(iteration);
    if (it == j->second.end())
    {
        return false;
    }
    *start = it->second.start;
    *end = it->second.start + it->second.length;
    return true;
}

void
HarmonicsPlanner::Forget(uint32_t job)
{
    m_placed.erase(job);
}

HarmonicsPlan
PlanHarmonics(const PlanInstance& instance,
              const std::map<uint32_t, int32_t>& jobRack,
              const RackUplinks& uplinks,
              const MilpSolver& solver,
              const MilpSolveOptions& options)
{
    HarmonicsInput input;
    input.jobRack = jobRack;
    input.uplinks = uplinks;
    HarmonicsPlanner planner;
    return planner.Replan(instance, input, solver, options);
}

} // namespace ns3
