/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ECMP_PATHS_TEST_UTIL_H
#define ECMP_PATHS_TEST_UTIL_H

// Counting the equal-cost paths a fabric's routes offer, for the tests of the
// routes and of the topologies they are built on.

#include "ns3/ecmp-routes.h"
#include "ns3/fabric-topology.h"

#include <cstdint>
#include <gtest/gtest.h>

namespace ns3
{
namespace test
{

/// Number of distinct shortest paths (as link sequences) from switch \p node
/// to host \p h, following every next-hop port; each next hop must be one hop
/// closer to \p h.
inline uint64_t
CountPaths(const FabricTopology& topo, const EcmpRoutes& routes, uint32_t node, uint32_t h)
{
    if (node == topo.GetHosts()[h])
    {
        return 1;
    }
    uint64_t paths = 0;
    for (uint16_t port : routes.GetNextHopPorts(node, h))
    {
        uint32_t peer = topo.GetPeer(node, topo.AdjacentLinks(node)[port]);
        EXPECT_EQ(routes.GetHopCount(peer, h) + 1, routes.GetHopCount(node, h));
        paths += CountPaths(topo, routes, peer, h);
    }
    return paths;
}

} // namespace test
} // namespace ns3

#endif /* ECMP_PATHS_TEST_UTIL_H */
