/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Every input reader treats files alike: a UTF-8 byte-order mark is
 * skipped, a directory is an error naming it, JSON nesting is bounded (so
 * that memory stays linear in the file's size), the counts a scenario asks
 * for are checked against the budgets before anything is built, and the
 * results database refuses a file another program made without changing it.
 */

#include "runtime-error-test-util.h"
#include "temp-dir-test.h"

#include "ns3/hpcc-config-reader.h"
#include "ns3/hpcc-flow-reader.h"
#include "ns3/hpcc-topology-reader.h"
#include "ns3/input-limits.h"
#include "ns3/job-trace-reader.h"
#include "ns3/lingjun-topology-reader.h"
#include "ns3/results-database.h"
#include "ns3/scenario-reader.h"
#include "ns3/uinteger.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sstream>
#include <string>

using namespace ns3;
using namespace ns3::test;

namespace
{

const std::string kBom = "\xEF\xBB\xBF";

const char* const kHpccTopology = "3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n";

class InputFilesTest : public TempDirTest
{
};

TEST_F(InputFilesTest, EveryReaderSkipsAByteOrderMark)
{
    const std::string trace = Write("trace.csv",
                                    kBom + "arrival,model,workers,iterations\n"
                                           "0,gpt2-124m,2,1\n");
    EXPECT_EQ(ReadJobTrace(trace, JobSpec{}).size(), 1u);
    const std::string topology = Write("topology.txt", kBom + kHpccTopology);
    EXPECT_EQ(ReadHpccTopology(topology).topology.GetNHosts(), 2u);
    const std::string flows = Write("flow.txt", kBom + "1\n0 1 3 100 10000 2.0\n");
    EXPECT_EQ(ReadHpccFlows(flows, 3).size(), 1u);
    const std::string config = Write("config.txt", kBom + "PACKET_PAYLOAD_SIZE 1000\n");
    EXPECT_EQ(ReadHpccConfig(config).entries.size(), 1u);
    const std::string lingjun = Write("topo.csv",
                                      kBom + "ip,DSW,PSW,ASW\n10.0.0.1,DSW-1,PSW-1,ASW-1\n"
                                             "10.0.0.2,DSW-1,PSW-1,ASW-1\n");
    EXPECT_EQ(ReadLingjunTopology(lingjun, LingjunParams{}).GetNHosts(), 2u);
    const std::string scenario =
        Write("s.json", kBom + R"({"jobs": [{"model": "gpt2-124m", "workers": 2}]})");
    EXPECT_EQ(ReadScenarioFile(scenario).jobs.size(), 1u);
}

TEST_F(InputFilesTest, EveryReaderNamesADirectoryGivenAsAFile)
{
    const std::string dir = (m_dir / "inputs").string();
    std::filesystem::create_directory(dir);
    const std::string expected = dir + ": is a directory, not a file";
    EXPECT_EQ(ErrorOf([&] { ReadJobTrace(dir, JobSpec{}); }), expected);
    EXPECT_EQ(ErrorOf([&] { ReadScenarioFile(dir); }), expected);
    EXPECT_EQ(ErrorOf([&] { ReadHpccTopology(dir); }), expected);
    EXPECT_EQ(ErrorOf([&] { ReadHpccFlows(dir, 3); }), expected);
    EXPECT_EQ(ErrorOf([&] { ReadHpccConfig(dir); }), expected);
    EXPECT_EQ(ErrorOf([&] { ReadLingjunTopology(dir, LingjunParams{}); }), expected);
}

TEST_F(InputFilesTest, JsonNestingIsBoundedAndNamed)
{
    // 200,000 levels in 400 KB: once gigabytes and bad_alloc.
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    const std::string error = ErrorOf([&] { ReadScenarioText(deep, "deep.json"); });
    EXPECT_EQ(error.rfind("deep.json:1: ", 0), 0u) << error;
    EXPECT_NE(error.find("nested deeper than 256 levels"), std::string::npos) << error;
    // 256 levels are read (and then refused for not being an object).
    const std::string ok = std::string(255, '[') + std::string(255, ']');
    EXPECT_EQ(ErrorOf([&] { ReadScenarioText(ok, "ok.json"); }).find("nested"), std::string::npos);
}

TEST_F(InputFilesTest, IntegersWithAnExponentAreReadExactly)
{
    const ScenarioSpec spec =
        ReadScenarioText(R"({"jobs": [{"model": "gpt2-124m", "workers": 2e0, "iterations": 1e1}]})",
                         "s.json");
    EXPECT_EQ(spec.jobs[0].workers, 2u);
    EXPECT_EQ(spec.jobs[0].iterations, 10u);
    EXPECT_NE(ErrorOf([] {
                  ReadScenarioText(R"({"jobs": [{"model": "gpt2-124m", "workers": 2.5}]})",
                                   "s.json");
              }).find("s.json:1: jobs[0].workers: expected an integer"),
              std::string::npos);
}

TEST_F(InputFilesTest, BudgetsRefuseHugeCountsBeforeAllocation)
{
    const std::string k = ErrorOf([] {
        ReadScenarioText(R"({"topology": {"kind": "fat-tree",
  "fatTree": {"k": 1000}}, "jobs": [{"model": "gpt2-124m", "workers": 2}]})",
                         "k.json");
    });
    EXPECT_EQ(k.rfind("k.json:2: topology.fatTree: makes a fabric of about", 0), 0u) << k;
    EXPECT_NE(k.find("MaxFabricElements"), std::string::npos) << k;
    // The same flag cap as fat-tree-permutation's: k = 64 fits.
    ScenarioSpec::Topology t;
    t.Set("k", UintegerValue(64));
    EXPECT_NO_THROW(InputLimits::CheckFabric(InputLimits::FabricElements(t)));

    const std::string jobs = ErrorOf([] {
        ReadScenarioText(R"({"synthetic": {"jobs": 1e8, "arrivalRatePerS": 1,
  "modelMix": {"gpt2-124m": 1}, "workerSizes": {"8": 1}}})",
                         "jobs.json");
    });
    EXPECT_EQ(jobs.rfind("jobs.json:1: synthetic.jobs: 100000000 jobs of up to 8 workers", 0), 0u)
        << jobs;
    EXPECT_NE(jobs.find("MaxJobMemory"), std::string::npos) << jobs;
}

TEST_F(InputFilesTest, ModelMixWeightsThatOverflowAreAnError)
{
    const std::string error = ErrorOf([] {
        ReadScenarioText(R"({"synthetic": {"jobs": 2, "arrivalRatePerS": 1,
  "modelMix": {"gpt2-124m": 1e308, "pythia-1b": 1e308}, "workerSizes": {"2": 1}}})",
                         "mix.json");
    });
    EXPECT_EQ(error.rfind("mix.json:2: synthetic.modelMix: the weights add up", 0), 0u) << error;
}

TEST_F(InputFilesTest, ForeignDatabaseIsRefusedWithoutAChange)
{
    const std::string path = (m_dir / "other.db").string();
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(raw, "CREATE TABLE runs (id INTEGER, name TEXT);", nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(raw);
    std::ifstream before(path, std::ios::binary);
    std::stringstream bytes;
    bytes << before.rdbuf();

    Ptr<ResultsDatabase> db = CreateObject<ResultsDatabase>();
    const std::string error = ErrorOf([&] { db->Open(path); });
    EXPECT_EQ(error,
              "ResultsDatabase '" + path +
                  "': not a results database of this module (its runs table has no column "
                  "run_id, example, scheduler, seed, params_json, status); left unchanged");
    std::ifstream after(path, std::ios::binary);
    std::stringstream bytesAfter;
    bytesAfter << after.rdbuf();
    EXPECT_EQ(bytesAfter.str(), bytes.str());
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

} // namespace
