/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-topology.h"

#include <stdexcept>

namespace ns3
{

namespace
{

std::string
Describe(const FabricNode& node, uint32_t id)
{
    return "node " + std::to_string(id) + " '" + node.name + "'";
}

/// Host node \p nodeId of \p nodes, for FabricTopology::\p setter to set a
/// field to \p value (>= 0, named \p field in the error).
FabricNode&
HostField(std::vector<FabricNode>& nodes,
          uint32_t nodeId,
          int32_t value,
          const std::string& setter,
          const std::string& field)
{
    FabricNode& node = nodes.at(nodeId);
    if (node.kind != FabricNodeKind::Host || value < 0)
    {
        throw std::invalid_argument(
            "FabricTopology::" + setter + ": " + Describe(node, nodeId) +
            (value < 0 ? ": " + field + " must be >= 0" : " is not a host"));
    }
    return node;
}

} // namespace

uint32_t
FabricTopology::AddHost(const std::string& name, int32_t pod, int32_t rack)
{
    uint32_t id = m_nodes.size();
    m_nodes.push_back(FabricNode{FabricNodeKind::Host, 0, name, pod, rack, -1});
    m_adjacency.emplace_back();
    m_hostIndex.push_back(static_cast<int32_t>(m_hosts.size()));
    m_hosts.push_back(id);
    return id;
}

uint32_t
FabricTopology::AddSwitch(const std::string& name, uint32_t tier, int32_t pod, int32_t rack)
{
    uint32_t id = m_nodes.size();
    m_nodes.push_back(FabricNode{FabricNodeKind::Switch, tier, name, pod, rack, -1});
    m_adjacency.emplace_back();
    m_hostIndex.push_back(-1);
    return id;
}

void
FabricTopology::SetServer(uint32_t nodeId, int32_t server)
{
    HostField(m_nodes, nodeId, server, "SetServer", "server").server = server;
}

void
FabricTopology::SetSchedulingRack(uint32_t nodeId, int32_t rack)
{
    HostField(m_nodes, nodeId, rack, "SetSchedulingRack", "rack").schedulingRack = rack;
}

int32_t
FabricTopology::GetSchedulingRack(uint32_t host) const
{
    const FabricNode& node = m_nodes[m_hosts.at(host)];
    return node.schedulingRack >= 0 ? node.schedulingRack : node.rack;
}

bool
FabricTopology::SameServer(uint32_t hostA, uint32_t hostB) const
{
    if (hostA == hostB)
    {
        return true;
    }
    const int32_t a = m_nodes[m_hosts.at(hostA)].server;
    return a >= 0 && a == m_nodes[m_hosts.at(hostB)].server;
}

int64_t
FabricTopology::GetServerKey(uint32_t host) const
{
    const int32_t server = m_nodes[m_hosts.at(host)].server;
    return server >= 0 ? server : -static_cast<int64_t>(host) - 1;
}

uint32_t
FabricTopology::AddLink(uint32_t a, uint32_t b, uint64_t rateBps, int64_t delayNs)
{
    if (a >= m_nodes.size() || b >= m_nodes.size())
    {
        throw std::out_of_range("FabricTopology::AddLink: node " +
                                std::to_string(a >= m_nodes.size() ? a : b) + " does not exist");
    }
    uint32_t id = m_links.size();
    m_links.push_back(FabricLink{a, b, rateBps, delayNs});
    // A self-loop takes two ports, like any link; Validate() rejects it.
    m_portAtA.push_back(m_adjacency[a].size());
    m_adjacency[a].push_back(id);
    m_portAtB.push_back(m_adjacency[b].size());
    m_adjacency[b].push_back(id);
    return id;
}

const std::vector<FabricNode>&
FabricTopology::GetNodes() const
{
    return m_nodes;
}

const std::vector<FabricLink>&
FabricTopology::GetLinks() const
{
    return m_links;
}

const FabricNode&
FabricTopology::GetNode(uint32_t nodeId) const
{
    return m_nodes.at(nodeId);
}

const FabricLink&
FabricTopology::GetLink(uint32_t linkId) const
{
    return m_links.at(linkId);
}

std::vector<uint32_t>
FabricTopology::DirectedLinks(uint32_t srcHost, std::vector<uint32_t> path) const
{
    uint32_t node = GetHosts().at(srcHost);
    for (uint32_t& link : path)
    {
        const FabricLink& l = GetLink(link);
        const bool forward = l.a == node;
        node = forward ? l.b : l.a;
        link = 2 * link + (forward ? 0 : 1);
    }
    return path;
}

uint32_t
FabricTopology::GetNNodes() const
{
    return m_nodes.size();
}

uint32_t
FabricTopology::GetNLinks() const
{
    return m_links.size();
}

uint32_t
FabricTopology::GetNHosts() const
{
    return m_hosts.size();
}

uint32_t
FabricTopology::GetNSwitches() const
{
    return m_nodes.size() - m_hosts.size();
}

const std::vector<uint32_t>&
FabricTopology::GetHosts() const
{
    return m_hosts;
}

bool
FabricTopology::IsHost(uint32_t nodeId) const
{
    return m_hostIndex.at(nodeId) >= 0;
}

int32_t
FabricTopology::GetHostIndex(uint32_t nodeId) const
{
    return m_hostIndex.at(nodeId);
}

const std::vector<uint32_t>&
FabricTopology::AdjacentLinks(uint32_t nodeId) const
{
    return m_adjacency.at(nodeId);
}

uint32_t
FabricTopology::PortOf(uint32_t nodeId, uint32_t linkId) const
{
    const FabricLink& link = m_links.at(linkId);
    if (link.a == nodeId)
    {
        return m_portAtA[linkId];
    }
    if (link.b == nodeId)
    {
        return m_portAtB[linkId];
    }
    throw std::out_of_range("FabricTopology::PortOf: link " + std::to_string(linkId) +
                            " does not touch node " + std::to_string(nodeId));
}

uint32_t
FabricTopology::GetPeer(uint32_t nodeId, uint32_t linkId) const
{
    const FabricLink& link = m_links.at(linkId);
    if (link.a == nodeId)
    {
        return link.b;
    }
    if (link.b == nodeId)
    {
        return link.a;
    }
    throw std::out_of_range("FabricTopology::GetPeer: link " + std::to_string(linkId) +
                            " does not touch node " + std::to_string(nodeId));
}

void
FabricTopology::Validate() const
{
    if (m_hosts.empty())
    {
        throw std::runtime_error("fabric topology: no hosts");
    }
    for (uint32_t id = 0; id < m_links.size(); ++id)
    {
        const FabricLink& link = m_links[id];
        std::string where = "fabric topology: link " + std::to_string(id) + " (" +
                            m_nodes[link.a].name + " - " + m_nodes[link.b].name + "): ";
        if (link.a == link.b)
        {
            throw std::runtime_error(where + "self-loop");
        }
        if (link.rateBps == 0)
        {
            throw std::runtime_error(where + "rate is zero");
        }
        if (link.delayNs < 0)
        {
            throw std::runtime_error(where + "negative delay " + std::to_string(link.delayNs) +
                                     " ns");
        }
    }
    for (uint32_t id = 0; id < m_nodes.size(); ++id)
    {
        const FabricNode& node = m_nodes[id];
        if (node.kind == FabricNodeKind::Host && m_adjacency[id].empty())
        {
            throw std::runtime_error("fabric topology: host " + Describe(node, id) +
                                     " has no link");
        }
        if (node.kind == FabricNodeKind::Switch && node.tier == 0)
        {
            throw std::runtime_error("fabric topology: switch " + Describe(node, id) +
                                     " has tier 0 (reserved for hosts)");
        }
    }

    // Connectivity: an iterative flood from node 0 must reach every node.
    std::vector<bool> seen(m_nodes.size(), false);
    std::vector<uint32_t> stack{0};
    seen[0] = true;
    uint32_t reached = 1;
    while (!stack.empty())
    {
        uint32_t node = stack.back();
        stack.pop_back();
        for (uint32_t linkId : m_adjacency[node])
        {
            uint32_t peer = GetPeer(node, linkId);
            if (!seen[peer])
            {
                seen[peer] = true;
                ++reached;
                stack.push_back(peer);
            }
        }
    }
    if (reached != m_nodes.size())
    {
        for (uint32_t id = 0; id < m_nodes.size(); ++id)
        {
            if (!seen[id])
            {
                throw std::runtime_error(
                    "fabric topology: disconnected: " + Describe(m_nodes[id], id) +
                    " is not reachable from " + Describe(m_nodes[0], 0));
            }
        }
    }
}

} // namespace ns3
