/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// ECMP next-hop groups. Expectations: fat-tree and leaf-spine path
// structure derived by hand, and a brute-force BFS written here that shares
// no code with the route computation.

#include "brute-force-routes-test-util.h"
#include "ecmp-paths-test-util.h"

#include "ns3/ecmp-routes.h"
#include "ns3/fabric-topology.h"
#include "ns3/fat-tree-topology.h"
#include "ns3/leaf-spine-topology.h"
#include "ns3/rail-optimized-topology.h"

#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <vector>

using namespace ns3;
using ns3::test::BruteForceRoutes;
using ns3::test::BruteForceRoutesTo;
using ns3::test::CountPaths;
using ns3::test::SmallLeafSpine;
using ns3::test::SmallRails;

namespace
{

const EcmpRoutes::Keying kKeyings[] = {EcmpRoutes::Keying::PerPrefix, EcmpRoutes::Keying::PerHost};

/// Checks hop counts and next-hop port sets of every (node, host) pair, and
/// the port each switch's forwarding table picks, against the brute-force
/// routes; with links \p down, the routes around them.
void
CheckAgainstBruteForce(const FabricTopology& topo,
                       EcmpRoutes::Keying keying,
                       const std::vector<bool>& down = {})
{
    const EcmpRoutes routes =
        down.empty() ? EcmpRoutes(topo, keying) : EcmpRoutes(topo, down, keying);
    ASSERT_EQ(routes.GetNHosts(), topo.GetNHosts());
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        const uint32_t dest = topo.GetHosts()[h];
        const BruteForceRoutes expect = BruteForceRoutesTo(topo, dest, down);
        for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
        {
            ASSERT_EQ(routes.GetHopCount(n, h), expect.hops[n])
                << topo.GetNode(n).name << " -> " << topo.GetNode(dest).name;
            if (topo.GetNode(n).kind == FabricNodeKind::Host)
            {
                continue;
            }
            const std::vector<uint16_t>& expected = expect.nextHops[n];
            ASSERT_EQ(routes.GetNextHopPorts(n, h), expected)
                << topo.GetNode(n).name << " -> " << topo.GetNode(dest).name;
            // The switch's forwarding table picks expected[hash % size], and asks
            // for the hash only where there is a choice.
            const EcmpRoutes::ForwardingTable& fib = routes.GetForwardingTable(n);
            ASSERT_EQ(fib.GetNHosts(), topo.GetNHosts());
            for (uint32_t hash : {0u, 1u, 2u, 5u, 0xFFFFFFFFu})
            {
                uint32_t calls = 0;
                const uint32_t port = fib.Select(h, [&]() {
                    ++calls;
                    return hash;
                });
                if (expected.empty())
                {
                    EXPECT_EQ(port, EcmpRoutes::ForwardingTable::kNoPort);
                }
                else
                {
                    EXPECT_EQ(port, expected[hash % expected.size()])
                        << topo.GetNode(n).name << " -> " << topo.GetNode(dest).name;
                }
                EXPECT_EQ(calls, expected.size() > 1 ? 1u : 0u);
            }
        }
    }
}

/// CheckAgainstBruteForce under both keyings.
void
CheckAgainstBruteForce(const FabricTopology& topo, const std::vector<bool>& down = {})
{
    for (EcmpRoutes::Keying keying : kKeyings)
    {
        SCOPED_TRACE(keying == EcmpRoutes::Keying::PerPrefix ? "per prefix" : "per host");
        CheckAgainstBruteForce(topo, keying, down);
    }
}

/// The only neighbour of a single-homed host.
uint32_t
UplinkOf(const FabricTopology& topo, uint32_t host)
{
    return topo.GetPeer(host, topo.AdjacentLinks(host).at(0));
}

/// A random fabric: a spanning tree of switches plus extra (some parallel)
/// links, hosts with one to three links, an occasional host-to-host link.
FabricTopology
RandomIrregular(uint32_t seed)
{
    std::mt19937 rng(seed);
    FabricTopology topo;
    const uint32_t nSwitches = 2 + rng() % 9;
    std::vector<uint32_t> switches;
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        switches.push_back(topo.AddSwitch("s" + std::to_string(i), 1 + rng() % 3));
    }
    for (uint32_t i = 1; i < nSwitches; ++i)
    {
        topo.AddLink(switches[i], switches[rng() % i], 100, 1);
    }
    for (uint32_t extra = rng() % 8; extra > 0; --extra)
    {
        uint32_t a = rng() % nSwitches;
        uint32_t b = rng() % nSwitches;
        if (a != b)
        {
            topo.AddLink(switches[a], switches[b], 100, 1);
        }
    }
    const uint32_t nHosts = 2 + rng() % 8;
    std::vector<uint32_t> hosts;
    for (uint32_t i = 0; i < nHosts; ++i)
    {
        hosts.push_back(topo.AddHost("h" + std::to_string(i)));
        for (uint32_t homes = 1 + rng() % 3; homes > 0; --homes)
        {
            topo.AddLink(hosts.back(), switches[rng() % nSwitches], 100, 1);
        }
    }
    if (rng() % 2 == 0)
    {
        topo.AddLink(hosts[0], hosts[1], 100, 1);
    }
    return topo;
}

/// \p count distinct random links of \p topo marked down.
std::vector<bool>
RandomDownLinks(const FabricTopology& topo, uint32_t count, std::mt19937& rng)
{
    std::vector<bool> down(topo.GetNLinks(), false);
    for (uint32_t i = 0; i < count && i < topo.GetNLinks(); ++i)
    {
        uint32_t l = rng() % topo.GetNLinks();
        while (down[l])
        {
            l = (l + 1) % topo.GetNLinks();
        }
        down[l] = true;
    }
    return down;
}

} // namespace

TEST(EcmpRoutes, MatchesBruteForceOnGeneratedFabrics)
{
    for (uint32_t k : {2u, 4u, 6u})
    {
        FatTreeParams params;
        params.k = k;
        CheckAgainstBruteForce(MakeFatTree(params));
    }
    FatTreeParams oversubscribed;
    oversubscribed.hostsPerEdge = 5;
    CheckAgainstBruteForce(MakeFatTree(oversubscribed));
    LeafSpineParams leafSpine;
    leafSpine.leaves = 3;
    leafSpine.spines = 2;
    leafSpine.linksPerLeafSpine = 3;
    CheckAgainstBruteForce(MakeLeafSpine(leafSpine));
    FatTreeParams k8;
    k8.k = 8;
    CheckAgainstBruteForce(MakeFatTree(k8));
    CheckAgainstBruteForce(MakeRailOptimized(SmallRails()));
    CheckAgainstBruteForce(MakeRailOptimized(RailOptimizedParams{}));
    // 72 edge switches: more prefixes than one batched search serves (64).
    FatTreeParams k12;
    k12.k = 12;
    CheckAgainstBruteForce(MakeFatTree(k12));
    // Spines with 80 ports to switches: more than a 64-bit port mask holds.
    CheckAgainstBruteForce(MakeLeafSpine(SmallLeafSpine(40, 2, 1, 2)));
}

TEST(EcmpRoutes, MatchesBruteForceOnIrregularGraphs)
{
    for (uint32_t seed = 1; seed <= 20; ++seed)
    {
        SCOPED_TRACE("seed " + std::to_string(seed));
        CheckAgainstBruteForce(RandomIrregular(seed));
    }
}

TEST(EcmpRoutes, MatchesBruteForceAroundDownLinks)
{
    // Random links down, host links among them: switches that still reach a
    // host over the links that are up route over those; the others, and
    // every switch towards a host whose own link is down, keep the intact
    // fabric's routes.
    std::mt19937 rng(7);
    FatTreeParams ft;
    ft.k = 4;
    const FabricTopology fatTree = MakeFatTree(ft);
    const FabricTopology rails = MakeRailOptimized(SmallRails());
    const FabricTopology leafSpine = MakeLeafSpine(SmallLeafSpine(3, 2, 2, 2));
    for (uint32_t round = 0; round < 6; ++round)
    {
        SCOPED_TRACE("round " + std::to_string(round));
        const uint32_t count = 1 + round;
        CheckAgainstBruteForce(fatTree, RandomDownLinks(fatTree, count, rng));
        CheckAgainstBruteForce(rails, RandomDownLinks(rails, count, rng));
        CheckAgainstBruteForce(leafSpine, RandomDownLinks(leafSpine, count, rng));
        const FabricTopology irregular = RandomIrregular(100 + round);
        CheckAgainstBruteForce(irregular, RandomDownLinks(irregular, count, rng));
    }
}

TEST(EcmpRoutes, PrefixesAreEdgeSwitchesWhereHostsHaveOneLink)
{
    FatTreeParams ft;
    ft.k = 8;
    const FabricTopology topo = MakeFatTree(ft);
    const EcmpRoutes routes(topo);
    EXPECT_EQ(routes.GetKeying(), EcmpRoutes::Keying::PerPrefix);
    EXPECT_EQ(routes.GetNPrefixes(), ft.k * ft.k / 2) << "one per edge switch";
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        EXPECT_EQ(routes.GetPrefixSwitch(routes.GetPrefix(h)), UplinkOf(topo, topo.GetHosts()[h]));
    }
    const EcmpRoutes perHost(topo, EcmpRoutes::Keying::PerHost);
    EXPECT_EQ(perHost.GetNPrefixes(), topo.GetNHosts());
    EXPECT_EQ(perHost.GetPrefixSwitch(perHost.GetPrefix(3)), EcmpRoutes::kNoSwitch);
    EXPECT_THROW(routes.GetPrefix(topo.GetNHosts()), std::out_of_range);
    EXPECT_THROW(routes.GetPrefixSwitch(routes.GetNPrefixes()), std::out_of_range);

    // A host with several links, or linked to a host, is a prefix of its own.
    for (uint32_t seed = 1; seed <= 20; ++seed)
    {
        const FabricTopology irregular = RandomIrregular(seed);
        const EcmpRoutes r(irregular);
        for (uint32_t h = 0; h < irregular.GetNHosts(); ++h)
        {
            const uint32_t node = irregular.GetHosts()[h];
            const std::vector<uint32_t>& links = irregular.AdjacentLinks(node);
            const bool single =
                links.size() == 1 && !irregular.IsHost(irregular.GetPeer(node, links[0]));
            EXPECT_EQ(r.GetPrefixSwitch(r.GetPrefix(h)),
                      single ? irregular.GetPeer(node, links[0]) : EcmpRoutes::kNoSwitch)
                << "seed " << seed << " host " << h;
        }
    }

    // A host whose own link is down leaves its edge switch's prefix for a
    // second one of the same switch, routed as if intact.
    std::vector<bool> down(topo.GetNLinks(), false);
    down[topo.AdjacentLinks(topo.GetHosts()[5])[0]] = true;
    const EcmpRoutes cut(topo, down);
    EXPECT_EQ(cut.GetNPrefixes(), ft.k * ft.k / 2 + 1);
    EXPECT_NE(cut.GetPrefix(5), cut.GetPrefix(4));
    EXPECT_EQ(cut.GetPrefixSwitch(cut.GetPrefix(5)), cut.GetPrefixSwitch(cut.GetPrefix(4)));
}

TEST(EcmpRoutes, FatTreeK4PortStructure)
{
    const uint32_t k = 4;
    const uint32_t half = k / 2;
    FatTreeParams params;
    params.k = k;
    FabricTopology topo = MakeFatTree(params);
    EcmpRoutes routes(topo);

    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        const FabricNode& sw = topo.GetNode(node);
        if (sw.kind == FabricNodeKind::Host)
        {
            continue;
        }
        std::set<uint16_t> coreDownPorts;
        for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
        {
            const uint32_t host = topo.GetHosts()[h];
            const FabricNode& dst = topo.GetNode(host);
            const std::vector<uint16_t>& ports = routes.GetNextHopPorts(node, h);
            std::vector<uint32_t> peers;
            for (uint16_t port : ports)
            {
                peers.push_back(topo.GetPeer(node, topo.AdjacentLinks(node).at(port)));
            }
            if (sw.tier == 1 && sw.rack == dst.rack)
            {
                // Own host: exactly the one port facing it.
                ASSERT_EQ(ports.size(), 1u);
                EXPECT_EQ(peers[0], host);
            }
            else if (sw.tier == 1)
            {
                // Other racks, same pod or not: every aggregation uplink.
                EXPECT_EQ(ports.size(), half);
                for (uint32_t peer : peers)
                {
                    EXPECT_EQ(topo.GetNode(peer).tier, 2u);
                }
            }
            else if (sw.tier == 2 && sw.pod == dst.pod)
            {
                ASSERT_EQ(ports.size(), 1u);
                EXPECT_EQ(peers[0], UplinkOf(topo, host));
            }
            else if (sw.tier == 2)
            {
                EXPECT_EQ(ports.size(), half);
                for (uint32_t peer : peers)
                {
                    EXPECT_EQ(topo.GetNode(peer).tier, 3u);
                }
            }
            else
            {
                // Core: one port, down to the destination's pod.
                ASSERT_EQ(ports.size(), 1u);
                EXPECT_EQ(topo.GetNode(peers[0]).tier, 2u);
                EXPECT_EQ(topo.GetNode(peers[0]).pod, dst.pod);
                coreDownPorts.insert(ports[0]);
            }
        }
        if (sw.tier == 3)
        {
            EXPECT_EQ(coreDownPorts.size(), k); // one port per pod
        }
    }

    // Every host reaches every other, along (k/2)^2 paths across pods, k/2
    // within a pod, 1 within a rack; hop counts 6, 4, 2.
    for (uint32_t s = 0; s < topo.GetNHosts(); ++s)
    {
        const FabricNode& src = topo.GetNode(topo.GetHosts()[s]);
        for (uint32_t d = 0; d < topo.GetNHosts(); ++d)
        {
            if (s == d)
            {
                EXPECT_EQ(routes.GetHopCount(topo.GetHosts()[s], d), 0u);
                continue;
            }
            const FabricNode& dst = topo.GetNode(topo.GetHosts()[d]);
            uint64_t paths = CountPaths(topo, routes, UplinkOf(topo, topo.GetHosts()[s]), d);
            uint32_t hops = routes.GetHopCount(topo.GetHosts()[s], d);
            if (src.rack == dst.rack)
            {
                EXPECT_EQ(paths, 1u);
                EXPECT_EQ(hops, 2u);
            }
            else if (src.pod == dst.pod)
            {
                EXPECT_EQ(paths, half);
                EXPECT_EQ(hops, 4u);
            }
            else
            {
                EXPECT_EQ(paths, half * half);
                EXPECT_EQ(hops, 6u);
            }
        }
    }
}

TEST(EcmpRoutes, LeafSpineParallelLinksAreSeparatePorts)
{
    LeafSpineParams params;
    params.leaves = 4;
    params.spines = 3;
    params.hostsPerLeaf = 2;
    params.linksPerLeafSpine = 2;
    FabricTopology topo = MakeLeafSpine(params);
    EcmpRoutes routes(topo);
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        const FabricNode& sw = topo.GetNode(node);
        if (sw.kind == FabricNodeKind::Host)
        {
            continue;
        }
        for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
        {
            const uint32_t host = topo.GetHosts()[h];
            const std::vector<uint16_t>& ports = routes.GetNextHopPorts(node, h);
            std::set<uint32_t> links;
            std::set<uint32_t> peers;
            for (uint16_t port : ports)
            {
                links.insert(topo.AdjacentLinks(node).at(port));
                peers.insert(topo.GetPeer(node, topo.AdjacentLinks(node).at(port)));
            }
            EXPECT_EQ(links.size(), ports.size());
            if (sw.tier == 1 && sw.rack == topo.GetNode(host).rack)
            {
                EXPECT_EQ(ports.size(), 1u);
            }
            else if (sw.tier == 1)
            {
                EXPECT_EQ(ports.size(), 2u * params.spines);
                EXPECT_EQ(peers.size(), params.spines);
            }
            else
            {
                // Spine: both parallel links to the destination's leaf.
                EXPECT_EQ(ports.size(), 2u);
                EXPECT_EQ(peers.size(), 1u);
                EXPECT_EQ(*peers.begin(), UplinkOf(topo, host));
            }
        }
    }
    // Host to a host on another leaf: spines x 2 up-links x 2 down-links.
    uint32_t srcLeaf = UplinkOf(topo, topo.GetHosts()[0]);
    uint32_t farHost = params.hostsPerLeaf * (params.leaves - 1);
    EXPECT_EQ(CountPaths(topo, routes, srcLeaf, farHost), params.spines * 2u * 2u);
}

TEST(EcmpRoutes, HostsDoNotRelayTraffic)
{
    // tor0 and tor1 share a spine and a dual-homed host m. tor0 reaches h1 on
    // tor1 through the spine only, although tor0-m-tor1 is as short.
    FabricTopology topo;
    uint32_t h0 = topo.AddHost("h0");
    uint32_t h1 = topo.AddHost("h1");
    uint32_t m = topo.AddHost("m");
    uint32_t tor0 = topo.AddSwitch("tor0", 1);
    uint32_t tor1 = topo.AddSwitch("tor1", 1);
    uint32_t spine = topo.AddSwitch("spine", 2);
    topo.AddLink(h0, tor0, 100, 1);
    topo.AddLink(h1, tor1, 100, 1);
    uint32_t mTor0 = topo.AddLink(m, tor0, 100, 1);
    topo.AddLink(m, tor1, 100, 1);
    uint32_t up0 = topo.AddLink(tor0, spine, 100, 1);
    topo.AddLink(tor1, spine, 100, 1);
    EcmpRoutes routes(topo);
    const uint32_t h1Index = topo.GetHostIndex(h1);
    EXPECT_EQ(routes.GetNextHopPorts(tor0, h1Index),
              (std::vector<uint16_t>{static_cast<uint16_t>(topo.PortOf(tor0, up0))}));
    EXPECT_EQ(routes.GetHopCount(tor0, h1Index), 3u);
    // m itself is reached directly.
    EXPECT_EQ(routes.GetNextHopPorts(tor0, topo.GetHostIndex(m)),
              (std::vector<uint16_t>{static_cast<uint16_t>(topo.PortOf(tor0, mTor0))}));
    EXPECT_EQ(routes.GetHopCount(m, h1Index), 2u);
    EXPECT_EQ(routes.GetHopCount(h0, topo.GetHostIndex(m)), 2u);
}

TEST(EcmpRoutes, SwitchBehindAHostIsUnreachable)
{
    // island - m - tor - h: the island switch reaches m but not h.
    FabricTopology topo;
    uint32_t h = topo.AddHost("h");
    uint32_t m = topo.AddHost("m");
    uint32_t tor = topo.AddSwitch("tor", 1);
    uint32_t island = topo.AddSwitch("island", 1);
    topo.AddLink(h, tor, 100, 1);
    topo.AddLink(m, tor, 100, 1);
    topo.AddLink(m, island, 100, 1);
    EcmpRoutes routes(topo);
    const uint32_t hIndex = topo.GetHostIndex(h);
    EXPECT_TRUE(routes.GetNextHopPorts(island, hIndex).empty());
    EXPECT_EQ(routes.GetGroupId(island, hIndex), 0u);
    EXPECT_EQ(routes.GetHopCount(island, hIndex), EcmpRoutes::kUnreachable);
    EXPECT_EQ(routes.GetHopCount(island, topo.GetHostIndex(m)), 1u);
    EXPECT_EQ(routes.GetHopCount(m, hIndex), 2u);
    EXPECT_TRUE(routes.GetGroups(island).at(0).empty());
}

TEST(EcmpRoutes, RejectsNonSwitchesAndBadHostIndices)
{
    FabricTopology topo = MakeFatTree(FatTreeParams{});
    EcmpRoutes routes(topo);
    uint32_t host = topo.GetHosts()[0];
    uint32_t tor = UplinkOf(topo, host);
    EXPECT_THROW(routes.GetNextHopPorts(host, 1), std::out_of_range);
    EXPECT_THROW(routes.GetNextHopPorts(topo.GetNNodes(), 1), std::out_of_range);
    EXPECT_THROW(routes.GetNextHopPorts(tor, topo.GetNHosts()), std::out_of_range);
    EXPECT_THROW(routes.GetHopCount(topo.GetNNodes(), 0), std::out_of_range);
    EXPECT_THROW(routes.GetGroups(host), std::out_of_range);

    FabricTopology invalid;
    invalid.AddHost("alone");
    EXPECT_THROW(EcmpRoutes{invalid}, std::runtime_error);
}

TEST(EcmpRoutes, FatTreeK16IsCompact)
{
    const uint32_t k = 16;
    const uint32_t half = k / 2;
    FatTreeParams params;
    params.k = k;
    FabricTopology topo = MakeFatTree(params);
    ASSERT_EQ(topo.GetNHosts(), 1024u);
    ASSERT_EQ(topo.GetNSwitches(), 320u);
    EcmpRoutes routes(topo);
    // Per switch and destination, 7 bytes (group, hops, forwarding word): per
    // edge switch (128 prefixes) the whole takes under 1 MB; per host the
    // tables alone take switches x hosts x 7 bytes, 2.3 MB.
    EXPECT_EQ(routes.GetNPrefixes(), 128u);
    EXPECT_GE(routes.MemoryBytes(), 320u * 128u * 7u);
    EXPECT_LT(routes.MemoryBytes(), 1000u * 1000u);
    EXPECT_GE(EcmpRoutes(topo, EcmpRoutes::Keying::PerHost).MemoryBytes(), 320u * 1024u * 7u);

    // Deduplication: an edge switch has one group per local host plus the
    // uplink group, an aggregation switch one per local edge plus the uplink
    // group, a core one per pod; all have the empty group 0.
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        const FabricNode& sw = topo.GetNode(node);
        if (sw.kind == FabricNodeKind::Host)
        {
            continue;
        }
        const size_t groups = routes.GetGroups(node).size();
        if (sw.tier == 1)
        {
            EXPECT_EQ(groups, 1u + half + 1u);
        }
        else if (sw.tier == 2)
        {
            EXPECT_EQ(groups, 1u + half + 1u);
        }
        else
        {
            EXPECT_EQ(groups, 1u + k);
        }
    }
    // Hop counts by locality: same rack 2, same pod 4, elsewhere 6.
    const std::vector<uint32_t>& hosts = topo.GetHosts();
    for (uint32_t s = 0; s < hosts.size(); s += 37)
    {
        for (uint32_t d = 0; d < hosts.size(); ++d)
        {
            const FabricNode& a = topo.GetNode(hosts[s]);
            const FabricNode& b = topo.GetNode(hosts[d]);
            uint32_t expected = s == d ? 0 : a.rack == b.rack ? 2 : a.pod == b.pod ? 4 : 6;
            ASSERT_EQ(routes.GetHopCount(hosts[s], d), expected);
        }
    }
}
