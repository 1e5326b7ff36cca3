/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rail-optimized-topology.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

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
