/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The scheduler application and its control plane: events and actions take
 * the control-plane delay, a closed gate lets no packet of the job onto the
 * wire and an opened one lets the next leave within one packet time,
 * priority classes reach the NIC and the switch queues, and the
 * scheduler's results land in the database.
 */

#include "fabric-test-util.h"

#include "ns3/collective-scheduling-module.h"

#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint64_t kRate = 100000000000ull;
constexpr int64_t kDelayNs = 1000;

/// Records every control call with its time; paths are one link per host pair.
class RecordingControl : public SchedulerControl
{
  public:
    struct Call
    {
        Time when;
        std::string what;
        uint32_t job;
    };

    void SetGate(uint32_t job, bool open) override
    {
        calls.push_back({Simulator::Now(), open ? "open" : "close", job});
    }

    void SetPriorityClass(uint32_t job, int16_t cls) override
    {
        calls.push_back({Simulator::Now(), "class " + std::to_string(cls), job});
    }

    void SetRateWeight(uint32_t job, double /* weight */) override
    {
        calls.push_back({Simulator::Now(), "weight", job});
    }

    void SetSourcePort(uint32_t job, uint32_t, uint32_t, uint16_t port) override
    {
        calls.push_back({Simulator::Now(), "port " + std::to_string(port), job});
    }

    std::vector<uint32_t> GetDirectedPath(uint32_t src, uint32_t dst, uint16_t) const override
    {
        return {src * 100 + dst};
    }

    uint64_t GetLinkRateBps(uint32_t) const override
    {
        return kRate;
    }

    std::vector<Call> calls;
};

/**
 * A policy for the tests: jobs start gated; a ready collective's gate opens
 * OpenAfter later, closes CloseAfter after that for a Pause, then stays open
 * until the collective is done, when it closes again.
 */
class TestGatePolicy : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestGatePolicy")
                                .SetParent<CollectiveScheduler>()
                                .SetGroupName("CollectiveScheduling")
                                .AddConstructor<TestGatePolicy>();
        return tid;
    }

    std::string GetName() const override
    {
        return "test-gate";
    }

    bool StartsJobsGated() const override
    {
        return true;
    }

    Time openAfter{MicroSeconds(50)};
    Time closeAfter{MicroSeconds(20)};
    Time pause{MicroSeconds(30)};
    std::vector<std::pair<std::string, Time>> seen; ///< events as the policy saw them

  protected:
    void DoJobArrived(const SchedulerJob& job) override
    {
        seen.emplace_back("arrived", Simulator::Now());
        SetPriorityClass(job.id, 5);
        SetRateWeight(job.id, 2.0);
    }

    void DoCollectiveReady(uint32_t job, uint32_t, uint32_t) override
    {
        seen.emplace_back("ready", Simulator::Now());
        const Time open = Simulator::Now() + openAfter;
        OpenGate(job, open);
        CloseGate(job, open + closeAfter);
        OpenGate(job, open + closeAfter + pause);
    }

    void DoCollectiveDone(uint32_t job, uint32_t, uint32_t) override
    {
        seen.emplace_back("done", Simulator::Now());
        CloseGate(job);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TestGatePolicy);

class CollectiveSchedulerTest : public FabricTest
{
  protected:
    /// A 2-worker job on hosts 0 and 1 of a star, 3 iterations.
    static JobSpec Job(uint64_t gradientBytes, Time compute)
    {
        JobSpec s;
        s.id = 7;
        s.model = "gpt2-124m";
        s.dtype = "bf16";
        s.workers = 2;
        s.placement = "explicit";
        s.hosts = {0, 1};
        s.iterations = 3;
        s.scale = static_cast<double>(gradientBytes) / 248e6;
        s.computeTimeNs = std::llround(compute.GetNanoSeconds() / s.scale);
        return s;
    }
};

TEST_F(CollectiveSchedulerTest, EventsAndActionsTakeTheControlDelay)
{
    for (Time d : {MicroSeconds(5), Time(0)})
    {
        Ptr<TestGatePolicy> policy = CreateObject<TestGatePolicy>();
        policy->SetAttribute("ControlDelay", TimeValue(d));
        RecordingControl control;
        policy->SetControl(&control);
        SchedulerJob job;
        job.id = 3;
        const Time t0 = MilliSeconds(1);
        Simulator::Schedule(t0, [&]() { policy->NotifyJobArrived(job); });
        Simulator::Schedule(t0 * 2, [&]() { policy->NotifyCollectiveReady(3, 0, 0); });
        Simulator::Run();

        ASSERT_EQ(policy->seen.size(), 2u);
        EXPECT_EQ(policy->seen[0].second, t0 + d);
        EXPECT_EQ(policy->seen[1].second, t0 * 2 + d);
        ASSERT_EQ(control.calls.size(), 5u);
        EXPECT_EQ(control.calls[0].what, "class 5");
        EXPECT_EQ(control.calls[0].when, t0 + d + d);
        EXPECT_EQ(control.calls[1].what, "weight");
        EXPECT_EQ(control.calls[1].when, t0 + d + d);
        // Timed gate changes happen at their times (all later than the command's arrival).
        const Time open = t0 * 2 + d + policy->openAfter;
        EXPECT_EQ(control.calls[2].what, "open");
        EXPECT_EQ(control.calls[2].when, open);
        EXPECT_EQ(control.calls[3].what, "close");
        EXPECT_EQ(control.calls[3].when, open + policy->closeAfter);
        EXPECT_EQ(control.calls[4].when, open + policy->closeAfter + policy->pause);
        // Two decisions, each with its actions; every gate change recorded as it took effect.
        ASSERT_EQ(policy->GetDecisions().size(), 2u);
        EXPECT_EQ(policy->GetDecisions()[0].kind, "job-arrived");
        EXPECT_EQ(policy->GetDecisions()[1].kind, "collective-ready");
        EXPECT_NE(policy->GetDecisions()[1].detailJson.find("\"gate\":\"close\""),
                  std::string::npos);
        ASSERT_EQ(policy->GetGateChanges().size(), 3u);
        EXPECT_EQ(policy->GetGateChanges()[0].when, open);
        EXPECT_TRUE(policy->GetGateChanges()[0].open);
        Simulator::Destroy();
    }
}

TEST_F(CollectiveSchedulerTest, ActionsNeverArriveBeforeTheControlDelay)
{
    Ptr<TestGatePolicy> policy = CreateObject<TestGatePolicy>();
    policy->SetAttribute("ControlDelay", TimeValue(MicroSeconds(10)));
    policy->openAfter = MicroSeconds(-100); // asks for a time already past
    policy->closeAfter = Time(0);
    policy->pause = Time(0);
    RecordingControl control;
    policy->SetControl(&control);
    Simulator::Schedule(MilliSeconds(1), [&]() { policy->NotifyCollectiveReady(1, 0, 0); });
    Simulator::Run();
    ASSERT_EQ(control.calls.size(), 3u);
    for (const auto& c : control.calls)
    {
        EXPECT_EQ(c.when, MilliSeconds(1) + MicroSeconds(20));
    }
}

TEST_F(CollectiveSchedulerTest, ClosedGateSendsNothingAndOpenGateSendsAtOnce)
{
    RoceFabricHelper helper;
    helper.SetNicAttribute("PayloadPerPacket",
                           UintegerValue(1000)); // the counts below are of 1000 B packets
    helper.SetCongestionControl("none");
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(3, kRate, kDelayNs));
    Ptr<TrainingCluster> cluster = CreateObject<TrainingCluster>();
    cluster->Setup(fabric, 1);
    const uint64_t gradient = 4000000;
    cluster->AddJob(Job(gradient, MicroSeconds(100)));
    Ptr<TestGatePolicy> policy = CreateObject<TestGatePolicy>();
    CollectiveSchedulerHelper().Install(policy, cluster);

    // Data frames as they start onto the wire at the job's two NICs.
    std::vector<Time> sent;
    std::map<uint8_t, uint64_t> classes;
    for (uint32_t h : {0u, 1u})
    {
        const uint32_t address = RoceHostAddress(h);
        fabric->GetNic(h)->GetPort()->TraceConnectWithoutContext(
            "Sniffer",
            MakeCallback(+[](std::vector<Time>* out,
                             std::map<uint8_t, uint64_t>* cls,
                             uint32_t addr,
                             Ptr<const Packet> p) {
                RoceForwardingInfo info = RoceForwardingInfo::Peek(p);
                if (info.srcIp != addr || info.etherType != RoceWire::kEtherTypeIpv4)
                {
                    return;
                }
                RoceHeader h;
                p->PeekHeader(h);
                if (h.GetOpcode() <= RoceOpcode::WRITE_ONLY)
                {
                    out->push_back(Simulator::Now());
                    ++(*cls)[info.dscp];
                }
            }).Bind(&sent, &classes, address));
    }
    Simulator::Run();
    ASSERT_EQ(cluster->GetFinishedJobs(), 1u);

    const auto& gates = policy->GetGateChanges();
    // Placed closed, then per iteration: open, close, open (timed), close when done.
    ASSERT_EQ(gates.size(), 1u + 4u * 3u);
    EXPECT_FALSE(gates[0].open);
    const Time packet = NanoSeconds(std::llround(WireOf(1000 + 58) * 8e9 / kRate)) + PicoSeconds(1);
    uint64_t checkedOpenings = 0;
    for (std::size_t i = 0; i < gates.size(); ++i)
    {
        if (gates[i].open)
        {
            continue;
        }
        const Time closed = gates[i].when;
        const Time opened = i + 1 < gates.size() ? gates[i + 1].when : Time::Max();
        // Not one data frame starts while the gate is closed...
        for (Time t : sent)
        {
            EXPECT_FALSE(t > closed && t < opened)
                << "frame at " << t.As(Time::NS) << " inside closed gate [" << closed.As(Time::NS)
                << ", " << opened.As(Time::NS) << ")";
        }
        // ...and the first one after the opening leaves within one packet time,
        // unless the job had nothing left to send (the collective was done).
        if (opened == Time::Max())
        {
            continue;
        }
        auto first = std::lower_bound(sent.begin(), sent.end(), opened);
        ASSERT_NE(first, sent.end());
        if (i + 2 < gates.size() && *first > gates[i + 2].when)
        {
            continue; // nothing sent before the next close: collective finished meanwhile
        }
        EXPECT_LE(*first - opened, packet) << "at opening " << opened.As(Time::NS);
        ++checkedOpenings;
    }
    EXPECT_GE(checkedOpenings, 6u); // the two openings of every iteration
    // The class set by the scheduler is what went on the wire.
    ASSERT_EQ(classes.size(), 1u);
    EXPECT_EQ(classes.begin()->first, 5);
    // Conservation: every payload byte of the 3 all-reduces crossed the wire once (cc none,
    // no loss): 2 ranks x 2(N-1)/N x S per iteration.
    uint64_t frames = 0;
    for (const auto& kv : classes)
    {
        frames += kv.second;
    }
    EXPECT_EQ(frames, 3u * 2u * 2u * ((gradient / 2 + 999) / 1000));
}

TEST_F(CollectiveSchedulerTest, HigherClassTakesTheWholeBottleneck)
{
    RoceFabricHelper helper;
    helper.SetNicAttribute("PayloadPerPacket",
                           UintegerValue(1000)); // the counts below are of 1000 B packets
    helper.SetCongestionControl("none");
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(3, kRate, kDelayNs));
    // Jobs 1 (hosts 0 -> 1) and 2 (hosts 2 -> 1) share the switch's port to host 1.
    fabric->GetNic(0)->SetPriorityClass(1, 6);
    fabric->GetNic(2)->SetPriorityClass(2, 1);
    const uint64_t bytes = 2000000;
    std::map<int64_t, Time> done;
    std::map<int64_t, uint8_t> cls;
    for (uint32_t src : {0u, 2u})
    {
        RdmaMessageInfo info;
        info.jobId = src == 0 ? 1 : 2;
        info.bytes = bytes;
        info.priority = 3;
        fabric->GetNic(src)->TraceConnectWithoutContext(
            "SendStarted",
            MakeCallback(+[](std::map<int64_t, uint8_t>* c, const RdmaMessageInfo& i) {
                (*c)[i.jobId] = i.priority;
            }).Bind(&cls));
        fabric->SendMessage(src, 1, info, Time(0), [&done, info]() {
            done[info.jobId] = Simulator::Now();
        });
    }
    Simulator::Run();
    EXPECT_EQ(cls[1], 6);
    EXPECT_EQ(cls[2], 1);
    // Alone on its path: the high one's FCT is its serialization at line rate over two
    // store-and-forward hops, plus propagation; the low one got nothing meanwhile, so it
    // needs about its own serialization after that.
    uint64_t wire = 0;
    for (uint64_t i = 0; i < bytes / 1000; ++i)
    {
        wire += WireOf(DataFrameBytes(bytes, 1000, i));
    }
    const double serialize = wire * 8.0 / kRate;
    const double alone = serialize + 2 * kDelayNs * 1e-9 + WireOf(1058) * 8.0 / kRate;
    EXPECT_NEAR(done[1].GetSeconds(), alone, alone * 0.01);
    EXPECT_GT(done[2].GetSeconds(), 2 * serialize);
    EXPECT_LT(done[2].GetSeconds(), 2 * serialize * 1.02 + 4 * kDelayNs * 1e-9);
}

} // namespace
