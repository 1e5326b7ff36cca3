/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The programs on hostile values, as a user runs them: each case ends with
 * exit status 2 and an error naming the file, line, key or flag, or with a
 * correct run; never an abort (134), a hang, a wrapped time, an input
 * overwritten or unbounded output.
 */

#include "examples-test-util.h"
#include "hpcc-test-util.h"
#include "temp-dir-test.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

// The HPCC test inputs: one switch, two hosts, one flow.
const char* const kHpccTopology = kOneSwitchTopology;
const char* const kHpccFlows = kOneSwitchFlows;

/// A scenario of one job \p job on a k=4 fat-tree (1 GPU per host) at 1/1000 size.
std::string
Scenario(const std::string& job, const std::string& extra = "")
{
    return R"({"seed": 1, "scale": 0.001,
  "topology": {"kind": "fat-tree", "gpusPerHost": 1, "fatTree": {"k": 4}},
  "jobs": [)" +
           job + "]" + extra + "}\n";
}

class HostileRunsTest : public TempDirTest
{
  protected:
    Outcome Run(const std::string& example, const std::vector<std::string>& args)
    {
        return RunCaptured(m_dir,
                           CommandLine(std::string(CS_BINARY_DIR) + "/" + example, args),
                           "run" + std::to_string(m_runs++));
    }

    /// Expect exit status 2 and every one of \p parts in the error.
    static void ExpectBadInput(const Outcome& o, const std::vector<std::string>& parts)
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

TEST_F(HostileRunsTest, HpccCompatNeverWritesOverItsInputsOrOutputs)
{
    Write("topology.txt", kHpccTopology);
    Write("flow.txt", kHpccFlows);
    for (const auto& [flag, victim] :
         std::vector<std::pair<std::string, std::string>>{{"--fctOutput", "topology.txt"},
                                                          {"--pfcOutput", "flow.txt"},
                                                          {"--db", "topology.txt"}})
    {
        const Outcome o = Run("hpcc-compat",
                              {"--topology=topology.txt", "--flows=flow.txt", flag + "=" + victim});
        ExpectBadInput(o, {victim, "would overwrite"});
        EXPECT_EQ(ReadText(m_dir / "topology.txt"), kHpccTopology) << flag;
        EXPECT_EQ(ReadText(m_dir / "flow.txt"), kHpccFlows) << flag;
    }
    // A monitor over the FCT output, named in the config.
    Write("config.txt",
          "TOPOLOGY_FILE topology.txt\nFLOW_FILE flow.txt\n"
          "FCT_OUTPUT_FILE fct.txt\nBW_MON_FILE fct.txt\n");
    ExpectBadInput(Run("hpcc-compat", {"--config=config.txt"}),
                   {"BW_MON_FILE fct.txt is also the output FCT output fct.txt"});
    EXPECT_FALSE(fs::exists(m_dir / "fct.txt"));
    // Over its own config, through a symbolic link.
    fs::create_symlink(m_dir / "config.txt", m_dir / "link.txt");
    Write("config2.txt", "TOPOLOGY_FILE topology.txt\nFLOW_FILE flow.txt\n");
    ExpectBadInput(Run("hpcc-compat", {"--config=config2.txt", "--fctOutput=config2.txt"}),
                   {"is the input --config config2.txt"});
}

TEST_F(HostileRunsTest, HpccConfigErrorsNameTheFileLineAndKey)
{
    Write("topology.txt", kHpccTopology);
    Write("flow.txt", kHpccFlows);
    Write("timer.txt", "TOPOLOGY_FILE topology.txt\nFLOW_FILE flow.txt\nRP_TIMER 0\n");
    ExpectBadInput(Run("hpcc-compat", {"--config=timer.txt"}), {"timer.txt:3: RP_TIMER:"});
    Write("window.txt",
          "TOPOLOGY_FILE topology.txt\nFLOW_FILE flow.txt\nQLEN_MON_START 2000\n"
          "QLEN_MON_END 1000\nQLEN_MON_FILE q.txt\n");
    ExpectBadInput(Run("hpcc-compat", {"--config=window.txt"}),
                   {"window.txt:4: QLEN_MON_END: 1000 ns is before QLEN_MON_START"});
    // A 1 ns monitor period over an idle fabric (the flow starts at 2 s):
    // stopped at the row budget, ports sampled counting as rows.
    Write("idle.txt",
          "TOPOLOGY_FILE topology.txt\nFLOW_FILE flow.txt\nBW_MON_FILE bw.txt\n"
          "BW_MON_INTERVAL 0.001\n");
    ExpectBadInput(
        Run("hpcc-compat", {"--config=idle.txt", "--ns3::InputLimits::MaxMonitorRows=100000"}),
        {"bw.txt: a monitor sampled every 1 ns", "MaxMonitorRows"});
    // A FIFO blocks whoever opens it: refused by its type, at once.
    ASSERT_EQ(mkfifo((m_dir / "fifo").c_str(), 0600), 0);
    ExpectBadInput(Run("hpcc-compat", {"--config=fifo"}), {"fifo: is a FIFO, not a file"});
}

TEST_F(HostileRunsTest, TimeFlagsAreReadExactly)
{
    for (const std::string flag : {"--ns3::RdmaNic::RetransmitTimeout=1e30s",
                                   "--ns3::RdmaNic::AdpTimeBase=5us",
                                   "--ns3::PortMonitor::Interval=1e20ps"})
    {
        const Outcome o = Run("multi-tenant-fat-tree", {flag});
        ExpectBadInput(o, {flag.substr(0, flag.find('='))});
    }
}

TEST_F(HostileRunsTest, MonitorsStopAtTheirRowBudget)
{
    // A period of 1 ns over a whole run: a clear error at the budget, not
    // hours of sampling or gigabytes of rows.
    const Outcome o = Run("multi-tenant-fat-tree",
                          {"--ns3::PortMonitor::Interval=1ns",
                           "--ns3::InputLimits::MaxMonitorRows=100000",
                           "--db=runs.db"});
    ExpectBadInput(o, {"ns3::PortMonitor", "MaxMonitorRows"});
    EXPECT_EQ(CompleteRuns(m_dir / "runs.db"), 0);
}

TEST_F(HostileRunsTest, AnEmptyDbFlagMeansNoDatabaseOverTheScenarios)
{
    Write("s.json",
          Scenario(R"({"model": "gpt2-124m", "workers": 2, "iterations": 1})",
                   R"(, "output": {"db": "scenario.db"})"));
    const Outcome o = Run("multi-tenant-fat-tree", {"--scenario=s.json", "--db="});
    EXPECT_EQ(o.exitCode, 0) << o.Describe();
    EXPECT_FALSE(fs::exists(m_dir / "scenario.db"));
    // The results database is not a file the scenario reads.
    Write("trace.csv", "arrival,model,workers,iterations\n0,gpt2-124m,2,1\n");
    Write("t.json",
          Scenario(R"({"model": "gpt2-124m", "workers": 2, "iterations": 1})",
                   R"(, "jobTrace": "trace.csv", "output": {"db": "trace.csv"})"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=t.json"}),
                   {"t.json", "output.db", "is the input jobTrace"});
    EXPECT_EQ(ReadText(m_dir / "trace.csv"), "arrival,model,workers,iterations\n0,gpt2-124m,2,1\n");
}

TEST_F(HostileRunsTest, AnLlmJobAtATinyScaleRuns)
{
    // Its collectives shrink to a byte or two over more ranks than bytes:
    // empty chunks send nothing, as in NCCL (it aborted: a 0-byte message).
    Write("s.json", R"({"seed": 1, "scale": 1e-9,
  "topology": {"kind": "rail-optimized", "railOptimized": {"servers": 2, "gpusPerServer": 4}},
  "backend": "packet",
  "jobs": [{"model": "llama-7b", "workers": 8, "iterations": 1,
            "parallelism": {"tp": 4, "dp": 2, "microBatches": 1}}]})");
    const Outcome o = Run("multi-tenant-fat-tree", {"--scenario=s.json"});
    EXPECT_EQ(o.exitCode, 0) << o.Describe();
    // Figure 6's five LLM jobs at the same scale.
    const Outcome f6 =
        Run("paper-figures",
            {"--figure=6", "--scale=1e-9", "--policies=fair", "--db=f6.db", "--progress=0"});
    EXPECT_EQ(f6.exitCode, 0) << f6.Describe();
    // fair, and each of the five jobs alone twice (under ECMP, on its best routes)
    EXPECT_EQ(CompleteRuns(m_dir / "f6.db"), 11);
    // tp larger than a server is refused, naming the key.
    Write("tp.json", R"({"seed": 1, "scale": 1e-6,
  "topology": {"kind": "rail-optimized", "railOptimized": {"servers": 2, "gpusPerServer": 4}},
  "jobs": [{"model": "llama-7b", "workers": 8, "iterations": 1,
            "parallelism": {"tp": 8, "dp": 1, "microBatches": 1}}]})");
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=tp.json"}),
                   {"parallelism.tp: 8 is larger than a server of this cluster (4 GPUs)"});
}

TEST_F(HostileRunsTest, RanksAreRefusedBeforeTheirGraphIsBuilt)
{
    // 9216 ranks on a 16-GPU fabric, with the memory budget raised: the
    // job can never fit, and that is said before gigabytes are taken.
    std::string workload =
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 all_gpus: 9216\n1\n"
        "layer\t-1\t100\tALLREDUCE\t1000\t1\tNONE\t0\t1\tNONE\t0\t100\n";
    Write("moe.txt", workload);
    Write("s.json",
          Scenario(R"({"iterations": 1, "workload": {"format": "simai", "path": "moe.txt"}})",
                   R"(, "attributes": {"ns3::InputLimits::MaxJobMemory": 100000000000})"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=s.json"}),
                   {"9216 workers can never fit"});
    // A workload file that cannot be read is located in the scenario, with
    // or without the job's workers (with them, the file is read later).
    Write(
        "m.json",
        Scenario(
            R"({"workers": 2, "iterations": 1, "workload": {"format": "simai", "path": "missing.txt"}})"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=m.json"}),
                   {"m.json:", "jobs[0]", "missing.txt: cannot open"});
    // A workload that is a FIFO is refused, not waited on.
    ASSERT_EQ(mkfifo((m_dir / "fifo.txt").c_str(), 0600), 0);
    Write("f.json",
          Scenario(R"({"iterations": 1, "workload": {"format": "simai", "path": "fifo.txt"}})"));
    ExpectBadInput(Run("multi-tenant-fat-tree", {"--scenario=f.json"}),
                   {"fifo.txt: is a FIFO, not a file"});
}

} // namespace
