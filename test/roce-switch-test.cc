/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The switch and the fabric under load: lossless incast with PFC, lossy
 * incast with go-back-N, DCQCN fairness, PFC expiry per class, priority
 * scheduling between classes and ECMP spreading.
 */

#include "fabric-test-util.h"

#include <gtest/gtest.h>
#include <set>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint64_t kRate = 100000000000ull;

class RoceSwitchTest : public FabricTest
{
  protected:
    struct IncastResult
    {
        uint64_t delivered{0};
        uint64_t drops{0};
        uint64_t pauses{0};
        uint64_t ecnMarked{0};
        uint64_t cnps{0};
        double makespan{0};
        double bound{0};
        uint64_t receiverLinkBytes{0};
        uint64_t expectedReceiverBytes{0};
    };

    /// \p senders hosts write \p bytes each to host 0 through one switch.
    IncastResult RunIncast(uint32_t senders,
                           uint64_t bytes,
                           const std::string& cc,
                           bool pfc,
                           uint64_t buffer = 32 * 1024 * 1024)
    {
        RoceFabricHelper helper;
        helper.SetCongestionControl(cc);
        helper.SetSwitchAttribute("PfcEnabled", BooleanValue(pfc));
        helper.SetMmuAttribute("BufferSize", UintegerValue(buffer));
        helper.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(500)));
        Ptr<RoceFabric> fabric = helper.Install(MakeStar(senders + 1, kRate, 1000));
        RoceFlowMonitor monitor(fabric);
        for (uint32_t s = 1; s <= senders; ++s)
        {
            RdmaMessageInfo info;
            info.bytes = bytes;
            fabric->SendMessage(s, 0, info, Seconds(0));
        }
        Simulator::Run();
        IncastResult r;
        for (const auto& [id, f] : monitor.GetFlows())
        {
            if (!f.delivered.IsNegative() && !f.acked.IsNegative())
            {
                r.delivered += f.info.bytes;
            }
        }
        r.drops = fabric->GetTotalDrops();
        r.pauses = fabric->GetTotalPausesSent();
        r.ecnMarked = monitor.GetEcnMarked();
        r.cnps = monitor.GetCnpsSent();
        r.makespan = monitor.GetLastDelivery().GetSeconds();
        // Bound: every data frame crosses the receiver's link at line rate.
        uint64_t frames = 0;
        uint64_t wire = 0;
        const uint64_t n = (bytes + 999) / 1000;
        for (uint64_t i = 0; i < n; ++i)
        {
            frames += DataFrameBytes(bytes, 1000, i);
            wire += WireOf(DataFrameBytes(bytes, 1000, i));
        }
        r.bound = senders * wire * 8.0 / kRate;
        r.expectedReceiverBytes = senders * frames;
        // Link 0 joins host 0 (end 0) and the switch (end 1).
        r.receiverLinkBytes = fabric->GetChannel(0)->GetTxBytes(1);
        return r;
    }
};

TEST_F(RoceSwitchTest, LosslessIncastWithPfcReachesTheBottleneckBound)
{
    // Bytes per sender chosen so the backlog passes the PFC threshold.
    for (auto [senders, bytes] :
         {std::pair<uint32_t, uint64_t>{8, 4000000}, {16, 2000000}, {32, 1000000}})
    {
        IncastResult r = RunIncast(senders, bytes, "none", true);
        EXPECT_EQ(r.drops, 0u) << senders;
        EXPECT_EQ(r.delivered, senders * bytes) << senders;
        EXPECT_GT(r.pauses, 0u) << senders << " senders: PFC must have paused";
        EXPECT_LE(r.makespan, 1.03 * r.bound) << senders;
        EXPECT_GE(r.makespan, r.bound) << senders;
        // Conservation: exactly the data frames crossed the receiver's link
        // (no retransmission, no loss).
        EXPECT_EQ(r.receiverLinkBytes, r.expectedReceiverBytes) << senders;
        Simulator::Destroy();
    }
}

TEST_F(RoceSwitchTest, LosslessIncastWithDcqcn)
{
    for (uint32_t senders : {8u, 16u, 32u})
    {
        IncastResult r = RunIncast(senders, 2000000, "dcqcn", true);
        EXPECT_EQ(r.drops, 0u);
        EXPECT_EQ(r.delivered, senders * 2000000ull);
        EXPECT_GT(r.ecnMarked, 0u);
        EXPECT_GT(r.cnps, 0u);
        EXPECT_GE(r.makespan, r.bound);
        std::cout << "DCQCN incast " << senders << " x 2 MB: makespan " << r.makespan * 1e6
                  << " us = " << r.makespan / r.bound << " x bound, " << r.pauses
                  << " PFC pauses\n";
        Simulator::Destroy();
    }
}

TEST_F(RoceSwitchTest, LossyIncastDropsAndStillCompletes)
{
    IncastResult r = RunIncast(8, 500000, "none", false, 600000);
    EXPECT_GT(r.drops, 0u);
    EXPECT_EQ(r.pauses, 0u) << "PFC is off";
    EXPECT_EQ(r.delivered, 8 * 500000ull) << "go-back-N and the timeout recover every loss";
}

TEST_F(RoceSwitchTest, DcqcnSharesABottleneckFairly)
{
    RoceFabricHelper helper;
    // The HPCC simulator's DCQCN, on which this fairness was established. With the ConnectX
    // defaults a queue pair cut to RPG_MIN_RATE (1 Mb/s) waits a frame time at that rate
    // (about 8 ms) before the NIC looks at its rate again, and the link idles.
    helper.SetCongestionControl("dcqcn[profile=hpcc]");
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(3, kRate, 1000));
    RoceFlowMonitor monitor(fabric);
    RdmaMessageInfo info;
    info.bytes = 200000000; // long enough to outlast the measurement
    fabric->SendMessage(1, 0, info, Seconds(0));
    fabric->SendMessage(2, 0, info, MilliSeconds(1)); // arrives at a busy link
    // Bytes each sender put on its link during [t0, t1].
    const Time t0 = MilliSeconds(6);
    const Time t1 = MilliSeconds(12);
    uint64_t at0[2];
    uint64_t at1[2];
    Simulator::Schedule(t0, [&]() {
        at0[0] = fabric->GetChannel(1)->GetTxBytes(0);
        at0[1] = fabric->GetChannel(2)->GetTxBytes(0);
    });
    Simulator::Schedule(t1, [&]() {
        at1[0] = fabric->GetChannel(1)->GetTxBytes(0);
        at1[1] = fabric->GetChannel(2)->GetTxBytes(0);
    });
    Simulator::Stop(t1 + NanoSeconds(1));
    Simulator::Run();
    const double r1 = (at1[0] - at0[0]) * 8.0 / (t1 - t0).GetSeconds();
    const double r2 = (at1[1] - at0[1]) * 8.0 / (t1 - t0).GetSeconds();
    std::cout << "DCQCN shares: " << r1 / 1e9 << " and " << r2 / 1e9 << " Gb/s\n";
    EXPECT_NEAR(r1 / (r1 + r2), 0.5, 0.05) << "within 10% of equal shares";
    EXPECT_GT(r1 + r2, 0.8 * kRate) << "and the link stays busy";
    EXPECT_GT(monitor.GetEcnMarked(), 0u);
    EXPECT_GT(monitor.GetCnpsSent(), 0u);
    EXPECT_EQ(fabric->GetTotalDrops(), 0u);
}

TEST_F(RoceSwitchTest, PfcPauseWithoutResumeExpiresPerClass)
{
    RoceFabricHelper helper;
    helper.SetCongestionControl("none");
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(3, kRate, 1000));
    RoceFlowMonitor monitor(fabric);
    RdmaMessageInfo lo;
    lo.bytes = 10000000;
    lo.priority = 3;
    RdmaMessageInfo hi = lo;
    hi.priority = 4;
    // Host 0 sends class 3 to host 1 and class 4 to host 2; the NIC serves
    // class 4 first, so class 3 only moves while class 4 is paused.
    fabric->SendMessage(0, 1, lo, Seconds(0));
    fabric->SendMessage(0, 2, hi, Seconds(0));
    Ptr<RoceNetDevice> port = fabric->GetNic(0)->GetPort();
    const uint16_t quanta = 1000; // 1000 x 512 bit times at 100G = 5.12 us
    const Time pauseAt = MicroSeconds(20);
    const Time pauseLength = NanoSeconds(1000 * 512 / 100);
    Simulator::Schedule(pauseAt, [port, quanta]() {
        PfcHeader pfc;
        pfc.SetQuanta(4, quanta);
        Ptr<Packet> frame = Create<Packet>();
        frame->AddHeader(pfc);
        port->Receive(frame); // as if the switch had sent it, and never a RESUME
    });
    // Frames toward host 1 (class 3) and host 2 (class 4) on the switch's egress links.
    std::vector<std::pair<uint64_t, uint64_t>> samples;
    auto sample = [&]() {
        samples.emplace_back(fabric->GetChannel(1)->GetTxPackets(1),
                             fabric->GetChannel(2)->GetTxPackets(1));
    };
    // In-flight frames need two hops (~2.2 us) to drain after the pause.
    Simulator::Schedule(pauseAt + MicroSeconds(2.5), sample);
    Simulator::Schedule(pauseAt + pauseLength, sample);
    Simulator::Schedule(pauseAt + pauseLength + MicroSeconds(4), sample);
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();
    ASSERT_EQ(samples.size(), 3u);
    EXPECT_EQ(samples[0].second, samples[1].second) << "class 4 paused";
    EXPECT_GT(samples[1].first, samples[0].first) << "class 3 not paused";
    EXPECT_GT(samples[2].second, samples[1].second) << "the pause expired by itself";
    EXPECT_FALSE(port->IsPaused(4));
}

TEST_F(RoceSwitchTest, StrictPriorityAndDwrrBetweenClasses)
{
    for (bool dwrr : {false, true})
    {
        RoceFabricHelper helper;
        helper.SetCongestionControl("none");
        helper.SetDeviceAttribute(
            "DataScheduling",
            EnumValue(dwrr ? RoceNetDevice::DWRR : RoceNetDevice::STRICT_PRIORITY));
        Ptr<RoceFabric> fabric = helper.Install(MakeStar(3, kRate, 1000));
        RoceFlowMonitor monitor(fabric);
        RdmaMessageInfo lo;
        lo.bytes = 2000000;
        lo.priority = 1;
        RdmaMessageInfo hi = lo;
        hi.priority = 5;
        uint64_t loId = fabric->SendMessage(1, 0, lo, Seconds(0));
        uint64_t hiId = fabric->SendMessage(2, 0, hi, Seconds(0));
        Simulator::Run();
        ASSERT_EQ(monitor.GetCompletedFlows(), 2u);
        const double loEnd = monitor.GetFlows().at(loId).delivered.GetSeconds();
        const double hiEnd = monitor.GetFlows().at(hiId).delivered.GetSeconds();
        const double alone = 2000000 * 1.08 * 8.0 / kRate; // one message at line rate
        if (!dwrr)
        {
            // The high class runs as if alone; the low class waits for it.
            EXPECT_LT(hiEnd, 1.1 * alone);
            EXPECT_GT(loEnd, 1.9 * alone);
        }
        else
        {
            // Equal quanta: both share the link and finish together.
            EXPECT_GT(hiEnd, 1.8 * alone);
            EXPECT_NEAR(loEnd / hiEnd, 1.0, 0.05);
        }
        EXPECT_EQ(fabric->GetTotalDrops(), 0u);
        Simulator::Destroy();
    }
}

TEST_F(RoceSwitchTest, EcmpPermutationUsesEveryCoreSwitch)
{
    RoceFabricHelper helper;
    helper.SetCongestionControl("dcqcn");
    FatTreeParams ft;
    ft.k = 4;
    FabricTopology topo = MakeFatTree(ft);
    Ptr<RoceFabric> fabric = helper.Install(topo);
    RoceFlowMonitor monitor(fabric);
    // Every host sends to the host with the same position in the next pod,
    // several messages each (distinct queue pairs, distinct UDP ports).
    const uint32_t n = fabric->GetNHosts();
    for (uint32_t h = 0; h < n; ++h)
    {
        for (int m = 0; m < 4; ++m)
        {
            RdmaMessageInfo info;
            info.bytes = 20000;
            fabric->SendMessage(h, (h + n / 4) % n, info, Seconds(0));
        }
    }
    Simulator::Run();
    EXPECT_EQ(monitor.GetCompletedFlows(), 4u * n);
    std::set<uint32_t> coresUsed;
    uint32_t cores = 0;
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const FabricLink& link = topo.GetLink(l);
        for (uint32_t node : {link.a, link.b})
        {
            if (!topo.IsHost(node) && topo.GetNode(node).tier == 3)
            {
                if (fabric->GetChannel(l)->GetTxBytes(0) + fabric->GetChannel(l)->GetTxBytes(1) > 0)
                {
                    coresUsed.insert(node);
                }
            }
        }
    }
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        cores += !topo.IsHost(node) && topo.GetNode(node).tier == 3;
    }
    EXPECT_EQ(cores, 4u);
    EXPECT_EQ(coresUsed.size(), cores);
}

} // namespace
