/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * End-to-end tests of the hpcc-compat example: each runs it as a
 * subprocess in a fresh directory, with files laid out as HPCC's
 * simulation directory has them, and checks what it left behind: exit
 * code, warnings and errors on stderr, fct.txt, pfc.txt and the SQLite
 * results file.
 */
#include "example-process-test-util.h"
#include "hpcc-test-util.h"
#include "temp-dir-test.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace
{

namespace fs = std::filesystem;
using namespace ns3::test;

const std::string kProgram = std::string(CS_BINARY_DIR) + "/hpcc-compat";

/// The white-space separated fields of each non-blank line of \p path.
std::vector<Fields>
ReadLines(const fs::path& path)
{
    std::ifstream in(path);
    return FieldsOfLines(in);
}

// An incast on switch 4: hosts 1-3 write to host 0; a small buffer and no ECN
// make PFC pause the senders.
const char* const kTopology = "5 1 4\n"
                              "4\n"
                              "0 4 100Gbps 0.001ms 0\n"
                              "1 4 100Gbps 0.001ms 0\n"
                              "2 4 100Gbps 0.001ms 0\n"
                              "3 4 100Gbps 0.001ms 0\n";
const char* const kFlows = "3\n"
                           "1 0 3 100 1000000 2.0\n"
                           "2 0 3 100 1000000 2.0\n"
                           "3 0 3 100 1000000 2.000001\n";

class HpccCompatTest : public TempDirTest
{
  protected:
    /// Write \p text to \p name (directories created) in the test's directory.
    fs::path Put(const std::string& name, const std::string& text) const
    {
        const fs::path path = m_dir / name;
        fs::create_directories(path.parent_path());
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    /// Run the example in the test's directory with \p args.
    Outcome Run(const std::vector<std::string>& args)
    {
        return RunCaptured(m_dir, CommandLine(kProgram, args), "run" + std::to_string(m_runs++));
    }

    int m_runs{0};
};

TEST_F(HpccCompatTest, ConfigRunWritesFctPfcAndACompleteRun)
{
    // HPCC's layout: the config in mix/ names files relative to the working directory.
    Put("mix/topology.txt", kTopology);
    Put("mix/flow.txt", kFlows);
    Put("mix/config.txt",
        "ENABLE_QCN 0\n"
        "USE_DYNAMIC_PFC_THRESHOLD 1\n"
        "PACKET_PAYLOAD_SIZE 1000\n"
        "TOPOLOGY_FILE mix/topology.txt\n"
        "FLOW_FILE mix/flow.txt\n"
        "TRACE_FILE mix/trace.txt\n"
        "FCT_OUTPUT_FILE mix/fct.txt\n"
        "PFC_OUTPUT_FILE mix/pfc.txt\n"
        "SIMULATOR_STOP_TIME 3.00\n"
        "CC_MODE 1\n"
        "HAS_WIN 0\n"
        "BUFFER_SIZE 4\n"
        "MY_SETTING 42\n");
    const Outcome o = Run({"--config=mix/config.txt", "--db=results.db"});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();

    // Keys not modelled are named on stderr, with their lines.
    for (const char* part : {"hpcc-compat: warning: mix/config.txt: 3 config keys not modelled",
                             "TRACE_FILE (line 6)",
                             "HAS_WIN (line 11)",
                             "MY_SETTING (line 13): unknown key"})
    {
        EXPECT_NE(o.err.find(part), std::string::npos) << o.Describe() << "missing: " << part;
    }

    const auto fct = ReadLines(m_dir / "mix/fct.txt");
    ASSERT_EQ(fct.size(), 3u);
    std::vector<std::string> sources;
    for (const auto& f : fct)
    {
        ASSERT_EQ(f.size(), 8u);
        EXPECT_EQ(f[1], "0b000001") << "every flow goes to node 0";
        EXPECT_EQ(f[2], "10000") << "each host's first flow";
        EXPECT_EQ(f[4], "1000000");
        EXPECT_GT(std::stoll(f[6]), 0);
        sources.push_back(f[0]);
    }
    std::sort(sources.begin(), sources.end());
    EXPECT_EQ(sources, (std::vector<std::string>{"0b000101", "0b000201", "0b000301"}));
    const auto pfc = ReadLines(m_dir / "mix/pfc.txt");
    ASSERT_FALSE(pfc.empty()) << "a 4 MB buffer without ECN pauses the senders";
    for (const auto& f : pfc)
    {
        ASSERT_EQ(f.size(), 5u);
        EXPECT_EQ(f[2], "0"); // the senders' NICs are paused
        EXPECT_EQ(f[3], "1");
    }

    const fs::path db = m_dir / "results.db";
    ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM runs"), 1);
    const auto run = Query(db, "SELECT example, status, params_json, sim_end_ns FROM runs");
    EXPECT_EQ(run[0][0], "hpcc-compat");
    EXPECT_EQ(run[0][1], "complete");
    EXPECT_NE(run[0][2].value_or("").find("\"unmodelledKeys\":[\"TRACE_FILE\",\"HAS_WIN\","
                                          "\"MY_SETTING\"]"),
              std::string::npos)
        << run[0][2].value_or("");
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM flows WHERE ack_ns IS NOT NULL"), 3);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM links"), 4);
    EXPECT_GT(QueryInt(db, "SELECT sum(pfc_pauses_sent) FROM links"), 0);
    // fct.txt and the database tell the same completion times (ns).
    int64_t fctSum = 0;
    for (const auto& f : fct)
    {
        fctSum += std::stoll(f[6]);
    }
    EXPECT_NEAR(QueryInt(db, "SELECT sum(ack_ns - start_ns) FROM flows"), fctSum, 3);
}

TEST_F(HpccCompatTest, FlagsOverrideTheConfigsFiles)
{
    Put("topo.txt", kTopology);
    Put("flows.txt", "1\n1 0 3 200 5000 2.0\n");
    Put("config.txt", "TOPOLOGY_FILE missing.txt\nFLOW_FILE missing.txt\nCC_MODE 1\n");
    const Outcome o = Run({"--config=config.txt",
                           "--topology=topo.txt",
                           "--flows=flows.txt",
                           "--fctOutput=out-fct.txt",
                           "--pfcOutput=out-pfc.txt"});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    EXPECT_EQ(o.err.find("warning"), std::string::npos) << o.Describe();
    const auto fct = ReadLines(m_dir / "out-fct.txt");
    ASSERT_EQ(fct.size(), 1u);
    EXPECT_EQ(fct[0][3], "200");
    EXPECT_TRUE(fs::exists(m_dir / "out-pfc.txt"));
    EXPECT_FALSE(fs::exists(m_dir / "fct.txt"));

    // Without a config, the two input files are enough.
    const Outcome bare = Run({"--topology=topo.txt", "--flows=flows.txt"});
    ASSERT_EQ(bare.exitCode, 0) << bare.Describe();
    EXPECT_EQ(ReadLines(m_dir / "fct.txt").size(), 1u) << "the simulators' default name";
}

TEST_F(HpccCompatTest, StrictRefusesUnmodelledKeysByName)
{
    Put("topo.txt", kTopology);
    Put("flows.txt", kFlows);
    Put("config.txt", "CC_MODE 3\nTOPOLOGY_FILE topo.txt\nFLOW_FILE flows.txt\nU_TARGET 0.95\n");
    const Outcome o = Run({"--config=config.txt", "--strict", "--db=strict.db"});
    EXPECT_EQ(o.exitCode, 2) << o.Describe();
    for (const char* part :
         {"hpcc-compat: error: config.txt:1: CC_MODE: ", "CC_MODE (line 1)", "U_TARGET (line 4)"})
    {
        EXPECT_NE(o.err.find(part), std::string::npos) << o.Describe() << "missing: " << part;
    }
    EXPECT_FALSE(fs::exists(m_dir / "fct.txt"));
    if (fs::exists(m_dir / "strict.db"))
    {
        EXPECT_EQ(QueryInt(m_dir / "strict.db", "SELECT count(*) FROM runs"), 0);
    }
}

TEST_F(HpccCompatTest, MalformedInputsFailNamingFileAndLine)
{
    struct Case
    {
        const char* topology;
        const char* flows;
        const char* where; ///< what stderr must name after "error: "
    };

    const std::vector<Case> cases = {
        {"5 1 4\n4\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us\n2 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n",
         kFlows,
         "topo.txt:4: link: expected 5 fields"},
        {"5 1 4\n9\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n2 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n",
         kFlows,
         "topo.txt:2: switch id: node id 9 is out of range"},
        {"5 1 4\n4\n0 4 100Gbps 1us 0\n1 7 100Gbps 1us 0\n2 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n",
         kFlows,
         "topo.txt:4: b: node id 7 is out of range"},
        {kTopology, "2\n1 0 3 100 1000 2.0\n2 0 3 100 1000 1.0\n", "flows.txt:3: start_time: "},
        {kTopology, "1\n1 0 3 100 1000 soon\n", "flows.txt:2: start_time: "},
        {kTopology, "1\n1 4 3 100 1000 2.0\n", "flows.txt:2: dst: node 4 is a switch"},
    };
    for (const Case& c : cases)
    {
        Put("topo.txt", c.topology);
        Put("flows.txt", c.flows);
        const Outcome o = Run({"--topology=topo.txt", "--flows=flows.txt", "--db=bad.db"});
        EXPECT_EQ(o.exitCode, 2) << o.Describe();
        EXPECT_NE(o.err.find(std::string("hpcc-compat: error: ") + c.where), std::string::npos)
            << o.Describe() << "missing: " << c.where;
    }
    EXPECT_FALSE(fs::exists(m_dir / "bad.db")) << "no run begins on bad input";

    const Outcome noInput = Run({});
    EXPECT_EQ(noInput.exitCode, 2) << noInput.Describe();
    EXPECT_NE(noInput.err.find("hpcc-compat: error: --config="), std::string::npos)
        << noInput.Describe();
}

TEST_F(HpccCompatTest, RunStoppedBeforeTheFlowsEndIsMarkedFailed)
{
    Put("topo.txt", kTopology);
    Put("flows.txt", kFlows);
    const Outcome o =
        Run({"--topology=topo.txt", "--flows=flows.txt", "--stopTime=2.00001s", "--db=r.db"});
    EXPECT_EQ(o.exitCode, 1) << o.Describe();
    EXPECT_NE(o.err.find("did not complete"), std::string::npos) << o.Describe();
    EXPECT_LT(ReadLines(m_dir / "fct.txt").size(), 3u);
    const auto status = Query(m_dir / "r.db", "SELECT status FROM runs");
    ASSERT_EQ(status.size(), 1u);
    EXPECT_EQ(status[0][0], "failed");
}

} // namespace
