/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "optimal-scheduler.h"

#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(OptimalScheduler);

namespace
{

/// Weight of a collective that is not its job's last.
constexpr double kIntermediateWeight = 1e-3;

} // namespace

TypeId
OptimalScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OptimalScheduler")
            .SetParent<SymphonyScheduler>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<OptimalScheduler>()
            .AddAttribute("MaxSlots",
                          "Largest horizon in slots; slots grow beyond SlotLength to keep it.",
                          UintegerValue(240),
                          MakeUintegerAccessor(&OptimalScheduler::m_maxSlots),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("OfflineTimeLimit",
                          "Wall-clock limit of the whole-run solve (0: none); a plan that "
                          "hit it is noted as not proven.",
                          TimeValue(Seconds(120)),
                          MakeTimeAccessor(&OptimalScheduler::m_offlineTimeLimit),
                          MakeTimeChecker(Time(0)));
    return tid;
}

std::string
OptimalScheduler::GetName() const
{
    return "optimal";
}

bool
OptimalScheduler::ReplansOnEvents() const
{
    return false;
}

double
OptimalScheduler::CollectiveWeight(double /* jobWeight */, uint32_t k, uint32_t n) const
{
    return k + 1 == n ? 1.0 : kIntermediateWeight;
}

EpochScheduler::Coverage
OptimalScheduler::Cover(const std::map<uint32_t, ChainNeed>& needs)
{
    // Every remaining collective one after the other, each rounded up by a
    // slot, after the latest ready time: a schedule that always fits.
    Time serial(0);
    Time latest(0);
    uint64_t collectives = 0;
    for (const auto& [id, n] : needs)
    {
        serial += (n.commTime + n.computeTime) * static_cast<int64_t>(n.remaining);
        latest = std::max(latest, n.readyIn);
        collectives += n.remaining;
    }
    Coverage c = EpochScheduler::Cover(needs);
    const int64_t extra = static_cast<int64_t>(2 * collectives + 1);
    const Time span = latest + serial;
    const int64_t budget = std::max<int64_t>(1, static_cast<int64_t>(m_maxSlots) - extra);
    c.slot = std::max(c.slot, Time(span.GetTimeStep() / budget + 1));
    c.horizon = span.GetTimeStep() / c.slot.GetTimeStep() + extra;
    for (const auto& [id, n] : needs)
    {
        c.chain[id] = n.remaining;
    }
    m_needs = needs;
    m_cover = c;
    return c;
}

Plan
OptimalScheduler::PlanEpoch(const PlanInstance& instance)
{
    MilpSolveOptions options = GetSolveOptions();
    options.timeLimitSeconds = m_offlineTimeLimit.GetSeconds();
    options.relativeGap = 0;
    const Plan plan = SolveCentrally(instance, options);
    ChargeSolve(Time(0)); // a reference computed offline

    // Planned completion and bound per job, from now; jobs without
    // collectives left complete when their running one ends.
    const Time now = Simulator::Now();
    double planned = 0;
    double bound = 0;
    uint32_t jobs = 0;
    for (const auto& [id, n] : m_needs)
    {
        const Time sinceStart = now - n.startTime;
        Time lower = n.readyIn - (n.remaining == 0 ? n.computeTime : Time(0));
        Time end = lower;
        if (n.remaining > 0)
        {
            lower += n.bestCommTime * static_cast<int64_t>(n.remaining) +
                     n.computeTime * static_cast<int64_t>(n.remaining - 1);
            const PlanJob& pj = *std::find_if(instance.jobs.begin(),
                                              instance.jobs.end(),
                                              [id = id](const PlanJob& j) { return j.id == id; });
            const uint32_t last = static_cast<uint32_t>(pj.collectives.size() - 1);
            const int64_t s = plan.start.at({id, last});
            end = m_cover.slot * (s + pj.collectives[last].Duration(plan.RouteOf(id, last)));
        }
        planned += (sinceStart + end).GetSeconds();
        bound += (sinceStart + lower).GetSeconds();
        ++jobs;
    }
    m_reference.plannedMeanSeconds = jobs > 0 ? planned / jobs : 0;
    m_reference.boundMeanSeconds = jobs > 0 ? bound / jobs : 0;
    m_reference.proven = plan.proven;
    Note("reference",
         nlohmann::json{{"planned_mean_completion_s", m_reference.plannedMeanSeconds},
                        {"bound_mean_completion_s", m_reference.boundMeanSeconds},
                        {"proven", m_reference.proven}}
             .dump());
    return plan;
}

} // namespace ns3
