/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "harmonics-scheduler.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/short-name-registry.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HarmonicsScheduler);
NS_OBJECT_SHORT_NAME(HarmonicsScheduler, "harmonics");

TypeId
HarmonicsScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HarmonicsScheduler")
                            .SetParent<EpochScheduler>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<HarmonicsScheduler>();
    return tid;
}

int32_t
HarmonicsScheduler::JobRack(uint32_t job) const
{
    std::set<int32_t> racks;
    for (uint32_t h : GetJobs().at(job).rankHosts)
    {
        racks.insert(GetControl().GetHostRack(h));
    }
    return racks.size() == 1 ? *racks.begin() : -1;
}

void
HarmonicsScheduler::LearnUplinks(uint32_t job)
{
    if (!m_probed.insert(job).second)
    {
        return;
    }
    UintegerValue probes;
    GetAttribute("PathProbes", probes);
    m_probe.SetProbes(static_cast<uint32_t>(probes.Get()));
    const SchedulerControl& control = GetControl();
    for (const ConnectionGroup& g : GroupConnections(GetJobs().at(job)))
    {
        const int32_t from = control.GetHostRack(g.src);
        const int32_t to = control.GetHostRack(g.dst);
        if (from < 0 || to < 0 || from == to)
        {
            continue;
        }
        for (const PortPath& p : m_probe.Candidates(control, g.src, g.dst, g.ownPorts))
        {
            if (p.links.size() < 4)
            {
                continue; // no layer above the racks' switches
            }
            const uint32_t up = p.links[1];
            const uint32_t down = p.links[p.links.size() - 2];
            m_uplinks[up] = {from, true, static_cast<double>(control.GetLinkRateBps(up))};
            m_uplinks[down] = {to, false, static_cast<double>(control.GetLinkRateBps(down))};
        }
    }
}

Plan
HarmonicsScheduler::PlanEpoch(const PlanInstance& instance)
{
    TimeValue slot;
    GetAttribute("SlotLength", slot);
    HarmonicsInput input;
    input.origin = Simulator::Now();
    input.slot = slot.Get();
    input.disturbed = m_disturbed;
    for (const PlanJob& j : instance.jobs)
    {
        const int32_t rack = JobRack(j.id);
        input.jobRack[j.id] = rack;
        if (rack < 0)
        {
            LearnUplinks(j.id);
        }
        input.firstIteration[j.id] =
            GetJobs().at(j.id).spec.iterations - RemainingCollectives(j.id);
    }
    input.uplinks = m_uplinks;
    const HarmonicsPlan h = m_planner.Replan(instance, input, CbcMilpSolver(), GetSolveOptions());
    m_disturbed.clear();
    m_tier = input.jobRack;
    m_keptOrigin = input.origin;
    m_keptStart = h.keptStart;

    nlohmann::json tiers = nlohmann::json::object();
    for (const auto& [id, rack] : input.jobRack)
    {
        tiers[std::to_string(id)] = rack < 0 ? nlohmann::json{{"tier", "coordinator"}}
                                             : nlohmann::json{{"tier", "local"}, {"rack", rack}};
    }
    nlohmann::json locals = nlohmann::json::array();
    Time slowest(0);
    for (const auto& l : h.locals)
    {
        nlohmann::json j = {{"rack", l.rack},
                            {"jobs", l.jobs},
                            {"solved", l.solved},
                            {"method", l.plan.method},
                            {"objective", l.plan.objective}};
        if (l.solved)
        {
            RecordTiming("local", l.wallUs);
            j["why"] = l.why;
            j["carried"] = l.carried;
            j["warm_start"] = l.warmStart;
            j["status"] = ToString(l.plan.solve.status);
            j["variables"] = l.plan.solve.variables;
            j["wall_us"] = l.wallUs;
            slowest = std::max(
                slowest,
                SolveTime(l.plan.solve.variables, l.plan.solve.constraints, l.wallUs * 1e-6));
        }
        locals.push_back(j);
    }
    RecordTiming("coordinator", h.coordinatorUs);
    RecordTiming("scheduling", h.schedulingUs);
    // Simulated solve time: the coordinator (a scan of the (slot, route)
    // pairs it may weigh), then the slowest Local Scheduler that solved (they
    // run in parallel).
    const Time coordinator =
        h.globalJobs > 0 ? SolveTime(h.coordinatorChoices, 0, h.coordinatorUs * 1e-6) : Time(0);
    ChargeSolve(coordinator + slowest);
    Note("tiers", tiers.dump());
    Note("coordinator",
         nlohmann::json{{"jobs", h.globalJobs},
                        {"choices", h.coordinatorChoices},
                        {"wall_us", h.coordinatorUs}}
             .dump());
    Note("locals", locals.dump());
    Note("objective", std::to_string(h.plan.objective));
    Note("scheduling_us", std::to_string(h.schedulingUs));
    std::string why;
    if (!CheckPlan(instance, h.plan, &why))
    {
        NS_FATAL_ERROR("Harmonics produced an infeasible plan: " << why);
    }
    return h.plan;
}

Time
HarmonicsScheduler::PlannedStart(uint32_t job,
                                 uint32_t index,
                                 int64_t slot,
                                 Time origin,
                                 Time slotLength) const
{
    if (origin == m_keptOrigin)
    {
        auto it = m_keptStart.find({job, index});
        if (it != m_keptStart.end())
        {
            return it->second;
        }
    }
    return EpochScheduler::PlannedStart(job, index, slot, origin, slotLength);
}

void
HarmonicsScheduler::NotePlannedStart(uint32_t job)
{
    auto it = m_tier.find(job);
    if (it == m_tier.end())
    {
        return;
    }
    if (it->second < 0)
    {
        Note("tier", "\"coordinator\"");
        return;
    }
    Note("tier", "\"local\"");
    Note("rack", std::to_string(it->second));
}

void
HarmonicsScheduler::DoCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket)
{
    // Before the base class re-plans: did the job's rack leave its plan?
    auto j = GetJobs().find(job);
    if (j != GetJobs().end() && bucket + 1 == std::max<uint32_t>(1, j->second.spec.buckets))
    {
        const int32_t rack = JobRack(job);
        TimeValue slot;
        GetAttribute("SlotLength", slot);
        // The event reaches the scheduler a control delay after the collective ended.
        const Time ended = Simulator::Now() - GetControlDelay();
        Time start;
        Time end;
        if (rack >= 0 && (!m_planner.PlannedWindow(job, iteration, &start, &end) ||
                          Abs(ended - end) > slot.Get()))
        {
            m_disturbed.insert(rack);
        }
    }
    EpochScheduler::DoCollectiveDone(job, iteration, bucket);
}

void
HarmonicsScheduler::DoJobDone(uint32_t job)
{
    m_planner.Forget(job);
    m_probed.erase(job);
    EpochScheduler::DoJobDone(job);
}

} // namespace ns3
