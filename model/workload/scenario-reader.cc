/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-reader.h"

#include "input-limits.h"
#include "located-json.h"
#include "scenario-topology-reader.h"

#include "ns3/boolean.h"
#include "ns3/chakra-trace-reader.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/input-file.h"
#include "ns3/nstime.h"
#include "ns3/roce-header.h"
#include "ns3/simai-workload-reader.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/unit-strings.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

using Node = LocatedJson::Node;
using Object = LocatedJsonObject;

// ------------------------------------------------------------------ sections

void
ReadFabric(const LocatedJson& w,
           const Node& n,
           const std::function<std::string(const std::string&)>& resolve,
           ScenarioSpec::Fabric& f)
{
    Object o(w,
             n,
             {"mtu",
              "cc",
              "pfc",
              "bufferBytes",
              "ackInterval",
              "rto",
              "ackTimeoutExponent",
              "retryCount",
              "retransmission",
              "selectiveRepeat",
              "slowRestart",
              "hpccConfig"});
    o.With("hpccConfig", [&](const Node& v) { f.hpccConfig = resolve(w.String(v)); });
    o.With("mtu", [&](const Node& v) {
        f.mtu = w.Uint32(v, 1);
        if (!RoceWire::IsPathMtu(f.mtu))
        {
            w.Fail(v,
                   std::string("expected ") + RoceWire::kPathMtus + ", got " +
                       std::to_string(f.mtu));
        }
    });
    o.With("cc", [&](const Node& v) { f.cc = w.String(v); });
    o.With("pfc", [&](const Node& v) { f.pfc = w.Bool(v); });
    o.With("bufferBytes", [&](const Node& v) { f.bufferBytes = w.Unsigned(v, 1, kMaxByteCount); });
    o.With("ackInterval", [&](const Node& v) { f.ackInterval = w.Uint32(v, 1); });
    o.With("rto", [&](const Node& v) { f.rtoNs = w.PositiveTimeNs(v); });
    o.With("ackTimeoutExponent", [&](const Node& v) {
        f.ackTimeoutExponent = static_cast<uint32_t>(w.Unsigned(v, 1, 31));
    });
    o.With("retryCount",
           [&](const Node& v) { f.retryCount = static_cast<uint32_t>(w.Unsigned(v, 0, 7)); });
    o.With("retransmission", [&](const Node& v) {
        f.retransmission = w.String(v);
        if (f.retransmission != "adaptive" && f.retransmission != "local-ack")
        {
            w.Fail(v, "expected adaptive or local-ack, got '" + f.retransmission + "'");
        }
    });
    o.With("selectiveRepeat", [&](const Node& v) { f.selectiveRepeat = w.Bool(v); });
    o.With("slowRestart", [&](const Node& v) { f.slowRestart = w.Bool(v); });
    if (o.Has("rto") && o.Has("retransmission"))
    {
        // A fixed timeout replaces either mode: one of the two would be ignored.
        w.Fail(o.Get("retransmission"),
               "contradicts fabric.rto (line " + std::to_string(o.Get("rto").lines->line) +
                   "), a fixed timeout that replaces the retransmission mode; give one of them");
    }
}

void
ReadFaults(const LocatedJson& w, const Node& n, std::vector<FabricFault>& faults)
{
    for (const Node& element : w.Elements(n))
    {
        Object o(w, element, {"link", "switch", "host", "down", "up"});
        FabricFault f;
        f.where = w.Source() + ":" + std::to_string(element.lines->line) + ": " + element.path;
        int given = 0;
        o.With("link", [&](const Node& v) {
            f.target = FabricFault::Target::LINK;
            f.id = w.Uint32(v);
            ++given;
        });
        o.With("switch", [&](const Node& v) {
            f.target = FabricFault::Target::SWITCH;
            f.id = w.Uint32(v);
            ++given;
        });
        o.With("host", [&](const Node& v) {
            f.target = FabricFault::Target::HOST;
            f.id = w.Uint32(v);
            ++given;
        });
        if (given != 1)
        {
            w.Fail(element, "give exactly one of link, switch or host");
        }
        o.Require("down", "a fault needs the time it goes down");
        o.With("down", [&](const Node& v) { f.downNs = w.TimeNs(v); });
        o.With("up", [&](const Node& v) {
            f.upNs = w.TimeNs(v);
            if (f.upNs <= f.downNs)
            {
                w.Fail(v, "must be after down");
            }
        });
        faults.push_back(f);
    }
}

/// Keys of jobDefaults: a job's but id and hosts.
const std::vector<std::string> kJobDefaultKeys{
    "model",       "workers",        "gpusPerHost",   "placement",         "iterations",
    "arrival",     "weight",         "collective",    "channels",          "buckets",
    "dtype",       "gradientDtype",  "gpu",           "computeEfficiency", "mfu",
    "recompute",   "flashAttention", "tpCommOverlap", "batchPerGpu",       "sequenceLength",
    "computeTime", "scale",          "parallelism",   "planned",           "workload"};

/// Keys of a job: id first, then jobDefaults' with hosts after placement.
std::vector<std::string>
JobKeys()
{
    std::vector<std::string> keys{"id"};
    for (const std::string& k : kJobDefaultKeys)
    {
        keys.push_back(k);
        if (k == "placement")
        {
            keys.emplace_back("hosts");
        }
    }
    return keys;
}

/// An LLM job's parallel layout (ParallelLayout).
void
ReadParallelism(const LocatedJson& w, const Node& n, ParallelLayout& l)
{
    Object o(w,
             n,
             {"tp",
              "pp",
              "dp",
              "ep",
              "vpp",
              "microBatches",
              "microBatchSize",
              "sequenceParallel",
              "zero",
              "bucketBytes"});
    o.With("tp", [&](const Node& v) { l.tp = w.Uint32(v, 1); });
    o.With("pp", [&](const Node& v) { l.pp = w.Uint32(v, 1); });
    o.With("dp", [&](const Node& v) { l.dp = w.Uint32(v, 1); });
    o.With("ep", [&](const Node& v) { l.ep = w.Uint32(v, 1); });
    o.With("vpp", [&](const Node& v) { l.vpp = w.Uint32(v, 1); });
    o.With("microBatches", [&](const Node& v) { l.microBatches = w.Uint32(v, 1); });
    o.With("microBatchSize", [&](const Node& v) { l.microBatchSize = w.Uint32(v, 1); });
    o.With("sequenceParallel", [&](const Node& v) { l.sequenceParallel = w.Bool(v); });
    o.With("zero", [&](const Node& v) { l.zero = static_cast<uint32_t>(w.Unsigned(v, 0, 3)); });
    o.With("bucketBytes", [&](const Node& v) { l.bucketBytes = w.Unsigned(v, 1, kMaxByteCount); });
}

/// A transformer given by its dimensions (TransformerConfig); its name
/// defaults to one made of them.
TransformerConfig
ReadTransformer(const LocatedJson& w, const Node& n)
{
    Object o(w,
             n,
             {"name",
              "layers",
              "hidden",
              "heads",
              "kvHeads",
              "ffnHidden",
              "vocab",
              "experts",
              "topK",
              "gatedMlp",
              "tiedEmbedding"});
    TransformerConfig m;
    const std::string why = "a transformer given by its dimensions needs it";
    m.layers = w.Uint32(o.Require("layers", why), 1);
    m.hidden = w.Uint32(o.Require("hidden", why), 1);
    m.heads = w.Uint32(o.Require("heads", why), 1);
    m.ffn = w.Uint32(o.Require("ffnHidden", why), 1);
    m.vocab = w.Uint32(o.Require("vocab", why), 1);
    m.kvHeads = m.heads;
    o.With("kvHeads", [&](const Node& v) {
        m.kvHeads = w.Uint32(v, 1);
        if (m.heads % m.kvHeads != 0)
        {
            w.Fail(v, "must divide heads (" + std::to_string(m.heads) + ")");
        }
    });
    if (m.hidden % m.heads != 0)
    {
        w.Fail(o.Get("heads"), "must divide hidden (" + std::to_string(m.hidden) + ")");
    }
    o.With("experts", [&](const Node& v) { m.experts = w.Uint32(v, 0); });
    o.With("topK", [&](const Node& v) {
        m.topK = w.Uint32(v, 1);
        if (m.topK > m.experts)
        {
            w.Fail(v, "must be at most experts (" + std::to_string(m.experts) + ")");
        }
    });
    if (m.experts > 0 && m.topK == 0)
    {
        w.Fail(o.Get("experts"), "a mixture of experts needs topK");
    }
    o.With("gatedMlp", [&](const Node& v) { m.gatedMlp = w.Bool(v); });
    o.With("tiedEmbedding", [&](const Node& v) { m.tiedEmbedding = w.Bool(v); });
    m.name = "transformer-" + std::to_string(m.layers) + "x" + std::to_string(m.hidden);
    o.With("name", [&](const Node& v) { m.name = w.String(v); });
    m.source = "given by its dimensions";
    return m;
}

/// A path of the scenario, relative to its file's folder.
using PathResolver = std::function<std::string(const std::string&)>;

/// A job's workload file (WorkloadFile); its paths resolved.
void
ReadWorkload(const LocatedJson& w, const Node& n, const PathResolver& resolve, WorkloadFile& f)
{
    Object o(w, n, {"format", "path", "commGroups", "deps"});
    if (!o.Has("format") || !o.Has("path"))
    {
        w.Fail(n, std::string("needs ") + (o.Has("format") ? "path" : "format"));
    }
    f = WorkloadFile{};
    o.With("format", [&](const Node& v) {
        f.format = w.String(v);
        if (f.format != "simai" && f.format != "chakra")
        {
            w.Fail(v, "unknown format \"" + f.format + "\" (known: simai, chakra)");
        }
    });
    o.With("path", [&](const Node& v) { f.path = resolve(w.String(v)); });
    for (const char* key : {"commGroups", "deps"})
    {
        if (o.Has(key) && f.format != "chakra")
        {
            w.Fail(o.Get(key), "only a chakra trace has it");
        }
    }
    o.With("commGroups", [&](const Node& v) { f.commGroups = resolve(w.String(v)); });
    o.With("deps", [&](const Node& v) {
        f.deps = w.String(v);
        try
        {
            ParseChakraDeps(f.deps);
        }
        catch (const std::invalid_argument& e)
        {
            w.Fail(v, e.what());
        }
    });
}

/// The ranks of workload file \p f: what its header or its rank files say.
uint32_t
WorkloadRanks(const WorkloadFile& f)
{
    if (f.format == "chakra")
    {
        return static_cast<uint32_t>(FindChakraRankFiles(f.path, 0).size());
    }
    return ReadSimaiWorkloadRanks(f.path); // its header's all_gpus, or an error naming it
}

/// Fields common to jobs and jobDefaults (all but id and hosts).
void
ReadJobFields(const LocatedJson& w, const Object& o, const PathResolver& resolve, JobSpec& job)
{
    o.With("model", [&](const Node& v) {
        if (v.json->is_object())
        {
            job.transformer = ReadTransformer(w, v);
            job.model = job.transformer.name;
            return;
        }
        job.model = w.String(v);
        job.transformer = TransformerConfig{};
    });
    o.With("workers", [&](const Node& v) { job.workers = w.Uint32(v, 1); });
    o.With("gpusPerHost", [&](const Node& v) { job.gpusPerHost = w.Uint32(v, 1); });
    o.With("placement", [&](const Node& v) { job.placement = w.String(v); });
    o.With("iterations", [&](const Node& v) { job.iterations = w.Uint32(v, 1); });
    o.With("arrival", [&](const Node& v) { job.arrivalNs = w.TimeNs(v); });
    o.With("weight", [&](const Node& v) { job.weight = w.NonNegative(v); });
    o.With("collective", [&](const Node& v) { job.collective = w.String(v); });
    o.With("channels", [&](const Node& v) { job.channels = w.Uint32(v, 1); });
    o.With("buckets", [&](const Node& v) { job.buckets = w.Uint32(v, 1); });
    o.With("dtype", [&](const Node& v) { job.dtype = w.String(v); });
    o.With("gradientDtype", [&](const Node& v) { job.gradientDtype = w.String(v); });
    o.With("gpu", [&](const Node& v) { job.gpu = w.String(v); });
    o.With("computeEfficiency", [&](const Node& v) {
        job.computeEfficiency = w.Positive(v);
        if (job.computeEfficiency > 1)
        {
            w.Fail(v, "must be at most 1, got " + v.json->dump());
        }
    });
    o.With("mfu", [&](const Node& v) {
        w.Fail(v,
               "renamed \"computeEfficiency\": the fraction of the GPU's peak the compute "
               "of a job other than an LLM reaches; an LLM job's compute is timed kernel by "
               "kernel on its gpu (doc/scenario-format.md)");
    });
    o.With("recompute", [&](const Node& v) { job.recompute = w.String(v); });
    o.With("flashAttention", [&](const Node& v) { job.flashAttention = w.Bool(v); });
    o.With("tpCommOverlap", [&](const Node& v) { job.tpCommOverlap = w.Bool(v); });
    o.With("batchPerGpu", [&](const Node& v) { job.batchPerGpu = w.Uint32(v, 1); });
    o.With("sequenceLength", [&](const Node& v) { job.sequenceLength = w.Uint32(v, 1); });
    o.With("computeTime", [&](const Node& v) { job.computeTimeNs = w.TimeNs(v); });
    o.With("scale", [&](const Node& v) { job.scale = w.Positive(v); });
    o.With("planned", [&](const Node& v) {
        job.planned.clear();
        for (const Node& g : w.Elements(v))
        {
            const std::string name = w.String(g);
            CommGroup group = CommGroup::None;
            for (CommGroup c : {CommGroup::Data, CommGroup::Tensor, CommGroup::Expert})
            {
                group = CommGroupName(c) == name ? c : group;
            }
            if (name == "pp")
            {
                w.Fail(g, "pipeline traffic is point-to-point transfers, which are not planned");
            }
            if (group == CommGroup::None)
            {
                w.Fail(g, "unknown group \"" + name + "\" (known: dp, tp, ep)");
            }
            if (std::find(job.planned.begin(), job.planned.end(), group) != job.planned.end())
            {
                w.Fail(g, "\"" + name + "\" listed twice");
            }
            job.planned.push_back(group);
        }
    });
    o.With("workload", [&](const Node& v) {
        ReadWorkload(w, v, resolve, job.workload);
        if (!o.Has("model"))
        {
            job.model = job.workload.format + ":" +
                        std::filesystem::path(job.workload.path).filename().string();
        }
        // Unless given, the job's workers are the file's ranks.
        if (!o.Has("workers"))
        {
            try
            {
                job.workers = WorkloadRanks(job.workload);
            }
            catch (const std::runtime_error& e)
            {
                w.Fail(v, e.what());
            }
        }
    });
    o.With("parallelism", [&](const Node& v) {
        ReadParallelism(w, v, job.parallelism);
        // Unless given, an LLM job's workers are its layout's GPUs.
        if (!o.Has("workers"))
        {
            // In a double: the product of three 32-bit counts wraps in 32 bits.
            const ParallelLayout& l = job.parallelism;
            const double ranks = static_cast<double>(l.tp) * l.pp * l.dp;
            if (ranks > std::numeric_limits<uint32_t>::max())
            {
                w.Fail(v,
                       "tp x pp x dp = " + FormatReal(ranks) +
                           " GPUs, more than a job can have (2^32 - 1)");
            }
            job.workers = static_cast<uint32_t>(ranks);
        }
    });
}

JobSpec
ReadJobDefaults(const LocatedJson& w, const Node& n, const PathResolver& resolve)
{
    JobSpec job;
    Object o(w, n, kJobDefaultKeys);
    ReadJobFields(w, o, resolve, job);
    if (job.placement == "explicit")
    {
        w.Fail(o.Get("placement"), "cannot be \"explicit\" here: hosts are given per job");
    }
    return job;
}

void
ReadJobs(const LocatedJson& w,
         const Node& n,
         const PathResolver& resolve,
         const JobSpec& defaults,
         std::vector<JobSpec>& jobs)
{
    std::map<uint32_t, std::string> idOwner;
    for (const Node& element : w.Elements(n))
    {
        const size_t index = jobs.size();
        Object o(w, element, JobKeys());
        JobSpec job = defaults;
        job.id = static_cast<uint32_t>(index);
        job.hosts.clear();
        o.With("id", [&](const Node& v) { job.id = w.Uint32(v); });
        ReadJobFields(w, o, resolve, job);
        o.With("hosts", [&](const Node& v) {
            auto hosts = w.Elements(v);
            if (hosts.empty())
            {
                w.Fail(v, "must not be empty");
            }
            for (const Node& h : hosts)
            {
                job.hosts.push_back(w.Uint32(h));
            }
        });
        if (!job.hosts.empty())
        {
            if (!o.Has("placement"))
            {
                job.placement = "explicit";
            }
            else if (job.placement != "explicit")
            {
                w.Fail(o.Get("placement"),
                       "must be \"explicit\" when hosts are given, got " +
                           o.Get("placement").json->dump());
            }
            // Rank i runs on hosts[i]: one entry per worker.
            if (!o.Has("workers"))
            {
                job.workers = static_cast<uint32_t>(job.hosts.size());
            }
            else if (job.hosts.size() != job.workers)
            {
                w.Fail(o.Get("hosts"),
                       "lists " + std::to_string(job.hosts.size()) + " hosts for " +
                           std::to_string(job.workers) +
                           " workers (worker i runs on hosts[i]; a host may repeat)");
            }
        }
        else if (job.placement == "explicit")
        {
            o.Require("hosts", "explicit placement needs host indices");
        }
        auto [it, inserted] = idOwner.emplace(job.id, element.path);
        if (!inserted)
        {
            const Node where = o.Has("id") ? o.Get("id") : element;
            w.FailAt(where.lines->line,
                     LocatedJson::ChildPath(element.path, "id"),
                     "duplicate job id " + std::to_string(job.id) + " (also " + it->second + ")");
        }
        jobs.push_back(job);
    }
}

/// Weights of a synthetic distribution: non-negative with a positive total.
void
CheckWeightTotal(const LocatedJson& w, const Node& n, double total)
{
    if (!(total > 0))
    {
        w.Fail(n, "the weights must not all be zero");
    }
    // Weights are drawn in proportion to their sum: an infinite sum would
    // leave every draw to the last entry.
    if (!std::isfinite(total))
    {
        w.Fail(n, "the weights add up to more than the largest number (" + FormatReal(total) + ")");
    }
}

void
ReadSynthetic(const LocatedJson& w, const Node& n, ScenarioSpec::Synthetic& s)
{
    Object o(w,
             n,
             {"enabled",
              "jobs",
              "arrivalRatePerS",
              "modelMix",
              "workerSizes",
              "placementMix",
              "iterations",
              "seed"});
    s.enabled = true;
    o.With("enabled", [&](const Node& v) { s.enabled = w.Bool(v); });
    o.With("jobs", [&](const Node& v) { s.jobs = w.Uint32(v, 1); });
    o.With("arrivalRatePerS", [&](const Node& v) { s.arrivalRatePerS = w.Positive(v); });
    o.With("modelMix", [&](const Node& v) {
        const auto members = w.Members(v);
        double total = 0;
        for (const auto& [model, weight] : members)
        {
            if (model.empty())
            {
                w.FailAt(weight.lines->keyLine, weight.path, "empty model name");
            }
            s.modelMix.emplace_back(model, w.NonNegative(weight));
            total += s.modelMix.back().second;
        }
        CheckWeightTotal(w, v, total);
    });
    o.With("workerSizes", [&](const Node& v) {
        static const std::regex count("^[1-9][0-9]{0,9}$");
        const auto members = w.Members(v);
        double total = 0;
        for (const auto& [size, weight] : members)
        {
            if (!std::regex_match(size, count) ||
                std::stoull(size) > std::numeric_limits<uint32_t>::max())
            {
                w.FailAt(weight.lines->keyLine,
                         weight.path,
                         "a worker count must be a positive integer such as \"8\"");
            }
            s.workerSizes.emplace_back(static_cast<uint32_t>(std::stoul(size)),
                                       w.NonNegative(weight));
            total += s.workerSizes.back().second;
        }
        CheckWeightTotal(w, v, total);
    });
    o.With("placementMix", [&](const Node& v) {
        const auto members = w.Members(v);
        double total = 0;
        for (const auto& [placement, weight] : members)
        {
            if (placement.empty() || placement == "explicit")
            {
                w.FailAt(weight.lines->keyLine,
                         weight.path,
                         "a generated job's placement must be packed, spread, random or "
                         "scheduler");
            }
            s.placementMix.emplace_back(placement, w.NonNegative(weight));
            total += s.placementMix.back().second;
        }
        CheckWeightTotal(w, v, total);
    });
    o.With("iterations", [&](const Node& v) { s.iterations = w.Uint32(v, 1); });
    o.With("seed",
           [&](const Node& v) { s.seed = w.Unsigned(v, 0, std::numeric_limits<uint64_t>::max()); });
    if (s.enabled)
    {
        const std::string why = "required by a synthetic job mix";
        o.Require("jobs", why);
        o.Require("arrivalRatePerS", why);
        o.Require("modelMix", why);
        o.Require("workerSizes", why);
    }
}

// ------------------------------------------------------ topology keys doc

} // namespace

// ------------------------------------------------------------------ public

ScenarioSpec
ReadScenarioFile(const std::string& path)
{
    return ReadScenarioText(ReadInputFile(path, InputFileKinds::kScenario), path);
}

ScenarioSpec
ReadScenarioText(const std::string& text, const std::string& sourceName)
{
    const LocatedJson w(text, sourceName);
    const Node root = w.Root();
    if (!root.json->is_object())
    {
        w.Fail(root, "a scenario must be a JSON object, got " + LocatedJson::Describe(*root.json));
    }
    const LocatedJsonObject top(w,
                                root,
                                {"name",
                                 "description",
                                 "seed",
                                 "stopTime",
                                 "scale",
                                 "topology",
                                 "fabric",
                                 "faults",
                                 "attributes",
                                 "jobDefaults",
                                 "jobs",
                                 "jobTrace",
                                 "synthetic",
                                 "scheduler",
                                 "schedulerParams",
                                 "backend",
                                 "output"});

    ScenarioSpec spec;
    spec.source = sourceName;
    w.CollectLines(spec.lines);
    const std::filesystem::path base = std::filesystem::path(sourceName).parent_path();
    const PathResolver resolve = [&base](const std::string& p) {
        std::filesystem::path fp(p);
        if (fp.is_relative() && !base.empty())
        {
            return (base / fp).lexically_normal().string();
        }
        return p;
    };

    spec.name = std::filesystem::path(sourceName).stem().string();
    top.With("name", [&](const Node& v) { spec.name = w.String(v); });
    top.With("description", [&](const Node& v) { spec.description = w.String(v, true); });
    top.With("seed", [&](const Node& v) {
        spec.seed = w.Unsigned(v, 1, std::numeric_limits<uint32_t>::max());
    });
    top.With("stopTime", [&](const Node& v) { spec.stopTimeNs = w.TimeNs(v); });
    top.With("scale", [&](const Node& v) { spec.scale = w.Positive(v); });
    top.With("attributes", [&](const Node& v) {
        static const std::regex name(R"(^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)+$)");
        for (const auto& [key, value] : w.Members(v))
        {
            if (!std::regex_match(key, name))
            {
                w.FailAt(value.lines->keyLine,
                         value.path,
                         "expected an attribute name such as \"ns3::Dcqcn::G\"");
            }
            std::string text;
            if (value.json->is_string())
            {
                text = value.json->get<std::string>();
            }
            else if (value.json->is_number() || value.json->is_boolean())
            {
                text = value.json->dump();
            }
            else
            {
                w.Fail(value,
                       "expected a string, number or boolean, got " +
                           LocatedJson::Describe(*value.json));
            }
            spec.attributes.emplace_back(key, text);
        }
    });
    // The scenario's own input limits are in force while the rest is read.
    std::unique_ptr<InputLimits::Scope> limits;
    try
    {
        limits = std::make_unique<InputLimits::Scope>(spec.attributes);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(spec.Where("attributes") + ": " + e.what());
    }
    top.With("topology", [&](const Node& v) { ReadScenarioTopology(w, v, spec.topology); });
    if (!spec.topology.path.empty())
    {
        spec.topology.path = resolve(spec.topology.path);
    }
    top.With("fabric", [&](const Node& v) { ReadFabric(w, v, resolve, spec.fabric); });
    top.With("faults", [&](const Node& v) { ReadFaults(w, v, spec.faults); });
    top.With("jobDefaults",
             [&](const Node& v) { spec.jobDefaults = ReadJobDefaults(w, v, resolve); });
    top.With("jobs", [&](const Node& v) { ReadJobs(w, v, resolve, spec.jobDefaults, spec.jobs); });
    top.With("jobTrace", [&](const Node& v) { spec.jobTrace = resolve(w.String(v)); });
    spec.synthetic.seed = spec.seed;
    top.With("synthetic", [&](const Node& v) {
        ReadSynthetic(w, v, spec.synthetic);
        // Checked before the generator makes the jobs: their largest size, many times.
        JobSpec largest = spec.jobDefaults;
        for (const auto& [size, weight] : spec.synthetic.workerSizes)
        {
            largest.workers = std::max(largest.workers, size);
        }
        try
        {
            InputLimits::CheckJobs(spec.synthetic.jobs * InputLimits::JobBytes(largest));
        }
        catch (const std::invalid_argument& e)
        {
            Node at = v;
            for (const auto& [key, member] : w.Members(v))
            {
                at = key == "jobs" ? member : at;
            }
            w.Fail(at,
                   std::to_string(spec.synthetic.jobs) + " jobs of up to " +
                       std::to_string(largest.workers) + " workers " + e.what());
        }
    });
    top.With("scheduler", [&](const Node& v) { spec.scheduler = w.String(v); });
    top.With("backend", [&](const Node& v) {
        spec.backend = w.String(v);
        if (spec.backend != "packet" && spec.backend != "flow")
        {
            w.Fail(v, "expected \"packet\" or \"flow\"");
        }
    });
    top.With("schedulerParams", [&](const Node& v) {
        if (!v.json->is_object())
        {
            w.Fail(v, "expected an object, got " + LocatedJson::Describe(*v.json));
        }
        spec.schedulerParams = v.json->dump();
    });
    top.With("output", [&](const Node& v) {
        LocatedJsonObject o(w, v, {"db", "flowRows"});
        o.With("db", [&](const Node& x) { spec.output.db = w.String(x, true); });
        o.With("flowRows", [&](const Node& x) { spec.output.flowRows = w.Bool(x); });
    });

    if (spec.jobs.empty() && spec.jobTrace.empty() && !spec.synthetic.enabled)
    {
        w.Fail(root, "no jobs: give jobs, jobTrace or synthetic");
    }
    return spec;
}

} // namespace ns3
