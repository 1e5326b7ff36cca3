/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The one network interface (ClusterNetwork) at both levels: the same calls
// give the same behaviour on the packet-level RoceFabric and the flow-level
// FlowNetwork, checked against times computed from the wire format and the
// links' rates and delays.

#include "fabric-test-util.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

constexpr uint64_t kRateBps = 100000000000ull; // 100 Gb/s
constexpr int64_t kDelayNs = 1000;

/// A default of an RdmaNic attribute, as text (the flow level takes the NICs' values).
std::string
NicDefault(const std::string& name)
{
    TypeId::AttributeInformation info;
    EXPECT_TRUE(RdmaNic::GetTypeId().LookupAttributeByName(name, &info));
    return info.initialValue->SerializeToString(info.checker);
}

/// Builds a 3-host star at the level the test is parametrized with.
class ClusterNetworkTest : public ::testing::TestWithParam<std::string>
{
  protected:
    void SetUp() override
    {
        RoceUsePicoseconds();
        const FabricTopology topo = test::MakeStar(3, kRateBps, kDelayNs);
        if (GetParam() == "packet")
        {
            Ptr<RoceFabric> fabric = RoceFabricHelper().Install(topo);
            fabric->AssignStreams(0);
            m_network = fabric;
        }
        else
        {
            Ptr<FlowNetwork> flow = CreateObject<FlowNetwork>();
            flow->SetAttribute("PayloadPerPacket",
                               UintegerValue(std::stoul(NicDefault("PayloadPerPacket"))));
            flow->SetAttribute("AckInterval", UintegerValue(std::stoul(NicDefault("AckInterval"))));
            flow->Build(topo);
            m_network = flow;
        }
    }

    void TearDown() override
    {
        m_network = nullptr;
        Simulator::Destroy();
    }

    /// Time from posting a lone message of \p bytes to its last byte's arrival, one switch
    /// away: its wire bytes at the line rate, two propagation delays, and the last frame
    /// stored and forwarded once more at the switch.
    Time Analytic(uint64_t bytes) const
    {
        const uint32_t payload = m_network->GetPayloadPerPacket();
        const uint64_t packets = (bytes + payload - 1) / payload;
        uint64_t wire = 0;
        for (uint64_t i = 0; i < packets; ++i)
        {
            wire += test::WireOf(test::DataFrameBytes(bytes, payload, i));
        }
        const uint64_t lastFrame = test::WireOf(test::DataFrameBytes(bytes, payload, packets - 1));
        const double seconds = 8.0 * static_cast<double>(wire + lastFrame) / kRateBps;
        return Seconds(seconds) + NanoSeconds(2 * kDelayNs);
    }

    /// Post \p bytes of job \p job from host 0 to host 1 now; \p at gets the delivery time.
    void Post(uint32_t job, uint64_t bytes, Time& at, bool& failed)
    {
        RdmaMessageInfo info;
        info.bytes = bytes;
        info.jobId = job;
        m_network->Post(
            0,
            1,
            info,
            [&at]() { at = Simulator::Now(); },
            [&failed](const std::string&) { failed = true; });
    }

    Ptr<ClusterNetwork> m_network;
};

TEST_P(ClusterNetworkTest, ALoneMessageArrivesAtItsWireTime)
{
    const uint64_t bytes = 1000000;
    Time at(-1);
    bool failed = false;
    Post(1, bytes, at, failed);
    Simulator::Run();
    ASSERT_TRUE(at.IsPositive()) << "not delivered";
    EXPECT_FALSE(failed);
    const Time expected = Analytic(bytes);
    EXPECT_NEAR(at.GetSeconds(), expected.GetSeconds(), 0.01 * expected.GetSeconds());
    EXPECT_EQ(m_network->GetMessagesPosted(), 1u);
    EXPECT_EQ(m_network->GetMessagesDelivered(), 1u);
}

TEST_P(ClusterNetworkTest, AClosedGateHoldsAJobUntilItOpens)
{
    const uint64_t bytes = 1000000;
    const Time open = MicroSeconds(100); // after job 8 is done alone
    m_network->AddJob(7, {0, 1, 1});
    EXPECT_EQ(m_network->GetJobHosts(7), (std::vector<uint32_t>{0, 1}));
    SchedulerControl& control = *m_network; // as a scheduler sees it
    control.SetGate(7, false);
    Time gated(-1);
    Time free(-1);
    bool failed = false;
    Post(7, bytes, gated, failed);
    Post(8, bytes, free, failed); // another job, on another connection: never gated
    Simulator::Schedule(open, [&control]() { control.SetGate(7, true); });
    Simulator::Run();
    ASSERT_TRUE(gated.IsPositive() && free.IsPositive()) << "not delivered";
    const Time alone = Analytic(bytes);
    // Job 8 had the link to itself until the gate opened, and was done by then.
    EXPECT_NEAR(free.GetSeconds(), alone.GetSeconds(), 0.01 * alone.GetSeconds());
    // Job 7 sent nothing before its gate opened, then alone.
    EXPECT_NEAR(gated.GetSeconds(), (open + alone).GetSeconds(), 0.01 * alone.GetSeconds());
}

TEST_P(ClusterNetworkTest, AClosedGateLetsTheJobsUnplannedTrafficPass)
{
    // Job 7's gate is closed until 100 us; its planned message waits for it,
    // its unplanned one (gated false: a pipeline transfer, say) goes at once.
    const uint64_t bytes = 1000000;
    const Time open = MicroSeconds(100);
    m_network->AddJob(7, {0, 1});
    SchedulerControl& control = *m_network;
    control.SetGate(7, false);
    Time planned(-1);
    Time unplanned(-1);
    bool failed = false;
    Post(7, bytes, planned, failed);
    RdmaMessageInfo info;
    info.bytes = bytes;
    info.jobId = 7;
    info.gated = false;
    info.srcPort = 0xC123; // a connection of its own, as another communicator's
    m_network->Post(
        0,
        1,
        info,
        [&unplanned]() { unplanned = Simulator::Now(); },
        nullptr);
    Simulator::Schedule(open, [&control]() { control.SetGate(7, true); });
    Simulator::Run();
    ASSERT_TRUE(planned.IsPositive() && unplanned.IsPositive()) << "not delivered";
    const Time alone = Analytic(bytes);
    EXPECT_NEAR(unplanned.GetSeconds(), alone.GetSeconds(), 0.01 * alone.GetSeconds());
    EXPECT_NEAR(planned.GetSeconds(), (open + alone).GetSeconds(), 0.01 * alone.GetSeconds());
}

TEST_P(ClusterNetworkTest, RoutesAndRatesAreTheTopologys)
{
    const std::vector<uint32_t> path = m_network->GetPath(0, 2, 0xC001);
    ASSERT_EQ(path.size(), 2u);
    const std::vector<uint32_t> directed = m_network->GetDirectedPath(0, 2, 0xC001);
    EXPECT_EQ(directed, m_network->GetTopology().DirectedLinks(0, path));
    for (uint32_t link : directed)
    {
        EXPECT_EQ(m_network->GetLinkRateBps(link), kRateBps);
    }
    EXPECT_EQ(m_network->GetNHosts(), 3u);
}

INSTANTIATE_TEST_SUITE_P(BothLevels,
                         ClusterNetworkTest,
                         ::testing::Values("packet", "flow"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return info.param;
                         });

} // namespace
