/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FAT_TREE_TOPOLOGY_H
#define FAT_TREE_TOPOLOGY_H

#include "fabric-topology.h"
#include "topology-builder.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/// Parameters of a k-ary fat-tree.
struct FatTreeParams
{
    uint32_t k = 4;                         ///< switch radix; even, >= 2
    uint32_t hostsPerEdge = 0;              ///< 0 means k/2; more than k/2 oversubscribes
    uint64_t hostRateBps = 100000000000;    ///< host - edge links
    uint64_t edgeAggRateBps = 100000000000; ///< edge - aggregation links
    uint64_t aggCoreRateBps = 100000000000; ///< aggregation - core links
    int64_t hostDelayNs = 1000;             ///< host - edge propagation delay
    int64_t edgeAggDelayNs = 1000;          ///< edge - aggregation propagation delay
    int64_t aggCoreDelayNs = 1000;          ///< aggregation - core propagation delay
};

/**
 * \ingroup collective-scheduling
 * Build a standard k-ary fat-tree: k pods of k/2 edge (tier 1) and k/2
 * aggregation (tier 2) switches, every edge switch linked to every
 * aggregation switch of its pod, and (k/2)^2 core switches (tier 3) in k/2
 * groups, core group j linked to aggregation switch j of every pod.
 *
 * With h = hostsPerEdge (k/2 by default) and half = k/2:
 * - node ids: hosts 0..H-1 (H = k*half*h, numbered pod-major, then edge,
 *   then host, so node id == host index), then edge switches (pod-major),
 *   then aggregation switches (pod-major), then cores;
 * - names "host-p<pod>-e<edge>-h<host>", "edge-p<pod>-<edge>",
 *   "agg-p<pod>-<agg>", "core-<index>"; rack = global edge index
 *   (pod*half + edge) for hosts and edge switches;
 * - links are added host-edge, then edge-agg, then agg-core, with the lower
 *   tier as FabricLink::a. Ports therefore are: edge switch 0..h-1 hosts,
 *   h..h+half-1 aggregation switches; aggregation switch 0..half-1 edges,
 *   half..k-1 cores; core c port p = pod p.
 *
 * \param params the fat-tree parameters
 * \return the validated topology
 * \throw std::runtime_error if k is odd or < 2, or a rate is zero or a delay negative
 */
FabricTopology MakeFatTree(const FatTreeParams& params);

/**
 * \ingroup collective-scheduling
 * \brief Topology kind "fat-tree" (MakeFatTree); its attributes are the keys
 * of a scenario's topology.fatTree block.
 */
class FatTreeBuilder : public TopologyBuilder
{
  public:
    static TypeId GetTypeId();

    FabricTopology Build() const override;
    std::optional<TopologySize> Estimate() const override;
    std::string GetDescription() const override;
    std::string CheckGiven(const std::string& key, const AttributeValue& value) const override;

    /// \return the attributes as MakeFatTree's parameters
    FatTreeParams GetParams() const;

  private:
    uint32_t m_k;
    uint32_t m_hostsPerEdge;
    DataRate m_hostRate;
    DataRate m_edgeAggRate;
    DataRate m_aggCoreRate;
    Time m_hostDelay;
    Time m_edgeAggDelay;
    Time m_aggCoreDelay;
};

} // namespace ns3

#endif /* FAT_TREE_TOPOLOGY_H */
