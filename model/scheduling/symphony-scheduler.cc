/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "symphony-scheduler.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/short-name-registry.h"

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
                            .AddConstructor<SymphonyScheduler>();
    return tid;
}

Plan
SymphonyScheduler::SolveCentrally(const PlanInstance& instance, const MilpSolveOptions& options)
{
    const auto begin = std::chrono::steady_clock::now();
    const Plan plan = SolvePlan(instance, CbcMilpSolver(), options);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count();
    RecordTiming("scheduling", us);
    ChargeSolve(SolveTime(plan.solve.variables, plan.solve.constraints, us * 1e-6));
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
