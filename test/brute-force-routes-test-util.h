/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef BRUTE_FORCE_ROUTES_TEST_UTIL_H
#define BRUTE_FORCE_ROUTES_TEST_UTIL_H

// Shortest-path ECMP next hops towards one host, computed from the link list
// alone by a breadth-first search written here: it shares no code with
// EcmpRoutes, so the tests can hold the routes against it. And the small
// fabrics the route tests share.

#include "ns3/fabric-topology.h"
#include "ns3/leaf-spine-topology.h"
#include "ns3/rail-optimized-topology.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

namespace ns3
{
namespace test
{

constexpr uint32_t kBruteForceUnreachable = std::numeric_limits<uint32_t>::max();

/// Port table rebuilt from the link list: port i of a node is the i-th link
/// (by id) that touches it. Entry: (peer node, link id).
inline std::vector<std::vector<std::pair<uint32_t, uint32_t>>>
PortsFromLinks(const FabricTopology& topo)
{
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> ports(topo.GetNNodes());
    const std::vector<FabricLink>& links = topo.GetLinks();
    for (uint32_t id = 0; id < links.size(); ++id)
    {
        ports[links[id].a].emplace_back(links[id].b, id);
        ports[links[id].b].emplace_back(links[id].a, id);
    }
    return ports;
}

/// Hop distances from every node to \p dest, never forwarding through a host,
/// over the links not marked in \p down (every link if it is empty).
inline std::vector<uint32_t>
BruteForceDistances(const FabricTopology& topo, uint32_t dest, const std::vector<bool>& down = {})
{
    auto ports = PortsFromLinks(topo);
    std::vector<uint32_t> dist(topo.GetNNodes(), kBruteForceUnreachable);
    std::deque<uint32_t> queue{dest};
    dist[dest] = 0;
    while (!queue.empty())
    {
        uint32_t u = queue.front();
        queue.pop_front();
        if (topo.GetNode(u).kind == FabricNodeKind::Host && u != dest)
        {
            continue; // reached, but a host does not relay
        }
        for (auto [v, link] : ports[u])
        {
            if (dist[v] == kBruteForceUnreachable && (down.empty() || !down[link]))
            {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    return dist;
}

/// What every node should do towards one destination host.
struct BruteForceRoutes
{
    std::vector<uint32_t> hops;                  ///< by node
    std::vector<std::vector<uint16_t>> nextHops; ///< by node; empty for hosts
};

/**
 * Routes towards host node \p dest. With links \p down, a switch that still
 * reaches \p dest over the links that are up uses their distances and
 * ports; one that does not keeps the intact fabric's (its frames die on a
 * dead link rather than loop). A host's hop count is one more than its
 * nearest neighbour's (0 at the destination).
 */
inline BruteForceRoutes
BruteForceRoutesTo(const FabricTopology& topo, uint32_t dest, const std::vector<bool>& down = {})
{
    const auto ports = PortsFromLinks(topo);
    const std::vector<uint32_t> intact = BruteForceDistances(topo, dest);
    const std::vector<uint32_t> up = down.empty() ? intact : BruteForceDistances(topo, dest, down);
    BruteForceRoutes r;
    r.hops.assign(topo.GetNNodes(), kBruteForceUnreachable);
    r.nextHops.resize(topo.GetNNodes());
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        if (topo.GetNode(n).kind == FabricNodeKind::Host)
        {
            continue;
        }
        const bool around = !down.empty() && up[n] != kBruteForceUnreachable;
        const std::vector<uint32_t>& dist = around ? up : intact;
        r.hops[n] = dist[n];
        for (uint32_t p = 0; p < ports[n].size(); ++p)
        {
            const auto [peer, link] = ports[n][p];
            const bool relays = topo.GetNode(peer).kind == FabricNodeKind::Switch || peer == dest;
            if (dist[n] != kBruteForceUnreachable && relays && !(around && down[link]) &&
                dist[peer] != kBruteForceUnreachable && dist[peer] + 1 == dist[n])
            {
                r.nextHops[n].push_back(static_cast<uint16_t>(p));
            }
        }
    }
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        if (topo.GetNode(n).kind != FabricNodeKind::Host)
        {
            continue;
        }
        if (n == dest)
        {
            r.hops[n] = 0;
            continue;
        }
        for (auto [peer, link] : ports[n])
        {
            const uint32_t via = peer == dest ? 1
                                 : topo.GetNode(peer).kind == FabricNodeKind::Host ||
                                         r.hops[peer] == kBruteForceUnreachable
                                     ? kBruteForceUnreachable
                                     : r.hops[peer] + 1;
            r.hops[n] = std::min(r.hops[n], via);
        }
    }
    return r;
}

/// 4 servers of 4 GPUs in 2 rail groups, 3 spines, 2 links per rail leaf and spine.
inline RailOptimizedParams
SmallRails()
{
    RailOptimizedParams rails;
    rails.servers = 4;
    rails.gpusPerServer = 4;
    rails.serversPerGroup = 2;
    rails.spines = 3;
    rails.linksPerRailSpine = 2;
    return rails;
}

/// A leaf-spine with \p links parallel links between each leaf and spine.
inline LeafSpineParams
SmallLeafSpine(uint32_t leaves, uint32_t spines, uint32_t hostsPerLeaf, uint32_t links)
{
    LeafSpineParams params;
    params.leaves = leaves;
    params.spines = spines;
    params.hostsPerLeaf = hostsPerLeaf;
    params.linksPerLeafSpine = links;
    return params;
}

} // namespace test
} // namespace ns3

#endif /* BRUTE_FORCE_ROUTES_TEST_UTIL_H */
