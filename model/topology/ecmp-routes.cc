/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ecmp-routes.h"

#include "batched-switch-routes.h"

#include "ns3/run-interruption.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

const uint8_t kNoHops = 255;
const uint32_t kInfinity = std::numeric_limits<uint32_t>::max();

/// A port of a node as the route computation reads it.
struct PortPeer
{
    uint32_t peer; ///< node behind the port
    uint16_t port; ///< index into AdjacentLinks(node)
    bool down;     ///< its link is down
};

/// Ports of a list of nodes, flattened: node i's are [begin[i], begin[i + 1]).
struct PortLists
{
    std::vector<uint32_t> begin{0};
    std::vector<PortPeer> ports;
};

/// A destination of the computation: an edge switch's hosts, or one host.
struct Prefix
{
    uint32_t target; ///< the edge switch, or the host's node
    bool edge;       ///< target is an edge switch, one hop from the prefix's hosts
    bool intactOnly; ///< the hosts' own link is down: route as if every link were up
};

} // namespace

/// The state one route computation works on; dropped when it is done.
class EcmpRoutes::Computation
{
  public:
    Computation(EcmpRoutes& routes, const FabricTopology& topo, const std::vector<bool>& linkDown)
        : m_routes(routes),
          m_topo(topo),
          m_linkDown(linkDown),
          m_degraded(std::find(linkDown.begin(), linkDown.end(), true) != linkDown.end())
    {
    }

    void Run()
    {
        IndexNodes();
        AssignPrefixes();
        const uint32_t nNodes = m_topo.GetNNodes();
        m_intactDist.resize(nNodes);
        m_upDist.resize(nNodes);
        m_queue.reserve(nNodes);
        std::vector<uint32_t> batch;
        for (uint32_t p = 0; p < m_prefixes.size(); ++p)
        {
            // A large fabric's routes take a while: a signal stops them here.
            ThrowIfInterrupted();
            if (!m_prefixes[p].edge)
            {
                RouteHostPrefix(p);
                continue;
            }
            batch.push_back(p);
            if (batch.size() == BatchedSwitchRoutes::kBatch)
            {
                RouteEdgePrefixes(batch);
                batch.clear();
            }
        }
        if (!batch.empty())
        {
            RouteEdgePrefixes(batch);
        }
        // Each host's own group at its edge switch (the switch's word says "local").
        for (uint32_t h = 0; h < m_routes.m_nHosts; ++h)
        {
            const uint32_t target = m_prefixes[m_routes.m_prefixOf[h]].target;
            if (m_prefixes[m_routes.m_prefixOf[h]].edge)
            {
                const uint32_t s = m_routes.m_tableOfNode[target];
                m_routes.m_hostGroup[h] = Intern(s, {m_routes.m_hostPort[h]});
            }
        }
    }

  private:
    /// Host and switch indices, and the port lists the searches read.
    void IndexNodes();
    /// Every host's prefix (and port at its edge switch, if it has one).
    void AssignPrefixes();
    /// Hop counts from every node to \p target over switches (and \p target),
    /// over the links that are up if \p upOnly.
    void Distances(uint32_t target, bool upOnly, std::vector<uint32_t>& dist);
    /// Every switch's groups and hop counts for edge switches' prefixes \p batch
    /// (at most BatchedSwitchRoutes::kBatch).
    void RouteEdgePrefixes(const std::vector<uint32_t>& batch);
    /// Every switch's group and hop count for prefix \p p of one host.
    void RouteHostPrefix(uint32_t p);
    /// Record switch \p s's hop count \p hops (kInfinity: unreachable) for prefix \p p.
    void StoreHops(uint32_t s, uint32_t p, uint32_t hops);
    /// \return the id of \p ports in switch \p s's groups, added if new
    uint16_t Intern(uint32_t s, const std::vector<uint16_t>& ports);

    EcmpRoutes& m_routes;
    const FabricTopology& m_topo;
    const std::vector<bool>& m_linkDown;
    const bool m_degraded;

    std::vector<uint32_t> m_switches;               ///< switch index -> node id
    std::vector<bool> m_isHost;                     ///< by node id
    PortLists m_switchNeighbours;                   ///< by node id: ports to switches (searches)
    std::unique_ptr<BatchedSwitchRoutes> m_batches; ///< searches for edge switches' prefixes
    std::vector<uint64_t> m_lastMask;               ///< by switch index: the port mask seen last
    std::vector<uint16_t> m_maskGroup;              ///< by switch index: its group
    PortLists m_allPorts;                           ///< by switch index: every port, by node id
    std::vector<Prefix> m_prefixes;                 ///< by prefix id
    std::vector<uint16_t> m_lastGroup;              ///< by switch index: the group interned last
    std::vector<std::map<std::vector<uint16_t>, uint16_t>> m_groupIds; ///< by switch index
    std::vector<uint32_t> m_intactDist; ///< by node or switch index, for the prefix being routed
    std::vector<uint32_t> m_upDist;     ///< the same over the links that are up
    std::vector<uint32_t> m_queue;      ///< the searches' queue
    std::vector<uint16_t> m_ports;      ///< the group being built
};

void
EcmpRoutes::Computation::IndexNodes()
{
    const uint32_t nNodes = m_topo.GetNNodes();
    m_routes.m_nHosts = m_topo.GetNHosts();
    m_routes.m_hostNodes = m_topo.GetHosts();
    m_routes.m_hostIndex.resize(nNodes);
    m_routes.m_tableOfNode.assign(nNodes, -1);
    m_isHost.resize(nNodes);
    for (uint32_t node = 0; node < nNodes; ++node)
    {
        m_routes.m_hostIndex[node] = m_topo.GetHostIndex(node);
        m_isHost[node] = m_routes.m_hostIndex[node] >= 0;
        if (m_isHost[node])
        {
            continue;
        }
        if (m_topo.AdjacentLinks(node).size() > 65536)
        {
            throw std::runtime_error("ECMP routes: switch '" + m_topo.GetNode(node).name +
                                     "' has more than 65536 ports");
        }
        m_routes.m_tableOfNode[node] = static_cast<int32_t>(m_switches.size());
        m_switches.push_back(node);
    }
    std::vector<uint32_t> switchBegin{0};
    std::vector<BatchedSwitchRoutes::Port> switchPorts;
    for (uint32_t node = 0; node < nNodes; ++node)
    {
        const std::vector<uint32_t>& links = m_topo.AdjacentLinks(node);
        for (uint32_t i = 0; i < links.size(); ++i)
        {
            const PortPeer port{m_topo.GetPeer(node, links[i]),
                                static_cast<uint16_t>(i),
                                static_cast<bool>(m_linkDown[links[i]])};
            if (!m_isHost[port.peer])
            {
                m_switchNeighbours.ports.push_back(port);
                if (!m_isHost[node])
                {
                    const uint32_t peer = m_routes.m_tableOfNode[port.peer];
                    switchPorts.push_back(BatchedSwitchRoutes::Port{peer, port.port, port.down});
                }
            }
            if (!m_isHost[node])
            {
                m_allPorts.ports.push_back(port);
            }
        }
        m_switchNeighbours.begin.push_back(m_switchNeighbours.ports.size());
        if (!m_isHost[node])
        {
            switchBegin.push_back(switchPorts.size());
            m_allPorts.begin.push_back(m_allPorts.ports.size());
        }
    }
    m_batches =
        std::make_unique<BatchedSwitchRoutes>(std::move(switchBegin), std::move(switchPorts));
    m_lastMask.assign(m_switches.size(), 0);
    m_maskGroup.assign(m_switches.size(), 0);

    m_routes.m_tables.resize(m_switches.size());
    m_groupIds.resize(m_switches.size());
    m_lastGroup.assign(m_switches.size(), 0);
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        m_routes.m_tables[s].groups.emplace_back(); // group 0: unreachable
        m_groupIds[s].emplace(std::vector<uint16_t>{}, 0);
    }

    m_routes.m_hostPeerBegin.reserve(m_routes.m_nHosts + 1);
    for (uint32_t h = 0; h < m_routes.m_nHosts; ++h)
    {
        const uint32_t host = m_routes.m_hostNodes[h];
        m_routes.m_hostPeerBegin.push_back(m_routes.m_hostPeers.size());
        for (uint32_t link : m_topo.AdjacentLinks(host))
        {
            m_routes.m_hostPeers.push_back(m_topo.GetPeer(host, link));
        }
    }
    m_routes.m_hostPeerBegin.push_back(m_routes.m_hostPeers.size());
}

void
EcmpRoutes::Computation::AssignPrefixes()
{
    const uint32_t nHosts = m_routes.m_nHosts;
    m_routes.m_prefixOf.resize(nHosts);
    m_routes.m_hostPort.assign(nHosts, 0);
    m_routes.m_hostGroup.assign(nHosts, 0);
    // By switch index and whether the hosts' own link is down: the prefix id.
    std::vector<std::array<uint32_t, 2>> edgePrefix(m_switches.size(), {kInfinity, kInfinity});
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        const uint32_t host = m_routes.m_hostNodes[h];
        const std::vector<uint32_t>& links = m_topo.AdjacentLinks(host);
        const uint32_t peer = links.size() == 1 ? m_topo.GetPeer(host, links[0]) : host;
        if (m_routes.m_keying == Keying::PerHost || links.size() != 1 || m_isHost[peer])
        {
            // Several links, or a link to a host: no edge switch holds it alone.
            m_routes.m_prefixOf[h] = static_cast<uint32_t>(m_prefixes.size());
            m_prefixes.push_back(Prefix{host, false, false});
            m_routes.m_prefixSwitch.push_back(kNoSwitch);
            continue;
        }
        const bool cutOff = m_linkDown[links[0]];
        uint32_t& id = edgePrefix[m_routes.m_tableOfNode[peer]][cutOff ? 1 : 0];
        if (id == kInfinity)
        {
            id = static_cast<uint32_t>(m_prefixes.size());
            m_prefixes.push_back(Prefix{peer, true, cutOff});
            m_routes.m_prefixSwitch.push_back(peer);
        }
        m_routes.m_prefixOf[h] = id;
        m_routes.m_hostPort[h] = static_cast<uint16_t>(m_topo.PortOf(peer, links[0]));
    }
    for (SwitchTable& table : m_routes.m_tables)
    {
        table.groupOf.resize(m_prefixes.size());
        table.hops.resize(m_prefixes.size());
    }
}

void
EcmpRoutes::Computation::Distances(uint32_t target, bool upOnly, std::vector<uint32_t>& dist)
{
    // Breadth first from the target; hosts are never entered, so no path
    // passes through one (the target host is where paths end).
    dist.assign(m_topo.GetNNodes(), kInfinity);
    dist[target] = 0;
    m_queue.clear();
    m_queue.push_back(target);
    for (std::size_t q = 0; q < m_queue.size(); ++q)
    {
        const uint32_t u = m_queue[q];
        for (uint32_t i = m_switchNeighbours.begin[u]; i < m_switchNeighbours.begin[u + 1]; ++i)
        {
            const PortPeer& p = m_switchNeighbours.ports[i];
            if (dist[p.peer] == kInfinity && !(upOnly && p.down))
            {
                dist[p.peer] = dist[u] + 1;
                m_queue.push_back(p.peer);
            }
        }
    }
}

void
EcmpRoutes::Computation::RouteEdgePrefixes(const std::vector<uint32_t>& batch)
{
    // The hosts' next hops are their edge switch's everywhere else, and their
    // hop count one more: searches over the switches alone.
    std::vector<uint32_t> targets;
    uint64_t intactOnly = 0;
    for (uint32_t j = 0; j < batch.size(); ++j)
    {
        const Prefix& prefix = m_prefixes[batch[j]];
        targets.push_back(m_routes.m_tableOfNode[prefix.target]);
        intactOnly |= uint64_t{prefix.intactOnly} << j;
    }
    m_batches->Search(targets, intactOnly, m_degraded);
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        const BatchedSwitchRoutes::Routes& r = m_batches->Visit(s);
        SwitchTable& table = m_routes.m_tables[s];
        for (uint32_t j = 0; j < batch.size(); ++j)
        {
            const uint32_t p = batch[j];
            if ((r.self >> j) & 1)
            {
                table.groupOf[p] = kLocalGroup;
                table.hops[p] = 1;
                continue;
            }
            const bool reached = r.hops[j] != BatchedSwitchRoutes::kUnreachable;
            StoreHops(s, p, reached ? r.hops[j] + 1 : kInfinity);
            // Consecutive prefixes mostly share a group: compare port masks first.
            if (!r.wide && r.portMask[j] == m_lastMask[s])
            {
                table.groupOf[p] = m_maskGroup[s];
                continue;
            }
            m_ports.clear();
            m_batches->AppendPorts(j, m_ports);
            table.groupOf[p] = Intern(s, m_ports);
            if (!r.wide)
            {
                m_lastMask[s] = r.portMask[j];
                m_maskGroup[s] = table.groupOf[p];
            }
        }
    }
}

void
EcmpRoutes::Computation::RouteHostPrefix(uint32_t p)
{
    const Prefix prefix = m_prefixes[p];
    const bool mayRouteAround = m_degraded && !prefix.intactOnly;
    Distances(prefix.target, false, m_intactDist);
    if (mayRouteAround)
    {
        Distances(prefix.target, true, m_upDist);
    }
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        const uint32_t node = m_switches[s];
        const bool routeAround = mayRouteAround && m_upDist[node] != kInfinity;
        const std::vector<uint32_t>& dist = routeAround ? m_upDist : m_intactDist;
        const uint32_t d = dist[node];
        m_ports.clear();
        if (d != kInfinity)
        {
            for (uint32_t i = m_allPorts.begin[s]; i < m_allPorts.begin[s + 1]; ++i)
            {
                // Towards a host, its own ports relay too; no other host's.
                const PortPeer& port = m_allPorts.ports[i];
                const bool forwards = (!m_isHost[port.peer] || port.peer == prefix.target) &&
                                      !(routeAround && port.down);
                if (forwards && dist[port.peer] + 1 == d)
                {
                    m_ports.push_back(port.port);
                }
            }
        }
        StoreHops(s, p, d);
        m_routes.m_tables[s].groupOf[p] = Intern(s, m_ports);
    }
}

void
EcmpRoutes::Computation::StoreHops(uint32_t s, uint32_t p, uint32_t hops)
{
    if (hops != kInfinity && hops >= kNoHops)
    {
        throw std::runtime_error("ECMP routes: switch '" + m_topo.GetNode(m_switches[s]).name +
                                 "' is more than 254 hops from a host");
    }
    m_routes.m_tables[s].hops[p] = hops == kInfinity ? kNoHops : static_cast<uint8_t>(hops);
}

uint16_t
EcmpRoutes::Computation::Intern(uint32_t s, const std::vector<uint16_t>& ports)
{
    SwitchTable& table = m_routes.m_tables[s];
    // Neighbouring prefixes usually share a group: try the previous one first.
    if (table.groups[m_lastGroup[s]] == ports)
    {
        return m_lastGroup[s];
    }
    auto [it, inserted] = m_groupIds[s].emplace(ports, static_cast<uint16_t>(table.groups.size()));
    if (inserted)
    {
        if (table.groups.size() >= kLocalGroup)
        {
            throw std::runtime_error("ECMP routes: switch '" + m_topo.GetNode(m_switches[s]).name +
                                     "' needs more than 65535 next-hop groups");
        }
        table.groups.push_back(ports);
    }
    m_lastGroup[s] = it->second;
    return it->second;
}

EcmpRoutes::EcmpRoutes(const FabricTopology& topo, Keying keying)
    : EcmpRoutes(topo, std::vector<bool>(topo.GetNLinks(), false), keying)
{
}

EcmpRoutes::EcmpRoutes(const FabricTopology& topo, const std::vector<bool>& linkDown, Keying keying)
    : m_keying(keying)
{
    topo.Validate();
    if (linkDown.size() != topo.GetNLinks())
    {
        throw std::invalid_argument("ECMP routes: " + std::to_string(linkDown.size()) +
                                    " link states for " + std::to_string(topo.GetNLinks()) +
                                    " links");
    }
    Computation(*this, topo, linkDown).Run();
    for (SwitchTable& table : m_tables)
    {
        table.groups.shrink_to_fit();
        BuildForwarding(table);
    }
}

void
EcmpRoutes::BuildForwarding(SwitchTable& table) const
{
    ForwardingTable& f = table.forwarding;
    f.m_prefixOf = m_prefixOf.data();
    f.m_hostPort = m_hostPort.data();
    f.m_nHosts = m_nHosts;
    f.m_groupStart.assign(1, 0);
    for (const std::vector<uint16_t>& group : table.groups)
    {
        f.m_ports.insert(f.m_ports.end(), group.begin(), group.end());
        f.m_groupStart.push_back(static_cast<uint32_t>(f.m_ports.size()));
    }
    f.m_entry.resize(table.groupOf.size());
    for (std::size_t p = 0; p < table.groupOf.size(); ++p)
    {
        const uint16_t id = table.groupOf[p];
        if (id == kLocalGroup)
        {
            f.m_entry[p] = ForwardingTable::kLocalHost;
            continue;
        }
        const std::vector<uint16_t>& group = table.groups[id];
        f.m_entry[p] = group.size() == 1 ? ForwardingTable::kSinglePort | group[0] : id;
    }
}

const EcmpRoutes::ForwardingTable&
EcmpRoutes::GetForwardingTable(uint32_t switchNode) const
{
    return Table(switchNode).forwarding;
}

const EcmpRoutes::SwitchTable&
EcmpRoutes::Table(uint32_t switchNode) const
{
    if (switchNode >= m_tableOfNode.size() || m_tableOfNode[switchNode] < 0)
    {
        throw std::out_of_range("ECMP routes: node " + std::to_string(switchNode) +
                                " is not a switch");
    }
    return m_tables[m_tableOfNode[switchNode]];
}

void
EcmpRoutes::CheckHost(uint32_t hostIndex) const
{
    if (hostIndex >= m_nHosts)
    {
        throw std::out_of_range("ECMP routes: host index " + std::to_string(hostIndex) +
                                " out of range");
    }
}

const std::vector<uint16_t>&
EcmpRoutes::GetNextHopPorts(uint32_t switchNode, uint32_t hostIndex) const
{
    return Table(switchNode).groups[GetGroupId(switchNode, hostIndex)];
}

uint16_t
EcmpRoutes::GetGroupId(uint32_t switchNode, uint32_t hostIndex) const
{
    const SwitchTable& table = Table(switchNode);
    CheckHost(hostIndex);
    const uint16_t id = table.groupOf[m_prefixOf[hostIndex]];
    return id == kLocalGroup ? m_hostGroup[hostIndex] : id;
}

const std::vector<std::vector<uint16_t>>&
EcmpRoutes::GetGroups(uint32_t switchNode) const
{
    return Table(switchNode).groups;
}

uint32_t
EcmpRoutes::GetHopCount(uint32_t node, uint32_t hostIndex) const
{
    if (node >= m_hostIndex.size() || hostIndex >= m_nHosts)
    {
        throw std::out_of_range("ECMP routes: node " + std::to_string(node) + " or host index " +
                                std::to_string(hostIndex) + " out of range");
    }
    const uint32_t prefix = m_prefixOf[hostIndex];
    if (m_hostIndex[node] < 0)
    {
        uint8_t hops = Table(node).hops[prefix];
        return hops == kNoHops ? kUnreachable : hops;
    }
    if (static_cast<uint32_t>(m_hostIndex[node]) == hostIndex)
    {
        return 0;
    }
    // A source host: one hop to a neighbour, which is either the destination
    // or a switch (other hosts do not forward).
    const uint32_t dest = m_hostNodes[hostIndex];
    uint32_t best = kUnreachable;
    const uint32_t self = m_hostIndex[node];
    for (uint32_t i = m_hostPeerBegin[self]; i < m_hostPeerBegin[self + 1]; ++i)
    {
        uint32_t peer = m_hostPeers[i];
        uint32_t viaPeer = kUnreachable;
        if (peer == dest)
        {
            viaPeer = 1;
        }
        else if (m_hostIndex[peer] < 0)
        {
            uint8_t hops = m_tables[m_tableOfNode[peer]].hops[prefix];
            viaPeer = hops == kNoHops ? kUnreachable : hops + 1U;
        }
        best = std::min(best, viaPeer);
    }
    return best;
}

uint32_t
EcmpRoutes::GetNHosts() const
{
    return m_nHosts;
}

uint32_t
EcmpRoutes::GetPrefix(uint32_t hostIndex) const
{
    CheckHost(hostIndex);
    return m_prefixOf[hostIndex];
}

uint32_t
EcmpRoutes::GetPrefixSwitch(uint32_t prefix) const
{
    if (prefix >= m_prefixSwitch.size())
    {
        throw std::out_of_range("ECMP routes: no prefix " + std::to_string(prefix));
    }
    return m_prefixSwitch[prefix];
}

size_t
EcmpRoutes::MemoryBytes() const
{
    size_t bytes = sizeof(*this);
    bytes += m_tableOfNode.capacity() * sizeof(int32_t);
    bytes += m_hostNodes.capacity() * sizeof(uint32_t);
    bytes += m_hostIndex.capacity() * sizeof(int32_t);
    bytes += m_hostPeerBegin.capacity() * sizeof(uint32_t);
    bytes += m_hostPeers.capacity() * sizeof(uint32_t);
    bytes += m_prefixOf.capacity() * sizeof(uint32_t);
    bytes += (m_hostPort.capacity() + m_hostGroup.capacity()) * sizeof(uint16_t);
    bytes += m_prefixSwitch.capacity() * sizeof(uint32_t);
    bytes += m_tables.capacity() * sizeof(SwitchTable);
    for (const SwitchTable& table : m_tables)
    {
        bytes += table.groupOf.capacity() * sizeof(uint16_t);
        bytes += table.hops.capacity() * sizeof(uint8_t);
        bytes += table.groups.capacity() * sizeof(std::vector<uint16_t>);
        for (const std::vector<uint16_t>& group : table.groups)
        {
            bytes += group.capacity() * sizeof(uint16_t);
        }
        const ForwardingTable& f = table.forwarding;
        bytes += f.m_entry.capacity() * sizeof(uint32_t) +
                 f.m_groupStart.capacity() * sizeof(uint32_t) +
                 f.m_ports.capacity() * sizeof(uint16_t);
    }
    return bytes;
}

} // namespace ns3
