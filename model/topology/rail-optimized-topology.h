/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RAIL_OPTIMIZED_TOPOLOGY_H
#define RAIL_OPTIMIZED_TOPOLOGY_H

#include "fabric-topology.h"
#include "topology-builder.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/// Parameters of a rail-optimized fabric of multi-GPU servers.
struct RailOptimizedParams
{
    uint32_t servers = 4;                     ///< multi-GPU servers, >= 1
    uint32_t gpusPerServer = 8;               ///< GPUs (and NICs, and rails) per server, >= 1
    uint32_t serversPerGroup = 0;             ///< servers per rail group; 0: all in one group
    uint32_t spines = 2;                      ///< spine switches, >= 1
    uint32_t linksPerRailSpine = 1;           ///< parallel links between a rail leaf and a spine
    uint64_t hostRateBps = 100000000000;      ///< NIC - rail leaf links
    uint64_t railSpineRateBps = 100000000000; ///< rail leaf - spine links
    int64_t hostDelayNs = 1000;               ///< NIC - rail leaf propagation delay
    int64_t railSpineDelayNs = 1000;          ///< rail leaf - spine propagation delay
};

/**
 * \ingroup collective-scheduling
 * Build a rail-optimized fabric, as GPU clusters are cabled today (NVIDIA
 * DGX SuperPOD, Alibaba HPN): servers of G GPUs, each GPU with a NIC of its
 * own; NIC i of every server of a rail group hangs off that group's rail
 * leaf i, and every rail leaf links to every spine. Traffic between NICs of
 * one rail and group crosses only its rail leaf; any other crosses a spine.
 *
 * Each NIC is a fabric host (one GPU behind it: gpusPerHost must be 1), and
 * the NICs of one server share its NVLink: FabricNode::server groups them,
 * and collectives between GPUs of one server use NVLink, not the fabric.
 *
 * Numbering:
 * - hosts first, server by server: host index s*G + i is NIC i of server s
 *   on even servers and NIC G-1-i on odd ones, so that a ring through
 *   consecutive host indices (the placement's ring order) leaves each
 *   server on the rail it enters the next one on, as NCCL's rail-aligned
 *   rings do: server 0 GPUs 0..G-1, server 1 GPUs G-1..0, server 2 0..G-1,
 *   ... Every hop between servers then stays on one rail; with an odd
 *   number of servers, the hop closing the ring crosses from rail G-1 to
 *   rail 0 (through a spine). Names "host-s<server>-g<gpu>"; rack = server
 *   (placement keeps a job's GPUs on few servers), pod = rail group,
 *   server = server, scheduling rack = rail group (a rack-level scheduler
 *   plans the group as a rack: a rail-aligned ring inside it crosses only
 *   rail leaves, and its traffic leaves it only over the rail leaves' spine
 *   links);
 * - then the rail leaves, group by group, rail by rail ("rail-<group>-<i>",
 *   tier 1, pod = group, rack -1), then the spines ("spine-<j>", tier 2);
 * - links: NIC - rail leaf in host order, then for each leaf, each spine,
 *   each parallel link, lower tier as FabricLink::a.
 *
 * \param params the parameters
 * \return the validated topology
 * \throw std::runtime_error if a count is zero, servers is not a multiple
 *        of serversPerGroup, a rate is zero or a delay negative
 */
FabricTopology MakeRailOptimized(const RailOptimizedParams& params);

/**
 * \ingroup collective-scheduling
 * The host index of GPU \p gpu's NIC on server \p server in the fabric
 * MakeRailOptimized builds from \p params (see its numbering).
 * \throw std::out_of_range if there is no such server or GPU
 */
uint32_t RailOptimizedHost(const RailOptimizedParams& params, uint32_t server, uint32_t gpu);

/**
 * \ingroup collective-scheduling
 * \brief Topology kind "rail-optimized" (MakeRailOptimized); its attributes
 * are the keys of a scenario's topology.railOptimized block. Its hosts are
 * NICs of one GPU each: it dictates gpusPerHost 1.
 */
class RailOptimizedBuilder : public TopologyBuilder
{
  public:
    static TypeId GetTypeId();

    FabricTopology Build() const override;
    std::optional<TopologySize> Estimate() const override;
    std::string GetDescription() const override;
    uint32_t GetGpusPerHost() const override;
    std::string WhyGpusPerHost() const override;
    std::string CheckGiven(const std::string& key, const AttributeValue& value) const override;

    /// \return the attributes as MakeRailOptimized's parameters
    RailOptimizedParams GetParams() const;

  private:
    uint32_t m_servers;
    uint32_t m_gpusPerServer;
    uint32_t m_serversPerGroup;
    uint32_t m_spines;
    uint32_t m_linksPerRailSpine;
    DataRate m_hostRate;
    DataRate m_railSpineRate;
    Time m_hostDelay;
    Time m_railSpineDelay;
};

} // namespace ns3

#endif /* RAIL_OPTIMIZED_TOPOLOGY_H */
