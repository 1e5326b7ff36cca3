/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The rail-optimized fabric: its structure, hop and path counts derived by
// hand (same rail and group: NIC, rail leaf, NIC; anything else through a
// spine), NVLink inside a server, and rings that stay on their rails.

#include "ecmp-paths-test-util.h"

#include "ns3/ecmp-routes.h"
#include "ns3/job-placement.h"
#include "ns3/rail-optimized-topology.h"

#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::CountPaths;

namespace
{

/// Server and GPU of a host, read back from its name "host-s<server>-g<gpu>".
std::pair<uint32_t, uint32_t>
ServerGpu(const FabricTopology& topo, uint32_t host)
{
    const std::string name = topo.GetNode(topo.GetHosts().at(host)).name;
    const std::size_t g = name.find("-g");
    return {static_cast<uint32_t>(std::stoul(name.substr(6, g - 6))),
            static_cast<uint32_t>(std::stoul(name.substr(g + 2)))};
}

/// The switch a (single-homed) host hangs off.
uint32_t
LeafOf(const FabricTopology& topo, uint32_t host)
{
    const uint32_t node = topo.GetHosts().at(host);
    return topo.GetPeer(node, topo.AdjacentLinks(node).at(0));
}

} // namespace

TEST(RailOptimizedTopology, EveryNicHangsOffTheLeafOfItsRail)
{
    RailOptimizedParams p;
    p.servers = 6;
    p.gpusPerServer = 4;
    p.serversPerGroup = 3;
    p.spines = 3;
    p.linksPerRailSpine = 2;
    const FabricTopology topo = MakeRailOptimized(p);
    const uint32_t groups = 2;
    EXPECT_EQ(topo.GetNHosts(), 6u * 4u);
    EXPECT_EQ(topo.GetNSwitches(), groups * 4u + 3u);
    EXPECT_EQ(topo.GetNLinks(), 6u * 4u + groups * 4u * 3u * 2u);
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        const auto [server, gpu] = ServerGpu(topo, h);
        EXPECT_EQ(server, h / 4);
        EXPECT_TRUE(seen.emplace(server, gpu).second) << "host " << h;
        const FabricNode& node = topo.GetNode(topo.GetHosts()[h]);
        EXPECT_EQ(node.server, static_cast<int32_t>(server));
        EXPECT_EQ(node.rack, static_cast<int32_t>(server));
        EXPECT_EQ(topo.AdjacentLinks(topo.GetHosts()[h]).size(), 1u); // one NIC, one link
        EXPECT_EQ(topo.GetNode(LeafOf(topo, h)).name,
                  "rail-" + std::to_string(server / 3) + "-" + std::to_string(gpu));
        for (uint32_t o = 0; o < topo.GetNHosts(); ++o)
        {
            EXPECT_EQ(topo.SameServer(h, o), o / 4 == h / 4);
        }
    }
    // Every rail leaf reaches every spine over linksPerRailSpine links.
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        const FabricNode& node = topo.GetNode(n);
        if (node.kind == FabricNodeKind::Switch && node.tier == 1)
        {
            EXPECT_EQ(topo.AdjacentLinks(n).size(), 3u + 3u * 2u) << node.name;
        }
        if (node.kind == FabricNodeKind::Switch && node.tier == 2)
        {
            EXPECT_EQ(topo.AdjacentLinks(n).size(), groups * 4u * 2u) << node.name;
        }
    }
}

TEST(RailOptimizedTopology, SchedulersSeeTheRailGroupAsTheRack)
{
    RailOptimizedParams p;
    p.servers = 6;
    p.gpusPerServer = 4;
    p.serversPerGroup = 3;
    const FabricTopology topo = MakeRailOptimized(p);
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        const auto [server, gpu] = ServerGpu(topo, h);
        // Placement's rack stays the server; schedulers plan the rail group as one rack.
        EXPECT_EQ(topo.GetNode(topo.GetHosts()[h]).rack, static_cast<int32_t>(server));
        EXPECT_EQ(topo.GetSchedulingRack(h), static_cast<int32_t>(server / 3)) << "host " << h;
        EXPECT_EQ(RailOptimizedHost(p, server, gpu), h);
    }
    EXPECT_THROW(RailOptimizedHost(p, 6, 0), std::out_of_range);
    EXPECT_THROW(RailOptimizedHost(p, 0, 4), std::out_of_range);
}

TEST(RailOptimizedTopology, HopsAndPathsFollowRailsAndGroups)
{
    RailOptimizedParams p;
    p.servers = 4;
    p.gpusPerServer = 8;
    p.serversPerGroup = 2;
    p.spines = 4;
    p.linksPerRailSpine = 2;
    const FabricTopology topo = MakeRailOptimized(p);
    const EcmpRoutes routes(topo);
    for (uint32_t a = 0; a < topo.GetNHosts(); ++a)
    {
        for (uint32_t b = 0; b < topo.GetNHosts(); ++b)
        {
            if (a == b)
            {
                continue;
            }
            const auto [sa, ga] = ServerGpu(topo, a);
            const auto [sb, gb] = ServerGpu(topo, b);
            const bool sameLeaf = ga == gb && sa / 2 == sb / 2;
            // Same rail and group: NIC, leaf, NIC. Otherwise up to any spine over any of its
            // parallel links, and down over any of the spine's links to the far leaf.
            EXPECT_EQ(routes.GetHopCount(topo.GetHosts()[a], b), sameLeaf ? 2u : 4u)
                << a << " -> " << b;
            EXPECT_EQ(CountPaths(topo, routes, LeafOf(topo, a), b),
                      sameLeaf ? 1u : uint64_t{4} * 2 * 2)
                << a << " -> " << b;
        }
    }
}

TEST(RailOptimizedTopology, RingsAcrossServersStayOnTheirRails)
{
    for (uint32_t servers : {2u, 3u, 4u})
    {
        RailOptimizedParams p;
        p.servers = servers;
        p.gpusPerServer = 8;
        const FabricTopology topo = MakeRailOptimized(p);
        ClusterSlots slots(topo, 1);
        JobSpec job;
        job.id = 1;
        job.workers = servers * 8;
        job.gpusPerHost = 1;
        job.placement = "packed";
        const Placement ring = Place(job, slots);
        uint32_t crossServer = 0;
        uint32_t offRail = 0;
        for (std::size_t i = 0; i < ring.workerHost.size(); ++i)
        {
            const uint32_t a = ring.workerHost[i];
            const uint32_t b = ring.workerHost[(i + 1) % ring.workerHost.size()];
            if (topo.SameServer(a, b))
            {
                continue; // NVLink
            }
            ++crossServer;
            offRail += ServerGpu(topo, a).second != ServerGpu(topo, b).second;
            EXPECT_EQ(LeafOf(topo, a) == LeafOf(topo, b),
                      ServerGpu(topo, a).second == ServerGpu(topo, b).second);
        }
        EXPECT_EQ(crossServer, servers) << servers << " servers";
        // With an even number of servers every hop between servers stays on one rail; with an
        // odd number the hop that closes the ring goes from rail 7 to rail 0.
        EXPECT_EQ(offRail, servers % 2) << servers << " servers";
    }
}

TEST(RailOptimizedTopology, BadParametersAreRejected)
{
    RailOptimizedParams p;
    p.servers = 5;
    p.serversPerGroup = 2;
    EXPECT_THROW(MakeRailOptimized(p), std::runtime_error);
    p.serversPerGroup = 0;
    p.gpusPerServer = 0;
    EXPECT_THROW(MakeRailOptimized(p), std::runtime_error);
    p.gpusPerServer = 8;
    p.spines = 0;
    EXPECT_THROW(MakeRailOptimized(p), std::runtime_error);
    FabricTopology t;
    const uint32_t sw = t.AddSwitch("s", 1);
    EXPECT_THROW(t.SetServer(sw, 0), std::invalid_argument);
}
