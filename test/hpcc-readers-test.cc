/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Readers of the HPCC-lineage simulators' input files: a hand-written
// topology, SimAI's variant with NVSwitches, a fat-tree written out and
// read back, flows, config keys with their unit conversions, and
// "path:line: field: message" for each kind of bad input, on the line the
// test put it.

#include "hpcc-test-util.h"
#include "temp-dir-test.h"

#include "ns3/fat-tree-topology.h"
#include "ns3/hpcc-config-reader.h"
#include "ns3/hpcc-flow-reader.h"
#include "ns3/hpcc-topology-reader.h"

#include <functional>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class HpccFiles : public test::TempDirTest
{
  protected:
    /**
     * Expects \p read on file \p name holding \p text to fail with
     * "path:line: field: ..." containing \p part.
     */
    void ExpectError(const std::function<void(const std::string&)>& read,
                     const std::string& name,
                     const std::string& text,
                     uint32_t line,
                     const std::string& field,
                     const std::string& part) const
    {
        const std::string path = Write(name, text);
        try
        {
            read(path);
            ADD_FAILURE() << "expected an error for:\n" << text;
        }
        catch (const std::runtime_error& e)
        {
            test::ExpectLocatedError(e.what(), path, line, field, part);
        }
    }

    void ExpectTopologyError(const std::string& text,
                             uint32_t line,
                             const std::string& field,
                             const std::string& part) const
    {
        ExpectError([](const std::string& p) { ReadHpccTopology(p); },
                    "topo.txt",
                    text,
                    line,
                    field,
                    part);
    }

    void ExpectFlowError(const std::string& text,
                         uint32_t line,
                         const std::string& field,
                         const std::string& part,
                         uint32_t nNodes = 4) const
    {
        ExpectError([nNodes](const std::string& p) { ReadHpccFlows(p, nNodes); },
                    "flow.txt",
                    text,
                    line,
                    field,
                    part);
    }

    void ExpectConfigError(const std::string& text,
                           uint32_t line,
                           const std::string& field,
                           const std::string& part,
                           bool strict = false) const
    {
        ExpectError([strict](const std::string& p) { MapHpccConfig(ReadHpccConfig(p), strict); },
                    "config.txt",
                    text,
                    line,
                    field,
                    part);
    }
};

// ---------------------------------------------------------------- topology

TEST_F(HpccFiles, HandWrittenTopology)
{
    // Switches 1, 3 and 6 (not at the end: ids must be kept); hosts 0, 2, 4, 5.
    // Links 2 and 3 are a parallel pair between switches 1 and 3.
    const std::string text = "7 3 8 \r\n"
                             "1 3 6\n"
                             "\n"
                             "0 1 100Gbps 0.001ms 0\n"
                             "2 1 25Gbps 1us 0.001   \n"
                             "1 3 400Gbps 500ns 0\r\n"
                             "1 3 400Gbps 500ns 0\n"
                             "   \n"
                             "3 6 200Gbps 0.002ms 0.5\n"
                             "4 6 100Mbps 1000ns 0\n"
                             "5 6 50Gbps 1us 1\n"
                             "6 1 12.5GBps 2us 0\n"
                             "\n";
    const HpccTopology result = ReadHpccTopology(Write("topo.txt", text));
    const FabricTopology& topo = result.topology;

    ASSERT_EQ(topo.GetNNodes(), 7u);
    EXPECT_EQ(topo.GetNSwitches(), 3u);
    EXPECT_EQ(topo.GetNHosts(), 4u);
    const std::vector<bool> isHost = {true, false, true, false, true, true, false};
    for (uint32_t i = 0; i < 7; ++i)
    {
        EXPECT_EQ(topo.IsHost(i), isHost[i]) << "node " << i;
        const FabricNode& node = topo.GetNode(i);
        EXPECT_EQ(node.tier, isHost[i] ? 0u : 1u) << "node " << i;
        EXPECT_EQ(node.pod, -1);
        EXPECT_EQ(node.rack, -1);
    }
    EXPECT_EQ(topo.GetHosts(), (std::vector<uint32_t>{0, 2, 4, 5}));
    EXPECT_FALSE(result.simai);
    ASSERT_EQ(result.nodeType.size(), 7u);
    for (uint32_t i = 0; i < 7; ++i)
    {
        EXPECT_EQ(result.nodeType[i], isHost[i] ? HpccNodeType::Host : HpccNodeType::Switch);
    }

    struct Expected
    {
        uint32_t a;
        uint32_t b;
        uint64_t rateBps;
        int64_t delayNs;
        double errorRate;
    };

    const std::vector<Expected> expected = {
        {0, 1, 100000000000ULL, 1000, 0.0},
        {2, 1, 25000000000ULL, 1000, 0.001},
        {1, 3, 400000000000ULL, 500, 0.0},
        {1, 3, 400000000000ULL, 500, 0.0},
        {3, 6, 200000000000ULL, 2000, 0.5},
        {4, 6, 100000000ULL, 1000, 0.0},
        {5, 6, 50000000000ULL, 1000, 1.0},
        {6, 1, 100000000000ULL, 2000, 0.0}, // 12.5 GB/s = 100 Gb/s
    };
    ASSERT_EQ(topo.GetNLinks(), expected.size());
    ASSERT_EQ(result.linkErrorRate.size(), expected.size());
    for (uint32_t l = 0; l < expected.size(); ++l)
    {
        const FabricLink& link = topo.GetLink(l);
        EXPECT_EQ(link.a, expected[l].a) << "link " << l;
        EXPECT_EQ(link.b, expected[l].b) << "link " << l;
        EXPECT_EQ(link.rateBps, expected[l].rateBps) << "link " << l;
        EXPECT_EQ(link.delayNs, expected[l].delayNs) << "link " << l;
        EXPECT_EQ(result.linkErrorRate[l], expected[l].errorRate) << "link " << l;
    }
    // Blank lines count: links are on lines 4-6 and 9-12.
    EXPECT_EQ(result.linkLine, (std::vector<uint32_t>{4, 5, 6, 7, 9, 10, 11, 12}));
    // The parallel pair: two links, two ports on each switch.
    EXPECT_NE(topo.PortOf(1, 2), topo.PortOf(1, 3));
    EXPECT_NE(topo.PortOf(3, 2), topo.PortOf(3, 3));
    EXPECT_EQ(topo.AdjacentLinks(1).size(), 5u);
    EXPECT_NO_THROW(topo.Validate());
}

TEST_F(HpccFiles, FatTreeRoundTrip)
{
    const FabricTopology tree = MakeFatTree(test::TieredFatTreeParams(1000000));
    std::vector<double> errors(tree.GetNLinks(), 0.0);
    errors[0] = 1e-5;
    errors[tree.GetNLinks() - 1] = 0.125;

    const std::string path = (m_dir / "fat-tree.txt").string();
    WriteHpccTopology(path, tree, errors);
    const HpccTopology back = ReadHpccTopology(path);
    const FabricTopology& topo = back.topology;

    // k = 4: k^3/4 = 16 hosts, 5k^2/4 = 20 switches, 3 x 16 links.
    EXPECT_EQ(topo.GetNHosts(), 16u);
    EXPECT_EQ(topo.GetNSwitches(), 20u);
    EXPECT_EQ(topo.GetNLinks(), 48u);
    ASSERT_EQ(topo.GetNNodes(), tree.GetNNodes());
    for (uint32_t i = 0; i < tree.GetNNodes(); ++i)
    {
        EXPECT_EQ(topo.IsHost(i), tree.IsHost(i)) << "node " << i;
    }
    EXPECT_EQ(topo.GetHosts(), tree.GetHosts());
    ASSERT_EQ(topo.GetNLinks(), tree.GetNLinks());
    for (uint32_t l = 0; l < tree.GetNLinks(); ++l)
    {
        const FabricLink& want = tree.GetLink(l);
        const FabricLink& got = topo.GetLink(l);
        EXPECT_EQ(got.a, want.a) << "link " << l;
        EXPECT_EQ(got.b, want.b) << "link " << l;
        EXPECT_EQ(got.rateBps, want.rateBps) << "link " << l;
        EXPECT_EQ(got.delayNs, want.delayNs) << "link " << l;
        EXPECT_EQ(back.linkErrorRate[l], errors[l]) << "link " << l;
        // Same link order means the same port numbering.
        EXPECT_EQ(topo.PortOf(got.a, l), tree.PortOf(want.a, l)) << "link " << l;
        EXPECT_EQ(topo.PortOf(got.b, l), tree.PortOf(want.b, l)) << "link " << l;
    }
    EXPECT_NO_THROW(topo.Validate());
}

TEST_F(HpccFiles, TopologyWithoutSwitches)
{
    FabricTopology pair;
    pair.AddHost("a");
    pair.AddHost("b");
    pair.AddLink(0, 1, 1000, 7);
    const std::string path = (m_dir / "pair.txt").string();
    WriteHpccTopology(path, pair);
    const HpccTopology back = ReadHpccTopology(path);
    EXPECT_EQ(back.topology.GetNSwitches(), 0u);
    ASSERT_EQ(back.topology.GetNLinks(), 1u);
    EXPECT_EQ(back.topology.GetLink(0).rateBps, 1000u);
    EXPECT_EQ(back.topology.GetLink(0).delayNs, 7);
}

TEST_F(HpccFiles, SimAiTopology)
{
    // Two servers of two GPUs (0-3), an NVSwitch per server (4, 5), one ToR (6):
    // SimAI's header, NVSwitch ids first on the switch line, GPUs linked to both.
    const std::string links = "0 4 2400Gbps 0.000025ms 0\n"
                              "0 6 100Gbps 0.0005ms 0\n"
                              "1 4 2400Gbps 0.000025ms 0\n"
                              "1 6 100Gbps 0.0005ms 0\n"
                              "2 5 2400Gbps 0.000025ms 0\n"
                              "2 6 100Gbps 0.0005ms 0\n"
                              "3 5 2400Gbps 0.000025ms 0\n"
                              "3 6 100Gbps 0.0005ms 0.001\n";
    for (const std::string& switchLines : {std::string("4 5 6 \n"), std::string("4 5\n6\n")})
    {
        const HpccTopology result =
            ReadHpccTopology(Write("simai.txt", "7 2 2 1 8 H100\n" + switchLines + links));
        const FabricTopology& topo = result.topology;
        EXPECT_TRUE(result.simai);
        EXPECT_EQ(result.gpusPerServer, 2u);
        EXPECT_EQ(result.gpuType, "H100");
        ASSERT_EQ(topo.GetNNodes(), 7u);
        EXPECT_EQ(topo.GetNHosts(), 4u);
        EXPECT_EQ(topo.GetNSwitches(), 3u) << "NVSwitches are switches";
        const std::vector<HpccNodeType> types = {HpccNodeType::Host,
                                                 HpccNodeType::Host,
                                                 HpccNodeType::Host,
                                                 HpccNodeType::Host,
                                                 HpccNodeType::NvSwitch,
                                                 HpccNodeType::NvSwitch,
                                                 HpccNodeType::Switch};
        EXPECT_EQ(result.nodeType, types);
        EXPECT_EQ(topo.GetNode(4).name, "nvswitch-4");
        EXPECT_EQ(topo.GetNode(6).name, "switch-6");
        EXPECT_EQ(topo.GetNode(4).tier, 1u);
        ASSERT_EQ(topo.GetNLinks(), 8u);
        EXPECT_EQ(topo.GetLink(0).rateBps, 2400000000000ULL);
        EXPECT_EQ(topo.GetLink(0).delayNs, 25);
        EXPECT_EQ(topo.GetLink(7).b, 6u);
        EXPECT_EQ(result.linkErrorRate[7], 0.001);
        // Each GPU has two links: NVLink on port 0, its NIC on port 1.
        EXPECT_EQ(topo.AdjacentLinks(0), (std::vector<uint32_t>{0, 1}));
        EXPECT_NO_THROW(topo.Validate());
    }
}

TEST_F(HpccFiles, MalformedSimAiTopology)
{
    const std::string link = "0 2 100Gbps 1us 0\n";
    // Header counts: NVSwitches and switches together within the nodes.
    ExpectTopologyError("3 2 2 2 1 A100\n1 2\n" + link, 1, "switches", "2 NVSwitches and 2");
    ExpectTopologyError("3 2 x 1 1 A100\n1 2\n" + link, 1, "nvswitches", "non-negative");
    ExpectTopologyError("3 y 1 1 1 A100\n1 2\n" + link, 1, "gpus_per_server", "non-negative");
    // Switch ids: nv + switches on one line, or nv then switches on two.
    ExpectTopologyError("4 2 1 2 1 A100\n1 2\n" + link,
                        2,
                        "switch ids",
                        "expected 3 switch ids (1 NVSwitches first, then 2 switches), got 2");
    ExpectTopologyError("4 2 1 2 1 A100\n1\n2\n" + link,
                        3,
                        "switch ids",
                        "expected 2 switch ids after the line of NVSwitch ids, got 1");
    ExpectTopologyError("3 2 1 1 1 A100\n1 1\n" + link, 2, "switch id", "duplicate switch id 1");
    ExpectTopologyError("3 2 1 1 1 A100\n9 1\n" + link, 2, "nvswitch id", "out of range");
    ExpectTopologyError("3 2 1 1 1 A100\n1\n7\n" + link, 3, "switch id", "out of range");
}

TEST_F(HpccFiles, MalformedTopology)
{
    const std::string ok = "0 1 1Gbps 1us 0\n";
    // Header.
    ExpectTopologyError("3 1\n1\n" + ok, 1, "header", "expected 3 fields");
    ExpectTopologyError("3 1 1 1 1\n1\n" + ok, 1, "header", "or 6 fields");
    ExpectTopologyError("-3 1 1\n1\n" + ok, 1, "nodes", "negative");
    ExpectTopologyError("3 x 1\n1\n" + ok, 1, "switches", "non-negative integer");
    ExpectTopologyError("3 4 1\n1\n" + ok, 1, "switches", "only 3 nodes");
    ExpectTopologyError("\n\n", 2, "header", "missing");
    // Switch line.
    ExpectTopologyError("3 1 1\n5\n" + ok, 2, "switch id", "out of range");
    ExpectTopologyError("3 2 1\n1 1\n" + ok, 2, "switch id", "duplicate switch id 1");
    ExpectTopologyError("3 2 1\n1\n" + ok, 2, "switch ids", "expected 2 switch ids, got 1");
    ExpectTopologyError("3 1 1\n1 a\n" + ok, 2, "switch ids", "expected 1 switch ids, got 2");
    ExpectTopologyError("3 1 1\nx\n" + ok, 2, "switch id", "non-negative integer");
    // Links.
    ExpectTopologyError("3 1 1\n1\n0 5 1Gbps 1us 0\n", 3, "b", "node id 5 is out of range");
    ExpectTopologyError("3 1 1\n1\n9 1 1Gbps 1us 0\n", 3, "a", "node id 9 is out of range");
    ExpectTopologyError("3 1 1\n1\n1 1 1Gbps 1us 0\n", 3, "b", "self-loop");
    ExpectTopologyError("3 1 1\n1\nx 1 1Gbps 1us 0\n", 3, "a", "non-negative integer");
    ExpectTopologyError("3 1 1\n1\n0 -1 1Gbps 1us 0\n", 3, "b", "negative");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps 1us\n", 3, "link", "expected 5 fields");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps 1us 0 7\n", 3, "link", "got 6");
    ExpectTopologyError("3 1 1\n1\n0 1 100Gbs 1us 0\n", 3, "rate", "unknown unit");
    ExpectTopologyError("3 1 1\n1\n0 1 100 1us 0\n", 3, "rate", "missing unit");
    ExpectTopologyError("3 1 1\n1\n0 1 0Gbps 1us 0\n", 3, "rate", "positive");
    ExpectTopologyError("3 1 1\n1\n0 1 -1Gbps 1us 0\n", 3, "rate", "negative");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps 1xs 0\n", 3, "delay", "unknown unit");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps 0.5ns 0\n", 3, "delay", "nanoseconds");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps -1us 0\n", 3, "delay", "negative");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps 1us 1.5\n", 3, "error_rate", "outside [0,1]");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps 1us -0.1\n", 3, "error_rate", "negative");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps 1us abc\n", 3, "error_rate", "non-negative number");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps 1us nan\n", 3, "error_rate", "non-negative number");
    // Counts: the error names the last line for too few, the first extra one for too many.
    ExpectTopologyError("3 1 2\n1\n" + ok + "\n", 4, "links", "announces 2 links");
    ExpectTopologyError("3 1 1\n1\n" + ok + "\n" + ok, 5, "links", "more link lines");
    // Comments are not part of the format.
    ExpectTopologyError("# fabric\n3 1 1\n1\n" + ok, 1, "line", "'#' comments");
    ExpectTopologyError("3 1 1\n1\n0 1 1Gbps 1us 0 # a link\n", 3, "link", "expected 5 fields");
}

TEST_F(HpccFiles, MissingTopologyFile)
{
    const std::string path = (m_dir / "absent.txt").string();
    try
    {
        ReadHpccTopology(path);
        ADD_FAILURE() << "expected an error";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()), path + ": cannot open: No such file or directory");
    }
}

// ---------------------------------------------------------------- flows

TEST_F(HpccFiles, Flows)
{
    const std::string text = "3\r\n"
                             "0 1 3 100 1000 2.0\n"
                             "\n"
                             "1 0 0 200 5000000 2.000000001  \n"
                             "2 3 7 65535 1 2.000000001\n";
    const std::vector<HpccFlow> flows = ReadHpccFlows(Write("flow.txt", text), 4);
    ASSERT_EQ(flows.size(), 3u);
    EXPECT_EQ(flows[0].src, 0u);
    EXPECT_EQ(flows[0].dst, 1u);
    EXPECT_EQ(flows[0].pg, 3u);
    EXPECT_EQ(flows[0].dport, 100u);
    EXPECT_EQ(flows[0].bytes, 1000u);
    EXPECT_EQ(flows[0].startNs, 2000000000);
    EXPECT_EQ(flows[0].line, 2u);
    EXPECT_EQ(flows[1].src, 1u);
    EXPECT_EQ(flows[1].dst, 0u);
    EXPECT_EQ(flows[1].pg, 0u);
    EXPECT_EQ(flows[1].dport, 200u);
    EXPECT_EQ(flows[1].bytes, 5000000u);
    EXPECT_EQ(flows[1].startNs, 2000000001);
    EXPECT_EQ(flows[1].line, 4u);
    EXPECT_EQ(flows[2].pg, 7u);
    EXPECT_EQ(flows[2].dport, 65535u);
    EXPECT_EQ(flows[2].bytes, 1u);
    EXPECT_EQ(flows[2].startNs, 2000000001); // equal start times are sorted
    EXPECT_TRUE(ReadHpccFlows(Write("empty.txt", "0\n"), 4).empty());
}

TEST_F(HpccFiles, MalformedFlows)
{
    // Unsorted start times name both lines.
    ExpectFlowError("2\n0 1 3 100 1000 2.0\n1 0 3 100 1000 1.5\n",
                    3,
                    "start_time",
                    "earlier than the start time on line 2");
    // Counts.
    ExpectFlowError("", 1, "count", "missing");
    ExpectFlowError("2 3\n", 1, "count", "expected 1 field");
    ExpectFlowError("x\n", 1, "count", "non-negative integer");
    ExpectFlowError("2\n0 1 3 100 1000 2.0\n", 2, "count", "announces 2 flows but the file has 1");
    ExpectFlowError("1\n0 1 3 100 1000 2.0\n1 0 3 100 1000 2.0\n", 3, "count", "more flow lines");
    // Fields.
    ExpectFlowError("1\n0 1 3 100 1000\n", 2, "flow", "expected 6 fields");
    ExpectFlowError("1\nx 1 3 100 1000 2.0\n", 2, "src", "non-negative integer");
    ExpectFlowError("1\n0 -1 3 100 1000 2.0\n", 2, "dst", "negative");
    ExpectFlowError("1\n0 1 8 100 1000 2.0\n", 2, "pg", "outside 0-7");
    ExpectFlowError("1\n0 1 3 70000 1000 2.0\n", 2, "dport", "larger than 65535");
    ExpectFlowError("1\n0 1 3 100 0 2.0\n", 2, "size", "at least 1 byte");
    ExpectFlowError("1\n0 1 3 100 1k 2.0\n", 2, "size", "non-negative integer");
    ExpectFlowError("1\n2 2 3 100 1000 2.0\n", 2, "dst", "to itself");
    ExpectFlowError("1\n4 1 3 100 1000 2.0\n", 2, "src", "node id 4 is out of range [0, 4)");
    ExpectFlowError("1\n0 9 3 100 1000 2.0\n", 2, "dst", "node id 9 is out of range");
    ExpectFlowError("1\n0 1 3 100 1000 2s\n", 2, "start_time", "decimal number of seconds");
    ExpectFlowError("1\n0 1 3 100 1000 -2\n", 2, "start_time", "negative");
    ExpectFlowError("1\n0 1 3 100 1000 1e-10\n", 2, "start_time", "nanoseconds");
    ExpectFlowError("# flows\n1\n0 1 3 100 1000 2.0\n", 1, "line", "'#' comments");
}

// ---------------------------------------------------------------- config

TEST_F(HpccFiles, ConfigKnownKeys)
{
    const std::string text = "# DCQCN settings\n"
                             "ENABLE_QCN 1\n"
                             "USE_DYNAMIC_PFC_THRESHOLD 1\n"
                             "\n"
                             "PACKET_PAYLOAD_SIZE 1000\n"
                             "TOPOLOGY_FILE mix/topology.txt\r\n"
                             "FLOW_FILE mix/flow.txt\n"
                             "ERROR_RATE_PER_LINK 0.0001\n"
                             "\n"
                             "FCT_OUTPUT_FILE mix/fct.txt\n"
                             "PFC_OUTPUT_FILE mix/pfc.txt\n"
                             "SIMULATOR_STOP_TIME 4.00\n"
                             "CC_MODE 1\n"
                             "ALPHA_RESUME_INTERVAL 1\n"
                             "RATE_DECREASE_INTERVAL 4\n"
                             "CLAMP_TARGET_RATE 0\n"
                             "RP_TIMER 900\n"
                             "EWMA_GAIN 0.00390625\n"
                             "FAST_RECOVERY_TIMES 1\n"
                             "RATE_AI 5Mb/s\n"
                             "RATE_HAI 50Mb/s\n"
                             "MIN_RATE 100Mb/s\n"
                             "L2_ACK_INTERVAL 1\n"
                             "L2_BACK_TO_ZERO 0\n"
                             "KMAX_MAP 2 25000000000 400 100000000000 1600\n"
                             "KMIN_MAP 2 25000000000 100 100000000000 400\n"
                             "PMAX_MAP 2 25000000000 0.2 100000000000 0.2\n"
                             "BUFFER_SIZE 32\n";
    const HpccConfigFile file = ReadHpccConfig(Write("config.txt", text));
    ASSERT_EQ(file.entries.size(), 25u);
    EXPECT_EQ(file.entries[0].key, "ENABLE_QCN");
    EXPECT_EQ(file.entries[0].line, 2u);
    EXPECT_EQ(file.entries[21].key, "KMAX_MAP");
    EXPECT_EQ(file.entries[21].values,
              (std::vector<std::string>{"2", "25000000000", "400", "100000000000", "1600"}));

    const HpccConfigMapping mapping = MapHpccConfig(file, true);
    EXPECT_TRUE(mapping.unmodelled.empty());
    const HpccConfig& c = mapping.config;
    EXPECT_EQ(c.enableQcn, true);
    EXPECT_EQ(c.useDynamicPfcThreshold, true);
    EXPECT_EQ(c.payloadBytes, 1000u);
    EXPECT_EQ(c.topologyFile, "mix/topology.txt");
    EXPECT_EQ(c.flowFile, "mix/flow.txt");
    EXPECT_EQ(c.errorRatePerLink, 0.0001);
    EXPECT_EQ(c.fctOutputFile, "mix/fct.txt");
    EXPECT_EQ(c.pfcOutputFile, "mix/pfc.txt");
    EXPECT_EQ(c.stopTimeNs, 4 * 1000000000LL); // seconds
    EXPECT_EQ(c.ccMode, 1u);
    EXPECT_EQ(c.alphaResumeIntervalNs, 1000); // microseconds
    EXPECT_EQ(c.rateDecreaseIntervalNs, 4000);
    EXPECT_EQ(c.rpTimerNs, 900000);
    EXPECT_EQ(c.clampTargetRate, false);
    EXPECT_EQ(c.ewmaGain, 1.0 / 256);
    EXPECT_EQ(c.fastRecoveryTimes, 1u);
    EXPECT_EQ(c.rateAiBps, 5000000u); // Mb/s
    EXPECT_EQ(c.rateHaiBps, 50000000u);
    EXPECT_EQ(c.minRateBps, 100000000u);
    EXPECT_EQ(c.l2AckInterval, 1u);
    EXPECT_EQ(c.l2BackToZero, false);
    EXPECT_EQ(c.bufferBytes, 32ULL * 1024 * 1024); // MB = 2^20 bytes
    // KB = 1000 bytes, keyed by rate in bit/s.
    EXPECT_EQ(c.kmaxBytes,
              (std::map<uint64_t, uint64_t>{{25000000000ULL, 400000}, {100000000000ULL, 1600000}}));
    EXPECT_EQ(c.kminBytes,
              (std::map<uint64_t, uint64_t>{{25000000000ULL, 100000}, {100000000000ULL, 400000}}));
    EXPECT_EQ(c.pmax, (std::map<uint64_t, double>{{25000000000ULL, 0.2}, {100000000000ULL, 0.2}}));
}

TEST_F(HpccFiles, ConfigAbsentKeysStayEmpty)
{
    const HpccConfigMapping m = MapHpccConfig(ReadHpccConfig(Write("c.txt", "CC_MODE 1\n")), true);
    EXPECT_EQ(m.config.ccMode, 1u);
    EXPECT_FALSE(m.config.bufferBytes.has_value());
    EXPECT_FALSE(m.config.rateAiBps.has_value());
    EXPECT_FALSE(m.config.topologyFile.has_value());
    EXPECT_TRUE(m.config.kmaxBytes.empty());
}

TEST_F(HpccFiles, ConfigLinkDownIsMapped)
{
    const std::string path = Write("config.txt", "LINK_DOWN 1500 3 7\n");
    const HpccConfigMapping m = MapHpccConfig(ReadHpccConfig(path), true);
    EXPECT_TRUE(m.unmodelled.empty());
    ASSERT_TRUE(m.config.linkDown.has_value());
    EXPECT_EQ(m.config.linkDown->timeNs, 1500000);
    EXPECT_EQ(m.config.linkDown->a, 3u);
    EXPECT_EQ(m.config.linkDown->b, 7u);
    for (const char* bad : {"LINK_DOWN 1500 3\n", "LINK_DOWN x 3 7\n", "LINK_DOWN 1 2 -3\n"})
    {
        const std::string badPath = Write("bad.txt", bad);
        try
        {
            MapHpccConfig(ReadHpccConfig(badPath), false);
            ADD_FAILURE() << "accepted " << bad;
        }
        catch (const std::runtime_error& e)
        {
            EXPECT_EQ(std::string(e.what()).rfind(badPath + ":1: LINK_DOWN: ", 0), 0u) << e.what();
        }
    }
}

TEST_F(HpccFiles, ConfigUnmodelledKeysByName)
{
    const std::string text = "ENABLE_QCN 1\n"
                             "HAS_WIN 0\n"
                             "\n"
                             "MY_OWN_KEY a b c\n"
                             "ACK_HIGH_PRIO 0\n"
                             "CC_MODE 3\n"
                             "TRACE_FILE mix/trace.txt\n"
                             "L2_BACK_TO_ZERO 1\n"
                             "USE_DYNAMIC_PFC_THRESHOLD 0\n"
                             "L2_ACK_INTERVAL 1\n";
    const std::string path = Write("config.txt", text);
    const HpccConfigMapping m = MapHpccConfig(ReadHpccConfig(path), false);
    EXPECT_EQ(m.config.enableQcn, true);
    EXPECT_EQ(m.config.ccMode, 3u);
    // Values this module models are applied even when reported.
    EXPECT_EQ(m.config.l2BackToZero, true);
    EXPECT_EQ(m.config.useDynamicPfcThreshold, false);
    EXPECT_EQ(m.config.l2AckInterval, 1u);
    ASSERT_EQ(m.unmodelled.size(), 7u);
    EXPECT_EQ(m.unmodelled[0].key, "HAS_WIN");
    EXPECT_EQ(m.unmodelled[0].line, 2u);
    EXPECT_EQ(m.unmodelled[1].key, "MY_OWN_KEY");
    EXPECT_EQ(m.unmodelled[1].line, 4u);
    EXPECT_NE(m.unmodelled[1].reason.find("unknown key"), std::string::npos);
    EXPECT_EQ(m.unmodelled[2].key, "ACK_HIGH_PRIO");
    EXPECT_EQ(m.unmodelled[2].line, 5u);
    EXPECT_EQ(m.unmodelled[3].key, "CC_MODE");
    EXPECT_EQ(m.unmodelled[3].line, 6u);
    EXPECT_NE(m.unmodelled[3].reason.find("HPCC"), std::string::npos);
    EXPECT_EQ(m.unmodelled[4].key, "TRACE_FILE");
    EXPECT_EQ(m.unmodelled[4].line, 7u);
    EXPECT_EQ(m.unmodelled[5].key, "L2_BACK_TO_ZERO");
    EXPECT_NE(m.unmodelled[5].reason.find("go-back-N"), std::string::npos);
    EXPECT_EQ(m.unmodelled[6].key, "USE_DYNAMIC_PFC_THRESHOLD");
    EXPECT_EQ(m.unmodelled[6].line, 9u);

    // Strict mode: the first one heads the message, all are listed with their lines.
    try
    {
        MapHpccConfig(ReadHpccConfig(path), true);
        ADD_FAILURE() << "expected strict mode to throw";
    }
    catch (const std::runtime_error& e)
    {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind(path + ":2: HAS_WIN: ", 0), 0u) << msg;
        for (const char* part : {"HAS_WIN (line 2)",
                                 "MY_OWN_KEY (line 4)",
                                 "ACK_HIGH_PRIO (line 5)",
                                 "CC_MODE (line 6)",
                                 "TRACE_FILE (line 7)",
                                 "L2_BACK_TO_ZERO (line 8)",
                                 "USE_DYNAMIC_PFC_THRESHOLD (line 9)"})
        {
            EXPECT_NE(msg.find(part), std::string::npos) << msg << "\nmissing: " << part;
        }
    }
}

TEST_F(HpccFiles, MalformedConfig)
{
    ExpectConfigError("CC_MODE 1\nRP_TIMER 900\n\nCC_MODE 1\n", 4, "CC_MODE", "first on line 1");
    ExpectConfigError("UNKNOWN 1\nUNKNOWN 2\n", 2, "UNKNOWN", "given twice");
    ExpectConfigError("ENABLE_QCN\n", 1, "ENABLE_QCN", "missing value");
    ExpectConfigError("ENABLE_QCN 2\n", 1, "ENABLE_QCN", "expected 0 or 1");
    ExpectConfigError("ENABLE_QCN 1 0\n", 1, "ENABLE_QCN", "expected 1 value, got 2");
    ExpectConfigError("BUFFER_SIZE 3.5\n", 1, "BUFFER_SIZE", "non-negative integer");
    ExpectConfigError("PACKET_PAYLOAD_SIZE 0\n", 1, "PACKET_PAYLOAD_SIZE", "at least 1");
    ExpectConfigError("RATE_AI 5\n", 1, "RATE_AI", "missing unit");
    ExpectConfigError("RP_TIMER 900us\n", 1, "RP_TIMER", "plain number of us");
    ExpectConfigError("RP_TIMER 0.0001\n", 1, "RP_TIMER", "nanoseconds");
    ExpectConfigError("SIMULATOR_STOP_TIME -1\n", 1, "SIMULATOR_STOP_TIME", "negative");
    ExpectConfigError("EWMA_GAIN 0\n", 1, "EWMA_GAIN", "outside (0,1]");
    ExpectConfigError("KMAX_MAP 2 25000000000 400\n", 1, "KMAX_MAP", "announces 2");
    ExpectConfigError("KMAX_MAP 2 25000000000 400 25000000000 800\n", 1, "KMAX_MAP", "given twice");
    ExpectConfigError("KMIN_MAP 1 25Gbps 100\n", 1, "KMIN_MAP", "non-negative integer");
    ExpectConfigError("PMAX_MAP 1 25000000000 1.2\n", 1, "PMAX_MAP", "outside [0,1]");
    ExpectConfigError("FLOW_FILE a b\n", 1, "FLOW_FILE", "expected 1 value");
    ExpectConfigError("ERROR_RATE_PER_LINK 1.5\n", 1, "ERROR_RATE_PER_LINK", "outside [0,1]");
    ExpectConfigError("ERROR_RATE_PER_LINK x\n", 1, "ERROR_RATE_PER_LINK", "non-negative number");
}

} // namespace
