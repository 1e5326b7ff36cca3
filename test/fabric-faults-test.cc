/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Faults: a link that fails on a loaded fat-tree costs frames but no flow
 * when another path exists, and every byte a flow sent is either received
 * or counted lost; switches route around a failed link only after the
 * detection delay and take it back on recovery; a host cut off fails its
 * job and the run ends failed with the faults recorded; frames an error
 * model drops and bytes a flow that never completes resent are counted;
 * fault lists are read with errors naming where.
 */

#include "example-process-test-util.h"
#include "fabric-test-util.h"
#include "scenario-run-test.h"

#include <gtest/gtest.h>
#include <map>
#include <sstream>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// Data frame bytes by flow, sent by the sender's port and received by the receiver's.
class DataFrameTally
{
  public:
    explicit DataFrameTally(Ptr<RoceFabric> fabric)
        : m_fabric(fabric)
    {
        for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
        {
            Ptr<RoceNetDevice> port = fabric->GetNic(h)->GetPort();
            const uint32_t self = fabric->GetNic(h)->GetAddress();
            port->TraceConnectWithoutContext(
                "Transmit",
                Callback<void, Ptr<const Packet>>(
                    [this](Ptr<const Packet> p) { Count(p, m_sent, false, 0); }));
            // The sniffer sees frames both ways; those addressed here were received.
            port->TraceConnectWithoutContext(
                "Sniffer",
                Callback<void, Ptr<const Packet>>(
                    [this, self](Ptr<const Packet> p) { Count(p, m_received, true, self); }));
        }
    }

    std::map<uint64_t, uint64_t> m_sent;
    std::map<uint64_t, uint64_t> m_received;

  private:
    void Count(Ptr<const Packet> p,
               std::map<uint64_t, uint64_t>& into,
               bool onlyTo,
               uint32_t address)
    {
        if (RoceForwardingInfo::Peek(p).etherType != RoceWire::kEtherTypeIpv4)
        {
            return;
        }
        RoceHeader h;
        p->PeekHeader(h);
        if (!h.IsData() || (onlyTo && h.GetDestination() != address))
        {
            return;
        }
        const uint32_t host = RoceHostIndex(h.GetDestination());
        const RdmaMessageInfo* m = m_fabric->GetNic(host)->FindReceiveMessage(h.GetDestQp());
        ASSERT_NE(m, nullptr);
        into[m->flowId] += p->GetSize();
    }

    Ptr<RoceFabric> m_fabric;
};

/// The switch-to-switch link that carried the most bytes so far.
uint32_t
BusiestSwitchLink(Ptr<RoceFabric> fabric)
{
    const FabricTopology& topo = fabric->GetTopology();
    uint32_t best = 0;
    uint64_t most = 0;
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const FabricLink& link = topo.GetLink(l);
        if (topo.IsHost(link.a) || topo.IsHost(link.b))
        {
            continue;
        }
        const uint64_t bytes =
            fabric->GetChannel(l)->GetTxBytes(0) + fabric->GetChannel(l)->GetTxBytes(1);
        if (bytes > most)
        {
            most = bytes;
            best = l;
        }
    }
    return best;
}

class FabricFaultsTest : public ScenarioRunTest
{
  protected:
    void TearDown() override
    {
        Config::Reset();
        ScenarioRunTest::TearDown();
    }

    /// A k=4 fat-tree (16 hosts) with a 262 us ACK timeout (4.096 us x 2^6), 7 retries.
    static Ptr<RoceFabric> FatTree()
    {
        RoceFabricHelper helper;
        helper.SetNicAttribute("AckTimeoutExponent", UintegerValue(6));
        FatTreeParams ft;
        ft.k = 4;
        Ptr<RoceFabric> fabric = helper.Install(MakeFatTree(ft));
        fabric->AssignStreams(1);
        return fabric;
    }
};

TEST_F(FabricFaultsTest, LinkFailureOnLoadedFatTreeLosesNoFlowAndEveryByteIsAccounted)
{
    // Every host sends 2 MB to the host 4 places on (in another pod), so
    // every core link is loaded. At 50 us the busiest switch-to-switch link
    // fails for good; 20 us later the switches route around it. Frames on
    // it are lost, but every flow has another path, so go-back-N and
    // timeouts recover each one: all 16 complete, none fails. For every
    // flow, the data frame bytes its sender put on the wire equal those its
    // receiver got plus those counted lost (buffer, error model, link
    // down): nothing is lost uncounted. Without the rerouting the flows
    // hashed onto the dead link run out of retries.
    Ptr<RoceFabric> fabric = FatTree();
    RoceFlowMonitor monitor(fabric);
    DataFrameTally tally(fabric);
    uint32_t failed = 0;
    for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
    {
        fabric->GetNic(h)->TraceConnectWithoutContext(
            "SendFailed",
            Callback<void, const RdmaMessageInfo&, RdmaSendError>(
                [&failed](const RdmaMessageInfo&, RdmaSendError) { ++failed; }));
        RdmaMessageInfo info;
        info.bytes = 2000000;
        fabric->SendMessage(h, (h + 4) % 16, info, Seconds(0));
    }
    Simulator::Stop(MicroSeconds(50));
    Simulator::Run();
    const uint32_t link = BusiestSwitchLink(fabric);
    Ptr<FabricFaults> faults =
        CreateObjectWithAttributes<FabricFaults>("DetectionDelay", TimeValue(MicroSeconds(20)));
    FabricFault f;
    f.target = FabricFault::Target::LINK;
    f.id = link;
    f.downNs = 50000;
    faults->Install(fabric, {f});
    Simulator::Stop(Seconds(1));
    Simulator::Run();

    EXPECT_EQ(failed, 0u);
    EXPECT_EQ(monitor.GetCompletedFlows(), 16u);
    const auto lost = monitor.GetLostBytes();
    EXPECT_GT(lost[static_cast<std::size_t>(RoceLossCause::LINK_DOWN)], 0u)
        << "the failure hit traffic";
    const std::vector<LinkRecord> links = monitor.GetLinkRecords(0);
    EXPECT_EQ(links[link].lostBytesLinkDown,
              fabric->GetChannel(link)->GetLinkDownBytes(0) +
                  fabric->GetChannel(link)->GetLinkDownBytes(1));
    EXPECT_GT(links[link].lostBytesLinkDown, 0u);
    uint64_t flowLost = 0;
    for (const FlowRecord& r : monitor.GetFlowRecords(0))
    {
        const uint64_t lostBytes = r.lostBytesBuffer + r.lostBytesError + r.lostBytesLinkDown;
        flowLost += lostBytes;
        EXPECT_EQ(tally.m_sent[r.flowId], tally.m_received[r.flowId] + lostBytes)
            << "flow " << r.flowId;
        EXPECT_GE(tally.m_received[r.flowId], r.bytes);
        if (r.lostBytesLinkDown > 0)
        {
            EXPECT_GT(r.retransmittedBytes, 0u) << "flow " << r.flowId << " recovered its losses";
        }
    }
    EXPECT_GT(flowLost, 0u);
    ASSERT_EQ(faults->GetEvents().size(), 2u);
    EXPECT_EQ(faults->GetEvents()[0].event, "down");
    EXPECT_EQ(faults->GetEvents()[0].time, MicroSeconds(50));
    EXPECT_EQ(faults->GetEvents()[1].event, "routes-withdrawn");
    EXPECT_EQ(faults->GetEvents()[1].time, MicroSeconds(70));
}

TEST_F(FabricFaultsTest, SwitchesRouteAroundOnlyAfterTheDetectionDelayAndBackOnRecovery)
{
    // An aggregation switch's uplink to a core fails at 10 us and recovers
    // at 40 us; detection takes 15 us. Over many flow hashes towards a host
    // in another pod the switch picks the dead port until 25 us (so at
    // 24.999 us), never from 25 us to 40 us, and again from 40 us on.
    Ptr<RoceFabric> fabric = FatTree();
    const FabricTopology& topo = fabric->GetTopology();
    // The first aggregation-core link: neither end is a host nor adjacent to one.
    uint32_t link = topo.GetNLinks();
    for (uint32_t l = 0; l < topo.GetNLinks() && link == topo.GetNLinks(); ++l)
    {
        const FabricLink& k = topo.GetLink(l);
        auto touchesHost = [&topo](uint32_t node) {
            for (uint32_t adj : topo.AdjacentLinks(node))
            {
                if (topo.IsHost(topo.GetPeer(node, adj)))
                {
                    return true;
                }
            }
            return topo.IsHost(node);
        };
        if (!touchesHost(k.a) && !touchesHost(k.b))
        {
            link = l;
        }
    }
    ASSERT_LT(link, topo.GetNLinks());
    const FabricLink& dead = topo.GetLink(link);
    // The lower tier end is a (the generators' convention): the aggregation switch.
    const uint32_t agg = dead.a;
    Ptr<RoceSwitch> sw = fabric->GetSwitch(agg);
    const uint32_t deadPort = topo.PortOf(agg, link);
    // A host outside the aggregation switch's pod: the host its uplinks lead to.
    uint32_t farHost = 0;
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        if (fabric->GetRoutes()->GetHopCount(agg, h) == 4)
        {
            farHost = h;
            break;
        }
    }
    auto picksDeadPort = [&]() {
        uint32_t n = 0;
        for (uint32_t port = 0; port < 256; ++port)
        {
            RoceForwardingInfo info;
            info.srcIp = RoceHostAddress(0);
            info.dstIp = RoceHostAddress(farHost);
            info.srcPort = static_cast<uint16_t>(49152 + port);
            info.dstPort = 4791;
            n += sw->SelectPort(info) == deadPort;
        }
        return n;
    };
    ASSERT_GT(picksDeadPort(), 0u) << "the dead port is on the path to host " << farHost;
    Ptr<FabricFaults> faults =
        CreateObjectWithAttributes<FabricFaults>("DetectionDelay", TimeValue(MicroSeconds(15)));
    FabricFault f;
    f.target = FabricFault::Target::LINK;
    f.id = link;
    f.downNs = 10000;
    f.upNs = 40000;
    faults->Install(fabric, {f});
    std::map<int64_t, uint32_t> picks; // ns -> hashes that pick the dead port
    for (int64_t ns : {9999, 10000, 24999, 25000, 39999, 40000, 50000})
    {
        Simulator::Schedule(NanoSeconds(ns),
                            [&picks, &picksDeadPort, ns]() { picks[ns] = picksDeadPort(); });
    }
    Simulator::Run();
    EXPECT_GT(picks[9999], 0u);
    EXPECT_GT(picks[10000], 0u);
    EXPECT_GT(picks[24999], 0u) << "no ECMP change before the detection delay";
    EXPECT_EQ(picks[25000], 0u);
    EXPECT_EQ(picks[39999], 0u);
    EXPECT_GT(picks[40000], 0u) << "back in its groups on recovery";
    EXPECT_EQ(picks[50000], picks[9999]);
}

TEST_F(FabricFaultsTest, HostCutOffFailsItsJobAndTheRunEndsFailedWithFaultsRecorded)
{
    // Job 0 on hosts {0, 2} (3 iterations), job 1 on hosts {1, 3} (300
    // iterations); host 3 goes down at 2 ms, for good, given in the
    // scenario's faults list. Job 0 has finished by then. Job 1's queue
    // pairs to and from host 3 time out 8 times (262 us each) and fail; the
    // run stops failed, naming job 1, with the faults table holding the
    // failure and its detection and the lost bytes in the flows and links
    // tables. It ends long before job 1 could have finished.
    ScenarioSpec spec = TwoLeaves(1);
    spec.name = "host-fault";
    spec.jobs.push_back(Job(0, {0, 2}, 1000000, MicroSeconds(100), 3));
    spec.jobs.push_back(Job(1, {1, 3}, 1000000, MicroSeconds(100), 300));
    for (JobSpec& j : spec.jobs)
    {
        j.gpusPerHost = 1;
    }
    spec.fabric.ackTimeoutExponent = 6;
    spec.output.db = (m_dir / "runs.db").string();
    FabricFault f;
    f.target = FabricFault::Target::HOST;
    f.id = 3;
    f.downNs = 2000000;
    f.where = "test: faults[0]";
    spec.faults.push_back(f);
    std::string message;
    ASSERT_NO_FATAL_FAILURE(RunUntilAJobFails(spec, message));
    EXPECT_LT(Simulator::Now(), MilliSeconds(2) + MilliSeconds(5)) << "stops at the failure";
    EXPECT_NE(message.find("job 1 failed at "), std::string::npos) << message;
    const std::filesystem::path db = spec.output.db;
    EXPECT_EQ(Query(db, "SELECT status FROM runs")[0][0], "failed");
    EXPECT_EQ(QueryInt(db, "SELECT COUNT(*) FROM jobs WHERE job_id=0 AND end_ns IS NOT NULL"), 1);
    EXPECT_EQ(QueryInt(db, "SELECT COUNT(*) FROM jobs WHERE job_id=1 AND end_ns IS NULL"), 1);
    const std::vector<Row> events =
        Query(db, "SELECT event, time_ns, target, target_id, links FROM faults ORDER BY time_ns");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0][0], "down");
    EXPECT_EQ(events[0][1], "2000000");
    EXPECT_EQ(events[0][2], "host");
    EXPECT_EQ(events[0][3], "3");
    EXPECT_EQ(events[0][4], "1");
    EXPECT_EQ(events[1][0], "routes-withdrawn");
    EXPECT_EQ(events[1][1], "2100000") << "the default detection delay, 100 us";
    EXPECT_GT(QueryInt(db, "SELECT SUM(lost_bytes_link_down) FROM flows WHERE job_id=1"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT SUM(lost_bytes_link_down) FROM flows WHERE job_id=0"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT COUNT(*) FROM links WHERE lost_bytes_link_down > 0"), 1)
        << "only host 3's link lost frames to the failure";
    EXPECT_GT(QueryInt(db, "SELECT SUM(retransmitted_bytes) FROM flows WHERE ack_ns IS NULL"), 0)
        << "retransmissions of flows that never completed are recorded";
}

TEST_F(FabricFaultsTest, FlapShorterThanTheDetectionDelayLosesNoIteration)
{
    // Job 1's ring crosses the spine between hosts 1 and 3; host 3's link
    // goes down for 50 us at 1.95 ms, at the end of a message of the second
    // iteration's all-reduce, and comes back before the 100 us detection
    // delay: no route changes. The frames on the wire are lost, the
    // message's tail among them, which only a timeout recovers: one adaptive
    // timeout, at most 8.192 ms (the default first timeout's longer value).
    // So the job finishes every iteration, none fails, and it is late by
    // less than the flap plus two such timeouts: 16.434 ms, 329 x the flap
    // (the timeouts, not the flap, set it).
    ScenarioSpec spec = TwoLeaves(1);
    spec.name = "short-flap";
    spec.jobs.push_back(Job(1, {1, 3}, 8000000, MicroSeconds(500), 4));
    spec.jobs[0].gpusPerHost = 1;
    const JobOutcome clean = RunAlone(spec, spec.jobs[0]);
    ASSERT_EQ(clean.iterationTimes.size(), 4u);
    FabricFault f;
    f.target = FabricFault::Target::HOST;
    f.id = 3;
    f.downNs = 1950000;
    f.upNs = 2000000;
    spec.faults.push_back(f);
    const RunOutcome flapped = ScenarioRunner(spec, "test").Run("fair");
    ASSERT_EQ(flapped.jobs.size(), 1u);
    const JobOutcome& j = flapped.jobs[0];
    EXPECT_TRUE(j.done);
    EXPECT_FALSE(j.failed);
    EXPECT_EQ(j.iterations, 4u);
    EXPECT_GT(j.trainingTime, clean.trainingTime) << "the flap cost something";
    EXPECT_LT(j.trainingTime, clean.trainingTime + MicroSeconds(50 + 2 * 8192));
    // The same flap under InfiniBand's local ACK timeout: the lost tail
    // waits 4.3 s.
    spec.fabric.retransmission = "local-ack";
    const RunOutcome ib = ScenarioRunner(spec, "test").Run("fair");
    EXPECT_TRUE(ib.jobs[0].done);
    EXPECT_GT(ib.jobs[0].trainingTime, clean.trainingTime + Seconds(4));
}

TEST_F(FabricFaultsTest, ErrorModelLossesAndRetransmissionsOfAnIncompleteFlowAreCounted)
{
    // Host 0 sends 100 kB to host 1, whose link drops every frame (error
    // rate 1) at both ends. With a fixed 100 us timeout and no retry limit
    // the flow never completes; in 1 ms it is resent several times. Every
    // frame the switch sent towards host 1 is counted lost to the error
    // model on that link; the flow's lost bytes are its data frames sent
    // (nothing got through), and its retransmitted bytes are the payload
    // it sent beyond the first 100 kB, counted from the frames on the wire.
    RoceFabricHelper helper;
    helper.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
    const uint32_t link =
        fabric->GetTopology().AdjacentLinks(fabric->GetTopology().GetHosts()[1])[0];
    fabric->SetLinkErrorRate(link, 1.0);
    fabric->AssignStreams(1);
    RoceFlowMonitor monitor(fabric);
    DataFrameTally tally(fabric);
    uint64_t sentPayload = 0;
    fabric->GetNic(0)->GetPort()->TraceConnectWithoutContext(
        "Transmit",
        Callback<void, Ptr<const Packet>>([&sentPayload](Ptr<const Packet> p) {
            RoceHeader h;
            p->PeekHeader(h);
            if (h.IsData())
            {
                sentPayload += p->GetSize() - h.GetSerializedSize() - RoceWire::kIcrc;
            }
        }));
    RdmaMessageInfo info;
    info.bytes = 100000;
    const uint64_t flow = fabric->SendMessage(0, 1, info, Seconds(0));
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();

    EXPECT_EQ(monitor.GetCompletedFlows(), 0u);
    const std::vector<FlowRecord> flows = monitor.GetFlowRecords(0);
    ASSERT_EQ(flows.size(), 1u);
    const FlowRecord& r = flows[0];
    EXPECT_EQ(r.flowId, flow);
    EXPECT_EQ(r.ackNs, -1);
    EXPECT_GT(sentPayload, 3 * info.bytes) << "resent several times";
    EXPECT_EQ(r.retransmittedBytes, sentPayload - info.bytes);
    EXPECT_EQ(tally.m_received[flow], 0u);
    EXPECT_EQ(r.lostBytesError, tally.m_sent[flow]);
    EXPECT_EQ(r.lostBytesBuffer + r.lostBytesLinkDown, 0u);
    Ptr<RoceChannel> ch = fabric->GetChannel(link);
    const uint32_t switchEnd = fabric->GetTopology().IsHost(fabric->GetTopology().GetLink(link).a);
    const LinkRecord l = monitor.GetLinkRecords(0)[link];
    EXPECT_EQ(l.lostBytesError, ch->GetTxBytes(switchEnd) + ch->GetTxBytes(1 - switchEnd));
    EXPECT_EQ(monitor.GetLostBytes()[static_cast<std::size_t>(RoceLossCause::ERROR)],
              l.lostBytesError);
    std::ostringstream report;
    monitor.PrintSummary(report);
    EXPECT_NE(report.str().find("retransmitted bytes: " + std::to_string(r.retransmittedBytes)),
              std::string::npos)
        << report.str();
    EXPECT_NE(report.str().find("error model " + std::to_string(l.lostBytesError)),
              std::string::npos)
        << report.str();
}

TEST(FabricFaultRoutes, RoutesAvoidDownLinksAndKeepOldRoutesToHostsCutOff)
{
    // On a k=4 fat-tree with one edge-aggregation link down, no switch that
    // can still reach a host routes to it over the dead link, and every
    // next hop brings the frame one hop closer over the links that are up.
    // With a host's only link down, every switch keeps its intact routes
    // to that host (its frames die at the dead link, never loop).
    FatTreeParams ft;
    ft.k = 4;
    const FabricTopology topo = MakeFatTree(ft);
    const EcmpRoutes intact(topo);
    uint32_t edgeAgg = 0;
    while (topo.IsHost(topo.GetLink(edgeAgg).a) || topo.IsHost(topo.GetLink(edgeAgg).b))
    {
        ++edgeAgg;
    }
    std::vector<bool> down(topo.GetNLinks(), false);
    down[edgeAgg] = true;
    const EcmpRoutes routes(topo, down);
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        if (topo.IsHost(node))
        {
            continue;
        }
        for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
        {
            const std::vector<uint16_t>& ports = routes.GetNextHopPorts(node, h);
            ASSERT_FALSE(ports.empty());
            for (uint16_t port : ports)
            {
                const uint32_t l = topo.AdjacentLinks(node)[port];
                EXPECT_FALSE(down[l]) << "node " << node << " host " << h;
                const uint32_t peer = topo.GetPeer(node, l);
                const uint32_t d = routes.GetHopCount(node, h);
                EXPECT_EQ((topo.IsHost(peer) ? 0u : routes.GetHopCount(peer, h)) + 1, d);
            }
        }
    }
    std::vector<bool> hostDown(topo.GetNLinks(), false);
    const uint32_t host = topo.GetHosts()[5];
    hostDown[topo.AdjacentLinks(host)[0]] = true;
    const EcmpRoutes cut(topo, hostDown);
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        if (!topo.IsHost(node))
        {
            EXPECT_EQ(cut.GetNextHopPorts(node, 5), intact.GetNextHopPorts(node, 5));
        }
    }
    EXPECT_THROW(EcmpRoutes(topo, std::vector<bool>(3, false)), std::invalid_argument);
}

TEST(FabricFaultInput, FlagListsAndScenarioFaultsAreReadWithErrorsNamingWhere)
{
    const std::vector<FabricFault> f =
        ParseFaultList("link:12@1ms-3ms,switch:20@2us,host:0@0s", "faults");
    ASSERT_EQ(f.size(), 3u);
    EXPECT_EQ(f[0].target, FabricFault::Target::LINK);
    EXPECT_EQ(f[0].id, 12u);
    EXPECT_EQ(f[0].downNs, 1000000);
    EXPECT_EQ(f[0].upNs, 3000000);
    EXPECT_EQ(f[1].target, FabricFault::Target::SWITCH);
    EXPECT_EQ(f[1].upNs, -1);
    EXPECT_EQ(f[2].target, FabricFault::Target::HOST);
    EXPECT_EQ(f[1].where, "--faults item 2 'switch:20@2us'");
    EXPECT_TRUE(ParseFaultList("", "faults").empty());
    for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
             {"link:1@1ms,", "item 2 '': expected KIND:ID@DOWN[-UP]"},
             {"port:1@1ms", "item 1 'port:1@1ms': kind must be link, switch or host"},
             {"link:x@1ms", "id must be an unsigned 32-bit integer"},
             {"link:99999999999@1ms", "id must be an unsigned 32-bit integer"},
             {"link:1@1xs", "down time: "},
             {"link:1@2ms-1ms", "the up time must be after the down time"},
             {"link:1@2ms-", "up time: "}})
    {
        try
        {
            ParseFaultList(text, "faults");
            ADD_FAILURE() << "accepted " << text;
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
    }

    const std::string head = "{\n  \"jobs\": [{\"model\": \"gpt2-124m\"}],\n  \"faults\": [\n";
    const ScenarioSpec spec = ReadScenarioText(
        head +
            "    {\"link\": 3, \"down\": \"1ms\", \"up\": \"2ms\"},\n    {\"host\": 1, \"down\": "
            "\"5us\"}\n  ]\n}\n",
        "s.json");
    ASSERT_EQ(spec.faults.size(), 2u);
    EXPECT_EQ(spec.faults[0].id, 3u);
    EXPECT_EQ(spec.faults[0].upNs, 2000000);
    EXPECT_EQ(spec.faults[1].target, FabricFault::Target::HOST);
    EXPECT_EQ(spec.faults[1].downNs, 5000);
    EXPECT_EQ(spec.faults[1].where, "s.json:5: faults[1]");
    for (const auto& [entry, why] : std::vector<std::pair<std::string, std::string>>{
             {"{\"link\": 3}", "s.json:4: faults[0].down: missing"},
             {"{\"link\": 3, \"host\": 1, \"down\": \"1ms\"}",
              "s.json:4: faults[0]: give exactly one"},
             {"{\"down\": \"1ms\"}", "s.json:4: faults[0]: give exactly one"},
             {"{\"link\": 3, \"down\": \"2ms\", \"up\": \"1ms\"}",
              "s.json:4: faults[0].up: must be after"},
             {"{\"link\": -3, \"down\": \"2ms\"}", "s.json:4: faults[0].link: "},
             {"{\"link\": 3, \"down\": \"2ms\", \"when\": 1}", "s.json:4: faults[0].when: "}})
    {
        try
        {
            ReadScenarioText(head + "    " + entry + "\n  ]\n}\n", "s.json");
            ADD_FAILURE() << "accepted " << entry;
        }
        catch (const std::runtime_error& e)
        {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
    }
}

TEST_F(FabricFaultsTest, InstallRejectsIdsTheFabricDoesNotHave)
{
    Ptr<RoceFabric> fabric = FatTree();
    Ptr<FabricFaults> faults = CreateObject<FabricFaults>();
    const uint32_t hostNode = fabric->GetNode(fabric->GetTopology().GetHosts()[0])->GetId();
    for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
             {"link:48@1ms", "no link 48 (the fabric has 48 links"},
             {"host:16@1ms", "no host 16 (the fabric has 16 hosts"},
             {"switch:999@1ms", "no switch with node id 999"},
             {"switch:" + std::to_string(hostNode) + "@1ms",
              "node " + std::to_string(hostNode) + " is a host, not a switch"}})
    {
        try
        {
            faults->Install(fabric, ParseFaultList(text, "faults"));
            ADD_FAILURE() << "accepted " << text;
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find("--faults item 1 '" + text + "': " + why),
                      std::string::npos)
                << e.what();
        }
    }
}

} // namespace
