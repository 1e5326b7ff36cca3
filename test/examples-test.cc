/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * End-to-end tests of the example programs: each test runs roce-incast or
 * fat-tree-permutation as a subprocess in a fresh temporary directory and
 * checks what it left behind (exit code, stderr, the SQLite results file,
 * a pcap read back with tshark) against expectations computed here.
 */
#include "example-process-test-util.h"

#include "ns3/collective-scheduler-helper.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace
{

namespace fs = std::filesystem;
using namespace ns3::test;

const std::string kBinaryDir = CS_BINARY_DIR;
const std::string kLingjunTopo = std::string(CS_SHARED_DATA_DIR) + "/alibaba-lingjun-2023/topo.csv";
const char* const kTshark = "/usr/bin/tshark";

/// RoCEv2 frame bytes around the payload: Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4.
constexpr uint64_t kFrameOverhead = 14 + 20 + 8 + 12 + 4;
/// The RETH that only the first packet of an RDMA WRITE carries.
constexpr uint64_t kReth = 16;

/// Frame bytes of one RDMA WRITE of \p bytes in packets of \p mtu payload bytes.
uint64_t
WriteFrameBytes(uint64_t bytes, uint64_t mtu)
{
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    return bytes + packets * kFrameOverhead + kReth;
}

/// Number of runs marked 'complete' in \p path; 0 if there is no file or no runs table.
int64_t
CompleteRuns(const fs::path& path)
{
    if (!fs::exists(path) || fs::file_size(path) == 0 ||
        QueryInt(path,
                 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'") == 0)
    {
        return 0;
    }
    return QueryInt(path, "SELECT count(*) FROM runs WHERE status = 'complete'");
}

/// Split \p line at \p sep (empty fields kept).
std::vector<std::string>
Split(const std::string& line, char sep)
{
    std::vector<std::string> fields;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, sep))
    {
        fields.push_back(field);
    }
    if (!line.empty() && line.back() == sep)
    {
        fields.emplace_back();
    }
    return fields;
}

/// Each test gets its own directory, removed afterwards unless the test failed.
class ExamplesTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        const fs::path base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
        std::string tmpl = (base / "cs-examples-test-XXXXXX").string();
        ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << "mkdtemp " << tmpl;
        m_dir = tmpl;
    }

    void TearDown() override
    {
        if (HasFailure())
        {
            std::cerr << "files of the failed test kept in " << m_dir << "\n";
        }
        else
        {
            fs::remove_all(m_dir);
        }
    }

    /// \return \p name inside the test's directory
    fs::path Path(const std::string& name) const
    {
        return m_dir / name;
    }

    /**
     * Run \p command (already quoted) in the test's directory with stdout
     * and stderr captured. A time limit turns a hang into a failure.
     */
    Outcome Shell(const std::string& command)
    {
        return RunCaptured(m_dir, command, "cmd" + std::to_string(m_commands++));
    }

    /// Run the example \p program with \p args (each one argument).
    Outcome Example(const std::string& program, const std::vector<std::string>& args)
    {
        return Shell(CommandLine(kBinaryDir + "/" + program, args));
    }

    fs::path m_dir;
    int m_commands{0};
};

// ------------------------------------------------------------ determinism

/// The (src, dst) pairs of a run's flows, by flow id.
std::vector<std::pair<std::string, std::string>>
Pairs(const fs::path& db, int64_t runId)
{
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const Row& r : Query(db,
                              "SELECT src_node, dst_node FROM flows WHERE run_id = " +
                                  std::to_string(runId) + " ORDER BY flow_id"))
    {
        pairs.emplace_back(r[0].value_or("NULL"), r[1].value_or("NULL"));
    }
    return pairs;
}

/// Every host sends exactly once and receives exactly once, never to itself.
void
ExpectDerangement(const std::vector<std::pair<std::string, std::string>>& pairs, size_t hosts)
{
    std::set<std::string> srcs;
    std::set<std::string> dsts;
    for (const auto& [src, dst] : pairs)
    {
        EXPECT_NE(src, dst) << "host " << src << " sends to itself";
        srcs.insert(src);
        dsts.insert(dst);
    }
    EXPECT_EQ(pairs.size(), hosts);
    EXPECT_EQ(srcs.size(), hosts) << "a host sends twice";
    EXPECT_EQ(srcs, dsts) << "senders and receivers are not the same hosts";
}

TEST_F(ExamplesTest, FatTreePermutationIsDeterministicPerSeed)
{
    const fs::path db = Path("A.db");
    const std::string dbFlag = "--db=" + db.string();
    for (const char* seed : {"--seed=7", "--seed=7", "--seed=8"})
    {
        const Outcome o =
            Example("fat-tree-permutation", {"--k=4", "--bytes=200000", seed, dbFlag});
        ASSERT_EQ(o.exitCode, 0) << seed << ": " << o.Describe();
    }
    ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM runs"), 3);
    ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM runs WHERE status = 'complete'"), 3);
    const auto runIds = Query(db, "SELECT run_id, seed FROM runs ORDER BY run_id");
    const std::string a = *runIds[0][0];
    const std::string b = *runIds[1][0];
    const std::string c = *runIds[2][0];
    EXPECT_EQ(runIds[0][1], "7");
    EXPECT_EQ(runIds[1][1], "7");
    EXPECT_EQ(runIds[2][1], "8");

    // Same seed: the same rows, column for column, in flows and in links.
    for (const char* table : {"flows", "links"})
    {
        const std::string order = std::string(table) == "flows" ? "flow_id" : "link_id";
        auto rowsOf = [&](const std::string& run) {
            return Query(db,
                         "SELECT * FROM " + std::string(table) + " WHERE run_id = " + run +
                             " ORDER BY " + order,
                         {"run_id"});
        };
        const std::vector<Row> first = rowsOf(a);
        const std::vector<Row> second = rowsOf(b);
        ASSERT_FALSE(first.empty()) << table;
        ASSERT_EQ(first.size(), second.size()) << table;
        for (size_t i = 0; i < first.size(); ++i)
        {
            EXPECT_EQ(first[i], second[i]) << table << " row " << i << " differs";
        }
    }

    // k=4: k^3/4 = 16 hosts, each sending once.
    const auto pairs7 = Pairs(db, std::stoll(a));
    const auto pairs8 = Pairs(db, std::stoll(c));
    ExpectDerangement(pairs7, 16);
    ExpectDerangement(pairs8, 16);
    EXPECT_NE(pairs7, pairs8) << "seeds 7 and 8 gave the same permutation";
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM flows WHERE end_ns IS NULL"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT bytes) FROM flows"), 1);
    EXPECT_EQ(QueryInt(db, "SELECT min(bytes) FROM flows"), 200000);
}

TEST_F(ExamplesTest, SeveralMpiRanksNeedAnMpiBuildAndADistributableExample)
{
    // What an MPI launcher tells each process it starts; this build has no MPI.
    const std::string db = Path("ranks.db").string();
    const Outcome noMpi =
        Shell("env OMPI_COMM_WORLD_SIZE=2 " +
              CommandLine(kBinaryDir + "/fat-tree-permutation", {"--k=4", "--db=" + db}));
    EXPECT_EQ(noMpi.exitCode, 2) << noMpi.Describe();
    EXPECT_NE(noMpi.err.find("2 MPI ranks, but ns-3 was built without MPI"), std::string::npos)
        << noMpi.Describe();
    EXPECT_FALSE(fs::exists(db)) << "a refused run left a database";
    const Outcome notDistributable =
        Shell("env OMPI_COMM_WORLD_SIZE=2 " + CommandLine(kBinaryDir + "/roce-incast", {}));
    EXPECT_EQ(notDistributable.exitCode, 2) << notDistributable.Describe();
    EXPECT_NE(notDistributable.err.find("does not run on several MPI ranks"), std::string::npos)
        << notDistributable.Describe();
    // One rank is a plain run.
    const Outcome one =
        Shell("env OMPI_COMM_WORLD_SIZE=1 " +
              CommandLine(kBinaryDir + "/fat-tree-permutation", {"--k=4", "--bytes=10000"}));
    EXPECT_EQ(one.exitCode, 0) << one.Describe();
    EXPECT_NE(one.out.find("(1 process)"), std::string::npos) << one.Describe();
}

TEST_F(ExamplesTest, LingjunTopologyRunsAPermutationOverAllHosts)
{
    std::ifstream in(kLingjunTopo);
    ASSERT_TRUE(in) << "shared data missing: " << kLingjunTopo;
    size_t hosts = 0;
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line))
    {
        hosts += line.find_first_not_of(" \t\r") != std::string::npos;
    }
    ASSERT_GT(hosts, 0U);

    const fs::path db = Path("L.db");
    const Outcome o =
        Example("fat-tree-permutation",
                {"--lingjun=" + kLingjunTopo, "--bytes=10000", "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    ASSERT_EQ(CompleteRuns(db), 1);
    ExpectDerangement(Pairs(db, 1), hosts);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM flows WHERE end_ns IS NULL"), 0);
}

// ------------------------------------------------------------- bad input

struct BadFlag
{
    const char* name;    ///< test name suffix
    const char* program; ///< example to run
    const char* flag;    ///< the bad flag, as given and as the error must quote it
};

/// Names the case in test listings (instead of its bytes).
void
PrintTo(const BadFlag& p, std::ostream* os)
{
    *os << p.program << " " << p.flag;
}

class ExamplesBadFlagTest : public ExamplesTest, public ::testing::WithParamInterface<BadFlag>
{
};

TEST_P(ExamplesBadFlagTest, FailsCleanlyNamingTheFlag)
{
    const BadFlag& p = GetParam();
    const fs::path db = Path("bad.db");
    const Outcome o = Example(p.program, {p.flag, "--db=" + db.string()});
    // 2 is the examples' exit code for an impossible flag; a crash would be 128 + signal.
    EXPECT_EQ(o.exitCode, 2) << o.Describe();
    EXPECT_NE(o.err.find(std::string(p.program) + ": error: " + p.flag), std::string::npos)
        << o.Describe();
    EXPECT_EQ(CompleteRuns(db), 0);
}

TEST_F(ExamplesTest, ScenarioRejectsEveryOtherFlagByItsOwnName)
{
    // --scenario replaces the fabric and job flags: each one given beside it
    // is an error naming that flag and its value. The flags' names and values
    // were once two lists of different lengths: --linkDelay=2us was reported
    // as --cc=2us, --cc=none as --mtu=none, and --stopTime went unnoticed.
    const std::string scenario =
        "--scenario=" + std::string(CS_SOURCE_DIR) + "/examples/scenarios/two-jobs-fat-tree.json";
    for (const char* flag : {"--k=8",
                             "--linkRate=25Gbps",
                             "--linkDelay=2us",
                             "--cc=none",
                             "--mtu=1024",
                             "--seed=7",
                             "--flowRows=0",
                             "--stopTime=1s"})
    {
        const Outcome o = Example("multi-tenant-fat-tree", {scenario, flag});
        EXPECT_EQ(o.exitCode, 2) << flag << "\n" << o.Describe();
        EXPECT_NE(o.err.find(std::string("multi-tenant-fat-tree: error: ") + flag +
                             ": cannot be combined with --scenario"),
                  std::string::npos)
            << o.Describe();
    }
}

INSTANTIATE_TEST_SUITE_P(
    Flags,
    ExamplesBadFlagTest,
    ::testing::Values(
        BadFlag{"FatTreeOddK", "fat-tree-permutation", "--k=3"},
        BadFlag{"FatTreeRate", "fat-tree-permutation", "--linkRate=fast"},
        BadFlag{"FatTreeDelay", "fat-tree-permutation", "--linkDelay=soon"},
        BadFlag{"FatTreeMtu", "fat-tree-permutation", "--mtu=0"},
        BadFlag{"FatTreeHpccPayload", "fat-tree-permutation", "--mtu=1000"},
        BadFlag{"TrainingJumboMtu", "multi-tenant-fat-tree", "--mtu=9000"},
        // Counts are read signed: -1 was 4294967295 jobs (memory
        // exhausted) or iterations (run to the stop time).
        BadFlag{"TrainingNegativeJobs", "multi-tenant-fat-tree", "--jobs=-1"},
        BadFlag{"TrainingNoJobs", "multi-tenant-fat-tree", "--jobs=0"},
        BadFlag{"TrainingNegativeIterations", "multi-tenant-fat-tree", "--iterations=-1"},
        BadFlag{"TrainingNegativeSeed", "multi-tenant-fat-tree", "--seed=-1"},
        BadFlag{"FatTreeCc", "fat-tree-permutation", "--cc=reno"},
        BadFlag{"IncastNoSenders", "roce-incast", "--senders=0"},
        BadFlag{"IncastTinyBuffer", "roce-incast", "--bufferBytes=1000"},
        BadFlag{"IncastZeroBuffer", "roce-incast", "--bufferBytes=0"},
        BadFlag{"TrainingOddK", "multi-tenant-fat-tree", "--k=5"},
        BadFlag{"TrainingScale", "multi-tenant-fat-tree", "--scale=0"},
        BadFlag{"TrainingCc", "multi-tenant-fat-tree", "--cc=cubic"},
        BadFlag{"TrainingScheduler", "multi-tenant-fat-tree", "--scheduler=fifo"},
        BadFlag{"TrainingCompare", "multi-tenant-fat-tree", "--compare=fair,fifo"},
        BadFlag{"FiguresUnknown", "paper-figures", "--figure=2"},
        BadFlag{"FiguresMtu", "paper-figures", "--mtu=9001"},
        BadFlag{"SchedulingTimeRacks", "scheduling-time", "--maxRacks=1"}),
    [](const ::testing::TestParamInfo<BadFlag>& info) { return std::string(info.param.name); });

struct BadTopology
{
    const char* name;     ///< test name suffix
    const char* contents; ///< the topo.csv
    const char* where;    ///< ":line: field" the error must name after the path
};

void
PrintTo(const BadTopology& p, std::ostream* os)
{
    *os << "topo.csv error at " << p.where;
}

class ExamplesBadTopologyTest : public ExamplesTest,
                                public ::testing::WithParamInterface<BadTopology>
{
};

TEST_P(ExamplesBadTopologyTest, FailsNamingFileAndLine)
{
    const BadTopology& p = GetParam();
    const fs::path topo = Path("topo.csv");
    std::ofstream(topo) << p.contents;
    const fs::path db = Path("bad.db");
    const Outcome o =
        Example("fat-tree-permutation", {"--lingjun=" + topo.string(), "--db=" + db.string()});
    EXPECT_NE(o.exitCode, 0) << o.Describe();
    EXPECT_NE(o.exitCode, -1) << o.Describe();
    EXPECT_NE(o.err.find(topo.string() + p.where), std::string::npos) << o.Describe();
    EXPECT_EQ(CompleteRuns(db), 0);
    if (fs::exists(db))
    {
        // A run begun before the file was read must say why it failed.
        for (const Row& r : Query(db, "SELECT status, error FROM runs"))
        {
            EXPECT_EQ(r[0], "failed");
            EXPECT_NE(r[1].value_or("").find(topo.string() + p.where), std::string::npos);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Lingjun,
    ExamplesBadTopologyTest,
    ::testing::Values(
        BadTopology{"BadHeader", "ip,DSW,PSW\naaaa,G1,P1\n", ":1: header"},
        BadTopology{"MissingField",
                    "ip,DSW,PSW,ASW\naaaa,G1,P1,S1\nbbbb,G1,P1\ncccc,G1,P1,S2\n",
                    ":3:"},
        BadTopology{"EmptyField", "ip,DSW,PSW,ASW\naaaa,G1,P1,S1\nbbbb,,P1,S1\n", ":3: DSW"}),
    [](const ::testing::TestParamInfo<BadTopology>& info) { return std::string(info.param.name); });

// ------------------------------------------------------------ conservation

TEST_F(ExamplesTest, IncastBytesAreConservedInTheDatabase)
{
    const uint64_t senders = 8;
    const uint64_t bytes = 1000000;
    const uint64_t mtu = 4096; // the example's default RoCE path MTU
    const fs::path db = Path("X.db");
    const Outcome o =
        Example("roce-incast",
                {"--senders=8", "--bytes=1000000", "--cc=none", "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM runs"), 1);
    ASSERT_EQ(CompleteRuns(db), 1);

    // Flows: one per sender, all delivered, all to the same receiver.
    const std::vector<Row> flows =
        Query(db, "SELECT src_node, dst_node, bytes, end_ns, retransmitted_bytes FROM flows");
    ASSERT_EQ(flows.size(), senders);
    std::set<std::string> srcs;
    std::set<std::string> dsts;
    uint64_t total = 0;
    for (const Row& f : flows)
    {
        srcs.insert(*f[0]);
        dsts.insert(*f[1]);
        total += std::stoull(*f[2]);
        EXPECT_TRUE(f[3].has_value()) << "flow from " << *f[0] << " never delivered";
        EXPECT_EQ(f[4], "0") << "PFC is on: nothing should be retransmitted";
    }
    EXPECT_EQ(total, senders * bytes);
    ASSERT_EQ(dsts.size(), 1U);
    EXPECT_EQ(srcs.size(), senders);
    const std::string receiver = *dsts.begin();
    EXPECT_EQ(srcs.count(receiver), 0U);

    // 244 packets of 4096 B and one of 576 B: 245 * 58 + 1,000,000 + 16 (the RETH)
    // = 1,014,226 frame bytes per message.
    const uint64_t messageWire = WriteFrameBytes(bytes, mtu);
    ASSERT_EQ(messageWire, 1014226U);

    // Links: bytes each way per host, as seen from the host.
    const std::vector<Row> links =
        Query(db,
              "SELECT node_a, node_b, tx_bytes_ab, tx_bytes_ba, drops, pfc_pauses_sent FROM links");
    ASSERT_EQ(links.size(), senders + 1) << "one link per host, all to the switch";
    std::map<std::string, std::pair<uint64_t, uint64_t>> hostTxRx; // host -> (sent, received)
    uint64_t drops = 0;
    uint64_t pauses = 0;
    for (const Row& l : links)
    {
        const uint64_t ab = std::stoull(*l[2]);
        const uint64_t ba = std::stoull(*l[3]);
        drops += std::stoull(*l[4]);
        pauses += std::stoull(*l[5]);
        if (srcs.count(*l[0]) || *l[0] == receiver)
        {
            hostTxRx[*l[0]] = {ab, ba};
        }
        else if (srcs.count(*l[1]) || *l[1] == receiver)
        {
            hostTxRx[*l[1]] = {ba, ab};
        }
    }
    EXPECT_EQ(drops, 0U);
    ASSERT_EQ(hostTxRx.size(), senders + 1) << "a host has no link";
    uint64_t intoSwitch = 0;
    uint64_t outOfSwitch = 0;
    for (const auto& [host, txRx] : hostTxRx)
    {
        intoSwitch += txRx.first;
        outOfSwitch += txRx.second;
        if (host != receiver)
        {
            // A sender sends its one message and nothing else.
            EXPECT_EQ(txRx.first, messageWire) << "sender " << host;
        }
    }
    EXPECT_GE(hostTxRx[receiver].second, senders * messageWire)
        << "the receiver's link carried less than the messages sent to it";
    // The switch forwards what it receives; it adds only PAUSE frames of its own.
    EXPECT_GE(outOfSwitch, intoSwitch);
    if (pauses == 0)
    {
        EXPECT_EQ(outOfSwitch, intoSwitch);
    }
}

// ------------------------------------------------------------------ tshark

/// The fields of one frame, in the order asked from tshark.
enum Field
{
    kOpcode,
    kDestQp,
    kPsn,
    kUdpDstPort,
    kAethSyndrome,
    kIpChecksumStatus,
    kIpSrc,
    kIpDst,
    kEcn,
    kEthType,
    kDmaLength,
    kNFields
};

TEST_F(ExamplesTest, IncastPcapDecodesAsRoceV2InTshark)
{
    ASSERT_EQ(access(kTshark, X_OK), 0)
        << kTshark << " not found: install Debian's tshark package to run this test";

    // 4 senders of 200 KB give only 3-5 ECN marks and CNPs at the receiver,
    // depending on the seed; 8 give about 60, a margin that does not depend on luck.
    const uint64_t senders = 8;
    const uint64_t bytes = 204800;
    const uint64_t packets = bytes / 1024;
    const Outcome run =
        Example("roce-incast",
                {"--senders=8", "--bytes=204800", "--mtu=1024", "--cc=dcqcn", "--pcap=trace"});
    ASSERT_EQ(run.exitCode, 0) << run.Describe();
    const fs::path pcap = Path("trace-1-0.pcap"); // the receiver, host 0, is ns-3 node 1
    ASSERT_TRUE(fs::exists(pcap)) << "no " << pcap;

    const Outcome ts = Shell(std::string(kTshark) + " -n -r " + ShellQuote(pcap.string()) +
                             " -o ip.check_checksum:TRUE -T fields -E separator=,"
                             " -e infiniband.bth.opcode -e infiniband.bth.destqp"
                             " -e infiniband.bth.psn -e udp.dstport -e infiniband.aeth.syndrome"
                             " -e ip.checksum.status -e ip.src -e ip.dst -e ip.dsfield.ecn"
                             " -e eth.type -e infiniband.reth.dmalen");
    ASSERT_EQ(ts.exitCode, 0) << ts.Describe();

    std::map<std::string, uint64_t> byOpcode;
    std::map<std::string, std::vector<uint64_t>> psnsFrom; // sender ip -> data PSNs in order
    std::map<std::string, std::set<uint64_t>> ackedPsns;   // sender ip -> PSNs ACKed to it
    std::map<std::string, std::set<std::string>> qpsFrom;  // sender ip -> destination QPs
    std::map<std::string, uint64_t> ceFrom;                // sender ip -> CE-marked packets
    std::map<std::string, uint64_t> cnpsTo;                // sender ip -> CNPs
    std::map<std::string, std::string> firstOpcodeFrom;    // sender ip -> opcode of 1st
    std::map<std::string, std::string> lastOpcodeFrom;     // sender ip -> opcode of last
    // Per-frame checks are counted, so that a systematic fault is reported
    // once with an example frame rather than once per frame.
    std::map<std::string, std::pair<uint64_t, std::string>> faults; // what -> (count, 1st frame)
    uint64_t frames = 0;
    std::string current;
    auto check = [&](bool ok, const std::string& what) {
        if (!ok && faults[what].first++ == 0)
        {
            faults[what].second = current;
        }
    };
    std::istringstream lines(ts.out);
    std::string line;
    while (std::getline(lines, line))
    {
        ++frames;
        std::vector<std::string> f = Split(line, ',');
        ASSERT_EQ(f.size(), static_cast<size_t>(kNFields)) << "frame " << frames << ": " << line;
        if (f[kEthType] == "0x8808")
        {
            continue; // MAC control: PFC PAUSE, not RoCE
        }
        current = "frame " + std::to_string(frames) + ": " + line;
        check(!f[kOpcode].empty(), "neither RoCE nor PFC");
        check(f[kUdpDstPort] == "4791", "UDP destination port is not 4791");
        // Wireshark's checksum status: 0 Bad, 1 Good, 2 Unverified (2 only without the check).
        check(f[kIpChecksumStatus] == "1", "IPv4 header checksum not Good");
        const std::string& op = f[kOpcode];
        ++byOpcode[op];
        if (op == "6" || op == "7" || op == "8" || op == "10")
        {
            const std::string& sender = f[kIpSrc];
            psnsFrom[sender].push_back(std::stoull(f[kPsn]));
            qpsFrom[sender].insert(f[kDestQp]);
            ceFrom[sender] += f[kEcn] == "3";
            check(f[kEcn] != "0", "data packet not ECN-capable");
            if (!firstOpcodeFrom.count(sender))
            {
                firstOpcodeFrom[sender] = op;
                check(f[kDmaLength] == std::to_string(bytes), "RETH DMA length != message");
            }
            else
            {
                check(f[kDmaLength].empty(), "RETH on a packet other than the first");
            }
            lastOpcodeFrom[sender] = op;
        }
        else if (op == "17")
        {
            check(!f[kAethSyndrome].empty(), "ACK without an AETH");
            // Syndrome bits 7-5 are 0 for an ACK (3 for a NAK).
            check(!f[kAethSyndrome].empty() && (std::stoul(f[kAethSyndrome]) >> 5) == 0,
                  "AETH syndrome is not an ACK");
            ackedPsns[f[kIpDst]].insert(std::stoull(f[kPsn]));
        }
        else if (op == "129")
        {
            ++cnpsTo[f[kIpDst]];
        }
        else
        {
            check(false, "unexpected opcode");
        }
    }
    ASSERT_GT(frames, 0U) << ts.Describe();
    for (const auto& [what, fault] : faults)
    {
        ADD_FAILURE() << what << ": " << fault.first << " of " << frames << " frames, first "
                      << fault.second;
    }

    const uint64_t data = byOpcode["6"] + byOpcode["7"] + byOpcode["8"] + byOpcode["10"];
    EXPECT_EQ(data, senders * packets) << "data packets (WRITE first/middle/last/only)";
    EXPECT_GT(byOpcode["17"], 0U) << "no ACKs";
    EXPECT_GT(byOpcode["129"], 0U) << "no CNPs";
    ASSERT_EQ(psnsFrom.size(), senders);
    for (const auto& [sender, psns] : psnsFrom)
    {
        SCOPED_TRACE("sender " + sender);
        // One WRITE in consecutive PSNs (24-bit, wrapping), without retransmission.
        ASSERT_EQ(psns.size(), packets);
        for (size_t i = 1; i < psns.size(); ++i)
        {
            EXPECT_EQ(psns[i], (psns[0] + i) & 0xFFFFFF) << "packet " << i;
        }
        EXPECT_EQ(firstOpcodeFrom[sender], "6");
        EXPECT_EQ(lastOpcodeFrom[sender], "8");
        EXPECT_EQ(qpsFrom[sender].size(), 1U) << "one queue pair per message";
        // Every ACK names a PSN that was sent, and the last packet is ACKed.
        for (uint64_t psn : ackedPsns[sender])
        {
            EXPECT_LT((psn - psns[0]) & 0xFFFFFF, packets) << "ACK of PSN " << psn << " never sent";
        }
        EXPECT_EQ(ackedPsns[sender].count(psns.back()), 1U) << "last packet not ACKed";
        // A CNP answers a CE mark.
        EXPECT_LE(cnpsTo[sender], ceFrom[sender]) << "more CNPs than CE-marked packets";
    }
    std::set<std::string> queuePairs;
    for (const auto& [sender, qps] : qpsFrom)
    {
        queuePairs.insert(qps.begin(), qps.end());
    }
    EXPECT_EQ(queuePairs.size(), senders) << "each sender writes to its own receive queue pair";
    for (const auto& [ip, n] : cnpsTo)
    {
        EXPECT_EQ(psnsFrom.count(ip), 1U) << "CNP to " << ip << ", which sent nothing";
    }
    for (const auto& [ip, psns] : ackedPsns)
    {
        EXPECT_EQ(psnsFrom.count(ip), 1U) << "ACK to " << ip << ", which sent nothing";
    }
}

/// Nanoseconds from tshark's "seconds.fraction" (up to 9 fractional digits).
int64_t
ParseSecondsNs(const std::string& s)
{
    const auto dot = s.find('.');
    const int64_t whole = std::stoll(s.substr(0, dot));
    std::string frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    frac.resize(9, '0');
    return whole * 1000000000 + std::stoll(frac);
}

TEST_F(ExamplesTest, PcapTimestampsResolveBackToBackFramesAt100G)
{
    ASSERT_EQ(access(kTshark, X_OK), 0)
        << kTshark << " not found: install Debian's tshark package to run this test";
    // Two senders keep the receiver's 100 Gb/s link busy: its data frames
    // arrive back to back, one serialization time apart. With microsecond
    // timestamps (the classic pcap format) that gap, under 100 ns, is lost.
    const Outcome run =
        Example("roce-incast",
                {"--senders=2", "--bytes=40960", "--mtu=1024", "--cc=none", "--pcap=nano"});
    ASSERT_EQ(run.exitCode, 0) << run.Describe();
    const fs::path pcap = Path("nano-1-0.pcap");
    ASSERT_TRUE(fs::exists(pcap)) << "no " << pcap;

    // The file header announces nanosecond resolution (magic 0xa1b23c4d).
    std::ifstream in(pcap, std::ios::binary);
    unsigned char magic[4] = {};
    in.read(reinterpret_cast<char*>(magic), 4);
    const uint32_t m = magic[0] | (magic[1] << 8) | (magic[2] << 16) | (uint32_t(magic[3]) << 24);
    EXPECT_EQ(m, 0xa1b23c4dU) << std::hex << "pcap magic 0x" << m;

    const Outcome ts = Shell(std::string(kTshark) + " -n -r " + ShellQuote(pcap.string()) +
                             " -T fields -E separator=, -e frame.time_relative"
                             " -e infiniband.bth.opcode -e frame.len");
    ASSERT_EQ(ts.exitCode, 0) << ts.Describe();
    std::vector<int64_t> dataTimes;
    uint64_t fullFrameLen = 0;
    std::istringstream lines(ts.out);
    std::string line;
    while (std::getline(lines, line))
    {
        const std::vector<std::string> f = Split(line, ',');
        ASSERT_EQ(f.size(), 3U) << line;
        if (f[1] == "7") // RDMA WRITE middle: a full 1024-byte payload
        {
            dataTimes.push_back(ParseSecondsNs(f[0]));
            fullFrameLen = std::stoull(f[2]);
        }
    }
    ASSERT_GT(dataTimes.size(), 20U) << ts.Describe();
    // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + payload 1024 + ICRC 4.
    EXPECT_EQ(fullFrameLen, 1082U);
    // On the wire the frame also takes preamble, SFD, FCS and the inter-frame
    // gap (24 bytes): (1082 + 24) x 8 bits at 100 Gb/s = 88.48 ns.
    const double serializationNs = (1082.0 + 24) * 8 / 100.0;
    int64_t minGap = std::numeric_limits<int64_t>::max();
    for (size_t i = 1; i < dataTimes.size(); ++i)
    {
        const int64_t gap = dataTimes[i] - dataTimes[i - 1];
        ASSERT_GE(gap, 0) << "frames out of order at " << i;
        minGap = std::min(minGap, gap);
    }
    EXPECT_GE(static_cast<double>(minGap), serializationNs - 1.0);
    EXPECT_LE(static_cast<double>(minGap), serializationNs + 1.0);
}

} // namespace

// ------------------------------------------------------------ training jobs

TEST_F(ExamplesTest, TrainingScenarioWritesJobsAndIterations)
{
    const fs::path db = Path("training.db");
    const Outcome o = Example(
        "multi-tenant-fat-tree",
        {"--scenario=" + std::string(CS_SOURCE_DIR) + "/examples/scenarios/two-jobs-fat-tree.json",
         "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    EXPECT_EQ(CompleteRuns(db), 1);
    const int64_t jobs = QueryInt(db, "SELECT count(*) FROM jobs");
    EXPECT_EQ(jobs, 2);
    // One row per iteration of every job, each in the order the model goes
    // through: compute, gradients ready, collective started, collective done.
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM iterations"),
              QueryInt(db, "SELECT sum(iterations) FROM jobs"));
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM iterations WHERE NOT (compute_start_ns <= "
                       "comm_ready_ns AND comm_ready_ns <= comm_start_ns AND comm_start_ns < "
                       "comm_end_ns)"),
              0);
    // Consecutive iterations of a job follow each other.
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM iterations a JOIN iterations b ON a.run_id = "
                       "b.run_id AND a.job_id = b.job_id AND b.iter = a.iter + 1 WHERE "
                       "b.compute_start_ns != a.comm_end_ns"),
              0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM jobs WHERE end_ns IS NULL"), 0);
    // Every flow belongs to a job.
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM flows"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM flows WHERE job_id IS NULL"), 0);
}

TEST_F(ExamplesTest, MultiTenantRunsAreDeterministicPerSeed)
{
    const fs::path db = Path("seeds.db");
    for (const char* seed : {"--seed=3", "--seed=3", "--seed=4"})
    {
        const Outcome o = Example("multi-tenant-fat-tree",
                                  {"--placement=random",
                                   "--jobs=3",
                                   "--workers=3",
                                   "--iterations=2",
                                   seed,
                                   "--db=" + db.string()});
        ASSERT_EQ(o.exitCode, 0) << o.Describe();
    }
    const std::set<std::string> skipRun = {"run_id"};
    auto rows = [&](const std::string& table, int run) {
        return Query(db,
                     "SELECT * FROM " + table + " WHERE run_id = " + std::to_string(run) +
                         " ORDER BY 2, 3",
                     skipRun);
    };
    EXPECT_EQ(rows("jobs", 1), rows("jobs", 2)) << "same seed, same placement";
    EXPECT_EQ(rows("iterations", 1), rows("iterations", 2)) << "same seed, same times";
    EXPECT_EQ(rows("flows", 1), rows("flows", 2));
    EXPECT_NE(Query(db, "SELECT placement_json FROM jobs WHERE run_id = 1 ORDER BY job_id"),
              Query(db, "SELECT placement_json FROM jobs WHERE run_id = 3 ORDER BY job_id"))
        << "another seed places differently";
}

TEST_F(ExamplesTest, CompareRunsEveryPolicyAndPrintsOneTable)
{
    const fs::path db = Path("compare.db");
    const Outcome o = Example(
        "multi-tenant-fat-tree",
        {"--jobs=2", "--workers=4", "--iterations=2", "--compare=all", "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    // One row per policy, fair first and normalized to itself.
    std::map<std::string, std::string> rows;
    std::istringstream lines(o.out);
    for (std::string line; std::getline(lines, line);)
    {
        std::istringstream words(line);
        std::string first;
        words >> first;
        rows[first] = line;
    }
    for (const std::string& p : ns3::CollectiveSchedulerHelper::GetSchedulerNames())
    {
        EXPECT_EQ(rows.count(p), 1u) << p << " missing in:\n" << o.out;
    }
    EXPECT_NE(rows["fair"].find(" 1.00 "), std::string::npos) << rows["fair"];
    EXPECT_NE(rows["isolated"].find(" 1.00"), std::string::npos) << rows["isolated"];
    // Every policy is one complete run, isolated one per job; each run's scheduler rows.
    const int64_t policies =
        static_cast<int64_t>(ns3::CollectiveSchedulerHelper::GetSchedulerNames().size());
    EXPECT_EQ(CompleteRuns(db), policies + 1);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM scheduler_runs"), policies + 1);
    EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT scheduler) FROM runs"), policies);
}

TEST_F(ExamplesTest, InterleavingFigureSamplesTheSharedLinks)
{
    const fs::path db = Path("figure4.db");
    const Outcome o =
        Example("paper-figures", {"--figure=4", "--iterations=2", "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM runs WHERE example='figure4'"), 2);
    EXPECT_EQ(CompleteRuns(db), 2);
    // Both jobs' bytes on one spine uplink, in 20 us samples, adding up to its counter.
    EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT job_id) FROM link_samples WHERE run_id=1"), 2);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM link_samples WHERE t_ns % 20000 <> 0"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT sum(tx_bytes_ab + tx_bytes_ba) FROM links WHERE run_id=1"),
              QueryInt(db, "SELECT sum(tx_bytes) FROM link_samples WHERE run_id=1"));
}

TEST_F(ExamplesTest, SchedulingTimeRowsAndAProvenOptimumBeatsHarmonics)
{
    const fs::path db = Path("figure2.db");
    const Outcome o =
        Example("scheduling-time",
                {"--minRacks=2", "--maxRacks=4", "--timeLimit=30", "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM runs WHERE example='figure2'"), 1);
    EXPECT_EQ(CompleteRuns(db), 1);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM scheduling_bench"), 4); // 2 sizes x 2 planners
    // Harmonics' plan is one of Symphony's feasible plans: never better than a proven optimum.
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM scheduling_bench s JOIN scheduling_bench h ON "
                       "s.racks = h.racks AND s.planner = 'symphony' AND h.planner = "
                       "'harmonics' WHERE s.proven = 1 AND h.objective < s.objective - 1e-6"),
              0);
    EXPECT_GT(QueryInt(db,
                       "SELECT count(*) FROM scheduling_bench WHERE planner='symphony' AND "
                       "proven=1"),
              0);
}

struct BadScenario
{
    const char* name;  ///< test name suffix
    const char* job;   ///< the job object written on line 4
    const char* field; ///< what the error must name
};

void
PrintTo(const BadScenario& p, std::ostream* os)
{
    *os << p.job;
}

class ExamplesBadScenarioTest : public ExamplesTest,
                                public ::testing::WithParamInterface<BadScenario>
{
};

TEST_P(ExamplesBadScenarioTest, FailsNamingFileLineAndField)
{
    const BadScenario& p = GetParam();
    const fs::path scenario = Path("bad.json");
    std::ofstream(scenario) << "{\n"
                               "  \"topology\": {\"kind\": \"fat-tree\", \"fatTree\": {\"k\": 4}, "
                               "\"gpusPerHost\": 1},\n"
                               "  \"jobs\": [\n"
                               "    "
                            << p.job
                            << "\n"
                               "  ]\n"
                               "}\n";
    const fs::path db = Path("bad.db");
    const Outcome o = Example("multi-tenant-fat-tree",
                              {"--scenario=" + scenario.string(), "--db=" + db.string()});
    EXPECT_EQ(o.exitCode, 2) << o.Describe();
    EXPECT_NE(o.err.find(scenario.string() + ":4:"), std::string::npos) << o.Describe();
    EXPECT_NE(o.err.find(p.field), std::string::npos) << o.Describe();
    EXPECT_EQ(CompleteRuns(db), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios,
    ExamplesBadScenarioTest,
    ::testing::Values(
        BadScenario{"UnknownKey", R"({"id": 0, "model": "gpt2-124m", "wrokers": 4})", "wrokers"},
        BadScenario{"UnknownModel", R"({"id": 0, "model": "gpt-7", "workers": 4})", "gpt-7"},
        BadScenario{"TooManyWorkers",
                    R"({"id": 0, "model": "gpt2-124m", "workers": 17})",
                    "never fit"},
        BadScenario{"NegativeArrival",
                    R"({"id": 0, "model": "gpt2-124m", "workers": 2, "arrival": "-1ms"})",
                    "arrival"},
        BadScenario{"WrongType",
                    R"({"id": 0, "model": "gpt2-124m", "workers": "four"})",
                    "workers"}),
    [](const ::testing::TestParamInfo<BadScenario>& info) { return std::string(info.param.name); });
