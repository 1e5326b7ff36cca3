/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "harmonics-scheduler.h"

#include "ns3/cbc-milp-solver.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HarmonicsScheduler);

namespace
{

double
MicrosecondsSince(std::chrono::steady_clock::time_point begin)
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin)
        .count();
}

/// \p base's reservations plus \p usage, capped at 1.
std::map<uint32_t, std::vector<double>>
AddUsage(std::map<uint32_t, std::vector<double>> base,
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
    return base;
}

} // namespace

TypeId
HarmonicsScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HarmonicsScheduler")
                            .SetParent<EpochScheduler>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<HarmonicsScheduler>();
    return tid;
}

std::string
HarmonicsScheduler::GetName() const
{
    return "harmonics";
}

bool
HarmonicsPlan::Proven() const
{
    if (globalJobs > 0)
    {
        return false;
    }
    return std::all_of(locals.begin(), locals.end(), [](const Local& l) { return l.plan.proven; });
}

HarmonicsPlan
PlanHarmonics(const PlanInstance& instance,
              const std::map<uint32_t, int32_t>& jobRack,
              const MilpSolver& solver,
              const MilpSolveOptions& options)
{
    instance.Validate();
    // Split: a job is local to a rack when every rank of it is in that rack.
    PlanInstance global;
    global.horizon = instance.horizon;
    global.reserved = instance.reserved;
    std::map<int32_t, PlanInstance> local;
    for (const PlanJob& j : instance.jobs)
    {
        auto it = jobRack.find(j.id);
        if (it != jobRack.end() && it->second >= 0)
        {
            local[it->second].jobs.push_back(j);
        }
        else
        {
            global.jobs.push_back(j);
        }
    }

    // Global Coordinator: greedy on the capacity ledger.
    HarmonicsPlan out;
    out.globalJobs = static_cast<uint32_t>(global.jobs.size());
    auto begin = std::chrono::steady_clock::now();
    std::map<uint32_t, std::vector<double>> reserved = instance.reserved;
    if (!global.jobs.empty())
    {
        for (const PlanJob& j : global.jobs)
        {
            for (const PlanCollective& c : j.collectives)
            {
                out.coordinatorChoices += c.Routes() * static_cast<uint64_t>(global.horizon);
            }
        }
        const Plan g = GreedyPlan(global);
        out.plan.start = g.start;
        out.plan.route = g.route;
        reserved = AddUsage(reserved, PlanUsage(global, g), instance.horizon);
    }
    out.coordinatorUs = MicrosecondsSince(begin);

    // Local Schedulers: independent MILPs, one per rack.
    double slowestUs = 0;
    for (auto& [rack, li] : local)
    {
        li.horizon = instance.horizon;
        li.reserved = reserved;
        begin = std::chrono::steady_clock::now();
        HarmonicsPlan::Local l;
        l.rack = rack;
        l.jobs = static_cast<uint32_t>(li.jobs.size());
        l.plan = SolvePlan(li, solver, options);
        l.wallUs = MicrosecondsSince(begin);
        slowestUs = std::max(slowestUs, l.wallUs);
        out.plan.start.insert(l.plan.start.begin(), l.plan.start.end());
        out.plan.route.insert(l.plan.route.begin(), l.plan.route.end());
        out.locals.push_back(std::move(l));
    }
    out.schedulingUs = out.coordinatorUs + slowestUs;
    out.plan.method = "harmonics";
    out.plan.proven = out.Proven();
    out.plan.objective = PlanObjective(instance, out.plan);
    return out;
}

Plan
HarmonicsScheduler::PlanEpoch(const PlanInstance& instance)
{
    std::map<uint32_t, int32_t> jobRack;
    for (const PlanJob& j : instance.jobs)
    {
        std::set<int32_t> racks;
        for (uint32_t h : GetJobs().at(j.id).rankHosts)
        {
            racks.insert(GetControl().GetHostRack(h));
        }
        jobRack[j.id] = racks.size() == 1 ? *racks.begin() : -1;
    }
    const HarmonicsPlan h = PlanHarmonics(instance, jobRack, CbcMilpSolver(), GetSolveOptions());
    nlohmann::json locals = nlohmann::json::array();
    for (const auto& l : h.locals)
    {
        RecordTiming("local", l.wallUs);
        locals.push_back({{"rack", l.rack},
                          {"jobs", l.jobs},
                          {"method", l.plan.method},
                          {"status", ToString(l.plan.solve.status)},
                          {"objective", l.plan.objective},
                          {"variables", l.plan.solve.variables},
                          {"wall_us", l.wallUs}});
    }
    RecordTiming("coordinator", h.coordinatorUs);
    RecordTiming("scheduling", h.schedulingUs);
    // Simulated solve time: the coordinator (a greedy scan of every route and
    // slot of its collectives), then the slowest Local Scheduler (they run in parallel).
    Time slowest(0);
    for (const auto& l : h.locals)
    {
        slowest =
            std::max(slowest,
                     SolveTime(l.plan.solve.variables, l.plan.solve.constraints, l.wallUs * 1e-6));
    }
    const Time coordinator =
        h.globalJobs > 0 ? SolveTime(h.coordinatorChoices, 0, h.coordinatorUs * 1e-6) : Time(0);
    ChargeSolve(coordinator + slowest);
    Note("coordinator",
         nlohmann::json{{"jobs", h.globalJobs}, {"wall_us", h.coordinatorUs}}.dump());
    Note("locals", locals.dump());
    Note("objective", std::to_string(h.plan.objective));
    Note("scheduling_us", std::to_string(h.schedulingUs));
    if (!CheckPlan(instance, h.plan))
    {
        NS_FATAL_ERROR("Harmonics produced an infeasible plan");
    }
    return h.plan;
}

} // namespace ns3
