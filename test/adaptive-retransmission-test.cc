/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Loss recovery as current ConnectX NICs run it: the adaptive
 * retransmission profile's timeout sequence (by hand, on the profile alone
 * and on a queue pair whose peer never answers, through to the error
 * state), its randomized first timeout, selective repeat (only the hole is
 * resent), slow restart (the rate after a go-back), and a lossy incast that
 * no longer waits for InfiniBand's seconds-long timeout.
 */

#include "fabric-test-util.h"

#include "ns3/adaptive-retransmission.h"
#include "ns3/boolean.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace ns3;
using namespace ns3::test;

namespace
{

using Profile = AdaptiveRetransmissionProfile;

/// 4 us base, first exponent 5 (128 us) for sure, ranges [5,6] x2 and [8,9] x1.
Profile
HandProfile()
{
    Profile p;
    p.timeBase = MicroSeconds(4);
    p.initialExponent = 5;
    p.initialSpread = 1;
    EXPECT_EQ(Profile::ParseRanges("5-6x2,8-9x1", p.ranges), "");
    EXPECT_EQ(p.Check(), "");
    return p;
}

TEST(AdaptiveRetransmissionProfileTest, RangesAreReadAndBadOnesNamed)
{
    std::vector<Profile::Range> r;
    EXPECT_EQ(Profile::ParseRanges("5-7x2,8-10x2,11-14x1,15-20x1", r), "");
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[1].low, 8);
    EXPECT_EQ(r[1].size, 2);
    EXPECT_EQ(r[1].retries, 2);
    EXPECT_EQ(Profile::FormatRanges(r), "5-7x2,8-10x2,11-14x1,15-20x1");
    EXPECT_NE(Profile::ParseRanges("5-7", r).find("not LOW-HIGHxRETRIES"), std::string::npos);
    EXPECT_NE(Profile::ParseRanges("7-5x1", r).find("LOW <= HIGH"), std::string::npos);
    EXPECT_NE(Profile::ParseRanges("5-7x0", r).find("1-255 retries"), std::string::npos);
    EXPECT_NE(Profile::ParseRanges("5-7x1,7-9x1", r).find("above the range before"),
              std::string::npos);
    EXPECT_NE(Profile::ParseRanges("1-1x1,2-2x1,3-3x1,4-4x1,5-5x1", r).find("at most 4"),
              std::string::npos);
    EXPECT_NE(Profile::ParseRanges("", r).find("at least one"), std::string::npos);
    Profile p = HandProfile();
    p.timeBase = MicroSeconds(6);
    EXPECT_NE(p.Check().find("power of two"), std::string::npos);
    p = HandProfile();
    p.startRange = 2;
    EXPECT_NE(p.Check().find("AdpStartRange"), std::string::npos);
}

TEST(AdaptiveRetransmissionProfileTest, ExpiriesWalkTheRangesAsDocumented)
{
    // By hand: 128 us is the initial value (one expiry), then the rest of
    // its 2 uses in range 0; 256 us twice; range 0 is exhausted, so range 1
    // starts at its low bound 8 (1024 us, one use), 9 (2048 us), and the
    // last range's top stays. A cap of 1.5 ms clips the last two.
    const Profile p = HandProfile();
    AdaptiveRetransmissionState s = p.Start(0.7);
    const std::vector<int64_t> us{128, 128, 256, 256, 1024, 2048, 2048, 2048};
    for (std::size_t k = 0; k < us.size(); ++k)
    {
        EXPECT_EQ(p.Timeout(s, Seconds(10)), MicroSeconds(us[k])) << "timeout " << k + 1;
        p.OnExpiry(s);
    }
    EXPECT_EQ(p.Timeout(s, MicroSeconds(1500)), MicroSeconds(1500));
    // An initial exponent in no range: the first expiry moves to the start range's low bound.
    Profile q = HandProfile();
    q.initialExponent = 7;
    q.startRange = 1;
    AdaptiveRetransmissionState t = q.Start(0);
    EXPECT_EQ(q.Timeout(t, Seconds(10)), MicroSeconds(512));
    q.OnExpiry(t);
    EXPECT_EQ(q.Timeout(t, Seconds(10)), MicroSeconds(1024));
}

TEST(AdaptiveRetransmissionProfileTest, ProgressComesBackDownThroughTheRanges)
{
    Profile p = HandProfile();
    AdaptiveRetransmissionState s = p.Start(0);
    p.OnProgress(s);
    EXPECT_EQ(s.exponent, 5) << "before its first expiry the initial value stays";
    for (int k = 0; k < 6; ++k)
    {
        p.OnExpiry(s); // to range 1, exponent 9
    }
    ASSERT_EQ(s.range, 1);
    ASSERT_EQ(s.exponent, 9);
    p.OnProgress(s); // halve: 8
    EXPECT_EQ(s.exponent, 8);
    p.OnProgress(s); // 7 is below range 1: range 0, at most its top 6
    EXPECT_EQ(s.range, 0);
    EXPECT_EQ(s.exponent, 6);
    p.OnProgress(s);
    p.OnProgress(s);
    EXPECT_EQ(s.exponent, 5) << "never below the first range";
    p.decrease = Profile::RESET;
    for (int k = 0; k < 6; ++k)
    {
        p.OnExpiry(s);
    }
    ASSERT_EQ(s.exponent, 9);
    p.OnProgress(s);
    EXPECT_EQ(s.exponent, 8) << "reset: the range's low bound";
    EXPECT_EQ(s.range, 1);
}

TEST(AdaptiveRetransmissionProfileTest, FirstTimeoutIsDrawnOverItsRange)
{
    Profile p = HandProfile();
    p.initialSpread = 3;
    std::set<int> seen;
    for (int k = 0; k < 30; ++k)
    {
        seen.insert(p.Start((k + 0.5) / 30).exponent);
    }
    EXPECT_EQ(seen, (std::set<int>{5, 6, 7}));
}

class AdaptiveRetransmissionTest : public FabricTest
{
  protected:
    /// Two hosts through one switch, 1000-byte payloads, ACK per packet, \p cc.
    static Ptr<RoceFabric> BuildPair(const std::string& cc = "none")
    {
        RoceFabricHelper helper;
        helper.SetCongestionControl(cc);
        helper.SetNicAttribute("AckInterval", UintegerValue(1));
        helper.SetNicAttribute("PayloadPerPacket", UintegerValue(1000));
        return helper.Install(MakeStar(2));
    }
};

/// Times a queue pair whose peer never answers times out at, and when it fails.
struct Expiries
{
    std::vector<Time> goBacks;
    std::vector<Time> next; ///< the timeout each expiry armed
    Time failedAt{-1};
};

Expiries
RunNeverAnswering(Ptr<RoceFabric> fabric, Time start)
{
    Expiries e;
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    DropOnReceive(fabric->GetNic(1)->GetPort(),
                  [](const RoceHeader& h, uint64_t) { return h.IsData(); });
    nic->TraceConnectWithoutContext(
        "GoBack",
        MakeCallback(+[](Expiries* x, const RdmaMessageInfo&, uint64_t) {
            x->goBacks.push_back(Simulator::Now());
        }).Bind(&e));
    nic->TraceConnectWithoutContext(
        "Timeout",
        MakeCallback(+[](Expiries* x, const RdmaMessageInfo&, uint32_t, Time next) {
            x->next.push_back(next);
        }).Bind(&e));
    nic->TraceConnectWithoutContext(
        "SendFailed",
        MakeCallback(+[](Expiries* x, const RdmaMessageInfo&, RdmaSendError error) {
            EXPECT_EQ(error, RdmaSendError::RETRY_EXCEEDED);
            x->failedAt = Simulator::Now();
        }).Bind(&e));
    RdmaMessageInfo info;
    info.bytes = 10000;
    fabric->SendMessage(0, 1, info, start);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    return e;
}

TEST_F(AdaptiveRetransmissionTest, NeverAnsweringPeerTimesOutOnTheDocumentedSequence)
{
    // The profile of the hand test above on the NIC, a 10 ms total timeout.
    // The first packet leaves at s = 3 us; every expiry goes back and
    // resends at once, restarting the count. Intervals 128, 128, 256, 256,
    // 1024, 2048, 2048, ... us: expiries at s + 128, 256, 512, 768, 1792,
    // 3840, 5888, 7936, 9984 us go back; the next, at s + 12032 us, is the
    // first at least 10 ms after the last progress (s): the error state.
    Ptr<RoceFabric> fabric = BuildPair();
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    nic->SetAttribute("AdpInitialExponent", UintegerValue(5));
    nic->SetAttribute("AdpInitialSpread", UintegerValue(1));
    nic->SetAttribute("AdpRanges", StringValue("5-6x2,8-9x1"));
    nic->SetAttribute("AdpTotalTimeout", TimeValue(MilliSeconds(10)));
    ASSERT_EQ(nic->GetRecoveryMode(), RdmaNic::RecoveryMode::ADAPTIVE);
    const Time s = MicroSeconds(3);
    const Expiries e = RunNeverAnswering(fabric, s);
    const std::vector<int64_t> at{128, 256, 512, 768, 1792, 3840, 5888, 7936, 9984};
    ASSERT_EQ(e.goBacks.size(), at.size());
    for (std::size_t k = 0; k < at.size(); ++k)
    {
        EXPECT_EQ(e.goBacks[k], s + MicroSeconds(at[k])) << "expiry " << k + 1;
    }
    const std::vector<int64_t> next{128, 256, 256, 1024, 2048, 2048, 2048, 2048, 2048};
    ASSERT_EQ(e.next.size(), next.size());
    for (std::size_t k = 0; k < next.size(); ++k)
    {
        EXPECT_EQ(e.next[k], MicroSeconds(next[k])) << "after expiry " << k + 1;
    }
    EXPECT_EQ(e.failedAt, s + MicroSeconds(12032));
    EXPECT_EQ(nic->GetTimeouts(), at.size() + 1);
    EXPECT_EQ(nic->GetSendsFailed(), 1u);
}

TEST_F(AdaptiveRetransmissionTest, TheLocalAckTimeoutCapsEveryTimeoutAndSetsTheTotal)
{
    // AckTimeoutExponent 8: the cap T = 1048.576 us and, with no total set,
    // the total T x RetryCount 7 = 7340.032 us. Intervals 128, 128, 256,
    // 256, 1024, then T for ever: expiries at s + 128, 256, 512, 768, 1792,
    // 2840.576, 3889.152, 4937.728, 5986.304, 7034.88 us go back; the one
    // at s + 8083.456 us is past the total and fails.
    Ptr<RoceFabric> fabric = BuildPair();
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    nic->SetAttribute("AdpInitialExponent", UintegerValue(5));
    nic->SetAttribute("AdpInitialSpread", UintegerValue(1));
    nic->SetAttribute("AdpRanges", StringValue("5-6x2,8-9x1"));
    nic->SetAttribute("AckTimeoutExponent", UintegerValue(8));
    EXPECT_EQ(nic->GetTotalTimeout(), NanoSeconds(7340032));
    const Time s = MicroSeconds(3);
    const Expiries e = RunNeverAnswering(fabric, s);
    const std::vector<int64_t>
        atNs{128000, 256000, 512000, 768000, 1792000, 2840576, 3889152, 4937728, 5986304, 7034880};
    ASSERT_EQ(e.goBacks.size(), atNs.size());
    for (std::size_t k = 0; k < atNs.size(); ++k)
    {
        EXPECT_EQ(e.goBacks[k], s + NanoSeconds(atNs[k])) << "expiry " << k + 1;
    }
    EXPECT_EQ(e.failedAt, s + NanoSeconds(8083456));
}

TEST_F(AdaptiveRetransmissionTest, DefaultFirstTimeoutIsRandomAcrossQueuePairs)
{
    // The default profile draws 4096 or 8192 us; 40 queue pairs whose peer
    // never answers each time out first after one of the two, and both occur.
    Ptr<RoceFabric> fabric = BuildPair();
    Ptr<RdmaNic> nic = fabric->GetNic(0);
    DropOnReceive(fabric->GetNic(1)->GetPort(),
                  [](const RoceHeader& h, uint64_t) { return h.IsData(); });

    struct First
    {
        std::map<uint64_t, Time> started; ///< by flow, until its first go-back
        std::set<int64_t> us;             ///< first timeouts seen, microseconds
    } first;

    nic->TraceConnectWithoutContext(
        "GoBack",
        MakeCallback(+[](First* x, const RdmaMessageInfo& info, uint64_t) {
            auto it = x->started.find(info.flowId);
            if (it != x->started.end())
            {
                x->us.insert((Simulator::Now() - it->second).GetMicroSeconds());
                x->started.erase(it);
            }
        }).Bind(&first));
    for (int k = 0; k < 40; ++k)
    {
        RdmaMessageInfo info;
        info.bytes = 1000;
        const Time at = MicroSeconds(1 + 2 * k); // one packet each, on an idle wire
        first.started[fabric->SendMessage(0, 1, info, at)] = at;
    }
    Simulator::Stop(MicroSeconds(9000));
    Simulator::Run();
    EXPECT_TRUE(first.started.empty()) << "every queue pair timed out";
    EXPECT_EQ(first.us, (std::set<int64_t>{4096, 8192}));
}

/// A 200-packet message with packets \p lost dropped once each; what recovered them.
struct LossRun
{
    uint64_t retransmitted{0};
    uint64_t naks{0};
    uint64_t timeouts{0};
    bool complete{false};
};

LossRun
RunWithLosses(bool selectiveRepeat, std::set<uint32_t> lost)
{
    RoceFabricHelper helper;
    helper.SetCongestionControl("none");
    helper.SetNicAttribute("AckInterval", UintegerValue(16));
    helper.SetNicAttribute("PayloadPerPacket", UintegerValue(1000));
    helper.SetNicAttribute("SelectiveRepeat", BooleanValue(selectiveRepeat));
    helper.SetNicAttribute("InitialPsn", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
    RoceFlowMonitor monitor(fabric);
    std::map<uint32_t, uint32_t> copies;
    DropOnReceive(fabric->GetNic(1)->GetPort(), [&](const RoceHeader& h, uint64_t) {
        return h.IsData() && ++copies[h.GetPsn()] == 1 && lost.count(h.GetPsn()) > 0;
    });
    RdmaMessageInfo info;
    info.bytes = 200000;
    fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Run();
    LossRun r;
    r.complete = monitor.GetCompletedFlows() == 1;
    r.retransmitted = monitor.GetRetransmittedBytes();
    r.naks = fabric->GetNic(1)->GetNaksSent();
    r.timeouts = fabric->GetNic(0)->GetTimeouts();
    Simulator::Destroy();
    return r;
}

TEST_F(AdaptiveRetransmissionTest, SelectiveRepeatResendsOnlyTheHoles)
{
    // Packets 49-53 (a burst) and 120 are lost once. Selective repeat: the
    // receiver keeps what follows each hole and NAKs it with its end; the
    // sender resends those 6 packets only (6000 bytes), on 2 NAKs, with no
    // timeout. Go-back-N resends everything sent after each hole.
    const LossRun sr = RunWithLosses(true, {49, 50, 51, 52, 53, 120});
    ASSERT_TRUE(sr.complete);
    EXPECT_EQ(sr.retransmitted, 6000u);
    EXPECT_EQ(sr.naks, 2u);
    EXPECT_EQ(sr.timeouts, 0u);
    const LossRun gbn = RunWithLosses(false, {49, 50, 51, 52, 53, 120});
    ASSERT_TRUE(gbn.complete);
    EXPECT_GT(gbn.retransmitted, 6000u);
    EXPECT_EQ(gbn.timeouts, 0u);
    // A hole at the very end has nothing after it: the timeout recovers it,
    // resending all not acknowledged: 192-199, the last ACK (every 16
    // packets) having acknowledged 0-191.
    const LossRun tail = RunWithLosses(true, {199});
    ASSERT_TRUE(tail.complete);
    EXPECT_EQ(tail.timeouts, 1u);
    EXPECT_EQ(tail.retransmitted, 8000u);
}

/// Gaps between the data frames host 1 receives after the first go-back.
std::vector<Time>
GapsAfterGoBack(bool slowRestart)
{
    RoceFabricHelper helper;
    helper.SetCongestionControl("dcqcn");
    helper.SetNicAttribute("AckInterval", UintegerValue(1));
    helper.SetNicAttribute("PayloadPerPacket", UintegerValue(1000));
    helper.SetNicAttribute("SlowRestart", BooleanValue(slowRestart));
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
    std::vector<Time> arrivals;
    bool dropped = false;
    DropOnReceive(fabric->GetNic(1)->GetPort(), [&](const RoceHeader& h, uint64_t seen) {
        if (!h.IsData())
        {
            return false;
        }
        if (seen == 100 && !dropped)
        {
            dropped = true;
            return true;
        }
        if (dropped)
        {
            arrivals.push_back(Simulator::Now());
        }
        return false;
    });
    RdmaMessageInfo info;
    info.bytes = 1000000;
    fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Run();
    // After the NAK's round trip the resent frames arrive; skip what was on the wire.
    std::vector<Time> gaps;
    for (std::size_t i = 1; i < arrivals.size(); ++i)
    {
        gaps.push_back(arrivals[i] - arrivals[i - 1]);
    }
    Simulator::Destroy();
    return gaps;
}

TEST_F(AdaptiveRetransmissionTest, SlowRestartResumesAtATenthOfLineRate)
{
    // No ECN here, so DCQCN runs at line rate (a frame of 1000 bytes of
    // payload, 1082 on the wire, every 86.56 ns at 100 Gb/s) until the loss.
    // With slow restart the go-back resumes at SlowRestartFraction 0.1 of
    // line rate: a frame every 865.6 ns, until fast recovery climbs back.
    // Without it, line rate.
    const Time lineGap = PicoSeconds(WireOf(DataFrameBytes(1000000, 1000, 1)) * 80);
    const std::vector<Time> slow = GapsAfterGoBack(true);
    const std::vector<Time> fast = GapsAfterGoBack(false);
    ASSERT_GT(slow.size(), 40u);
    ASSERT_GT(fast.size(), 40u);
    // The largest gap is the NAK's round trip; the 10 gaps after it are the resent frames'.
    auto resumed = [](const std::vector<Time>& g) {
        const auto it = std::max_element(g.begin(), g.end());
        return std::vector<Time>(it + 1, it + 11);
    };
    for (Time g : resumed(slow))
    {
        EXPECT_EQ(g, lineGap * 10);
    }
    for (Time g : resumed(fast))
    {
        EXPECT_EQ(g, lineGap);
    }
}

/// The lossy incast of the model's history: 9 senders x 1 MB into one
/// 100 Gb/s port, MTU 1024, 1 MB of buffer, PFC off or on, DCQCN \p cc.
Time
LossyIncastMakespan(const std::string& cc, bool pfc, bool selectiveRepeat, uint64_t* timeouts)
{
    RngSeedManager::SetSeed(7);
    RoceFabricHelper helper;
    helper.SetCongestionControl(cc);
    helper.SetNicAttribute("PayloadPerPacket", UintegerValue(1024));
    helper.SetNicAttribute("SelectiveRepeat", BooleanValue(selectiveRepeat));
    helper.SetSwitchAttribute("PfcEnabled", BooleanValue(pfc));
    helper.SetMmuAttribute("BufferSize", UintegerValue(1000000));
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(10));
    RoceFlowMonitor monitor(fabric);
    for (uint32_t s = 1; s <= 9; ++s)
    {
        RdmaMessageInfo info;
        info.bytes = 1000000;
        fabric->SendMessage(s, 0, info, Seconds(0));
    }
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    EXPECT_EQ(monitor.GetCompletedFlows(), 9u) << cc;
    *timeouts = monitor.GetTimeouts();
    const Time end = monitor.GetLastDelivery();
    Simulator::Destroy();
    return end;
}

TEST_F(AdaptiveRetransmissionTest, LossyIncastRecoversInMilliseconds)
{
    // With PFC on nothing is lost: the makespan near the bound, 778 us, and
    // no timeout fires behind the queue.
    uint64_t timeouts = 0;
    const Time lossless = LossyIncastMakespan("dcqcn", true, false, &timeouts);
    EXPECT_EQ(timeouts, 0u);
    EXPECT_LT(lossless, MicroSeconds(800));
    // PFC off, the defaults (adaptive retransmission, go-back-N): every flow
    // finishes after a few of the first range's timeouts (4.1-16.4 ms), in
    // under 50 ms, not after InfiniBand's 4.3 s timeouts (25.8 s before
    // adaptive retransmission). With selective repeat as well.
    const Time lossy = LossyIncastMakespan("dcqcn", false, false, &timeouts);
    EXPECT_GT(timeouts, 0u);
    EXPECT_LT(lossy, MilliSeconds(50));
    EXPECT_LT(LossyIncastMakespan("dcqcn", false, true, &timeouts), MilliSeconds(50));
    // A DCQCN that holds the queue (the hpcc profile) loses less: within two
    // of the longer first timeouts (8.192 ms) of the lossless makespan.
    EXPECT_LT(LossyIncastMakespan("dcqcn[profile=hpcc]", false, false, &timeouts),
              lossless + MicroSeconds(2 * 8192));
}

TEST_F(AdaptiveRetransmissionTest, NoSpuriousTimeoutBehindADeepLosslessQueue)
{
    // roce-incast's defaults: 8 senders x 2 MB into one port, PFC on, 32 MB
    // of buffer. DCQCN's ConnectX profile lets the queue grow to hundreds
    // of microseconds; the default first timeout (4.096 ms or more) waits it
    // out, so nothing is resent and nothing times out. At 128-256 us
    // (AdpInitialExponent 5) 5 timeouts fire and 139 KB are resent.
    RoceFabricHelper helper;
    helper.SetCongestionControl("dcqcn");
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(9));
    RoceFlowMonitor monitor(fabric);
    for (uint32_t s = 1; s <= 8; ++s)
    {
        RdmaMessageInfo info;
        info.bytes = 2000000;
        fabric->SendMessage(s, 0, info, Seconds(0));
    }
    Simulator::Run();
    EXPECT_EQ(monitor.GetCompletedFlows(), 8u);
    EXPECT_EQ(monitor.GetTimeouts(), 0u);
    EXPECT_EQ(monitor.GetRetransmittedBytes(), 0u);
}

} // namespace
