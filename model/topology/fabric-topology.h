/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_TOPOLOGY_H
#define FABRIC_TOPOLOGY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// Whether a fabric node is an end host or a switch.
enum class FabricNodeKind
{
    Host,
    Switch
};

/// One node of a FabricTopology.
struct FabricNode
{
    FabricNodeKind kind; ///< host or switch
    uint32_t tier;       ///< 0 host, 1 edge/ToR/leaf, 2 aggregation/spine, 3 core
    std::string name;    ///< human-readable name, e.g. "edge-p0-1"
    int32_t pod;         ///< pod (or aggregation group) index, -1 if none
    int32_t rack;        ///< hosts: index of the edge switch they hang off; edge switches:
                         ///< their own rack index; -1 if none
    /// Hosts: the multi-GPU server whose NIC this host is (the NICs of one server share its
    /// NVLink); -1: the host is a server of its own. Switches: -1.
    int32_t server{-1};
    /// Hosts: the rack a rack-level scheduler (Harmonics' Local Schedulers) plans this host
    /// in, when that is not its rack: the group of hosts whose traffic among themselves
    /// crosses only the switches below the group's uplinks. Set on a rail-optimized fabric,
    /// where it is the rail group (NICs of one rail and group share a rail leaf) while rack
    /// is the server, for placement. -1: the rack. Switches: -1.
    int32_t schedulingRack{-1};
};

/// One bidirectional link of a FabricTopology.
struct FabricLink
{
    uint32_t a;       ///< node id of one end (generators put the lower tier here)
    uint32_t b;       ///< node id of the other end
    uint64_t rateBps; ///< line rate, bits per second
    int64_t delayNs;  ///< propagation delay, nanoseconds
};

/**
 * \ingroup collective-scheduling
 * \brief A data-center fabric as plain data: nodes, links and port numbering,
 * with no ns-3 devices attached.
 *
 * Generators (MakeFatTree, MakeLeafSpine, ReadLingjunTopology) build one;
 * route computation (EcmpRoutes) and the device installer read it. Node ids
 * and link ids are dense and assigned in insertion order. Parallel links
 * between the same pair of nodes are distinct links with distinct ports.
 *
 * Port numbering: port i of a node is the i-th link added that touches the
 * node, so AdjacentLinks(node)[i] is the link behind port i.
 */
class FabricTopology
{
  public:
    /**
     * Add a host.
     * \param name node name
     * \param pod pod index, -1 if none
     * \param rack index of the edge switch the host hangs off, -1 if none
     * \return the node id
     */
    uint32_t AddHost(const std::string& name, int32_t pod = -1, int32_t rack = -1);

    /**
     * Add a switch.
     * \param name node name
     * \param tier 1 edge/ToR/leaf, 2 aggregation/spine, 3 core (must be >= 1)
     * \param pod pod index, -1 if none
     * \param rack rack index of an edge switch, -1 if none
     * \return the node id
     */
    uint32_t AddSwitch(const std::string& name, uint32_t tier, int32_t pod = -1, int32_t rack = -1);

    /**
     * Make host node \p nodeId one NIC of multi-GPU server \p server: GPUs
     * behind hosts of one server talk over NVLink (SameServer).
     * \throw std::invalid_argument if the node is not a host or \p server < 0
     */
    void SetServer(uint32_t nodeId, int32_t server);

    /**
     * \param hostA a host index
     * \param hostB a host index
     * \return whether the GPUs behind the two hosts share a server's NVLink:
     *         the same host, or hosts of one server
     * \throw std::out_of_range for an unknown host index
     */
    bool SameServer(uint32_t hostA, uint32_t hostB) const;

    /**
     * \param host a host index
     * \return a key of the server behind \p host, equal for two hosts exactly
     *         when SameServer: its server (>= 0), else -(host + 1)
     * \throw std::out_of_range for an unknown host index
     */
    int64_t GetServerKey(uint32_t host) const;

    /**
     * Make \p rack the rack schedulers plan host node \p nodeId in
     * (FabricNode::schedulingRack), in place of its rack.
     * \throw std::invalid_argument if the node is not a host or \p rack < 0
     */
    void SetSchedulingRack(uint32_t nodeId, int32_t rack);

    /**
     * \param host a host index
     * \return the rack schedulers plan the host in: its FabricNode::schedulingRack if
     *         set, else its rack (-1 if none)
     * \throw std::out_of_range for an unknown host index
     */
    int32_t GetSchedulingRack(uint32_t host) const;

    /**
     * Add a link; it becomes the next port of both ends. Rates, delays and
     * self-loops are checked by Validate(), not here.
     * \param a node id of one end
     * \param b node id of the other end
     * \param rateBps line rate in bit/s
     * \param delayNs propagation delay in ns
     * \return the link id
     * \throw std::out_of_range if a node id does not exist
     */
    uint32_t AddLink(uint32_t a, uint32_t b, uint64_t rateBps, int64_t delayNs);

    /// \return all nodes, indexed by node id
    const std::vector<FabricNode>& GetNodes() const;
    /// \return all links, indexed by link id
    const std::vector<FabricLink>& GetLinks() const;
    /// \return the node \p nodeId \throw std::out_of_range
    const FabricNode& GetNode(uint32_t nodeId) const;
    /// \return the link \p linkId \throw std::out_of_range
    const FabricLink& GetLink(uint32_t linkId) const;
    /**
     * The directed ids of \p path, a walk of link ids from host \p srcHost
     * (a host index): 2 x link id, + 1 when the link is crossed from b to a.
     */
    std::vector<uint32_t> DirectedLinks(uint32_t srcHost, std::vector<uint32_t> path) const;

    /// \return number of nodes (hosts and switches)
    uint32_t GetNNodes() const;
    /// \return number of links
    uint32_t GetNLinks() const;
    /// \return number of hosts
    uint32_t GetNHosts() const;
    /// \return number of switches
    uint32_t GetNSwitches() const;

    /// \return node ids of the hosts, in host-index order
    const std::vector<uint32_t>& GetHosts() const;
    /// \return true if \p nodeId is a host \throw std::out_of_range
    bool IsHost(uint32_t nodeId) const;
    /**
     * \param nodeId a node id
     * \return the dense host index (0..GetNHosts()-1) of a host, -1 for a switch
     * \throw std::out_of_range if the node does not exist
     */
    int32_t GetHostIndex(uint32_t nodeId) const;

    /**
     * \param nodeId a node id
     * \return ids of the links touching the node, in the order they were
     *         added; position i is port i of the node
     * \throw std::out_of_range
     */
    const std::vector<uint32_t>& AdjacentLinks(uint32_t nodeId) const;
    /**
     * \param nodeId a node id
     * \param linkId a link touching that node
     * \return the port of \p nodeId behind which \p linkId sits
     * \throw std::out_of_range if the link does not touch the node
     */
    uint32_t PortOf(uint32_t nodeId, uint32_t linkId) const;
    /**
     * \param nodeId one end of the link
     * \param linkId a link touching that node
     * \return the node at the other end of the link
     * \throw std::out_of_range if the link does not touch the node
     */
    uint32_t GetPeer(uint32_t nodeId, uint32_t linkId) const;

    /**
     * Check that the topology can carry traffic: every link joins two
     * distinct nodes with a positive rate and a non-negative delay, every
     * host has at least one link (several are allowed: multi-homing),
     * switches are in tier >= 1, there is at least one host, and the graph
     * is connected.
     * \throw std::runtime_error naming the offending node or link
     */
    void Validate() const;

  private:
    std::vector<FabricNode> m_nodes;                ///< by node id
    std::vector<FabricLink> m_links;                ///< by link id
    std::vector<std::vector<uint32_t>> m_adjacency; ///< by node id: link ids, port order
    std::vector<uint32_t> m_portAtA;                ///< by link id: port of link.a
    std::vector<uint32_t> m_portAtB;                ///< by link id: port of link.b
    std::vector<uint32_t> m_hosts;                  ///< host index -> node id
    std::vector<int32_t> m_hostIndex;               ///< node id -> host index or -1
};

} // namespace ns3

#endif /* FABRIC_TOPOLOGY_H */
