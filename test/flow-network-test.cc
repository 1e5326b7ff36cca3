/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The flow-level model: max-min allocations against hand-computed ones
 * (shared bottlenecks, weights, ACK loads, strict priority), the max-min
 * conditions on random instances, message times against closed forms on a
 * star (alone, sharing, gated, prioritized, in order on a connection), the
 * calibrated share of a switch port full with several senders' data, and
 * rate solves confined to the component of the flows that changed.
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <gtest/gtest.h>
#include <random>

using namespace ns3;

namespace
{

MaxMinAllocator::Flow
F(std::vector<uint32_t> links, uint8_t cls = 3, double weight = 1)
{
    MaxMinAllocator::Flow f;
    for (uint32_t l : links)
    {
        f.uses.emplace_back(l, 1.0);
    }
    f.cls = cls;
    f.weight = weight;
    return f;
}

std::vector<double>
Solve(const std::vector<MaxMinAllocator::Flow>& flows, const std::vector<double>& capacity)
{
    MaxMinAllocator a;
    std::vector<double> rates;
    a.Allocate(flows, capacity, rates);
    return rates;
}

TEST(MaxMinAllocatorTest, SharedBottleneckThenLeftovers)
{
    // f0 crosses both links, f1 only link 0, f2 only link 1. Link 1 (4)
    // fills first at 2 each; f1 takes the rest of link 0: 10 - 2 = 8.
    auto r = Solve({F({0, 1}), F({0}), F({1})}, {10, 4});
    EXPECT_NEAR(r[0], 2, 1e-9);
    EXPECT_NEAR(r[1], 8, 1e-9);
    EXPECT_NEAR(r[2], 2, 1e-9);
    // Equal links: everyone 5.
    r = Solve({F({0, 1}), F({0}), F({1})}, {10, 10});
    EXPECT_NEAR(r[0], 5, 1e-9);
    EXPECT_NEAR(r[1], 5, 1e-9);
    EXPECT_NEAR(r[2], 5, 1e-9);
}

TEST(MaxMinAllocatorTest, ParkingLot)
{
    // The long flow crosses three links of 12; each link also carries one
    // short flow, link 2 two of them: link 2 fills at 4 (three flows),
    // then links 0 and 1 give their short flows 12 - 4 = 8.
    auto r = Solve({F({0, 1, 2}), F({0}), F({1}), F({2}), F({2})}, {12, 12, 12});
    EXPECT_NEAR(r[0], 4, 1e-9);
    EXPECT_NEAR(r[1], 8, 1e-9);
    EXPECT_NEAR(r[2], 8, 1e-9);
    EXPECT_NEAR(r[3], 4, 1e-9);
    EXPECT_NEAR(r[4], 4, 1e-9);
}

TEST(MaxMinAllocatorTest, WeightsAndLoadCoefficients)
{
    auto r = Solve({F({0}, 3, 1), F({0}, 3, 3)}, {8});
    EXPECT_NEAR(r[0], 2, 1e-9);
    EXPECT_NEAR(r[1], 6, 1e-9);
    // A flow loading the link by half its rate (ACKs): t + t/2 = 9, t = 6.
    MaxMinAllocator::Flow half;
    half.uses = {{0, 0.5}};
    r = Solve({F({0}), half}, {9});
    EXPECT_NEAR(r[0], 6, 1e-9);
    EXPECT_NEAR(r[1], 6, 1e-9);
}

TEST(MaxMinAllocatorTest, StrictPriorityBetweenClasses)
{
    // The class-5 flow takes link 0 whole; the class-3 flow across links 0
    // and 1 gets nothing, so the other class-3 flow has link 1 to itself.
    auto r = Solve({F({0}, 5), F({0, 1}, 3), F({1}, 3)}, {10, 10});
    EXPECT_NEAR(r[0], 10, 1e-9);
    EXPECT_NEAR(r[1], 0, 1e-9);
    EXPECT_NEAR(r[2], 10, 1e-9);
    // A high class limited elsewhere leaves the rest: class 6 crosses link 1
    // (3) and link 0 (10); class 2 on link 0 gets 7.
    r = Solve({F({0, 1}, 6), F({0}, 2)}, {10, 3});
    EXPECT_NEAR(r[0], 3, 1e-9);
    EXPECT_NEAR(r[1], 7, 1e-9);
}

TEST(MaxMinAllocatorTest, AClassShareLeavesTheRestToTheClassesBelow)
{
    // Link 0 (100) limits class 5 to 0.8 of what the classes above leave:
    // class 6's flow takes 20 first, class 5's two flows share 0.8 x 80 = 64,
    // and class 3's two flows share the 16 they leave (link 1, 10, does not
    // bind the one that crosses it).
    MaxMinAllocator a;
    std::vector<double> r;
    std::vector<MaxMinAllocator::ClassShare> shares(3);
    shares[0] = {5, 0.8};
    const std::vector<MaxMinAllocator::Flow> flows{F({0, 2}, 6),
                                                   F({0}, 5),
                                                   F({0}, 5),
                                                   F({0, 1}, 3),
                                                   F({0}, 3)};
    a.Allocate(flows, {100, 10, 20}, r, &shares);
    EXPECT_NEAR(r[0], 20, 1e-9);
    EXPECT_NEAR(r[1], 32, 1e-9);
    EXPECT_NEAR(r[2], 32, 1e-9);
    EXPECT_NEAR(r[3], 8, 1e-9);
    EXPECT_NEAR(r[4], 8, 1e-9);
    // Without a lower class the share is simply lost (the port idles), and
    // without shares the allocation is ideal.
    a.Allocate({F({0}, 5), F({0}, 5)}, {100, 10, 20}, r, &shares);
    EXPECT_NEAR(r[0], 40, 1e-9);
    EXPECT_NEAR(r[1], 40, 1e-9);
    a.Allocate(flows, {100, 10, 20}, r);
    EXPECT_NEAR(r[1] + r[2], 80, 1e-9);
    EXPECT_NEAR(r[3] + r[4], 0, 1e-9);
    // One share per link, or none.
    shares.resize(2);
    EXPECT_THROW(a.Allocate(flows, {100, 10, 20}, r, &shares), std::invalid_argument);
}

TEST(MaxMinAllocatorTest, RandomInstancesMeetTheMaxMinConditions)
{
    // Feasible, and every flow has a bottleneck: a full link (counting
    // higher classes) on which no flow of its class has a larger rate per
    // weight. These two conditions define the weighted max-min allocation.
    std::mt19937 gen(7);
    for (int trial = 0; trial < 300; ++trial)
    {
        const uint32_t nLinks = 1 + gen() % 6;
        const uint32_t nFlows = 1 + gen() % 10;
        std::vector<double> cap(nLinks);
        for (double& c : cap)
        {
            c = 1 + gen() % 100;
        }
        std::vector<MaxMinAllocator::Flow> flows(nFlows);
        for (auto& f : flows)
        {
            std::vector<uint32_t> links;
            for (uint32_t l = 0; l < nLinks; ++l)
            {
                if (gen() % 2)
                {
                    links.push_back(l);
                }
            }
            if (links.empty())
            {
                links.push_back(gen() % nLinks);
            }
            f = F(links, static_cast<uint8_t>(gen() % 3 + 2), 1 + gen() % 3);
        }
        const auto r = Solve(flows, cap);
        std::vector<double> load(nLinks, 0);
        for (uint32_t i = 0; i < nFlows; ++i)
        {
            ASSERT_GE(r[i], -1e-9);
            for (const auto& [l, c] : flows[i].uses)
            {
                load[l] += c * r[i];
            }
        }
        for (uint32_t l = 0; l < nLinks; ++l)
        {
            ASSERT_LE(load[l], cap[l] * (1 + 1e-9)) << "trial " << trial << " link " << l;
        }
        for (uint32_t i = 0; i < nFlows; ++i)
        {
            bool bottleneck = false;
            for (const auto& [l, c] : flows[i].uses)
            {
                // Load of this link by this class and the classes above it.
                double classLoad = 0;
                bool largest = true;
                for (uint32_t j = 0; j < nFlows; ++j)
                {
                    for (const auto& [l2, c2] : flows[j].uses)
                    {
                        if (l2 != l || flows[j].cls < flows[i].cls)
                        {
                            continue;
                        }
                        classLoad += c2 * r[j];
                        if (flows[j].cls == flows[i].cls &&
                            r[j] / flows[j].weight > r[i] / flows[i].weight * (1 + 1e-9) + 1e-9)
                        {
                            largest = false;
                        }
                    }
                }
                if (classLoad >= cap[l] * (1 - 1e-9) && largest)
                {
                    bottleneck = true;
                }
            }
            ASSERT_TRUE(bottleneck) << "trial " << trial << " flow " << i << " rate " << r[i];
        }
    }
}

/// A star: \p hosts hosts on one switch, 100 Gb/s links of 1 us.
class FlowNetworkTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        RoceUsePicoseconds();
        FabricTopology topo;
        const uint32_t sw = topo.AddSwitch("switch", 1, -1, 0);
        for (uint32_t h = 0; h < 4; ++h)
        {
            topo.AddLink(topo.AddHost("host-" + std::to_string(h), -1, 0), sw, kRate, 1000);
        }
        m_net = CreateObject<FlowNetwork>();
        m_net->Build(topo);
    }

    void TearDown() override
    {
        m_net->Dispose();
        Simulator::Destroy();
    }

    /// Post \p bytes from \p src to \p dst for job \p job (in class \p cls and
    /// iteration \p iteration) now; the delivery time lands in \p at. \return the flow id
    uint64_t Post(uint32_t src,
                  uint32_t dst,
                  uint64_t bytes,
                  int64_t job,
                  Time* at,
                  uint8_t cls = 3,
                  int64_t iteration = -1)
    {
        RdmaMessageInfo info;
        info.bytes = bytes;
        info.jobId = job;
        info.priority = cls;
        info.iteration = iteration;
        info.srcPort = static_cast<uint16_t>(0xC000 + m_port++);
        return m_net->SendMessage(src, dst, info, [at]() { *at = Simulator::Now(); });
    }

    /// Wire seconds of a message of \p bytes at rate \p bps (4096-byte packets).
    static double WireSeconds(uint64_t bytes, double bps)
    {
        return 8.0 * RoceWire::MessageWireBytes(bytes, 4096) / bps;
    }

    /// Propagation of two links plus the last frame forwarded by the switch.
    static double Latency(uint64_t bytes)
    {
        const uint64_t last = bytes - (bytes - 1) / 4096 * 4096;
        const uint32_t frame = RoceWire::WireBytes(58 + static_cast<uint32_t>(last) +
                                                   (bytes <= 4096 ? RoceWire::kReth : 0));
        return 2e-6 + 8.0 * frame / kRate;
    }

    /// The link rate left to data once the reverse ACKs of a flow the other way take theirs.
    static constexpr uint64_t kRate = 100000000000ull;

    Ptr<FlowNetwork> m_net;
    uint32_t m_port{0};
};

TEST_F(FlowNetworkTest, AloneAtLineRatePlusPathLatency)
{
    Time at(-1);
    Post(0, 1, 1000000, 0, &at);
    Simulator::Run();
    EXPECT_NEAR(at.GetSeconds(), WireSeconds(1000000, kRate) + Latency(1000000), 1e-11);
}

TEST_F(FlowNetworkTest, TwoFromOneHostShareItsLink)
{
    // Both leave host 0: half rate each, both done after twice the wire time
    // (twice a 1 MB message's: a 2 MB message has one packet's headers fewer).
    Time a(-1);
    Time b(-1);
    Post(0, 1, 1000000, 0, &a);
    Post(0, 2, 1000000, 1, &b);
    Simulator::Run();
    const double expected = 2 * WireSeconds(1000000, kRate) + Latency(1000000);
    EXPECT_NEAR(a.GetSeconds(), expected, 2e-10);
    EXPECT_NEAR(b.GetSeconds(), expected, 2e-10);
}

TEST_F(FlowNetworkTest, ShorterFlowLeavesItsShareToTheLonger)
{
    // 1 MB and 3 MB from host 0: both at half rate until the short one has
    // sent its wire bytes (2 x W1), then the long one alone: W1 + W3 in all.
    // The same with the long one's job at weight 3: no switch port queues,
    // the NIC serves the two queue pairs in turn, and a weight, which acts
    // through the congestion control's response to a queue, changes nothing.
    const double w1 = WireSeconds(1000000, kRate);
    const double w3 = WireSeconds(3000000, kRate);
    for (double weight : {1.0, 3.0})
    {
        m_net->SetRateWeight(1, weight);
        const double t0 = Simulator::Now().GetSeconds();
        Time a(-1);
        Time b(-1);
        Post(0, 1, 1000000, 0, &a);
        Post(0, 2, 3000000, 1, &b);
        Simulator::Run();
        EXPECT_NEAR(a.GetSeconds() - t0, 2 * w1 + Latency(1000000), 2e-10) << weight;
        EXPECT_NEAR(b.GetSeconds() - t0, w1 + w3 + Latency(3000000), 2e-10) << weight;
    }
}

TEST_F(FlowNetworkTest, ClosedGateHoldsAJobUntilItOpens)
{
    m_net->SetGate(1, false);
    Time a(-1);
    Time b(-1);
    Post(0, 1, 1000000, 0, &a);
    Post(0, 2, 1000000, 1, &b);
    const Time open = MicroSeconds(200);
    Simulator::Schedule(open, [this]() { m_net->SetGate(1, true); });
    Simulator::Run();
    const double w = WireSeconds(1000000, kRate);
    // Job 0 alone at line rate (done before the gate opens); job 1 from the opening.
    ASSERT_LT(w, open.GetSeconds());
    EXPECT_NEAR(a.GetSeconds(), w + Latency(1000000), 2e-10);
    EXPECT_NEAR(b.GetSeconds(), open.GetSeconds() + w + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, GateClosedMidwayKeepsWhatWasSent)
{
    Time a(-1);
    Post(0, 1, 1000000, 0, &a);
    const double w = WireSeconds(1000000, kRate);
    Simulator::Schedule(Seconds(w / 4), [this]() { m_net->SetGate(0, false); });
    Simulator::Schedule(Seconds(w / 4) + MicroSeconds(50), [this]() { m_net->SetGate(0, true); });
    Simulator::Run();
    EXPECT_NEAR(a.GetSeconds(), w + 50e-6 + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, HigherClassGoesFirst)
{
    Time lo(-1);
    Time hi(-1);
    Post(0, 1, 1000000, 0, &lo, 3);
    Post(0, 2, 1000000, 1, &hi, 5);
    Simulator::Run();
    const double w = WireSeconds(1000000, kRate);
    EXPECT_NEAR(hi.GetSeconds(), w + Latency(1000000), 2e-10);
    EXPECT_NEAR(lo.GetSeconds(), 2 * w + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, JobClassAppliesToMessagesPostedAfterIt)
{
    m_net->SetPriorityClass(1, 6);
    Time lo(-1);
    Time hi(-1);
    Post(0, 1, 1000000, 0, &lo, 5);
    Post(0, 2, 1000000, 1, &hi, 3); // posted as 3, sent in class 6
    Simulator::Run();
    const double w = WireSeconds(1000000, kRate);
    EXPECT_NEAR(hi.GetSeconds(), w + Latency(1000000), 2e-10);
    EXPECT_NEAR(lo.GetSeconds(), 2 * w + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, ClassChangeMovesMessagesHeldAtTheGate)
{
    // Job 1's message waits behind its closed gate, posted in class 3; the
    // job moves to class 6 before the gate opens, so it overtakes job 0's
    // class-5 message once it goes.
    m_net->SetGate(1, false);
    Time lo(-1);
    Time hi(-1);
    Post(0, 1, 1000000, 0, &lo, 5);
    Post(0, 2, 1000000, 1, &hi, 3);
    m_net->SetPriorityClass(1, 6);
    m_net->SetGate(1, true);
    Simulator::Run();
    const double w = WireSeconds(1000000, kRate);
    EXPECT_NEAR(hi.GetSeconds(), w + Latency(1000000), 2e-10);
    EXPECT_NEAR(lo.GetSeconds(), 2 * w + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, WeightSplitsTheLink)
{
    // Hosts 0 (job 0) and 1 (job 1, weight 3) send to host 2: they queue at
    // the switch's port to host 2, where the weights split it (its
    // calibrated share left out: ContendedLinkEfficiency 1).
    m_net->SetAttribute("ContendedLinkEfficiency", DoubleValue(1));
    m_net->SetRateWeight(1, 3);
    Time a(-1);
    Time b(-1);
    Post(0, 2, 1000000, 0, &a);
    Post(1, 2, 3000000, 1, &b);
    Simulator::Run();
    // 1:3 shares, 25 and 75 Gb/s. The 3 MB message has fewer header bytes
    // than three 1 MB ones, so it ends first, at 4/3 of its wire time; the
    // 1 MB one then has the port and ends when both messages' bytes are out.
    const double w1 = WireSeconds(1000000, kRate);
    const double w3 = WireSeconds(3000000, kRate);
    ASSERT_LT(w3, 3 * w1);
    EXPECT_NEAR(b.GetSeconds(), 4 * w3 / 3 + Latency(3000000), 2e-10);
    EXPECT_NEAR(a.GetSeconds(), w1 + w3 + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, SendersContendingAtASwitchPortGetItsCalibratedShare)
{
    m_net->SetAttribute("ContentionOnset", TimeValue(Time(0)));
    // Hosts 0 and 1 both send to host 2: the switch's port to host 2 is full
    // with data from two senders, so they share ContendedLinkEfficiency of its
    // rate, each at 0.86 x 50 Gb/s, and end at 2 x W / 0.86.
    Time a(-1);
    Time b(-1);
    Post(0, 2, 1000000, 0, &a);
    Post(1, 2, 1000000, 1, &b);
    Simulator::Run();
    const double expected = 2 * WireSeconds(1000000, kRate) / 0.86 + Latency(1000000);
    EXPECT_NEAR(a.GetSeconds(), expected, 2e-10);
    EXPECT_NEAR(b.GetSeconds(), expected, 2e-10);
}

TEST_F(FlowNetworkTest, AcksOnAContendedPortCountTowardsItsBeingFull)
{
    m_net->SetAttribute("ContentionOnset", TimeValue(Time(0)));
    // As above, with host 2 also sending to host 3: that flow's ACKs take a
    // sliver of the port to host 2, which is still full and still discounted.
    Time a(-1);
    Time b(-1);
    Time c(-1);
    Post(0, 2, 1000000, 0, &a);
    Post(1, 2, 1000000, 1, &b);
    Post(2, 3, 1000000, 2, &c);
    Simulator::Run();
    const double expected = 2 * WireSeconds(1000000, kRate) / 0.86 + Latency(1000000);
    EXPECT_NEAR(a.GetSeconds(), expected, expected * 0.005);
    EXPECT_NEAR(b.GetSeconds(), expected, expected * 0.005);
}

TEST_F(FlowNetworkTest, OnlyAClassWithSeveralSendersIsDiscounted)
{
    m_net->SetAttribute("ContentionOnset", TimeValue(Time(0)));
    // Host 0 sends in class 5, hosts 1 and 3 in class 3, all to host 2.
    // Strict priority serves class 5 first at line rate (one sender: no queue,
    // no discount); then the two class-3 senders contend and share 0.86 of
    // the port: done at w + 2 w / 0.86.
    Time hi(-1);
    Time lo1(-1);
    Time lo3(-1);
    Post(0, 2, 1000000, 0, &hi, 5);
    Post(1, 2, 1000000, 1, &lo1, 3);
    Post(3, 2, 1000000, 2, &lo3, 3);
    Simulator::Run();
    const double w = WireSeconds(1000000, kRate);
    EXPECT_NEAR(hi.GetSeconds(), w + Latency(1000000), 2e-10);
    EXPECT_NEAR(lo1.GetSeconds(), w + 2 * w / 0.86 + Latency(1000000), 2e-10);
    EXPECT_NEAR(lo3.GetSeconds(), w + 2 * w / 0.86 + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, LowerClassesFillTheGapsOfAContendedClass)
{
    m_net->SetAttribute("ContentionOnset", TimeValue(Time(0)));
    // Hosts 0 and 1 send in class 5, host 3 in class 3, all to host 2. The
    // two class-5 senders contend and share 0.86 of the port (0.43 each);
    // strict priority serves the class-3 queue in the gaps their cuts
    // leave, 0.14 of the port, until they end at w / 0.43; then it sends
    // alone at line rate.
    Time hi0(-1);
    Time hi1(-1);
    Time lo(-1);
    Post(0, 2, 1000000, 0, &hi0, 5);
    Post(1, 2, 1000000, 1, &hi1, 5);
    Post(3, 2, 1000000, 2, &lo, 3);
    Simulator::Run();
    const double w = WireSeconds(1000000, kRate);
    const double t1 = w / 0.43;
    EXPECT_NEAR(hi0.GetSeconds(), t1 + Latency(1000000), 2e-10);
    EXPECT_NEAR(hi1.GetSeconds(), t1 + Latency(1000000), 2e-10);
    EXPECT_NEAR(lo.GetSeconds(), t1 + (w - 0.14 * t1) + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, ContentionShorterThanItsOnsetIsNotDiscounted)
{
    // Hosts 0 and 1 send 1 MB each to host 2: 160 us of contention, less
    // than the 1 ms onset, so ideal sharing. Then 100 MB each: half the rate
    // for 1 ms, then 0.86 of it: 1 ms + (W - 1 ms x C / 2) / (0.86 x C / 2).
    Time a(-1);
    Time b(-1);
    Post(0, 2, 1000000, 0, &a);
    Post(1, 2, 1000000, 1, &b);
    Simulator::Run();
    const double shortExpected = 2 * WireSeconds(1000000, kRate) + Latency(1000000);
    EXPECT_NEAR(a.GetSeconds(), shortExpected, 2e-10);
    EXPECT_NEAR(b.GetSeconds(), shortExpected, 2e-10);

    const double start = Simulator::Now().GetSeconds();
    Post(0, 2, 100000000, 0, &a);
    Post(1, 2, 100000000, 1, &b);
    Simulator::Run();
    const double bits = WireSeconds(100000000, kRate) * kRate;
    const double half = kRate / 2.0;
    const double longExpected = 1e-3 + (bits - 1e-3 * half) / (0.86 * half);
    EXPECT_NEAR(a.GetSeconds() - start, longExpected + Latency(100000000), 1e-9);
    EXPECT_NEAR(b.GetSeconds() - start, longExpected + Latency(100000000), 1e-9);
}

TEST_F(FlowNetworkTest, IdealSharingWhenTheEfficiencyIsOne)
{
    m_net->SetAttribute("ContendedLinkEfficiency", DoubleValue(1.0));
    Time a(-1);
    Time b(-1);
    Post(0, 2, 1000000, 0, &a);
    Post(1, 2, 1000000, 1, &b);
    Simulator::Run();
    const double expected = 2 * WireSeconds(1000000, kRate) + Latency(1000000);
    EXPECT_NEAR(a.GetSeconds(), expected, 2e-10);
    EXPECT_NEAR(b.GetSeconds(), expected, 2e-10);
}

TEST_F(FlowNetworkTest, OnlyAFullPortOfSeveralSendersIsDiscounted)
{
    m_net->SetAttribute("ContentionOnset", TimeValue(Time(0)));
    // Host 0's NIC splits its link over flows to hosts 1, 2 and 3 (33.3 Gb/s
    // each); host 3 sends to 1 and 2 (50 each). The ports to hosts 1 and 2
    // carry two senders but only 83.3 Gb/s: no discount. Then host 1 sends
    // to 2 too: the port to host 2 fills with three senders (33.3 each) and
    // so does the port to host 1 (host 3's flow there takes the 66.7 left);
    // both are discounted. The port to host 2 gives its three flows 86 / 3
    // = 28.67 each, which leaves host 0's other two flows (100 - 28.67) / 2
    // = 35.67 each, and host 3's flow to host 1 gets 86 - 35.67.
    std::vector<uint64_t> ids;
    Time at[6];
    auto post = [&](uint32_t src, uint32_t dst, int64_t job, Time* t) {
        ids.push_back(Post(src, dst, 100000000, job, t));
    };
    post(0, 1, 0, &at[0]);
    post(0, 2, 1, &at[1]);
    post(0, 3, 1, &at[2]);
    post(3, 1, 2, &at[3]);
    post(3, 2, 2, &at[4]);
    std::vector<double> before;
    std::vector<double> after;
    Simulator::Schedule(MicroSeconds(1), [&]() {
        for (uint64_t id : ids)
        {
            before.push_back(m_net->GetRate(id));
        }
        post(1, 2, 3, &at[5]);
    });
    Simulator::Schedule(MicroSeconds(2), [&]() {
        for (uint64_t id : ids)
        {
            after.push_back(m_net->GetRate(id));
        }
        Simulator::Stop();
    });
    Simulator::Run();
    // Rates are of wire bits; the reverse ACKs take a sliver of each link.
    const double c = static_cast<double>(kRate);
    ASSERT_EQ(before.size(), 5u);
    EXPECT_NEAR(before[0], c / 3, c * 0.005);
    EXPECT_NEAR(before[1], c / 3, c * 0.005);
    EXPECT_NEAR(before[2], c / 3, c * 0.005);
    EXPECT_NEAR(before[3], 0.5 * c, c * 0.005);
    EXPECT_NEAR(before[4], 0.5 * c, c * 0.005);
    ASSERT_EQ(after.size(), 6u);
    const double toHost2 = 0.86 / 3;
    const double fromHost0 = (1 - toHost2) / 2;
    EXPECT_NEAR(after[1] + after[4] + after[5], 0.86 * c, c * 0.005);
    EXPECT_NEAR(after[1], toHost2 * c, c * 0.005);
    EXPECT_NEAR(after[4], toHost2 * c, c * 0.005);
    EXPECT_NEAR(after[5], toHost2 * c, c * 0.005);
    EXPECT_NEAR(after[0], fromHost0 * c, c * 0.005);
    EXPECT_NEAR(after[2], fromHost0 * c, c * 0.005);
    EXPECT_NEAR(after[3], (0.86 - fromHost0) * c, c * 0.005);
}

TEST_F(FlowNetworkTest, MltcpWeighsFlowsByTheirIterationProgress)
{
    // F = 0.5 + progress, where DCQCN acts: at the switch's port to host 2,
    // where jobs 0 (from host 0) and 1 (from host 1) queue. Iteration 0
    // (volume unknown, F = 1 each): 1 MB each together. Iteration 1: job 0
    // first sends 0.5 MB alone, then both send: job 0 at progress 0.5
    // (F 1.0), job 1 at 0 (F 0.5), so 2/3 and 1/3 of the port until job 0's
    // 0.5 MB are out; job 1 then has it. (The port's calibrated share is
    // left out: ContendedLinkEfficiency 1.)
    m_net->SetMltcp(1.0, 0.5);
    m_net->SetAttribute("MltcpTieBreak", DoubleValue(0)); // exact shares
    m_net->SetAttribute("ContendedLinkEfficiency", DoubleValue(1));
    auto post = [this](uint32_t src, uint64_t bytes, int64_t job, int64_t iteration, Time* at) {
        Post(src, 2, bytes, job, at, 3, iteration);
    };
    Time a(-1);
    Time b(-1);
    post(0, 1000000, 0, 0, &a);
    post(1, 1000000, 1, 0, &b);
    Simulator::Run();
    const double w1 = WireSeconds(1000000, kRate);
    EXPECT_NEAR(a.GetSeconds(), 2 * w1 + Latency(1000000), 2e-10);
    EXPECT_NEAR(b.GetSeconds(), 2 * w1 + Latency(1000000), 2e-10);

    double t = Simulator::Now().GetSeconds();
    post(0, 500000, 0, 1, &a);
    Simulator::Run();
    const double wHalf = WireSeconds(500000, kRate);
    EXPECT_NEAR(a.GetSeconds(), t + wHalf + Latency(500000), 2e-10);

    t = Simulator::Now().GetSeconds();
    post(0, 500000, 0, 1, &a);
    post(1, 1000000, 1, 1, &b);
    Simulator::Run();
    // Job 0: its 0.5 MB at 2/3 of the port. Job 1: 1/3 of the port
    // meanwhile, then the rest of its bytes alone.
    const double first = 1.5 * wHalf;
    EXPECT_NEAR(a.GetSeconds() - t, first + Latency(500000), 2e-10);
    EXPECT_NEAR(b.GetSeconds() - t, first + (w1 - first / 3) + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, MltcpLeavesANicsQueuePairsEqual)
{
    // As above, but both jobs send from host 0 (to hosts 1 and 2): their
    // only shared link is host 0's own, where the NIC serves its queue pairs
    // in turn and no switch queue gives DCQCN a mark to act on, so F changes
    // nothing: equal shares although job 0 is ahead (F 1.0 against 0.5).
    m_net->SetMltcp(1.0, 0.5);
    m_net->SetAttribute("MltcpTieBreak", DoubleValue(0));
    Time a(-1);
    Time b(-1);
    Post(0, 1, 1000000, 0, &a, 3, 0);
    Post(0, 2, 1000000, 1, &b, 3, 0);
    Simulator::Run();
    Post(0, 1, 500000, 0, &a, 3, 1);
    Simulator::Run();
    const double t = Simulator::Now().GetSeconds();
    Post(0, 1, 500000, 0, &a, 3, 1);
    Post(0, 2, 1000000, 1, &b, 3, 1);
    Simulator::Run();
    const double wHalf = WireSeconds(500000, kRate);
    const double w1 = WireSeconds(1000000, kRate);
    // Half the link each until job 0's 0.5 MB are out, then job 1 alone.
    EXPECT_NEAR(a.GetSeconds() - t, 2 * wHalf + Latency(500000), 2e-10);
    EXPECT_NEAR(b.GetSeconds() - t, w1 + wHalf + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, MltcpTieBreakSplitsJobsOfEqualProgress)
{
    // Jobs 0 and 1 send 1 MB each to host 2 from hosts 0 and 1 in their
    // first iteration: equal progress, equal F. With a tie-break of 0.1
    // their weights differ by a factor of at most 1.1, the same in every run
    // of the same seed: one ends first, its share over 1/2 and at most
    // 1.1/2.1 of the port, so after between 2.1/1.1 and 2 of one message's
    // time; the other ends when both messages' bytes are out, as the port
    // never idles.
    auto configure = [this]() {
        m_net->SetMltcp(1.0, 0.5);
        m_net->SetAttribute("MltcpTieBreak", DoubleValue(0.1));
        m_net->SetAttribute("ContendedLinkEfficiency", DoubleValue(1));
    };
    configure();
    const double w = WireSeconds(1000000, kRate);
    Time first[2];
    for (int repeat = 0; repeat < 2; ++repeat)
    {
        Time a(-1);
        Time b(-1);
        const Time t0 = Simulator::Now();
        Post(0, 2, 1000000, 0, &a, 3, 0);
        Post(1, 2, 1000000, 1, &b, 3, 0);
        Simulator::Run();
        const double early = (std::min(a, b) - t0).GetSeconds() - Latency(1000000);
        const double late = (std::max(a, b) - t0).GetSeconds() - Latency(1000000);
        EXPECT_GT(late - early, 1e-9) << "a tie";
        EXPECT_GE(early, w * 2.1 / 1.1 * (1 - 1e-9));
        EXPECT_NEAR(late, 2 * w, 2e-10);
        first[repeat] = std::min(a, b) - t0;
        m_net->Dispose();
        SetUp(); // a fresh network: the jobs' first iteration again
        configure();
    }
    EXPECT_EQ(first[0], first[1]);
}

TEST_F(FlowNetworkTest, AcksNeverHoldTheirFlowBack)
{
    // Job 1 (weight 4) sends to host 0 from hosts 1 and 3, and they share
    // the switch's port to host 0 at half its rate each. Job 0 (weight 1)
    // sends from host 0 to host 1; its ACKs travel back over that port. ACKs
    // go in the control class, ahead of all data: they take their sliver
    // first and never limit their flow, so job 0 sends at nearly the line
    // rate. (Shared in the flow's own class and weight, job 0 would be held
    // at the port's level per unit of weight, an eighth of its rate.)
    m_net->SetAttribute("ContendedLinkEfficiency", DoubleValue(1));
    m_net->SetRateWeight(1, 4);
    Time at[3];
    const uint64_t id0 = Post(0, 1, 10000000, 0, &at[0]);
    const uint64_t id1 = Post(1, 0, 10000000, 1, &at[1]);
    const uint64_t id3 = Post(3, 0, 10000000, 1, &at[2]);
    double rate[3] = {0, 0, 0};
    Simulator::Schedule(MicroSeconds(1), [&]() {
        rate[0] = m_net->GetRate(id0);
        rate[1] = m_net->GetRate(id1);
        rate[2] = m_net->GetRate(id3);
    });
    Simulator::Run();
    const double c = static_cast<double>(kRate);
    EXPECT_NEAR(rate[0], c, c * 0.005);
    EXPECT_NEAR(rate[1], c / 2, c * 0.005);
    EXPECT_NEAR(rate[2], c / 2, c * 0.005);
    EXPECT_LT(rate[1] + rate[2], c); // job 0's ACKs took their share of the port
}

TEST_F(FlowNetworkTest, OneConnectionSendsInOrder)
{
    // Same source port, hosts and job: one queue pair, the second message
    // after the first has left, so the link is never shared.
    Time a(-1);
    Time b(-1);
    for (Time* at : {&a, &b})
    {
        RdmaMessageInfo info;
        info.bytes = 1000000;
        info.jobId = 0;
        info.srcPort = 0xC123;
        m_net->SendMessage(0, 1, info, [at]() { *at = Simulator::Now(); });
    }
    Simulator::Run();
    const double w = WireSeconds(1000000, kRate);
    EXPECT_NEAR(a.GetSeconds(), w + Latency(1000000), 2e-10);
    EXPECT_NEAR(b.GetSeconds(), 2 * w + Latency(1000000), 2e-10);
}

TEST_F(FlowNetworkTest, SolvesOnlyTheComponentThatChanged)
{
    // Hosts 0->1 and 2->3 share no link in either direction: each start or
    // end solves one flow, never both.
    Time a(-1);
    Time b(-1);
    Post(0, 1, 1000000, 0, &a);
    Simulator::Schedule(MicroSeconds(5), [&]() { Post(2, 3, 1000000, 1, &b); });
    Simulator::Run();
    EXPECT_EQ(m_net->GetRecomputations(), 4u); // two starts, two ends
    EXPECT_EQ(m_net->GetFlowsSolved(), 2u);    // a start solves its own flow, an end none
    const double w = WireSeconds(1000000, kRate);
    EXPECT_NEAR(a.GetSeconds(), w + Latency(1000000), 1e-10);
    EXPECT_NEAR(b.GetSeconds(), 5e-6 + w + Latency(1000000), 1e-10);
}

} // namespace
