/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "symphony-scheduler.h"

#include "ns3/cbc-milp-solver.h"

#include <chrono>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SymphonyScheduler);
NS_OBJECT_ENSURE_REGISTERED(OptimalScheduler);

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
    NotePlan("plan", plan);
    Note("scheduling_us", std::to_string(us));
    return plan;
}

std::string
SymphonyScheduler::GetName() const
{
    return "symphony";
}

Plan
SymphonyScheduler::PlanEpoch(const PlanInstance& instance)
{
    return SolveCentrally(instance, GetSolveOptions());
}

TypeId
OptimalScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OptimalScheduler")
                            .SetParent<SymphonyScheduler>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<OptimalScheduler>();
    return tid;
}

Plan
OptimalScheduler::PlanEpoch(const PlanInstance& instance)
{
    MilpSolveOptions options = GetSolveOptions();
    options.timeLimitSeconds = 0; // proven optimal, however long it takes
    options.relativeGap = 0;
    return SolveCentrally(instance, options);
}

std::string
OptimalScheduler::GetName() const
{
    return "optimal";
}

} // namespace ns3
