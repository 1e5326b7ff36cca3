/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Runs built from HPCC-format files: the config keys landing on the
// module's attributes, fct.txt against the analytic completion time and
// the documented standalone FCT, a lossy link recovered by go-back-N, PFC
// lines in an incast, a fat-tree file building the same fabric as
// MakeFatTree, unmodelled keys named, and
// "path:line: field" errors for inputs that are wrong together.

#include "fabric-test-util.h"
#include "hpcc-file-run-test.h"
#include "hpcc-test-util.h"
#include "temp-dir-test.h"

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

using test::Fields;
using test::FileRun;
using test::HpccScenarioTest;
using test::ReadLines;

/// Wire bytes of data packet \p i of a \p bytes message in \p mtu-byte packets.
uint64_t
DataWire(uint64_t bytes, uint32_t mtu, uint64_t i)
{
    return test::WireOf(test::DataFrameBytes(bytes, mtu, i));
}

// ------------------------------------------------------------ output format

TEST(HpccOutputFormat, AddressesAndFctLineAsThirdCcPrintsThem)
{
    // 0x0b000001 + (id / 256) * 0x10000 + (id % 256) * 0x100.
    EXPECT_EQ(HpccNodeAddress(0), 0x0b000001u);
    EXPECT_EQ(HpccNodeAddress(3), 0x0b000301u);
    EXPECT_EQ(HpccNodeAddress(255), 0x0b00ff01u);
    EXPECT_EQ(HpccNodeAddress(256), 0x0b010001u);
    EXPECT_EQ(HpccNodeAddress(300), 0x0b012c01u);
    EXPECT_EQ(FormatHpccFctLine(0, 300, 10000, 100, 1000, 2000000000, 12345, 6789),
              "0b000001 0b012c01 10000 100 1000 2000000000 12345 6789\n");
}

// ------------------------------------------------------------ one flow

TEST_F(HpccScenarioTest, OneFlowFctMatchesTheAnalyticValue)
{
    // host 0 - switch 1 - switch 2 - host 3; the first link is the slowest, so
    // nothing queues: each hop is a store-and-forward server (a tandem queue).
    const uint64_t rate[3] = {100000000000ULL, 400000000000ULL, 100000000000ULL};
    const int64_t delayNs[3] = {1000, 2000, 1500};
    const std::string topology = "4 2 3\n"
                                 "1 2\n"
                                 "0 1 100Gbps 0.001ms 0\n"
                                 "1 2 400Gbps 2us 0\n"
                                 "2 3 100Gbps 1500ns 0\n";
    const uint64_t bytes = 123456;
    const uint32_t mtu = 1000;
    const std::string flows = "1\n0 3 3 100 123456 2.000000001\n";
    const std::string config = "PACKET_PAYLOAD_SIZE 1000\n"
                               "L2_ACK_INTERVAL 1\n"
                               "CC_MODE 1\n"
                               "SIMULATOR_STOP_TIME 3\n";
    const FileRun r = Run(Files(topology, flows, config));

    ASSERT_EQ(r.fctLines.size(), 1u);
    const Fields& f = r.fctLines[0];
    ASSERT_EQ(f.size(), 8u);
    EXPECT_EQ(f[0], "0b000001"); // node 0
    EXPECT_EQ(f[1], "0b000301"); // node 3
    EXPECT_EQ(f[2], "10000");    // the first source port of host 0
    EXPECT_EQ(f[3], "100");
    EXPECT_EQ(f[4], "123456");
    EXPECT_EQ(f[5], "2000000001");

    // Analytic: the last data packet reaches host 3, whose ACK (62-byte frame)
    // crosses the three links back.
    const uint64_t n = (bytes + mtu - 1) / mtu;
    std::vector<double> done(n, 0.0);
    for (int hop = 0; hop < 3; ++hop)
    {
        double free = 0;
        for (uint64_t i = 0; i < n; ++i)
        {
            const double ready = hop == 0 ? 0.0 : done[i] + delayNs[hop - 1];
            const double start = std::max(ready, free);
            free = start + DataWire(bytes, mtu, i) * 8e9 / rate[hop];
            done[i] = free;
        }
    }
    double fct = done[n - 1] + delayNs[2];
    for (int hop = 0; hop < 3; ++hop)
    {
        fct += test::WireOf(14 + 20 + 8 + 12 + 4 + 4) * 8e9 / rate[hop] + delayNs[hop];
    }
    const double measured = std::stod(f[6]);
    EXPECT_NEAR(measured, fct, 0.01 * fct) << "analytic " << fct << " ns";

    // Standalone: 2 x delays + per-hop time of a 1000-byte payload + wire bytes at the bottleneck.
    uint64_t wire = 0;
    for (uint64_t i = 0; i < n; ++i)
    {
        wire += DataWire(bytes, mtu, i);
    }
    const uint64_t baseRtt = 2 * (1000 + 2000 + 1500) + 80 + 20 + 80;
    EXPECT_EQ(std::stoull(f[7]), baseRtt + wire * 8 / 100) << "wire bytes " << wire;
    EXPECT_GT(measured, std::stod(f[7]) * 0.9);

    EXPECT_TRUE(r.pfcLines.empty()) << "one flow never fills a buffer";
    EXPECT_EQ(r.monitor->GetCompletedFlows(), 1u);
}

// ------------------------------------------------------------ lossy link

TEST_F(HpccScenarioTest, LinkErrorRateDropsPacketsAndGoBackNCompletesTheFlow)
{
    const double p = 0.01;
    const std::string topology = "3 1 2\n"
                                 "1\n"
                                 "0 1 100Gbps 1us 0\n"
                                 "1 2 100Gbps 1us 0.01\n";
    const std::string flows = "1\n0 2 3 100 1000000 2.0\n";
    std::vector<Fields> first;
    for (int round = 0; round < 2; ++round)
    {
        const FileRun r = Run(Files(topology, flows));
        ASSERT_EQ(r.fctLines.size(), 1u) << "the flow completes despite the losses";
        // Host 2 is end b of link 1: it receives what the switch (end a) sends.
        Ptr<RoceChannel> lossy = r.fabric->GetChannel(1);
        const uint64_t arrived = lossy->GetTxPackets(0);
        const uint64_t dropped = lossy->GetRoceDevice(1)->GetReceiveErrors();
        const double mean = p * arrived;
        const double sd = std::sqrt(arrived * p * (1 - p));
        EXPECT_GT(dropped, 0u);
        EXPECT_NEAR(static_cast<double>(dropped), mean, 5 * sd) << arrived << " frames arrived";
        // The switch end loses ACKs at the same rate; the loss-free link loses nothing.
        EXPECT_GT(lossy->GetTxPackets(1), 0u);
        EXPECT_EQ(r.fabric->GetChannel(0)->GetRoceDevice(0)->GetReceiveErrors(), 0u);
        EXPECT_EQ(r.fabric->GetChannel(0)->GetRoceDevice(1)->GetReceiveErrors(), 0u);
        PointerValue model;
        r.fabric->GetChannel(0)->GetRoceDevice(1)->GetAttribute("ReceiveErrorModel", model);
        EXPECT_EQ(model.Get<ErrorModel>(), nullptr) << "an error rate of 0 means no model";

        // Go-back-N: NAKs, retransmitted bytes, and a completion later than the ideal.
        EXPECT_GT(r.fabric->GetNic(1)->GetNaksSent(), 0u);
        const auto& flow = r.monitor->GetFlows().begin()->second;
        EXPECT_GT(flow.retransmittedBytes, 0u);
        EXPECT_GT(std::stoull(r.fctLines[0][6]), std::stoull(r.fctLines[0][7]));
        if (round == 0)
        {
            first = r.fctLines;
        }
        else
        {
            EXPECT_EQ(r.fctLines, first) << "the error models' streams are fixed";
        }
        Simulator::Destroy();
    }
}

// ------------------------------------------------------------ link failure

TEST_F(HpccScenarioTest, LinkDownBecomesAPermanentFaultOnTheLinkBetweenTheNodes)
{
    // Path 0 - 2 - 3 - 1. LINK_DOWN 5 2 3: the link between nodes 2 and 3
    // (fabric link 1) fails at 2 s + 5 us (the simulators' flows start at
    // 2 s) for good. A time of 0 is no failure, as in third.cc; nodes with
    // no link between them are an error at the key's line.
    const std::string topology = "4 2 3\n"
                                 "2 3\n"
                                 "0 2 100Gbps 1us 0\n"
                                 "2 3 100Gbps 1us 0\n"
                                 "3 1 100Gbps 1us 0\n";
    const std::string flows = "1\n0 1 3 100 1000 2.0\n";
    {
        HpccScenario scenario(Files(topology, flows, "CC_MODE 1\nLINK_DOWN 5 3 2\n"));
        const std::vector<FabricFault> faults = scenario.GetFaults();
        ASSERT_EQ(faults.size(), 1u);
        EXPECT_EQ(faults[0].target, FabricFault::Target::LINK);
        EXPECT_EQ(faults[0].id, 1u);
        EXPECT_EQ(faults[0].downNs, 2000005000);
        EXPECT_EQ(faults[0].upNs, -1);
    }
    EXPECT_TRUE(HpccScenario(Files(topology, flows, "LINK_DOWN 0 2 3\n")).GetFaults().empty());
    const HpccScenarioOptions bad = Files(topology, flows, "CC_MODE 1\nLINK_DOWN 5 0 1\n");
    try
    {
        HpccScenario(bad).GetFaults();
        ADD_FAILURE() << "accepted a link that does not exist";
    }
    catch (const std::runtime_error& e)
    {
        test::ExpectLocatedError(e.what(),
                                 bad.configFile,
                                 2,
                                 "LINK_DOWN",
                                 "no link between nodes 0 and 1");
    }
}

// ------------------------------------------------------------ PFC

TEST_F(HpccScenarioTest, IncastWithPfcWritesPauseAndResumeLines)
{
    // Eight senders (nodes 1-8) and a receiver (node 0) on switch 9; ECN off so
    // only PFC holds the buffer.
    std::string topology = "10 1 9\n9\n";
    std::string flows = "8\n";
    for (uint32_t h = 0; h < 9; ++h)
    {
        topology += std::to_string(h) + " 9 100Gbps 1us 0\n";
        if (h > 0)
        {
            flows += std::to_string(h) + " 0 3 100 1000000 2.0\n";
        }
    }
    const FileRun r = Run(Files(topology, flows, "BUFFER_SIZE 4\nENABLE_QCN 0\n"));
    ASSERT_EQ(r.fctLines.size(), 8u);
    ASSERT_FALSE(r.pfcLines.empty());

    // One line per PFC frame received (each names one class), wherever it arrived.
    uint64_t framesReceived = 0;
    for (uint32_t node = 0; node < 10; ++node)
    {
        Ptr<Node> n = r.fabric->GetNode(node);
        for (uint32_t d = 0; d < n->GetNDevices(); ++d)
        {
            framesReceived += DynamicCast<RoceNetDevice>(n->GetDevice(d))->GetPfcFramesReceived();
        }
    }
    EXPECT_EQ(r.pfcLines.size(), framesReceived);

    std::map<uint32_t, std::string> lastType; // by node
    int64_t lastTime = 0;
    uint64_t pauses = 0;
    for (const Fields& f : r.pfcLines)
    {
        ASSERT_EQ(f.size(), 5u);
        const int64_t time = std::stoll(f[0]);
        const uint32_t node = std::stoul(f[1]);
        EXPECT_GE(time, 2000000000);
        EXPECT_GE(time, lastTime) << "lines in time order";
        lastTime = time;
        // The switch pauses the senders' NICs: hosts (type 0) on their only port (ifindex 1).
        EXPECT_GE(node, 1u);
        EXPECT_LE(node, 8u);
        EXPECT_EQ(f[2], "0");
        EXPECT_EQ(f[3], "1");
        EXPECT_TRUE(f[4] == "0" || f[4] == "1") << f[4];
        pauses += f[4] == "1";
        lastType[node] = f[4];
    }
    EXPECT_GT(pauses, 0u);
    for (const auto& [node, type] : lastType)
    {
        EXPECT_EQ(type, "0") << "node " << node << " is resumed once the incast drains";
    }
}

// ------------------------------------------------------------ fat-tree round trip

TEST_F(HpccScenarioTest, FatTreeFileBuildsTheSameFabricAsMakeFatTree)
{
    const FabricTopology tree = MakeFatTree(test::TieredFatTreeParams(3000));
    const std::string path = (m_dir / "fat-tree.txt").string();
    WriteHpccTopology(path, tree);

    HpccScenarioOptions options;
    options.topologyFile = path;
    options.flowFile = Write("flow.txt", "0\n");
    const HpccScenario scenario(options);
    RoceFabricHelper helper;
    scenario.Configure(helper);
    Ptr<RoceFabric> fromFile = scenario.Install(helper);
    Ptr<RoceFabric> direct = helper.Install(tree);

    const FabricTopology& a = fromFile->GetTopology();
    ASSERT_EQ(a.GetNNodes(), tree.GetNNodes());
    ASSERT_EQ(a.GetNLinks(), tree.GetNLinks());
    EXPECT_EQ(a.GetHosts(), tree.GetHosts());
    const uint32_t baseA = fromFile->GetNode(0)->GetId();
    const uint32_t baseB = direct->GetNode(0)->GetId();
    for (uint32_t node = 0; node < tree.GetNNodes(); ++node)
    {
        Ptr<Node> na = fromFile->GetNode(node);
        Ptr<Node> nb = direct->GetNode(node);
        ASSERT_EQ(na->GetNDevices(), nb->GetNDevices()) << "node " << node;
        EXPECT_EQ(!fromFile->GetSwitch(node), !direct->GetSwitch(node)) << "node " << node;
        for (uint32_t port = 0; port < na->GetNDevices(); ++port)
        {
            auto da = DynamicCast<RoceNetDevice>(na->GetDevice(port));
            auto db = DynamicCast<RoceNetDevice>(nb->GetDevice(port));
            EXPECT_EQ(da->GetDataRate(), db->GetDataRate()) << node << ":" << port;
            EXPECT_EQ(da->GetMtu(), db->GetMtu()) << node << ":" << port;
            Ptr<RoceChannel> ca = da->GetRoceChannel();
            Ptr<RoceChannel> cb = db->GetRoceChannel();
            TimeValue delayA;
            TimeValue delayB;
            ca->GetAttribute("Delay", delayA);
            cb->GetAttribute("Delay", delayB);
            EXPECT_EQ(delayA.Get(), delayB.Get()) << node << ":" << port;
            // The same peer node behind the same port.
            auto peerA = ca->GetRoceDevice(ca->GetRoceDevice(0) == da ? 1 : 0)->GetNode();
            auto peerB = cb->GetRoceDevice(cb->GetRoceDevice(0) == db ? 1 : 0)->GetNode();
            EXPECT_EQ(peerA->GetId() - baseA, peerB->GetId() - baseB) << node << ":" << port;
            EXPECT_EQ(scenario.GetSimulatorIfIndex(node, port), port + 1);
            if (Ptr<RoceSwitch> sw = fromFile->GetSwitch(node))
            {
                Ptr<SwitchMmu> ma = sw->GetMmu();
                Ptr<SwitchMmu> mb = direct->GetSwitch(node)->GetMmu();
                EXPECT_EQ(ma->GetHeadroom(port), mb->GetHeadroom(port));
                EXPECT_EQ(ma->GetKmin(port), mb->GetKmin(port));
                EXPECT_EQ(ma->GetKmax(port), mb->GetKmax(port));
            }
        }
    }
    // ECMP makes the same choices: every host pair, a few source ports.
    for (uint32_t s = 0; s < a.GetNHosts(); ++s)
    {
        for (uint32_t d = 0; d < a.GetNHosts(); ++d)
        {
            if (s == d)
            {
                continue;
            }
            for (uint16_t port : {10000, 10001, 4791})
            {
                EXPECT_EQ(fromFile->GetPath(s, d, port), direct->GetPath(s, d, port))
                    << s << " -> " << d << " port " << port;
            }
        }
    }
}

// ------------------------------------------------------------ config mapping

TEST_F(HpccScenarioTest, ConfigKeysLandOnTheirAttributes)
{
    // Switch 0 with a 25G host (1), a 100G host (2) and a lossy 100G host (3).
    const std::string topology = "4 1 3\n"
                                 "0\n"
                                 "1 0 25Gbps 1us 0\n"
                                 "2 0 100Gbps 1us 0\n"
                                 "3 0 100Gbps 1us 0.001\n";
    const std::string config = "PACKET_PAYLOAD_SIZE 1400\n"
                               "L2_ACK_INTERVAL 4000\n"
                               "BUFFER_SIZE 24\n"
                               "ENABLE_QCN 0\n"
                               "USE_DYNAMIC_PFC_THRESHOLD 1\n"
                               "L2_BACK_TO_ZERO 0\n"
                               "CC_MODE 1\n"
                               "KMIN_MAP 2 25000000000 50 100000000000 200\n"
                               "KMAX_MAP 2 25000000000 200 100000000000 800\n"
                               "PMAX_MAP 2 25000000000 0.1 100000000000 0.3\n"
                               "RATE_AI 10Mb/s\n"
                               "RATE_HAI 100Mb/s\n"
                               "MIN_RATE 200Mb/s\n"
                               "ALPHA_RESUME_INTERVAL 55\n"
                               "RATE_DECREASE_INTERVAL 4\n"
                               "RP_TIMER 300\n"
                               "FAST_RECOVERY_TIMES 3\n"
                               "EWMA_GAIN 0.00390625\n"
                               "CLAMP_TARGET_RATE 1\n"
                               "ERROR_RATE_PER_LINK 0.02\n"
                               "SIMULATOR_STOP_TIME 2.5\n";
    HpccScenarioOptions options = Files(topology, "1\n1 2 3 100 1000 2.0\n", config);
    options.strict = true; // every key is modelled
    const HpccScenario scenario(options);
    EXPECT_TRUE(scenario.GetUnmodelledKeys().empty());
    EXPECT_EQ(scenario.DescribeUnmodelledKeys(), "");
    EXPECT_EQ(scenario.GetStopTime(), MilliSeconds(2500));
    EXPECT_EQ(scenario.GetPayloadBytes(), 1400u);

    RoceFabricHelper helper;
    scenario.Configure(helper);
    Ptr<RoceFabric> fabric = scenario.Install(helper);

    UintegerValue u;
    fabric->GetNic(0)->GetAttribute("PayloadPerPacket", u);
    EXPECT_EQ(u.Get(), 1400u);
    fabric->GetNic(0)->GetAttribute("AckInterval", u);
    EXPECT_EQ(u.Get(), 3u) << "4000 bytes = every third 1400-byte packet";
    TypeIdValue cc;
    fabric->GetNic(0)->GetAttribute("CongestionControl", cc);
    EXPECT_EQ(cc.Get().GetName(), "ns3::Dcqcn");

    Ptr<RoceSwitch> sw = fabric->GetSwitch(0);
    BooleanValue b;
    sw->GetAttribute("EcnEnabled", b);
    EXPECT_FALSE(b.Get());
    sw->GetAttribute("PfcEnabled", b);
    EXPECT_TRUE(b.Get());
    Ptr<SwitchMmu> mmu = sw->GetMmu();
    mmu->GetAttribute("BufferSize", u);
    EXPECT_EQ(u.Get(), 24u * 1024 * 1024);
    // Port 0 is the 25G link, ports 1 and 2 the 100G links; KB = 1000 bytes.
    EXPECT_EQ(mmu->GetKmin(0), 50000u);
    EXPECT_EQ(mmu->GetKmax(0), 200000u);
    EXPECT_EQ(mmu->GetPmax(0), 0.1);
    for (uint32_t port : {1u, 2u})
    {
        EXPECT_EQ(mmu->GetKmin(port), 200000u);
        EXPECT_EQ(mmu->GetKmax(port), 800000u);
        EXPECT_EQ(mmu->GetPmax(port), 0.3);
    }

    // Links whose own error rate is 0 get ERROR_RATE_PER_LINK, at both ends.
    const std::vector<double> rates = {0.02, 0.02, 0.001};
    for (uint32_t l = 0; l < 3; ++l)
    {
        for (uint32_t end = 0; end < 2; ++end)
        {
            PointerValue pv;
            fabric->GetChannel(l)->GetRoceDevice(end)->GetAttribute("ReceiveErrorModel", pv);
            Ptr<RateErrorModel> em = pv.Get<RateErrorModel>();
            ASSERT_NE(em, nullptr) << "link " << l << " end " << end;
            EXPECT_EQ(em->GetRate(), rates[l]);
            EXPECT_EQ(em->GetUnit(), RateErrorModel::ERROR_UNIT_PACKET);
        }
    }

    // The DCQCN keys, in their units, on the congestion control each queue pair gets.
    const std::string spec = scenario.GetCongestionControlSpec();
    ASSERT_EQ(spec.rfind("ns3::Dcqcn[", 0), 0u) << spec;
    ObjectFactory factory;
    factory.SetTypeId("ns3::Dcqcn");
    std::istringstream items(spec.substr(11, spec.size() - 12));
    std::string item;
    while (std::getline(items, item, '|'))
    {
        const size_t eq = item.find('=');
        factory.Set(item.substr(0, eq), StringValue(item.substr(eq + 1)));
    }
    Ptr<Object> dcqcn = factory.Create<Object>();
    DataRateValue rate;
    dcqcn->GetAttribute("AdditiveIncreaseRate", rate);
    EXPECT_EQ(rate.Get(), DataRate("10Mbps"));
    dcqcn->GetAttribute("HyperIncreaseRate", rate);
    EXPECT_EQ(rate.Get(), DataRate("100Mbps"));
    dcqcn->GetAttribute("MinRate", rate);
    EXPECT_EQ(rate.Get(), DataRate("200Mbps"));
    TimeValue t;
    dcqcn->GetAttribute("AlphaUpdateInterval", t);
    EXPECT_EQ(t.Get(), MicroSeconds(55));
    dcqcn->GetAttribute("RateDecreaseInterval", t);
    EXPECT_EQ(t.Get(), MicroSeconds(4));
    dcqcn->GetAttribute("RateIncreaseInterval", t);
    EXPECT_EQ(t.Get(), MicroSeconds(300));
    dcqcn->GetAttribute("FastRecoveryTimes", u);
    EXPECT_EQ(u.Get(), 3u);
    DoubleValue g;
    dcqcn->GetAttribute("G", g);
    EXPECT_EQ(g.Get(), 1.0 / 256);
    dcqcn->GetAttribute("ClampTargetRate", b);
    EXPECT_TRUE(b.Get());
}

TEST_F(HpccScenarioTest, UnmodelledKeysAreReportedByName)
{
    const std::string config = "CC_MODE 3\n"
                               "HAS_WIN 1\n"
                               "\n"
                               "MY_OWN_KEY 7\n"
                               "TRACE_OUTPUT_FILE mix.tr\n"
                               "L2_BACK_TO_ZERO 1\n";
    HpccScenarioOptions options = Files("2 1 1\n1\n0 1 100Gbps 1us 0\n", "0\n", config);
    const HpccScenario scenario(options);
    std::vector<std::string> names;
    for (const HpccUnmodelledKey& k : scenario.GetUnmodelledKeys())
    {
        names.push_back(k.key);
    }
    EXPECT_EQ(names,
              (std::vector<std::string>{"CC_MODE",
                                        "HAS_WIN",
                                        "MY_OWN_KEY",
                                        "TRACE_OUTPUT_FILE",
                                        "L2_BACK_TO_ZERO"}));
    const std::string text = scenario.DescribeUnmodelledKeys();
    for (const char* part : {"5 config keys not modelled",
                             "CC_MODE (line 1)",
                             "HAS_WIN (line 2)",
                             "MY_OWN_KEY (line 4): unknown key",
                             "TRACE_OUTPUT_FILE (line 5)",
                             "L2_BACK_TO_ZERO (line 6)"})
    {
        EXPECT_NE(text.find(part), std::string::npos) << text << "\nmissing: " << part;
    }
    // DCQCN still runs for a congestion control mode that is not modelled, with the HPCC
    // simulator's values (the hpcc profile) as the file gives no DCQCN key.
    std::string hpcc;
    for (const auto& [name, value] : Dcqcn::GetProfile("hpcc"))
    {
        hpcc += (hpcc.empty() ? "" : "|") + name + "=" + value;
    }
    EXPECT_EQ(scenario.GetCongestionControlSpec(), "ns3::Dcqcn[" + hpcc + "]");

    options.strict = true;
    ExpectError(options, options.configFile, 1, "CC_MODE", "MY_OWN_KEY (line 4)");
}

// ------------------------------------------------------------ bad inputs

TEST_F(HpccScenarioTest, InputsThatDisagreeNameFileLineAndField)
{
    const std::string topo = (m_dir / "topo.txt").string();
    const std::string flow = (m_dir / "flow.txt").string();
    const std::string config = (m_dir / "config.txt").string();
    const std::string star = "3 1 2\n1\n0 1 100Gbps 1us 0\n2 1 400Gbps 1us 0\n";
    const std::string oneFlow = "1\n0 2 3 100 1000 2.0\n";

    // Flows that name switches or the control class.
    ExpectError(Files(star, "1\n1 2 3 100 1000 2.0\n"), flow, 2, "src", "node 1 is a switch");
    ExpectError(Files(star, "1\n0 2 7 100 1000 2.0\n"), flow, 2, "pg", "ACKs");
    // A host with two links (the NIC has one port).
    ExpectError(
        Files("3 1 3\n1\n0 1 100Gbps 1us 0\n2 1 100Gbps 1us 0\n0 1 100Gbps 1us 0\n", oneFlow),
        topo,
        5,
        "link",
        "host 0 already has a link (line 3)");
    // ECN maps must cover every switch port's rate, as the simulators require.
    ExpectError(Files(star, oneFlow, "CC_MODE 1\nKMIN_MAP 1 100000000000 100\n"),
                config,
                2,
                "KMIN_MAP",
                "no entry for 400000000000 bit/s");
    ExpectError(Files(star,
                      oneFlow,
                      "KMIN_MAP 2 100000000000 900 400000000000 900\n"
                      "KMAX_MAP 2 100000000000 800 400000000000 3200\n"),
                config,
                2,
                "KMAX_MAP",
                "Kmin 900000 bytes is above Kmax 800000");
    // Values the module cannot take.
    ExpectError(Files(star, oneFlow, "\nPACKET_PAYLOAD_SIZE 9001\n"),
                config,
                2,
                "PACKET_PAYLOAD_SIZE",
                "above the largest payload");
    // A buffer that cannot hold one reserve and one headroom per port, as the
    // simulators carve it: a 400G link of 10 us alone needs 3 x 500000 B.
    ExpectError(
        Files("3 1 2\n1\n0 1 100Gbps 1us 0\n2 1 400Gbps 10us 0\n", oneFlow, "BUFFER_SIZE 1\n"),
        config,
        1,
        "BUFFER_SIZE",
        "BufferSize");
    // Malformed lines reach the caller with their file and line.
    ExpectError(Files(star, "1\n0 2 3 100 1k 2.0\n"), flow, 2, "size", "non-negative integer");
    ExpectError(Files(star, "2\n0 2 3 100 10 2.0\n2 0 3 100 10 1.0\n"),
                flow,
                3,
                "start_time",
                "sorted by start time");
    ExpectError(Files(star, "1\n0 2 3 100 1000\n"), flow, 2, "flow", "expected 6 fields");
    // Bad topology lines, each with the line, field and part of the message it must name.
    const std::vector<std::tuple<std::string, uint32_t, std::string, std::string>> badTopologies = {
        {"3 1 2\n7\n0 1 100Gbps 1us 0\n2 1 400Gbps 1us 0\n",
         2,
         "switch id",
         "node id 7 is out of range"},
        {"3 1 2\n1\n0 1 100Gbps 1us 0\n2 5 400Gbps 1us 0\n", 4, "b", "node id 5 is out of range"},
        {"3 1 2\n1\n0 1 100Gbps 1us 0\n2 1 400Gbps 1us\n", 4, "link", "expected 5 fields"},
        {"3 1 2\n1\n0 1 100Gbps 1us 0\n2 1 fast 1us 0\n", 4, "rate", "fast"},
    };
    for (const auto& [topology, line, field, part] : badTopologies)
    {
        ExpectError(Files(topology, oneFlow), topo, line, field, part);
    }

    // Files the config does not name.
    HpccScenarioOptions none;
    none.configFile = Write("config.txt", "FLOW_FILE flow.txt\n");
    try
    {
        HpccScenario scenario(none);
        ADD_FAILURE() << "expected an error";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("no topology file"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(none.configFile), std::string::npos) << e.what();
    }
}

} // namespace
