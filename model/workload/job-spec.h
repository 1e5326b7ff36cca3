/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef JOB_SPEC_H
#define JOB_SPEC_H

#include "job-graph.h"
#include "parallel-layout.h"
#include "transformer-catalog.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief A job read from a workload file that another simulator's users
 * already have, instead of built from a model (doc/bringing-workloads.md).
 */
struct WorkloadFile
{
    std::string format; ///< "" (the model's own graph), "simai" or "chakra"
    /// simai: the workload file; chakra: the rank files' prefix (<path>.<rank>.et)
    std::string path;
    std::string commGroups;        ///< chakra: ASTRA-sim's communicator-group JSON, or empty
    std::string deps{"data+ctrl"}; ///< chakra: the dependencies followed (ChakraDeps)

    bool IsSet() const
    {
        return !format.empty();
    }
};

/**
 * \ingroup collective-scheduling
 * \brief Everything that describes one training job before it runs, as read
 * from a scenario file, a job trace or the synthetic generator.
 *
 * Compute time per iteration is either given (computeTimeNs > 0) or derived
 * from the model and the GPU (see ModelCatalog::ComputeTime).
 */
struct JobSpec
{
    uint32_t id{0};
    std::string model{"gpt2-124m"}; ///< a ModelCatalog or TransformerCatalog name
    /// An LLM job's transformer given by its dimensions (a scenario's "model"
    /// object); layers == 0: \p model names it instead.
    TransformerConfig transformer;
    uint32_t workers{2};             ///< data-parallel workers (GPUs)
    uint32_t gpusPerHost{1};         ///< workers placed on one host at most
    std::string placement{"packed"}; ///< packed | spread | random | explicit | scheduler
    std::vector<uint32_t> hosts;     ///< host indices, for explicit placement
    uint32_t iterations{10};
    int64_t arrivalNs{0};
    double weight{0}; ///< 0 means: the number of workers
    /// The data-parallel all-reduce: a Collective's short name
    /// (GetCollectiveNames); "": ModelCatalog::DataCollective's default.
    std::string collective;
    uint32_t channels{1};      ///< parallel rings / queue pairs per peer
    uint32_t buckets{1};       ///< gradient buckets (1 = no overlap)
    std::string dtype{"bf16"}; ///< fp16 | bf16 | fp32: activations, parameters
    /// The type gradients are reduced in; "": an LLM job's is Megatron's
    /// (fp32 with bf16, else dtype), any other job's dtype (ModelCatalog::GradientDtype).
    std::string gradientDtype;
    // Compute cost model (ignored when computeTimeNs > 0).
    std::string gpu{"a100"}; ///< a GpuCatalog name
    /// Jobs other than LLMs: the fraction of the GPU's peak their compute
    /// reaches; 0: not given, ModelCatalog::kDefaultComputeEfficiency. An
    /// LLM job's compute is timed kernel by kernel (GpuSpec).
    double computeEfficiency{0};
    std::string recompute{"none"}; ///< LLM jobs: activation recomputation, none | selective | full
    bool flashAttention{true};     ///< LLM jobs: false materializes the attention scores
    /// LLM jobs: tensor-parallel collectives in chunks overlapped with their
    /// GEMMs (Megatron-LM's --tp-comm-overlap); needs sequence parallelism.
    bool tpCommOverlap{false};
    uint32_t batchPerGpu{8};       ///< sequences per GPU per iteration
    uint32_t sequenceLength{1024}; ///< tokens per sequence
    int64_t computeTimeNs{0};      ///< > 0: given directly
    double scale{1.0};             ///< multiplies gradient bytes and compute time
    /// Multiplies the job's own latencies (NVLink's, a collective protocol's
    /// per step): the scenario's scale, so that a scenario run at a fraction
    /// of its size keeps its ratio of latency to work (doc/scenario-format.md).
    double latencyScale{1.0};
    /// An LLM job (model a TransformerCatalog name): how its workers split
    /// the model and the batch; workers is tp x pp x dp.
    ParallelLayout parallelism;
    /**
     * The groups whose collectives collective schedulers plan and gate:
     * data parallelism always when listed; tensor and expert parallelism
     * where the group's members span more than one scheduling rack (inside
     * a rack a plan has nothing to keep apart). The rest runs ungated in
     * the job's traffic class.
     */
    std::vector<CommGroup> planned{CommGroup::Data};
    /// A job read from a file: its graph, and its workers unless given.
    WorkloadFile workload;
};

} // namespace ns3

#endif /* JOB_SPEC_H */
