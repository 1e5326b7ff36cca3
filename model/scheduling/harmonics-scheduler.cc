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

Plan
HarmonicsScheduler::PlanEpoch(const PlanInstance& instance)
{
    // Split: a job is local to a rack when every rank of it is in that rack.
    PlanInstance global;
    global.horizon = instance.horizon;
    global.reserved = instance.reserved;
    std::map<int32_t, PlanInstance> local;
    for (const PlanJob& j : instance.jobs)
    {
        std::set<int32_t> racks;
        for (uint32_t h : GetJobs().at(j.id).rankHosts)
        {
            racks.insert(GetControl().GetHostRack(h));
        }
        if (racks.size() == 1 && *racks.begin() >= 0)
        {
            local[*racks.begin()].jobs.push_back(j);
        }
        else
        {
            global.jobs.push_back(j);
        }
    }

    // Global Coordinator: greedy on the capacity ledger.
    auto begin = std::chrono::steady_clock::now();
    Plan merged;
    std::map<uint32_t, std::vector<double>> reserved = instance.reserved;
    nlohmann::json coordinator = {{"jobs", global.jobs.size()}};
    if (!global.jobs.empty())
    {
        const Plan g = GreedyPlan(global);
        merged.start = g.start;
        reserved = AddUsage(reserved, PlanUsage(global, g), instance.horizon);
        coordinator["objective"] = g.objective;
    }
    const double coordinatorUs = MicrosecondsSince(begin);
    coordinator["wall_us"] = coordinatorUs;

    // Local Schedulers: independent MILPs, one per rack.
    double slowestUs = 0;
    bool proven = global.jobs.empty();
    nlohmann::json locals = nlohmann::json::array();
    for (auto& [rack, li] : local)
    {
        li.horizon = instance.horizon;
        li.reserved = reserved;
        begin = std::chrono::steady_clock::now();
        const Plan p = SolvePlan(li, CbcMilpSolver(), GetSolveOptions());
        const double us = MicrosecondsSince(begin);
        slowestUs = std::max(slowestUs, us);
        RecordTiming("local", us);
        proven = proven && p.proven;
        merged.start.insert(p.start.begin(), p.start.end());
        locals.push_back({{"rack", rack},
                          {"jobs", li.jobs.size()},
                          {"method", p.method},
                          {"status", ToString(p.solve.status)},
                          {"objective", p.objective},
                          {"variables", p.solve.variables},
                          {"wall_us", us}});
    }
    RecordTiming("coordinator", coordinatorUs);
    RecordTiming("scheduling", coordinatorUs + slowestUs);
    merged.method = "harmonics";
    merged.proven = proven;
    merged.objective = PlanObjective(instance, merged);
    Note("coordinator", coordinator.dump());
    Note("locals", locals.dump());
    Note("objective", std::to_string(merged.objective));
    Note("scheduling_us", std::to_string(coordinatorUs + slowestUs));
    return merged;
}

} // namespace ns3
