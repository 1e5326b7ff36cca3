/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * End-to-end tests of the example programs: each test runs roce-incast or
 * fat-tree-permutation as a subprocess in a fresh temporary directory and
 * checks what it left behind (exit code, stderr, the SQLite results file,
 * pcaps are read back with tshark in examples-pcap-test) against
 * expectations computed here.
 */
#include "examples-test-util.h"

#include "ns3/collective-scheduler-helper.h"
#include "ns3/rail-optimized-topology.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace ns3::test;
namespace fs = std::filesystem;

namespace
{

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
    // A distributed engine named for one process is the ordinary one, so one
    // command line serves any number of ranks (this ns-3 has no such engine).
    const Outcome oneNullMessage =
        Shell("env OMPI_COMM_WORLD_SIZE=1 " +
              CommandLine(kBinaryDir + "/fat-tree-permutation",
                          {"--k=4",
                           "--bytes=10000",
                           "--SimulatorImplementationType=ns3::NullMessageSimulatorImpl"}));
    EXPECT_EQ(oneNullMessage.exitCode, 0) << oneNullMessage.Describe();
    EXPECT_NE(oneNullMessage.out.find("(1 process)"), std::string::npos)
        << oneNullMessage.Describe();
    // An engine that is not a distributed one cannot run on several ranks.
    const Outcome realtime =
        Shell("env OMPI_COMM_WORLD_SIZE=2 " +
              CommandLine(kBinaryDir + "/fat-tree-permutation",
                          {"--k=4", "--SimulatorImplementationType=ns3::RealtimeSimulatorImpl"}));
    EXPECT_EQ(realtime.exitCode, 2) << realtime.Describe();
    EXPECT_NE(realtime.err.find("ns3::RealtimeSimulatorImpl cannot run on several MPI ranks"),
              std::string::npos)
        << realtime.Describe();
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

TEST_F(ExamplesTest, FigureFabricErrorListsEveryFabric)
{
    const Outcome o =
        Example("paper-figures", {"--fabric=rails", "--db=" + Path("bad.db").string()});
    EXPECT_EQ(o.exitCode, 2) << o.Describe();
    EXPECT_NE(o.err.find("must be all, both, fat-tree, oversubscribed or rail"), std::string::npos)
        << o.Describe();
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
        BadFlag{"IncastSenderCcUnknown", "roce-incast", "--senderCc=dcqcn,reno"},
        BadFlag{"IncastSenderCcEmptyEntry", "roce-incast", "--senderCc=dcqcn,,dcqcn"},
        BadFlag{"TrainingOddK", "multi-tenant-fat-tree", "--k=5"},
        BadFlag{"TrainingScale", "multi-tenant-fat-tree", "--scale=0"},
        BadFlag{"TrainingCc", "multi-tenant-fat-tree", "--cc=cubic"},
        BadFlag{"TrainingScheduler", "multi-tenant-fat-tree", "--scheduler=fifo"},
        BadFlag{"TrainingCompare", "multi-tenant-fat-tree", "--compare=fair,fifo"},
        BadFlag{"FiguresUnknown", "paper-figures", "--figure=2"},
        BadFlag{"FiguresMtu", "paper-figures", "--mtu=9001"},
        BadFlag{"FiguresFabric", "paper-figures", "--fabric=torus"},
        BadFlag{"FiguresFabricRails", "paper-figures", "--fabric=rails"},
        BadFlag{"FiguresPolicies", "paper-figures", "--policies=fair,bogus"},
        BadFlag{"FiguresScale", "paper-figures", "--scale=0"},
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

/// The rates roce-incast prints per sender, by sender (1-based), Gb/s.
std::map<uint32_t, double>
IncastSenderRates(const std::string& out)
{
    std::map<uint32_t, double> rates;
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line))
    {
        uint32_t sender = 0;
        double gbps = 0;
        if (std::sscanf(line.c_str(), "  sender %u: %lf Gb/s", &sender, &gbps) == 2)
        {
            rates[sender] = gbps;
        }
    }
    return rates;
}

TEST_F(ExamplesTest, IncastSenderCcGivesEachSenderItsOwnCongestionControl)
{
    const std::vector<std::string> common{"--senders=2", "--bytes=20000000"};
    auto run = [&](const std::vector<std::string>& extra) {
        std::vector<std::string> args = common;
        args.insert(args.end(), extra.begin(), extra.end());
        const Outcome o = Example("roce-incast", args);
        EXPECT_EQ(o.exitCode, 0) << o.Describe();
        return std::make_pair(o, IncastSenderRates(o.out));
    };
    // The fabric's own congestion control named per sender changes nothing.
    const auto [plain, plainRates] = run({});
    const auto [same, sameRates] = run({"--senderCc=dcqcn"});
    ASSERT_EQ(plainRates.size(), 2u) << plain.Describe();
    EXPECT_EQ(sameRates, plainRates);
    // A sender without congestion control ignores the marks that slow the
    // DCQCN sender, so it takes more of the port; together they fill at most
    // the receiver's link (100 Gb/s, the default).
    const auto [mixed, mixedRates] = run({"--senderCc=none,dcqcn"});
    ASSERT_EQ(mixedRates.size(), 2u) << mixed.Describe();
    EXPECT_GT(mixedRates.at(1), mixedRates.at(2) * 1.2) << mixed.out;
    EXPECT_LE(mixedRates.at(1) + mixedRates.at(2), 100.0) << mixed.out;
    // The list repeats over the senders.
    const auto [repeated, repeatedRates] = run({"--senderCc=none,dcqcn", "--senders=4"});
    ASSERT_EQ(repeatedRates.size(), 4u) << repeated.Describe();
    EXPECT_GT(repeatedRates.at(3), repeatedRates.at(4) * 1.2) << repeated.out;
}

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
    // Every policy is one complete run, isolated two per job (alone under ECMP and on its best
    // routes); each run's scheduler rows.
    const int64_t policies =
        static_cast<int64_t>(ns3::CollectiveSchedulerHelper::GetSchedulerNames().size());
    EXPECT_EQ(CompleteRuns(db), policies + 3);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM scheduler_runs"), policies + 3);
    EXPECT_NE(o.out.find("isolated: per job the faster of its runs alone"), std::string::npos)
        << o.out;
    EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT scheduler) FROM runs"), policies);
}

TEST_F(ExamplesTest, InterleavingFigureSamplesTheSharedLinks)
{
    const fs::path db = Path("figure4.db");
    const Outcome o =
        Example("paper-figures",
                {"--figure=4", "--iterations=2", "--scale=0.05", "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    // fair, harmonics, symphony and optimal
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM runs WHERE example='figure4'"), 4);
    EXPECT_EQ(CompleteRuns(db), 4);
    // Both jobs' bytes on one spine uplink, in 100 us samples, adding up to its counter.
    EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT job_id) FROM link_samples WHERE run_id=1"), 2);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM link_samples WHERE t_ns % 100000 <> 0"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT sum(tx_bytes_ab + tx_bytes_ba) FROM links WHERE run_id=1"),
              QueryInt(db,
                       "SELECT sum(tx_bytes) FROM link_samples WHERE run_id=1 AND "
                       "kind='fabric'"));
}

TEST_F(ExamplesTest, ModelMixFigureGivesBothHarmonicsTiersWorkOnEveryFabric)
{
    const fs::path db = Path("figure1.db");
    const Outcome o = Example("paper-figures",
                              {"--figure=1",
                               "--policies=harmonics",
                               "--scale=0.002",
                               "--iterations=2",
                               "--progress=0",
                               "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    // The default, --fabric=all: the fat-tree, the 2:1 leaf-spine and the rail-optimized fabric.
    for (const std::string example :
         {"figure1", "figure1-oversubscribed", "figure1-rail-optimized"})
    {
        SCOPED_TRACE(example);
        const std::string harmonics =
            "(SELECT run_id FROM runs WHERE example='" + example + "' AND scheduler='harmonics')";
        // Racks are hosts 2r and 2r+1 on the fat-tree and the leaf-spine; on
        // the rail-optimized fabric hosts are NICs, 8 to a server, and a rail
        // group of two servers is a rack. A job is rack-local if its hosts
        // are in one rack.
        const int64_t perRack = example == "figure1-rail-optimized" ? 16 : 2;
        std::map<int, std::set<int64_t>> racks;
        for (const Row& r :
             Query(db, "SELECT job_id, placement_json FROM jobs WHERE run_id=" + harmonics))
        {
            const nlohmann::json placement = nlohmann::json::parse(*r[1]);
            for (int64_t h : placement.at("hosts"))
            {
                racks[std::stoi(*r[0])].insert(h / perRack);
            }
        }
        ASSERT_EQ(racks.size(), 8u);
        std::set<std::string> tiersSeen;
        int plans = 0;
        for (const Row& r : Query(db,
                                  "SELECT detail_json FROM scheduler_decisions WHERE run_id=" +
                                      harmonics + " AND detail_json LIKE '%\"tiers\"%'"))
        {
            ++plans;
            const nlohmann::json plan = nlohmann::json::parse(*r[0]);
            for (const auto& [job, tier] : plan.at("tiers").items())
            {
                const std::set<int64_t>& jobRacks = racks.at(std::stoi(job));
                const std::string name = tier["tier"];
                tiersSeen.insert(name);
                if (jobRacks.size() == 1)
                {
                    EXPECT_EQ(name, "local") << "job " << job;
                    EXPECT_EQ(tier.value("rack", int64_t{-1}), *jobRacks.begin()) << "job " << job;
                }
                else
                {
                    EXPECT_EQ(name, "coordinator") << "job " << job;
                }
            }
        }
        EXPECT_GT(plans, 0);
        EXPECT_EQ(tiersSeen, (std::set<std::string>{"coordinator", "local"}));
        // fair, isolated (two runs per job) and harmonics, all complete.
        EXPECT_EQ(QueryInt(db,
                           "SELECT count(*) FROM runs WHERE status='complete' AND example='" +
                               example + "'"),
                  18);
    }
}

TEST_F(ExamplesTest, RailFigureRingsStayOnTheirRails)
{
    const fs::path db = Path("figure1-rails.db");
    const Outcome o = Example("paper-figures",
                              {"--figure=1",
                               "--fabric=rail",
                               "--policies=fair",
                               "--scale=0.002",
                               "--iterations=1",
                               "--progress=0",
                               "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    // The figure's fabric, built here: 16 servers of 8 GPUs, rail groups of two servers,
    // two spines. Each NIC's rail and group are read from its leaf's name "rail-<group>-<rail>".
    ns3::RailOptimizedParams p;
    p.servers = 16;
    p.gpusPerServer = 8;
    p.serversPerGroup = 2;
    p.spines = 2;
    const ns3::FabricTopology topo = ns3::MakeRailOptimized(p);
    ASSERT_EQ(topo.GetNHosts(), 128u);
    ASSERT_EQ(topo.GetNSwitches(), 64u + 2u);
    auto leafOf = [&topo](uint32_t node) {
        return topo.GetPeer(node, topo.AdjacentLinks(node).at(0));
    };
    auto groupRail = [&topo](uint32_t leaf) {
        const std::vector<std::string> parts = Split(topo.GetNode(leaf).name, '-');
        EXPECT_EQ(parts.size(), 3u) << topo.GetNode(leaf).name;
        return std::make_pair(std::stoi(parts.at(1)), std::stoi(parts.at(2)));
    };

    const std::string runs = "SELECT run_id FROM runs WHERE example='figure1-rail-optimized'";
    // fair and the isolated runs, two per job, all complete.
    ASSERT_EQ(QueryInt(db,
                       "SELECT count(*) FROM (" + runs +
                           ") JOIN runs USING (run_id) WHERE "
                           "status='complete'"),
              17);
    // Every run's links are this topology's.
    for (const Row& r : Query(db, runs))
    {
        const auto links = Query(db,
                                 "SELECT link_id, node_a, node_b FROM links WHERE run_id=" + *r[0] +
                                     " ORDER BY link_id");
        ASSERT_EQ(links.size(), topo.GetNLinks()) << "run " << *r[0];
        for (const Row& l : links)
        {
            const ns3::FabricLink& link = topo.GetLink(std::stoul(*l[0]));
            ASSERT_EQ(std::stoul(*l[1]), link.a) << "link " << *l[0];
            ASSERT_EQ(std::stoul(*l[2]), link.b) << "link " << *l[0];
        }
    }

    // Per job, from its ring (placement order): every hop between servers joins two NICs of one
    // rail; the rail leaves its hops between groups go through a spine from or to.
    std::map<int64_t, std::set<std::pair<int, int>>> spineLeaves;
    for (const Row& r : Query(db,
                              "SELECT job_id, placement_json FROM jobs WHERE run_id=(SELECT "
                              "run_id FROM runs WHERE example='figure1-rail-optimized' AND "
                              "scheduler='fair') ORDER BY job_id"))
    {
        const int64_t job = std::stoll(*r[0]);
        const auto ring = nlohmann::json::parse(*r[1]).at("hosts").get<std::vector<uint32_t>>();
        ASSERT_EQ(ring.size(), job < 4 ? 8u : 16u) << "job " << job;
        std::map<int32_t, uint32_t> perServer;
        uint32_t betweenServers = 0;
        uint32_t betweenGroups = 0;
        for (std::size_t i = 0; i < ring.size(); ++i)
        {
            const uint32_t a = topo.GetHosts().at(ring[i]);
            const uint32_t b = topo.GetHosts().at(ring[(i + 1) % ring.size()]);
            ++perServer[topo.GetNode(a).server];
            if (topo.GetNode(a).server == topo.GetNode(b).server)
            {
                continue; // NVLink
            }
            ++betweenServers;
            const auto [groupA, railA] = groupRail(leafOf(a));
            const auto [groupB, railB] = groupRail(leafOf(b));
            EXPECT_EQ(railA, railB)
                << "job " << job << ": " << topo.GetNode(a).name << " -> " << topo.GetNode(b).name;
            if (groupA != groupB)
            {
                ++betweenGroups;
                spineLeaves[job].insert({groupA, railA});
                spineLeaves[job].insert({groupB, railB});
            }
        }
        // 4 GPUs on each of 2 or 4 servers, the ring entering and leaving each server once.
        for (const auto& [server, gpus] : perServer)
        {
            EXPECT_EQ(gpus, 4u) << "job " << job << ", server " << server;
        }
        EXPECT_EQ(betweenServers, perServer.size()) << "job " << job;
        // Jobs 0-3 stay inside one rail group, 4-7 cross groups.
        EXPECT_EQ(betweenGroups > 0, job >= 4) << "job " << job;
    }
    ASSERT_EQ(spineLeaves.size(), 4u);

    // The routes taken: each job alone (its isolated runs, under ECMP and on its best routes:
    // another spine, never another leaf) sends over a spine only from and to
    // the rail leaves of its hops between groups, each of which does use a spine; the jobs of
    // one group never reach a spine.
    auto leafSpineBytes = [&](const std::string& run) {
        std::map<std::pair<int, int>, int64_t> bytes;
        for (const Row& l :
             Query(db, "SELECT link_id, tx_bytes_ab + tx_bytes_ba FROM links WHERE run_id=" + run))
        {
            const ns3::FabricLink& link = topo.GetLink(std::stoul(*l[0]));
            if (!topo.IsHost(link.a) && std::stoll(*l[1]) > 0)
            {
                bytes[groupRail(link.a)] += std::stoll(*l[1]); // the rail leaf is end a
            }
        }
        return bytes;
    };
    for (const Row& r : Query(db,
                              "SELECT run_id, job_id FROM runs JOIN jobs USING (run_id) WHERE "
                              "example='figure1-rail-optimized' AND scheduler='isolated'"))
    {
        const int64_t job = std::stoll(*r[1]);
        std::set<std::pair<int, int>> used;
        for (const auto& [leaf, bytes] : leafSpineBytes(*r[0]))
        {
            used.insert(leaf);
        }
        EXPECT_EQ(used, spineLeaves[job]) << "job " << job;
    }
    std::set<std::pair<int, int>> all;
    for (const auto& [job, leaves] : spineLeaves)
    {
        all.insert(leaves.begin(), leaves.end());
    }
    std::set<std::pair<int, int>> usedByFair;
    for (const auto& [leaf, bytes] :
         leafSpineBytes(std::to_string(QueryInt(db,
                                                "SELECT run_id FROM runs WHERE "
                                                "example='figure1-rail-optimized' AND "
                                                "scheduler='fair'"))))
    {
        usedByFair.insert(leaf);
    }
    EXPECT_EQ(usedByFair, all);
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
