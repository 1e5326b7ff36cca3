/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * AICB's shipped workload files, unchanged, each run to its end at the
 * flow level: dense and MoE models from 7B to 175B, Megatron and DeepSpeed
 * ZeRO, and AICB's micro-benchmarks (data/workloads/simai). Each file's
 * iteration takes at least its own compute, which SimAI runs serially on a
 * rank: the sum of the compute columns, read here from the file's text
 * (none for a MICRO file, of which SimAI runs one collective).
 */

#include "scenario-run-test.h"

#include "ns3/simai-workload-reader.h"

#include <fstream>
#include <sstream>

namespace ns3
{
namespace test
{
namespace
{

const std::string kSimai = std::string(CS_SOURCE_DIR) + "/data/workloads/simai/";

/// The sum of the compute columns (3, 6, 9) of \p file's rows, in ns.
double
FileComputeNs(const std::string& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line); // the header
    if (line.rfind("MICRO", 0) == 0)
    {
        return 0; // SimAI runs one collective of such a file, no compute
    }
    std::getline(in, line); // the row count
    double ns = 0;
    while (std::getline(in, line))
    {
        std::istringstream fields(line);
        std::vector<std::string> f;
        for (std::string t; fields >> t;)
        {
            f.push_back(t);
        }
        if (f.size() == 12)
        {
            ns += std::stod(f[2]) + std::stod(f[5]) + std::stod(f[8]);
        }
    }
    return ns;
}

class AicbWorkloadsTest : public ScenarioRunTest
{
  protected:
    /// \p file (under data/workloads/simai/) over \p workers GPUs, 8 to a
    /// server, alone at the flow level for one iteration.
    void RunFile(const std::string& file, uint32_t workers)
    {
        const std::string path = kSimai + file;
        const ScenarioSpec spec = ReadScenarioText(
            R"({"topology": {"kind": "star", "gpusPerHost": 8, "star": {"hosts": )" +
                std::to_string(workers / 8) + R"(}},
  "backend": "flow",
  "jobs": [{"workers": )" +
                std::to_string(workers) + R"(, "gpusPerHost": 8, "iterations": 1,
    "workload": {"format": "simai", "path": ")" +
                path + R"("}}]})",
            "aicb.json");
        const RunOutcome o = ScenarioRunner(spec, "test").Run("fair");
        ASSERT_EQ(o.jobs.size(), 1u);
        EXPECT_TRUE(o.jobs[0].done) << file;
        const double computeNs = FileComputeNs(path);
        EXPECT_GE(o.jobs[0].meanIteration.GetNanoSeconds(), computeNs) << file;
        EXPECT_GT(o.jobs[0].meanIteration.GetNanoSeconds(), 0) << file;
        // Finite: at most an hour for one iteration of these files.
        EXPECT_LT(o.jobs[0].meanIteration.GetSeconds(), 3600) << file;
    }
};

TEST_F(AicbWorkloadsTest, Gpt175bMegatronTp8WithAOneByteAllGather)
{
    // Its grad_gather ALLGATHER has 1 byte: over 2 ranks a chunk is 0
    // bytes, which NCCL sends nothing for (it aborted the run).
    RunFile("aicb/G175B-M1-C03_GPT175B_megatron_tp8_pp1_mbs1_A100.txt", 16);
}

TEST_F(AicbWorkloadsTest, Llama65bMegatronTp8WhoseHeaderAnnouncesMoreRows)
{
    // Line 2 says 839 rows; the file has 33, which SimAI runs.
    const SimaiWorkload w =
        ReadSimaiWorkload(kSimai + "aicb/L65B-M1-C05_Llama65B_megatron_tp8_pp1_mbs1_A100.txt", 16);
    EXPECT_EQ(w.layers.size(), 33u);
    ASSERT_EQ(w.warnings.size(), 1u);
    EXPECT_NE(w.warnings[0].find("announces 839 rows, the file has 33"), std::string::npos);
    RunFile("aicb/L65B-M1-C05_Llama65B_megatron_tp8_pp1_mbs1_A100.txt", 16);
}

TEST_F(AicbWorkloadsTest, Gpt13bMegatronTp8)
{
    RunFile("aicb/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt", 16);
}

TEST_F(AicbWorkloadsTest, Gpt13bMegatronTp8SequenceParallel)
{
    RunFile("aicb/G13B-M1-C02_GPT13B_megatron_tp8_pp1_mbs1_sp_A100.txt", 16);
}

TEST_F(AicbWorkloadsTest, Llama7bMegatronTp2)
{
    RunFile("aicb/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt", 16);
}

TEST_F(AicbWorkloadsTest, Llama7bDeepSpeedZero3)
{
    RunFile("aicb/L7B-D1-C02_Llama7B_deepspeed_zero3_A100.txt", 16);
}

TEST_F(AicbWorkloadsTest, MoeTp4Ep4FromSimai)
{
    // SimAI's expert-parallel example: TP4, EP4 over 32 GPUs, all-to-alls
    // within the expert group and across it, and a 0-byte reduce-scatter.
    RunFile("workload_ep_test.txt", 32);
}

TEST_F(AicbWorkloadsTest, MicroBenchmarks)
{
    for (const std::string file : {"aicb/all_reduce.txt",
                                   "aicb/all_gather.txt",
                                   "aicb/all_to_all.txt",
                                   "aicb/muti_all_reduce.txt",
                                   "microAllReduce.txt"})
    {
        RunFile(file, file == "microAllReduce.txt" ? 8 : 16);
    }
}

} // namespace
} // namespace test
} // namespace ns3
