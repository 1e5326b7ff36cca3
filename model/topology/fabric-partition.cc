/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-partition.h"

#include <map>
#include <stdexcept>
#include <string>

namespace ns3
{

std::vector<uint32_t>
PartitionFabric(const FabricTopology& topology, uint32_t ranks)
{
    if (ranks == 0)
    {
        throw std::invalid_argument("PartitionFabric: ranks must be at least 1");
    }
    const std::vector<FabricNode>& nodes = topology.GetNodes();
    std::vector<uint32_t> rank(nodes.size(), 0);
    if (ranks == 1)
    {
        return rank;
    }
    // Distinct pods and racks, numbered in order of first appearance.
    std::map<int32_t, uint32_t> pods;
    std::map<int32_t, uint32_t> racks;
    for (const FabricNode& n : nodes)
    {
        if (n.pod >= 0)
        {
            pods.emplace(n.pod, 0);
        }
        if (n.rack >= 0)
        {
            racks.emplace(n.rack, 0);
        }
    }
    const bool byPod = pods.size() >= ranks;
    std::map<int32_t, uint32_t>& groups = byPod ? pods : racks;
    if (groups.size() < ranks)
    {
        throw std::invalid_argument("PartitionFabric: the topology has " +
                                    std::to_string(pods.size()) + " pods and " +
                                    std::to_string(racks.size()) + " racks, fewer than the " +
                                    std::to_string(ranks) + " ranks asked for");
    }
    // Contiguous blocks of groups, sizes differing by at most one.
    uint32_t index = 0;
    for (auto& [id, r] : groups)
    {
        r = static_cast<uint32_t>(static_cast<uint64_t>(index++) * ranks / groups.size());
    }
    uint32_t nextLoose = 0;
    for (uint32_t id = 0; id < nodes.size(); ++id)
    {
        const int32_t key = byPod ? nodes[id].pod : nodes[id].rack;
        if (key >= 0)
        {
            rank[id] = groups.at(key);
        }
        else
        {
            rank[id] = nextLoose++ % ranks;
        }
    }
    return rank;
}

} // namespace ns3
