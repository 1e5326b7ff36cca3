/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-topology-builder.h"

#include "ns3/short-name-registry.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ns3
{

namespace
{

/// What a topology file's GPUs are linked to: their server and their NIC's switch.
struct HpccGpuLinks
{
    std::vector<int32_t> server; ///< by node: GPUs joined through NVSwitches share one; else -1
    std::vector<int64_t> edgeOf; ///< by GPU node: the node its one NIC link reaches; else -1
};

HpccGpuLinks
LinkGpus(const HpccTopology& file, const std::string& path)
{
    const FabricTopology& in = file.topology;
    const uint32_t n = in.GetNNodes();
    auto nvswitch = [&file](uint32_t node) {
        return file.nodeType[node] == HpccNodeType::NvSwitch;
    };
    auto host = [&file](uint32_t node) { return file.nodeType[node] == HpccNodeType::Host; };

    // Servers: GPUs joined through NVSwitches (union-find over the nodes).
    std::vector<uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&parent](uint32_t x) {
        while (parent[x] != x)
        {
            x = parent[x] = parent[parent[x]];
        }
        return x;
    };
    HpccGpuLinks out;
    out.edgeOf.assign(n, -1);
    for (uint32_t l = 0; l < in.GetNLinks(); ++l)
    {
        const FabricLink& link = in.GetLink(l);
        for (auto [gpu, other] : {std::pair{link.a, link.b}, std::pair{link.b, link.a}})
        {
            if (!host(gpu))
            {
                continue;
            }
            if (nvswitch(other))
            {
                parent[find(gpu)] = find(other);
            }
            else if (out.edgeOf[gpu] >= 0)
            {
                throw std::runtime_error(path + ": host " + std::to_string(gpu) +
                                         ": more than one NIC link (to nodes " +
                                         std::to_string(out.edgeOf[gpu]) + " and " +
                                         std::to_string(other) + "); a GPU has one NIC");
            }
            else
            {
                out.edgeOf[gpu] = other;
            }
        }
    }
    // Numbered in the order of each server's first GPU.
    out.server.assign(n, -1);
    std::vector<int32_t> serverOfRoot(n, -1);
    int32_t servers = 0;
    for (uint32_t v = 0; v < n; ++v)
    {
        const uint32_t root = find(v);
        if (host(v) && (root != v || nvswitch(root)))
        {
            if (serverOfRoot[root] < 0)
            {
                serverOfRoot[root] = servers++;
            }
            out.server[v] = serverOfRoot[root];
        }
    }
    return out;
}

} // namespace

std::vector<int32_t>
HpccNvlinkServers(const HpccTopology& file, const std::string& path)
{
    return LinkGpus(file, path).server;
}

std::optional<Time>
HpccNvlinkLatency(const HpccTopology& file)
{
    const FabricTopology& in = file.topology;
    std::optional<Time> latency;
    for (uint32_t l = 0; l < in.GetNLinks(); ++l)
    {
        const FabricLink& link = in.GetLink(l);
        const bool a = file.nodeType[link.a] == HpccNodeType::NvSwitch;
        const bool b = file.nodeType[link.b] == HpccNodeType::NvSwitch;
        if (a != b)
        {
            const Time twoHops = NanoSeconds(2 * static_cast<int64_t>(link.delayNs));
            latency = latency ? std::max(*latency, twoHops) : twoHops;
        }
    }
    return latency;
}

FabricTopology
BuildHpccFabric(const HpccTopology& file, const std::string& path)
{
    const FabricTopology& in = file.topology;
    const uint32_t n = in.GetNNodes();
    auto nvswitch = [&file](uint32_t node) {
        return file.nodeType[node] == HpccNodeType::NvSwitch;
    };
    auto host = [&file](uint32_t node) { return file.nodeType[node] == HpccNodeType::Host; };
    const HpccGpuLinks gpus = LinkGpus(file, path);
    std::vector<bool> edge(n, false);
    for (uint32_t v = 0; v < n; ++v)
    {
        if (gpus.edgeOf[v] >= 0 && !host(static_cast<uint32_t>(gpus.edgeOf[v])))
        {
            edge[gpus.edgeOf[v]] = true;
        }
    }

    FabricTopology out;
    std::vector<int64_t> id(n, -1);
    std::vector<int32_t> rack(n, -1);
    int32_t racks = 0;
    for (uint32_t v = 0; v < n; ++v)
    {
        if (edge[v])
        {
            rack[v] = racks++;
        }
    }
    for (uint32_t v = 0; v < n; ++v)
    {
        const std::string& name = in.GetNode(v).name;
        if (nvswitch(v))
        {
            continue;
        }
        if (!host(v))
        {
            id[v] = out.AddSwitch(name, edge[v] ? 1 : 2, -1, rack[v]);
            continue;
        }
        if (gpus.edgeOf[v] < 0)
        {
            throw std::runtime_error(path + ": host " + std::to_string(v) +
                                     ": no NIC link (only NVSwitch links, or none)");
        }
        id[v] = out.AddHost(name, -1, rack[gpus.edgeOf[v]]);
        if (gpus.server[v] >= 0)
        {
            out.SetServer(static_cast<uint32_t>(id[v]), gpus.server[v]);
        }
    }
    for (uint32_t l = 0; l < in.GetNLinks(); ++l)
    {
        const FabricLink& link = in.GetLink(l);
        if (nvswitch(link.a) || nvswitch(link.b))
        {
            continue;
        }
        out.AddLink(static_cast<uint32_t>(id[link.a]),
                    static_cast<uint32_t>(id[link.b]),
                    link.rateBps,
                    link.delayNs);
    }
    return out;
}

NS_OBJECT_ENSURE_REGISTERED(HpccTopologyBuilder);
NS_OBJECT_SHORT_NAME(HpccTopologyBuilder, "hpcc");

TypeId
HpccTopologyBuilder::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HpccTopologyBuilder")
                            .SetParent<TopologyBuilder>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<HpccTopologyBuilder>();
    return tid;
}

FabricTopology
HpccTopologyBuilder::Build() const
{
    return BuildHpccFabric(ReadHpccTopology(GetPath()), GetPath());
}

std::optional<TopologySize>
HpccTopologyBuilder::Estimate() const
{
    return std::nullopt; // the file's size bounds the fabric
}

std::string
HpccTopologyBuilder::GetDescription() const
{
    return "The nodes and links of an HPCC or SimAI topology file (`ReadHpccTopology`); a "
           "SimAI file's NVSwitches become its servers' NVLink (`BuildHpccFabric`).";
}

bool
HpccTopologyBuilder::ReadsFile() const
{
    return true;
}

std::optional<Time>
HpccTopologyBuilder::GetNvlinkLatency() const
{
    return HpccNvlinkLatency(ReadHpccTopology(GetPath()));
}

uint32_t
HpccTopologyBuilder::GetGpusPerHost() const
{
    return 1;
}

std::string
HpccTopologyBuilder::WhyGpusPerHost() const
{
    return "each host of the file is a GPU with its NIC (SimAI) or a server with one NIC (HPCC)";
}

} // namespace ns3
