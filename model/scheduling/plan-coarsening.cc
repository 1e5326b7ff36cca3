/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "plan-coarsening.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

/// Coarse slots needed to cover \p slots fine ones.
int64_t
Up(int64_t slots, int64_t factor)
{
    return (slots + factor - 1) / factor;
}

/**
 * A route's use, coarse slot by coarse slot from its start, as segments:
 * each coarse slot takes, link by link, the most any fine slot in it uses
 * (a start on a coarse boundary keeps fine slot b in coarse slot b / factor).
 */
std::vector<PlanSegment>
CoarsenSegments(const std::vector<PlanSegment>& fine, int64_t factor)
{
    if (fine.empty())
    {
        return {};
    }
    std::vector<std::map<uint32_t, double>> per(Up(fine.back().end, factor));
    for (const PlanSegment& seg : fine)
    {
        for (int64_t t = seg.begin / factor; t < Up(seg.end, factor); ++t)
        {
            for (const auto& [link, u] : seg.usage)
            {
                double& x = per[t][link];
                x = std::max(x, u);
            }
        }
    }
    return SegmentsOfSlots(per);
}

/// \p route's duration, exact duration and segments on coarse slots.
template <typename R>
void
CoarsenRoute(R& route, int64_t factor)
{
    route.exactDuration =
        (route.exactDuration > 0 ? route.exactDuration : static_cast<double>(route.duration)) /
        static_cast<double>(factor);
    route.duration = Up(route.duration, factor);
    route.segments = CoarsenSegments(route.segments, factor);
}

} // namespace

PlanInstance
CoarsenPlanInstance(const PlanInstance& instance, int64_t factor)
{
    if (factor < 1)
    {
        throw std::invalid_argument("plan-coarsening: factor must be >= 1, got " +
                                    std::to_string(factor));
    }
    instance.Validate();
    if (factor == 1)
    {
        return instance;
    }
    const double f = static_cast<double>(factor);
    PlanInstance coarse = instance;
    coarse.horizon = Up(instance.horizon, factor);
    for (PlanJob& job : coarse.jobs)
    {
        job.exactComputeSlots = job.ExactCompute() / f;
        job.computeSlots = Up(job.computeSlots, factor);
        for (PlanCollective& c : job.collectives)
        {
            c.exactReady = c.ExactReady() / f;
            c.readySlot = Up(c.readySlot, factor);
            CoarsenRoute(c, factor);
            for (PlanRoute& r : c.alternatives)
            {
                CoarsenRoute(r, factor);
            }
        }
    }
    for (auto& [link, values] : coarse.reserved)
    {
        const std::vector<double>& fine = instance.reserved.at(link);
        values.assign(coarse.horizon, 0.0);
        for (int64_t t = 0; t < instance.horizon; ++t)
        {
            values[t / factor] = std::max(values[t / factor], fine[t]);
        }
    }
    coarse.Validate();
    return coarse;
}

Plan
RefinePlan(const PlanInstance& instance, const Plan& coarse, int64_t factor)
{
    const int64_t horizon = Up(instance.horizon, factor);
    Plan plan = coarse;
    for (auto& [key, s] : plan.start)
    {
        s = s >= horizon ? instance.horizon : s * factor;
    }
    plan.objective = PlanObjective(instance, plan);
    plan.proven = plan.proven && factor == 1;
    plan.slotFactor = coarse.slotFactor * factor;
    return plan;
}

Plan
SolvePlanWithin(const PlanInstance& instance,
                const MilpSolver& solver,
                const MilpSolveOptions& options,
                std::size_t maxNonzeros)
{
    if (maxNonzeros == 0 || BuildPlanModel(instance).GetNumNonzeros() <= maxNonzeros)
    {
        return SolvePlan(instance, solver, options);
    }
    // The MILP's terms fall about as the square of the factor (fewer starts,
    // each over fewer slots), so few builds are needed.
    int64_t factor = 2;
    PlanInstance coarse = CoarsenPlanInstance(instance, factor);
    while (factor < instance.horizon && BuildPlanModel(coarse).GetNumNonzeros() > maxNonzeros)
    {
        coarse = CoarsenPlanInstance(instance, ++factor);
    }
    Plan refined = RefinePlan(instance, SolvePlan(coarse, solver, options), factor);
    std::string why;
    if (!CheckPlan(instance, refined, &why))
    {
        throw std::logic_error("plan-coarsening: a plan on slots " + std::to_string(factor) +
                               " times as long does not fit the instance: " + why);
    }
    Plan greedy = GreedyPlan(instance);
    if (greedy.objective < refined.objective)
    {
        greedy.solve = std::move(refined.solve);
        greedy.slotFactor = factor;
        return greedy;
    }
    return refined;
}

} // namespace ns3
