/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The RDMA NIC end to end over one switch: flow completion time against
 * the analytic value, ACK coalescing (and its default), go-back-N after a
 * loss (also with coalesced ACKs), the retransmission timeout for lost
 * tails, NAKs and ACKs, the local ACK timeout's retry limit (a queue pair
 * whose peer never answers fails at the hand-computed time, progress resets
 * the count, the fixed timeout retries without limit), PSN wrap, and job
 * gates.
 */

#include "fabric-test-util.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint64_t kRate = 100000000000ull; // 100 Gb/s
constexpr int64_t kDelayNs = 1000;

class RdmaNicTest : public FabricTest
{
  protected:
    /// Two hosts through one switch; flows from host 0 to host 1. AckInterval 0: the NIC's default.
    Ptr<RoceFabric> BuildPair(uint32_t ackInterval = 1, uint32_t mtu = 1000)
    {
        RoceFabricHelper helper;
        helper.SetCongestionControl("none");
        if (ackInterval > 0)
        {
            helper.SetNicAttribute("AckInterval", UintegerValue(ackInterval));
        }
        helper.SetNicAttribute("PayloadPerPacket", UintegerValue(mtu));
        return helper.Install(MakeStar(2, kRate, kDelayNs));
    }

    /// \p hosts hosts through one switch, the NICs' defaults but no congestion control.
    static Ptr<RoceFabric> BuildStar(uint32_t hosts)
    {
        RoceFabricHelper helper;
        helper.SetCongestionControl("none");
        return helper.Install(MakeStar(hosts, kRate, kDelayNs));
    }

    /**
     * A 200-packet message from host 0 to host 1 whose 50th data frame
     * (index 49) is lost once, over \p fabric, checked for what go-back-N
     * gives at any ACK interval: one NAK recovers it, with no timeout, and
     * the sender resends the lost packet and everything sent after it.
     */
    static void ExpectOneLossRecoveredByGoBackN(Ptr<RoceFabric> fabric)
    {
        RoceFlowMonitor monitor(fabric);
        Ptr<RdmaNic> receiver = fabric->GetNic(1);
        auto em = DropOnReceive(receiver->GetPort(), [](const RoceHeader& h, uint64_t seen) {
            return h.IsData() && seen == 49;
        });
        RdmaMessageInfo info;
        info.bytes = 200000;
        fabric->SendMessage(0, 1, info, Seconds(0));
        Simulator::Run();
        ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
        EXPECT_EQ(em->GetDropped(), 1u);
        EXPECT_EQ(receiver->GetNaksSent(), 1u);
        EXPECT_EQ(fabric->GetNic(0)->GetTimeouts(), 0u) << "a NAK, not the timeout, recovers";
        const auto& f = monitor.GetFlows().begin()->second;
        EXPECT_GE(f.retransmittedBytes, 1000u);
        EXPECT_LT(f.retransmittedBytes, 200000u);
    }

    /**
     * Analytic FCT of one message over host-switch-host at line rate: each
     * hop is a store-and-forward server, so packet i leaves hop h when it
     * has fully arrived and packet i-1 has left (a tandem queue).
     */
    static double AnalyticFct(uint64_t bytes, uint32_t mtu)
    {
        uint64_t n = (bytes + mtu - 1) / mtu;
        const double delay = kDelayNs * 1e-9;
        std::vector<double> done(n, 0.0); // finish of serialization at the current hop
        for (int hop = 0; hop < 2; ++hop)
        {
            double free = 0;
            for (uint64_t i = 0; i < n; ++i)
            {
                double ready = hop == 0 ? 0.0 : done[i] + delay;
                double start = std::max(ready, free);
                free = start + WireOf(DataFrameBytes(bytes, mtu, i)) * 8.0 / kRate;
                done[i] = free;
            }
        }
        return done[n - 1] + delay;
    }
};

TEST_F(RdmaNicTest, OneFlowMatchesAnalyticFct)
{
    for (uint64_t bytes : {1000ull, 1500ull, 100000ull, 1234567ull})
    {
        Ptr<RoceFabric> fabric = BuildPair();
        RoceFlowMonitor monitor(fabric);
        RdmaMessageInfo info;
        info.bytes = bytes;
        fabric->SendMessage(0, 1, info, MicroSeconds(3));
        Simulator::Run();
        ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
        const auto& f = monitor.GetFlows().begin()->second;
        double fct = (f.delivered - f.info.start).GetSeconds();
        double expected = AnalyticFct(bytes, 1000);
        EXPECT_NEAR(fct, expected, 0.01 * expected) << bytes << " bytes";
        // Goodput never exceeds the line rate.
        EXPECT_LT(bytes * 8.0 / fct, static_cast<double>(kRate));
        // The sender hears the last ACK one small frame and two hops later.
        EXPECT_GT(f.acked, f.delivered);
        EXPECT_EQ(f.retransmittedBytes, 0u);
        EXPECT_EQ(fabric->GetNic(0)->GetActiveSendQueuePairs(), 0u)
            << "a completed queue pair is released";
        EXPECT_EQ(fabric->GetChannel(0)->GetTxBytes(0) + fabric->GetChannel(0)->GetTxBytes(1),
                  fabric->GetChannel(1)->GetTxBytes(0) + fabric->GetChannel(1)->GetTxBytes(1))
            << "every frame crossing the switch is forwarded";
        Simulator::Destroy();
    }
}

/**
 * A rate that steps from 1 Mb/s to line rate at a fixed time, and says when:
 * the shape of a DCQCN queue pair cut to its floor whose increase timer then
 * expires.
 */
class StepRate : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::StepRate")
                                .SetParent<RdmaCongestionOps>()
                                .SetGroupName("CollectiveScheduling")
                                .AddConstructor<StepRate>();
        return tid;
    }

    static constexpr int64_t kStepNs = 20000;

    std::string GetName() const override
    {
        return "StepRate";
    }

    Ptr<RdmaCongestionOps> Fork() const override
    {
        return CreateObject<StepRate>();
    }

    void Init(DataRate lineRate, Time /* now */) override
    {
        m_line = lineRate;
    }

    DataRate GetRate(Time now) override
    {
        return now < NanoSeconds(kStepNs) ? DataRate("1Mbps") : m_line;
    }

    Time GetNextRateChange(Time now) override
    {
        return now < NanoSeconds(kStepNs) ? NanoSeconds(kStepNs) : Time::Max();
    }

  private:
    DataRate m_line;
};

NS_OBJECT_ENSURE_REGISTERED(StepRate);

TEST_F(RdmaNicTest, RateRaisedWhileWaitingShortensTheWait)
{
    // The first 4 KB frame leaves at 0 at 1 Mb/s: its gap at that rate is
    // 33 ms. At 20 us the rate steps to line rate, and the waiting queue pair
    // must send its second frame then, as the NIC's rate limiter does, and
    // the rest back to back. Broken once (the NIC left to wait out the gap it
    // computed at the last send): the message took 33 ms.
    RoceFabricHelper helper;
    helper.SetCongestionControl("ns3::test::StepRate");
    helper.SetNicAttribute("PayloadPerPacket", UintegerValue(4096));
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(2, kRate, kDelayNs));
    RoceFlowMonitor monitor(fabric);
    RdmaMessageInfo info;
    info.bytes = 10 * 4096;
    fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
    const auto& f = monitor.GetFlows().begin()->second;
    // From 20 us, 9 frames back to back at 100 Gb/s then store-and-forward
    // through one switch: last frame delivered by 20 + 9 x 0.33 + 2 x (1 +
    // 0.33) us, about 25.7 us; allow 1 us.
    const double frame = WireOf(DataFrameBytes(info.bytes, 4096, 1)) * 8.0 / kRate;
    const double expected = StepRate::kStepNs * 1e-9 + 9 * frame + 2 * (kDelayNs * 1e-9 + frame);
    EXPECT_NEAR(f.delivered.GetSeconds(), expected, 1e-6);
}

TEST_F(RdmaNicTest, FinishedMessagesLeaveNoTimeoutsBehind)
{
    // 200 messages complete; their timeouts (4.29 s, InfiniBand's default)
    // must not stay in the simulator's queue: after the last completion the
    // simulator runs at most the NIC's one timeout wake-up per NIC. Broken
    // once (a finished queue pair's timeout left queued, as a cancelled
    // per-queue-pair event is): 200 events ran after the last completion.
    Ptr<RoceFabric> fabric = BuildPair(0, 4096);
    const uint32_t messages = 200;
    uint32_t completed = 0;
    uint64_t eventsAtLast = 0;
    fabric->GetNic(0)->TraceConnectWithoutContext(
        "SendComplete",
        Callback<void, const RdmaMessageInfo&, Time, uint64_t>(
            [&](const RdmaMessageInfo&, Time, uint64_t) {
                if (++completed == messages)
                {
                    eventsAtLast = Simulator::GetEventCount();
                }
            }));
    for (uint32_t m = 0; m < messages; ++m)
    {
        RdmaMessageInfo info;
        info.bytes = 8192;
        fabric->SendMessage(0, 1, info, MicroSeconds(m));
    }
    Simulator::Run();
    ASSERT_EQ(completed, messages);
    EXPECT_LE(Simulator::GetEventCount() - eventsAtLast, 2u);
}

TEST_F(RdmaNicTest, AckEveryNPacketsForEveryN)
{
    for (uint32_t n : {1u, 2u, 3u, 7u, 16u, 64u})
    {
        for (uint64_t packets : {1ull, 5ull, 16ull, 100ull})
        {
            Ptr<RoceFabric> fabric = BuildPair(n);
            RoceFlowMonitor monitor(fabric);
            RdmaMessageInfo info;
            info.bytes = packets * 1000;
            fabric->SendMessage(0, 1, info, Seconds(0));
            Simulator::Run();
            ASSERT_EQ(monitor.GetCompletedFlows(), 1u) << "N=" << n << " packets=" << packets;
            // ACK after every N-th in-order packet, and always after the last.
            uint64_t expectedAcks = (packets - 1) / n + 1;
            // Link 1 joins host 1 (end 0) and the switch: host 1 sends only ACKs.
            EXPECT_EQ(fabric->GetChannel(1)->GetTxPackets(0), expectedAcks)
                << "N=" << n << " packets=" << packets;
            Simulator::Destroy();
        }
    }
}

TEST_F(RdmaNicTest, GoBackNAfterOneLostPacket)
{
    ExpectOneLossRecoveredByGoBackN(BuildPair());
}

TEST_F(RdmaNicTest, DefaultAckIntervalIsSixteenPackets)
{
    // The default coalesces 16 packets per ACK: a 100-packet message gets
    // ACKs after packets 16, 32, 48, 64, 80, 96 and the last, 7 in all
    // (ceil(100 / 16)). Breaking it (a default of 1) gives 100 and fails.
    Ptr<RoceFabric> fabric = BuildPair(0);
    UintegerValue n;
    fabric->GetNic(1)->GetAttribute("AckInterval", n);
    EXPECT_EQ(n.Get(), 16u);
    RoceFlowMonitor monitor(fabric);
    RdmaMessageInfo info;
    info.bytes = 100 * 1000;
    fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
    EXPECT_EQ(fabric->GetChannel(1)->GetTxPackets(0), 7u);
}

TEST_F(RdmaNicTest, GoBackNWithCoalescedAcks)
{
    // 200 packets, an ACK every 16, the 50th data frame (index 49) lost once.
    // The receiver has counted 49 in-order packets (ACKs after 16, 32, 48),
    // NAKs the gap at once, once, and drops what follows until the resent 49
    // arrives; the sender goes back to 49 on the NAK. Frames sent before the
    // go-back arrive before the resent ones (one FIFO path), so nothing is a
    // duplicate, and the in-order count still reaches 64, 80, ..., 192 and
    // the last: 13 ACKs (ceil(200 / 16)) and 1 NAK, 14 frames from the
    // receiver, and no timeout. Holding the NAK back until an ACK would be
    // due (NAKs coalesced like ACKs) leaves the gap to the timeout, and the
    // test fails on the NAK, timeout and frame counts.
    Ptr<RoceFabric> fabric = BuildPair(16);
    ExpectOneLossRecoveredByGoBackN(fabric);
    EXPECT_EQ(fabric->GetChannel(1)->GetTxPackets(0), 14u) << "13 ACKs and 1 NAK";
}

TEST_F(RdmaNicTest, TimeoutRecoversLostTail)
{
    Ptr<RoceFabric> fabric = BuildPair();
    RoceFlowMonitor monitor(fabric);
    const Time rto = MilliSeconds(1);
    fabric->GetNic(0)->SetAttribute("RetransmitTimeout", TimeValue(rto));
    // Drop the last data packet (WRITE_LAST) the first time only: no later
    // packet can reveal the gap, so no NAK comes.
    bool dropped = false;
    DropOnReceive(fabric->GetNic(1)->GetPort(), [&dropped](const RoceHeader& h, uint64_t) {
        if (!dropped && h.GetOpcode() == RoceOpcode::WRITE_LAST)
        {
            dropped = true;
            return true;
        }
        return false;
    });
    RdmaMessageInfo info;
    info.bytes = 50000;
    fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
    EXPECT_EQ(fabric->GetNic(0)->GetTimeouts(), 1u);
    EXPECT_EQ(fabric->GetNic(1)->GetNaksSent(), 0u);
    const auto& f = monitor.GetFlows().begin()->second;
    EXPECT_GE(f.delivered - f.info.start, rto);
}

TEST_F(RdmaNicTest, TimeoutRecoversLostNak)
{
    Ptr<RoceFabric> fabric = BuildPair();
    RoceFlowMonitor monitor(fabric);
    fabric->GetNic(0)->SetAttribute("RetransmitTimeout", TimeValue(MicroSeconds(500)));
    DropOnReceive(fabric->GetNic(1)->GetPort(),
                  [](const RoceHeader& h, uint64_t seen) { return h.IsData() && seen == 10; });
    auto nakDrop = DropOnReceive(fabric->GetNic(0)->GetPort(), [](const RoceHeader& h, uint64_t) {
        return h.GetOpcode() == RoceOpcode::ACKNOWLEDGE &&
               h.GetSyndrome() == RoceHeader::kNakSequenceError;
    });
    RdmaMessageInfo info;
    info.bytes = 100000;
    fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
    EXPECT_EQ(nakDrop->GetDropped(), 1u);
    EXPECT_GE(fabric->GetNic(0)->GetTimeouts(), 1u);
}

TEST_F(RdmaNicTest, TimeoutRecoversLostFinalAck)
{
    Ptr<RoceFabric> fabric = BuildPair();
    RoceFlowMonitor monitor(fabric);
    fabric->GetNic(0)->SetAttribute("RetransmitTimeout", TimeValue(MicroSeconds(500)));
    bool dropped = false;
    // With ACK per packet, the 20th ACK of a 20-packet message is the final one.
    auto em =
        DropOnReceive(fabric->GetNic(0)->GetPort(), [&dropped](const RoceHeader& h, uint64_t seen) {
            if (!dropped && h.GetOpcode() == RoceOpcode::ACKNOWLEDGE && seen == 19)
            {
                dropped = true;
                return true;
            }
            return false;
        });
    RdmaMessageInfo info;
    info.bytes = 20000;
    fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
    EXPECT_EQ(em->GetDropped(), 1u);
    EXPECT_EQ(fabric->GetNic(0)->GetTimeouts(), 1u);
    const auto& f = monitor.GetFlows().begin()->second;
    EXPECT_LT(f.delivered, MicroSeconds(100)) << "the data itself arrived on time";
    EXPECT_GE(f.acked, MicroSeconds(500)) << "the sender learned it only after a timeout";
}

/**
 * A queue pair whose peer never answers: the receiver's port drops every
 * data frame. The first packet leaves at the start time s (the port is
 * idle), so the timer counts from s; expiry k at s + k T finds no progress,
 * goes back and resends at once (the wire is free again by then), which
 * restarts the count from s + k T. After R retries the next expiry, the
 * (R+1)-th, at s + (R+1) T, fails the message. Times below are computed by
 * hand from T = 4.096 us x 2^N.
 */
struct NeverAnsweringCase
{
    uint32_t exponent; ///< 0: leave the NIC's default
    uint32_t retries;  ///< RetryCount; with exponent 0, the default
    Time timeout;      ///< T, by hand
};

TEST_F(RdmaNicTest, NeverAnsweringPeerFailsAfterRetryCountPlusOneTimeouts)
{
    const std::vector<NeverAnsweringCase> cases = {
        {8, 3, NanoSeconds(1048576)},   // 4.096 us x 256; fails at 3 us + 4 x T = 4197.304 us
        {1, 0, NanoSeconds(8192)},      // 4.096 us x 2; fails at the first expiry, 11.192 us
        {0, 7, NanoSeconds(4294967296)} // the defaults, NCCL's 20 and 7: 3 us + 8 x 4.294967296 s
    };
    for (const NeverAnsweringCase& c : cases)
    {
        Ptr<RoceFabric> fabric = BuildPair();
        RoceFlowMonitor monitor(fabric);
        Ptr<RdmaNic> nic = fabric->GetNic(0);
        nic->SetAttribute("AdaptiveRetransmission", BooleanValue(false));
        if (c.exponent > 0)
        {
            nic->SetAttribute("AckTimeoutExponent", UintegerValue(c.exponent));
            nic->SetAttribute("RetryCount", UintegerValue(c.retries));
        }
        EXPECT_EQ(nic->GetRetransmitTimeout(), c.timeout);
        EXPECT_EQ(nic->GetRecoveryMode(), RdmaNic::RecoveryMode::LOCAL_ACK);
        DropOnReceive(fabric->GetNic(1)->GetPort(),
                      [](const RoceHeader& h, uint64_t) { return h.IsData(); });
        const Time start = MicroSeconds(3);
        std::vector<Time> goBacks;
        nic->TraceConnectWithoutContext(
            "GoBack",
            MakeCallback(+[](std::vector<Time>* v, const RdmaMessageInfo&, uint64_t from) {
                EXPECT_EQ(from, 0u) << "nothing was ever acknowledged";
                v->push_back(Simulator::Now());
            }).Bind(&goBacks));
        // If the limit were broken the queue pair would retry for ever: this
        // guard stops the run two timeouts past the expected failure
        // instead; the failure cancels it, so then nothing is left to run.
        EventId guard =
            Simulator::Schedule(start + c.timeout * (c.retries + 3), []() { Simulator::Stop(); });
        std::vector<std::pair<Time, RdmaSendError>> failures;
        auto onFailed = [&failures, &guard](const RdmaMessageInfo& info, RdmaSendError e) {
            EXPECT_EQ(info.bytes, 10000u);
            failures.emplace_back(Simulator::Now(), e);
            Simulator::Remove(guard); // Cancel would leave it to advance the clock
        };
        nic->TraceConnectWithoutContext(
            "SendFailed",
            Callback<void, const RdmaMessageInfo&, RdmaSendError>(onFailed));
        RdmaMessageInfo info;
        info.bytes = 10000;
        fabric->SendMessage(0, 1, info, start);
        Simulator::Run();
        const std::string what =
            "exponent " + std::to_string(c.exponent) + ", RetryCount " + std::to_string(c.retries);
        ASSERT_EQ(failures.size(), 1u) << what << ": SendFailed fires exactly once";
        EXPECT_EQ(failures[0].first, start + c.timeout * (c.retries + 1)) << what;
        EXPECT_EQ(failures[0].second, RdmaSendError::RETRY_EXCEEDED) << what;
        ASSERT_EQ(goBacks.size(), c.retries) << what << ": one go-back per retry";
        for (uint32_t k = 0; k < c.retries; ++k)
        {
            EXPECT_EQ(goBacks[k], start + c.timeout * (k + 1)) << what << ", retry " << k + 1;
        }
        EXPECT_EQ(nic->GetTimeouts(), c.retries + 1u) << what;
        EXPECT_EQ(nic->GetSendsFailed(), 1u) << what;
        EXPECT_EQ(nic->GetActiveSendQueuePairs(), 0u) << what << ": the failed queue pair is gone";
        EXPECT_EQ(monitor.GetCompletedFlows(), 0u) << what;
        EXPECT_EQ(Simulator::Now(), failures[0].first)
            << what << ": the run ended on its own at the failure, with nothing left to run";
        Simulator::Destroy();
    }
}

TEST_F(RdmaNicTest, PeerAnsweringBeforeTheLimitDoesNotFail)
{
    // RetryCount 3, T = 1048.576 us: the peer drops everything until 2.5 T,
    // so expiries 1 and 2 (at s + T, s + 2 T) retry in vain; the resend at
    // expiry 3 (s + 3 T, the last retry allowed) is answered and the message
    // completes with 3 timeouts and no failure. A limit one too low (a retry
    // counted before the check) fails it at expiry 3.
    Ptr<RoceFabric> fabric = BuildPair();
    RoceFlowMonitor monitor(fabric);
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    nic->SetAttribute("AdaptiveRetransmission", BooleanValue(false));
    nic->SetAttribute("AckTimeoutExponent", UintegerValue(8));
    nic->SetAttribute("RetryCount", UintegerValue(3));
    const Time t = NanoSeconds(1048576);
    const Time start = MicroSeconds(3);
    const Time heal = start + t * 5 / 2;
    DropOnReceive(fabric->GetNic(1)->GetPort(), [heal](const RoceHeader& h, uint64_t) {
        return h.IsData() && Simulator::Now() < heal;
    });
    RdmaMessageInfo info;
    info.bytes = 10000;
    fabric->SendMessage(0, 1, info, start);
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
    EXPECT_EQ(nic->GetSendsFailed(), 0u);
    EXPECT_EQ(nic->GetTimeouts(), 3u);
    const auto& f = monitor.GetFlows().begin()->second;
    EXPECT_GE(f.delivered, start + t * 3);
    EXPECT_LT(f.delivered, start + t * 3 + MicroSeconds(10));
}

TEST_F(RdmaNicTest, ProgressResetsTheRetryCount)
{
    // RetryCount 1 allows one timeout in a row. 20 packets, first PSN 0; the
    // peer drops the first copy of packets 10-19 and the second copy of
    // packet 19. Packets 0-9 are acknowledged; 10-19 vanish with nothing
    // after them to reveal the gap, so timeout 1 goes back to 10; 10-18
    // arrive and are acknowledged (progress), 19 vanishes again, and timeout
    // 2 comes with the count reset to 0: it retries, 19 arrives, the message
    // completes after 2 timeouts. Without the reset, timeout 2 would be the
    // second in a row and fail the message.
    Ptr<RoceFabric> fabric = BuildPair();
    fabric->GetNic(0)->SetAttribute("InitialPsn",
                                    StringValue("ns3::ConstantRandomVariable[Constant=0]"));
    RoceFlowMonitor monitor(fabric);
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    nic->SetAttribute("AdaptiveRetransmission", BooleanValue(false));
    nic->SetAttribute("AckTimeoutExponent", UintegerValue(8));
    nic->SetAttribute("RetryCount", UintegerValue(1));
    std::map<uint32_t, uint32_t> copies;
    DropOnReceive(fabric->GetNic(1)->GetPort(), [&copies](const RoceHeader& h, uint64_t) {
        if (!h.IsData())
        {
            return false;
        }
        const uint32_t psn = h.GetPsn();
        const uint32_t copy = ++copies[psn];
        return (psn >= 10 && copy == 1) || (psn == 19 && copy == 2);
    });
    RdmaMessageInfo info;
    info.bytes = 20000;
    fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
    EXPECT_EQ(nic->GetTimeouts(), 2u);
    EXPECT_EQ(nic->GetSendsFailed(), 0u);
    EXPECT_EQ(copies[19], 3u) << "packet 19 went out three times";
    EXPECT_EQ(copies[9], 1u) << "what was acknowledged is never resent";
}

TEST_F(RdmaNicTest, FixedTimeoutRetriesWithoutLimit)
{
    // RetransmitTimeout 100 us selects the HPCC-lineage mode: RetryCount (set
    // to 0 here) does not apply. The peer never answers; expiries at
    // s + k x 100 us each go back, 100 of them by s + 10.0 ms, and the queue
    // pair is still alive when the run stops at 10.05 ms. Applying the limit
    // in this mode fails the message at the first expiry.
    Ptr<RoceFabric> fabric = BuildPair();
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    nic->SetAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
    nic->SetAttribute("RetryCount", UintegerValue(0));
    EXPECT_EQ(nic->GetRecoveryMode(), RdmaNic::RecoveryMode::FIXED);
    EXPECT_EQ(nic->GetRetransmitTimeout(), MicroSeconds(100));
    DropOnReceive(fabric->GetNic(1)->GetPort(),
                  [](const RoceHeader& h, uint64_t) { return h.IsData(); });
    RdmaMessageInfo info;
    info.bytes = 10000;
    fabric->SendMessage(0, 1, info, MicroSeconds(3));
    Simulator::Stop(MicroSeconds(10050));
    Simulator::Run();
    EXPECT_EQ(nic->GetTimeouts(), 100u);
    EXPECT_EQ(nic->GetSendsFailed(), 0u);
    EXPECT_EQ(nic->GetActiveSendQueuePairs(), 1u);
}

TEST_F(RdmaNicTest, FailureFlushesTheConnection)
{
    // Three messages posted together on one connection (one UDP source
    // port): the first, of 1000 packets (80 us on the wire), is sending; the
    // other two wait until it has sent its last packet. The peer never
    // answers, so with T = 65.536 us the first goes back to its start near T
    // and 2 T (when the frame on the wire ends), never reaching its end, and
    // fails near 3 T with the retry count exceeded; the queue pair's error
    // state flushes the two behind it, in posting order, at the same instant. A fourth message
    // posted later on the connection fails at once, flushed; one on another connection is not
    // touched. Failing only the message that timed out leaves the other
    // three waiting for ever, and the test fails on the count of failures.
    Ptr<RoceFabric> fabric = BuildPair();
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    nic->SetAttribute("AdaptiveRetransmission", BooleanValue(false));
    nic->SetAttribute("AckTimeoutExponent", UintegerValue(4)); // T = 65.536 us
    nic->SetAttribute("RetryCount", UintegerValue(2));
    DropOnReceive(fabric->GetNic(1)->GetPort(), [](const RoceHeader& h, uint64_t) {
        return h.IsData() && h.GetSourcePort() == 0xC001;
    });
    std::vector<std::tuple<uint64_t, RdmaSendError, Time>> failed;
    nic->TraceConnectWithoutContext(
        "SendFailed",
        MakeCallback(+[](std::vector<std::tuple<uint64_t, RdmaSendError, Time>>* v,
                         const RdmaMessageInfo& info,
                         RdmaSendError e) {
            v->emplace_back(info.flowId, e, Simulator::Now());
        }).Bind(&failed));
    RoceFlowMonitor monitor(fabric);
    RdmaMessageInfo info;
    info.srcPort = 0xC001;
    std::vector<uint64_t> ids;
    for (uint64_t bytes : {1000000, 10000, 10000})
    {
        info.bytes = bytes;
        ids.push_back(fabric->SendMessage(0, 1, info, Seconds(0)));
    }
    // Each go-back waits for at most one 1058-byte frame (85 ns) on the wire.
    const Time earliest = NanoSeconds(65536) * 3;
    const Time lateAt = earliest + MicroSeconds(10);
    info.bytes = 10000;
    const uint64_t late = fabric->SendMessage(0, 1, info, lateAt);
    RdmaMessageInfo other = info;
    other.srcPort = 0xC002;
    fabric->SendMessage(0, 1, other, lateAt);
    Simulator::Run();
    ASSERT_EQ(failed.size(), 4u);
    const Time failAt = std::get<2>(failed[0]);
    EXPECT_GE(failAt, earliest);
    EXPECT_LT(failAt, earliest + NanoSeconds(3 * 85));
    EXPECT_EQ(failed[0], std::make_tuple(ids[0], RdmaSendError::RETRY_EXCEEDED, failAt));
    EXPECT_EQ(failed[1], std::make_tuple(ids[1], RdmaSendError::FLUSHED, failAt));
    EXPECT_EQ(failed[2], std::make_tuple(ids[2], RdmaSendError::FLUSHED, failAt));
    EXPECT_EQ(failed[3], std::make_tuple(late, RdmaSendError::FLUSHED, lateAt));
    EXPECT_EQ(monitor.GetCompletedFlows(), 1u) << "the other connection's message";
    EXPECT_EQ(nic->GetActiveSendQueuePairs(), 0u);
}

TEST_F(RdmaNicTest, FlowAcrossThePsnWrapCompletes)
{
    Ptr<RoceFabric> fabric = BuildPair();
    // First PSN 20 below the 24-bit wrap; the 200 packets cross it.
    fabric->GetNic(0)->SetAttribute("InitialPsn",
                                    StringValue("ns3::ConstantRandomVariable[Constant=" +
                                                std::to_string((1u << 24) - 20) + "]"));
    RoceFlowMonitor monitor(fabric);
    // And lose one packet after the wrap, so recovery uses wrapped PSNs too.
    std::vector<uint32_t> psns;
    DropOnReceive(fabric->GetNic(1)->GetPort(), [&psns](const RoceHeader& h, uint64_t seen) {
        if (h.IsData())
        {
            psns.push_back(h.GetPsn());
        }
        return h.IsData() && seen == 60;
    });
    RdmaMessageInfo info;
    info.bytes = 200000;
    fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 1u);
    EXPECT_EQ(fabric->GetNic(1)->GetNaksSent(), 1u);
    ASSERT_GE(psns.size(), 200u);
    EXPECT_EQ(psns.front(), (1u << 24) - 20);
    EXPECT_EQ(psns[20], 0u) << "the 21st packet carries PSN 0";
}

TEST(RocePsnTest, WrapArithmetic)
{
    const uint32_t top = (1u << 24) - 1;
    EXPECT_EQ(RocePsn::ToWire(top, 0), top);
    EXPECT_EQ(RocePsn::ToWire(top, 1), 0u);
    EXPECT_EQ(RocePsn::ToWire(5, 1ull << 24), 5u);
    // Brute force: every index near the reference round-trips, across wraps.
    for (uint32_t initial : {0u, 12345u, top - 3, top})
    {
        for (uint64_t reference : {0ull, 7ull, (1ull << 24) - 2, (1ull << 24) + 9, 1ull << 40})
        {
            for (int64_t d = -1000; d <= 1000; d += 7)
            {
                int64_t index = static_cast<int64_t>(reference) + d;
                if (index < 0)
                {
                    continue;
                }
                uint32_t wire = RocePsn::ToWire(initial, static_cast<uint64_t>(index));
                EXPECT_LE(wire, top);
                EXPECT_EQ(RocePsn::FromWire(initial, wire, reference),
                          static_cast<uint64_t>(index));
            }
        }
    }
    // The farthest representable distances, +/- 2^23.
    EXPECT_EQ(RocePsn::FromWire(0, RocePsn::ToWire(0, (1ull << 30) + (1u << 23) - 1), 1ull << 30),
              (1ull << 30) + (1u << 23) - 1);
    EXPECT_EQ(RocePsn::FromWire(0, RocePsn::ToWire(0, (1ull << 30) - (1u << 23)), 1ull << 30),
              (1ull << 30) - (1u << 23));
}

TEST_F(RdmaNicTest, ClosedGateSendsNothingAndReopensAtPacketBoundary)
{
    // Host 0 sends job 1's message to host 1 and job 2's to host 2.
    Ptr<RoceFabric> fabric = BuildStar(3);
    RoceFlowMonitor monitor(fabric);
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    nic->SetGate(1, false);
    RdmaMessageInfo a;
    a.bytes = 1000000;
    a.jobId = 1;
    RdmaMessageInfo b = a;
    b.jobId = 2;
    fabric->SendMessage(0, 1, a, Seconds(0));
    fabric->SendMessage(0, 2, b, Seconds(0));
    // When did each job-1 frame start leaving host 0? Its arrival at the
    // switch, less propagation and its own serialization.
    Ptr<RoceNetDevice> switchPort = fabric->GetChannel(0)->GetRoceDevice(1);
    const uint32_t host1 = RoceHostAddress(1);
    std::vector<Time> job1Starts;
    DropOnReceive(switchPort, [&](const RoceHeader& h, uint64_t) {
        if (h.IsData() && h.GetDestination() == host1)
        {
            Time tx = switchPort->GetTxTime(h.GetSerializedSize() + 1000 + 4);
            job1Starts.push_back(Simulator::Now() - NanoSeconds(kDelayNs) - tx);
        }
        return false;
    });
    const Time open1 = MicroSeconds(100);
    const Time close = MicroSeconds(130);
    const Time open2 = MicroSeconds(400);
    Simulator::Schedule(open1, [nic]() { nic->SetGate(1, true); });
    Simulator::Schedule(close, [nic]() { nic->SetGate(1, false); });
    Simulator::Schedule(open2, [nic]() { nic->SetGate(1, true); });
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 2u);
    ASSERT_FALSE(job1Starts.empty());
    // The gate takes effect at the next packet boundary: a frame that began
    // before the gate closed finishes, and none begins while it is closed.
    const Time frame = switchPort->GetTxTime(1058);
    uint32_t beforeOpen = 0;
    uint32_t whileClosed = 0;
    uint32_t straddling = 0;
    for (Time t : job1Starts)
    {
        beforeOpen += t < open1;
        whileClosed += t >= close && t < open2;
        straddling += t < close && t + frame > close;
    }
    EXPECT_EQ(beforeOpen, 0u) << "a closed gate sends nothing";
    EXPECT_EQ(whileClosed, 0u) << "nothing starts while the gate is closed";
    EXPECT_LE(straddling, 1u);
    EXPECT_GE(job1Starts.back(), open2);
    for (const auto& [id, f] : monitor.GetFlows())
    {
        if (f.info.jobId == 1)
        {
            EXPECT_GT(f.delivered, MicroSeconds(400));
        }
        else
        {
            // Job 2 ran alone for the first 100 us and shared the port after.
            EXPECT_LT(f.delivered, MicroSeconds(400));
        }
    }
}

TEST_F(RdmaNicTest, ClassChangeMovesUnsentQueuePairsOnly)
{
    // Job 1's two messages to host 1 share one connection (the second waits
    // behind the first) and are parked behind its closed gate; job 2's
    // message to host 2 is already sending. Both jobs move to class 5 at
    // 50 us: job 1's packets all go in class 5, job 2's keep class 3.
    Ptr<RoceFabric> fabric = BuildStar(3);
    RoceFlowMonitor monitor(fabric);
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    nic->SetGate(1, false);
    RdmaMessageInfo a;
    a.bytes = 200000;
    a.jobId = 1;
    a.srcPort = 50000;
    RdmaMessageInfo b = a;
    b.jobId = 2;
    b.bytes = 2000000;
    b.srcPort = 50001;
    fabric->SendMessage(0, 1, a, Seconds(0));
    fabric->SendMessage(0, 1, a, Seconds(0));
    fabric->SendMessage(0, 2, b, Seconds(0));
    Ptr<RoceNetDevice> switchPort = fabric->GetChannel(0)->GetRoceDevice(1);
    std::map<uint32_t, std::map<uint8_t, uint32_t>> classes; // destination -> class -> frames
    DropOnReceive(switchPort, [&](const RoceHeader& h, uint64_t) {
        if (h.IsData())
        {
            ++classes[h.GetDestination()][h.GetDscp()];
        }
        return false;
    });
    Simulator::Schedule(MicroSeconds(50), [nic]() {
        nic->SetPriorityClass(1, 5);
        nic->SetPriorityClass(2, 5);
    });
    Simulator::Schedule(MicroSeconds(100), [nic]() { nic->SetGate(1, true); });
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 3u);
    UintegerValue mtu;
    nic->GetAttribute("PayloadPerPacket", mtu);
    auto frames = [&mtu](uint64_t bytes) { return (bytes + mtu.Get() - 1) / mtu.Get(); };
    const auto& job1 = classes[RoceHostAddress(1)];
    const auto& job2 = classes[RoceHostAddress(2)];
    ASSERT_EQ(job1.size(), 1u);
    EXPECT_EQ(job1.begin()->first, 5); // both messages, the waiting one too
    EXPECT_EQ(job1.begin()->second, 2 * frames(a.bytes));
    ASSERT_EQ(job2.size(), 1u);
    EXPECT_EQ(job2.begin()->first, 3); // it had sent: no reordering across classes
    EXPECT_EQ(job2.begin()->second, frames(b.bytes));
}

} // namespace

TEST_F(RdmaNicTest, MessagesOfOneConnectionGoInOrderOthersShareTheLink)
{
    // Two 500 kB messages posted together. On one connection (same UDP source
    // port) the second starts when the first has sent its last packet, so the
    // first finishes in its alone time and the second one serialization later.
    // On two connections the NIC serves them round robin: both finish late.
    const uint64_t bytes = 500000;
    const double alone = AnalyticFct(bytes, 1000);
    uint64_t wire = 0;
    for (uint64_t i = 0; i < bytes / 1000; ++i)
    {
        wire += WireOf(DataFrameBytes(bytes, 1000, i));
    }
    const double serialize = wire * 8.0 / kRate;
    for (bool sameConnection : {true, false})
    {
        Ptr<RoceFabric> fabric = BuildPair();
        std::vector<double> done;
        for (uint16_t port : {0xC001, 0xC002})
        {
            RdmaMessageInfo info;
            info.bytes = bytes;
            info.srcPort = sameConnection ? 0xC001 : port;
            fabric->SendMessage(0, 1, info, Time(0), [&done]() {
                done.push_back(Simulator::Now().GetSeconds());
            });
        }
        Simulator::Run();
        ASSERT_EQ(done.size(), 2u);
        if (sameConnection)
        {
            EXPECT_NEAR(done[0], alone, 0.01 * alone);
            EXPECT_NEAR(done[1], alone + serialize, 0.01 * alone);
        }
        else
        {
            EXPECT_GT(done[0], alone + 0.9 * serialize);
            EXPECT_NEAR(done[1], alone + serialize, 0.01 * alone);
        }
        Simulator::Destroy();
    }
}
