/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One job alone on an idle full-bisection fabric, at packet level, against
 * an analytical model written here from the model's published shape, the
 * GPU's kernel rates, the ring and all-to-all formulas and the links' rates:
 * a dense LLM (tensor x data parallelism), a mixture of experts (experts on
 * other servers) and ZeRO-3, and a data-parallel job whose gradient
 * buckets overlap its backward pass.
 */
#include "scenario-run-test.h"

#include "ns3/gpu-catalog.h"
#include "ns3/rail-optimized-topology.h"
#include "ns3/scenario-helper.h"
#include "ns3/scheduler-job-builder.h"
#include "ns3/transformer-catalog.h"

#include <algorithm>

namespace ns3
{
namespace test
{
namespace
{

constexpr double kNicBps = 200e9;
constexpr double kNvlinkBps = 2400e9; // TrainingCluster::NvlinkRate's default
constexpr double kNvlinkLatency = 1e-6;
constexpr double kLinkDelay = 1e-6; // rail-optimized defaults, NIC to rail leaf
constexpr double kMtu = 4096;
constexpr uint32_t kSeq = 2048;
constexpr double kElement = 2;  // bf16
constexpr double kGradient = 4; // fp32: Megatron's gradients with bf16

/// Seconds of a ring all-reduce (2 (n - 1) steps) or all-gather /
/// reduce-scatter (n - 1 steps) of \p bytes per rank over \p n ranks, each
/// step a message of bytes / n that takes \p latency plus its bytes at \p bps.
double
Ring(double bytes, uint32_t n, uint32_t passes, double bps, double latency)
{
    if (n == 1)
    {
        return 0;
    }
    const double steps = passes * (n - 1.0);
    return steps * (latency + bytes / n * 8 / bps);
}

/// A ring over the fabric: a step's message crosses NIC - rail leaf - NIC.
double
NetRing(double bytes, uint32_t n, uint32_t passes)
{
    return Ring(bytes, n, passes, kNicBps, 2 * kLinkDelay + kMtu * 8 / kNicBps);
}

/// A ring over NVLink.
double
NvRing(double bytes, uint32_t n, uint32_t passes)
{
    return Ring(bytes, n, passes, kNvlinkBps, kNvlinkLatency);
}

class AnalyticIterationTest : public ScenarioRunTest
{
  protected:
    /// One rail group of \p servers servers of 8 GPUs, one spine: every rail on one leaf.
    static ScenarioSpec Rails(uint32_t servers)
    {
        ScenarioSpec spec;
        spec.source = "test";
        spec.name = "analytic-iteration-test";
        spec.topology.kind = "rail-optimized";
        spec.topology.gpusPerHost = 1;
        spec.topology.Set("servers", UintegerValue(servers))
            .Set("gpusPerServer", UintegerValue(8))
            .Set("spines", UintegerValue(1))
            .Set("hostRate", DataRateValue(DataRate(static_cast<uint64_t>(kNicBps))))
            .Set("railSpineRate", DataRateValue(DataRate(static_cast<uint64_t>(kNicBps))));
        spec.fabric.mtu = static_cast<uint32_t>(kMtu);
        return spec;
    }

    /// An LLM job of \p model in \p layout, one micro-batch of one sequence, at \p scale.
    static JobSpec Llm(const std::string& model, ParallelLayout layout, double scale)
    {
        JobSpec j;
        j.model = model;
        j.parallelism = layout;
        j.workers = layout.Ranks();
        j.gpusPerHost = 1;
        j.iterations = 2;
        j.gpu = "h100";
        // The flat rings the closed forms below are written for (NCCL's rings
        // and protocols: NcclRingsLeaveEachServerThroughEveryNic).
        j.collective = "ring-all-reduce";
        j.sequenceLength = kSeq;
        j.scale = scale;
        return j;
    }
};

/// Seconds of a tensor rank's forward and backward of one sequence through
/// every layer and the logits, at \p tp-way tensor parallelism on an H100:
/// GEMMs, the attention core and the element-wise bytes (norms and adds on
/// every tensor rank, the activation split) each at its rate; backward 2x.
double
ComputeSeconds(const TransformerConfig& m, uint32_t tp)
{
    const GpuSpec& g = GpuCatalog::Get("h100");
    const double gemm = g.peak16 * g.gemmEfficiency;
    const double attention = g.peak16 * g.attentionEfficiency;
    const double memory = g.memoryBandwidth * g.elementwiseEfficiency;
    const double routed = m.experts > 0 ? m.topK : 1;
    const double router = m.experts > 0 ? static_cast<double>(m.hidden) * m.experts : 0;
    const double h = m.hidden;
    const double activation = (m.gatedMlp ? 3.0 : 2.0) * m.ffn / tp * routed;
    const double layer =
        2.0 * (m.AttentionParameters() + routed * m.MlpParameters() + router) / tp / gemm +
        4.0 * kSeq * h / tp / attention + (2 * 5 * h + activation) * kElement / memory;
    const double logits = 2.0 * m.vocab * h / tp / gemm + 2.0 * m.vocab / tp * kElement / memory;
    return 3 * (layer * m.layers + logits) * kSeq;
}

/// Seconds of the tensor-parallel all-reduces of one sequence: two per
/// layer forward and two backward, of the activations (s x h elements, times
/// \p scale; the latencies do not scale).
double
TensorSeconds(const TransformerConfig& m, uint32_t tp, double scale)
{
    const double activations = static_cast<double>(kSeq) * m.hidden * kElement * scale;
    return 4.0 * m.layers * NvRing(activations, tp, 2);
}

TEST_F(AnalyticIterationTest, ADenseModelComputesThenReducesItsGradientsInOneBucket)
{
    // LLaMA-7B, TP8 x DP4, one bucket (no overlap): compute + TP all-reduces
    // (exposed: the next block waits for them) + the gradients' ring
    // all-reduce across the four servers, on each rail.
    const double scale = 0.05;
    const TransformerConfig m = TransformerCatalog::Get("llama-7b");
    ParallelLayout l;
    l.tp = 8;
    l.dp = 4;
    l.bucketBytes = 1ULL << 40;
    const JobOutcome o = RunAlone(Rails(4), Llm("llama-7b", l, scale));
    const double gradients = static_cast<double>(m.Parameters()) / l.tp * kGradient * scale;
    const double compute = ComputeSeconds(m, l.tp) * scale;
    const double tensor = TensorSeconds(m, l.tp, scale);
    const double data = NetRing(gradients, l.dp, 2);
    const double expected = compute + tensor + data;
    EXPECT_NEAR(o.meanIteration.GetSeconds() / expected, 1.0, 0.05)
        << "compute " << compute * 1e3 << " ms, tp " << tensor * 1e3 << " ms, dp " << data * 1e3
        << " ms; measured " << o.meanIteration.GetSeconds() * 1e3 << " ms";
    EXPECT_NEAR(o.meanTime.Exposed(CommGroup::Data) / 1e9 / data, 1.0, 0.05);
    EXPECT_NEAR(o.meanTime.Exposed(CommGroup::Tensor) / 1e9 / tensor, 1.0, 0.05);
}

TEST_F(AnalyticIterationTest, AMixtureOfExpertsWaitsForItsAllToAlls)
{
    // Mixtral-8x7B, TP8 x DP4 with EP4: each server holds two experts, and
    // every MoE layer all-to-alls the tokens to their top-2 experts and back,
    // forward and backward, across the four servers on each rail. Each
    // tensor rank sends (ep - 1) / ep of tokens x top-k x h elements and
    // receives as much, at its NIC's rate. The dense parameters' gradients
    // are all-reduced in one bucket; the experts' have no peer to meet
    // (expert-data-parallel groups of dp / ep = 1).
    const double scale = 0.02;
    const TransformerConfig m = TransformerCatalog::Get("mixtral-8x7b");
    ParallelLayout l;
    l.tp = 8;
    l.dp = 4;
    l.ep = 4;
    l.bucketBytes = 1ULL << 40;
    const JobOutcome o = RunAlone(Rails(4), Llm("mixtral-8x7b", l, scale));
    const double compute = ComputeSeconds(m, l.tp) * scale;
    const double tensor = TensorSeconds(m, l.tp, scale);
    const double routed = static_cast<double>(kSeq) * m.topK * m.hidden * kElement * scale;
    const double allToAll = (l.ep - 1.0) / l.ep * routed * 8 / kNicBps + 2 * kLinkDelay;
    const double expert = 4.0 * m.layers * allToAll;
    const double dense = static_cast<double>(m.Parameters() - static_cast<uint64_t>(m.layers) *
                                                                  m.experts * m.MlpParameters());
    const double data = NetRing(dense / l.tp * kGradient * scale, l.dp, 2);
    const double expected = compute + tensor + expert + data;
    EXPECT_NEAR(o.meanIteration.GetSeconds() / expected, 1.0, 0.05)
        << "compute " << compute * 1e3 << " ms, tp " << tensor * 1e3 << " ms, ep " << expert * 1e3
        << " ms, dp " << data * 1e3 << " ms; measured " << o.meanIteration.GetSeconds() * 1e3
        << " ms";
    EXPECT_NEAR(o.meanTime.Exposed(CommGroup::Expert) / 1e9 / expert, 1.0, 0.05);
    EXPECT_NEAR(o.meanTime.Exposed(CommGroup::Data) / 1e9 / data, 1.0, 0.05);
}

TEST_F(AnalyticIterationTest, ZeroThreeIsBoundByItsGathersAndScatters)
{
    // LLaMA-7B, TP8 x DP4, ZeRO-3: every layer's parameters (/ tp) are
    // all-gathered before its forward and its backward and its gradients
    // reduce-scattered after it; the embedding and output layer are
    // reduce-scattered and all-gathered once. That is over twice the compute here,
    // and the gathers run one layer ahead, so the rails stay busy: the
    // iteration takes the data-parallel traffic's time at the NICs' rate.
    const double scale = 0.05;
    const TransformerConfig m = TransformerCatalog::Get("llama-7b");
    ParallelLayout l;
    l.tp = 8;
    l.dp = 4;
    l.zero = 3;
    const JobOutcome o = RunAlone(Rails(4), Llm("llama-7b", l, scale));
    const double compute = ComputeSeconds(m, l.tp) * scale + TensorSeconds(m, l.tp, scale);
    // Parameters gathered in bf16, gradients reduce-scattered in fp32.
    const double layer = static_cast<double>(m.LayerParameters()) / l.tp * scale;
    const double embedding = static_cast<double>(m.EmbeddingParameters()) / l.tp * scale;
    const double data =
        m.layers * (2 * NetRing(layer * kElement, l.dp, 1) + NetRing(layer * kGradient, l.dp, 1)) +
        NetRing(embedding * kGradient, l.dp, 1) + NetRing(embedding * kElement, l.dp, 1);
    ASSERT_GT(data, 2 * compute) << "not bound by communication";
    EXPECT_NEAR(o.meanIteration.GetSeconds() / data, 1.0, 0.05)
        << "compute and tp " << compute * 1e3 << " ms, dp " << data * 1e3 << " ms; measured "
        << o.meanIteration.GetSeconds() * 1e3 << " ms";
}

TEST_F(AnalyticIterationTest, BucketsExposeOnlyWhatTheBackwardPassCannotHide)
{
    // A data-parallel job over 4 servers (GPU 0 of each: one rail) with 20
    // buckets: forward C/3, then backward 2C/3 in 20 slices, bucket b's
    // ring all-reduce ready after slice b, one at a time. Exposed
    // communication is max(0, comm - overlappable), the overlappable part
    // being the backward after the first bucket is ready (2C/3 x 19/20),
    // but at least the last bucket's, ready only when the backward ends.
    ScenarioSpec spec = Rails(4);
    const RailOptimizedParams rails =
        DynamicCast<RailOptimizedBuilder>(spec.topology.MakeBuilder())->GetParams();
    const uint32_t buckets = 20;
    const double bytes = 40e6;
    const double comm = buckets * NetRing(bytes / buckets, 4, 2);
    for (double commOverBackward : {2.0, 1.25, 0.5})
    {
        const double backward = comm / commOverBackward;
        const double c = 1.5 * backward;
        std::vector<uint32_t> hosts;
        for (uint32_t server = 0; server < 4; ++server)
        {
            hosts.push_back(RailOptimizedHost(rails, server, 0));
        }
        JobSpec job = Job(0, hosts, static_cast<uint64_t>(bytes), Seconds(c), 2);
        job.gpusPerHost = 1;
        job.buckets = buckets;
        const JobOutcome o = RunAlone(spec, job);
        const double overlappable = backward * (buckets - 1) / buckets;
        const double exposed = std::max(comm / buckets, comm - overlappable);
        EXPECT_NEAR(o.meanTime.Exposed(CommGroup::Data) / 1e9, exposed, 0.05 * comm)
            << "communication " << commOverBackward << " x the backward pass";
        EXPECT_NEAR(o.meanIteration.GetSeconds() / (c + exposed), 1.0, 0.05);
    }
}

TEST_F(AnalyticIterationTest, AHierarchicalAllReduceGoesThroughNvlinkThenEveryRail)
{
    // 16 GPUs on 2 servers, all-reducing G: NCCL's two-level all-reduce is
    // a reduce-scatter on each server's NVLink ring, a ring all-reduce of
    // G/8 on each of the 8 rails at once, and an all-gather on NVLink. The
    // flat ring sends 2 x 15/16 x G through the one NIC each server's ring
    // leaves by. Both levels.
    ScenarioSpec spec = Rails(2);
    const RailOptimizedParams rails =
        DynamicCast<RailOptimizedBuilder>(spec.topology.MakeBuilder())->GetParams();
    std::vector<uint32_t> hosts;
    for (uint32_t server = 0; server < 2; ++server)
    {
        for (uint32_t gpu = 0; gpu < 8; ++gpu)
        {
            hosts.push_back(RailOptimizedHost(rails, server, gpu));
        }
    }
    const double bytes = 64e6;
    const double expected = NvRing(bytes, 8, 1) + NetRing(bytes / 8, 2, 2) + NvRing(bytes, 8, 1);
    for (const std::string backend : {"packet", "flow"})
    {
        spec.backend = backend;
        JobSpec job = Job(0, hosts, static_cast<uint64_t>(bytes), MicroSeconds(100), 2);
        job.gpusPerHost = 1;
        job.collective = "hierarchical-all-reduce";
        const JobOutcome two = RunAlone(spec, job);
        EXPECT_NEAR(two.meanCommunication.GetSeconds() / expected, 1.0, 0.05)
            << backend << ": expected " << expected * 1e3 << " ms, measured "
            << two.meanCommunication.GetSeconds() * 1e3 << " ms";
        if (backend == "packet")
        {
            // The schedulers' estimate builds the same two-level rings.
            const SchedulerJob seen = SchedulerView(spec, job);
            EXPECT_NEAR(Ratio(seen.commTime, two.meanCommunication), 1.0, 0.05)
                << "estimated " << seen.commTime.GetMicroSeconds() << " us";
        }
        job.collective = "ring-all-reduce";
        const JobOutcome flat = RunAlone(spec, job);
        EXPECT_LT(two.meanCommunication.GetSeconds() * 4, flat.meanCommunication.GetSeconds())
            << backend;
    }
}

TEST_F(AnalyticIterationTest, NcclRingsLeaveEachServerThroughEveryNic)
{
    // 16 GPUs on 2 servers, all-reducing G: NCCL's rings, one a channel and
    // 8 channels (one a NIC), each leaving a server through another GPU and
    // entering the other server on the same rail. In each of the 30 steps
    // every NIC sends one message of G/8/16 to its rail peer, where the flat
    // ring sends G/16 through the one NIC each server's ring leaves by.
    ScenarioSpec spec = Rails(2);
    const RailOptimizedParams rails =
        DynamicCast<RailOptimizedBuilder>(spec.topology.MakeBuilder())->GetParams();
    std::vector<uint32_t> hosts;
    for (uint32_t server = 0; server < 2; ++server)
    {
        for (uint32_t gpu = 0; gpu < 8; ++gpu)
        {
            hosts.push_back(RailOptimizedHost(rails, server, gpu));
        }
    }
    const double bytes = 256e6;
    const double expected = NetRing(bytes / 8, 16, 2);
    for (const std::string backend : {"packet", "flow"})
    {
        spec.backend = backend;
        JobSpec job = Job(0, hosts, static_cast<uint64_t>(bytes), MicroSeconds(100), 2);
        job.gpusPerHost = 1;
        job.collective = "nccl-ring-all-reduce";
        const JobOutcome nccl = RunAlone(spec, job);
        EXPECT_NEAR(nccl.meanCommunication.GetSeconds() / expected, 1.0, 0.05)
            << backend << ": expected " << expected * 1e3 << " ms, measured "
            << nccl.meanCommunication.GetSeconds() * 1e3 << " ms";
        if (backend == "packet")
        {
            // The schedulers' estimate sees the same rings.
            const SchedulerJob seen = SchedulerView(spec, job);
            EXPECT_NEAR(Ratio(seen.commTime, nccl.meanCommunication), 1.0, 0.05)
                << "estimated " << seen.commTime.GetMicroSeconds() << " us";
        }
        job.collective = "ring-all-reduce";
        const JobOutcome flat = RunAlone(spec, job);
        EXPECT_LT(nccl.meanCommunication.GetSeconds() * 6, flat.meanCommunication.GetSeconds())
            << backend;
    }
}

} // namespace
} // namespace test
} // namespace ns3
