/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "megatron-graph.h"

#include "collective-factory.h"

#include "ns3/unit-strings.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{

/// Builds the graph of one iteration, stage by stage in schedule order.
class Builder
{
  public:
    explicit Builder(const MegatronGraph::Settings& s);
    JobGraph Build();

  private:
    using Ops = std::vector<uint32_t>;

    /// One forward or backward pass of a micro-batch through a model chunk.
    struct Unit
    {
        bool forward;
        uint32_t microBatch;
        uint32_t chunk;
    };

    /// Gradients waiting for their data-parallel bucket on one stage.
    struct Bucket
    {
        double bytes{0};                 ///< unscaled, in the gradient type
        std::vector<Ops> readyByReplica; ///< the ops after which they are ready
    };

    std::vector<Unit> Schedule(uint32_t stage) const;
    bool CanEmit(uint32_t stage, const Unit& u) const;
    void Emit(uint32_t stage, const Unit& u);
    /// The forward of a layer for micro-batch \p j, or its recomputation before the backward.
    void LayerForward(uint32_t p, uint32_t j, std::vector<Ops>& cur, bool recompute = false);
    void LayerBackward(uint32_t p, uint32_t layer, uint32_t j, std::vector<Ops>& cur);
    /**
     * Replica \p d of stage \p p computes \p what for \p duration on its
     * tensor group after \p cur, after an all-gather of the activations with
     * sequence parallelism when \p gather.
     */
    void Compute(uint32_t p,
                 uint32_t d,
                 Time duration,
                 const std::string& what,
                 Ops& cur,
                 bool gather);
    /// Replica \p d's tensor-parallel reduction after a block: reduce-scatter
    /// with sequence parallelism, all-reduce without.
    void Reduce(uint32_t p, uint32_t d, Ops& cur);

    /// A block's compute, one forward on one tensor rank, by what the
    /// tensor-parallel collectives around it overlap.
    struct Block
    {
        double in{0};   ///< the first GEMM, after the all-gather (s)
        double rest{0}; ///< what runs between the two GEMMs (s)
        double out{0};  ///< the last GEMM, before the reduce-scatter (s)
    };

    /// Whether tensor-parallel collectives overlap their GEMMs (tpCommOverlap).
    bool Overlapped() const
    {
        return m_s.tpCommOverlap && m_l.tp > 1;
    }

    /**
     * Replica \p d's block \p b at \p factor times its forward's work
     * (\p extra seconds more between its GEMMs), its all-gather and
     * reduce-scatter in tp chunks overlapped with its first and last GEMM.
     * \p computed, if given, gets its last compute op.
     */
    void OverlappedBlock(uint32_t p,
                         uint32_t d,
                         const Block& b,
                         double factor,
                         double extra,
                         const std::string& what,
                         Ops& cur,
                         Ops* computed = nullptr);
    /// The tensor-parallel collective \p algorithm of replica \p d after \p deps (none if tp == 1).
    Ops TensorComm(const std::string& algorithm, uint32_t d, uint32_t p, const Ops& deps);
    /// An all-to-all on each expert-parallel group, after every member's \p cur.
    void ExpertAllToAll(uint32_t p, std::vector<Ops>& cur, const std::string& name);
    /**
     * ZeRO-3: all-gather \p layer's parameters on every data-parallel group,
     * one layer ahead, and make \p cur wait for them.
     */
    void Prefetch(uint32_t p,
                  uint32_t layer,
                  std::vector<Ops>& previousStart,
                  std::vector<Ops>& cur);
    /// Gradients of \p dense and \p expert parameters (per tensor rank), ready after \p ready.
    void AddGradients(uint32_t p, double dense, double expert, const std::vector<Ops>& ready);
    void EmitBucket(uint32_t p, Bucket& b, bool expert);
    void Flush(uint32_t p);
    /// Every op of \p perReplica, one list.
    static Ops Join(const std::vector<Ops>& perReplica);
    /// ZeRO-3's \p algorithm of a layer's parameters on each tensor rank's
    /// data-parallel group of stage \p p, after \p deps.
    Ops ZeroCollective(const std::string& algorithm,
                       uint32_t p,
                       uint64_t bytes,
                       const Ops& deps,
                       const std::string& name);

    uint32_t Stream(const std::string& key);

    /// The collective \p kind of the data-parallel all-reduce's family
    /// (CollectiveOfFamily): ZeRO's shards and the tensor-parallel
    /// collectives, as one NCCL serves them all.
    std::string Family(const std::string& kind) const
    {
        return CollectiveOfFamily(m_s.dataCollective, kind);
    }

    uint32_t ComputeStream(uint32_t d, uint32_t p)
    {
        return Stream("compute/" + std::to_string(d) + "/" + std::to_string(p));
    }

    /// \p seconds of compute, times the scale.
    Time ComputeTime(double seconds) const;
    uint64_t Bytes(double bytes) const;

    uint32_t VirtualStages() const
    {
        return m_l.pp * m_l.vpp;
    }

    const MegatronGraph::Settings& m_s;
    const ParallelLayout& m_l;
    const TransformerConfig& m_m;
    JobGraph m_g;
    std::map<std::string, uint32_t> m_streams;
    /// Transfers into (virtual stage, micro-batch, replica).
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Ops> m_forwardIn;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Ops> m_backwardIn;
    std::vector<Bucket> m_dense;  ///< by stage
    std::vector<Bucket> m_expert; ///< by stage
    std::vector<std::vector<uint64_t>>
        m_buckets;              ///< by stage: parameter bytes of each reduced bucket
    std::vector<Ops> m_reduced; ///< by stage: its gradients' reductions
    // Per micro-batch costs, on one tensor rank.
    double m_tokens;            ///< per micro-batch and replica
    double m_attention;         ///< forward of the attention block, s
    double m_attentionCore;     ///< of which the attention core (scores, weighted sum), s
    double m_mlp;               ///< forward of the MLP block (experts, router), s
    Block m_attentionBlock;     ///< m_attention by what overlaps it (tpCommOverlap)
    Block m_mlpBlock;           ///< m_mlp by what overlaps it (tpCommOverlap, dense)
    double m_logits;            ///< forward of the output layer and the loss, s
    double m_activationBytes;   ///< b x s x h elements
    double m_pipelineBytes;     ///< per tensor rank and micro-batch
    double m_allToAllBytes;     ///< per rank, one all-to-all
    double m_denseLayerParams;  ///< parameters of a layer on one tensor rank, experts apart
    double m_expertLayerParams; ///< parameters of a layer's local experts on one tensor rank
};

Builder::Builder(const MegatronGraph::Settings& s)
    : m_s(s),
      m_l(s.layout),
      m_m(s.model),
      m_g(s.layout.Ranks()),
      m_dense(s.layout.pp),
      m_expert(s.layout.pp),
      m_buckets(s.layout.pp),
      m_reduced(s.layout.pp)
{
    const double tp = m_l.tp;
    const uint32_t e = m_s.elementBytes;
    const double h = m_m.hidden;
    const double seq = m_s.sequenceLength;
    const GpuSpec& gpu = m_s.gpu;
    m_tokens = static_cast<double>(m_l.microBatchSize) * seq;
    // Element-wise bytes a token moves, in elements of the activation type:
    // a norm reads and writes h, a bias-dropout-add reads 2h and writes h;
    // on every tensor rank unless sequence parallelism splits them.
    const double perBlock = (2.0 * h + 3.0 * h) / (m_l.sequenceParallel ? tp : 1.0);
    const double ffn = m_m.ffn;
    const double activation = (m_m.gatedMlp ? 3.0 : 2.0) * ffn / tp * (m_m.IsMoe() ? m_m.topK : 1);
    // The attention core: FlashAttention's one kernel, or without it
    // (Megatron-LM before 2022) batched GEMMs around a fused
    // scale-mask-softmax and a dropout that read and write the s x s scores
    // of each head and store the dropout's one-byte mask.
    const double coreFlops = 4.0 * seq * h * m_tokens / tp;
    const double scores = static_cast<double>(m_l.microBatchSize) * m_m.heads / tp * seq * seq;
    m_attentionCore = m_s.flashAttention ? gpu.AttentionSeconds(coreFlops, e)
                                         : gpu.GemmSeconds(coreFlops, e) +
                                               gpu.ElementwiseSeconds((4.0 * e + 1.0) * scores);
    m_attention =
        gpu.GemmSeconds(2.0 * static_cast<double>(m_m.AttentionParameters()) * m_tokens / tp, e) +
        m_attentionCore + gpu.ElementwiseSeconds(perBlock * m_tokens * e);
    const double activeMlp =
        m_m.IsMoe() ? static_cast<double>(m_m.topK) * m_m.MlpParameters() + h * m_m.experts
                    : static_cast<double>(m_m.MlpParameters());
    m_mlp = gpu.GemmSeconds(2.0 * activeMlp * m_tokens / tp, e) +
            gpu.ElementwiseSeconds((perBlock + activation) * m_tokens * e);
    // What TP overlap pipelines with its collectives: the QKV and output
    // projections, the MLP's two GEMMs (a dense model's); the rest between.
    const double kvWidth = h / m_m.heads * m_m.kvHeads;
    m_attentionBlock.in = gpu.GemmSeconds(2.0 * (h * h + 2.0 * h * kvWidth) * m_tokens / tp, e);
    m_attentionBlock.out = gpu.GemmSeconds(2.0 * h * h * m_tokens / tp, e);
    m_attentionBlock.rest = m_attention - m_attentionBlock.in - m_attentionBlock.out;
    m_mlpBlock.in = gpu.GemmSeconds(2.0 * (m_m.gatedMlp ? 2.0 : 1.0) * h * ffn * m_tokens / tp, e);
    m_mlpBlock.out = gpu.GemmSeconds(2.0 * h * ffn * m_tokens / tp, e);
    m_mlpBlock.rest = m_mlp - m_mlpBlock.in - m_mlpBlock.out;
    // The logits, and the loss reading and writing them.
    m_logits = gpu.GemmSeconds(m_m.LogitsForwardFlopsPerToken() * m_tokens / tp, e) +
               gpu.ElementwiseSeconds(2.0 * m_m.vocab / tp * m_tokens * e);
    m_activationBytes = m_tokens * h * e;
    m_pipelineBytes = m_l.sequenceParallel ? m_activationBytes / tp : m_activationBytes;
    const double tokensPerRank = m_l.sequenceParallel ? m_tokens / tp : m_tokens;
    m_allToAllBytes = tokensPerRank * m_m.topK * h * e;
    const double experts =
        m_m.IsMoe() ? static_cast<double>(m_m.experts) * m_m.MlpParameters() : 0.0;
    m_denseLayerParams = (static_cast<double>(m_m.LayerParameters()) - experts) / tp;
    m_expertLayerParams = experts / m_l.ep / tp;
}

uint32_t
Builder::Stream(const std::string& key)
{
    auto [it, inserted] = m_streams.emplace(key, static_cast<uint32_t>(m_streams.size()));
    return it->second;
}

Time
Builder::ComputeTime(double unscaled) const
{
    // Checked before it is rounded: a time past the clock would wrap negative.
    const double seconds = unscaled * m_s.scale;
    if (!(seconds <= Time::Max().GetSeconds()))
    {
        throw std::range_error("a compute op of " + FormatReal(seconds) + " s, " + kTimeRangeError);
    }
    return PicoSeconds(std::llround(seconds * 1e12));
}

uint64_t
Builder::Bytes(double bytes) const
{
    const double scaled = bytes * m_s.scale;
    if (!(scaled <= static_cast<double>(kMaxByteCount)))
    {
        throw std::range_error("a message of " + FormatReal(scaled) + " bytes, more than 10^18");
    }
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(scaled)));
}

std::vector<Builder::Unit>
Builder::Schedule(uint32_t stage) const
{
    // Megatron-LM's 1F1B (schedules.py): warm-up forwards, then one forward
    // and one backward in turn, then the remaining backwards. Interleaved,
    // unit k runs chunk (k mod pp x vpp) / pp (backwards in reverse chunk
    // order) of micro-batch (k / (pp x vpp)) x pp + k mod pp.
    const uint32_t pp = m_l.pp;
    const uint32_t vpp = m_l.vpp;
    const uint32_t total = m_l.microBatches * vpp;
    uint32_t warm;
    if (vpp == 1)
    {
        warm = std::min(pp - stage - 1, total);
    }
    else
    {
        warm =
            m_l.microBatches == pp ? total : std::min((pp - stage - 1) * 2 + (vpp - 1) * pp, total);
    }
    auto unit = [&](uint32_t k, bool forward) {
        const uint32_t inGroup = k % (pp * vpp);
        uint32_t chunk = inGroup / pp;
        if (!forward)
        {
            chunk = vpp - 1 - chunk;
        }
        return Unit{forward, k / (pp * vpp) * pp + k % pp, chunk};
    };
    std::vector<Unit> units;
    for (uint32_t k = 0; k < warm; ++k)
    {
        units.push_back(unit(k, true));
    }
    for (uint32_t i = 0; i + warm < total; ++i)
    {
        units.push_back(unit(warm + i, true));
        units.push_back(unit(i, false));
    }
    for (uint32_t i = total - warm; i < total; ++i)
    {
        units.push_back(unit(i, false));
    }
    return units;
}

bool
Builder::CanEmit(uint32_t stage, const Unit& u) const
{
    const uint32_t v = u.chunk * m_l.pp + stage;
    if (u.forward)
    {
        return v == 0 || m_forwardIn.count({v, u.microBatch, 0}) != 0;
    }
    return v + 1 == VirtualStages() || m_backwardIn.count({v, u.microBatch, 0}) != 0;
}

Builder::Ops
Builder::TensorComm(const std::string& algorithm, uint32_t d, uint32_t p, const Ops& deps)
{
    if (m_l.tp == 1)
    {
        return deps;
    }
    return {m_g.AddCollective(algorithm,
                              m_l.TensorGroup(d, p),
                              Bytes(m_activationBytes),
                              m_s.channels,
                              CommGroup::Tensor,
                              deps,
                              ComputeStream(d, p),
                              "tp " + algorithm)};
}

void
Builder::ExpertAllToAll(uint32_t p, std::vector<Ops>& cur, const std::string& name)
{
    if (!m_m.IsMoe() || m_l.ep == 1)
    {
        return;
    }
    for (uint32_t first = 0; first < m_l.dp; first += m_l.ep)
    {
        const Ops deps = Join(std::vector<Ops>(cur.begin() + first, cur.begin() + first + m_l.ep));
        Ops ops;
        for (uint32_t t = 0; t < m_l.tp; ++t)
        {
            ops.push_back(m_g.AddCollective("all-to-all",
                                            m_l.ExpertGroup(t, first, p),
                                            Bytes(m_allToAllBytes),
                                            m_s.channels,
                                            CommGroup::Expert,
                                            deps,
                                            Stream("ep/" + std::to_string(t) + "/" +
                                                   std::to_string(first) + "/" + std::to_string(p)),
                                            "ep " + name));
        }
        for (uint32_t d = first; d < first + m_l.ep; ++d)
        {
            cur[d] = ops;
        }
    }
}

void
Builder::Prefetch(uint32_t p,
                  uint32_t layer,
                  std::vector<Ops>& previousStart,
                  std::vector<Ops>& cur)
{
    if (m_l.zero != 3)
    {
        return;
    }
    // Gathered once the layer before the previous one is done (previousStart:
    // where the previous layer started), so that it overlaps the previous layer.
    const Ops deps = Join(previousStart);
    previousStart = cur;
    const Ops gather = ZeroCollective(Family("all-gather"),
                                      p,
                                      Bytes(m_denseLayerParams * m_s.elementBytes),
                                      deps,
                                      "zero3 parameters layer " + std::to_string(layer));
    for (Ops& c : cur)
    {
        c.insert(c.end(), gather.begin(), gather.end());
    }
}

Builder::Ops
Builder::Join(const std::vector<Ops>& perReplica)
{
    Ops all;
    for (const Ops& o : perReplica)
    {
        all.insert(all.end(), o.begin(), o.end());
    }
    return all;
}

Builder::Ops
Builder::ZeroCollective(const std::string& algorithm,
                        uint32_t p,
                        uint64_t bytes,
                        const Ops& deps,
                        const std::string& name)
{
    Ops ops;
    for (uint32_t t = 0; t < m_l.tp; ++t)
    {
        ops.push_back(m_g.AddCollective(algorithm,
                                        m_l.DataGroup(t, p),
                                        bytes,
                                        m_s.channels,
                                        CommGroup::Data,
                                        deps,
                                        Stream("zero3-" + algorithm + "/" + std::to_string(t)),
                                        name));
    }
    return ops;
}

void
Builder::Compute(uint32_t p,
                 uint32_t d,
                 Time duration,
                 const std::string& what,
                 Ops& cur,
                 bool gather)
{
    if (gather && m_l.sequenceParallel)
    {
        cur = TensorComm(Family("all-gather"), d, p, cur);
    }
    cur = {m_g.AddCompute(m_l.TensorGroup(d, p), duration, cur, ComputeStream(d, p), what)};
}

void
Builder::Reduce(uint32_t p, uint32_t d, Ops& cur)
{
    cur = TensorComm(Family(m_l.sequenceParallel ? "reduce-scatter" : "all-reduce"), d, p, cur);
}

void
Builder::OverlappedBlock(uint32_t p,
                         uint32_t d,
                         const Block& b,
                         double factor,
                         double extra,
                         const std::string& what,
                         Ops& cur,
                         Ops* computed)
{
    const uint32_t k = m_l.tp;
    const std::vector<uint32_t> group = m_l.TensorGroup(d, p);
    const uint32_t compute = ComputeStream(d, p);
    const uint32_t comm = Stream("tp-overlap/" + std::to_string(d) + "/" + std::to_string(p));
    const uint64_t chunk = Bytes(m_activationBytes / k);
    const Time in = ComputeTime(factor * b.in / k);
    const Time out = ComputeTime(factor * b.out / k);
    // All-gather chunks in turn on the communication stream; GEMM chunk i
    // waits for chunk i, and runs while chunk i + 1 arrives.
    Ops last;
    for (uint32_t i = 0; i < k; ++i)
    {
        const uint32_t gather = m_g.AddCollective(Family("all-gather"),
                                                  group,
                                                  chunk,
                                                  m_s.channels,
                                                  CommGroup::Tensor,
                                                  cur,
                                                  comm,
                                                  "tp all-gather chunk");
        last = {m_g.AddCompute(group, in, {gather}, compute, what + " gemm in")};
    }
    last = {m_g.AddCompute(group, ComputeTime(factor * b.rest + extra), last, compute, what)};
    // GEMM chunk i, then its reduce-scatter chunk while chunk i + 1 computes.
    Ops scatter;
    for (uint32_t i = 0; i < k; ++i)
    {
        last = {m_g.AddCompute(group, out, last, compute, what + " gemm out")};
        scatter = {m_g.AddCollective(Family("reduce-scatter"),
                                     group,
                                     chunk,
                                     m_s.channels,
                                     CommGroup::Tensor,
                                     last,
                                     comm,
                                     "tp reduce-scatter chunk")};
    }
    if (computed)
    {
        *computed = last;
    }
    cur = scatter; // the stream's last: every chunk before it is done
}

void
Builder::LayerForward(uint32_t p, uint32_t j, std::vector<Ops>& cur, bool recompute)
{
    const std::string mb = (recompute ? " recompute mb " : " forward mb ") + std::to_string(j);
    if (Overlapped())
    {
        for (uint32_t d = 0; d < m_l.dp; ++d)
        {
            OverlappedBlock(p, d, m_attentionBlock, 1.0, 0.0, "attention" + mb, cur[d]);
            OverlappedBlock(p, d, m_mlpBlock, 1.0, 0.0, "mlp" + mb, cur[d]);
        }
        return;
    }
    for (uint32_t d = 0; d < m_l.dp; ++d)
    {
        Compute(p, d, ComputeTime(m_attention), "attention" + mb, cur[d], true);
        Reduce(p, d, cur[d]);
    }
    ExpertAllToAll(p, cur, recompute ? "dispatch recompute" : "dispatch");
    for (uint32_t d = 0; d < m_l.dp; ++d)
    {
        Compute(p, d, ComputeTime(m_mlp), "mlp" + mb, cur[d], true);
    }
    ExpertAllToAll(p, cur, recompute ? "combine recompute" : "combine");
    for (uint32_t d = 0; d < m_l.dp; ++d)
    {
        Reduce(p, d, cur[d]);
    }
}

void
Builder::LayerBackward(uint32_t p, uint32_t layer, uint32_t j, std::vector<Ops>& cur)
{
    const std::string mb = " backward mb " + std::to_string(j);
    if (m_s.recompute == MegatronGraph::Recompute::Full)
    {
        LayerForward(p, j, cur, true);
    }
    // Selective recomputation runs the attention core's forward again.
    const double selective =
        m_s.recompute == MegatronGraph::Recompute::Selective ? m_attentionCore : 0.0;
    std::vector<Ops> ready(m_l.dp);
    if (Overlapped())
    {
        for (uint32_t d = 0; d < m_l.dp; ++d)
        {
            OverlappedBlock(p, d, m_mlpBlock, 2.0, 0.0, "mlp" + mb, cur[d]);
            OverlappedBlock(p,
                            d,
                            m_attentionBlock,
                            2.0,
                            selective,
                            "attention" + mb,
                            cur[d],
                            &ready[d]);
        }
    }
    else
    {
        ExpertAllToAll(p, cur, "combine gradient");
        for (uint32_t d = 0; d < m_l.dp; ++d)
        {
            Compute(p, d, ComputeTime(2 * m_mlp), "mlp" + mb, cur[d], true);
        }
        ExpertAllToAll(p, cur, "dispatch gradient");
        for (uint32_t d = 0; d < m_l.dp; ++d)
        {
            Reduce(p, d, cur[d]);
            Compute(p, d, ComputeTime(2 * m_attention + selective), "attention" + mb, cur[d], true);
            ready[d] = cur[d];
            Reduce(p, d, cur[d]);
        }
    }
    if (m_l.zero == 3)
    {
        ZeroCollective(Family("reduce-scatter"),
                       p,
                       Bytes(m_denseLayerParams * m_s.gradientBytes),
                       Join(ready),
                       "zero3 gradients layer " + std::to_string(layer));
    }
    else if (j + 1 == m_l.microBatches)
    {
        AddGradients(p, m_denseLayerParams, m_expertLayerParams, ready);
    }
}

void
Builder::AddGradients(uint32_t p, double dense, double expert, const std::vector<Ops>& ready)
{
    for (auto [bucket, params, isExpert] :
         {std::tuple<Bucket*, double, bool>{&m_dense[p], dense, false},
          std::tuple<Bucket*, double, bool>{&m_expert[p], expert, true}})
    {
        if (params <= 0)
        {
            continue;
        }
        bucket->bytes += params * m_s.gradientBytes;
        bucket->readyByReplica = ready;
        if (bucket->bytes >= static_cast<double>(m_l.bucketBytes))
        {
            EmitBucket(p, *bucket, isExpert);
        }
    }
}

void
Builder::EmitBucket(uint32_t p, Bucket& b, bool expert)
{
    if (b.bytes <= 0)
    {
        return;
    }
    const std::string algorithm = m_l.zero == 0 ? m_s.dataCollective : Family("reduce-scatter");
    const uint64_t bytes = Bytes(b.bytes);
    if (!expert)
    {
        // Its parameters, gathered after the step in the parameter type.
        m_buckets[p].push_back(Bytes(b.bytes / m_s.gradientBytes * m_s.elementBytes));
    }
    for (uint32_t t = 0; t < m_l.tp; ++t)
    {
        // Experts: one group per expert-parallel position, of the replicas holding them.
        const uint32_t groups = expert ? m_l.ep : 1;
        for (uint32_t e = 0; e < groups; ++e)
        {
            const std::vector<uint32_t> members =
                expert ? m_l.ExpertDataGroup(t, e, p) : m_l.DataGroup(t, p);
            if (members.size() < 2)
            {
                continue;
            }
            Ops deps;
            for (uint32_t k = 0; k < m_l.dp; ++k)
            {
                if (!expert || k % m_l.ep == e)
                {
                    deps.insert(deps.end(), b.readyByReplica[k].begin(), b.readyByReplica[k].end());
                }
            }
            m_reduced[p].push_back(
                m_g.AddCollective(algorithm,
                                  members,
                                  bytes,
                                  m_s.channels,
                                  CommGroup::Data,
                                  deps,
                                  Stream((expert ? "edp/" : "dp/") + std::to_string(t) + "/" +
                                         std::to_string(e) + "/" + std::to_string(p)),
                                  expert ? "expert gradients" : "gradients"));
        }
    }
    b.bytes = 0;
}

void
Builder::Flush(uint32_t p)
{
    EmitBucket(p, m_dense[p], false);
    EmitBucket(p, m_expert[p], true);
    if (m_l.zero > 0)
    {
        // After the optimizer step (once every gradient of the stage is
        // reduced), every replica gathers the updated shards (with ZeRO-3,
        // of the embedding and output layer: the layers' parameters are
        // gathered before each use).
        for (uint64_t bytes : m_buckets[p])
        {
            for (uint32_t t = 0; t < m_l.tp && m_l.dp > 1; ++t)
            {
                m_g.AddCollective(Family("all-gather"),
                                  m_l.DataGroup(t, p),
                                  bytes,
                                  m_s.channels,
                                  CommGroup::Data,
                                  m_reduced[p],
                                  Stream("dp/" + std::to_string(t) + "/0/" + std::to_string(p)),
                                  "parameters");
            }
        }
    }
}

void
Builder::Emit(uint32_t p, const Unit& u)
{
    const uint32_t v = u.chunk * m_l.pp + p;
    const uint32_t perChunk = m_m.layers / VirtualStages();
    const uint32_t j = u.microBatch;
    const bool last = v + 1 == VirtualStages();
    std::vector<Ops> cur(m_l.dp);
    for (uint32_t d = 0; d < m_l.dp; ++d)
    {
        auto& in = u.forward ? m_forwardIn : m_backwardIn;
        auto it = in.find({v, j, d});
        if (it != in.end())
        {
            cur[d] = it->second;
        }
    }
    if (u.forward)
    {
        std::vector<Ops> previousStart; // ZeRO-3 gathers one layer ahead
        for (uint32_t l = v * perChunk; l < (v + 1) * perChunk; ++l)
        {
            Prefetch(p, l, previousStart, cur);
            LayerForward(p, j, cur);
        }
        if (last)
        {
            for (uint32_t d = 0; d < m_l.dp; ++d)
            {
                Compute(p,
                        d,
                        ComputeTime(m_logits),
                        "logits forward mb " + std::to_string(j),
                        cur[d],
                        false);
            }
            return;
        }
    }
    else
    {
        if (last)
        {
            for (uint32_t d = 0; d < m_l.dp; ++d)
            {
                Compute(p,
                        d,
                        ComputeTime(2 * m_logits),
                        "logits backward mb " + std::to_string(j),
                        cur[d],
                        false);
            }
            if (!m_m.tiedEmbedding && j + 1 == m_l.microBatches)
            {
                const double output = static_cast<double>(m_m.vocab) * m_m.hidden / m_l.tp;
                AddGradients(p, output, 0, cur);
            }
        }
        std::vector<Ops> previousStart;
        for (uint32_t l = (v + 1) * perChunk; l-- > v * perChunk;)
        {
            Prefetch(p, l, previousStart, cur);
            LayerBackward(p, l, j, cur);
        }
        if (v == 0 && j + 1 == m_l.microBatches)
        {
            const double embedding = static_cast<double>(m_m.vocab) * m_m.hidden / m_l.tp;
            AddGradients(p, embedding, 0, cur);
        }
        if (v == 0)
        {
            return;
        }
    }
    // Activations forward, or their gradients backward, to the neighbouring virtual stage.
    const uint32_t to = u.forward ? v + 1 : v - 1;
    const uint32_t toStage = to % m_l.pp;
    auto& in = u.forward ? m_forwardIn : m_backwardIn;
    for (uint32_t d = 0; d < m_l.dp; ++d)
    {
        Ops& target = in[{to, j, d}];
        for (uint32_t t = 0; t < m_l.tp; ++t)
        {
            target.push_back(m_g.AddTransfer(
                m_l.Rank(t, d, p),
                m_l.Rank(t, d, toStage),
                Bytes(m_pipelineBytes),
                CommGroup::Pipeline,
                cur[d],
                Stream((u.forward ? "pp-forward/" : "pp-backward/") + std::to_string(t) + "/" +
                       std::to_string(d) + "/" + std::to_string(p)),
                (u.forward ? "activations mb " : "gradients mb ") + std::to_string(j)));
        }
    }
}

JobGraph
Builder::Build()
{
    std::vector<std::vector<Unit>> schedule(m_l.pp);
    std::vector<std::size_t> next(m_l.pp, 0);
    std::size_t remaining = 0;
    for (uint32_t p = 0; p < m_l.pp; ++p)
    {
        schedule[p] = Schedule(p);
        remaining += schedule[p].size();
    }
    // Emit each stage's units in its own order, as soon as what they
    // receive has been emitted: graph order is then an order they can run in.
    while (remaining > 0)
    {
        bool progress = false;
        for (uint32_t p = 0; p < m_l.pp; ++p)
        {
            while (next[p] < schedule[p].size() && CanEmit(p, schedule[p][next[p]]))
            {
                Emit(p, schedule[p][next[p]]);
                ++next[p];
                --remaining;
                progress = true;
                if (next[p] == schedule[p].size())
                {
                    Flush(p);
                }
            }
        }
        if (!progress)
        {
            throw std::logic_error("MegatronGraph: the pipeline schedule cannot proceed");
        }
    }
    return std::move(m_g);
}

} // namespace

JobGraph
MegatronGraph::Build(const Settings& settings)
{
    settings.layout.Validate(settings.model, settings.layout.Ranks(), settings.layout.tp);
    const GpuSpec& g = settings.gpu;
    if (!(g.Peak(settings.elementBytes) > 0) || !(g.memoryBandwidth > 0) ||
        !(g.gemmEfficiency > 0) || !(g.attentionEfficiency > 0) || !(g.elementwiseEfficiency > 0) ||
        !(settings.scale > 0) || settings.sequenceLength == 0 || settings.elementBytes == 0 ||
        settings.gradientBytes == 0)
    {
        throw std::invalid_argument("MegatronGraph: the GPU's peak, bandwidth and efficiencies, "
                                    "scale, sequenceLength, elementBytes and gradientBytes must "
                                    "be positive");
    }
    if (settings.tpCommOverlap && (!settings.layout.sequenceParallel || settings.model.IsMoe()))
    {
        throw std::invalid_argument("MegatronGraph: tensor-parallel overlap needs sequence "
                                    "parallelism and a dense model");
    }
    return Builder(settings).Build();
}

MegatronGraph::Recompute
MegatronGraph::ParseRecompute(const std::string& name)
{
    if (name == "none")
    {
        return Recompute::None;
    }
    if (name == "selective")
    {
        return Recompute::Selective;
    }
    if (name == "full")
    {
        return Recompute::Full;
    }
    throw std::invalid_argument("unknown recomputation '" + name +
                                "' (known: none, selective, full)");
}

} // namespace ns3
