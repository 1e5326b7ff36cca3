/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Runs of SimAI's input files: its NVSwitches carrying the flows between the
// GPUs of one server, and the monitor files of SimAI and HPCC against the
// counts they sample.

#include "hpcc-file-run-test.h"

#include <algorithm>
#include <map>
#include <sstream>

using namespace ns3;

namespace
{

using test::Fields;
using test::FileRun;
using test::HpccScenarioTest;
using test::ReadLines;

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

} // namespace
