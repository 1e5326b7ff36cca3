/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "model-catalog.h"

#include "chakra-trace-reader.h"
#include "collective-transport.h"
#include "collective.h"
#include "gpu-catalog.h"
#include "input-limits.h"
#include "megatron-graph.h"
#include "placement-policy.h"
#include "simai-workload-reader.h"
#include "transformer-catalog.h"

#include "ns3/object-factory.h"
#include "ns3/short-name-registry.h"
#include "ns3/unit-strings.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The catalog, nominal parameter counts (see the class description).
const std::vector<ModelProfile>&
Catalog()
{
    static const std::vector<ModelProfile> models{
        {"gpt2-124m", 124000000ULL, "gpt2", 0},
        {"gpt2-355m", 355000000ULL, "gpt2", 0},
        {"gpt2-774m", 774000000ULL, "gpt2", 0},
        {"gpt2-1.5b", 1500000000ULL, "gpt2", 0},
        {"pythia-70m", 70000000ULL, "pythia", 0},
        {"pythia-160m", 160000000ULL, "pythia", 0},
        {"pythia-410m", 410000000ULL, "pythia", 0},
        {"pythia-1b", 1000000000ULL, "pythia", 0},
        {"pythia-1.4b", 1400000000ULL, "pythia", 0},
        {"pythia-2.8b", 2800000000ULL, "pythia", 0},
        {"pythia-6.9b", 6900000000ULL, "pythia", 0},
        {"pythia-12b", 12000000000ULL, "pythia", 0},
        {"bert-large", 340000000ULL, "bert", 0},
        // Vision: 3 x forward FLOPs per 224x224 image (4.1e9 and 15.5e9 forward).
        {"resnet-50", 25600000ULL, "resnet", 12.3e9},
        {"vgg-16", 138000000ULL, "vgg", 46.5e9},
    };
    return models;
}

std::string
Join(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
    {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

/// Throws "job <id>: <field>: <problem>".
[[noreturn]] void
Fail(const JobSpec& spec, const std::string& field, const std::string& problem)
{
    throw std::invalid_argument("job " + std::to_string(spec.id) + ": " + field + ": " + problem);
}

/**
 * Throw a range error of \p spec's graph (\p problem) naming the job, the
 * fields that multiply its times and byte counts, and its workload file.
 */
[[noreturn]] void
FailRange(const JobSpec& spec, const std::string& problem)
{
    if (spec.workload.IsSet())
    {
        Fail(spec, "workload.path, scale", spec.workload.path + ": " + problem);
    }
    Fail(spec, ModelCatalog::IsLlm(spec) ? "sequenceLength, gpu, scale" : "scale", problem);
}

/// Re-throws an unknown-name error of the catalog with the job and field in front.
template <typename Fn>
void
CheckName(const JobSpec& spec, const std::string& field, Fn fn)
{
    try
    {
        fn();
    }
    catch (const std::invalid_argument& e)
    {
        Fail(spec, field, e.what());
    }
}

/// tpCommOverlap's needs, as Megatron-LM's --tp-comm-overlap has them.
void
CheckTpCommOverlap(const JobSpec& spec, bool llm)
{
    if (!llm)
    {
        Fail(spec,
             "tpCommOverlap",
             "only an LLM job (a transformer with a layout) has tensor parallelism");
    }
    if (spec.parallelism.tp < 2 || !spec.parallelism.sequenceParallel)
    {
        Fail(spec,
             "tpCommOverlap",
             "overlaps the all-gathers and reduce-scatters of sequence parallelism: it needs "
             "parallelism.tp > 1 and parallelism.sequenceParallel");
    }
    bool moe = false;
    CheckName(spec, "model", [&] { moe = ModelCatalog::Transformer(spec).IsMoe(); });
    if (moe)
    {
        Fail(spec, "tpCommOverlap", "a mixture of experts' overlap is not modelled");
    }
}

bool
Contains(const std::vector<std::string>& names, const std::string& name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace

const ModelProfile&
ModelCatalog::Get(const std::string& name)
{
    for (const auto& m : Catalog())
    {
        if (m.name == name)
        {
            return m;
        }
    }
    throw std::invalid_argument(
        "unknown model '" + name + "' (known: " + Join(Names()) +
        "; transformers with a parallel layout: " + Join(TransformerCatalog::Names()) + ")");
}

bool
ModelCatalog::IsLlm(const JobSpec& spec)
{
    return spec.transformer.layers > 0 || TransformerCatalog::Has(spec.model);
}

const TransformerConfig&
ModelCatalog::Transformer(const JobSpec& spec)
{
    return spec.transformer.layers > 0 ? spec.transformer : TransformerCatalog::Get(spec.model);
}

std::string
ModelCatalog::DataCollective(const JobSpec& spec)
{
    if (!spec.collective.empty())
    {
        return spec.collective;
    }
    return IsLlm(spec) || spec.workload.IsSet() ? "nccl-all-reduce" : "ring-all-reduce";
}

std::string
ModelCatalog::GradientDtype(const JobSpec& spec)
{
    if (!spec.gradientDtype.empty())
    {
        return spec.gradientDtype;
    }
    return IsLlm(spec) && spec.dtype == "bf16" ? "fp32" : spec.dtype;
}

JobGraph
ModelCatalog::WorkloadGraph(const JobSpec& spec)
{
    const WorkloadFile& w = spec.workload;
    JobGraph graph;
    if (w.format == "simai")
    {
        SimaiGraphSettings settings;
        settings.allReduce = DataCollective(spec);
        settings.channels = spec.channels;
        SimaiWorkload read = ReadSimaiWorkload(w.path, spec.workers, settings);
        for (const std::string& warning : read.warnings)
        {
            std::cerr << "warning: " << warning << "\n";
        }
        graph = std::move(read.graph);
    }
    else if (w.format == "chakra")
    {
        ChakraTraceOptions options;
        options.ranks = spec.workers;
        options.commGroups = w.commGroups;
        options.deps = ParseChakraDeps(w.deps);
        options.allReduce = DataCollective(spec);
        options.channels = spec.channels;
        graph = ReadChakraTrace(w.path, options);
    }
    else
    {
        Fail(spec, "workload.format", "unknown format '" + w.format + "' (known: simai, chakra)");
    }
    if (spec.scale == 1.0)
    {
        return graph;
    }
    try
    {
        return graph.Scaled(spec.scale);
    }
    catch (const std::range_error& e)
    {
        FailRange(spec, e.what());
    }
}

namespace
{

/// ModelCatalog::Graph, before its range is checked.
JobGraph
BuildGraph(const JobSpec& spec)
{
    if (spec.workload.IsSet())
    {
        return ModelCatalog::WorkloadGraph(spec);
    }
    if (!ModelCatalog::IsLlm(spec))
    {
        return JobGraph::DataParallel(spec.workers,
                                      ModelCatalog::ComputeTime(spec),
                                      ModelCatalog::GradientBytes(spec),
                                      spec.buckets,
                                      ModelCatalog::DataCollective(spec),
                                      spec.channels);
    }
    MegatronGraph::Settings s;
    CheckName(spec, "model", [&] { s.model = ModelCatalog::Transformer(spec); });
    s.layout = spec.parallelism;
    s.sequenceLength = spec.sequenceLength;
    CheckName(spec, "gpu", [&] { s.gpu = GpuCatalog::Get(spec.gpu); });
    CheckName(spec, "recompute", [&] {
        s.recompute = MegatronGraph::ParseRecompute(spec.recompute);
    });
    s.flashAttention = spec.flashAttention;
    s.tpCommOverlap = spec.tpCommOverlap;
    CheckName(spec, "dtype", [&] { s.elementBytes = ModelCatalog::BytesPerElement(spec.dtype); });
    CheckName(spec, "gradientDtype", [&] {
        s.gradientBytes = ModelCatalog::BytesPerElement(ModelCatalog::GradientDtype(spec));
    });
    s.scale = spec.scale;
    s.channels = spec.channels;
    s.dataCollective = ModelCatalog::DataCollective(spec);
    try
    {
        return MegatronGraph::Build(s);
    }
    catch (const std::range_error& e)
    {
        FailRange(spec, e.what());
    }
}

} // namespace

JobGraph
ModelCatalog::Graph(const JobSpec& spec)
{
    JobGraph graph = BuildGraph(spec);
    try
    {
        CheckGraphRange(graph, spec.iterations);
    }
    catch (const std::range_error& e)
    {
        FailRange(spec, e.what());
    }
    return graph;
}

std::vector<std::string>
ModelCatalog::Names()
{
    std::vector<std::string> names;
    for (const auto& m : Catalog())
    {
        names.push_back(m.name);
    }
    return names;
}

uint32_t
ModelCatalog::BytesPerElement(const std::string& dtype)
{
    if (dtype == "fp16" || dtype == "bf16")
    {
        return 2;
    }
    if (dtype == "fp32")
    {
        return 4;
    }
    throw std::invalid_argument("unknown dtype '" + dtype + "' (known: fp16, bf16, fp32)");
}

uint64_t
ModelCatalog::GradientBytes(const ModelProfile& model, const std::string& dtype)
{
    return model.parameters * BytesPerElement(dtype);
}

double
ModelCatalog::PeakFlops(const std::string& gpu, const std::string& dtype)
{
    return GpuCatalog::Get(gpu).Peak(BytesPerElement(dtype));
}

int64_t
ModelCatalog::ComputeTimeNs(const JobSpec& spec)
{
    if (!(spec.scale > 0))
    {
        Fail(spec, "scale", "must be > 0 (got " + std::to_string(spec.scale) + ")");
    }
    if (spec.computeTimeNs < 0)
    {
        Fail(spec,
             "computeTimeNs",
             "must be >= 0 (got " + std::to_string(spec.computeTimeNs) + ")");
    }
    double ns;
    if (spec.computeTimeNs > 0)
    {
        ns = static_cast<double>(spec.computeTimeNs) * spec.scale;
    }
    else
    {
        const double efficiency =
            spec.computeEfficiency > 0 ? spec.computeEfficiency : kDefaultComputeEfficiency;
        if (!(efficiency > 0 && efficiency <= 1))
        {
            Fail(spec,
                 "computeEfficiency",
                 "must be in (0, 1] (got " + std::to_string(spec.computeEfficiency) + ")");
        }
        const ModelProfile* model = nullptr;
        double peak = 0;
        CheckName(spec, "model", [&] { model = &Get(spec.model); });
        CheckName(spec, "dtype", [&] { BytesPerElement(spec.dtype); });
        CheckName(spec, "gpu", [&] { peak = PeakFlops(spec.gpu, spec.dtype); });
        double flops;
        if (model->flopsPerSample > 0)
        {
            flops = model->flopsPerSample * spec.batchPerGpu;
        }
        else
        {
            double tokens = static_cast<double>(spec.batchPerGpu) * spec.sequenceLength;
            flops = 6.0 * static_cast<double>(model->parameters) * tokens;
        }
        ns = flops / (peak * efficiency) * 1e9 * spec.scale;
    }
    if (!(ns <= static_cast<double>(kMaxSimulatedTimeNs)))
    {
        Fail(spec,
             spec.computeTimeNs > 0 ? "computeTime" : "scale",
             "makes an iteration's compute time of " + FormatReal(ns * 1e-9) + " s, " +
                 kTimeRangeError);
    }
    return std::max<int64_t>(1, std::llround(ns));
}

Time
ModelCatalog::ComputeTime(const JobSpec& spec)
{
    return NanoSeconds(ComputeTimeNs(spec));
}

uint64_t
ModelCatalog::GradientBytes(const JobSpec& spec)
{
    if (!(spec.scale > 0))
    {
        Fail(spec, "scale", "must be > 0 (got " + std::to_string(spec.scale) + ")");
    }
    uint64_t bytes = 0;
    CheckName(spec, "model", [&] { Get(spec.model); });
    CheckName(spec, "gradientDtype", [&] { BytesPerElement(GradientDtype(spec)); });
    CheckName(spec, "dtype", [&] { bytes = GradientBytes(Get(spec.model), GradientDtype(spec)); });
    double scaled = static_cast<double>(bytes) * spec.scale;
    // Far below 2^64, so that sums of a job's bytes cannot wrap either.
    if (!(scaled <= 1e18))
    {
        Fail(spec,
             "scale",
             FormatReal(spec.scale) + " makes " + FormatReal(scaled) +
                 " gradient bytes, more than 10^18");
    }
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(scaled)));
}

void
ModelCatalog::Validate(const JobSpec& spec)
{
    auto atLeastOne = [&spec](const std::string& field, uint32_t value) {
        if (value < 1)
        {
            Fail(spec, field, "must be >= 1 (got " + std::to_string(value) + ")");
        }
    };
    atLeastOne("workers", spec.workers);
    atLeastOne("gpusPerHost", spec.gpusPerHost);
    atLeastOne("iterations", spec.iterations);
    atLeastOne("channels", spec.channels);
    atLeastOne("buckets", spec.buckets);
    // 0: not given (the default for jobs other than LLMs).
    if (!(spec.computeEfficiency >= 0 && spec.computeEfficiency <= 1))
    {
        Fail(spec,
             "computeEfficiency",
             "must be in (0, 1] (got " + std::to_string(spec.computeEfficiency) + ")");
    }
    if (!(spec.scale > 0))
    {
        Fail(spec, "scale", "must be > 0 (got " + std::to_string(spec.scale) + ")");
    }
    if (!(spec.weight >= 0))
    {
        Fail(spec,
             "weight",
             "must be >= 0, 0 meaning the number of workers (got " + std::to_string(spec.weight) +
                 ")");
    }
    if (spec.arrivalNs < 0)
    {
        Fail(spec, "arrivalNs", "must be >= 0 (got " + std::to_string(spec.arrivalNs) + ")");
    }
    if (spec.computeTimeNs < 0)
    {
        Fail(spec,
             "computeTimeNs",
             "must be >= 0 (got " + std::to_string(spec.computeTimeNs) + ")");
    }

    CheckName(spec, "dtype", [&] { BytesPerElement(spec.dtype); });
    CheckName(spec, "gradientDtype", [&] { BytesPerElement(GradientDtype(spec)); });
    CheckName(spec, "gpu", [&] { PeakFlops(spec.gpu, spec.dtype); });
    CheckName(spec, "recompute", [&] { MegatronGraph::ParseRecompute(spec.recompute); });
    const bool llm = IsLlm(spec);
    if (!llm && spec.recompute != "none")
    {
        Fail(spec, "recompute", "only an LLM job (a transformer with a layout) recomputes");
    }
    if (!llm && !spec.flashAttention)
    {
        Fail(spec, "flashAttention", "only an LLM job (a transformer with a layout) has attention");
    }
    if (spec.tpCommOverlap)
    {
        CheckTpCommOverlap(spec, llm);
    }
    if ((llm || spec.workload.IsSet()) && spec.computeEfficiency > 0)
    {
        Fail(spec,
             "computeEfficiency",
             llm ? "an LLM job's compute is timed kernel by kernel on its gpu; leave it out"
                 : "a job read from a workload file takes its compute from the file; leave it "
                   "out");
    }
    int64_t computeNs = 0;
    if (spec.workload.IsSet())
    {
        if (spec.computeTimeNs > 0 || !spec.parallelism.IsDefault() || !spec.gradientDtype.empty())
        {
            Fail(spec,
                 spec.computeTimeNs > 0
                     ? "computeTime"
                     : (spec.gradientDtype.empty() ? "parallelism" : "gradientDtype"),
                 "a job read from a workload file takes its compute, groups and bytes from the "
                 "file; leave it out");
        }
        computeNs = WorkloadGraph(spec).GetComputeTimePerRank().GetNanoSeconds();
    }
    else if (llm)
    {
        if (spec.computeTimeNs > 0)
        {
            Fail(spec,
                 "computeTime",
                 "an LLM job's compute comes from its model, layout and GPU; leave it out");
        }
        try
        {
            spec.parallelism.Validate(Transformer(spec),
                                      spec.workers,
                                      std::numeric_limits<uint32_t>::max());
        }
        catch (const std::invalid_argument& e)
        {
            // The layout's fields are parallelism's, but for the job's workers.
            const std::string what = e.what();
            throw std::invalid_argument("job " + std::to_string(spec.id) + ": " +
                                        (what.rfind("workers:", 0) == 0 ? "" : "parallelism.") +
                                        what);
        }
        computeNs = Graph(spec).GetComputeTimePerRank().GetNanoSeconds();
    }
    else
    {
        const ModelProfile* model = nullptr;
        CheckName(spec, "model", [&] { model = &Get(spec.model); });
        if (!spec.parallelism.IsDefault())
        {
            Fail(spec,
                 "parallelism",
                 "lays out a transformer (" + Join(TransformerCatalog::Names()) + "); " +
                     spec.model + " is trained data-parallel by workers and buckets");
        }
        // Every message of a collective carries a share of one bucket's bytes
        // on one channel to one rank: a scale that leaves fewer bytes than
        // shares would send empty messages.
        const double shares = static_cast<double>(spec.buckets) * spec.channels * spec.workers;
        if (spec.workers > 1 && static_cast<double>(GradientBytes(spec)) < shares)
        {
            Fail(spec,
                 "scale",
                 FormatReal(spec.scale) + " leaves " + std::to_string(GradientBytes(spec)) +
                     " gradient bytes, fewer than the " + FormatReal(shares) +
                     " messages of a step (buckets x channels x workers): each needs at least "
                     "one byte");
        }
        if (spec.computeTimeNs == 0)
        {
            atLeastOne("batchPerGpu", spec.batchPerGpu);
            if (model->flopsPerSample == 0)
            {
                atLeastOne("sequenceLength", spec.sequenceLength);
            }
        }
        computeNs = ComputeTimeNs(spec);
    }
    // The job cannot end before its arrival plus its iterations' compute:
    // past the simulator's range, its clock would wrap.
    const double earliestEndNs =
        static_cast<double>(spec.arrivalNs) +
        static_cast<double>(spec.iterations) * static_cast<double>(computeNs);
    if (earliestEndNs > static_cast<double>(kMaxSimulatedTimeNs))
    {
        Fail(spec,
             spec.arrivalNs > kMaxSimulatedTimeNs / 2 ? "arrival" : "iterations",
             "the job would end after " + FormatReal(earliestEndNs * 1e-9) + " s (arrival " +
                 FormatReal(spec.arrivalNs * 1e-9) + " s plus " + std::to_string(spec.iterations) +
                 " iterations of compute), " + kTimeRangeError);
    }
    TypeId collective;
    if (!ShortNameRegistry::LookupFailSafe(Collective::GetTypeId(),
                                           DataCollective(spec),
                                           &collective))
    {
        Fail(spec,
             "collective",
             "unknown collective '" + spec.collective +
                 "' (known: " + ShortNameRegistry::ListNames(Collective::GetTypeId()) + ")");
    }
    // A collective that cannot run on this many ranks (halving-doubling on 3)
    // is refused here, where the job's input is known, not when it starts.
    {
        class NoTransport : public CollectiveTransport
        {
            void Send(const CollectiveMessage& /* m */,
                      std::function<void()> /* onDelivered */) override
            {
            }
        } probe;

        ObjectFactory factory(collective.GetName());
        Ptr<Collective> c = factory.Create<Collective>();
        try
        {
            // An LLM job's data-parallel gradients are reduced among its dp replicas.
            // A workload file's groups are its own: any size the algorithm takes.
            c->Configure(spec.workload.IsSet() ? 1 : (llm ? spec.parallelism.dp : spec.workers),
                         1,
                         &probe);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(spec, "collective", e.what());
        }
    }
    const std::vector<std::string> placements = PlacementPolicy::GetNames();
    if (!Contains(placements, spec.placement))
    {
        Fail(spec,
             "placement",
             "unknown placement '" + spec.placement + "' (known: " + Join(placements) + ")");
    }

    if (spec.placement != "explicit")
    {
        if (!spec.hosts.empty())
        {
            Fail(spec, "hosts", "given, but placement is '" + spec.placement + "', not 'explicit'");
        }
        return;
    }
    if (spec.hosts.size() != spec.workers)
    {
        Fail(spec,
             "hosts",
             "explicit placement needs one host per worker: " + std::to_string(spec.workers) +
                 " workers, " + std::to_string(spec.hosts.size()) + " hosts");
    }
    std::map<uint32_t, uint32_t> perHost;
    for (uint32_t h : spec.hosts)
    {
        if (++perHost[h] > spec.gpusPerHost)
        {
            Fail(spec,
                 "hosts",
                 "host " + std::to_string(h) + " listed more than gpusPerHost (" +
                     std::to_string(spec.gpusPerHost) + ") times");
        }
    }
}

} // namespace ns3
