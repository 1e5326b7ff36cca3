/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "symphony-scheduler.h"

#include "plan-coarsening.h"
#include "plan-components.h"

#include "ns3/boolean.h"
#include "ns3/cbc-milp-solver.h"
#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <chrono>

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
                            .AddAttribute("MaxNonzeros",
                                          "Largest MILP, in constraint terms, solved on the "
                                          "plan's own slots: a larger one (each part's, with "
                                          "SolveByParts) is solved on slots a few times as "
                                          "long, its starts rounded to them, and kept if it "
                                          "beats the greedy plan (0: no limit).",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&SymphonyScheduler::m_maxNonzeros),
                                          MakeUintegerChecker<uint64_t>());
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
            plans.push_back(SolvePlanWithin(part, CbcMilpSolver(), options, m_maxNonzeros));
            const MilpResult& s = plans.back().solve;
            charged += SolveTime(s.variables, s.constraints, s.wallSeconds);
        }
        plan = JoinPlans(plans);
        Note("parts", std::to_string(plans.size()));
    }
    else
    {
        plan = SolvePlanWithin(instance, CbcMilpSolver(), options, m_maxNonzeros);
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
SymphonyScheduler::PlanEpoch(const PlanInstance& instance)
{
    return SolveCentrally(instance, GetSolveOptions());
}

} // namespace ns3
