/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Megatron-style LLM job graph: the catalog's parameter counts against
 * the models' published sizes, the layout's checks, the bytes each
 * parallel group puts on the wire in one iteration against their closed
 * forms, the pipeline's iteration time against (m + p - 1) x (f + b), each
 * kernel's time on a catalog GPU, recomputation, the gradients' type, and
 * tensor-parallel overlap against its closed form.
 */
#include "ns3/collective-transport.h"
#include "ns3/gpu-catalog.h"
#include "ns3/megatron-graph.h"
#include "ns3/model-catalog.h"
#include "ns3/scenario-reader.h"
#include "ns3/simulator.h"
#include "ns3/training-job.h"

#include <gtest/gtest.h>
#include <map>
#include <set>

namespace ns3
{
namespace test
{
namespace
{

/// Delivers every message after a fixed delay; adds up bytes by the group of their op.
class CountingTransport : public CollectiveTransport
{
  public:
    CountingTransport(const JobGraph& graph, Time delay)
        : m_delay(delay)
    {
        for (const GraphOp& op : graph.GetOps())
        {
            if (op.kind != GraphOp::Kind::Compute)
            {
                m_groupOf.push_back(op.group);
            }
        }
    }

    void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override
    {
        bytes[m_groupOf.at(m_op)] += m.bytes;
        Simulator::Schedule(m_delay, std::move(onDelivered));
    }

    void BeginCollective(const CollectiveTag& tag) override
    {
        m_op = tag.index;
    }

    std::map<CommGroup, uint64_t> bytes;

  private:
    std::vector<CommGroup> m_groupOf; ///< by communication op
    Time m_delay;
    uint32_t m_op{0};
};

/// A small model whose sizes divide evenly, so that byte counts are exact.
TransformerConfig
SmallModel(uint32_t experts = 0)
{
    TransformerConfig m;
    m.name = "small";
    m.layers = 8;
    m.hidden = 64;
    m.ffn = 256;
    m.heads = 8;
    m.kvHeads = 8;
    m.vocab = 128;
    m.gatedMlp = true;
    m.experts = experts;
    m.topK = experts > 0 ? 2 : 0;
    return m;
}

MegatronGraph::Settings
Settings(const TransformerConfig& model, const ParallelLayout& layout)
{
    MegatronGraph::Settings s;
    s.model = model;
    s.layout = layout;
    s.sequenceLength = 32;
    // Every kernel at 1 TFLOP/s and memory without cost: compute is FLOPs / 1e12.
    s.gpu = GpuSpec{"test", 1e12, 1e12, 1e30, 1, 1, 1, "test"};
    s.elementBytes = 2;
    s.gradientBytes = 2;
    return s;
}

/// The duration of the first compute op named \p name.
Time
ComputeOp(const JobGraph& g, const std::string& name)
{
    for (const GraphOp& op : g.GetOps())
    {
        if (op.kind == GraphOp::Kind::Compute && op.name.Get() == name)
        {
            return op.duration;
        }
    }
    ADD_FAILURE() << "no compute op " << name;
    return Time(0);
}

class MegatronGraphRunTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// Run one iteration of \p graph; \return the bytes by group and sets m_end.
    std::map<CommGroup, uint64_t> Run(const JobGraph& graph, Time delay = NanoSeconds(1))
    {
        CountingTransport transport(graph, delay);
        JobSpec spec;
        spec.workers = graph.GetRankCount();
        spec.iterations = 1;
        Ptr<TrainingJob> job = CreateObject<TrainingJob>();
        job->Setup(spec, graph, &transport);
        Simulator::ScheduleNow(&TrainingJob::Start, job);
        Simulator::Run();
        EXPECT_TRUE(job->IsDone()) << "the graph did not run to its end";
        m_end = job->GetEndTime();
        m_time = job->GetIterations().back().time;
        Simulator::Destroy();
        return transport.bytes;
    }

    Time m_end;
    IterationTime m_time; ///< where the iteration's time went
};

TEST(TransformerCatalogTest, ParameterCountsMatchThePublishedSizes)
{
    const std::map<std::string, double> published{{"gpt3-6.7b", 6.7e9},
                                                  {"gpt3-13b", 13e9},
                                                  {"gpt3-175b", 175e9},
                                                  {"llama-7b", 6.74e9},
                                                  {"llama-13b", 13.0e9},
                                                  {"llama2-70b", 69e9},
                                                  {"mixtral-8x7b", 46.7e9}};
    ASSERT_EQ(TransformerCatalog::Names().size(), published.size());
    for (const auto& [name, size] : published)
    {
        const double p = static_cast<double>(TransformerCatalog::Get(name).Parameters());
        EXPECT_NEAR(p / size, 1.0, 0.02) << name << ": " << p;
    }
    EXPECT_THROW(TransformerCatalog::Get("llama-8b"), std::invalid_argument);
}

/// The message of \p layout's Validate against \p model, or "" if it passes.
std::string
Problem(const ParallelLayout& layout, const TransformerConfig& model, uint32_t workers)
{
    try
    {
        layout.Validate(model, workers, 8);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

TEST(ParallelLayoutTest, BadLayoutsAreErrorsNamingTheField)
{
    const TransformerConfig dense = TransformerCatalog::Get("llama-7b");
    const TransformerConfig moe = TransformerCatalog::Get("mixtral-8x7b");
    ParallelLayout l;
    l.tp = 8;
    l.dp = 4;
    EXPECT_EQ(Problem(l, dense, 32), "");
    EXPECT_EQ(Problem(l, dense, 64).rfind("workers: tp x pp x dp = 8 x 1 x 4 = 32", 0), 0u)
        << Problem(l, dense, 64);
    l.tp = 16;
    l.dp = 2;
    EXPECT_EQ(Problem(l, dense, 32).rfind("tp: 16 is larger than a server", 0), 0u);
    l.tp = 8;
    l.pp = 4;
    l.dp = 1;
    l.microBatches = 2;
    EXPECT_EQ(Problem(l, dense, 32).rfind("microBatches: 2 is fewer than the 4", 0), 0u);
    l = ParallelLayout{};
    l.dp = 6;
    l.ep = 3;
    EXPECT_EQ(Problem(l, moe, 6).rfind("ep: 3 does not divide mixtral-8x7b's 8 experts", 0), 0u);
    l.ep = 2;
    EXPECT_EQ(Problem(l, dense, 6).rfind("ep: 2 needs a mixture-of-experts model", 0), 0u);
    EXPECT_EQ(Problem(l, moe, 6), "");
    l = ParallelLayout{};
    l.sequenceParallel = true;
    EXPECT_EQ(Problem(l, dense, 1), "sequenceParallel: needs tp > 1");
    l = ParallelLayout{};
    l.pp = 2;
    l.microBatches = 2;
    l.zero = 3;
    EXPECT_EQ(Problem(l, dense, 2).rfind("zero: stage 3", 0), 0u);
    l.zero = 0;
    l.vpp = 3;
    EXPECT_EQ(Problem(l, dense, 2).rfind("vpp: ", 0), 0u) << Problem(l, dense, 2);
}

TEST_F(MegatronGraphRunTest, EachGroupPutsItsClosedFormOnTheWire)
{
    // Closed forms, A = b x s x h x 2 bytes of activations per micro-batch:
    // TP: 4 all-reduces a layer and micro-batch (2 forward, 2 backward),
    // each 2 (tp - 1) x A in all, on every (replica, stage) group;
    // PP: A forward and A backward per boundary, micro-batch, replica and
    // tensor rank; DP: 2 (dp - 1) x every tensor rank's gradients (the
    // parameters / tp x 2 bytes), all-reduced per (tensor rank, stage).
    const TransformerConfig m = SmallModel();
    for (const auto& [tp, pp, dp] : {std::tuple{2u, 2u, 2u}, {1u, 4u, 2u}, {4u, 1u, 3u}})
    {
        ParallelLayout l;
        l.tp = tp;
        l.pp = pp;
        l.dp = dp;
        l.microBatches = 4;
        l.microBatchSize = 2;
        l.bucketBytes = 20000;
        MegatronGraph::Settings s = Settings(m, l);
        const std::map<CommGroup, uint64_t> bytes = Run(MegatronGraph::Build(s));
        const uint64_t a = 2ULL * 32 * 64 * 2;
        const uint64_t layersTimesMb = uint64_t{m.layers} * l.microBatches;
        const uint64_t params = m.layers * m.LayerParameters() + m.EmbeddingParameters();
        const std::string layout =
            std::to_string(tp) + "x" + std::to_string(pp) + "x" + std::to_string(dp);
        auto get = [&](CommGroup g) { return bytes.count(g) ? bytes.at(g) : 0; };
        EXPECT_EQ(get(CommGroup::Tensor), dp * layersTimesMb * 4 * 2 * (tp - 1) * a) << layout;
        EXPECT_EQ(get(CommGroup::Pipeline), 2ULL * l.microBatches * (pp - 1) * dp * tp * a)
            << layout;
        // Each tensor rank reduces params / tp x 2 bytes (the sizes divide evenly).
        EXPECT_EQ(get(CommGroup::Data), 2ULL * (dp - 1) * params * 2) << layout;
        EXPECT_EQ(get(CommGroup::Expert), 0u) << layout;
    }
}

TEST_F(MegatronGraphRunTest, ShardedDataParallelismMovesWhatZeroSays)
{
    // ZeRO-1 reduce-scatters and all-gathers: as much as an all-reduce.
    // ZeRO-3 all-gathers every layer twice and reduce-scatters it once per
    // micro-batch: 3 (dp - 1) x layer bytes x layers x micro-batches; the
    // embedding and output layer as ZeRO-1 shards them.
    const TransformerConfig m = SmallModel();
    ParallelLayout l;
    l.dp = 4;
    l.microBatches = 3;
    l.zero = 1;
    const uint64_t params = m.layers * m.LayerParameters() + m.EmbeddingParameters();
    EXPECT_EQ(Run(MegatronGraph::Build(Settings(m, l))).at(CommGroup::Data),
              2ULL * (l.dp - 1) * params * 2);
    l.zero = 3;
    EXPECT_EQ(Run(MegatronGraph::Build(Settings(m, l))).at(CommGroup::Data),
              3ULL * (l.dp - 1) * m.LayerParameters() * 2 * m.layers * l.microBatches +
                  2ULL * (l.dp - 1) * m.EmbeddingParameters() * 2);
}

TEST(MegatronGraphTest, ZeroCollectivesFollowTheDataAllReducesFamily)
{
    // The sharded collectives of a data-parallel group are of the family of
    // its all-reduce: two-level, NCCL's rings (plain or tuned), else flat.
    const std::map<std::string, std::string> family = {{"ring-all-reduce", ""},
                                                       {"hierarchical-all-reduce", "hierarchical-"},
                                                       {"nccl-ring-all-reduce", "nccl-ring-"},
                                                       {"nccl-all-reduce", "nccl-"}};
    ParallelLayout l;
    l.dp = 4;
    l.zero = 1;
    for (const auto& [allReduce, prefix] : family)
    {
        MegatronGraph::Settings s = Settings(SmallModel(), l);
        s.dataCollective = allReduce;
        std::set<std::string> seen;
        const JobGraph graph = MegatronGraph::Build(s);
        for (const GraphOp& op : graph.GetOps())
        {
            if (op.group == CommGroup::Data)
            {
                seen.insert(op.algorithm);
            }
        }
        EXPECT_EQ(seen, (std::set<std::string>{prefix + "reduce-scatter", prefix + "all-gather"}))
            << allReduce;
    }
}

TEST_F(MegatronGraphRunTest, ExpertAllToAllsAndSequenceParallelism)
{
    // EP: 4 all-to-alls a layer and micro-batch (dispatch and combine, each
    // way), each (ep - 1) x tokens x top-k x h x 2 bytes in all per tensor
    // rank, tokens / tp with sequence parallelism; TP with sequence
    // parallelism moves what TP without it does.
    const TransformerConfig m = SmallModel(4);
    ParallelLayout l;
    l.tp = 2;
    l.dp = 4;
    l.ep = 2;
    l.microBatches = 2;
    l.sequenceParallel = true;
    const std::map<CommGroup, uint64_t> bytes = Run(MegatronGraph::Build(Settings(m, l)));
    const uint64_t tokens = 32 / 2;
    const uint64_t groups = (l.dp / l.ep) * l.tp;
    EXPECT_EQ(bytes.at(CommGroup::Expert),
              groups * m.layers * l.microBatches * 4 * (l.ep - 1) * l.ep * tokens * 2 * 64 * 2 /
                  l.ep);
    const uint64_t a = 32ULL * 64 * 2;
    EXPECT_EQ(bytes.at(CommGroup::Tensor), l.dp * m.layers * l.microBatches * 8 * (l.tp - 1) * a);
}

TEST_F(MegatronGraphRunTest, APipelineWithNegligibleCommunicationIteratesInMPlusPMinusOneSteps)
{
    // tp = dp = 1: a stage computes f = L/p x (attention + MLP) forward and
    // 2f backward per micro-batch; 1F1B takes (m + p - 1)(f + b). The
    // logits (vocabulary 8) and 1 ns transfers are under 1%.
    TransformerConfig m = SmallModel();
    m.vocab = 8;
    for (const auto& [pp, mb] : {std::pair{4u, 8u}, {2u, 2u}, {8u, 16u}})
    {
        ParallelLayout l;
        l.pp = pp;
        l.microBatches = mb;
        MegatronGraph::Settings s = Settings(m, l);
        const JobGraph g = MegatronGraph::Build(s);
        Run(g);
        const double perLayer =
            (2.0 * m.AttentionParameters() + 4.0 * 32 * 64 + 2.0 * m.MlpParameters()) * 32 / 1e12;
        const double f = perLayer * m.layers / pp;
        const double expected = (mb + pp - 1) * 3 * f;
        EXPECT_NEAR(m_end.GetSeconds() / expected, 1.0, 0.01) << "pp " << pp << ", m " << mb;
        // Every stage idles (p - 1)(f + b) of it: the bubble.
        EXPECT_NEAR(m_time.bubbleNs / 1e9 / ((pp - 1) * 3 * f), 1.0, 0.02)
            << "pp " << pp << ", m " << mb;
        EXPECT_NEAR(m_time.computeNs / 1e9 / (mb * 3 * f), 1.0, 0.01);
        EXPECT_NEAR(m_time.Total(),
                    static_cast<double>(m_end.GetNanoSeconds()),
                    1e-6 * expected * 1e9);
    }
}

TEST_F(MegatronGraphRunTest, InterleavingShrinksTheBubbleByTheChunks)
{
    // Interleaved 1F1B with v chunks: (m + (p - 1) / v)(f + b).
    TransformerConfig m = SmallModel();
    m.vocab = 8;
    ParallelLayout l;
    l.pp = 4;
    l.vpp = 2;
    l.microBatches = 8;
    const JobGraph g = MegatronGraph::Build(Settings(m, l));
    Run(g);
    const double perLayer =
        (2.0 * m.AttentionParameters() + 4.0 * 32 * 64 + 2.0 * m.MlpParameters()) * 32 / 1e12;
    const double f = perLayer * m.layers / l.pp;
    const double expected = (l.microBatches + (l.pp - 1.0) / l.vpp) * 3 * f;
    EXPECT_NEAR(m_end.GetSeconds() / expected, 1.0, 0.01);
    EXPECT_NEAR(m_time.bubbleNs / 1e9 / ((l.pp - 1.0) / l.vpp * 3 * f), 1.0, 0.02);
}

TEST(MegatronGraphTest, EachKernelTakesItsRateOnTheGpu)
{
    // One layer's forward on a tensor rank of 2 (no sequence parallelism),
    // a micro-batch of b = 2 sequences of s = 32 tokens, written out from the
    // model's shape: GEMMs 2 x parameters per token, the attention core
    // 4 s h per token, element-wise bytes per token 2 x (2h + 3h) (norms and
    // bias-dropout-adds, on every tensor rank) + the SwiGLU's 3 ffn / tp,
    // x 2 bytes.
    const TransformerConfig m = SmallModel();
    ParallelLayout l;
    l.tp = 2;
    l.microBatchSize = 2;
    for (const std::string name : {"a100", "h100", "b200"})
    {
        MegatronGraph::Settings s = Settings(m, l);
        s.gpu = GpuCatalog::Get(name);
        s.scale = 1e6; // times in whole nanoseconds: nanoseconds here, milliseconds there
        const GpuSpec& g = s.gpu;
        const JobGraph graph = MegatronGraph::Build(s);
        const double tokens = 2.0 * 32;
        const double peak = g.peak16;
        const double h = 64;
        const double attentionGemm = 2.0 * (4 * h * h) * tokens / 2; // Q, K, V, O: h x h each
        const double core = 4.0 * 32 * h * tokens / 2;
        const double blockBytes = 5 * h * tokens * 2;
        const double attention = attentionGemm / (peak * g.gemmEfficiency) +
                                 core / (peak * g.attentionEfficiency) +
                                 blockBytes / (g.memoryBandwidth * g.elementwiseEfficiency);
        const double mlpGemm = 2.0 * (3 * h * 256) * tokens / 2;
        const double mlp =
            mlpGemm / (peak * g.gemmEfficiency) + (blockBytes + 3.0 * 256 / 2 * tokens * 2) /
                                                      (g.memoryBandwidth * g.elementwiseEfficiency);
        auto seconds = [&](const std::string& op) {
            return ComputeOp(graph, op).GetSeconds() / s.scale;
        };
        EXPECT_NEAR(seconds("attention forward mb 0") / attention, 1, 1e-6) << name;
        EXPECT_NEAR(seconds("mlp forward mb 0") / mlp, 1, 1e-6) << name;
        EXPECT_NEAR(seconds("attention backward mb 0") / (2 * attention), 1, 1e-6) << name;
    }
    // Without FlashAttention the core runs as GEMMs, and a softmax and a
    // dropout read and write each of the tp-rank's heads' s x s scores:
    // (4 x 2 + 1) bytes a score, b x heads / tp x s^2 scores.
    {
        MegatronGraph::Settings s = Settings(m, l);
        s.gpu = GpuCatalog::Get("a100");
        s.scale = 1e6;
        const GpuSpec& g = s.gpu;
        const double core = 4.0 * 32 * 64 * 2 * 32 / 2;
        const double flash = core / (g.peak16 * g.attentionEfficiency);
        const double unfused =
            core / (g.peak16 * g.gemmEfficiency) +
            9.0 * 2 * 8 / 2 * 32 * 32 / (g.memoryBandwidth * g.elementwiseEfficiency);
        const Time withFlash = ComputeOp(MegatronGraph::Build(s), "attention forward mb 0");
        s.flashAttention = false;
        const Time without = ComputeOp(MegatronGraph::Build(s), "attention forward mb 0");
        EXPECT_NEAR((without - withFlash).GetSeconds() / s.scale / (unfused - flash), 1, 1e-6);
    }
    // The catalog's peaks are the datasheets' dense bf16 figures.
    EXPECT_EQ(GpuCatalog::Get("a100-40gb").peak16, 312e12);
    EXPECT_EQ(GpuCatalog::Get("h100").peak16, 989e12);
    EXPECT_LT(GpuCatalog::Get("a100-40gb").memoryBandwidth,
              GpuCatalog::Get("a100-80gb").memoryBandwidth);
    EXPECT_THROW(GpuCatalog::Get("v100"), std::invalid_argument);
}

TEST_F(MegatronGraphRunTest, RecomputationAddsTheForwardItRecomputes)
{
    // Per rank (tp = 2, one stage), over L layers and m micro-batches:
    // selective recomputation adds the attention core's forward, 4 s h
    // FLOPs a token / tp; full recomputation adds the whole layer's forward
    // (2 x its parameters + 4 s h a token, / tp) and its two tensor-parallel
    // all-reduces, so TP moves 6 all-reduces a layer and micro-batch, not 4.
    const TransformerConfig m = SmallModel();
    ParallelLayout l;
    l.tp = 2;
    l.microBatches = 3;
    const double tokens = 32;
    const double layersTimesMb = static_cast<double>(m.layers) * l.microBatches;
    const double core = 4.0 * 32 * 64 * tokens / l.tp / 1e12;
    const double forward =
        (2.0 * (m.AttentionParameters() + m.MlpParameters()) * tokens / l.tp) / 1e12 + core;
    MegatronGraph::Settings s = Settings(m, l);
    s.scale = 1000; // times in whole nanoseconds: nanoseconds here, microseconds there
    const JobGraph none = MegatronGraph::Build(s);
    const uint64_t tensorNone = Run(none).at(CommGroup::Tensor);
    s.recompute = MegatronGraph::Recompute::Selective;
    const JobGraph selective = MegatronGraph::Build(s);
    EXPECT_EQ(Run(selective).at(CommGroup::Tensor), tensorNone);
    s.recompute = MegatronGraph::Recompute::Full;
    const JobGraph full = MegatronGraph::Build(s);
    EXPECT_EQ(Run(full).at(CommGroup::Tensor) * 2, tensorNone * 3);
    const double base = none.GetComputeTimePerRank().GetSeconds() / s.scale;
    auto added = [&](const JobGraph& g) {
        return g.GetComputeTimePerRank().GetSeconds() / s.scale - base;
    };
    EXPECT_NEAR(added(selective) / (layersTimesMb * core), 1, 1e-5);
    EXPECT_NEAR(added(full) / (layersTimesMb * forward), 1, 1e-5);
    EXPECT_EQ(MegatronGraph::ParseRecompute("full"), MegatronGraph::Recompute::Full);
    EXPECT_THROW(MegatronGraph::ParseRecompute("partial"), std::invalid_argument);
}

TEST_F(MegatronGraphRunTest, GradientsAreReducedInTheirOwnTypeAndParametersGatheredInTheirs)
{
    // fp32 gradients (4 bytes), bf16 parameters (2 bytes), dp = 4:
    // ZeRO-0 all-reduces 2 (dp - 1) x params x 4; ZeRO-1 reduce-scatters
    // (dp - 1) x params x 4 and all-gathers (dp - 1) x params x 2; ZeRO-3
    // gathers each layer twice in bf16 and reduce-scatters it once in fp32
    // per micro-batch.
    const TransformerConfig m = SmallModel();
    ParallelLayout l;
    l.dp = 4;
    l.microBatches = 3;
    const uint64_t params = m.layers * m.LayerParameters() + m.EmbeddingParameters();
    MegatronGraph::Settings s = Settings(m, l);
    s.gradientBytes = 4;
    EXPECT_EQ(Run(MegatronGraph::Build(s)).at(CommGroup::Data), 2ULL * (l.dp - 1) * params * 4);
    s.layout.zero = 1;
    EXPECT_EQ(Run(MegatronGraph::Build(s)).at(CommGroup::Data),
              (l.dp - 1) * params * 4 + (l.dp - 1) * params * 2);
    s.layout.zero = 3;
    EXPECT_EQ(Run(MegatronGraph::Build(s)).at(CommGroup::Data),
              (2ULL * 2 + 4) * (l.dp - 1) * m.LayerParameters() * m.layers * l.microBatches +
                  (l.dp - 1) * m.EmbeddingParameters() * (4 + 2));

    // Megatron's default: with bf16, gradients reduced in fp32; with fp16 in fp16.
    JobSpec job;
    job.model = "llama-7b";
    job.dtype = "bf16";
    EXPECT_EQ(ModelCatalog::GradientDtype(job), "fp32");
    job.dtype = "fp16";
    EXPECT_EQ(ModelCatalog::GradientDtype(job), "fp16");
    job.gradientDtype = "bf16";
    EXPECT_EQ(ModelCatalog::GradientDtype(job), "bf16");
    job.model = "gpt2-124m"; // not an LLM job: its dtype unless given
    job.gradientDtype = "";
    job.dtype = "bf16";
    EXPECT_EQ(ModelCatalog::GradientDtype(job), "bf16");
}

TEST_F(MegatronGraphRunTest, TensorParallelOverlapExposesWhatOutlastsEachChunksGemm)
{
    // tp = 4 with sequence parallelism, one replica and stage, one
    // micro-batch. Every message arrives d after it is sent, so a ring
    // all-gather or reduce-scatter of 4 ranks, whole or a chunk, takes
    // c = 3 d. With overlap each block (attention, MLP; forward, and backward
    // at twice the work) takes, for its first and last GEMM split in k = 4
    // chunks of g_in and g_out and the rest between,
    //   c + (k - 1) max(c, g_in) + g_in + rest + g_out + (k - 1) max(c, g_out) + c,
    // of which c + (k - 1) max(0, c - g_in) + (k - 1) max(0, c - g_out) + c
    // is exposed; without it, c + k g_in + rest + k g_out + c, with 2 c exposed.
    const TransformerConfig m = SmallModel();
    ParallelLayout l;
    l.tp = 4;
    l.sequenceParallel = true;
    const double k = 4;
    const double tokens = 32;
    const double h = 64;
    const double scale = 1e6; // every FLOP at 1 TFLOP/s: microseconds
    auto at = [&](double flops) { return flops / l.tp / 1e12 * scale; };

    struct Block
    {
        double in, rest, out; // one forward, seconds
    };

    // Q, K, V and O are h x h here; SwiGLU's first GEMM is two of h x ffn.
    const Block attention{at(2 * 3 * h * h * tokens),
                          at(4 * 32 * h * tokens),
                          at(2 * h * h * tokens)};
    const Block mlp{at(2 * 2 * h * 256 * tokens), 0, at(2 * h * 256 * tokens)};
    const double logits = at(2.0 * 128 * h * tokens);
    for (const double d : {1e-6, 20e-6, 100e-6})
    {
        const double c = 3 * d;
        double time = 3 * logits; // forward and backward, no communication
        double exposed = 0;
        double serial = 3 * logits;
        for (const auto& [b, factor] : {std::pair{attention, 1.0},
                                        std::pair{mlp, 1.0},
                                        std::pair{mlp, 2.0},
                                        std::pair{attention, 2.0}})
        {
            const double gin = factor * b.in / k;
            const double gout = factor * b.out / k;
            time += m.layers * (c + (k - 1) * std::max(c, gin) + gin + factor * b.rest + gout +
                                (k - 1) * std::max(c, gout) + c);
            exposed +=
                m.layers * (2 * c + (k - 1) * (std::max(0.0, c - gin) + std::max(0.0, c - gout)));
            serial += m.layers * (2 * c + factor * (b.in + b.rest + b.out));
        }
        MegatronGraph::Settings s = Settings(m, l);
        s.scale = scale;
        s.tpCommOverlap = true;
        const std::map<CommGroup, uint64_t> overlapped = Run(MegatronGraph::Build(s), Seconds(d));
        EXPECT_NEAR(m_end.GetSeconds(), time, 1e-6 * time) << "d " << d;
        EXPECT_NEAR(m_time.Exposed(CommGroup::Tensor) * 1e-9, exposed, 1e-6 * time) << "d " << d;
        // The same bytes, in chunks; without overlap the block runs in turn.
        s.tpCommOverlap = false;
        EXPECT_EQ(Run(MegatronGraph::Build(s), Seconds(d)).at(CommGroup::Tensor),
                  overlapped.at(CommGroup::Tensor));
        EXPECT_NEAR(m_end.GetSeconds(), serial, 1e-6 * serial) << "d " << d;
    }
    // Megatron-LM's overlap needs sequence parallelism, and a dense model here.
    MegatronGraph::Settings s = Settings(m, l);
    s.tpCommOverlap = true;
    s.layout.sequenceParallel = false;
    EXPECT_THROW(MegatronGraph::Build(s), std::invalid_argument);
}

TEST(MegatronGraphTest, TpCommOverlapIsReadAndCheckedNamingItsField)
{
    const ScenarioSpec spec = ReadScenarioText(R"({
  "name": "overlap", "topology": {"kind": "star", "gpusPerHost": 8, "star": {"hosts": 1}},
  "jobs": [{"id": 0, "model": "llama-7b", "gpusPerHost": 8, "tpCommOverlap": true,
            "parallelism": {"tp": 4, "dp": 2, "sequenceParallel": true}}]})",
                                               "overlap.json");
    ASSERT_EQ(spec.jobs.size(), 1u);
    EXPECT_TRUE(spec.jobs[0].tpCommOverlap);
    auto rejected = [](JobSpec job, const std::string& why) {
        try
        {
            ModelCatalog::Validate(job);
            ADD_FAILURE() << "accepted: " << why;
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find("tpCommOverlap"), std::string::npos) << e.what();
        }
    };
    JobSpec job = spec.jobs[0];
    EXPECT_NO_THROW(ModelCatalog::Validate(job));
    job.parallelism.sequenceParallel = false;
    rejected(job, "no sequence parallelism");
    job = spec.jobs[0];
    job.model = "mixtral-8x7b";
    rejected(job, "a mixture of experts");
    JobSpec dataParallel;
    dataParallel.tpCommOverlap = true;
    rejected(dataParallel, "not an LLM job");
}

} // namespace
} // namespace test
} // namespace ns3
