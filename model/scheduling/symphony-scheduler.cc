/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "symphony-scheduler.h"

#include "plan-components.h"

#include "ns3/boolean.h"
#include "ns3/cbc-milp-solver.h"
#include "ns3/short-name-registry.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SymphonyScheduler);
NS_OBJECT_SHORT_NAME(SymphonyScheduler, "symphony");

TypeId
SymphonyScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SymphonyScheduler")
                            .SetParent<EpochScheduler>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<SymphonyScheduler>()
                            .AddAttribute("SolveByParts",
                                          "Whether the central planner splits each plan into its "
                                          "independent parts (jobs whose routes share no link) "
                                          "and solves them one after another: the same optimum, "
                                          "charged as the sum of the parts' solve times (false: "
                                          "one MILP over every job, as the paper describes).",
                                          BooleanValue(false),
                                          MakeBooleanAccessor(&SymphonyScheduler::m_byParts),
                                          MakeBooleanChecker())
                            .AddAttribute("KeepParts",
                                          "With SolveByParts: whether a part whose jobs and "
                                          "their progress still match the last plan keeps "
                                          "that plan, and a part that changed is solved "
                                          "warm-started from it (false: every part is solved "
                                          "from scratch at every plan).",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(&SymphonyScheduler::m_keepParts),
                                          MakeBooleanChecker());
    return tid;
}

Plan
SymphonyScheduler::SolveCentrally(const PlanInstance& instance, const MilpSolveOptions& options)
{
    const auto begin = std::chrono::steady_clock::now();
    Plan plan;
    Time charged;
    if (m_byParts)
    {
        // One machine solves the parts in turn: each costs its own solve.
        std::vector<Plan> plans;
        for (const PlanInstance& part : SplitPlanInstance(instance))
        {
            plans.push_back(SolvePlan(part, CbcMilpSolver(), options));
            const MilpResult& s = plans.back().solve;
            charged += SolveTime(s.variables, s.constraints, s.wallSeconds);
        }
        plan = JoinPlans(plans);
        Note("parts", std::to_string(plans.size()));
    }
    else
    {
        plan = SolvePlan(instance, CbcMilpSolver(), options);
    }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count();
    RecordTiming("scheduling", us);
    ChargeSolve(m_byParts ? charged
                          : SolveTime(plan.solve.variables, plan.solve.constraints, us * 1e-6));
    NotePlan("plan", plan);
    Note("scheduling_us", std::to_string(us));
    return plan;
}

Plan
SymphonyScheduler::SolveChangedParts(const PlanInstance& instance)
{
    const auto begin = std::chrono::steady_clock::now();
    TimeValue slot;
    GetAttribute("SlotLength", slot);
    HarmonicsInput input;
    input.origin = Simulator::Now();
    input.slot = slot.Get();
    input.disturbed = m_disturbed;
    m_partOf.clear();
    for (const PlanInstance& part : SplitPlanInstance(instance))
    {
        const auto key = static_cast<int32_t>(part.jobs.front().id);
        for (const PlanJob& j : part.jobs)
        {
            input.jobRack[j.id] = key;
            m_partOf[j.id] = key;
            input.firstIteration[j.id] =
                GetJobs().at(j.id).spec.iterations - RemainingCollectives(j.id);
        }
    }
    HarmonicsPlan h = m_parts.Replan(instance, input, CbcMilpSolver(), GetSolveOptions());
    m_disturbed.clear();
    KeepStarts(input.origin, h.keptStart);
    // One machine solves the changed parts in turn: each costs its own solve.
    Time charged;
    uint32_t solved = 0;
    for (const HarmonicsPlan::Local& l : h.locals)
    {
        if (l.solved)
        {
            charged += SolveTime(l.plan.solve.variables, l.plan.solve.constraints, l.wallUs * 1e-6);
            ++solved;
        }
    }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count();
    RecordTiming("scheduling", us);
    ChargeSolve(charged);
    h.plan.method = "parts";
    Note("parts", nlohmann::json{{"parts", h.locals.size()}, {"solved", solved}}.dump());
    NotePlan("plan", h.plan);
    Note("scheduling_us", std::to_string(us));
    return h.plan;
}

Plan
SymphonyScheduler::PlanEpoch(const PlanInstance& instance)
{
    if (m_byParts && m_keepParts)
    {
        return SolveChangedParts(instance);
    }
    return SolveCentrally(instance, GetSolveOptions());
}

void
SymphonyScheduler::DoCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket)
{
    // Before the base class re-plans: did the job's part leave its plan?
    auto j = GetJobs().find(job);
    auto part = m_partOf.find(job);
    if (j != GetJobs().end() && part != m_partOf.end() &&
        bucket + 1 == std::max<uint32_t>(1, j->second.spec.buckets))
    {
        TimeValue slot;
        GetAttribute("SlotLength", slot);
        // The event reaches the scheduler a control delay after the collective ended.
        if (m_parts.LeftPlan(job, iteration, Simulator::Now() - GetControlDelay(), slot.Get()))
        {
            m_disturbed.insert(part->second);
        }
    }
    EpochScheduler::DoCollectiveDone(job, iteration, bucket);
}

void
SymphonyScheduler::DoJobDone(uint32_t job)
{
    m_parts.Forget(job);
    m_partOf.erase(job);
    EpochScheduler::DoJobDone(job);
}

} // namespace ns3
