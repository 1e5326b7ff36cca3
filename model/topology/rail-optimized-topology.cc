/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rail-optimized-topology.h"

#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RailOptimizedBuilder);
NS_OBJECT_SHORT_NAME(RailOptimizedBuilder, "rail-optimized");

TypeId
RailOptimizedBuilder::GetTypeId()
{
    const RailOptimizedParams d;
    static TypeId tid =
        TypeId("ns3::RailOptimizedBuilder")
            .SetParent<TopologyBuilder>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<RailOptimizedBuilder>()
            .AddAttribute("Servers",
                          "multi-GPU servers",
                          UintegerValue(d.servers),
                          MakeUintegerAccessor(&RailOptimizedBuilder::m_servers),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("GpusPerServer",
                          "GPUs per server, each with a NIC of its own: also the rails",
                          UintegerValue(d.gpusPerServer),
                          MakeUintegerAccessor(&RailOptimizedBuilder::m_gpusPerServer),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ServersPerGroup",
                          "servers per rail group, >= 1, servers a multiple of it; "
                          "0 (the default, not to be given): all servers in one group",
                          UintegerValue(d.serversPerGroup),
                          MakeUintegerAccessor(&RailOptimizedBuilder::m_serversPerGroup),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Spines",
                          "spine switches",
                          UintegerValue(d.spines),
                          MakeUintegerAccessor(&RailOptimizedBuilder::m_spines),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("LinksPerRailSpine",
                          "parallel links between each rail leaf and each spine",
                          UintegerValue(d.linksPerRailSpine),
                          MakeUintegerAccessor(&RailOptimizedBuilder::m_linksPerRailSpine),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("HostRate",
                          "NIC - rail leaf links",
                          DataRateValue(DataRate(d.hostRateBps)),
                          MakeDataRateAccessor(&RailOptimizedBuilder::m_hostRate),
                          MakeDataRateChecker())
            .AddAttribute("RailSpineRate",
                          "rail leaf - spine links",
                          DataRateValue(DataRate(d.railSpineRateBps)),
                          MakeDataRateAccessor(&RailOptimizedBuilder::m_railSpineRate),
                          MakeDataRateChecker())
            .AddAttribute("HostDelay",
                          "NIC - rail leaf propagation delay",
                          TimeValue(NanoSeconds(d.hostDelayNs)),
                          MakeTimeAccessor(&RailOptimizedBuilder::m_hostDelay),
                          MakeTimeChecker())
            .AddAttribute("RailSpineDelay",
                          "rail leaf - spine propagation delay",
                          TimeValue(NanoSeconds(d.railSpineDelayNs)),
                          MakeTimeAccessor(&RailOptimizedBuilder::m_railSpineDelay),
                          MakeTimeChecker());
    return tid;
}

RailOptimizedParams
RailOptimizedBuilder::GetParams() const
{
    RailOptimizedParams p;
    p.servers = m_servers;
    p.gpusPerServer = m_gpusPerServer;
    p.serversPerGroup = m_serversPerGroup;
    p.spines = m_spines;
    p.linksPerRailSpine = m_linksPerRailSpine;
    p.hostRateBps = m_hostRate.GetBitRate();
    p.railSpineRateBps = m_railSpineRate.GetBitRate();
    p.hostDelayNs = m_hostDelay.GetNanoSeconds();
    p.railSpineDelayNs = m_railSpineDelay.GetNanoSeconds();
    return p;
}

FabricTopology
RailOptimizedBuilder::Build() const
{
    return MakeRailOptimized(GetParams());
}

std::optional<TopologySize>
RailOptimizedBuilder::Estimate() const
{
    TopologySize size;
    size.hosts = static_cast<double>(m_servers) * m_gpusPerServer;
    const double groups =
        m_serversPerGroup > 0 ? std::ceil(static_cast<double>(m_servers) / m_serversPerGroup) : 1;
    const double leaves = groups * m_gpusPerServer;
    size.switches = leaves + m_spines;
    size.links = size.hosts + leaves * m_spines * m_linksPerRailSpine;
    size.other = size.hosts * m_gpusPerServer; // NVLink joins every pair of GPUs in a server
    return size;
}

std::string
RailOptimizedBuilder::GetDescription() const
{
    return "Servers of `gpusPerServer` GPUs, each GPU with a NIC of its own: NIC i of every "
           "server of a rail group hangs off that group's rail leaf i, and every rail leaf links "
           "to every spine (`MakeRailOptimized`). GPUs of one server talk over NVLink; placement "
           "fills servers (rack = server), Harmonics plans a rail group as a rack.";
}

uint32_t
RailOptimizedBuilder::GetGpusPerHost() const
{
    return 1;
}

std::string
RailOptimizedBuilder::WhyGpusPerHost() const
{
    return "each GPU has a NIC of its own, a fabric host; railOptimized.gpusPerServer sets the "
           "server size";
}

std::string
RailOptimizedBuilder::CheckGiven(const std::string& key, const AttributeValue& value) const
{
    // 0 stands for "not given" (one group of all servers); a file leaves the key out for that.
    if (key == "serversPerGroup" && dynamic_cast<const UintegerValue&>(value).Get() == 0)
    {
        return "must be at least 1, got 0";
    }
    return "";
}

FabricTopology
MakeRailOptimized(const RailOptimizedParams& params)
{
    auto requirePositive = [](uint32_t value, const char* field) {
        if (value == 0)
        {
            throw std::runtime_error(std::string("rail-optimized: ") + field + " must be >= 1");
        }
    };
    requirePositive(params.servers, "servers");
    requirePositive(params.gpusPerServer, "gpusPerServer");
    requirePositive(params.spines, "spines");
    requirePositive(params.linksPerRailSpine, "linksPerRailSpine");
    const uint32_t perGroup = params.serversPerGroup == 0 ? params.servers : params.serversPerGroup;
    if (params.servers % perGroup != 0)
    {
        throw std::runtime_error("rail-optimized: servers (" + std::to_string(params.servers) +
                                 ") must be a multiple of serversPerGroup (" +
                                 std::to_string(perGroup) + ")");
    }
    const uint32_t groups = params.servers / perGroup;
    const uint32_t g = params.gpusPerServer;

    FabricTopology topo;
    // gpuOf[host index]: the GPU (= rail) of that NIC; snake order, see the header.
    std::vector<uint32_t> gpuOf;
    for (uint32_t s = 0; s < params.servers; ++s)
    {
        for (uint32_t k = 0; k < g; ++k)
        {
            const uint32_t gpu = s % 2 == 0 ? k : g - 1 - k;
            gpuOf.push_back(gpu);
            const auto group = static_cast<int32_t>(s / perGroup);
            const uint32_t id =
                topo.AddHost("host-s" + std::to_string(s) + "-g" + std::to_string(gpu),
                             group,
                             static_cast<int32_t>(s));
            topo.SetServer(id, static_cast<int32_t>(s));
            topo.SetSchedulingRack(id, group);
        }
    }
    std::vector<uint32_t> leaves; // group-major, rail-minor
    for (uint32_t grp = 0; grp < groups; ++grp)
    {
        for (uint32_t r = 0; r < g; ++r)
        {
            leaves.push_back(topo.AddSwitch("rail-" + std::to_string(grp) + "-" + std::to_string(r),
                                            1,
                                            static_cast<int32_t>(grp)));
        }
    }
    std::vector<uint32_t> spines;
    for (uint32_t j = 0; j < params.spines; ++j)
    {
        spines.push_back(topo.AddSwitch("spine-" + std::to_string(j), 2));
    }
    for (uint32_t h = 0; h < gpuOf.size(); ++h)
    {
        const uint32_t server = h / g;
        topo.AddLink(topo.GetHosts()[h],
                     leaves[(server / perGroup) * g + gpuOf[h]],
                     params.hostRateBps,
                     params.hostDelayNs);
    }
    for (uint32_t leaf : leaves)
    {
        for (uint32_t spine : spines)
        {
            for (uint32_t m = 0; m < params.linksPerRailSpine; ++m)
            {
                topo.AddLink(leaf, spine, params.railSpineRateBps, params.railSpineDelayNs);
            }
        }
    }
    topo.Validate();
    return topo;
}

uint32_t
RailOptimizedHost(const RailOptimizedParams& params, uint32_t server, uint32_t gpu)
{
    const uint32_t g = params.gpusPerServer;
    if (server >= params.servers || gpu >= g)
    {
        throw std::out_of_range("rail-optimized: no GPU " + std::to_string(gpu) + " on server " +
                                std::to_string(server) + " (" + std::to_string(params.servers) +
                                " servers of " + std::to_string(g) + " GPUs)");
    }
    return server * g + (server % 2 == 0 ? gpu : g - 1 - gpu);
}

} // namespace ns3
