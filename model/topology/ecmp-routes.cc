/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ecmp-routes.h"

#include "ns3/run-interruption.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

const uint8_t kNoHops = 255;

/// Keeps an edge unless it touches a host other than the destination:
/// hosts terminate paths but do not forward.
struct NoTransitThroughHosts
{
    const Graph* graph = nullptr;
    const std::vector<int32_t>* hostIndex = nullptr;
    uint32_t destination = 0;

    template <typename Edge>
    bool operator()(const Edge& e) const
    {
        uint32_t u = boost::source(e, *graph);
        uint32_t v = boost::target(e, *graph);
        return ((*hostIndex)[u] < 0 || u == destination) &&
               ((*hostIndex)[v] < 0 || v == destination);
    }
};

} // namespace

EcmpRoutes::EcmpRoutes(const FabricTopology& topo)
    : EcmpRoutes(topo, std::vector<bool>(topo.GetNLinks(), false))
{
}

EcmpRoutes::EcmpRoutes(const FabricTopology& topo, const std::vector<bool>& linkDown)
{
    topo.Validate();
    if (linkDown.size() != topo.GetNLinks())
    {
        throw std::invalid_argument("ECMP routes: " + std::to_string(linkDown.size()) +
                                    " link states for " + std::to_string(topo.GetNLinks()) +
                                    " links");
    }
    const bool degraded = std::find(linkDown.begin(), linkDown.end(), true) != linkDown.end();
    const uint32_t nNodes = topo.GetNNodes();
    m_nHosts = topo.GetNHosts();
    m_hostNodes = topo.GetHosts();
    m_hostIndex.resize(nNodes);
    m_tableOfNode.assign(nNodes, -1);

    Graph graph(nNodes);
    Graph upGraph(nNodes); // the links that are up; used only when some are down
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const FabricLink& link = topo.GetLink(l);
        boost::add_edge(link.a, link.b, graph);
        if (degraded && !linkDown[l])
        {
            boost::add_edge(link.a, link.b, upGraph);
        }
    }

    std::vector<uint32_t> switches;
    for (uint32_t node = 0; node < nNodes; ++node)
    {
        m_hostIndex[node] = topo.GetHostIndex(node);
        if (m_hostIndex[node] >= 0)
        {
            continue;
        }
        if (topo.AdjacentLinks(node).size() > 65536)
        {
            throw std::runtime_error("ECMP routes: switch '" + topo.GetNode(node).name +
                                     "' has more than 65536 ports");
        }
        m_tableOfNode[node] = static_cast<int32_t>(switches.size());
        switches.push_back(node);
    }
    m_tables.resize(switches.size());
    // Deduplication index per switch, dropped after construction.
    std::vector<std::map<std::vector<uint16_t>, uint16_t>> groupIds(switches.size());
    for (uint32_t s = 0; s < switches.size(); ++s)
    {
        SwitchTable& table = m_tables[s];
        table.groupOf.resize(m_nHosts);
        table.hops.resize(m_nHosts);
        table.groups.emplace_back(); // group 0: unreachable
        groupIds[s].emplace(std::vector<uint16_t>{}, 0);
    }

    // Neighbour behind each port of each switch, flattened once so that the
    // per-destination loop does no bounds-checked topology look-ups.
    std::vector<uint32_t> peerBegin{0};
    std::vector<uint32_t> peers;
    std::vector<bool> peerLinkDown;
    for (uint32_t node : switches)
    {
        for (uint32_t link : topo.AdjacentLinks(node))
        {
            peers.push_back(topo.GetPeer(node, link));
            peerLinkDown.push_back(linkDown[link]);
        }
        peerBegin.push_back(peers.size());
    }

    const uint32_t infinity = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> intactDist(nNodes);
    std::vector<uint32_t> upDist(nNodes);
    auto distances = [&](const Graph& g, uint32_t dest, std::vector<uint32_t>& dist) {
        NoTransitThroughHosts filter{&g, &m_hostIndex, dest};
        boost::filtered_graph<Graph, NoTransitThroughHosts> view(g, filter);
        std::fill(dist.begin(), dist.end(), infinity);
        dist[dest] = 0;
        boost::breadth_first_search(
            view,
            dest,
            boost::visitor(boost::make_bfs_visitor(
                boost::record_distances(dist.data(), boost::on_tree_edge()))));
    };
    std::vector<uint16_t> ports;
    for (uint32_t h = 0; h < m_nHosts; ++h)
    {
        // A large fabric's routes take minutes: a signal stops them here.
        ThrowIfInterrupted();
        const uint32_t dest = m_hostNodes[h];
        distances(graph, dest, intactDist);
        if (degraded)
        {
            distances(upGraph, dest, upDist);
        }

        for (uint32_t s = 0; s < switches.size(); ++s)
        {
            const uint32_t node = switches[s];
            SwitchTable& table = m_tables[s];
            // Over the links that are up where they reach the host, else as if intact.
            const bool routeAround = degraded && upDist[node] != infinity;
            const std::vector<uint32_t>& dist = routeAround ? upDist : intactDist;
            const uint32_t d = dist[node];
            ports.clear();
            if (d != infinity)
            {
                if (d >= kNoHops)
                {
                    throw std::runtime_error("ECMP routes: switch '" + topo.GetNode(node).name +
                                             "' is more than 254 hops from a host");
                }
                for (uint32_t i = peerBegin[s]; i < peerBegin[s + 1]; ++i)
                {
                    uint32_t peer = peers[i];
                    bool forwards = (m_hostIndex[peer] < 0 || peer == dest) &&
                                    !(routeAround && peerLinkDown[i]);
                    if (forwards && dist[peer] + 1 == d)
                    {
                        ports.push_back(static_cast<uint16_t>(i - peerBegin[s]));
                    }
                }
            }
            table.hops[h] = d == infinity ? kNoHops : static_cast<uint8_t>(d);
            // Neighbouring hosts usually share a group: try the previous one first.
            if (h > 0 && table.groups[table.groupOf[h - 1]] == ports)
            {
                table.groupOf[h] = table.groupOf[h - 1];
                continue;
            }
            auto [it, inserted] =
                groupIds[s].emplace(ports, static_cast<uint16_t>(table.groups.size()));
            if (inserted)
            {
                if (table.groups.size() > std::numeric_limits<uint16_t>::max())
                {
                    throw std::runtime_error("ECMP routes: switch '" + topo.GetNode(node).name +
                                             "' needs more than 65536 next-hop groups");
                }
                table.groups.push_back(ports);
            }
            table.groupOf[h] = it->second;
        }
    }
    for (SwitchTable& table : m_tables)
    {
        table.groups.shrink_to_fit();
        BuildForwarding(table);
    }

    m_hostPeerBegin.reserve(m_nHosts + 1);
    for (uint32_t h = 0; h < m_nHosts; ++h)
    {
        m_hostPeerBegin.push_back(m_hostPeers.size());
        for (uint32_t link : topo.AdjacentLinks(m_hostNodes[h]))
        {
            m_hostPeers.push_back(topo.GetPeer(m_hostNodes[h], link));
        }
    }
    m_hostPeerBegin.push_back(m_hostPeers.size());
}

void
EcmpRoutes::BuildForwarding(SwitchTable& table)
{
    ForwardingTable& f = table.forwarding;
    f.m_groupStart.assign(1, 0);
    for (const std::vector<uint16_t>& group : table.groups)
    {
        f.m_ports.insert(f.m_ports.end(), group.begin(), group.end());
        f.m_groupStart.push_back(static_cast<uint32_t>(f.m_ports.size()));
    }
    f.m_entry.resize(table.groupOf.size());
    for (std::size_t h = 0; h < table.groupOf.size(); ++h)
    {
        const std::vector<uint16_t>& group = table.groups[table.groupOf[h]];
        f.m_entry[h] =
            group.size() == 1 ? ForwardingTable::kSinglePort | group[0] : table.groupOf[h];
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

const std::vector<uint16_t>&
EcmpRoutes::GetNextHopPorts(uint32_t switchNode, uint32_t hostIndex) const
{
    const SwitchTable& table = Table(switchNode);
    if (hostIndex >= m_nHosts)
    {
        throw std::out_of_range("ECMP routes: host index " + std::to_string(hostIndex) +
                                " out of range");
    }
    return table.groups[table.groupOf[hostIndex]];
}

uint16_t
EcmpRoutes::GetGroupId(uint32_t switchNode, uint32_t hostIndex) const
{
    const SwitchTable& table = Table(switchNode);
    if (hostIndex >= m_nHosts)
    {
        throw std::out_of_range("ECMP routes: host index " + std::to_string(hostIndex) +
                                " out of range");
    }
    return table.groupOf[hostIndex];
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
    if (m_hostIndex[node] < 0)
    {
        uint8_t hops = Table(node).hops[hostIndex];
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
            uint8_t hops = m_tables[m_tableOfNode[peer]].hops[hostIndex];
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

size_t
EcmpRoutes::MemoryBytes() const
{
    size_t bytes = sizeof(*this);
    bytes += m_tableOfNode.capacity() * sizeof(int32_t);
    bytes += m_hostNodes.capacity() * sizeof(uint32_t);
    bytes += m_hostIndex.capacity() * sizeof(int32_t);
    bytes += m_hostPeerBegin.capacity() * sizeof(uint32_t);
    bytes += m_hostPeers.capacity() * sizeof(uint32_t);
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
