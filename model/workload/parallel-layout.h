/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PARALLEL_LAYOUT_H
#define PARALLEL_LAYOUT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

struct TransformerConfig;

/**
 * \ingroup collective-scheduling
 * \brief How an LLM job's GPUs split the model and the batch, in
 * Megatron-LM's terms.
 *
 * The job has tp x pp x dp ranks. Ranks are numbered as Megatron-LM orders
 * them (its default "tp-dp-pp" order): tensor-parallel rank fastest, then
 * data-parallel, then pipeline stage, so rank = t + tp x (d + dp x p). With
 * a packed placement of 8 GPUs a server, a tensor-parallel group of 8 or
 * fewer is inside one server and its traffic on NVLink, and the stages and
 * replicas are on other servers. Expert parallelism is carved out of data
 * parallelism as Megatron-core does: an expert-parallel group is ep
 * consecutive data-parallel replicas (same t and p), and each expert's
 * gradients are reduced among the dp / ep replicas that hold it.
 */
struct ParallelLayout
{
    uint32_t tp{1};               ///< tensor-parallel ranks, inside a server
    uint32_t pp{1};               ///< pipeline stages
    uint32_t dp{1};               ///< data-parallel replicas
    uint32_t ep{1};               ///< expert-parallel ranks (divides dp and the experts)
    uint32_t vpp{1};              ///< model chunks per stage (interleaved 1F1B when > 1)
    uint32_t microBatches{1};     ///< micro-batches per iteration (gradient accumulation)
    uint32_t microBatchSize{1};   ///< sequences per micro-batch
    bool sequenceParallel{false}; ///< Megatron's sequence parallelism (with tp > 1)
    uint32_t zero{0};             ///< ZeRO stage: 0 (DDP), 1, 2 (sharded grads), 3 (sharded params)
    /// Gradient bucket of the data-parallel reduction: PyTorch DDP's 25 MiB.
    uint64_t bucketBytes{25ULL << 20};

    /// Whether every field has its default (a layout of one GPU, nothing set).
    bool IsDefault() const;

    /// GPUs of the job: tp x pp x dp.
    uint32_t Ranks() const
    {
        return tp * pp * dp;
    }

    /// The rank of tensor-parallel rank \p t of replica \p d in stage \p p.
    uint32_t Rank(uint32_t t, uint32_t d, uint32_t p) const
    {
        return t + tp * (d + dp * p);
    }

    /// The tensor-parallel group of replica \p d in stage \p p, by t.
    std::vector<uint32_t> TensorGroup(uint32_t d, uint32_t p) const;
    /// The data-parallel group of tensor rank \p t in stage \p p, by d.
    std::vector<uint32_t> DataGroup(uint32_t t, uint32_t p) const;
    /// The expert-parallel group of tensor rank \p t, stage \p p, holding replica \p d.
    std::vector<uint32_t> ExpertGroup(uint32_t t, uint32_t d, uint32_t p) const;
    /// The replicas holding the same experts as replica \p d (its expert-data-parallel group).
    std::vector<uint32_t> ExpertDataGroup(uint32_t t, uint32_t d, uint32_t p) const;

    /**
     * Check the layout against \p model, the job's \p workers and a server
     * of \p gpusPerServer GPUs.
     * \throw std::invalid_argument "<field>: <problem>", the field one of
     *        tp, pp, dp, ep, vpp, microBatches, microBatchSize,
     *        sequenceParallel, zero, bucketBytes (or "workers")
     */
    void Validate(const TransformerConfig& model, uint32_t workers, uint32_t gpusPerServer) const;
};

} // namespace ns3

#endif /* PARALLEL_LAYOUT_H */
