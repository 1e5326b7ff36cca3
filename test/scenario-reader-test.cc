/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Scenario file reader: every field read back as written, defaults where
// a field is absent, and for each class of bad input an error that names
// the file, the line the test put the problem on, and the field path.

#include "temp-dir-test.h"

#include "ns3/fat-tree-topology.h"
#include "ns3/leaf-spine-topology.h"
#include "ns3/lingjun-topology-reader.h"
#include "ns3/rail-optimized-topology.h"
#include "ns3/scenario-reader.h"
#include "ns3/star-topology.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

namespace fs = std::filesystem;

class ScenarioFiles : public test::TempDirTest
{
  protected:
    /// The message of the error reading \p text from a file; "" (and a failure) if none.
    std::string ErrorOf(const std::string& text) const
    {
        const std::string path = Write("s.json", text);
        try
        {
            ReadScenarioFile(path);
        }
        catch (const std::runtime_error& e)
        {
            return e.what();
        }
        ADD_FAILURE() << "expected an error for:\n" << text;
        return "";
    }

    std::string ScenarioPath() const
    {
        return (m_dir / "s.json").string();
    }
};

/// The parameters that the values of kind \p kind's block in \p t give its builder \p B.
template <typename B>
auto
ParamsOf(const ScenarioSpec::Topology& t, const std::string& kind)
{
    return DynamicCast<B>(t.MakeBuilder(kind))->GetParams();
}

/// 1-based number of the first line of \p text that contains \p marker.
uint32_t
LineOf(const std::string& text, const std::string& marker)
{
    const size_t at = text.find(marker);
    EXPECT_NE(at, std::string::npos) << marker;
    return 1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

/// Expects "<path>:<line of marker>: <field>: ..." (no field part for "") containing \p part.
#define EXPECT_LOCATED(text, marker, field, part)                                                  \
    do                                                                                             \
    {                                                                                              \
        const std::string t_ = (text);                                                             \
        const std::string msg_ = ErrorOf(t_);                                                      \
        const std::string field_ = (field);                                                        \
        const std::string head_ = ScenarioPath() + ":" + std::to_string(LineOf(t_, marker)) +      \
                                  ": " + (field_.empty() ? "" : field_ + ": ");                    \
        EXPECT_EQ(msg_.rfind(head_, 0), 0u)                                                        \
            << "message: " << msg_ << "\nexpected head: " << head_;                                \
        EXPECT_NE(msg_.find(part), std::string::npos)                                              \
            << "message: " << msg_ << "\nmissing: " << part;                                       \
    } while (false)

// A scenario with every field set to a value other than its default.
const char* const kFull = R"({
  "name": "full-run",
  "description": "every field",
  "seed": 77,
  "stopTime": "2.5ms",
  "scale": 0.25,
  "topology": {
    "kind": "leaf-spine",
    "gpusPerHost": 4,
    "path": "topo/lingjun.csv",
    "fatTree": {
      "k": 8, "hostsPerEdge": 6,
      "hostRate": "25Gbps", "edgeAggRate": "40Gbps", "aggCoreRate": "50Gbps",
      "hostDelay": "2us", "edgeAggDelay": "3us", "aggCoreDelay": "4us"
    },
    "leafSpine": {
      "leaves": 6, "spines": 3, "hostsPerLeaf": 5, "linksPerLeafSpine": 2,
      "hostRate": "200Gbps", "leafSpineRate": "400Gbps",
      "hostDelay": "500ns", "leafSpineDelay": "0.75us"
    },
    "lingjun": {
      "aggPerPod": 2, "coresPerDsw": 3,
      "hostRate": "12.5GBps", "torAggRate": "1Tbps", "aggCoreRate": "10Gb/s",
      "hostDelay": "5us", "torAggDelay": "6us", "aggCoreDelay": "7us"
    },
    "star": { "hosts": 9, "rate": "1Gibps", "delay": "8us" }
  },
  "fabric": {
    "mtu": 2048, "cc": "mltcp-dcqcn", "pfc": false,
    "bufferBytes": 12000000, "ackInterval": 4, "rto": "1ms",
    "ackTimeoutExponent": 14, "retryCount": 3
  },
  "attributes": {
    "ns3::Dcqcn::G": 0.00390625,
    "ns3::RoceNetDevice::Mtu": "1500",
    "ns3::Dcqcn::Fast": true
  },
  "jobDefaults": {
    "model": "pythia-410m", "workers": 8, "gpusPerHost": 2, "placement": "spread",
    "iterations": 30, "arrival": "1ms", "weight": 3.5, "collective": "all-gather",
    "channels": 2, "buckets": 3, "dtype": "fp16", "gpu": "h100", "computeEfficiency": 0.5,
    "batchPerGpu": 16, "sequenceLength": 2048, "computeTime": "20ms", "scale": 0.5
  },
  "jobs": [
    {
      "id": 7, "model": "gpt2-355m", "workers": 4, "gpusPerHost": 4,
      "hosts": [3, 1, 2, 1],
      "iterations": 12, "arrival": "1.5s", "weight": 9, "collective": "all-to-all",
      "channels": 4, "buckets": 5, "dtype": "fp32", "gpu": "a100", "computeEfficiency": 0.3,
      "batchPerGpu": 2, "sequenceLength": 512, "computeTime": "3ms", "scale": 2
    },
    { "model": "JOB-ONE-MODEL" }
  ],
  "jobTrace": "traces/jobs.csv",
  "synthetic": {
    "enabled": false, "jobs": 50, "arrivalRatePerS": 0.25,
    "modelMix": { "gpt2-124m": 3, "pythia-1b": 1 },
    "workerSizes": { "16": 1, "4": 2.5 },
    "iterations": 40, "seed": 123456789012
  },
  "scheduler": "harmonics",
  "schedulerParams": { "epoch": "1ms", "solver": { "timeLimit": 2, "gap": 0.01 } },
  "output": { "db": "out/results.db", "flowRows": false }
}
)";

TEST_F(ScenarioFiles, EveryFieldIsReadBack)
{
    const std::string path = Write("full.json", kFull);
    const ScenarioSpec s = ReadScenarioFile(path);

    EXPECT_EQ(s.source, path);
    EXPECT_EQ(s.name, "full-run");
    EXPECT_EQ(s.description, "every field");
    EXPECT_EQ(s.seed, 77u);
    EXPECT_EQ(s.stopTimeNs, 2500000);
    EXPECT_DOUBLE_EQ(s.scale, 0.25);

    const auto& t = s.topology;
    const FatTreeParams fatTree = ParamsOf<FatTreeBuilder>(t, "fat-tree");
    const LeafSpineParams leafSpine = ParamsOf<LeafSpineBuilder>(t, "leaf-spine");
    const LingjunParams lingjun = ParamsOf<LingjunBuilder>(t, "lingjun");
    const StarParams star = ParamsOf<StarBuilder>(t, "star");
    EXPECT_EQ(t.kind, "leaf-spine");
    EXPECT_EQ(t.gpusPerHost, 4u);
    EXPECT_EQ(t.path, (m_dir / "topo" / "lingjun.csv").string()); // relative to the file
    EXPECT_EQ(fatTree.k, 8u);
    EXPECT_EQ(fatTree.hostsPerEdge, 6u);
    EXPECT_EQ(fatTree.hostRateBps, 25000000000u);
    EXPECT_EQ(fatTree.edgeAggRateBps, 40000000000u);
    EXPECT_EQ(fatTree.aggCoreRateBps, 50000000000u);
    EXPECT_EQ(fatTree.hostDelayNs, 2000);
    EXPECT_EQ(fatTree.edgeAggDelayNs, 3000);
    EXPECT_EQ(fatTree.aggCoreDelayNs, 4000);
    EXPECT_EQ(leafSpine.leaves, 6u);
    EXPECT_EQ(leafSpine.spines, 3u);
    EXPECT_EQ(leafSpine.hostsPerLeaf, 5u);
    EXPECT_EQ(leafSpine.linksPerLeafSpine, 2u);
    EXPECT_EQ(leafSpine.hostRateBps, 200000000000u);
    EXPECT_EQ(leafSpine.leafSpineRateBps, 400000000000u);
    EXPECT_EQ(leafSpine.hostDelayNs, 500);
    EXPECT_EQ(leafSpine.leafSpineDelayNs, 750);
    EXPECT_EQ(lingjun.aggPerPod, 2u);
    EXPECT_EQ(lingjun.coresPerDsw, 3u);
    EXPECT_EQ(lingjun.hostRateBps, 100000000000u); // 12.5 GB/s x 8
    EXPECT_EQ(lingjun.torAggRateBps, 1000000000000u);
    EXPECT_EQ(lingjun.aggCoreRateBps, 10000000000u);
    EXPECT_EQ(lingjun.hostDelayNs, 5000);
    EXPECT_EQ(lingjun.torAggDelayNs, 6000);
    EXPECT_EQ(lingjun.aggCoreDelayNs, 7000);
    EXPECT_EQ(star.hosts, 9u);
    EXPECT_EQ(star.rateBps, 1073741824u); // 2^30
    EXPECT_EQ(star.delayNs, 8000);

    EXPECT_EQ(s.fabric.mtu, 2048u);
    EXPECT_EQ(s.fabric.cc, "mltcp-dcqcn");
    EXPECT_FALSE(s.fabric.pfc);
    EXPECT_EQ(s.fabric.bufferBytes, 12000000u);
    EXPECT_EQ(s.fabric.ackInterval, 4u);
    EXPECT_EQ(s.fabric.rtoNs, 1000000);
    EXPECT_EQ(s.fabric.ackTimeoutExponent, 14u);
    EXPECT_EQ(s.fabric.retryCount, 3u);

    const std::vector<std::pair<std::string, std::string>> attrs{
        {"ns3::Dcqcn::G", "0.00390625"},
        {"ns3::RoceNetDevice::Mtu", "1500"},
        {"ns3::Dcqcn::Fast", "true"}};
    EXPECT_EQ(s.attributes, attrs);

    const JobSpec& d = s.jobDefaults;
    EXPECT_EQ(d.model, "pythia-410m");
    EXPECT_EQ(d.workers, 8u);
    EXPECT_EQ(d.gpusPerHost, 2u);
    EXPECT_EQ(d.placement, "spread");
    EXPECT_EQ(d.iterations, 30u);
    EXPECT_EQ(d.arrivalNs, 1000000);
    EXPECT_DOUBLE_EQ(d.weight, 3.5);
    EXPECT_EQ(d.collective, "all-gather");
    EXPECT_EQ(d.channels, 2u);
    EXPECT_EQ(d.buckets, 3u);
    EXPECT_EQ(d.dtype, "fp16");
    EXPECT_EQ(d.gpu, "h100");
    EXPECT_DOUBLE_EQ(d.computeEfficiency, 0.5);
    EXPECT_EQ(d.batchPerGpu, 16u);
    EXPECT_EQ(d.sequenceLength, 2048u);
    EXPECT_EQ(d.computeTimeNs, 20000000);
    EXPECT_DOUBLE_EQ(d.scale, 0.5);

    ASSERT_EQ(s.jobs.size(), 2u);
    const JobSpec& a = s.jobs[0];
    EXPECT_EQ(a.id, 7u);
    EXPECT_EQ(a.model, "gpt2-355m");
    EXPECT_EQ(a.workers, 4u);
    EXPECT_EQ(a.gpusPerHost, 4u);
    EXPECT_EQ(a.placement, "explicit"); // implied by hosts
    EXPECT_EQ(a.hosts, (std::vector<uint32_t>{3, 1, 2, 1}));
    EXPECT_EQ(a.iterations, 12u);
    EXPECT_EQ(a.arrivalNs, 1500000000);
    EXPECT_DOUBLE_EQ(a.weight, 9);
    EXPECT_EQ(a.collective, "all-to-all");
    EXPECT_EQ(a.channels, 4u);
    EXPECT_EQ(a.buckets, 5u);
    EXPECT_EQ(a.dtype, "fp32");
    EXPECT_EQ(a.gpu, "a100");
    EXPECT_DOUBLE_EQ(a.computeEfficiency, 0.3);
    EXPECT_EQ(a.batchPerGpu, 2u);
    EXPECT_EQ(a.sequenceLength, 512u);
    EXPECT_EQ(a.computeTimeNs, 3000000);
    EXPECT_DOUBLE_EQ(a.scale, 2);

    // The second job gives only its model: id from its position, the rest from jobDefaults.
    JobSpec b = d;
    b.id = 1;
    b.model = "JOB-ONE-MODEL";
    const JobSpec& r = s.jobs[1];
    EXPECT_EQ(r.id, b.id);
    EXPECT_EQ(r.model, b.model);
    EXPECT_EQ(r.workers, b.workers);
    EXPECT_EQ(r.placement, b.placement);
    EXPECT_TRUE(r.hosts.empty());
    EXPECT_EQ(r.iterations, b.iterations);
    EXPECT_EQ(r.arrivalNs, b.arrivalNs);
    EXPECT_EQ(r.collective, b.collective);
    EXPECT_EQ(r.computeTimeNs, b.computeTimeNs);
    EXPECT_DOUBLE_EQ(r.scale, b.scale);

    EXPECT_EQ(s.jobTrace, (m_dir / "traces" / "jobs.csv").string());
    EXPECT_FALSE(s.synthetic.enabled);
    EXPECT_EQ(s.synthetic.jobs, 50u);
    EXPECT_DOUBLE_EQ(s.synthetic.arrivalRatePerS, 0.25);
    const std::vector<std::pair<std::string, double>> mix{{"gpt2-124m", 3}, {"pythia-1b", 1}};
    EXPECT_EQ(s.synthetic.modelMix, mix);
    const std::vector<std::pair<uint32_t, double>> sizes{{16, 1}, {4, 2.5}}; // file order
    EXPECT_EQ(s.synthetic.workerSizes, sizes);
    EXPECT_EQ(s.synthetic.iterations, 40u);
    EXPECT_EQ(s.synthetic.seed, 123456789012u);

    EXPECT_EQ(s.scheduler, "harmonics");
    EXPECT_EQ(s.schedulerParams, R"({"epoch":"1ms","solver":{"timeLimit":2,"gap":0.01}})");
    EXPECT_EQ(s.output.db, "out/results.db"); // outputs stay relative to the working directory
    EXPECT_FALSE(s.output.flowRows);

    // Lines of fields, for checks made later by other components.
    const std::string text = kFull;
    EXPECT_EQ(s.lines.at("jobs[1].model"), LineOf(text, "JOB-ONE-MODEL"));
    EXPECT_EQ(s.lines.at("jobs[0].hosts[2]"), LineOf(text, "\"hosts\": [3, 1, 2, 1]"));
    EXPECT_EQ(s.lines.at("schedulerParams.solver.gap"), LineOf(text, "\"gap\""));
    EXPECT_EQ(s.lines.at("fabric.cc"), LineOf(text, "mltcp-dcqcn"));
    EXPECT_EQ(s.Where("jobs[1].model"),
              path + ":" + std::to_string(LineOf(text, "JOB-ONE-MODEL")) + ": jobs[1].model");
    EXPECT_EQ(s.Where("no.such"), path + ": no.such");
}

TEST_F(ScenarioFiles, AbsentFieldsKeepTheirDefaults)
{
    const ScenarioSpec s = ReadScenarioFile(Write("minimal-run.json", R"({"jobs": [{}]})"));
    const ScenarioSpec def;
    const JobSpec job;
    EXPECT_EQ(s.name, "minimal-run");
    EXPECT_EQ(s.seed, def.seed);
    EXPECT_EQ(s.stopTimeNs, 0);
    EXPECT_DOUBLE_EQ(s.scale, 1.0);
    EXPECT_EQ(s.topology.kind, "fat-tree");
    EXPECT_EQ(s.topology.gpusPerHost, 8u);
    EXPECT_EQ(ParamsOf<FatTreeBuilder>(s.topology, "fat-tree").k, FatTreeParams{}.k);
    EXPECT_EQ(ParamsOf<FatTreeBuilder>(s.topology, "fat-tree").hostRateBps,
              FatTreeParams{}.hostRateBps);
    EXPECT_EQ(ParamsOf<LeafSpineBuilder>(s.topology, "leaf-spine").leaves,
              LeafSpineParams{}.leaves);
    EXPECT_EQ(ParamsOf<LingjunBuilder>(s.topology, "lingjun").aggPerPod, LingjunParams{}.aggPerPod);
    EXPECT_EQ(s.fabric.mtu, 4096u); // the RoCE path MTU AI clusters run
    EXPECT_EQ(s.fabric.cc, "dcqcn");
    EXPECT_TRUE(s.fabric.pfc);
    EXPECT_EQ(s.fabric.bufferBytes, 32u * 1024 * 1024);
    EXPECT_EQ(s.fabric.ackInterval, 16u);
    EXPECT_EQ(s.fabric.rtoNs, 0) << "no fixed timeout: InfiniBand's, as NCCL sets it";
    EXPECT_EQ(s.fabric.ackTimeoutExponent, 20u);
    EXPECT_EQ(s.fabric.retryCount, 7u);
    EXPECT_TRUE(s.attributes.empty());
    EXPECT_EQ(s.scheduler, "fair");
    EXPECT_EQ(s.schedulerParams, "{}");
    EXPECT_EQ(s.output.db, "");
    EXPECT_TRUE(s.output.flowRows);
    EXPECT_TRUE(s.jobTrace.empty());
    EXPECT_FALSE(s.synthetic.enabled);
    ASSERT_EQ(s.jobs.size(), 1u);
    EXPECT_EQ(s.jobs[0].id, 0u);
    EXPECT_EQ(s.jobs[0].model, job.model);
    EXPECT_EQ(s.jobs[0].workers, job.workers);
    EXPECT_EQ(s.jobs[0].placement, job.placement);
    EXPECT_EQ(s.jobs[0].iterations, job.iterations);
}

TEST_F(ScenarioFiles, HostsImplyExplicitPlacementAndTheWorkerCount)
{
    const ScenarioSpec s = ReadScenarioFile(Write("h.json", R"({"jobs": [{"hosts": [4, 4, 9]}]})"));
    ASSERT_EQ(s.jobs.size(), 1u);
    EXPECT_EQ(s.jobs[0].placement, "explicit");
    EXPECT_EQ(s.jobs[0].workers, 3u);
}

TEST_F(ScenarioFiles, SyntheticBlockEnablesItselfAndTakesTheTopLevelSeed)
{
    // The seed comes after the block in the file; order does not matter.
    const ScenarioSpec s = ReadScenarioFile(Write("syn.json", R"({
      "synthetic": { "jobs": 3, "arrivalRatePerS": 2,
                     "modelMix": {"gpt2-124m": 1}, "workerSizes": {"8": 1} },
      "seed": 42
    })"));
    EXPECT_TRUE(s.synthetic.enabled);
    EXPECT_EQ(s.synthetic.seed, 42u);
    EXPECT_EQ(s.synthetic.iterations, 0u); // 0: jobDefaults.iterations
    EXPECT_TRUE(s.jobs.empty());
}

TEST_F(ScenarioFiles, DocumentedCompleteExampleParses)
{
    // The first ```json block of doc/scenario-format.md.
    std::ifstream in(std::string(CS_SOURCE_DIR) + "/doc/scenario-format.md");
    ASSERT_TRUE(in) << "doc/scenario-format.md";
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t begin = doc.find("```json\n");
    ASSERT_NE(begin, std::string::npos);
    const size_t end = doc.find("```", begin + 8);
    ASSERT_NE(end, std::string::npos);
    const ScenarioSpec s =
        ReadScenarioFile(Write("doc-example.json", doc.substr(begin + 8, end - begin - 8)));
    EXPECT_EQ(s.topology.kind, "leaf-spine");
    ASSERT_EQ(s.jobs.size(), 2u);
    EXPECT_EQ(s.jobs[1].placement, "explicit");
    EXPECT_EQ(s.jobs[1].arrivalNs, 2000000);
    EXPECT_EQ(s.jobs[0].iterations, 20u); // from jobDefaults
    EXPECT_FALSE(s.synthetic.enabled);
    EXPECT_EQ(s.attributes.size(), 1u);
}

// ------------------------------------------------------------------ errors

TEST_F(ScenarioFiles, UnknownKeys)
{
    EXPECT_LOCATED(R"({
  "jobs": [{}],
  "stoptime": "1ms"
})",
                   "stoptime",
                   "stoptime",
                   "unknown key (known: name, description, seed, stopTime,");

    const std::string jobs = R"({
  "jobs": [
    { "model": "gpt2-124m" },
    { "model": "gpt2-124m" },
    { "id": 2,
      "modle": "gpt2-124m" }
  ]
})";
    EXPECT_LOCATED(jobs, "modle", "jobs[2].modle", "unknown key (known: id, model, workers,");

    EXPECT_LOCATED(R"({
  "topology": {
    "fatTree": {
      "k": 4,
      "hostrate": "100Gbps"
    }
  },
  "jobs": [{}]
})",
                   "hostrate",
                   "topology.fatTree.hostrate",
                   "unknown key");

    // jobDefaults takes no id and no hosts.
    EXPECT_LOCATED(R"({"jobs": [{}],
  "jobDefaults": { "id": 3 }
})",
                   "\"id\"",
                   "jobDefaults.id",
                   "unknown key");
}

TEST_F(ScenarioFiles, WrongTypes)
{
    EXPECT_LOCATED(R"({
  "jobs": [
    {
      "workers": "4"
    }
  ]
})",
                   "\"workers\"",
                   "jobs[0].workers",
                   "expected an integer, got string \"4\"");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "fabric": {
    "pfc": "yes" }
})",
                   "\"pfc\"",
                   "fabric.pfc",
                   "expected true or false");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "fabric": { "mtu": 1000.5 }
})",
                   "\"mtu\"",
                   "fabric.mtu",
                   "expected an integer, got number 1000.5");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "topology": { "fatTree": { "hostRate": 100 } }
})",
                   "hostRate",
                   "topology.fatTree.hostRate",
                   "expected a rate string such as \"100Gbps\", got number 100");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "stopTime": 5
})",
                   "stopTime",
                   "stopTime",
                   "expected a time string");
    EXPECT_LOCATED(R"({"jobs":
  {"model": "x"}
})",
                   "\"model\"",
                   "jobs",
                   "expected an array, got an object");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "schedulerParams": [1, 2]
})",
                   "schedulerParams",
                   "schedulerParams",
                   "expected an object, got an array");
    EXPECT_LOCATED(R"({"jobs": [ {},
  "gpt2" ]
})",
                   "\"gpt2\"",
                   "jobs[1]",
                   "expected an object, got string \"gpt2\"");
    EXPECT_LOCATED(R"(
[1, 2])",
                   "[1",
                   "",
                   "a scenario must be a JSON object, got an array");
}

TEST_F(ScenarioFiles, ImpossibleValues)
{
    EXPECT_LOCATED(R"({"jobs": [{}],
  "topology": {
    "fatTree": {
      "k": 5
    }
  }
})",
                   "\"k\"",
                   "topology.fatTree.k",
                   "must be even, got 5");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "fabric": {
    "mtu": 0
  }
})",
                   "\"mtu\"",
                   "fabric.mtu",
                   "must be at least 1, got 0");
    // Jumbo Ethernet frames are not a RoCE path MTU; neither is HPCC's 1000 B payload.
    EXPECT_LOCATED(R"({"jobs": [{}],
  "fabric": { "mtu": 9000 }
})",
                   "9000",
                   "fabric.mtu",
                   "expected a RoCE path MTU: 256, 512, 1024, 2048 or 4096, got 9000");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "fabric": { "mtu": 1000 }
})",
                   "1000",
                   "fabric.mtu",
                   "got 1000");
    EXPECT_LOCATED(R"({"jobs": [
  { "workers": 2 },
  { "arrival": "-1us" }
]})",
                   "-1us",
                   "jobs[1].arrival",
                   "must not be negative");
    EXPECT_LOCATED(R"({"jobs": [
  { "weight": -2 }
]})",
                   "weight",
                   "jobs[0].weight",
                   "must not be negative, got -2");
    EXPECT_LOCATED(R"({"jobs": [
  { "iterations": -3 }
]})",
                   "iterations",
                   "jobs[0].iterations",
                   "must be at least 1, got -3");
    EXPECT_LOCATED(R"({"jobs": [
  { "computeEfficiency": 1.5 }
]})",
                   "computeEfficiency",
                   "jobs[0].computeEfficiency",
                   "must be at most 1");
    EXPECT_LOCATED(R"({"jobs": [
  { "mfu": 0.4 }
]})",
                   "mfu",
                   "jobs[0].mfu",
                   "renamed \"computeEfficiency\"");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "scale": 0
})",
                   "scale",
                   "scale",
                   "must be positive");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "seed": 0
})",
                   "seed",
                   "seed",
                   "must be at least 1");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "seed": 4294967296
})",
                   "seed",
                   "seed",
                   "must be at most 4294967295");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "fabric": { "rto": "0us" }
})",
                   "rto",
                   "fabric.rto",
                   "must be positive");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "topology": { "leafSpine": { "spines": 0 } }
})",
                   "spines",
                   "topology.leafSpine.spines",
                   "must be at least 1");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "topology": { "fatTree": { "edgeAggRate": "0Gbps" } }
})",
                   "edgeAggRate",
                   "topology.fatTree.edgeAggRate",
                   "must be positive");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "topology": { "kind": "torus" }
})",
                   "torus",
                   "topology.kind",
                   "unknown topology kind \"torus\" (known: fat-tree, hpcc, leaf-spine, lingjun, "
                   "rail-optimized, star)");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "model": "x"
})",
                   "\"model\"",
                   "model",
                   "unknown key");
}

TEST_F(ScenarioFiles, BadTimeAndRateStrings)
{
    EXPECT_LOCATED(R"({"jobs": [{
  "computeTime": "3 fortnights" }]
})",
                   "fortnights",
                   "jobs[0].computeTime",
                   "bad time \"3 fortnights\": unknown unit");
    EXPECT_LOCATED(R"({"jobs": [{
  "computeTime": "1.5ns" }]
})",
                   "1.5ns",
                   "jobs[0].computeTime",
                   "not a whole number of nanoseconds");
    EXPECT_LOCATED(R"({"jobs": [{
  "arrival": "10" }]
})",
                   "\"10\"",
                   "jobs[0].arrival",
                   "missing unit");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "topology": { "star": { "hosts": 2, "rate": "100Gbs" } }
})",
                   "100Gbs",
                   "topology.star.rate",
                   "bad rate \"100Gbs\": unknown unit");
}

TEST_F(ScenarioFiles, LinesAreThoseOfTheOffendingValue)
{
    // A number at the end of its line: the parser reads the newline after
    // it before reporting it; the line must still be the number's.
    EXPECT_LOCATED(R"({"jobs": [{}],
  "fabric": { "retryCount": 8 }
})",
                   "retryCount",
                   "fabric.retryCount",
                   "8");
    EXPECT_LOCATED("{\"jobs\": [{}],\n  \"fabric\": {\n    \"ackInterval\": 0\n  }\n}\n",
                   "ackInterval",
                   "fabric.ackInterval",
                   "must be at least 1");
    // A value on the line after its key: the value's line.
    EXPECT_LOCATED("{\"jobs\": [{}],\n  \"fabric\": {\n    \"mtu\":\n      0\n  }\n}\n",
                   "      0",
                   "fabric.mtu",
                   "must be at least 1");
    // CRLF line ends count once per line.
    EXPECT_LOCATED("{\"jobs\": [{}],\r\n\r\n  \"fabric\": { \"cc\": 3 }\r\n}\r\n",
                   "\"cc\"",
                   "fabric.cc",
                   "expected a string");
    // Array elements on separate lines.
    EXPECT_LOCATED("{\"jobs\": [{\n \"hosts\": [\n  1,\n  2,\n  -3\n ]}]\n}",
                   "-3",
                   "jobs[0].hosts[2]",
                   "must be at least 0, got -3");
}

TEST_F(ScenarioFiles, SyntaxErrorsReportTheirLine)
{
    // Missing comma: the parser stops at the next key.
    EXPECT_LOCATED("{\n  \"seed\": 3\n  \"scale\": 1\n}\n", "\"scale\"", "", "syntax error");
    // Trailing comma inside an object nested two deep: the path is the enclosing object.
    EXPECT_LOCATED("{\"topology\": {\n \"fatTree\": {\n  \"k\": 4,\n }\n}}\n",
                   " }",
                   "topology.fatTree",
                   "syntax error");
    // A bad literal: the path names the member whose value it is.
    EXPECT_LOCATED("{\n\"fabric\": {\n\"pfc\": ture\n}}", "ture", "fabric.pfc", "syntax error");
    // An unterminated document: blamed on its last line with content.
    EXPECT_LOCATED("{\n  \"jobs\": [{}],\n  \"seed\": 3\n\n\n", "\"seed\"", "", "syntax error");
    // A raw newline inside a string.
    EXPECT_LOCATED("{\n  \"name\": \"two\nlines\"\n}", "\"two", "", "syntax error");
    // An empty file.
    EXPECT_LOCATED("", "", "", "syntax error");
}

TEST_F(ScenarioFiles, DuplicatesAndInconsistentJobs)
{
    EXPECT_LOCATED(R"({"jobs": [{}],
  "fabric": { "mtu": 1024,
              "mtu": 2048 }
})",
                   "2048",
                   "fabric.mtu",
                   "duplicate key");
    EXPECT_LOCATED(R"({"jobs": [
  { "id": 4 },
  { "id": 5 },
  { "id": 4 }
]})",
                   "{ \"id\": 4 }\n]",
                   "jobs[2].id",
                   "duplicate job id 4 (also jobs[0])");
    // Default ids are positions: an explicit id 1 on job 0 collides with job 1.
    EXPECT_LOCATED(R"({"jobs": [
  { "id": 1 },
  { "model": "m" }
]})",
                   "\"m\"",
                   "jobs[1].id",
                   "duplicate job id 1");
    EXPECT_LOCATED(R"({"jobs": [
  { "hosts": [0, 1],
    "placement": "packed" }
]})",
                   "packed",
                   "jobs[0].placement",
                   "must be \"explicit\" when hosts are given");
    EXPECT_LOCATED(R"({"jobs": [
  { "placement": "explicit" }
]})",
                   "explicit",
                   "jobs[0].hosts",
                   "missing (explicit placement needs host indices)");
    EXPECT_LOCATED(R"({"jobs": [
  { "workers": 3,
    "hosts": [0, 1] }
]})",
                   "[0, 1]",
                   "jobs[0].hosts",
                   "lists 2 hosts for 3 workers");
    EXPECT_LOCATED(R"({"jobs": [ { "hosts":
  [] } ]})",
                   "[] }",
                   "jobs[0].hosts",
                   "must not be empty");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "jobDefaults": { "placement": "explicit" }
})",
                   "explicit",
                   "jobDefaults.placement",
                   "cannot be \"explicit\"");
}

TEST_F(ScenarioFiles, MissingRequiredFields)
{
    EXPECT_LOCATED(R"({"jobs": [{}],
  "topology": {
    "kind": "lingjun" }
})",
                   "\"topology\"",
                   "topology.path",
                   "missing (the lingjun topology is read from a file)");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "topology": { "kind": "star",
    "star": { "rate": "10Gbps" } }
})",
                   "\"star\": {",
                   "topology.star.hosts",
                   "missing");
    EXPECT_LOCATED(R"({
  "synthetic": {
    "jobs": 4, "arrivalRatePerS": 1, "workerSizes": {"4": 1} }
})",
                   "\"synthetic\"",
                   "synthetic.modelMix",
                   "missing (required by a synthetic job mix)");
    EXPECT_LOCATED(R"({
  "name": "nothing to run"
})",
                   "{",
                   "",
                   "no jobs: give jobs, jobTrace or synthetic");
}

TEST_F(ScenarioFiles, SyntheticDistributions)
{
    EXPECT_LOCATED(R"({"synthetic": { "jobs": 4, "arrivalRatePerS": 1,
  "modelMix": {"a": 1, "b": -1},
  "workerSizes": {"4": 1} }
})",
                   "\"b\"",
                   "synthetic.modelMix.b",
                   "must not be negative");
    EXPECT_LOCATED(R"({"synthetic": { "jobs": 4, "arrivalRatePerS": 1,
  "modelMix": {"a": 1},
  "workerSizes": {"4": 0, "8": 0} }
})",
                   "\"workerSizes\"",
                   "synthetic.workerSizes",
                   "the weights must not all be zero");
    EXPECT_LOCATED(R"({"synthetic": { "jobs": 4, "arrivalRatePerS": 1,
  "modelMix": {"a": 1},
  "workerSizes": {"4": 1,
    "four": 1} }
})",
                   "\"four\"",
                   "synthetic.workerSizes.four",
                   "a worker count must be a positive integer");
    EXPECT_LOCATED(R"({"synthetic": { "jobs": 4,
  "arrivalRatePerS": 0,
  "modelMix": {"a": 1}, "workerSizes": {"4": 1} }
})",
                   "arrivalRatePerS",
                   "synthetic.arrivalRatePerS",
                   "must be positive");
    EXPECT_LOCATED(R"({"jobs": [{}],
  "attributes": { "Dcqcn.G": 1 }
})",
                   "Dcqcn.G",
                   "attributes.Dcqcn.G",
                   "expected an attribute name");
}

TEST_F(ScenarioFiles, UnreadableFile)
{
    const std::string path = (m_dir / "absent.json").string();
    try
    {
        ReadScenarioFile(path);
        ADD_FAILURE() << "expected an error";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()), path + ": cannot open: No such file or directory");
    }
}

TEST(ScenarioText, SourceNameIsUsedInMessagesAndForRelativePaths)
{
    try
    {
        ReadScenarioText("{\n\"jobs\": 3}", "inline-source");
        ADD_FAILURE() << "expected an error";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()), "inline-source:2: jobs: expected an array, got number 3");
    }
    const ScenarioSpec s =
        ReadScenarioText(R"({"jobTrace": "t.csv", "topology": {"path": "/abs/topo.csv"}})",
                         "dir/sub/scen.json");
    EXPECT_EQ(s.jobTrace, "dir/sub/t.csv");
    EXPECT_EQ(s.topology.path, "/abs/topo.csv");
    EXPECT_EQ(s.name, "scen");
}

TEST(ScenarioText, RailOptimizedTopologyHasOneGpuPerHost)
{
    const ScenarioSpec s = ReadScenarioText(
        R"({"topology": {"kind": "rail-optimized", "railOptimized": {"servers": 6,
            "gpusPerServer": 4, "serversPerGroup": 3, "spines": 5, "linksPerRailSpine": 2,
            "hostRate": "200Gbps", "railSpineRate": "400Gbps", "hostDelay": "2us",
            "railSpineDelay": "3us"}},
            "jobs": [{"id": 0, "model": "gpt2-124m", "workers": 8}]})",
        "rail");
    const RailOptimizedParams r = ParamsOf<RailOptimizedBuilder>(s.topology, "rail-optimized");
    EXPECT_EQ(s.topology.kind, "rail-optimized");
    EXPECT_EQ(s.topology.gpusPerHost, 1u); // each host is one GPU's NIC
    EXPECT_EQ(r.servers, 6u);
    EXPECT_EQ(r.gpusPerServer, 4u);
    EXPECT_EQ(r.serversPerGroup, 3u);
    EXPECT_EQ(r.spines, 5u);
    EXPECT_EQ(r.linksPerRailSpine, 2u);
    EXPECT_EQ(r.hostRateBps, 200000000000u);
    EXPECT_EQ(r.railSpineRateBps, 400000000000u);
    EXPECT_EQ(r.hostDelayNs, 2000);
    EXPECT_EQ(r.railSpineDelayNs, 3000);
    try
    {
        ReadScenarioText("{\"topology\": {\"kind\": \"rail-optimized\",\n\"gpusPerHost\": 8}}",
                         "rail8");
        ADD_FAILURE() << "gpusPerHost 8 accepted on a rail-optimized fabric";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("rail8:2: topology.gpusPerHost: must be 1"),
                  std::string::npos)
            << e.what();
    }
}

} // namespace
