/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The SimAI / AICB workload reader against the real files it was written
// for (data/workloads/simai/, from github.com/aliyun/SimAI and aliyun/aicb): the
// bytes each group carries and the compute time per rank are sums taken
// here straight from the files' columns (doc/workloads-simai.md says how
// each column maps), and every malformed input is an error naming its line
// and field.

#include "ns3/simai-workload-reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const std::string kData = std::string(CS_SOURCE_DIR) + "/data/workloads/simai/";

/// The rows of a workload file, each split at white space (lines 3 on).
std::vector<std::vector<std::string>>
Rows(const std::string& path)
{
    std::ifstream in(path);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
    {
        std::istringstream fields(line);
        std::vector<std::string> row;
        for (std::string f; fields >> f;)
        {
            row.push_back(f);
        }
        if (n > 2 && !row.empty())
        {
            rows.push_back(row);
        }
    }
    return rows;
}

/// What one iteration should carry, summed from the columns by the documented mapping.
struct Expected
{
    std::map<CommGroup, uint64_t> bytes;
    int64_t computeNs{0}; ///< every compute column, and the update time after each collective
};

/**
 * Columns 4, 7, 10 (1-based) are the forward, input-gradient and
 * weight-gradient collectives, each followed by its size. No suffix: the
 * tensor-parallel group (tp ranks) in the first two, the data-parallel
 * group (dp ranks) in the third; _EP: ep ranks; _DP_EP: dp / ep ranks, of
 * the data group. A group of g ranks has ranks / g instances, each carrying
 * the size. NONE, BROADCAST, size 0 and groups of one rank send nothing.
 */
Expected
Sum(const std::string& path, uint32_t ranks, uint32_t tp, uint32_t ep = 1, uint32_t pp = 1)
{
    const uint32_t dp = ranks / tp / pp;
    Expected e;
    for (const std::vector<std::string>& row : Rows(path))
    {
        EXPECT_EQ(row.size(), 12u) << path;
        e.computeNs += std::stoll(row[2]) + std::stoll(row[5]) + std::stoll(row[8]);
        for (int phase = 0; phase < 3; ++phase)
        {
            const std::string type = row[3 + 3 * phase];
            const uint64_t size = std::stoull(row[4 + 3 * phase]);
            if (type == "NONE" || type == "BROADCAST" || size == 0)
            {
                continue;
            }
            uint32_t groupSize = phase < 2 ? tp : dp;
            CommGroup group = phase < 2 ? CommGroup::Tensor : CommGroup::Data;
            if (type.size() > 6 && type.substr(type.size() - 6) == "_DP_EP")
            {
                groupSize = dp / ep;
                group = CommGroup::Data;
            }
            else if (type.size() > 3 && type.substr(type.size() - 3) == "_EP")
            {
                groupSize = ep;
                group = CommGroup::Expert;
            }
            if (groupSize < 2)
            {
                continue;
            }
            e.bytes[group] += size * (ranks / groupSize);
            e.computeNs += std::stoll(row[11]); // every rank is in one instance
        }
    }
    return e;
}

void
ExpectSums(const SimaiWorkload& w, const Expected& e, const std::string& what)
{
    for (CommGroup g : {CommGroup::Tensor, CommGroup::Data, CommGroup::Expert, CommGroup::Pipeline})
    {
        const auto it = e.bytes.find(g);
        EXPECT_EQ(w.graph.GetBytes(g), it == e.bytes.end() ? 0 : it->second)
            << what << ", group " << CommGroupName(g);
    }
    EXPECT_EQ(w.graph.GetComputeTimePerRank(), NanoSeconds(e.computeNs)) << what;
}

/// The message of the error reading \p text (ranks \p ranks), or "" if it reads.
std::string
ErrorOf(const std::string& text, uint32_t ranks = 8)
{
    try
    {
        ReadSimaiWorkloadText(text, "bad.txt", ranks);
    }
    catch (const std::runtime_error& e)
    {
        return e.what();
    }
    return "";
}

const std::string kHeader = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2\n";
const std::string kRow = "layer -1 100 ALLREDUCE 64 200 ALLREDUCE 64 300 ALLREDUCE 128 10\n";

TEST(SimaiWorkloadReaderTest, AicbModelFilesCarryTheirColumnsSums)
{
    struct Case
    {
        std::string file;
        uint32_t ranks;
        uint32_t tp;
    };

    // No all_gpus in these headers: each runs on two or more replicas.
    for (const Case& c : {Case{"aicb/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt", 16, 8},
                          Case{"aicb/G13B-M1-C02_GPT13B_megatron_tp8_pp1_mbs1_sp_A100.txt", 16, 8},
                          Case{"aicb/L7B-D1-C02_Llama7B_deepspeed_zero3_A100.txt", 8, 1},
                          Case{"aicb/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt", 8, 2},
                          Case{"aicb/muti_all_reduce.txt", 16, 8},
                          Case{"microAllReduce.txt", 8, 8}})
    {
        const std::string path = kData + c.file;
        const SimaiWorkload w = ReadSimaiWorkload(path, c.ranks);
        EXPECT_EQ(w.tp, c.tp) << c.file;
        EXPECT_EQ(w.ranks, c.ranks) << c.file;
        EXPECT_EQ(w.layers.size(), Rows(path).size()) << c.file;
        const Expected e = Sum(path, c.ranks, c.tp);
        ExpectSums(w, e, c.file);
    }
}

TEST(SimaiWorkloadReaderTest, AicbModelFilesByHand)
{
    // The same sums, by awk over the files (doc/workloads-simai.md):
    // bytes x instances per group, and compute columns plus 100 ns per
    // collective a rank takes part in.
    struct Case
    {
        std::string file;
        uint32_t ranks;
        uint64_t tensor;
        uint64_t data;
        int64_t computeNs;
        uint64_t broadcast; ///< the "norm" row's BROADCAST, which SimAI skips
    };

    for (const Case& c : {
             Case{"aicb/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt",
                  16,
                  20444659744ULL,
                  51977912320ULL,
                  208196033 + 173 * 100,
                  16384},
             Case{"aicb/G13B-M1-C02_GPT13B_megatron_tp8_pp1_mbs1_sp_A100.txt",
                  16,
                  27155546144ULL,
                  51977912320ULL,
                  363836033 + 333 * 100,
                  16384},
             // tp = 1: the zero-3 all-gathers of its input-gradient column
             // name the tensor-parallel group, which has one rank here.
             Case{"aicb/L7B-D1-C02_Llama7B_deepspeed_zero3_A100.txt",
                  8,
                  0,
                  1889785610ULL,
                  322662512 + 1 * 100,
                  0},
             Case{"aicb/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt",
                  8,
                  63812239424ULL,
                  27019706368ULL,
                  104618147 + 141 * 100,
                  16384},
         })
    {
        const SimaiWorkload w = ReadSimaiWorkload(kData + c.file, c.ranks);
        EXPECT_EQ(w.graph.GetBytes(CommGroup::Tensor), c.tensor) << c.file;
        EXPECT_EQ(w.graph.GetBytes(CommGroup::Data), c.data) << c.file;
        EXPECT_EQ(w.graph.GetBytes(CommGroup::Expert), 0u) << c.file;
        EXPECT_EQ(w.graph.GetComputeTimePerRank(), NanoSeconds(c.computeNs)) << c.file;
        EXPECT_EQ(w.broadcastBytes, c.broadcast) << c.file;
    }
}

TEST(SimaiWorkloadReaderTest, MicroAllReduceGraphInSimaiOrder)
{
    // all_gpus: 8 and model_parallel_NPU_group: 8: one tensor-parallel
    // group, two rows whose forward all-reduce blocks, update time 1 ns.
    const SimaiWorkload w = ReadSimaiWorkload(kData + "microAllReduce.txt");
    EXPECT_EQ(w.policy, "HYBRID_TRANSFORMER_FWD_IN_BCKWD");
    EXPECT_EQ(w.ranks, 8u);
    EXPECT_EQ(w.allGpus, 8u);
    EXPECT_EQ(w.dp, 1u);
    EXPECT_EQ(w.vpp, 8u);
    EXPECT_EQ(w.ga, 1u);
    ASSERT_EQ(w.layers.size(), 2u);
    EXPECT_EQ(w.layers[1].forward.bytes, 67108864u);
    EXPECT_EQ(w.layers[1].line, 4u);
    const std::vector<GraphOp>& ops = w.graph.GetOps();
    ASSERT_EQ(ops.size(), 10u);
    const std::vector<uint32_t> all = {0, 1, 2, 3, 4, 5, 6, 7};
    // Forward: compute, all-reduce, update delay, for each row.
    for (uint32_t row = 0; row < 2; ++row)
    {
        const GraphOp& compute = ops[3 * row];
        const GraphOp& reduce = ops[3 * row + 1];
        const GraphOp& update = ops[3 * row + 2];
        EXPECT_EQ(compute.kind, GraphOp::Kind::Compute);
        EXPECT_EQ(compute.duration, NanoSeconds(556000));
        EXPECT_EQ(compute.ranks, all);
        EXPECT_EQ(reduce.kind, GraphOp::Kind::Collective);
        EXPECT_EQ(reduce.algorithm, "ring-all-reduce");
        EXPECT_EQ(reduce.group, CommGroup::Tensor);
        EXPECT_EQ(reduce.bytes, row == 0 ? 16777216u : 67108864u);
        EXPECT_EQ(reduce.deps, std::vector<uint32_t>{3 * row});
        EXPECT_FALSE(reduce.planned);
        EXPECT_EQ(update.duration, NanoSeconds(1));
        EXPECT_EQ(update.deps, std::vector<uint32_t>{3 * row + 1});
    }
    EXPECT_EQ(ops[3].deps, std::vector<uint32_t>{2}); // the next row waits for the collective
    // Backward from the last row: input gradient, weight gradient (1 ns each, no collective).
    for (uint32_t i = 6; i < 10; ++i)
    {
        EXPECT_EQ(ops[i].kind, GraphOp::Kind::Compute);
        EXPECT_EQ(ops[i].duration, NanoSeconds(1));
        EXPECT_EQ(ops[i].deps, std::vector<uint32_t>{i - 1});
    }
    EXPECT_NE(ops[6].name.Get().find("embedding_layer[1] ig"), std::string::npos) << ops[6].name;
    EXPECT_NE(ops[9].name.Get().find("embedding_layer[0] wg"), std::string::npos) << ops[9].name;
    EXPECT_EQ(w.graph.GetPlannedOpCount(), 0u);
}

TEST(SimaiWorkloadReaderTest, RanksGivenOverrideAllGpus)
{
    // As SimAI's packet backend, which takes the GPU count from its topology.
    const SimaiWorkload w = ReadSimaiWorkload(kData + "microAllReduce.txt", 16);
    EXPECT_EQ(w.ranks, 16u);
    EXPECT_EQ(w.dp, 2u);
    EXPECT_EQ(w.graph.GetRankCount(), 16u);
    EXPECT_EQ(w.graph.GetBytes(CommGroup::Tensor), 2u * (16777216u + 67108864u));
}

TEST(SimaiWorkloadReaderTest, GroupsAreSimaiMockNcclGroups)
{
    // tp 2, 8 ranks, ep 2: SimAI's MockNcclGroup builds TP {0,1} {2,3} ...,
    // DP {0,2,4,6} {1,3,5,7}, EP from ep consecutive TP groups {0,2} {1,3}
    // {4,6} {5,7}, DP_EP from TP groups ep apart {0,4} {1,5} {2,6} {3,7}.
    const std::string text = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 "
                             "all_gpus: 8\n4\n"
                             "a -1 1 ALLREDUCE 10 0 NONE 0 0 ALLREDUCE 20 0\n"
                             "b -1 1 ALLTOALL_EP 30 0 NONE 0 0 NONE 0 0\n"
                             "c -1 1 NONE 0 0 NONE 0 0 REDUCESCATTER_DP_EP 40 0\n"
                             "d -1 1 NONE 0 0 ALLGATHER_EP 50 0 ALLREDUCE_EP 60 0\n";
    const SimaiWorkload w = ReadSimaiWorkloadText(text, "groups.txt");
    std::map<std::string, std::set<std::vector<uint32_t>>> groups;
    std::map<std::string, std::set<CommGroup>> kinds;
    for (const GraphOp& op : w.graph.GetOps())
    {
        if (op.kind == GraphOp::Kind::Collective)
        {
            const std::string key =
                op.name.Get().substr(op.name.Get().rfind(' ') + 1) + "/" + std::to_string(op.bytes);
            groups[key].insert(op.ranks);
            kinds[key].insert(op.group);
        }
    }
    using G = std::set<std::vector<uint32_t>>;
    EXPECT_EQ(groups["ALLREDUCE/10"], (G{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
    EXPECT_EQ(groups["ALLREDUCE/20"], (G{{0, 2, 4, 6}, {1, 3, 5, 7}}));
    EXPECT_EQ(groups["ALLTOALL_EP/30"], (G{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
    EXPECT_EQ(groups["REDUCESCATTER_DP_EP/40"], (G{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
    EXPECT_EQ(groups["ALLGATHER_EP/50"], (G{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
    EXPECT_EQ(groups["ALLREDUCE_EP/60"], (G{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
    EXPECT_EQ(kinds["ALLREDUCE/10"], std::set<CommGroup>{CommGroup::Tensor});
    EXPECT_EQ(kinds["ALLREDUCE/20"], std::set<CommGroup>{CommGroup::Data});
    EXPECT_EQ(kinds["ALLTOALL_EP/30"], std::set<CommGroup>{CommGroup::Expert});
    EXPECT_EQ(kinds["REDUCESCATTER_DP_EP/40"], std::set<CommGroup>{CommGroup::Data});
    EXPECT_EQ(kinds["ALLREDUCE_EP/60"], std::set<CommGroup>{CommGroup::Expert});
    // Planned: the data-parallel and expert-data-parallel weight gradients.
    EXPECT_EQ(w.graph.GetPlannedOpCount(), 2u + 4u);
    ExpectSums(w,
               Expected{{{CommGroup::Tensor, 10 * 4},
                         {CommGroup::Data, 20 * 2 + 40 * 4},
                         {CommGroup::Expert, (30 + 50 + 60) * 4}},
                        4},
               "groups");
}

TEST(SimaiWorkloadReaderTest, PipelineStagesSplitTheDataGroups)
{
    // rank = t + tp x (p + pp x d): with tp 2, pp 2, 16 ranks (dp 4) the
    // data-parallel group of rank 0 is 0, 4, 8, 12 (SimAI's stride tp x pp);
    // expert groups stay inside a stage.
    const std::string text = "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 pp: 2 ep: 2 "
                             "pp_comm: 2097152.0 all_gpus: 16\n2\n"
                             "a -1 5 ALLTOALL_EP 8 0 NONE 0 0 ALLREDUCE 20 0\n"
                             "b -1 5 NONE 0 0 NONE 0 0 ALLGATHER_DP_EP 40 0\n";
    const SimaiWorkload w = ReadSimaiWorkloadText(text, "pp.txt");
    EXPECT_EQ(w.dp, 4u);
    EXPECT_EQ(w.ppComm, 2097152u);
    std::map<uint64_t, std::set<std::vector<uint32_t>>> groups;
    for (const GraphOp& op : w.graph.GetOps())
    {
        if (op.kind == GraphOp::Kind::Collective)
        {
            groups[op.bytes].insert(op.ranks);
        }
        EXPECT_NE(op.kind, GraphOp::Kind::Transfer); // SimAI's packet backend sends no pp_comm
    }
    using G = std::set<std::vector<uint32_t>>;
    EXPECT_EQ(groups[20], (G{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}));
    EXPECT_EQ(groups[8], (G{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
    EXPECT_EQ(groups[40],
              (G{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}));
    ExpectSums(w,
               Expected{{{CommGroup::Expert, 8 * 8}, {CommGroup::Data, 20 * 4 + 40 * 8}}, 10},
               "pp");
}

TEST(SimaiWorkloadReaderTest, WeightGradientsOverlapAndQueuePerRank)
{
    // Two rows, forward/input-gradient collectives on the tensor group and
    // weight gradients on the data group (tp 2, 8 ranks: dp 4).
    const SimaiWorkload w = ReadSimaiWorkloadText(kHeader + "2\n" + kRow + kRow, "wg.txt", 8);
    const std::vector<GraphOp>& ops = w.graph.GetOps();
    std::vector<uint32_t> weightGradients;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (ops[i].kind == GraphOp::Kind::Collective && ops[i].group == CommGroup::Data)
        {
            weightGradients.push_back(i);
            EXPECT_TRUE(ops[i].planned);
            EXPECT_EQ(ops[i].ranks.size(), 4u);
        }
    }
    ASSERT_EQ(weightGradients.size(), 4u); // 2 rows x 2 data groups
    // No later op waits for a weight gradient but the next one of the same
    // ranks and its update delay: the backward goes on.
    for (uint32_t wg : weightGradients)
    {
        for (uint32_t i = wg + 1; i < ops.size(); ++i)
        {
            const bool waits =
                std::find(ops[i].deps.begin(), ops[i].deps.end(), wg) != ops[i].deps.end();
            if (waits)
            {
                EXPECT_TRUE(ops[i].group == CommGroup::Data ||
                            (ops[i].kind == GraphOp::Kind::Compute &&
                             ops[i].name.Get().find("update") != std::string::npos))
                    << ops[i].name;
            }
        }
    }
    // The second row's weight gradients (the first in backward order) come
    // before the first row's, which wait for them on the same ranks.
    const GraphOp& later = ops[weightGradients[2]];
    const bool queued =
        std::find(later.deps.begin(), later.deps.end(), weightGradients[0]) != later.deps.end() ||
        std::find(later.deps.begin(), later.deps.end(), weightGradients[1]) != later.deps.end();
    EXPECT_TRUE(queued);
    // Forward and input-gradient collectives block: a later compute waits.
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (ops[i].group != CommGroup::Tensor)
        {
            continue;
        }
        bool waited = false;
        for (uint32_t j = i + 1; j < ops.size() && !waited; ++j)
        {
            waited = ops[j].kind == GraphOp::Kind::Compute &&
                     std::find(ops[j].deps.begin(), ops[j].deps.end(), i) != ops[j].deps.end();
        }
        EXPECT_TRUE(waited) << ops[i].name;
    }
    ExpectSums(w,
               Expected{{{CommGroup::Tensor, 2 * (64 + 64) * 4}, {CommGroup::Data, 2 * 128 * 2}},
                        2 * (600 + 30)},
               "wg");
}

TEST(SimaiWorkloadReaderTest, SettingsChooseAlgorithmAndChannels)
{
    SimaiGraphSettings s;
    s.allReduce = "halving-doubling-all-reduce";
    s.channels = 4;
    const SimaiWorkload w = ReadSimaiWorkloadText(kHeader + "1\n" + kRow, "s.txt", 4, s);
    uint32_t collectives = 0;
    for (const GraphOp& op : w.graph.GetOps())
    {
        if (op.kind == GraphOp::Kind::Collective)
        {
            ++collectives;
            EXPECT_EQ(op.algorithm, "halving-doubling-all-reduce");
            EXPECT_EQ(op.channels, 4u);
        }
    }
    EXPECT_EQ(collectives, 2u + 2u + 2u);
}

TEST(SimaiWorkloadReaderTest, ShardsFollowTheAllReducesFamily)
{
    // A reduce-scatter and an all-gather run as the all-reduce's family
    // does: NCCL's, two-level or the flat ring; an all-to-all as itself.
    const std::string rows =
        "2\n"
        "a\t-1\t1\tALLGATHER\t64\t1\tREDUCESCATTER\t64\t1\tALLREDUCE\t64\t100\n"
        "b\t-1\t1\tALLTOALL\t64\t1\tNONE\t0\t1\tNONE\t0\t100\n";
    for (const auto& [allReduce, prefix] :
         {std::pair<std::string, std::string>{"nccl-all-reduce", "nccl-"},
          {"hierarchical-all-reduce", "hierarchical-"},
          {"ring-all-reduce", ""}})
    {
        SimaiGraphSettings s;
        s.allReduce = allReduce;
        const SimaiWorkload w = ReadSimaiWorkloadText(kHeader + rows, "s.txt", 4, s);
        std::set<std::string> algorithms;
        for (const GraphOp& op : w.graph.GetOps())
        {
            if (op.kind == GraphOp::Kind::Collective)
            {
                algorithms.insert(op.algorithm);
            }
        }
        EXPECT_EQ(algorithms,
                  (std::set<std::string>{allReduce,
                                         prefix + "all-gather",
                                         prefix + "reduce-scatter",
                                         "all-to-all"}))
            << allReduce;
    }
}

TEST(SimaiWorkloadReaderTest, NothingToSendIsNoOp)
{
    // NONE with a size (AICB writes some), BROADCAST, 0 bytes, and a group
    // of one rank (ep 1) send nothing; a zero compute time is no op either.
    const std::string text = kHeader + "1\n" + "x -1 0 BROADCAST 99 0 NONE 77 0 ALLTOALL_EP 5 0\n";
    const SimaiWorkload w = ReadSimaiWorkloadText(text, "none.txt", 4);
    EXPECT_EQ(w.graph.GetOps().size(), 0u);
    EXPECT_EQ(w.broadcastBytes, 99u);
    EXPECT_EQ(w.layers[0].inputGradient.bytes, 77u);
    const SimaiWorkload zero =
        ReadSimaiWorkloadText(kHeader + "1\nx -1 5 ALLREDUCE 0 0 NONE 0 0 NONE 0 7\n", "z.txt", 4);
    EXPECT_EQ(zero.graph.GetCommOpCount(), 0u);
    EXPECT_EQ(zero.graph.GetComputeTimePerRank(), NanoSeconds(5));
}

TEST(SimaiWorkloadReaderTest, ByteOrderMarkCrlfBlankLinesAndCheckpoints)
{
    const std::string text =
        "\xEF\xBB\xBFHYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 2 checkpoints: 2 "
        "0 1 checkpoint_initiates: 1 1 pp_comm 0 vpp: 3 ga: 2\r\n2\r\n\r\n" +
        std::string("a\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tNONE\t0\t100\r\n") + "\n" +
        "b -1 1 NONE 0 1 NONE 0 1 NONE 0 100";
    const SimaiWorkload w = ReadSimaiWorkloadText(text, "ok.txt", 2);
    EXPECT_EQ(w.layers.size(), 2u);
    EXPECT_EQ(w.layers[1].line, 6u);
    EXPECT_EQ(w.checkpoints, (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(w.checkpointInitiates, std::vector<uint32_t>{1});
    EXPECT_EQ(w.vpp, 3u);
    EXPECT_EQ(w.ga, 2u);
    EXPECT_EQ(w.graph.GetComputeTimePerRank(), NanoSeconds(6));
}

TEST(SimaiWorkloadReaderTest, RejectsWhatSimaiDoesNotRunNamingLineAndField)
{
    const std::string two = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ";

    struct Case
    {
        std::string text;
        std::string expected; ///< the start of the message
        std::string also;     ///< more of it
        uint32_t ranks;
    };

    const std::string max = std::to_string(INT64_MAX / 1000);
    const std::vector<Case> cases = {
        {"", "bad.txt:1: policy: missing", "", 8},
        {"\n", "bad.txt:1: policy: missing", "", 8},
        {"MICRO model_parallel_NPU_group: 2\n1\n" + kRow,
         "bad.txt:1: policy: MICRO takes no header fields",
         "",
         8},
        {"HYBRID_DLRM model_parallel_NPU_group: 2\n1\n" + kRow,
         "bad.txt:1: policy: HYBRID_DLRM is not read",
         "",
         8},
        {"TRANSFORMER\n", "bad.txt:1: policy: expected HYBRID_TRANSFORMER_FWD_IN_BCKWD", "", 8},
        {two + "foo: 1\n1\n" + kRow, "bad.txt:1: foo: unknown header field", "", 8},
        {two + "ep:\n1\n" + kRow, "bad.txt:1: ep: missing value", "", 8},
        {two + "pp: 1 pp: 1\n1\n" + kRow, "bad.txt:1: pp: given twice", "", 8},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD ep: 1\n1\n" + kRow,
         "bad.txt:1: model_parallel_NPU_group: missing",
         "",
         8},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: two\n1\n" + kRow,
         "bad.txt:1: model_parallel_NPU_group: expected an integer",
         "got \"two\"",
         8},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: -2\n1\n" + kRow,
         "bad.txt:1: model_parallel_NPU_group: must not be negative",
         "",
         8},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 0\n1\n" + kRow,
         "bad.txt:1: model_parallel_NPU_group: must be an integer from 1",
         "",
         8},
        {two + "all_gpus: 99999999999\n1\n" + kRow,
         "bad.txt:1: all_gpus: must be an integer from 1 to 4294967295",
         "",
         0},
        {two + "pp_comm: 1e30\n1\n" + kRow, "bad.txt:1: pp_comm: too large", "", 8},
        {two + "checkpoints: 3 0 1\n1\n" + kRow,
         "bad.txt:1: checkpoints: announces 3 layers, the header lists 2",
         "",
         8},
        {two + "checkpoint_initiates: 1 5\n1\n" + kRow,
         "bad.txt:1: checkpoint_initiates: layer 5 of a file of 1 rows",
         "",
         8},
        {two + "\n", "bad.txt:2: layers: missing", "", 8},
        {two, "bad.txt:2: layers: missing", "", 8},
        {two + "\nx\n", "bad.txt:2: layers: expected an integer", "", 8},
        {two + "\n0\n", "bad.txt:2: layers: must be an integer from 1", "", 8},
        {two + "\n2 3\n" + kRow, "bad.txt:2: layers: expected the number of rows alone", "", 8},
        {two + "\n1\nlayer -1 100 ALLREDUCE 64 200 ALLREDUCE 64 300 ALLREDUCE 128\n",
         "bad.txt:3: wg_update_time: missing: the row has 11 of 12 fields",
         "",
         8},
        {two + "\n1\nlayer -1 100 ALLREDUCE\n",
         "bad.txt:3: fwd_comm_size: missing: the row has 4 of 12 fields",
         "",
         8},
        {two + "\n1\nlayer -1 100 ALLREDUCE 64 200 ALLREDUCE 64 300 ALLREDUCE 128 10 11\n",
         "bad.txt:3: row: 13 fields, expected 12",
         "",
         8},
        {two + "\n1\nlayer x 100 ALLREDUCE 64 200 ALLREDUCE 64 300 ALLREDUCE 128 10\n",
         "bad.txt:3: reserved: expected an integer",
         "",
         8},
        {two + "\n1\nlayer -1 100 ALLREDUCE_TP 64 200 NONE 0 300 NONE 0 10\n",
         "bad.txt:3: fwd_comm_type: unknown collective \"ALLREDUCE_TP\"",
         "_DP_EP",
         8},
        {two + "\n1\nlayer -1 100 NONE 0 200 ALLREDUCEALLTOALL 64 300 NONE 0 10\n",
         "bad.txt:3: ig_comm_type: unknown collective",
         "all-reduce on no group",
         8},
        {two + "\n1\nlayer -1 100 NONE 0 200 NONE 0 300 allreduce 8 10\n",
         "bad.txt:3: wg_comm_type: unknown collective \"allreduce\"",
         "",
         8},
        {two + "\n1\nlayer -1 100 NONE 0 -5 NONE 0 300 NONE 0 10\n",
         "bad.txt:3: ig_compute_time: must not be negative",
         "",
         8},
        {two + "\n1\nlayer -1 1.5 NONE 0 5 NONE 0 300 NONE 0 10\n",
         "bad.txt:3: fwd_compute_time: expected a whole number",
         "",
         8},
        {two + "\n1\nlayer -1 100 NONE 0 5 NONE 0 300 REDUCESCATTER 18446744073709551616 10\n",
         "bad.txt:3: wg_comm_size: too large",
         "",
         8},
        {two + "\n1\nlayer -1 100 NONE 12abc 5 NONE 0 300 NONE 0 10\n",
         "bad.txt:3: fwd_comm_size: expected an integer",
         "",
         8},
        {two + "\n1\nlayer -1 100 NONE 0 5 NONE 0 300 NONE 0 1e16\n",
         "bad.txt:3: wg_update_time: must be an integer from 0 to " + max,
         "",
         8},
        {two + "\n2\nlayer -1 " + max +
             " NONE 0 0 NONE 0 0 NONE 0 0\nlayer -1 1 NONE 0 0 NONE 0 0 NONE 0 0\n",
         "bad.txt:4: fwd_compute_time: the file's times add up to more than " + max,
         "",
         8},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 all_gpus: 12\n1\n" + kRow,
         "bad.txt:1: model_parallel_NPU_group: 12 ranks (all_gpus) are not a multiple of "
         "model_parallel_NPU_group x pp = 8",
         "",
         0},
        {two + "pp: 2\n1\n" + kRow,
         "bad.txt:1: model_parallel_NPU_group: 6 ranks are not a multiple",
         "x pp = 4",
         6},
        {two + "ep: 3\n1\n" + kRow,
         "bad.txt:1: ep: dp = 16 ranks / (model_parallel_NPU_group x pp) = 8",
         "not a multiple of ep = 3",
         16},
        {two + "\n1\n" + kRow, "bad.txt:1: all_gpus: missing, and no rank count given", "", 0},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 all_gpus: 4000000000\n1\n" +
             kRow,
         "bad.txt:2: layers: 1 rows over 4000000000 ranks make a graph of about",
         "ns3::InputLimits::MaxJobMemory",
         0},
        // Nothing to build but the ranks' own state.
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4000000000\n1\n"
         "x -1 0 NONE 0 0 NONE 0 0 NONE 0 0\n",
         "bad.txt:2: layers: 1 rows over 4000000000 ranks make a graph of about 0 ops",
         "MaxJobMemory",
         4000000000u},
    };
    for (const Case& c : cases)
    {
        const std::string error = ErrorOf(c.text, c.ranks);
        EXPECT_EQ(error.rfind(c.expected, 0), 0u) << "input:\n" << c.text << "\nerror: " << error;
        EXPECT_NE(error.find(c.also), std::string::npos) << error;
    }
}

TEST(SimaiWorkloadReaderTest, FileErrorsNameTheFile)
{
    // A MICRO file runs as SimAI runs it: its first row's weight-gradient
    // collective on all ranks, a warning naming the rows left out.
    const SimaiWorkload micro = ReadSimaiWorkload(kData + "aicb/all_reduce.txt", 8);
    ASSERT_EQ(micro.graph.GetOps().size(), 1u);
    const GraphOp& op = micro.graph.GetOps()[0];
    EXPECT_EQ(op.kind, GraphOp::Kind::Collective);
    EXPECT_EQ(op.ranks.size(), 8u);
    EXPECT_EQ(op.bytes, 4096u);
    ASSERT_EQ(micro.warnings.size(), 1u);
    EXPECT_EQ(micro.warnings[0].rfind(kData + "aicb/all_reduce.txt:1: policy: MICRO: the first "
                                              "row's weight-gradient ALLREDUCE runs",
                                      0),
              0u)
        << micro.warnings[0];
    EXPECT_THROW(ReadSimaiWorkload(kData + "no-such-file.txt"), std::runtime_error);
    try
    {
        ReadSimaiWorkload(kData + "aicb");
        ADD_FAILURE() << "a directory read";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
    }
}

} // namespace
