/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the epoch planners see of a job op by op (SchedulerJob::ops): an
 * op's bytes on a link become its use of that link in its own slots, none
 * in the compute between ops; traffic the planners do not gate (a pipeline
 * transfer, an expert all-to-all) counts in the links' loads all the same
 * and moves another job's planned start off its slots.
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

constexpr uint64_t kRateBps = 100'000'000'000;
constexpr uint64_t kBytes100us = 1'250'000; ///< 100 us at 100 Gb/s

/// Every host pair crosses link 10 forwards (src < dst), 11 backwards.
class OneLinkControl : public SchedulerControl
{
  public:
    void SetGate(uint32_t, bool) override
    {
    }

    void SetPriorityClass(uint32_t, int16_t) override
    {
    }

    void SetRateWeight(uint32_t, double) override
    {
    }

    void SetSourcePort(uint32_t, uint32_t, uint32_t, uint16_t) override
    {
    }

    std::vector<uint32_t> GetDirectedPath(uint32_t src, uint32_t dst, uint16_t) const override
    {
        return {src < dst ? 10u : 11u};
    }

    uint64_t GetLinkRateBps(uint32_t) const override
    {
        return kRateBps;
    }
};

/// Symphony, keeping the first instance it plans with every job in it, and its plan.
class InstanceProbe : public SymphonyScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::OpLoadsInstanceProbe")
                                .SetParent<SymphonyScheduler>()
                                .SetGroupName("CollectiveScheduling")
                                .AddConstructor<InstanceProbe>();
        return tid;
    }

    uint32_t jobs{2};
    PlanInstance instance;
    Plan plan;

  protected:
    Plan PlanEpoch(const PlanInstance& in) override
    {
        Plan p = SymphonyScheduler::PlanEpoch(in);
        if (instance.jobs.empty() && in.jobs.size() == jobs)
        {
            instance = in;
            plan = p;
        }
        return p;
    }
};

NS_OBJECT_ENSURE_REGISTERED(InstanceProbe);

/// A job of two ranks on hosts \p src and \p src + 1 (so on link 10) whose
/// iteration computes \p compute, then all-reduces for 100 us (planned).
SchedulerJob
JobOnLink10(uint32_t id, uint32_t src, Time compute)
{
    SchedulerJob j;
    j.id = id;
    j.spec.id = id;
    j.spec.workers = 2;
    j.spec.iterations = 3;
    j.rankHosts = {src, src + 1};
    j.flows = {{src, src + 1, kBytes100us, static_cast<uint16_t>(1000 + id), {10}}};
    j.computeTime = compute;
    j.commTime = MicroSeconds(100);
    SchedulerOp op;
    op.start = Time(0);
    op.duration = MicroSeconds(100);
    op.planned = true;
    op.flowBytes = {{0, kBytes100us}};
    j.ops = {op};
    return j;
}

/// Plans \p jobs arriving at 0 with Symphony on 10 us slots; \return the probe.
Ptr<InstanceProbe>
PlanOnce(const std::vector<SchedulerJob>& jobs, OneLinkControl& control)
{
    Ptr<InstanceProbe> s = CreateObject<InstanceProbe>();
    s->SetAttribute("SlotLength", TimeValue(MicroSeconds(10)));
    s->SetAttribute("SolveTime", EnumValue(EpochScheduler::SOLVE_TIME_NONE));
    s->SetAttribute("RouteChoice", BooleanValue(false));
    s->jobs = static_cast<uint32_t>(jobs.size());
    s->SetControl(&control);
    for (const SchedulerJob& j : jobs)
    {
        Simulator::Schedule(Time(0), [s, j]() { s->NotifyJobArrived(j); });
    }
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();
    Simulator::Destroy();
    return s;
}

/// Use of link 10 by the first collective of job \p id in \p in, slot by slot (\p slots of them).
std::vector<double>
Link10(const PlanInstance& in, uint32_t id, int64_t slots)
{
    std::vector<double> use(slots, 0.0);
    for (const PlanJob& j : in.jobs)
    {
        if (j.id != id)
        {
            continue;
        }
        j.collectives.at(0).ForEachUse(
            0,
            [&](int64_t b, int64_t e, const std::map<uint32_t, double>& u) {
                auto it = u.find(10);
                for (int64_t t = b; it != u.end() && t < std::min(e, slots); ++t)
                {
                    use[t] += it->second;
                }
            });
    }
    return use;
}

} // namespace

TEST(OpLoadsTest, UnplannedTrafficMovesThePlansLinkLoads)
{
    RoceUsePicoseconds();
    // Job 0, ready at once: its planned op (100 us), 200 us of compute, then
    // 100 us of a transfer nobody gates, on the same link; its phase ends there.
    SchedulerJob a = JobOnLink10(0, 0, Time(0));
    SchedulerOp transfer;
    transfer.start = MicroSeconds(300);
    transfer.duration = MicroSeconds(100);
    transfer.linkBytes = {{10, kBytes100us}};
    a.ops.push_back(transfer);
    a.commTime = MicroSeconds(400);
    // Job 1 is ready 300 us in: right when job 0's transfer would run.
    // Job 1 weighs more, so the plan keeps it on time.
    SchedulerJob b = JobOnLink10(1, 2, MicroSeconds(300));
    b.spec.weight = 3;

    OneLinkControl control;
    Ptr<InstanceProbe> seen = PlanOnce({a, b}, control);
    ASSERT_EQ(seen->instance.jobs.size(), 2u);
    // Job 0 uses link 10 fully in its op's slots, not in its compute.
    const std::vector<double> use = Link10(seen->instance, 0, 40);
    for (int64_t t = 0; t < 40; ++t)
    {
        const bool busy = t < 10 || t >= 30;
        EXPECT_NEAR(use[t], busy ? 1.0 : 0.0, 1e-9) << "slot " << t;
    }
    // The plan keeps job 1's op off the transfer's slots: job 0 starts a
    // slot of 100 us later, so that its transfer follows job 1's op.
    EXPECT_EQ(seen->plan.start.at({0, 0}), 10);
    EXPECT_EQ(seen->plan.start.at({1, 0}), 30);

    // Without the transfer, both start as they are ready.
    a.ops.pop_back();
    a.commTime = MicroSeconds(100);
    Ptr<InstanceProbe> alone = PlanOnce({a, b}, control);
    ASSERT_EQ(alone->instance.jobs.size(), 2u);
    EXPECT_EQ(alone->plan.start.at({0, 0}), 0);
    EXPECT_EQ(alone->plan.start.at({1, 0}), 30);
}
