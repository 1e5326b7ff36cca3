/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Runs built from HPCC-format files: the config keys landing on the
// module's attributes, fct.txt against the analytic completion time and
// the documented standalone FCT, a lossy link recovered by go-back-N, PFC
// lines in an incast, a fat-tree file building the same fabric as
// MakeFatTree, SimAI's NVSwitches carrying the flows inside a server,
// unmodelled keys named, and
// "path:line: field" errors for inputs that are wrong together.

#include "fabric-test-util.h"
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

/// The white-space separated fields of each non-blank line of \p path.
std::vector<Fields>
ReadLines(const std::string& path)
{
    std::ifstream in(path);
    EXPECT_TRUE(in) << "cannot read " << path;
    return test::FieldsOfLines(in);
}

/// Everything a run from files needs alive until the simulator is destroyed.
struct FileRun
{
    std::unique_ptr<HpccScenario> scenario;
    Ptr<RoceFabric> fabric;
    std::unique_ptr<RoceFlowMonitor> monitor;
    std::unique_ptr<HpccFctWriter> fct;
    std::unique_ptr<HpccPfcWriter> pfc;
    std::unique_ptr<HpccMonitorWriter> monitors;
    std::vector<Fields> fctLines;
    std::vector<Fields> pfcLines;
};

class HpccScenarioTest : public test::FabricTempDirTest
{
  protected:
    /// Options naming topo.txt, flow.txt, fct.txt and pfc.txt in the test's directory.
    HpccScenarioOptions Files(const std::string& topology,
                              const std::string& flows,
                              const std::string& config = "") const
    {
        HpccScenarioOptions o;
        o.topologyFile = Write("topo.txt", topology);
        o.flowFile = Write("flow.txt", flows);
        o.fctOutputFile = (m_dir / "fct.txt").string();
        o.pfcOutputFile = (m_dir / "pfc.txt").string();
        if (!config.empty())
        {
            o.configFile = Write("config.txt", config);
        }
        return o;
    }

    /// Build, run to the stop time and read the outputs back.
    FileRun Run(const HpccScenarioOptions& options) const
    {
        FileRun r;
        r.scenario = std::make_unique<HpccScenario>(options);
        RoceFabricHelper helper;
        r.scenario->Configure(helper);
        r.fabric = r.scenario->Install(helper);
        r.monitor = std::make_unique<RoceFlowMonitor>(r.fabric);
        const HpccPostedFlows posted = r.scenario->PostFlows(r.fabric);
        r.fct = std::make_unique<HpccFctWriter>(r.scenario->GetFctOutputFile(), r.fabric, posted);
        r.pfc =
            std::make_unique<HpccPfcWriter>(r.scenario->GetPfcOutputFile(), r.fabric, *r.scenario);
        HpccFctWriter* fct = r.fct.get();
        const std::size_t flows = r.scenario->GetFlows().size();
        r.monitors =
            std::make_unique<HpccMonitorWriter>(*r.scenario, r.fabric, posted, [fct, flows]() {
                return fct->GetLines() < flows;
            });
        Simulator::Stop(r.scenario->GetStopTime());
        Simulator::Run();
        r.fct->Close();
        r.pfc->Close();
        r.monitors->Close();
        r.fctLines = ReadLines(r.scenario->GetFctOutputFile());
        r.pfcLines = ReadLines(r.scenario->GetPfcOutputFile());
        return r;
    }

    /// Expect building a scenario from \p options to fail with "path:line: field: ...part...".
    static void ExpectError(const HpccScenarioOptions& options,
                            const std::string& path,
                            uint32_t line,
                            const std::string& field,
                            const std::string& part)
    {
        try
        {
            HpccScenario scenario(options);
            RoceFabricHelper helper;
            scenario.Configure(helper);
            scenario.Install(helper);
            ADD_FAILURE() << "expected an error at " << path << ":" << line;
        }
        catch (const std::runtime_error& e)
        {
            test::ExpectLocatedError(e.what(), path, line, field, part);
        }
        Simulator::Destroy();
    }
};

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

TEST_F(HpccScenarioTest, SimAiAndHpccMonitorsWriteTheirFiles)
{
    // Four senders (nodes 1-4) and a receiver (node 0) on switch 5; DCQCN
    // reacts to the marks. Every monitor samples each microsecond from 2 s,
    // when the flows start.
    std::string topology = "6 1 5\n5\n";
    std::string flows = "4\n";
    for (uint32_t h = 0; h < 5; ++h)
    {
        topology += std::to_string(h) + " 5 100Gbps 1us 0\n";
        if (h > 0)
        {
            flows += std::to_string(h) + " 0 3 100 2000000 2.0\n";
        }
    }
    const std::string dir = m_dir.string() + "/";
    const std::string config = "QLEN_MON_FILE " + dir + "qlen.csv\nBW_MON_FILE " + dir +
                               "bw.csv\nRATE_MON_FILE " + dir + "rate.csv\nCNP_MON_FILE " + dir +
                               "cnp.csv\nMON_START 2000000\nQLEN_MON_INTERVAL 1\n"
                               "BW_MON_INTERVAL 1\nQP_MON_INTERVAL 1\nENABLE_QCN 1\n";
    const FileRun r = Run(Files(topology, flows, config));
    ASSERT_EQ(r.fctLines.size(), 4u);
    EXPECT_TRUE(r.scenario->GetUnmodelledKeys().empty()) << r.scenario->DescribeUnmodelledKeys();
    auto csv = [](const std::string& path, const std::string& header) {
        std::ifstream in(path);
        std::string first;
        std::getline(in, first);
        EXPECT_EQ(first, header) << path;
        std::vector<std::vector<std::string>> rows;
        for (std::string line; std::getline(in, line);)
        {
            std::vector<std::string> fields;
            std::stringstream ss(line);
            for (std::string f; std::getline(ss, f, ',');)
            {
                fields.push_back(f.substr(f.find_first_not_of(' ')));
            }
            rows.push_back(fields);
        }
        return rows;
    };

    // Queue: 8 rows (classes) per port and sample whose total changed, the
    // total their sum; the receiver's port (switch port 0, interface 1) queues.
    const auto qlen = csv(dir + "qlen.csv", "time, sw_id, port_id, q_id, q_len, port_len");
    ASSERT_FALSE(qlen.empty());
    ASSERT_EQ(qlen.size() % 8, 0u);
    uint64_t peak = 0;
    std::map<std::string, std::string> lastTotal; // by "sw port"
    for (std::size_t i = 0; i < qlen.size(); i += 8)
    {
        uint64_t sum = 0;
        for (std::size_t c = 0; c < 8; ++c)
        {
            ASSERT_EQ(qlen[i + c].size(), 6u);
            EXPECT_EQ(qlen[i + c][3], std::to_string(c));
            EXPECT_EQ(qlen[i + c][5], qlen[i][5]);
            sum += std::stoull(qlen[i + c][4]);
        }
        EXPECT_EQ(std::to_string(sum), qlen[i][5]);
        EXPECT_EQ(qlen[i][1], "5");
        const std::string port = qlen[i][1] + " " + qlen[i][2];
        EXPECT_NE(lastTotal[port], qlen[i][5]) << "a port is written when its queue changed";
        lastTotal[port] = qlen[i][5];
        if (qlen[i][2] == "1")
        {
            peak = std::max<uint64_t>(peak, sum);
        }
    }
    EXPECT_GT(peak, 100000u) << "the incast queues at the receiver's port";

    // Bandwidth: over its rows, each sender's NIC sent its flow's frames:
    // Gb/s x 1 us x 1e9 / 8 bytes per row, at least its payload, at most 10% more.
    const auto bw = csv(dir + "bw.csv", "time, node_id, port_id, bandwidth");
    std::map<std::string, double> sent; // by node
    for (const auto& row : bw)
    {
        ASSERT_EQ(row.size(), 4u);
        sent[row[1]] += std::stod(row[3]) * 1e9 * 1e-6 / 8;
        // A frame counts whole in the interval its sending starts: one of
        // 1000 payload bytes is 8.6 Gb/s over 1 us.
        EXPECT_LE(std::stod(row[3]), 100.0 + 8.7) << "at most the line rate";
    }
    for (const char* node : {"1", "2", "3", "4"})
    {
        EXPECT_GE(sent[node], 2000000.0) << node;
        EXPECT_LE(sent[node], 2200000.0) << node;
    }

    // Rates: rows of the four senders' queue pairs to node 0, below the line
    // rate once DCQCN cut them; CNPs: each pair's count only grows.
    const auto rate = csv(dir + "rate.csv", "time, src, dst, sport, dport, size, curr_rate");
    ASSERT_FALSE(rate.empty());
    double lowest = 1e12;
    for (const auto& row : rate)
    {
        ASSERT_EQ(row.size(), 7u);
        EXPECT_EQ(row[2], "0");
        EXPECT_EQ(row[4], "100");
        EXPECT_EQ(row[5], "2000000");
        lowest = std::min(lowest, std::stod(row[6]));
    }
    EXPECT_LT(lowest, 50e9);
    const auto cnp = csv(dir + "cnp.csv", "time, src, dst, sport, dport, size, cnp_number");
    ASSERT_FALSE(cnp.empty());
    std::map<std::string, uint64_t> count; // by src and sport
    for (const auto& row : cnp)
    {
        const std::string qp = row[1] + ":" + row[3];
        EXPECT_GT(std::stoull(row[6]), count[qp]);
        count[qp] = std::stoull(row[6]);
    }

    // HPCC's dialect (QLEN_MON_START/_END): its histogram of each switch
    // port's queue, every 100 ns from 2 s to 2.1 s, dumped at 2.0 and 2.1 s.
    Simulator::Destroy();
    const std::string histogram = dir + "hist.txt";
    Run(Files(topology,
              flows,
              "QLEN_MON_FILE " + histogram +
                  "\nQLEN_MON_START 2000000000\nQLEN_MON_END 2100000000\nENABLE_QCN 1\n"));
    const std::vector<Fields> dump = ReadLines(histogram);
    std::vector<std::size_t> times;
    for (std::size_t i = 0; i < dump.size(); ++i)
    {
        if (dump[i][0] == "time:")
        {
            times.push_back(i);
        }
    }
    ASSERT_EQ(times.size(), 2u);
    EXPECT_EQ(dump[times[1]][1], "2100000000");
    uint64_t busyAtReceiver = 0;
    for (std::size_t i = times[1] + 1; i < dump.size(); ++i)
    {
        ASSERT_GE(dump[i].size(), 3u);
        EXPECT_EQ(dump[i][0], "5");
        uint64_t samples = 0;
        for (std::size_t b = 2; b < dump[i].size(); ++b)
        {
            samples += std::stoull(dump[i][b]);
            busyAtReceiver += dump[i][1] == "1" && b > 2 ? std::stoull(dump[i][b]) : 0;
        }
        EXPECT_EQ(samples, 1000001u) << "one per 100 ns from 2 s to 2.1 s, both ends";
    }
    EXPECT_EQ(dump.size() - times[1] - 1, 5u) << "the switch's five ports";
    EXPECT_GT(busyAtReceiver, 100u) << "the incast's queue, 1000 bytes or more";

    // A period of 0 is refused at its line.
    ExpectError(Files(topology, flows, "QLEN_MON_FILE q.csv\nQLEN_MON_INTERVAL 0\n"),
                (m_dir / "config.txt").string(),
                2,
                "QLEN_MON_INTERVAL",
                "must be above 0");
}

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

// ------------------------------------------------------------ SimAI

TEST_F(HpccScenarioTest, SimAiNvSwitchesCarryTheFlowsBetweenGpusOfOneServer)
{
    // Two servers of two GPUs (0-3), one NVSwitch each (4, 5), one ToR (6);
    // each GPU's NVLink is its first link in the file, its NIC the second.
    const std::string topology = "7 2 2 1 8 H100\n"
                                 "4 5 6\n"
                                 "0 4 2400Gbps 25ns 0\n"
                                 "0 6 100Gbps 1us 0\n"
                                 "1 4 2400Gbps 25ns 0\n"
                                 "1 6 100Gbps 1us 0\n"
                                 "2 5 2400Gbps 25ns 0\n"
                                 "2 6 100Gbps 1us 0\n"
                                 "3 5 2400Gbps 25ns 0\n"
                                 "3 6 100Gbps 1us 0\n";
    const std::string flows = "2\n0 1 3 100 100000 2.0\n0 3 3 100 100000 2.0\n";
    const FileRun r = Run(Files(topology, flows));
    const HpccScenario& s = *r.scenario;
    EXPECT_EQ(s.GetNNvSwitches(), 2u);
    EXPECT_EQ(s.GetNNvlinkLinks(), 4u);
    const FabricTopology& fabric = s.GetFabricTopology();
    ASSERT_EQ(fabric.GetNNodes(), 5u);
    EXPECT_EQ(fabric.GetNHosts(), 4u);
    EXPECT_EQ(fabric.GetNSwitches(), 1u);
    // The GPUs an NVSwitch joins are one server.
    EXPECT_TRUE(fabric.SameServer(0, 1));
    EXPECT_TRUE(fabric.SameServer(2, 3));
    EXPECT_FALSE(fabric.SameServer(1, 2));
    EXPECT_EQ(s.GetNvlinkPath(0, 1), (std::vector<uint32_t>{0, 2}));
    EXPECT_TRUE(s.GetNvlinkPath(0, 3).empty());
    // Fabric node 4 is the ToR, file node 6; its links are the NIC links.
    EXPECT_EQ(s.GetFileNode(4), 6u);
    for (uint32_t l = 0; l < 4; ++l)
    {
        EXPECT_EQ(s.GetFileLink(l), 2 * l + 1);
    }
    // A GPU's NIC is the simulators' interface 2 (after the loopback and NVLink);
    // the ToR's ports are its interfaces 1-4.
    EXPECT_EQ(s.GetSimulatorIfIndex(0, 0), 2u);
    for (uint32_t port = 0; port < 4; ++port)
    {
        EXPECT_EQ(s.GetSimulatorIfIndex(4, port), port + 1);
    }
    // Both flows complete: 0 -> 1 over NVLink, 0 -> 3 over the NICs.
    ASSERT_EQ(r.fctLines.size(), 2u);
    std::map<std::string, Fields> byDst;
    for (const Fields& f : r.fctLines)
    {
        EXPECT_EQ(f[0], "0b000001");
        byDst[f[1]] = f;
    }
    ASSERT_EQ(byDst.count("0b000101"), 1u);
    ASSERT_EQ(byDst.count("0b000301"), 1u);
    const double nicBoundNs = 100000 * 8 / 100.0; // the bytes at the NIC's 100 Gb/s
    const double nvlinkNs = 100000 * 8 / 2400.0;  // ... at NVLink's 2400 Gb/s
    const Fields& inServer = byDst["0b000101"];
    const double fct = std::stod(inServer[6]);
    // The bytes at NVLink's rate, plus at most 10% of headers and the two
    // links' delays and a packet's store-and-forward, there and back.
    EXPECT_GE(fct, nvlinkNs);
    EXPECT_LE(fct, 1.1 * nvlinkNs + 2 * (25 + 25) + 2 * 2 * 1100 * 8 / 2400.0);
    EXPECT_EQ(inServer[6], inServer[7]) << "alone on its links: fct is the standalone";
    EXPECT_GE(std::stod(byDst["0b000301"][6]), nicBoundNs);
    // Only the flow between servers reached the fabric: GPU 1's NIC link is idle.
    const Ptr<RoceChannel> gpu1Nic = r.fabric->GetChannel(1);
    EXPECT_EQ(gpu1Nic->GetTxBytes(0) + gpu1Nic->GetTxBytes(1), 0u);
    EXPECT_GT(r.fabric->GetChannel(3)->GetTxBytes(1), 100000u) << "GPU 3's NIC link";

    // A flow may not start or end at an NVSwitch.
    ExpectError(Files(topology, "1\n0 4 3 100 1000 2.0\n"),
                (m_dir / "flow.txt").string(),
                2,
                "dst",
                "node 4 is an NVSwitch");
}

TEST_F(HpccScenarioTest, GpusOfOneServerThatShareNoNvSwitchAreAnError)
{
    // GPU 1 joins NVSwitches 3 and 4; GPU 0 is on 3 only, GPU 2 on 4 only.
    const std::string topology = "6 3 2 1 7 H100\n"
                                 "3 4 5\n"
                                 "0 3 2400Gbps 25ns 0\n"
                                 "1 3 2400Gbps 25ns 0\n"
                                 "1 4 2400Gbps 25ns 0\n"
                                 "2 4 2400Gbps 25ns 0\n"
                                 "0 5 100Gbps 1us 0\n"
                                 "1 5 100Gbps 1us 0\n"
                                 "2 5 100Gbps 1us 0\n";
    ExpectError(Files(topology, "1\n0 2 3 100 1000 2.0\n"),
                (m_dir / "flow.txt").string(),
                2,
                "dst",
                "share no NVSwitch");
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
