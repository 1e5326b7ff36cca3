/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-helper.h"

#include "checked-attributes.h"
#include "flag-checks.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/input-limits.h"
#include "ns3/job-trace-reader.h"
#include "ns3/model-catalog.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/string.h"
#include "ns3/synthetic-job-generator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The fabric keys an HPCC config's network settings replace.
constexpr const char* kKeysHpccConfigSets[] = {"mtu",
                                               "cc",
                                               "pfc",
                                               "bufferBytes",
                                               "ackInterval",
                                               "rto",
                                               "ackTimeoutExponent",
                                               "retryCount",
                                               "slowRestart"};

/// Config keys of a flow-file run that a scenario gives its own way.
constexpr const char* kKeysAScenarioGives[] = {"TOPOLOGY_FILE",
                                               "FLOW_FILE",
                                               "FCT_OUTPUT_FILE",
                                               "PFC_OUTPUT_FILE",
                                               "SIMULATOR_STOP_TIME",
                                               "LINK_DOWN",
                                               "QLEN_MON_FILE",
                                               "BW_MON_FILE",
                                               "RATE_MON_FILE",
                                               "CNP_MON_FILE",
                                               "MON_START",
                                               "QLEN_MON_INTERVAL",
                                               "BW_MON_INTERVAL",
                                               "QP_MON_INTERVAL"};

} // namespace

ScenarioHelper::ScenarioHelper(const ScenarioSpec& spec)
    : m_spec(spec)
{
    if (spec.fabric.hpccConfig.empty())
    {
        return;
    }
    for (const char* key : kKeysHpccConfigSets)
    {
        const std::string field = std::string("fabric.") + key;
        if (spec.lines.count(field) != 0)
        {
            throw std::runtime_error(spec.Where(field) + ": fabric.hpccConfig sets the NICs, " +
                                     "switches and congestion control: give one or the other");
        }
    }
    try
    {
        m_hpcc.emplace(spec.fabric.hpccConfig, false);
    }
    catch (const std::runtime_error& e)
    {
        throw std::runtime_error(spec.Where("fabric.hpccConfig") + ": " + e.what());
    }
}

std::string
ScenarioHelper::DescribeHpccConfigLeftOut() const
{
    if (!m_hpcc)
    {
        return "";
    }
    std::string text = m_hpcc->DescribeUnmodelledKeys();
    std::string own;
    for (const char* key : kKeysAScenarioGives)
    {
        if (const uint32_t line = m_hpcc->Line(key); line > 0)
        {
            own +=
                std::string(own.empty() ? "" : ", ") + key + " (line " + std::to_string(line) + ")";
        }
    }
    if (!own.empty())
    {
        text += std::string(text.empty() ? "" : "\n") + m_hpcc->GetPath() +
                ": not used beside a scenario, which gives its own topology, jobs, outputs " +
                "(the results database, with ns3::PortMonitor's samples), end and faults: " + own;
    }
    return text;
}

std::string
ScenarioHelper::GetFabricCc() const
{
    return m_hpcc ? m_hpcc->GetCongestionControlSpec() : m_spec.fabric.cc;
}

ScopedConfigDefaults
ScenarioHelper::ApplyGlobals() const
{
    ScopedConfigDefaults defaults;
    for (const auto& [name, value] : m_spec.attributes)
    {
        try
        {
            defaults.Set(name, value, m_spec.Where("attributes." + name));
        }
        catch (const std::invalid_argument& e)
        {
            throw std::runtime_error(e.what());
        }
    }
    RngSeedManager::SetSeed(static_cast<uint32_t>(m_spec.seed));
    return defaults;
}

FabricTopology
ScenarioHelper::BuildTopology() const
{
    Ptr<TopologyBuilder> builder;
    try
    {
        builder = m_spec.topology.MakeBuilder();
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(m_spec.Where("topology.kind") + ": " + e.what());
    }
    const InputLimits::Scope limits(m_spec.attributes);
    try
    {
        // Checked again here: attribute defaults set for the run (an
        // "attributes" entry for the builder) apply to its keys not given.
        const std::optional<TopologySize> size = builder->Estimate();
        InputLimits::CheckFabric(size ? size->Elements() : 0);
        return builder->Build();
    }
    catch (const std::exception& e)
    {
        throw std::runtime_error(m_spec.Where("topology") + ": " + e.what());
    }
}

bool
ScenarioHelper::KeyStepsAside(const std::string& key, const std::string& attribute) const
{
    const std::string field = "fabric." + key;
    const bool inFile = m_spec.lines.count(field) != 0;
    for (const auto& [name, text] : m_spec.attributes)
    {
        if (name == attribute)
        {
            if (inFile)
            {
                throw std::runtime_error(m_spec.Where(field) + " and " +
                                         m_spec.Where("attributes." + name) +
                                         " set the same attribute: give only one");
            }
            return true;
        }
    }
    if (CommandLineAttributes().count(attribute) != 0)
    {
        if (inFile)
        {
            throw std::runtime_error(m_spec.Where(field) + " and --" + attribute +
                                     " set the same attribute: give only one");
        }
        return true;
    }
    return false;
}

uint32_t
ScenarioHelper::FabricUint(const std::string& key, const std::string& attribute, uint32_t own) const
{
    if (!KeyStepsAside(key, attribute))
    {
        return own;
    }
    const std::string::size_type split = attribute.rfind("::");
    TypeId::AttributeInformation info;
    TypeId::LookupByName(attribute.substr(0, split))
        .LookupAttributeByName(attribute.substr(split + 2), &info);
    return static_cast<uint32_t>(DynamicCast<const UintegerValue>(info.initialValue)->Get());
}

RoceFabricHelper
ScenarioHelper::MakeFabricHelper() const
{
    const ScenarioSpec::Fabric& f = m_spec.fabric;
    RoceFabricHelper helper;
    helper.SetEcmpSeed(static_cast<uint32_t>(m_spec.seed));
    if (m_hpcc)
    {
        m_hpcc->Configure(helper);
        return helper;
    }
    try
    {
        helper.SetCongestionControl(f.cc);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(m_spec.Where("fabric.cc") + ": " + e.what());
    }
    // Each fabric key sets one attribute. The scenario's "attributes" or the
    // command line may set the same attribute's default instead (e.g. a
    // payload that is no path MTU); then the key's own default steps aside,
    // and giving both is an error (KeyStepsAside).
    auto set = [&](const char* key,
                   const std::string& attribute,
                   const AttributeValue& value,
                   void (RoceFabricHelper::*setter)(const std::string&, const AttributeValue&)) {
        const std::string field = std::string("fabric.") + key;
        const std::string::size_type split = attribute.rfind("::");
        if (KeyStepsAside(key, attribute))
        {
            return;
        }
        TypeId tid = TypeId::LookupByName(attribute.substr(0, split));
        try
        {
            (helper.*setter)(attribute.substr(split + 2),
                             *CheckedAttributeValue(tid,
                                                    attribute.substr(split + 2),
                                                    value,
                                                    m_spec.Where(field)));
        }
        catch (const std::invalid_argument& e)
        {
            throw std::runtime_error(e.what());
        }
    };
    const auto nic = &RoceFabricHelper::SetNicAttribute;
    set("mtu", "ns3::RdmaNic::PayloadPerPacket", UintegerValue(f.mtu), nic);
    set("ackInterval", "ns3::RdmaNic::AckInterval", UintegerValue(f.ackInterval), nic);
    set("rto", "ns3::RdmaNic::RetransmitTimeout", TimeValue(NanoSeconds(f.rtoNs)), nic);
    set("ackTimeoutExponent",
        "ns3::RdmaNic::AckTimeoutExponent",
        UintegerValue(f.ackTimeoutExponent),
        nic);
    set("retryCount", "ns3::RdmaNic::RetryCount", UintegerValue(f.retryCount), nic);
    set("retransmission",
        "ns3::RdmaNic::AdaptiveRetransmission",
        BooleanValue(f.retransmission == "adaptive"),
        nic);
    set("selectiveRepeat", "ns3::RdmaNic::SelectiveRepeat", BooleanValue(f.selectiveRepeat), nic);
    set("slowRestart", "ns3::RdmaNic::SlowRestart", BooleanValue(f.slowRestart), nic);
    set("pfc",
        "ns3::RoceSwitch::PfcEnabled",
        BooleanValue(f.pfc),
        &RoceFabricHelper::SetSwitchAttribute);
    set("bufferBytes",
        "ns3::SwitchMmu::BufferSize",
        UintegerValue(f.bufferBytes),
        &RoceFabricHelper::SetMmuAttribute);
    return helper;
}

Ptr<FlowNetwork>
ScenarioHelper::MakeFlowNetwork(const FabricTopology& topology) const
{
    const ScenarioSpec::Fabric& f = m_spec.fabric;
    Ptr<FlowNetwork> network = CreateObject<FlowNetwork>();
    // The same values the NICs take, wherever they were set.
    network->SetAttribute(
        "PayloadPerPacket",
        UintegerValue(m_hpcc ? m_hpcc->GetPayloadBytes()
                             : FabricUint("mtu", "ns3::RdmaNic::PayloadPerPacket", f.mtu)));
    network->SetAttribute(
        "AckInterval",
        UintegerValue(m_hpcc
                          ? m_hpcc->GetAckIntervalPackets()
                          : FabricUint("ackInterval", "ns3::RdmaNic::AckInterval", f.ackInterval)));
    network->SetAttribute("EcmpSeed", UintegerValue(static_cast<uint32_t>(m_spec.seed)));
    network->SetAttribute("RecordMessages", BooleanValue(m_spec.output.flowRows));
    network->Build(topology);
    return network;
}

std::vector<JobSpec>
ScenarioHelper::CollectJobs() const
{
    std::vector<JobSpec> jobs = m_spec.jobs;
    uint32_t nextId = 0;
    for (const JobSpec& j : jobs)
    {
        nextId = std::max(nextId, j.id + 1);
    }
    m_listed = jobs.size();
    if (!m_spec.jobTrace.empty())
    {
        for (JobSpec& j : ReadJobTrace(m_spec.jobTrace, m_spec.jobDefaults, nextId))
        {
            jobs.push_back(j);
            nextId = std::max(nextId, j.id + 1);
        }
    }
    m_listedOrTraced = jobs.size();
    if (m_spec.synthetic.enabled)
    {
        for (JobSpec& j : GenerateSyntheticJobs(m_spec.synthetic, m_spec.jobDefaults, nextId))
        {
            jobs.push_back(j);
        }
    }
    const InputLimits::Scope limits(m_spec.attributes);
    double jobBytes = 0;
    for (const JobSpec& j : jobs)
    {
        jobBytes += InputLimits::JobBytes(j);
    }
    try
    {
        InputLimits::CheckJobs(jobBytes);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error((m_spec.jobTrace.empty() ? m_spec.source : m_spec.jobTrace) +
                                 ": " + std::to_string(jobs.size()) + " jobs " + e.what());
    }
    for (std::size_t i = 0; i < jobs.size(); ++i)
    {
        JobSpec& j = jobs[i];
        j.scale *= m_spec.scale;
        j.latencyScale *= m_spec.scale;
        try
        {
            ModelCatalog::Validate(j);
        }
        catch (const std::exception& e)
        {
            // A bad value, or a workload file the check reads (its error names the file).
            throw std::runtime_error(JobLocation(i, j.id) + ": " + e.what());
        }
    }
    m_indexOfId.clear();
    for (std::size_t i = 0; i < jobs.size(); ++i)
    {
        m_indexOfId.emplace(jobs[i].id, i);
    }
    return jobs;
}

std::string
ScenarioHelper::JobLocation(std::size_t index, uint32_t id) const
{
    // Listed jobs point at their place in the file; generated ones at their source.
    if (index < m_listed)
    {
        return m_spec.Where("jobs[" + std::to_string(index) + "]");
    }
    if (index < m_listedOrTraced)
    {
        return m_spec.jobTrace + ": job " + std::to_string(id);
    }
    return m_spec.Where("synthetic");
}

void
ScenarioHelper::AddJobs(TrainingCluster& cluster, const std::vector<JobSpec>& jobs) const
{
    for (std::size_t i = 0; i < jobs.size(); ++i)
    {
        try
        {
            cluster.AddJob(jobs[i]);
        }
        catch (const std::invalid_argument& e)
        {
            // A subset of the jobs (one job alone) is still located at its place.
            auto it = m_indexOfId.find(jobs[i].id);
            const std::size_t index = it == m_indexOfId.end() ? i : it->second;
            throw std::runtime_error(JobLocation(index, jobs[i].id) + ": " + e.what());
        }
    }
}

} // namespace ns3
