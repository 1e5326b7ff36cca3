/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_INPUTS_H
#define SCENARIO_INPUTS_H

// Entry points that go on past the scenario reader to where a run takes a
// scenario (ScenarioHelper), for the fuzz targets that need the rest of the
// module and for the test that replays their corpora:
//  - scenario-parallelism: the input is an LLM job's parallelism block (the
//    text after `"parallelism": `), inside a scenario whose other keys are
//    fixed; its jobs are then collected and validated as a run does it
//    (the layout checked against its model, its graph built);
//  - scenario-hpcc-config: the input is a scenario and the text of the HPCC
//    config its fabric.hpccConfig names, separated by a line "---" (without
//    one, the whole input is the config, beside a scenario that names it);
//    the config is then read and mapped, checked against the fabric and
//    topology, and the fabric installed with it, as a run does it.
// As in reader-inputs.h: success, or an error the readers reported.

#include "ns3/checked-attributes.h"
#include "ns3/hpcc-network-config.h"
#include "ns3/input-limits.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/scenario-helper.h"
#include "ns3/scenario-reader.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace ns3
{
namespace fuzz
{

/// The readers of this file, by the name of their corpus folder.
inline const std::vector<std::string>&
ScenarioReaderNames()
{
    static const std::vector<std::string> names = {"scenario-parallelism", "scenario-hpcc-config"};
    return names;
}

/// Limits well below the machine's, so that an input that keeps within them
/// and still takes seconds or gigabytes is a finding, not its size.
inline std::vector<std::pair<std::string, std::string>>
FuzzInputLimits()
{
    return {{"ns3::InputLimits::MaxJobMemory", std::to_string(64u << 20)},
            {"ns3::InputLimits::MaxFabricElements", "4096"}};
}

/// The scenario's "attributes" without InputLimits entries, which would
/// lift the limits above.
inline void
DropInputLimitAttributes(ScenarioSpec& spec)
{
    auto& a = spec.attributes;
    a.erase(std::remove_if(a.begin(),
                           a.end(),
                           [](const std::pair<std::string, std::string>& e) {
                               return e.first.rfind("ns3::InputLimits::", 0) == 0;
                           }),
            a.end());
}

/// The scenario of an LLM job whose parallelism block is \p block.
inline std::string
ParallelismScenario(const std::string& block)
{
    // The model is a job default, so the block may be followed by the job's
    // own keys (a model among them): the text is inserted as it is.
    return "{\"topology\": {\"kind\": \"star\", \"star\": {\"hosts\": 64}}, "
           "\"jobDefaults\": {\"model\": \"mixtral-8x7b\", \"sequenceLength\": 2048, "
           "\"iterations\": 1}, \"jobs\": [{\"parallelism\": \n" +
           block + "\n}]}\n";
}

/// The folder of the scenario-hpcc-config input's two files (one per process).
inline std::string
ScenarioInputDir()
{
    return "/tmp/cs-fuzz-scenario-" + std::to_string(getpid());
}

/// The scenario beside a config, when the input gives none.
inline const char*
DefaultHpccScenario()
{
    return "{\"topology\": {\"kind\": \"leaf-spine\", \"leafSpine\": {\"leaves\": 2, "
           "\"spines\": 1, \"hostsPerLeaf\": 2}},\n"
           " \"fabric\": {\"hpccConfig\": \"config.txt\"},\n"
           " \"jobs\": [{\"workers\": 2}]}\n";
}

/**
 * Read \p text with reader \p reader (one of ScenarioReaderNames).
 * \param source out: what the reader's errors must start with: the
 *        scenario's name, or for scenario-hpcc-config the folder of the
 *        scenario and its config (an error names one of the two)
 * \return true on success
 * \throw std::runtime_error or std::invalid_argument: the reader's error
 */
inline bool
ReadScenarioInput(const std::string& reader, const std::string& text, std::string& source)
{
    // As every example runs (the fabric needs it, and a graph's times are in it).
    RoceUsePicoseconds();
    InputLimits::Scope limits(FuzzInputLimits());
    if (reader == "scenario-parallelism")
    {
        source = "input.json";
        ScenarioSpec spec = ReadScenarioText(ParallelismScenario(text), source);
        DropInputLimitAttributes(spec);
        ScenarioHelper(spec).CollectJobs();
        return true;
    }
    if (reader == "scenario-hpcc-config")
    {
        const std::string dir = ScenarioInputDir();
        std::filesystem::create_directories(dir);
        source = dir + "/";
        std::string scenario = DefaultHpccScenario();
        std::string config = text;
        const std::string separator = "\n---\n";
        if (text.rfind("---\n", 0) == 0)
        {
            scenario.clear();
            config = text.substr(4);
        }
        else if (const size_t at = text.find(separator); at != std::string::npos)
        {
            scenario = text.substr(0, at + 1);
            config = text.substr(at + separator.size());
        }
        {
            std::ofstream out(dir + "/config.txt", std::ios::binary | std::ios::trunc);
            out << config;
        }
        ScenarioSpec spec = ReadScenarioText(scenario, dir + "/scenario.json");
        DropInputLimitAttributes(spec);
        // As a run takes it: the config beside the fabric's keys, what of it
        // is left out, the NICs and switches it configures, its ECN maps
        // against the topology's port rates, and the fabric it installs
        // (its buffer and ECN thresholds per port), as run-network.cc does.
        ScenarioHelper helper(spec);
        helper.DescribeHpccConfigLeftOut();
        helper.GetFabricCc();
        const RoceFabricHelper fabricHelper = helper.MakeFabricHelper();
        if (const HpccNetworkConfig* hpcc = helper.GetHpccConfig())
        {
            hpcc->GetPayloadBytes();
            hpcc->GetAckIntervalPackets();
            hpcc->GetStopTime();
            const FabricTopology topology = helper.BuildTopology();

            // The fabric's nodes live until the simulator is destroyed.
            struct DestroyAfter
            {
                ~DestroyAfter()
                {
                    Simulator::Destroy();
                }
            } destroy;

            try
            {
                hpcc->CheckEcnMaps(topology,
                                   [](uint32_t l) { return "link " + std::to_string(l); });
                const double lossRate = hpcc->GetMapping().config.errorRatePerLink.value_or(0.0);
                hpcc->Install(fabricHelper, topology, [lossRate](uint32_t) { return lossRate; });
            }
            catch (const std::runtime_error& e)
            {
                throw std::runtime_error(spec.Where("fabric.hpccConfig") + ": " + e.what());
            }
        }
        return true;
    }
    throw std::logic_error("no reader " + reader);
}

/// For a fuzz target: read the input; the readers' own errors are fine.
inline void
FuzzScenarioOne(const std::string& reader, const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string source;
    try
    {
        ReadScenarioInput(reader, text, source);
    }
    catch (const std::runtime_error&)
    {
    }
    catch (const std::invalid_argument&)
    {
    }
}

} // namespace fuzz
} // namespace ns3

#endif /* SCENARIO_INPUTS_H */
