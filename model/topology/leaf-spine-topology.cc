/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "leaf-spine-topology.h"

#include <stdexcept>
#include <string>

namespace ns3
{

FabricTopology
MakeLeafSpine(const LeafSpineParams& params)
{
    auto requirePositive = [](uint32_t value, const char* field) {
        if (value == 0)
        {
            throw std::runtime_error(std::string("leaf-spine: ") + field + " must be >= 1");
        }
    };
    requirePositive(params.leaves, "leaves");
    requirePositive(params.spines, "spines");
    requirePositive(params.hostsPerLeaf, "hostsPerLeaf");
    requirePositive(params.linksPerLeafSpine, "linksPerLeafSpine");

    FabricTopology topo;
    std::vector<uint32_t> hosts;
    for (uint32_t l = 0; l < params.leaves; ++l)
    {
        for (uint32_t h = 0; h < params.hostsPerLeaf; ++h)
        {
            hosts.push_back(
                topo.AddHost("host-l" + std::to_string(l) + "-h" + std::to_string(h), -1, l));
        }
    }
    std::vector<uint32_t> leaves;
    for (uint32_t l = 0; l < params.leaves; ++l)
    {
        leaves.push_back(topo.AddSwitch("leaf-" + std::to_string(l), 1, -1, l));
    }
    std::vector<uint32_t> spines;
    for (uint32_t s = 0; s < params.spines; ++s)
    {
        spines.push_back(topo.AddSwitch("spine-" + std::to_string(s), 2));
    }

    for (uint32_t i = 0; i < hosts.size(); ++i)
    {
        topo.AddLink(hosts[i],
                     leaves[i / params.hostsPerLeaf],
                     params.hostRateBps,
                     params.hostDelayNs);
    }
    for (uint32_t leaf : leaves)
    {
        for (uint32_t spine : spines)
        {
            for (uint32_t m = 0; m < params.linksPerLeafSpine; ++m)
            {
                topo.AddLink(leaf, spine, params.leafSpineRateBps, params.leafSpineDelayNs);
            }
        }
    }
    topo.Validate();
    return topo;
}

} // namespace ns3
