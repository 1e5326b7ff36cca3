/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "optimal-scheduler.h"

#include "plan-lower-bound.h"

#include "ns3/boolean.h"
#include "ns3/cbc-milp-solver.h"
#include "ns3/short-name-registry.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(OptimalScheduler);
NS_OBJECT_SHORT_NAME(OptimalScheduler, "optimal");

namespace
{

/// Weight in the whole-run reference of a collective that is not its job's last.
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
            .AddAttribute("ProofTimeLimit",
                          "Wall-clock limit of each plan's solve, made with a zero gap (0: "
                          "none); a plan that hits it is flagged as not proven.",
                          TimeValue(Seconds(300)),
                          MakeTimeAccessor(&OptimalScheduler::m_proofTimeLimit),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ChargeSolveTime",
                          "Whether a plan takes effect after Symphony's solve time, so that "
                          "plans are made at the points Symphony would make them (false: at "
                          "once, at every event, paying only in wall time).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&OptimalScheduler::m_chargeSolve),
                          MakeBooleanChecker())
            .AddAttribute("Reference",
                          "Whether to note the whole-run reference (planned and bound) once "
                          "the jobs arriving at one time have arrived.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&OptimalScheduler::m_withReference),
                          MakeBooleanChecker())
            .AddAttribute("ReferenceJobs",
                          "0: note the reference at every arrival time; n: only once, when "
                          "the n-th job has arrived (a scenario whose jobs arrive one by one "
                          "then pays for one whole-run solve, not one per arrival).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&OptimalScheduler::m_referenceJobs),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MaxSlots",
                          "Slots of the whole-run reference over the time that always fits "
                          "its jobs (beyond them, two slots a collective for rounding); its "
                          "slots grow beyond SlotLength to keep it.",
                          UintegerValue(240),
                          MakeUintegerAccessor(&OptimalScheduler::m_maxSlots),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ReferenceTimeLimit",
                          "Wall-clock limit of the whole-run reference's solve (0: none); a "
                          "reference that hit it is noted as not proven.",
                          TimeValue(Seconds(120)),
                          MakeTimeAccessor(&OptimalScheduler::m_referenceTimeLimit),
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

void
OptimalScheduler::DoDispose()
{
    m_referenceEvent.Cancel();
    if (m_unproven > 0)
    {
        std::cerr << "warning: optimal: " << m_unproven
                  << " plan(s) not proven optimal: cut short by ProofTimeLimit ("
                  << m_proofTimeLimit.GetSeconds()
                  << " s) or made on longer slots (MaxNonzeros); see the 'unproven' notes\n";
    }
    SymphonyScheduler::DoDispose();
}

void
OptimalScheduler::DoJobArrived(const SchedulerJob& job)
{
    SymphonyScheduler::DoJobArrived(job);
    ++m_arrived;
    // Jobs that arrive at the same time are referenced once, after the last
    // of them (their arrivals are already queued for now).
    const bool due = m_referenceJobs == 0 || m_arrived == m_referenceJobs;
    if (m_withReference && due && !m_referenceEvent.IsRunning())
    {
        m_referenceEvent =
            ScheduleDecision(Simulator::Now(), "reference", -1, [this]() { NoteReference(); });
    }
}

Plan
OptimalScheduler::PlanEpoch(const PlanInstance& instance)
{
    MilpSolveOptions options = GetSolveOptions();
    options.timeLimitSeconds = m_proofTimeLimit.GetSeconds();
    options.relativeGap = 0;
    const Plan plan = SolveCentrally(instance, options);
    if (!m_chargeSolve)
    {
        ChargeSolve(Time(0)); // the baseline pays for its optimality only in wall time
    }
    if (!plan.proven)
    {
        ++m_unproven;
        Note("unproven", std::to_string(m_unproven));
    }
    return plan;
}

void
OptimalScheduler::NoteReference()
{
    const std::map<uint32_t, ChainNeed> needs = Needs();
    if (needs.empty())
    {
        return;
    }
    // A horizon that always fits: the collectives one after the other, each
    // alone on its route, whenever one is ready. The fabric is busy for their
    // communication at most; when it idles, every job left is computing (or
    // not ready yet), the one that ends last among them, so idling takes no
    // longer than the longest chain of ready wait and compute. Each
    // collective and compute rounds up by a slot at most.
    Time comm(0);
    Time longestCompute(0);
    Time latest(0);
    uint64_t collectives = 0;
    for (const auto& [id, n] : needs)
    {
        const auto k = static_cast<int64_t>(n.remaining);
        comm += n.commTime * k;
        longestCompute = std::max(longestCompute, n.computeTime * k);
        latest = std::max(latest, n.readyIn);
        collectives += n.remaining;
    }
    Coverage cover;
    TimeValue slotLength;
    GetAttribute("SlotLength", slotLength);
    const int64_t extra = static_cast<int64_t>(2 * collectives + 1);
    const Time span = latest + comm + longestCompute;
    cover.slot = std::max(slotLength.Get(), Time(span.GetTimeStep() / m_maxSlots + 1));
    cover.horizon = span.GetTimeStep() / cover.slot.GetTimeStep() + 1 + extra;
    for (const auto& [id, n] : needs)
    {
        cover.chain[id] = n.remaining;
    }
    const PlanInstance instance =
        BuildInstance(needs, cover, [](double /* w */, uint32_t k, uint32_t n) {
            return k + 1 == n ? 1.0 : kIntermediateWeight;
        });

    MilpSolveOptions options = GetSolveOptions();
    options.timeLimitSeconds = m_referenceTimeLimit.GetSeconds();
    options.relativeGap = 0;
    const Plan plan =
        instance.jobs.empty() ? Plan() : SolvePlan(instance, CbcMilpSolver(), options);

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
    const PlanBound lp = instance.jobs.empty() ? PlanBound{}
                                               : PlanLowerBound(instance,
                                                                CbcMilpSolver(),
                                                                options,
                                                                PlanBoundObjective::LAST_OF_CHAIN,
                                                                resolution);

    // Planned completion and bound, summed over jobs from their start; jobs
    // without collectives left complete when their running one ends.
    const Time now = Simulator::Now();
    double planned = 0;
    double bound = lp.value * cover.slot.GetSeconds();
    uint32_t jobs = 0;
    for (const auto& [id, n] : needs)
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
        planned +=
            sinceStart +
            (cover.slot * (s + pj.collectives[last].Duration(plan.RouteOf(id, last)))).GetSeconds();
        bound += sinceStart;
    }
    m_reference.plannedMeanSeconds = planned / jobs;
    m_reference.boundMeanSeconds = bound / jobs;
    m_reference.proven = plan.proven;
    m_reference.boundFromLp = lp.solved;
    m_reference.jobs = jobs;
    Note("reference",
         nlohmann::json{{"planned_mean_completion_s", m_reference.plannedMeanSeconds},
                        {"bound_mean_completion_s", m_reference.boundMeanSeconds},
                        {"jobs", jobs},
                        {"bound", lp.solved ? "lp" : "chains-alone"},
                        {"bound_resolution", resolution},
                        {"bound_variables", lp.solve.variables},
                        {"bound_wall_s", lp.solve.wallSeconds},
                        {"slot_ns", cover.slot.GetNanoSeconds()},
                        {"plan_wall_s", plan.solve.wallSeconds},
                        {"proven", m_reference.proven}}
             .dump());
}

} // namespace ns3
