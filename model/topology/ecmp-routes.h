/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ECMP_ROUTES_H
#define ECMP_ROUTES_H

#include "fabric-topology.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Equal-cost multi-path next hops of every switch towards every host
 * of a FabricTopology, by hop count.
 *
 * For switch s and destination host h the next-hop group is the set of
 * ports of s (indices into FabricTopology::AdjacentLinks(s)) whose link
 * leads to a neighbour one hop closer to h. Parallel links are separate
 * ports, so each appears. Hosts never forward: a path may end at the
 * destination host but never pass through another host, so a multi-homed
 * host is not a shortcut between its switches.
 *
 * Routes are kept per destination prefix, as switches hold them: every
 * host with a single link, to a switch (its edge switch), belongs to the
 * prefix of that switch, and all hosts of a prefix have the same next hops
 * at every switch but their edge switch, where each has its own port. So a
 * switch's routes to a host are its routes to the host's prefix, and the
 * computation searches over the switches towards the edge switches, 64 at
 * a time (BatchedSwitchRoutes; a fat-tree of k^3/4 hosts has k^2/2
 * prefixes). A host with
 * several links, or linked to a host, is a prefix of its own, routed by a
 * search from the host itself (Keying::PerHost routes every host so, as
 * a reference). Under link failures, the hosts of an edge switch whose own
 * link is down form a second prefix of the switch, routed as if intact (see
 * the second constructor).
 *
 * Storage per switch: per prefix a 16-bit group id, a hop count and a
 * forwarding word, and a deduplicated table of groups (a fat-tree edge
 * switch has one group per local host plus one uplink group). Group 0 of
 * every switch is the empty group, used for hosts the switch cannot reach
 * without passing through a host. Per host: its prefix, and its port and
 * group at its edge switch.
 */
class EcmpRoutes
{
  public:
    /// Hop count reported for a host that cannot be reached.
    static constexpr uint32_t kUnreachable = std::numeric_limits<uint32_t>::max();
    /// GetPrefixSwitch's answer for a prefix of one host.
    static constexpr uint32_t kNoSwitch = std::numeric_limits<uint32_t>::max();

    /// What the routes are computed and stored for.
    enum class Keying
    {
        PerPrefix, ///< per edge switch where a host has one link to it, else per host
        PerHost,   ///< per destination host (the same next hops, more time and memory)
    };

    /**
     * Compute the routes of every switch.
     * \param topo the fabric; it is validated and need not outlive this object
     * \param keying per prefix or per host
     * \throw std::runtime_error if the topology is invalid, a switch has more
     *        than 65536 ports or more than 65535 distinct groups, or a
     *        distance exceeds 254 hops
     */
    explicit EcmpRoutes(const FabricTopology& topo, Keying keying = Keying::PerPrefix);

    /**
     * Routes around failed links: next hops by hop count over the links that
     * are up. A host that a switch can no longer reach over them keeps the
     * switch's routes of the intact fabric, so frames to a host cut off are
     * lost on its dead links rather than looping (the next hops stay loop
     * free: distances decrease along either kind of route).
     * \param topo the fabric
     * \param linkDown by link id: true for a link that is down (size GetNLinks())
     * \param keying per prefix or per host
     * \throw as the other constructor, or std::invalid_argument on a size mismatch
     */
    EcmpRoutes(const FabricTopology& topo,
               const std::vector<bool>& linkDown,
               Keying keying = Keying::PerPrefix);

    // Each switch's ForwardingTable points into this object's per-host arrays:
    // a move keeps them, a copy would not.
    EcmpRoutes(const EcmpRoutes&) = delete;
    EcmpRoutes& operator=(const EcmpRoutes&) = delete;
    EcmpRoutes(EcmpRoutes&&) = default;
    EcmpRoutes& operator=(EcmpRoutes&&) = default;

    /**
     * O(1), no allocation.
     * \param switchNode node id of a switch
     * \param hostIndex destination host index (FabricTopology::GetHostIndex)
     * \return the ports of the switch on shortest paths to the host, in
     *         increasing order; empty if the host is unreachable
     * \throw std::out_of_range if the node is not a switch or the host index is too large
     */
    const std::vector<uint16_t>& GetNextHopPorts(uint32_t switchNode, uint32_t hostIndex) const;

    /**
     * One switch's routes as its per-hop path reads them (RoceSwitch::SelectPort):
     * a word per destination prefix that holds the port itself where there is
     * one next hop, and the groups of several ports laid out flat. A look-up
     * reads the host's prefix (an array all switches share), the prefix's word
     * and, for a group, one small array of the switch, where GetNextHopPorts
     * follows a group's vector to a heap block of its own. At the host's edge
     * switch the word says "local" and the host's port is read from a second
     * shared array.
     */
    class ForwardingTable
    {
      public:
        /// Select's answer for a host the switch cannot reach.
        static constexpr uint32_t kNoPort = std::numeric_limits<uint32_t>::max();

        /**
         * O(1), no allocation, no bounds check.
         * \param hostIndex destination host index, below GetNHosts()
         * \param hash called only where there are several next hops: the
         *        flow's ECMP hash (FlowHash)
         * \return the port: the next hop hash() % group size, as
         *         GetNextHopPorts(...)[hash() % size]; kNoPort if unreachable
         */
        template <typename Hash>
        uint32_t Select(uint32_t hostIndex, Hash&& hash) const
        {
            const uint32_t e = m_entry[m_prefixOf[hostIndex]];
            if (e & kSinglePort)
            {
                return e == kLocalHost ? m_hostPort[hostIndex] : e & ~kSinglePort;
            }
            const uint32_t first = m_groupStart[e];
            const uint32_t n = m_groupStart[e + 1] - first;
            return n == 0 ? kNoPort : m_ports[first + hash() % n];
        }

        /// \return number of destination hosts
        uint32_t GetNHosts() const
        {
            return m_nHosts;
        }

      private:
        friend class EcmpRoutes;
        /// Marks a word that holds its single port; other words are group ids.
        static constexpr uint32_t kSinglePort = 1U << 31;
        /// The word of the switch's own prefix: the port is the host's (m_hostPort).
        static constexpr uint32_t kLocalHost = std::numeric_limits<uint32_t>::max();

        const uint32_t* m_prefixOf{nullptr}; ///< by host index: prefix (EcmpRoutes')
        const uint16_t* m_hostPort{nullptr}; ///< by host index: port at its edge switch
        uint32_t m_nHosts{0};                ///< number of hosts
        std::vector<uint32_t> m_entry;       ///< by prefix
        std::vector<uint32_t> m_groupStart;  ///< by group id: first index in m_ports; one more
        std::vector<uint16_t> m_ports;       ///< the groups' ports, concatenated in id order
    };

    /**
     * \param switchNode node id of a switch
     * \return the switch's forwarding table; it lives as long as this object
     * \throw std::out_of_range if the node is not a switch
     */
    const ForwardingTable& GetForwardingTable(uint32_t switchNode) const;

    /**
     * \param switchNode node id of a switch
     * \param hostIndex destination host index
     * \return the id of the switch's next-hop group for the host, an index
     *         into GetGroups(switchNode)
     * \throw std::out_of_range as GetNextHopPorts
     */
    uint16_t GetGroupId(uint32_t switchNode, uint32_t hostIndex) const;

    /**
     * \param switchNode node id of a switch
     * \return the switch's deduplicated groups; group 0 is empty
     * \throw std::out_of_range if the node is not a switch
     */
    const std::vector<std::vector<uint16_t>>& GetGroups(uint32_t switchNode) const;

    /**
     * \param node node id of a switch or host
     * \param hostIndex destination host index
     * \return links on a shortest path from the node to the host, without
     *         passing through other hosts (0 for the host itself);
     *         kUnreachable if there is none
     * \throw std::out_of_range if the node or the host index does not exist
     */
    uint32_t GetHopCount(uint32_t node, uint32_t hostIndex) const;

    /// \return number of destination hosts
    uint32_t GetNHosts() const;

    /// \return how the routes are keyed (as constructed)
    Keying GetKeying() const
    {
        return m_keying;
    }

    /// \return number of destination prefixes
    uint32_t GetNPrefixes() const
    {
        return static_cast<uint32_t>(m_prefixSwitch.size());
    }

    /**
     * \param hostIndex destination host index
     * \return the host's prefix, below GetNPrefixes()
     * \throw std::out_of_range if the host index is too large
     */
    uint32_t GetPrefix(uint32_t hostIndex) const;

    /**
     * \param prefix a prefix, below GetNPrefixes()
     * \return node id of the edge switch whose hosts the prefix holds;
     *         kNoSwitch for a prefix of one host routed on its own
     * \throw std::out_of_range if there is no such prefix
     */
    uint32_t GetPrefixSwitch(uint32_t prefix) const;

    /// \return approximate heap bytes held by this object
    size_t MemoryBytes() const;

    /**
     * The ECMP hash of a flow's 5-tuple at a switch whose hash seed is
     * \p seed: a switch forwards the flow to next hop
     * FlowHash(...) % group size. Shared by the packet-level switches and the
     * flow-level model, so a connection takes the same path at both levels.
     */
    static uint32_t FlowHash(uint32_t srcIp,
                             uint32_t dstIp,
                             uint16_t srcPort,
                             uint16_t dstPort,
                             uint32_t seed)
    {
        // A 32-bit mix (murmur3 finalizer) over the flow's 5-tuple and the seed;
        // inline, as every switch hop of a multi-path group computes it.
        uint64_t h = seed;
        auto mix = [&h](uint64_t v) { h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2); };
        mix(srcIp);
        mix(dstIp);
        mix(static_cast<uint64_t>(srcPort) << 16 | dstPort);
        h ^= h >> 33;
        h *= 0xFF51AFD7ED558CCDull;
        h ^= h >> 33;
        h *= 0xC4CEB9FE1A85EC53ull;
        h ^= h >> 33;
        return static_cast<uint32_t>(h);
    }

    /// Hash seed of switch \p switchNode in a fabric seeded \p fabricSeed (independent
    /// per switch, so that switches do not polarize).
    static uint32_t SwitchSeed(uint32_t fabricSeed, uint32_t switchNode)
    {
        return fabricSeed * 0x9E3779B1u + switchNode * 0x85EBCA77u;
    }

  private:
    class Computation;

    /// Group id that stands, at an edge switch, for its own prefix: the host's own group.
    static constexpr uint16_t kLocalGroup = std::numeric_limits<uint16_t>::max();

    /// Routes of one switch.
    struct SwitchTable
    {
        std::vector<uint16_t> groupOf;             ///< by prefix: group id, or kLocalGroup
        std::vector<uint8_t> hops;                 ///< by prefix: hop count, 255 unreachable
        std::vector<std::vector<uint16_t>> groups; ///< by group id: ports
        ForwardingTable forwarding;                ///< the same routes, for forwarding
    };

    /// Fill \p table's forwarding table from its groups.
    void BuildForwarding(SwitchTable& table) const;

    /// \return the table of a switch \throw std::out_of_range if not a switch
    const SwitchTable& Table(uint32_t switchNode) const;

    /// \throw std::out_of_range if \p hostIndex names no host
    void CheckHost(uint32_t hostIndex) const;

    Keying m_keying{Keying::PerPrefix};    ///< as constructed
    uint32_t m_nHosts{0};                  ///< number of hosts
    std::vector<int32_t> m_tableOfNode;    ///< node id -> index in m_tables, -1 for hosts
    std::vector<SwitchTable> m_tables;     ///< one per switch, in node id order
    std::vector<uint32_t> m_hostNodes;     ///< host index -> node id
    std::vector<int32_t> m_hostIndex;      ///< node id -> host index, -1 for switches
    std::vector<uint32_t> m_hostPeerBegin; ///< host index -> first entry in m_hostPeers
    std::vector<uint32_t> m_hostPeers;     ///< neighbours of each host, concatenated
    std::vector<uint32_t> m_prefixOf;      ///< host index -> prefix
    std::vector<uint16_t> m_hostPort;      ///< host index -> port at its edge switch
    std::vector<uint16_t> m_hostGroup;     ///< host index -> group id at its edge switch
    std::vector<uint32_t> m_prefixSwitch;  ///< prefix -> edge switch node, or kNoSwitch
};

} // namespace ns3

#endif /* ECMP_ROUTES_H */
