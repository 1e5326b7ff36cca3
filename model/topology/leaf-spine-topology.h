/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LEAF_SPINE_TOPOLOGY_H
#define LEAF_SPINE_TOPOLOGY_H

#include "fabric-topology.h"
#include "topology-builder.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/// Parameters of a two-tier leaf-spine fabric.
struct LeafSpineParams
{
    uint32_t leaves = 4;                      ///< leaf (ToR) switches, >= 1
    uint32_t spines = 2;                      ///< spine switches, >= 1
    uint32_t hostsPerLeaf = 4;                ///< hosts under each leaf, >= 1
    uint32_t linksPerLeafSpine = 1;           ///< parallel links between each leaf and spine, >= 1
    uint64_t hostRateBps = 100000000000;      ///< host - leaf links
    uint64_t leafSpineRateBps = 100000000000; ///< leaf - spine links
    int64_t hostDelayNs = 1000;               ///< host - leaf propagation delay
    int64_t leafSpineDelayNs = 1000;          ///< leaf - spine propagation delay
};

/**
 * \ingroup collective-scheduling
 * Build a leaf-spine fabric: every leaf (tier 1) linked to every spine
 * (tier 2) by linksPerLeafSpine parallel links.
 *
 * - node ids: hosts 0..H-1 (leaf-major, node id == host index), then
 *   leaves, then spines; names "host-l<leaf>-h<host>", "leaf-<i>",
 *   "spine-<i>"; rack = leaf index for hosts and leaves; pod = -1;
 * - links are added host-leaf, then for each leaf, each spine, each
 *   parallel link, with the lower tier as FabricLink::a. Ports therefore
 *   are: leaf 0..h-1 hosts, then spine s link m at h + s*linksPerLeafSpine + m;
 *   spine: leaf l link m at l*linksPerLeafSpine + m.
 *
 * \param params the leaf-spine parameters
 * \return the validated topology
 * \throw std::runtime_error if a count is zero, a rate is zero or a delay negative
 */
FabricTopology MakeLeafSpine(const LeafSpineParams& params);

/**
 * \ingroup collective-scheduling
 * \brief Topology kind "leaf-spine" (MakeLeafSpine); its attributes are the
 * keys of a scenario's topology.leafSpine block.
 */
class LeafSpineBuilder : public TopologyBuilder
{
  public:
    static TypeId GetTypeId();

    FabricTopology Build() const override;
    std::optional<TopologySize> Estimate() const override;
    std::string GetDescription() const override;

    /// \return the attributes as MakeLeafSpine's parameters
    LeafSpineParams GetParams() const;

  private:
    uint32_t m_leaves;
    uint32_t m_spines;
    uint32_t m_hostsPerLeaf;
    uint32_t m_linksPerLeafSpine;
    DataRate m_hostRate;
    DataRate m_leafSpineRate;
    Time m_hostDelay;
    Time m_leafSpineDelay;
};

} // namespace ns3

#endif /* LEAF_SPINE_TOPOLOGY_H */
