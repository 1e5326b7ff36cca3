/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MEGATRON_GRAPH_H
#define MEGATRON_GRAPH_H

#include "gpu-catalog.h"
#include "job-graph.h"
#include "parallel-layout.h"
#include "transformer-catalog.h"

#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One iteration of Megatron-LM-style training of a transformer, as a
 * JobGraph.
 *
 * Per micro-batch and layer, on each tensor-parallel group (one compute op
 * over its ranks, each computing 1/tp of the FLOPs):
 * - forward: attention, then the MLP (the top-k experts for a mixture of
 *   experts); with tp > 1 an all-reduce of the activations after each
 *   (b x s x h elements), or with sequence parallelism an all-gather before
 *   and a reduce-scatter after each; for a mixture of experts an all-to-all
 *   on the expert-parallel group before the experts (dispatch) and after
 *   them (combine), each rank sending its tokens x top-k x h elements;
 * - backward: the same in reverse at twice the work, with the same
 *   communication.
 * The last stage computes the logits (2 x vocab x h FLOPs a token forward).
 *
 * Compute is timed kernel by kernel on the job's GPU (GpuSpec): per token,
 * the matrix multiplications (2 x the parameters a token uses) at the GEMM
 * rate, the attention core (4 x s x h, FlashAttention) at the attention
 * rate (without FlashAttention: at the GEMM rate, plus a softmax and a
 * dropout reading and writing each head's s x s scores, (4 x element + 1)
 * bytes a score, at the memory rate), and the element-wise work at the memory rate: two layer norms
 * (read and write h each), two bias-dropout-adds (read 2h, write h) and the
 * activation (read and write ffn, SwiGLU reading 2 ffn), in the activation
 * type, the norms and adds on every tensor rank unless sequence parallelism
 * splits them. The loss reads and writes the logits (vocab / tp a token).
 * Backward is twice the forward's work of each kind. Recomputation adds,
 * before each layer's backward, the attention core's forward (selective),
 * or the whole layer's forward with its tensor-parallel and expert
 * communication (full), as Megatron-LM recomputes them.
 *
 * Pipeline: stages exchange activations after forward and their gradients
 * after backward (b x s x h elements per tensor rank, / tp with sequence
 * parallelism), on a stream per rank and direction; each stage runs the
 * 1F1B schedule (warm-up of pp - p - 1 forwards), or Megatron's interleaved
 * schedule with vpp model chunks per stage.
 *
 * Data parallelism: in the last micro-batch's backward, each layer's
 * gradients (its parameters / tp, the embedding on the first stage and the
 * output layer on the last, in the gradient type) fill buckets of
 * bucketBytes; a full bucket is all-reduced (ZeRO 0) or reduce-scattered
 * (ZeRO 1 and 2, then all-gathered as parameters, in the parameter type,
 * after the step) among the data-parallel group on its own stream,
 * overlapping the rest of the backward. Experts' gradients go to their
 * expert-data-parallel groups the same way. ZeRO 3 instead all-gathers
 * each layer's parameters before its forward and its backward (one layer
 * ahead) and reduce-scatters its gradients after its backward, every
 * micro-batch; the embedding and the output layer are sharded as ZeRO 1
 * and 2 shard them (gradients reduce-scattered in the last backward,
 * parameters all-gathered after the step).
 *
 * Tensor-parallel communication overlap (tpCommOverlap, Megatron-LM's
 * --tp-comm-overlap with Transformer Engine's userbuffers; needs sequence
 * parallelism, a dense model): each block's all-gather before its first
 * GEMM (QKV, or the MLP's first) and its reduce-scatter after its last
 * (the output projection, or the MLP's second) are split into tp chunks on
 * a communication stream of their own, pipelined with that GEMM split
 * alike: GEMM chunk i runs once all-gather chunk i has arrived, while
 * chunk i + 1 arrives; reduce-scatter chunk i runs once GEMM chunk i is
 * done, while chunk i + 1 computes. A block then takes
 *   a + (tp - 1) max(a, g_in) + g_in + rest + g_out + (tp - 1) max(r, g_out) + r
 * for chunks of a, r (communication) and g_in, g_out (GEMM): the first
 * gather and the last scatter stay exposed, the rest only where a chunk's
 * communication outlasts its GEMM. Backward overlaps the same collectives
 * with the same GEMMs at twice the work.
 *
 * Left out: the tied-embedding all-reduce between the first and last
 * stages, vocabulary-parallel loss communication, and the optimizer step's
 * compute. Every byte count and compute time is multiplied by the job's
 * scale (bytes at least 1).
 */
class MegatronGraph
{
  public:
    /// Activation recomputation, as Megatron-LM's --recompute-granularity.
    enum class Recompute
    {
        None,      ///< every activation kept
        Selective, ///< the attention core recomputed (Korthikanti et al. 2022)
        Full,      ///< each layer's forward recomputed before its backward
    };

    /// \return the recomputation named \p name (none, selective, full)
    /// \throw std::invalid_argument for another name
    static Recompute ParseRecompute(const std::string& name);

    /// What the graph is built from.
    struct Settings
    {
        TransformerConfig model;
        ParallelLayout layout;
        uint32_t sequenceLength{2048};
        GpuSpec gpu;                          ///< what compute runs on
        Recompute recompute{Recompute::None}; ///< activation recomputation
        bool flashAttention{true}; ///< false: scores materialized (Megatron-LM before 2022)
        /// Tensor-parallel collectives in chunks overlapped with their GEMMs.
        bool tpCommOverlap{false};
        uint32_t elementBytes{2};  ///< activations and parameters (bf16)
        uint32_t gradientBytes{4}; ///< gradients as reduced (fp32)
        double scale{1.0};         ///< multiplies bytes and compute times
        uint32_t channels{1};      ///< of every collective
        /// The ZeRO-0 gradient reduction; ZeRO's shards and the
        /// tensor-parallel collectives are of its family (nccl-, hierarchical-).
        std::string dataCollective{"ring-all-reduce"};
    };

    /// \throw std::invalid_argument if the settings do not make a job
    static JobGraph Build(const Settings& settings);
};

} // namespace ns3

#endif /* MEGATRON_GRAPH_H */
