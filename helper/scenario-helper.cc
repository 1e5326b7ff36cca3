/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-helper.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/job-trace-reader.h"
#include "ns3/model-catalog.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/string.h"
#include "ns3/synthetic-job-generator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

ScenarioHelper::ScenarioHelper(const ScenarioSpec& spec)
    : m_spec(spec)
{
}

void
ScenarioHelper::ApplyGlobals() const
{
    for (const auto& [name, value] : m_spec.attributes)
    {
        if (!Config::SetDefaultFailSafe(name, StringValue(value)))
        {
            throw std::runtime_error(m_spec.Where("attributes." + name) +
                                     ": no such attribute, or the value '" + value +
                                     "' is invalid for it");
        }
    }
    RngSeedManager::SetSeed(static_cast<uint32_t>(m_spec.seed));
}

FabricTopology
ScenarioHelper::BuildTopology() const
{
    const ScenarioSpec::Topology& t = m_spec.topology;
    try
    {
        if (t.kind == "fat-tree")
        {
            return MakeFatTree(t.fatTree);
        }
        if (t.kind == "leaf-spine")
        {
            return MakeLeafSpine(t.leafSpine);
        }
        if (t.kind == "lingjun")
        {
            return ReadLingjunTopology(t.path, t.lingjun);
        }
        if (t.kind == "rail-optimized")
        {
            return MakeRailOptimized(t.railOptimized);
        }
        if (t.kind == "star")
        {
            FabricTopology topo;
            const uint32_t sw = topo.AddSwitch("switch", 1, -1, 0);
            for (uint32_t h = 0; h < t.star.hosts; ++h)
            {
                const uint32_t host = topo.AddHost("host-" + std::to_string(h), -1, 0);
                topo.AddLink(host, sw, t.star.rateBps, t.star.delayNs);
            }
            return topo;
        }
    }
    catch (const std::exception& e)
    {
        throw std::runtime_error(m_spec.Where("topology") + ": " + e.what());
    }
    throw std::runtime_error(m_spec.Where("topology.kind") + ": unknown topology '" + t.kind + "'");
}

RoceFabricHelper
ScenarioHelper::MakeFabricHelper() const
{
    const ScenarioSpec::Fabric& f = m_spec.fabric;
    RoceFabricHelper helper;
    try
    {
        helper.SetCongestionControl(f.cc);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(m_spec.Where("fabric.cc") + ": " + e.what());
    }
    helper.SetNicAttribute("PayloadPerPacket", UintegerValue(f.mtu));
    helper.SetNicAttribute("AckInterval", UintegerValue(f.ackInterval));
    helper.SetNicAttribute("RetransmitTimeout", TimeValue(NanoSeconds(f.rtoNs)));
    helper.SetNicAttribute("AckTimeoutExponent", UintegerValue(f.ackTimeoutExponent));
    helper.SetNicAttribute("RetryCount", UintegerValue(f.retryCount));
    helper.SetSwitchAttribute("PfcEnabled", BooleanValue(f.pfc));
    helper.SetMmuAttribute("BufferSize", UintegerValue(f.bufferBytes));
    helper.SetEcmpSeed(static_cast<uint32_t>(m_spec.seed));
    return helper;
}

Ptr<FlowNetwork>
ScenarioHelper::MakeFlowNetwork(const FabricTopology& topology) const
{
    const ScenarioSpec::Fabric& f = m_spec.fabric;
    Ptr<FlowNetwork> network = CreateObject<FlowNetwork>();
    network->SetAttribute("PayloadPerPacket", UintegerValue(f.mtu));
    network->SetAttribute("AckInterval", UintegerValue(f.ackInterval));
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
    for (std::size_t i = 0; i < jobs.size(); ++i)
    {
        JobSpec& j = jobs[i];
        j.scale *= m_spec.scale;
        try
        {
            ModelCatalog::Validate(j);
        }
        catch (const std::invalid_argument& e)
        {
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
