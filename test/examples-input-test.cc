/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The six example programs given careless or hostile input: every flag with
 * an empty, a non-numeric, a negative and an overflowing value, and the
 * inputs that once aborted, hung, wrapped the clock, misread a number,
 * exhausted memory or blamed the wrong thing. Each is exit status 2 with an
 * error naming the input (or, for a run that cannot end, a run marked
 * failed), never an abort, a crash or a hang.
 */

#include "example-process-test-util.h"
#include "hpcc-test-util.h"
#include "temp-dir-test.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <mutex>
#include <set>
#include <sqlite3.h>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

namespace fs = std::filesystem;

const std::vector<std::string> kExamples{"roce-incast",
                                         "fat-tree-permutation",
                                         "multi-tenant-fat-tree",
                                         "paper-figures",
                                         "hpcc-compat",
                                         "scheduling-time"};

/// The example's program; CS_EXAMPLES_DIR runs those of another build (an older one, to compare).
std::string
Program(const std::string& example)
{
    const char* dir = std::getenv("CS_EXAMPLES_DIR");
    return std::string(dir != nullptr ? dir : CS_BINARY_DIR) + "/" + example;
}

// The HPCC test inputs: one switch, two hosts, one flow.
const char* const kHpccTopology = kOneSwitchTopology;
const char* const kHpccFlows = kOneSwitchFlows;

/// A small training scenario; \p jobs, \p extra (top-level keys) and \p fabric replace parts.
std::string
Scenario(const std::string& jobs,
         const std::string& extra = "",
         const std::string& fabric = R"("mtu": 4096)",
         const std::string& fatTree = R"("k": 4)")
{
    return std::string(R"({
  "seed": 1,
  "scale": 0.001,
  "topology": {"kind": "fat-tree", "gpusPerHost": 1, "fatTree": {)") +
           fatTree + R"(}},
  "fabric": {)" +
           fabric + R"(},
  "jobDefaults": {"model": "gpt2-124m", "workers": 2, "iterations": 1},
  "jobs": )" +
           jobs + extra + "\n}\n";
}

class ExamplesInputTest : public TempDirTest
{
  protected:
    Outcome Run(const std::string& example, const std::vector<std::string>& args)
    {
        return RunCaptured(m_dir,
                           CommandLine(Program(example), args),
                           "run" + std::to_string(m_runs++));
    }

    /// Expect exit status 2 and every one of \p parts in the error.
    void ExpectBadInput(const Outcome& o, const std::vector<std::string>& parts) const
    {
        EXPECT_EQ(o.exitCode, 2) << o.Describe();
        for (const std::string& part : parts)
        {
            EXPECT_NE(o.err.find(part), std::string::npos) << "missing \"" << part << "\"\n"
                                                           << o.Describe();
        }
    }

    int m_runs{0};
};

/// The flags an example lists under "Program Options" in its --help.
std::vector<std::string>
FlagsOf(const fs::path& dir, const std::string& example)
{
    const Outcome help = RunCaptured(dir, CommandLine(Program(example), {"--help"}), example);
    std::vector<std::string> flags;
    std::istringstream in(help.out);
    bool options = false;
    for (std::string line; std::getline(in, line);)
    {
        if (line.rfind("Program Options:", 0) == 0)
        {
            options = true;
        }
        else if (line.rfind("General Arguments:", 0) == 0)
        {
            options = false;
        }
        else if (options && line.rfind("    --", 0) == 0)
        {
            flags.push_back(line.substr(6, line.find(':') - 6));
        }
    }
    return flags;
}

// Every flag of every example, fed four bad values: exit status 2 with the
// flag named (or, for a path, the path), never 0, 1, 134, 139 or a hang.
TEST_F(ExamplesInputTest, EveryFlagRefusesEmptyNonNumericNegativeAndOverflowingValues)
{
    // Flags whose value is any file name or prefix: a value is accepted, so
    // a flag that is surely unknown follows, to end the run before it starts.
    const std::set<std::string> freeForm{"db", "pcap", "fctOutput", "pfcOutput"};
    const std::vector<std::string> values{"", "abc", "-5", "1e999"};
    std::ofstream(m_dir / "topology.txt") << kHpccTopology;
    std::ofstream(m_dir / "flow.txt") << kHpccFlows;

    struct Probe
    {
        std::string example;
        std::string flag;
        std::string value;
        std::vector<std::string> args;
        Outcome outcome;
    };

    std::vector<Probe> probes;
    for (const std::string& example : kExamples)
    {
        const std::vector<std::string> flags = FlagsOf(m_dir, example);
        ASSERT_GE(flags.size(), 5u) << example << ": no flags read from --help";
        for (const std::string& flag : flags)
        {
            for (const std::string& value : values)
            {
                Probe p{example, flag, value, {}, {}};
                if (example == "hpcc-compat")
                {
                    p.args = {"--topology=topology.txt", "--flows=flow.txt"};
                }
                p.args.push_back("--" + flag + "=" + value);
                if (freeForm.count(flag) > 0)
                {
                    p.args.push_back("--surelyNoSuchFlag=1");
                }
                probes.push_back(p);
            }
        }
    }
    // Two at a time: each is a process start and a parse.
    std::mutex mutex;
    size_t next = 0;
    auto worker = [&]() {
        while (true)
        {
            size_t i;
            {
                std::lock_guard<std::mutex> lock(mutex);
                if (next == probes.size())
                {
                    return;
                }
                i = next++;
            }
            probes[i].outcome = RunCaptured(m_dir,
                                            CommandLine(Program(probes[i].example), probes[i].args),
                                            "probe" + std::to_string(i));
        }
    };
    std::thread a(worker);
    std::thread b(worker);
    a.join();
    b.join();

    for (const Probe& p : probes)
    {
        const Outcome& o = p.outcome;
        const std::string what = p.example + " --" + p.flag + "=" + p.value;
        EXPECT_EQ(o.exitCode, 2) << what << "\n" << o.Describe();
        const bool namesFlag = o.err.find("--" + p.flag + "=" + p.value) != std::string::npos;
        const bool namesValue = !p.value.empty() && o.err.find(p.value) != std::string::npos;
        const bool accepted =
            freeForm.count(p.flag) > 0 && o.err.find("--surelyNoSuchFlag") != std::string::npos;
        EXPECT_TRUE(namesFlag || namesValue || accepted) << what << "\n" << o.Describe();
    }
}

// Kind 6: unknown flags, values that do not parse and empty values are bad
// input (2), not "work left undone" (1); --db= is documented "empty: none".
TEST_F(ExamplesInputTest, BadFlagsExitTwoAndAnEmptyDbIsNone)
{
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--nosuch=1"}), {"--nosuch=1", "unknown flag"});
    ExpectBadInput(Run("fat-tree-permutation", {"--pfc=maybe"}), {"--pfc=maybe"});
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scale=nan"}), {"--scale=nan"});
    ExpectBadInput(Run("roce-incast", {"--cc="}), {"--cc=", "needs a value"});
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario="}), {"--scenario="});
    const Outcome o = Run("roce-incast", {"--senders=1", "--bytes=1000", "--db="});
    EXPECT_EQ(o.exitCode, 0) << o.Describe();
    EXPECT_TRUE(fs::is_empty(m_dir) || !fs::exists(m_dir / ".db"));
}

// Kind 4: numbers are read whole and exactly, or refused as given.
TEST_F(ExamplesInputTest, NumbersAreReadExactlyOrRefusedAsGiven)
{
    const Outcome exact = Run("roce-incast", {"--senders=1", "--bytes=1e6", "--db=r.db"});
    ASSERT_EQ(exact.exitCode, 0) << exact.Describe();
    EXPECT_EQ(QueryInt(m_dir / "r.db", "SELECT min(bytes) FROM flows"), 1000000);
    ExpectBadInput(Run("roce-incast", {"--bytes=-5"}), {"--bytes=-5", "negative"});
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--parallel=-1"}), {"--parallel=-1"});
    ExpectBadInput(Run("roce-incast", {"--senders=-3"}), {"--senders=-3"});
    ExpectBadInput(Run("roce-incast", {"--bytes=1e6x"}), {"--bytes=1e6x"});
}

// Kind 1: derived byte counts below one, times past the simulator's range
// and traffic a topology cannot carry are errors naming the input.
TEST_F(ExamplesInputTest, TinyScaleIsAnErrorNamingScaleNotAnAbort)
{
    const Outcome o = Run("multi-tenant-fat-tree", {"--scale=1e-8", "--db=r.db"});
    ExpectBadInput(o, {"job 0: scale: 1e-08 leaves 2 gradient bytes", "at least one byte"});
    // Refused before the run began: no row, none left 'running'.
    EXPECT_FALSE(fs::exists(m_dir / "r.db"));
}

TEST_F(ExamplesInputTest, HpccFlowPastTheSimulatorsRangeNamesTheFlowFile)
{
    Write("topology.txt", kHpccTopology);
    Write("flow.txt", "1\n0 1 3 100 10000 9300000\n");
    ExpectBadInput(Run("hpcc-compat", {"--topology=topology.txt", "--flows=flow.txt"}),
                   {"flow.txt:2", "simulator's range"});
}

TEST_F(ExamplesInputTest, PermutationOnATooSmallTopologyFileIsAnError)
{
    // A Lingjun topology of one host: a permutation needs two.
    Write("topo.csv", "ip,DSW,PSW,ASW\n10.0.0.1,DSW-1,PSW-1,ASW-1\n");
    ExpectBadInput(Run("fat-tree-permutation", {"--lingjun=topo.csv"}), {"topo.csv"});
}

// Kind 2: a scale that makes an iteration longer than the simulator's range
// is refused before anything is built.
TEST_F(ExamplesInputTest, HugeScaleIsRefusedBeforeItCanHang)
{
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scale=1e12"}),
                   {"job 0: scale: ", "more than 10^18"});
}

// Kind 3: times past 2^63 ps are errors naming the input...
TEST_F(ExamplesInputTest, TimesPastTheSimulatorsRangeAreErrorsNamingTheInput)
{
    Write("s.json", Scenario(R"([{"id": 0, "hosts": [0, 1], "arrival": "3000h"}])"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=s.json"}),
                   {"s.json:", "arrival", "simulator's range"});
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--faults=host:1@3000h"}),
                   {"--faults=host:1@3000h", "simulator's range"});
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--linkDelay=3000h"}),
                   {"--linkDelay=3000h", "simulator's range"});
}

// ...except an HPCC or SimAI config's stop time, where it means no limit.
TEST_F(ExamplesInputTest, HpccStopTimeBeyondTheRangeRunsUntilDone)
{
    Write("topology.txt", kHpccTopology);
    Write("flow.txt", kHpccFlows);
    for (const char* stop : {"10000000", "40000000000000.00"})
    {
        Write("config.txt",
              std::string("TOPOLOGY_FILE topology.txt\nFLOW_FILE flow.txt\n"
                          "SIMULATOR_STOP_TIME ") +
                  stop + "\n");
        const Outcome o = Run("hpcc-compat", {"--config=config.txt"});
        EXPECT_EQ(o.exitCode, 0) << stop << "\n" << o.Describe();
        EXPECT_NE(o.err.find("note: config.txt: SIMULATOR_STOP_TIME"), std::string::npos)
            << o.Describe();
        EXPECT_EQ(o.out.find("stop at -"), std::string::npos) << o.Describe();
    }
}

// Kind 5: counts that multiply into memory are checked against a budget first.
TEST_F(ExamplesInputTest, CountsOverTheBudgetAreRefusedBeforeAllocation)
{
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--buckets=10000000"}),
                   {"--buckets=10000000", "MaxJobMemory"});
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--channels=100000"}),
                   {"--channels=100000", "MaxJobMemory"});
    Write("k.json",
          Scenario(R"([{"id": 0, "hosts": [0, 1]}])", "", R"("mtu": 4096)", R"("k": 1000)"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=k.json"}),
                   {"k.json:4: topology.fatTree", "MaxFabricElements"});
    Write("synthetic.json",
          Scenario("[]",
                   R"(,
  "synthetic": {"jobs": 1e8, "arrivalRatePerS": 1, "modelMix": {"gpt2-124m": 1},
                "workerSizes": {"2": 1}})"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=synthetic.json"}),
                   {"synthetic.json:", "synthetic.jobs", "MaxJobMemory"});
}

TEST_F(ExamplesInputTest, DeepJsonNestingIsAnErrorNamingTheFile)
{
    Write("deep.json", std::string(200000, '[') + std::string(200000, ']'));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=deep.json"}),
                   {"deep.json:1:", "nested deeper than"});
}

// Kind 7: a peer that never comes back under a timeout without a retry
// limit ends the run failed once the stated limit passes.
TEST_F(ExamplesInputTest, ARunThatCannotProgressEndsFailed)
{
    Write("s.json",
          Scenario(R"([{"id": 0, "hosts": [0, 1]}])",
                   R"(,
  "stopTime": "0s",
  "faults": [{"host": 1, "down": "0s"}])",
                   R"("rto": "100us")"));
    const Outcome o = Run("multi-tenant-fat-tree", {"--scenario=s.json", "--db=r.db"});
    EXPECT_EQ(o.exitCode, 1) << o.Describe();
    const auto rows = Query(m_dir / "r.db", "SELECT status, error FROM runs");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0][0], "failed");
    ASSERT_TRUE(rows[0][1].has_value());
    EXPECT_NE(rows[0][1]->find("StallTimeouts"), std::string::npos) << *rows[0][1];
}

// Kind 8: weights whose sum overflows are an error, not a mix of one model.
TEST_F(ExamplesInputTest, ModelMixWhoseSumOverflowsIsAnError)
{
    Write("mix.json",
          Scenario("[]",
                   R"(,
  "synthetic": {"jobs": 2, "arrivalRatePerS": 1,
                "modelMix": {"gpt2-124m": 1e308, "pythia-1b": 1e308},
                "workerSizes": {"2": 1}})"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=mix.json"}),
                   {"mix.json:", "synthetic.modelMix", "largest number"});
}

// Kind 9: errors point at the input.
TEST_F(ExamplesInputTest, ErrorsNameTheFileLineAndJob)
{
    Write("hosts.json", Scenario(R"([{"id": 0, "hosts": [0, 99]}])"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=hosts.json"}),
                   {"hosts.json:", "jobs[0]", "host 99 does not exist"});
    Write("hd.json", Scenario(R"([{"id": 7, "workers": 3, "hosts": [0, 1, 2],
            "collective": "halving-doubling-all-reduce"}])"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=hd.json"}),
                   {"hd.json:", "jobs[0]", "job 7", "not a power of two"});
    fs::create_directory(m_dir / "traces");
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--trace=traces"}), {"traces: is a directory"});
}

TEST_F(ExamplesInputTest, ForeignDatabaseIsRefusedUnchanged)
{
    const fs::path path = m_dir / "other.db";
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE runs (id INTEGER, name TEXT);"
                           "INSERT INTO runs VALUES (1, 'theirs');",
                           nullptr,
                           nullptr,
                           nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    const std::string before = ReadText(path);
    const Outcome o = Run("roce-incast", {"--senders=1", "--bytes=1000", "--db=other.db"});
    ExpectBadInput(o, {"other.db", "not a results database"});
    EXPECT_LE(std::count(o.err.begin(), o.err.end(), '\n'), 2) << o.err;
    EXPECT_EQ(ReadText(path), before) << "the file was changed";
    EXPECT_FALSE(fs::exists(m_dir / "other.db-wal"));
}

TEST_F(ExamplesInputTest, CsvTraceWithAByteOrderMarkIsRead)
{
    Write("trace.csv",
          "\xEF\xBB\xBF"
          "arrival,model,workers,iterations\n0,gpt2-124m,2,1\n");
    const Outcome o = Run("multi-tenant-fat-tree", {"--trace=trace.csv", "--scale=0.001"});
    EXPECT_EQ(o.exitCode, 0) << o.Describe();
}

} // namespace
