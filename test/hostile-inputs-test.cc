/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Each kind of hostile input is closed where it enters, for every reader and
 * setter at once: files that are not regular files or are over their
 * format's size are refused before the first byte; times are read exactly,
 * in the clock's unit, and checked after everything that multiplies them;
 * byte counts meet one cap; budgets count what is allocated (labels too)
 * and a scenario's own limits; outputs never overwrite inputs; keys that
 * contradict each other are errors. Every error names its input.
 */

#include "runtime-error-test-util.h"
#include "temp-dir-test.h"

#include "ns3/adaptive-retransmission.h"
#include "ns3/chakra-trace-reader.h"
#include "ns3/checked-attributes.h"
#include "ns3/hpcc-config-reader.h"
#include "ns3/hpcc-flow-reader.h"
#include "ns3/hpcc-network-config.h"
#include "ns3/hpcc-topology-reader.h"
#include "ns3/input-file.h"
#include "ns3/input-limits.h"
#include "ns3/job-graph.h"
#include "ns3/job-trace-reader.h"
#include "ns3/lingjun-topology-reader.h"
#include "ns3/model-catalog.h"
#include "ns3/nstime.h"
#include "ns3/output-paths.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/scenario-reader.h"
#include "ns3/simai-workload-reader.h"
#include "ns3/unit-strings.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

namespace fs = std::filesystem;

/// A scenario's attributes, as InputLimits::Scope takes them.
using Attributes = std::vector<std::pair<std::string, std::string>>;

#define EXPECT_CONTAINS(text, part)                                                                \
    EXPECT_NE(std::string(text).find(part), std::string::npos) << "\"" << (text) << "\""

/// One SimAI row: a layer \p name with a forward all-reduce of \p bytes.
std::string
SimaiRow(const std::string& name, const std::string& bytes, const std::string& compute = "100")
{
    return name + "\t-1\t" + compute + "\tALLREDUCE\t" + bytes + "\t1\tNONE\t0\t1\tNONE\t0\t100\n";
}

const std::string kSimaiHeader =
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 2 all_gpus: 4\n";

class HostileInputsTest : public TempDirTest
{
  protected:
    void SetUp() override
    {
        TempDirTest::SetUp();
        RoceUsePicoseconds(); // the clock of every run: 2^63 ps
    }

    /// Every reader of the module, each given \p path.
    std::vector<std::pair<std::string, std::function<void()>>> Readers(const std::string& path)
    {
        return {
            {"scenario", [path] { ReadScenarioFile(path); }},
            {"job trace", [path] { ReadJobTrace(path, JobSpec{}); }},
            {"SimAI workload", [path] { ReadSimaiWorkload(path); }},
            {"SimAI ranks", [path] { ReadSimaiWorkloadRanks(path); }},
            {"HPCC config", [path] { ReadHpccConfig(path); }},
            {"HPCC topology", [path] { ReadHpccTopology(path); }},
            {"HPCC flows", [path] { ReadHpccFlows(path, 3); }},
            {"Lingjun topology", [path] { ReadLingjunTopology(path, LingjunParams{}); }},
            {"Chakra commGroups",
             [this, path] {
                 // A valid one-rank trace, so that only the groups file is read wrong.
                 const std::string prefix = (m_dir / "one").string();
                 std::ofstream(prefix + ".0.et", std::ios::binary);
                 ChakraTraceOptions o;
                 o.commGroups = path;
                 ReadChakraTrace(prefix, o);
             }},
        };
    }
};

TEST_F(HostileInputsTest, AFifoOrADeviceIsRefusedBeforeItIsOpened)
{
    // Opening a FIFO with no writer blocks: a reader that opened it first
    // would hang this test, not fail it.
    const std::string fifo = (m_dir / "fifo").string();
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    for (const auto& [what, read] : Readers(fifo))
    {
        EXPECT_EQ(ErrorOf(read), fifo + ": is a FIFO, not a file") << what;
    }
    for (const auto& [what, read] : Readers("/dev/zero"))
    {
        EXPECT_EQ(ErrorOf(read), "/dev/zero: is a character device, not a file") << what;
    }
    const std::string dir = (m_dir / "dir").string();
    fs::create_directory(dir);
    for (const auto& [what, read] : Readers(dir))
    {
        EXPECT_EQ(ErrorOf(read), dir + ": is a directory, not a file") << what;
    }
}

TEST_F(HostileInputsTest, AFileOverItsFormatsLimitIsRefusedByItsSize)
{
    // Sparse: 2 GB on disk in name only. Every reader refuses it by its
    // size, naming it, before reading (a read would take 2 GB and seconds).
    const std::string big = (m_dir / "big").string();
    {
        std::ofstream(big, std::ios::binary);
    }
    fs::resize_file(big, uint64_t{2} << 30);
    for (const auto& [what, read] : Readers(big))
    {
        const std::string error = ErrorOf(read);
        EXPECT_EQ(error.rfind(big + ": 2147483648 bytes, over the limit of ", 0), 0u)
            << what << ": " << error;
    }
    // A Chakra rank file on disk over its limit (plain, not gzip) too.
    const std::string prefix = (m_dir / "trace").string();
    {
        std::ofstream(prefix + ".0.et", std::ios::binary) << std::string(1000, '\0');
    }
    ChakraTraceOptions o;
    o.maxFileBytes = 100;
    EXPECT_EQ(ErrorOf([&] { ReadChakraTrace(prefix, o); }),
              prefix + ".0.et: 1000 bytes, over the limit of 100 bytes for a Chakra trace file");
    // The limits are the documented ones.
    EXPECT_EQ(InputFileKinds::kScenario.maxBytes, uint64_t{64} << 20);
    EXPECT_EQ(InputFileKinds::kChakraTrace.maxBytes, uint64_t{1} << 30);
    EXPECT_EQ(InputFileKinds::kHpccConfig.maxBytes, uint64_t{1} << 20);
}

TEST_F(HostileInputsTest, AFileWithoutASizeIsReadOnlyUpToItsLimit)
{
    // /proc files report no size, and may be longer than the limit.
    const std::string error = ErrorOf([] {
        ReadInputFile("/proc/self/maps", InputFileKind{"test", 16});
    });
    EXPECT_EQ(error,
              "/proc/self/maps: more than 16 bytes, over the limit of 16 bytes for a "
              "test file");
}

TEST_F(HostileInputsTest, TimeAttributesAreReadExactlyWhateverTheirNotation)
{
    const TypeId nic = RdmaNic::GetTypeId();
    // 1e30 s wraps through a double to a value that passes the range check
    // refusing 10000000s; read exactly, both are refused.
    for (const std::string text : {"1e30s", "1e20ps", "10000000000s", "9223373s"})
    {
        const std::string error =
            ErrorOf([&] { CheckedAttributeValue(nic, "RetransmitTimeout", text, "--x"); });
        EXPECT_EQ(
            error.rfind("--x: invalid value '" + text + "' for ns3::RdmaNic::RetransmitTimeout", 0),
            0u)
            << text << ": " << error;
    }
    // ns-3's notations still read: exponent form, a leading '+', a bare number in seconds.
    TimeValue t;
    t.Set(Seconds(0));
    const auto read = [&](const std::string& text) {
        Ptr<AttributeValue> v = CheckedAttributeValue(nic, "RetransmitTimeout", text, "--x");
        return DynamicCast<TimeValue>(v)->Get();
    };
    EXPECT_EQ(read("1e-3s"), MilliSeconds(1));
    EXPECT_EQ(read("+4000000.0ns"), MilliSeconds(4));
    EXPECT_EQ(read("2"), Seconds(2));
    EXPECT_EQ(read("1500ps"), PicoSeconds(1500));
    // The clock's range, in its unit: 2^63 - 1 ps is the last time.
    EXPECT_EQ(ParseTimePs("9223372036854775807ps"), INT64_MAX);
    EXPECT_NE(ErrorOf([] { ParseTimePs("9223372036854775808ps"); }), "");
}

TEST_F(HostileInputsTest, AnAdaptiveTimeBaseThatIsNotAPowerOfTwoIsRefusedWhereItIsSet)
{
    // It ended the process (134) when the first queue pair started.
    const TypeId nic = RdmaNic::GetTypeId();
    for (const std::string text : {"5us", "12us", "4100ns", "2us"})
    {
        EXPECT_CONTAINS(ErrorOf([&] { CheckedAttributeValue(nic, "AdpTimeBase", text, "--x"); }),
                        "a power of two microseconds");
    }
    EXPECT_EQ(ErrorOf([&] { CheckedAttributeValue(nic, "AdpTimeBase", "8us", "--x"); }), "");
    EXPECT_TRUE(AdaptiveRetransmissionProfile::IsTimeBase(MicroSeconds(4)));
    EXPECT_FALSE(AdaptiveRetransmissionProfile::IsTimeBase(MicroSeconds(6)));
}

TEST_F(HostileInputsTest, TimesAreCheckedAfterEverythingThatMultipliesThem)
{
    // A SimAI compute time within the clock, times a scale past it: the
    // scaled graph is refused naming the op, not run with a negative time.
    JobGraph g(2);
    g.AddCompute({0, 1}, Seconds(100000), {}, 0, "layer fwd");
    const std::string scaled = ErrorOf([&] { g.Scaled(1e6); });
    EXPECT_CONTAINS(scaled, "scale 1000000 makes op 0 (layer fwd) compute for");
    EXPECT_CONTAINS(scaled, kTimeRangeError);
    JobGraph h(2);
    h.AddCollective("ring-all-reduce", {0, 1}, 1000000, 1, CommGroup::Data, {}, 0, "grads");
    EXPECT_CONTAINS(ErrorOf([&] { h.Scaled(1e13); }), "makes op 0 (grads) 1e+19 bytes");
    // Per iteration and per run: 100000 s an iteration fits the clock
    // (106 days), 100 iterations of it do not.
    EXPECT_EQ(ErrorOf([&] { CheckGraphRange(g, 1); }), "");
    EXPECT_CONTAINS(ErrorOf([&] { CheckGraphRange(g, 100); }), "100 iterations compute for");
    // A job whose iteration fits the clock, but not its run of iterations.
    JobSpec dp;
    dp.id = 4;
    dp.model = "gpt2-124m";
    dp.workers = 2;
    dp.computeTimeNs = 1000000000000000; // 10^6 s an iteration
    dp.iterations = 100;
    const std::string run = ErrorOf([&] { ModelCatalog::Graph(dp); });
    EXPECT_EQ(run.rfind("job 4: scale: 100 iterations compute for", 0), 0u) << run;
    dp.iterations = 5;
    EXPECT_EQ(ErrorOf([&] { ModelCatalog::Graph(dp); }), "");
    // An LLM job with a huge sequence length names what multiplies its times.
    JobSpec llm;
    llm.id = 3;
    llm.model = "llama-7b";
    llm.workers = 8;
    llm.gpusPerHost = 8;
    llm.parallelism.tp = 8;
    llm.sequenceLength = 4000000000u;
    llm.iterations = 1000000;
    const std::string error = ErrorOf([&] { ModelCatalog::Graph(llm); });
    EXPECT_EQ(error.rfind("job 3: sequenceLength, gpu, scale: ", 0), 0u) << error;
    EXPECT_EQ(error.find("negative"), std::string::npos) << error;
}

TEST_F(HostileInputsTest, ByteCountsMeetOneCap)
{
    const std::string file =
        Write("w.txt", kSimaiHeader + "1\n" + SimaiRow("layer", "18446744073709551615"));
    const std::string error = ErrorOf([&] { ReadSimaiWorkload(file); });
    EXPECT_EQ(error.rfind(file + ":3: ", 0), 0u) << error;
    EXPECT_CONTAINS(error, "1000000000000000000");
    const std::string ok = Write("ok.txt", kSimaiHeader + "1\n" + SimaiRow("layer", "1000000"));
    EXPECT_EQ(ErrorOf([&] { ReadSimaiWorkload(ok); }), "");
}

TEST_F(HostileInputsTest, LabelsAreStoredOnceAndCounted)
{
    // One row with a 1 MB layer name over 64 ranks: copied into every op
    // it took gigabytes; interned, the graph keeps a few copies.
    const std::string name(1 << 20, 'x');
    const std::string file =
        Write("long.txt",
              "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 1 all_gpus: 64\n1\n" +
                  SimaiRow(name, "1000000"));
    const SimaiWorkload w = ReadSimaiWorkload(file);
    EXPECT_GT(w.graph.GetOps().size(), 64u);
    EXPECT_LT(w.graph.GetNameBytes(), 8u * name.size());
    EXPECT_GE(w.graph.GetNameBytes(), name.size());
    // The ops share the label's one copy.
    const GraphOp& a = w.graph.GetOps().front();
    const GraphOp& b = w.graph.GetOps().back();
    EXPECT_GT(a.name.Get().size(), name.size());
    EXPECT_GT(b.name.Get().size(), name.size());
    uint32_t sharing = 0;
    for (const GraphOp& op : w.graph.GetOps())
    {
        sharing += &op.name.Get() == &a.name.Get() ? 1 : 0;
    }
    EXPECT_GT(sharing, 1u); // one copy, shared by many ops
}

TEST_F(HostileInputsTest, AScenariosOwnLimitsActLikeTheFlags)
{
    // Only the flag worked: the reader checked against the default.
    const std::string synthetic = R"("synthetic": {"jobs": 10, "arrivalRatePerS": 1,
  "modelMix": {"gpt2-124m": 1}, "workerSizes": {"8": 1}})";
    const std::string error = ErrorOf([&] {
        ReadScenarioText("{\"attributes\": {\"ns3::InputLimits::MaxJobMemory\": 1000},\n" +
                             synthetic + "}",
                         "s.json");
    });
    EXPECT_CONTAINS(error, "s.json:2: synthetic.jobs: 10 jobs of up to 8 workers");
    EXPECT_CONTAINS(error, "MaxJobMemory");
    EXPECT_EQ(ReadScenarioText("{" + synthetic + "}", "s.json").synthetic.jobs, 10u);
    {
        const InputLimits::Scope limits(Attributes{{"ns3::InputLimits::MaxJobMemory", "1000"}});
        EXPECT_CONTAINS(ErrorOf([] { InputLimits::CheckJobs(2000); }), "limit of 0 MB");
    }
    // Restored when the scope ends.
    EXPECT_EQ(ErrorOf([] { InputLimits::CheckJobs(2000); }), "");
    EXPECT_CONTAINS(ErrorOf([] {
                        InputLimits::Scope s(Attributes{{"ns3::InputLimits::MaxJobMemory", "-1"}});
                    }),
                    "-1");
    EXPECT_CONTAINS(ErrorOf([] {
                        InputLimits::Scope s(Attributes{{"ns3::InputLimits::Nothing", "1"}});
                    }),
                    "no attribute 'Nothing'");
    EXPECT_CONTAINS(ErrorOf([] {
                        ReadScenarioText(
                            R"({"attributes": {"ns3::InputLimits::MaxJobMemory": "x"}})",
                            "s.json");
                    }),
                    "s.json:1: attributes");
}

TEST_F(HostileInputsTest, RanksAreCheckedAgainstTheFabricBeforeAnyGraphIsBuilt)
{
    // The header alone gives the ranks: 9216 of them on one row, which a
    // graph would take gigabytes for.
    const std::string file =
        Write("moe.txt",
              "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 all_gpus: 9216\n1\n" +
                  SimaiRow("layer", "1000000"));
    EXPECT_EQ(ReadSimaiWorkloadRanks(file), 9216u);
    EXPECT_CONTAINS(ErrorOf([] { ReadSimaiWorkloadRanks("/nonexistent/w.txt"); }),
                    "/nonexistent/w.txt");
}

TEST_F(HostileInputsTest, OutputsNeverOverwriteInputs)
{
    const std::string input = Write("topology.txt", "3 1 2\n");
    const std::string link = (m_dir / "link.txt").string();
    fs::create_symlink(input, link);
    const std::string hard = (m_dir / "hard.txt").string();
    fs::create_hard_link(input, hard);
    const std::string dotted = (m_dir / "sub" / ".." / "topology.txt").string();
    fs::create_directory(m_dir / "sub");
    for (const std::string& out : {input, link, hard, dotted})
    {
        const std::string error = ErrorOf([&] {
            RequireDistinctOutputs({{"topology", input}}, {{"--fct", out}});
        });
        EXPECT_EQ(error,
                  "--fct " + out + " is the input topology " + input +
                      ": the run would overwrite it")
            << out;
    }
    // Two outputs on one file, one of them not there yet.
    const std::string fresh = (m_dir / "out.txt").string();
    EXPECT_CONTAINS(ErrorOf([&] {
                        RequireDistinctOutputs({}, {{"--fct", fresh}, {"QLEN_MON_FILE", fresh}});
                    }),
                    "QLEN_MON_FILE " + fresh + " is also the output --fct");
    EXPECT_EQ(ErrorOf([&] {
                  RequireDistinctOutputs({{"topology", input}, {"flows", ""}},
                                         {{"--fct", fresh}, {"--db", ""}});
              }),
              "");
}

TEST_F(HostileInputsTest, ContradictoryKeysAreErrorsNamingBoth)
{
    const std::string error = ErrorOf([] {
        ReadScenarioText(R"({"fabric": {"rto": "4ms",
  "retransmission": "adaptive"}})",
                         "s.json");
    });
    EXPECT_EQ(error.rfind("s.json:2: fabric.retransmission: contradicts fabric.rto (line 1)", 0),
              0u)
        << error;
    const std::string config = Write("config.txt", "QLEN_MON_START 2000\nQLEN_MON_END 1000\n");
    EXPECT_EQ(ErrorOf([&] { HpccNetworkConfig(config, false); }),
              config + ":2: QLEN_MON_END: 1000 ns is before QLEN_MON_START (2000 ns, line 1): "
                       "the monitor's window is empty");
    // A timer of 0 is named by its file, line and key, not by the attribute it sets.
    const std::string timer = Write("timer.txt", "CC_MODE 1\nRP_TIMER 0\n");
    EXPECT_EQ(ErrorOf([&] { HpccNetworkConfig(timer, false); }),
              timer + ":2: RP_TIMER: must be above 0: the period of a DCQCN timer");
}

TEST_F(HostileInputsTest, ASimaiRowCountThatDisagreesIsReadAsSimaiReadsIt)
{
    // LLaMA-65B's file upstream announces 839 rows and has 33.
    const std::string file =
        Write("count.txt", kSimaiHeader + "839\n" + SimaiRow("a", "1000") + SimaiRow("b", "1000"));
    const SimaiWorkload w = ReadSimaiWorkload(file);
    EXPECT_EQ(w.layers.size(), 2u);
    ASSERT_EQ(w.warnings.size(), 1u);
    EXPECT_EQ(w.warnings[0],
              file + ":2: layers: announces 839 rows, the file has 2; the rows "
                     "present are read, as SimAI reads them");
    const std::string fewer =
        Write("fewer.txt", kSimaiHeader + "1\n" + SimaiRow("a", "1000") + SimaiRow("b", "1000"));
    EXPECT_EQ(ReadSimaiWorkload(fewer).layers.size(), 2u);
    const std::string none = Write("none.txt", kSimaiHeader + "3\n");
    EXPECT_CONTAINS(ErrorOf([&] { ReadSimaiWorkload(none); }),
                    none + ":2: layers: announces 3 rows, the file has none");
}

TEST_F(HostileInputsTest, FuzzedValuesAreNamedNotAborted)
{
    // A long string cut inside a UTF-8 character for an error message made
    // the JSON library throw a type error, which ended the process.
    const std::string text = std::string(36, 'a') + "\xC3\xA9" + std::string(20, 'b');
    EXPECT_CONTAINS(ErrorOf([&] { ReadScenarioText("{\"jobs\": \"" + text + "\"}", "s.json"); }),
                    "s.json:1: jobs: expected an array");
    EXPECT_CONTAINS(ErrorOf([&] { ReadScenarioText("{\"jobs\": \"\xFF\xFE\"}", "s.json"); }),
                    "s.json:1: jobs");
    // A number past a double is worded by the reader, not the JSON library.
    const std::string overflow = ErrorOf([] { ReadScenarioText("{\"seed\": 5e5689}", "s.json"); });
    EXPECT_EQ(overflow.rfind("s.json:1: ", 0), 0u) << overflow;
    EXPECT_CONTAINS(overflow, "number overflow parsing '5e5689'");
    EXPECT_EQ(overflow.find("json.exception"), std::string::npos) << overflow;
    // A layout's GPUs wrapped in 32 bits (65536 x 65536 x 2 = 0), and the
    // error blamed workers, which the file does not give.
    const std::string wrap = ErrorOf([] {
        ReadScenarioText(R"({"jobs": [{"model": "llama-7b",
  "parallelism": {"tp": 65536, "pp": 65536, "dp": 2}}]})",
                         "s.json");
    });
    EXPECT_CONTAINS(wrap,
                    "s.json:2: jobs[0].parallelism: tp x pp x dp = 8589934592 GPUs, more "
                    "than a job can have");
    // A layout the graph cannot build is named as the layout's field, not
    // as a range of the fields that scale times.
    JobSpec moe;
    moe.model = "mixtral-8x7b";
    moe.workers = 8;
    moe.gpusPerHost = 8;
    moe.parallelism.dp = 8;
    moe.parallelism.zero = 3;
    EXPECT_CONTAINS(ErrorOf([&] { ModelCatalog::Validate(moe); }),
                    "parallelism.zero: stage 3 with a mixture of experts is not modelled");
}

} // namespace
