/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN at work in a fabric, with PFC off so that nothing but the reaction
 * point can hold the bottleneck queue down: a 4:1 incast through one switch
 * with a deep buffer. Expectations are independent of the implementation:
 * the queue that open-loop senders build (bytes offered minus bytes the
 * bottleneck drained), conservation, and equal shares between identical
 * senders.
 *
 * Two DCQCN configurations are held to it: the HPCC simulator's (profile
 * hpcc) and the ConnectX firmware's with its byte counter off. The ConnectX
 * defaults alone do not pass, and are not meant to: their 32 KB byte
 * counter brings the rate halfway back to a target left at line rate
 * (CLAMP_TGT_RATE 0) every 32 KB sent, faster than one CNP per 4 us cuts
 * it, so without PFC the 4:1 incast's queue reaches 17.6 of the open loop's
 * 24.3 MB (doc/collective-scheduling.rst, "DCQCN parameters").
 *
 * Checked against broken variants: with the reaction point disabled
 * (ns3::Dcqcn::MinRate=100Gbps, so a CNP cannot lower the rate) the peak
 * queue equals the cc=none one and both tests fail; with CNPs never sent
 * (ns3::RdmaNic::CnpInterval at 1 s) likewise. With PFC on, the old fabric
 * tests passed with the reaction point disabled: PFC alone bounds the queue,
 * which is why PFC is off here.
 */

#include "fabric-test-util.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint64_t kRate = 100000000000ull;
constexpr uint32_t kSenders = 4;

class DcqcnFabricTest : public FabricTest, public ::testing::WithParamInterface<const char*>
{
  protected:
    struct Result
    {
        uint64_t peakQueue{0}; ///< largest bottleneck egress backlog seen, bytes
        uint64_t drops{0};
        uint64_t delivered{0};
        uint64_t cnps{0};
        std::vector<double> windowRates; ///< per sender, bit/s over the measurement window
    };

    /**
     * kSenders hosts write \p bytes each to host 0 through one switch, PFC
     * off, a 64 MB buffer. The bottleneck egress (the switch's port 0, to
     * host 0) is sampled every 200 ns; each sender's link bytes are read at
     * \p t0 and \p t1.
     */
    Result Run(const std::string& cc, uint64_t bytes, Time t0, Time t1)
    {
        RoceFabricHelper helper;
        helper.SetCongestionControl(cc);
        helper.SetSwitchAttribute("PfcEnabled", BooleanValue(false));
        helper.SetMmuAttribute("BufferSize", UintegerValue(64 * 1024 * 1024));
        // Lossy egress may take the whole pool: nothing is dropped for want of buffer.
        helper.SetMmuAttribute("EgressAlpha", DoubleValue(1e6));
        Ptr<RoceFabric> fabric = helper.Install(MakeStar(kSenders + 1, kRate, 1000));
        RoceFlowMonitor monitor(fabric);
        for (uint32_t s = 1; s <= kSenders; ++s)
        {
            RdmaMessageInfo info;
            info.bytes = bytes;
            fabric->SendMessage(s, 0, info, Seconds(0));
        }
        Result r;
        // MakeStar: the switch is node 0 and its port 0 faces host 0.
        Ptr<SwitchMmu> mmu = fabric->GetSwitch(0)->GetMmu();
        std::function<void()> sample = [&]() {
            uint64_t q = 0;
            for (uint8_t c = 0; c < SwitchMmu::kClasses; ++c)
            {
                q += mmu->GetEgressBytes(0, c);
            }
            r.peakQueue = std::max(r.peakQueue, q);
            if (monitor.GetCompletedFlows() < kSenders)
            {
                Simulator::Schedule(NanoSeconds(200), sample);
            }
        };
        Simulator::ScheduleNow(sample);
        std::vector<uint64_t> at0(kSenders);
        std::vector<uint64_t> at1(kSenders);
        // Link h joins host h (end 0) and the switch; senders are hosts 1..kSenders.
        Simulator::Schedule(t0, [&]() {
            for (uint32_t s = 0; s < kSenders; ++s)
            {
                at0[s] = fabric->GetChannel(s + 1)->GetTxBytes(0);
            }
        });
        Simulator::Schedule(t1, [&]() {
            for (uint32_t s = 0; s < kSenders; ++s)
            {
                at1[s] = fabric->GetChannel(s + 1)->GetTxBytes(0);
            }
        });
        Simulator::Run();
        for (uint32_t s = 0; s < kSenders; ++s)
        {
            r.windowRates.push_back((at1[s] - at0[s]) * 8.0 / (t1 - t0).GetSeconds());
        }
        for (const auto& [id, f] : monitor.GetFlows())
        {
            if (!f.delivered.IsNegative())
            {
                r.delivered += f.info.bytes;
            }
        }
        r.drops = fabric->GetTotalDrops();
        r.cnps = monitor.GetCnpsSent();
        Simulator::Destroy();
        return r;
    }
};

TEST_P(DcqcnFabricTest, IncastQueueStaysFarBelowOpenLoopWithoutPfc)
{
    // 4 x 8 MB: 2.7 ms at the bottleneck. Open loop, the senders offer 400 Gb/s
    // to a 100 Gb/s port for as long as each takes to send 8 MB at line rate
    // (0.67 ms), so the backlog peaks near 3/4 of the 32 MB offered: ~24 MB.
    const uint64_t bytes = 8000000;
    const Result open = Run("none", bytes, MilliSeconds(1), MilliSeconds(2));
    const Result dcqcn = Run(GetParam(), bytes, MilliSeconds(1), MilliSeconds(2));

    const double offered = kSenders * bytes;
    EXPECT_GT(open.peakQueue, 0.6 * offered) << "open-loop senders must build the full backlog";
    EXPECT_EQ(open.drops, 0u) << "the 64 MB buffer holds the open-loop backlog";

    EXPECT_EQ(dcqcn.drops, 0u);
    EXPECT_EQ(dcqcn.delivered, kSenders * bytes);
    EXPECT_GT(dcqcn.cnps, 0u);
    // DCQCN cuts the senders to their share within tens of microseconds: the
    // queue stays a small fraction of the open-loop one.
    EXPECT_LT(dcqcn.peakQueue, open.peakQueue / 10)
        << "DCQCN peak " << dcqcn.peakQueue << " B, open loop " << open.peakQueue << " B";
}

TEST_P(DcqcnFabricTest, IncastSendersConvergeToEqualShares)
{
    // 4 x 64 MB, measured over [8 ms, 18 ms], well after the first cuts and
    // before the first sender finishes (20.5 ms at a quarter of 100 Gb/s).
    const uint64_t bytes = 64000000;
    const Result r = Run(GetParam(), bytes, MilliSeconds(8), MilliSeconds(18));
    EXPECT_EQ(r.drops, 0u);
    ASSERT_EQ(r.windowRates.size(), kSenders);
    double sum = 0;
    for (double x : r.windowRates)
    {
        sum += x;
    }
    // Each sender within 10% of the equal share of what they get together.
    const double share = sum / kSenders;
    for (uint32_t s = 0; s < kSenders; ++s)
    {
        EXPECT_NEAR(r.windowRates[s], share, 0.10 * share)
            << "sender " << s + 1 << ": " << r.windowRates[s] / 1e9 << " Gb/s of a " << share / 1e9
            << " Gb/s share";
    }
    EXPECT_GT(sum, 0.9 * kRate) << "and together they keep the bottleneck busy";
}

INSTANTIATE_TEST_SUITE_P(Profiles,
                         DcqcnFabricTest,
                         ::testing::Values("dcqcn[profile=hpcc]", "dcqcn[ByteCounter=0]"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                             return std::string(info.index == 0 ? "Hpcc" : "ConnectxNoByteCounter");
                         });

} // namespace
