/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MODEL_CATALOG_H
#define MODEL_CATALOG_H

#include "job-graph.h"
#include "job-spec.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// One trainable model: what the cost model needs to know about it.
struct ModelProfile
{
    std::string name;      ///< catalog name, lower case, e.g. "gpt2-124m"
    uint64_t parameters;   ///< nominal parameter count (the number in the model's name)
    std::string family;    ///< "gpt2", "pythia", "bert", "resnet" or "vgg"
    double flopsPerSample; ///< vision models: training FLOPs per image (forward +
                           ///< backward); 0 for language models, which cost
                           ///< 6 x parameters FLOPs per token
};

/**
 * \ingroup collective-scheduling
 * \brief The models jobs may train, their gradient sizes and a compute cost
 * model, plus the validation of a JobSpec.
 *
 * Parameter counts are the nominal ones (GPT-2 124M is 124e6, not the exact
 * 124,439,808), because jobs are described by those names and the figures
 * compare models, not checkpoints.
 *
 * Compute time per iteration of a language model is the usual dense
 * transformer estimate 6 x P x T / (peak x MFU) (forward 2PT, backward 4PT),
 * T = batchPerGpu x sequenceLength tokens per GPU. For the vision models
 * (resnet-50, vgg-16) a sample is an image: sequenceLength is ignored and the
 * cost is flopsPerSample x batchPerGpu / (peak x MFU), flopsPerSample taken
 * as 3 x forward FLOPs at 224x224 (ResNet-50 4.1 GFLOPs -> 12.3e9,
 * VGG-16 15.5 GFLOPs -> 46.5e9), since 6 x P per sample says nothing about
 * convolutions. Either way the result is multiplied by JobSpec::scale.
 *
 * All functions are static; the catalog is a fixed table.
 */
class ModelCatalog
{
  public:
    /**
     * \param name a catalog name (exact, lower case)
     * \return the model's profile, valid for the lifetime of the program
     * \throw std::invalid_argument naming \p name and listing the known names
     */
    static const ModelProfile& Get(const std::string& name);

    /// \return every catalog name, in catalog order (family, then size)
    static std::vector<std::string> Names();

    /**
     * \param dtype "fp16", "bf16" or "fp32"
     * \return bytes per gradient element: 2, 2 or 4
     * \throw std::invalid_argument for any other name
     */
    static uint32_t BytesPerElement(const std::string& dtype);

    /**
     * \param model a profile
     * \param dtype gradient element type, as BytesPerElement
     * \return model.parameters x BytesPerElement(dtype): one full gradient
     * \throw std::invalid_argument for an unknown dtype
     */
    static uint64_t GradientBytes(const ModelProfile& model, const std::string& dtype);

    /**
     * Dense peak throughput of one GPU. fp16/bf16 are the tensor-core figures
     * without sparsity (A100 312e12, H100 SXM 989e12). fp32 is plain FP32,
     * not TF32 (A100 19.5e12, H100 SXM 67e12); TF32 tensor-core training is
     * not a dtype of its own here.
     * \param gpu "a100" or "h100"
     * \param dtype "fp16", "bf16" or "fp32"
     * \return FLOP/s
     * \throw std::invalid_argument for an unknown gpu or dtype
     */
    static double PeakFlops(const std::string& gpu, const std::string& dtype);

    /**
     * Compute (forward + backward) time of one iteration on one GPU.
     * \param spec the job; computeTimeNs > 0 is taken as given, otherwise the
     *        cost model of the class description applies
     * \return nanoseconds, x spec.scale, rounded to nearest, at least 1
     * \throw std::invalid_argument as Validate for the fields it reads
     */
    static int64_t ComputeTimeNs(const JobSpec& spec);

    /// \return ComputeTimeNs(spec) as a Time \throw std::invalid_argument as ComputeTimeNs
    static Time ComputeTime(const JobSpec& spec);

    /**
     * Bytes of the job's gradient that one collective reduces.
     * \param spec the job
     * \return parameters x bytes per element x spec.scale, rounded to
     *         nearest, at least 1
     * \throw std::invalid_argument for an unknown model or dtype, or scale <= 0
     */
    static uint64_t GradientBytes(const JobSpec& spec);

    /**
     * Whether \p spec trains an LLM: its model is a TransformerCatalog name,
     * run as its parallelism lays it out (MegatronGraph).
     */
    static bool IsLlm(const JobSpec& spec);

    /**
     * An LLM job's transformer: the one given by its dimensions
     * (JobSpec::transformer), else the catalog's entry of its model.
     * \throw std::invalid_argument for a name the catalog lacks
     */
    static const TransformerConfig& Transformer(const JobSpec& spec);

    /**
     * The type the job's gradients are reduced in: JobSpec::gradientDtype
     * when given; else, for an LLM job, Megatron-LM's default (with bf16 it
     * accumulates and reduces gradients in fp32; with fp16 or fp32 in the
     * activation type), and for any other job its dtype.
     */
    static std::string GradientDtype(const JobSpec& spec);

    /**
     * The collective that all-reduces the job's gradients: JobSpec::collective
     * when given; else NCCL's rings over every NIC with its protocol choice
     * ("nccl-all-reduce") for an LLM job or a workload file, as NCCL runs
     * them on multi-GPU servers, and one flat ring ("ring-all-reduce") for the
     * papers' data-parallel jobs.
     */
    static std::string DataCollective(const JobSpec& spec);

    /// The fraction of the peak a job other than an LLM reaches when it gives none.
    static constexpr double kDefaultComputeEfficiency = 0.4;

    /**
     * The graph of a job read from a workload file (JobSpec::workload): a
     * SimAI / AICB file or a Chakra trace, over the job's workers, its
     * collective as the all-reduce, its channels, times its scale.
     * \throw std::runtime_error the reader's error, naming the file, the
     *        line or record and the field
     */
    static JobGraph WorkloadGraph(const JobSpec& spec);

    /**
     * One iteration of the job: a workload file's (WorkloadGraph); for an
     * LLM, MegatronGraph of its model, layout, sequence length, GPU,
     * recomputation, dtype and gradient type, scale, channels and
     * collective (the data-parallel reduction); otherwise
     * JobGraph::DataParallel of its compute time, gradient and buckets.
     * \throw std::invalid_argument as Validate
     */
    static JobGraph Graph(const JobSpec& spec);

    /**
     * Check every field of a job spec. Besides the obvious ranges:
     * - explicit placement: hosts holds one host index per worker (rank i
     *   runs on hosts[i]), so hosts.size() == workers, and no host appears
     *   more than gpusPerHost times; whether the hosts exist is checked when
     *   the job is placed;
     * - other placements: hosts must be empty (it would be ignored);
     * - collective: a name CreateCollective() accepts (the short name a
     *   Collective class registered, or its TypeId name);
     * - computeTimeNs, arrivalNs and weight must not be negative;
     * - batchPerGpu >= 1 and (language models) sequenceLength >= 1 when the
     *   compute time is derived.
     * \param spec the job
     * \throw std::invalid_argument "job <id>: <field>: <problem>"
     */
    static void Validate(const JobSpec& spec);
};

} // namespace ns3

#endif /* MODEL_CATALOG_H */
