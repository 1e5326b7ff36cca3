/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "optimal-scheduler.h"

#include "plan-lower-bound.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/short-name-registry.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(OptimalScheduler);
NS_OBJECT_SHORT_NAME(OptimalScheduler, "optimal");

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
                          MakeTimeChecker(Time(0)))
            .AddAttribute("BoundResolution",
                          "Steps per slot of the lower bound's LP, at most (finer is tighter).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&OptimalScheduler::m_boundResolution),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("BoundMaxVariables",
                          "The bound's LP takes fewer steps per slot when it would have more "
                          "rate variables than this.",
                          UintegerValue(400000),
                          MakeUintegerAccessor(&OptimalScheduler::m_boundMaxVariables),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
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

    // The bound's LP: as many steps per slot as its size allows.
    uint64_t perStep = 0;
    for (const PlanJob& j : instance.jobs)
    {
        for (const PlanCollective& c : j.collectives)
        {
            perStep += c.Routes() * static_cast<uint64_t>(instance.horizon);
        }
    }
    uint32_t resolution = m_boundResolution;
    while (resolution > 1 && perStep * resolution > m_boundMaxVariables)
    {
        --resolution;
    }
    const PlanBound lp = PlanLowerBound(instance,
                                        CbcMilpSolver(),
                                        options,
                                        PlanBoundObjective::LAST_OF_CHAIN,
                                        resolution);

    // Planned completion and bound, summed over jobs from their start; jobs
    // without collectives left complete when their running one ends.
    const Time now = Simulator::Now();
    double planned = 0;
    double bound = lp.value * m_cover.slot.GetSeconds();
    uint32_t jobs = 0;
    for (const auto& [id, n] : m_needs)
    {
        const double sinceStart = (now - n.startTime).GetSeconds();
        ++jobs;
        if (n.remaining == 0)
        {
            const double end = (n.readyIn - n.computeTime).GetSeconds();
            planned += sinceStart + end;
            bound += sinceStart + end;
            continue;
        }
        const PlanJob& pj = *std::find_if(instance.jobs.begin(),
                                          instance.jobs.end(),
                                          [id = id](const PlanJob& j) { return j.id == id; });
        const uint32_t last = static_cast<uint32_t>(pj.collectives.size() - 1);
        const int64_t s = plan.start.at({id, last});
        planned += sinceStart +
                   (m_cover.slot * (s + pj.collectives[last].Duration(plan.RouteOf(id, last))))
                       .GetSeconds();
        bound += sinceStart;
    }
    m_reference.plannedMeanSeconds = jobs > 0 ? planned / jobs : 0;
    m_reference.boundMeanSeconds = jobs > 0 ? bound / jobs : 0;
    m_reference.proven = plan.proven;
    m_reference.boundFromLp = lp.solved;
    Note("reference",
         nlohmann::json{{"planned_mean_completion_s", m_reference.plannedMeanSeconds},
                        {"bound_mean_completion_s", m_reference.boundMeanSeconds},
                        {"jobs", jobs},
                        {"bound", lp.solved ? "lp" : "chains-alone"},
                        {"bound_resolution", resolution},
                        {"bound_variables", lp.solve.variables},
                        {"bound_wall_s", lp.solve.wallSeconds},
                        {"proven", m_reference.proven}}
             .dump());
    return plan;
}

} // namespace ns3
