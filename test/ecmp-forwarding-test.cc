/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Forwarding through the per-prefix routes, end to end. Every path the
 * packet-level switches and the flow level give a connection is the path
 * that walking the brute-force shortest-path next hops with the connection's
 * ECMP hash gives, on a fat-tree, a rail-optimized fabric and a leaf-spine
 * with parallel links. And a k=4 permutation with a link that fails and
 * comes back (the switches rerouting twice) runs to the picosecond the same
 * on routes per prefix as on routes per destination host, every flow
 * complete with all its bytes.
 */

#include "brute-force-routes-test-util.h"
#include "fabric-test-util.h"

#include <gtest/gtest.h>
#include <map>
#include <set>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

const uint32_t kSeed = 5;

/// Links from host \p src to host \p dst of a connection from source port
/// \p port, walking the brute-force next hops (\p routes by destination
/// host index) with the switches' ECMP hash.
std::vector<uint32_t>
ExpectedPath(const FabricTopology& topo,
             const std::vector<BruteForceRoutes>& routes,
             uint32_t src,
             uint32_t dst,
             uint16_t port)
{
    std::vector<uint32_t> path;
    uint32_t node = topo.GetHosts()[src];
    while (node != topo.GetHosts()[dst] && path.size() <= topo.GetNLinks())
    {
        uint32_t next = 0; // a host's one port
        if (!topo.IsHost(node))
        {
            const std::vector<uint16_t>& hops = routes[dst].nextHops[node];
            if (hops.empty())
            {
                ADD_FAILURE() << "no brute-force route from node " << node << " to host " << dst;
                return path;
            }
            const uint32_t hash = EcmpRoutes::FlowHash(RoceHostAddress(src),
                                                       RoceHostAddress(dst),
                                                       port,
                                                       RoceWire::kUdpPort,
                                                       EcmpRoutes::SwitchSeed(kSeed, node));
            next = hops[hops.size() == 1 ? 0 : hash % hops.size()];
        }
        const uint32_t link = topo.AdjacentLinks(node)[next];
        path.push_back(link);
        node = topo.GetPeer(node, link);
    }
    return path;
}

/// Packet- and flow-level paths of every host pair against ExpectedPath.
void
CheckPaths(const FabricTopology& topo)
{
    RoceFabricHelper helper;
    helper.SetEcmpSeed(kSeed);
    Ptr<RoceFabric> fabric = helper.Install(topo);
    Ptr<FlowNetwork> flows = CreateObject<FlowNetwork>();
    flows->SetAttribute("EcmpSeed", UintegerValue(kSeed));
    flows->Build(topo);
    std::vector<BruteForceRoutes> routes;
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        routes.push_back(BruteForceRoutesTo(topo, topo.GetHosts()[h]));
    }
    uint32_t multiPath = 0; // pairs whose ports took different paths
    for (uint32_t src = 0; src < topo.GetNHosts(); ++src)
    {
        for (uint32_t dst = 0; dst < topo.GetNHosts(); ++dst)
        {
            if (src == dst)
            {
                continue;
            }
            std::set<std::vector<uint32_t>> distinct;
            for (uint16_t port : {0xC000, 0xC001, 0xD2F1, 0xFFFF})
            {
                const std::vector<uint32_t> expected = ExpectedPath(topo, routes, src, dst, port);
                ASSERT_EQ(fabric->GetPath(src, dst, port), expected)
                    << "packet level, host " << src << " -> " << dst << " port " << port;
                ASSERT_EQ(flows->GetPath(src, dst, port), expected)
                    << "flow level, host " << src << " -> " << dst << " port " << port;
                distinct.insert(expected);
            }
            multiPath += distinct.size() > 1;
        }
    }
    EXPECT_GT(multiPath, 0u) << "the hash chose among equal-cost paths";
    Simulator::Destroy();
}

/// What a run of the permutation gave, per flow and per link.
struct PermutationOutcome
{
    std::map<uint64_t, RoceFlowMonitor::Flow> flows;
    std::vector<uint64_t> linkBytes; ///< by link: bytes sent both ways
    std::vector<FabricFaults::Event> faults;
};

class EcmpForwardingTest : public FabricTest
{
  protected:
    /**
     * Every host of a k=4 fat-tree sends 1 MB to the host 5 on; an
     * edge-aggregation link fails at 20 us, the switches route around it at
     * 30 us and take it back when it recovers at 150 us.
     */
    static PermutationOutcome RunPermutation(EcmpRoutes::Keying keying)
    {
        RoceUsePicoseconds();
        RngSeedManager::SetSeed(1);
        RoceFabricHelper helper;
        helper.SetRouteKeying(keying);
        helper.SetNicAttribute("AckTimeoutExponent", UintegerValue(6));
        FatTreeParams ft;
        ft.k = 4;
        const FabricTopology topo = MakeFatTree(ft);
        Ptr<RoceFabric> fabric = helper.Install(topo);
        EXPECT_EQ(fabric->GetRoutes()->GetKeying(), keying);
        fabric->AssignStreams(1);
        RoceFlowMonitor monitor(fabric);
        const uint32_t n = fabric->GetNHosts();
        for (uint32_t h = 0; h < n; ++h)
        {
            RdmaMessageInfo info;
            info.bytes = 1000000;
            fabric->SendMessage(h, (h + 5) % n, info, Seconds(0));
        }
        uint32_t edgeAgg = 0;
        while (topo.IsHost(topo.GetLink(edgeAgg).a) || topo.IsHost(topo.GetLink(edgeAgg).b))
        {
            ++edgeAgg;
        }
        Ptr<FabricFaults> faults =
            CreateObjectWithAttributes<FabricFaults>("DetectionDelay", TimeValue(MicroSeconds(10)));
        FabricFault f;
        f.target = FabricFault::Target::LINK;
        f.id = edgeAgg;
        f.downNs = 20000;
        f.upNs = 150000;
        faults->Install(fabric, {f});
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        PermutationOutcome out;
        out.flows = monitor.GetFlows();
        for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
        {
            out.linkBytes.push_back(fabric->GetChannel(l)->GetTxBytes(0) +
                                    fabric->GetChannel(l)->GetTxBytes(1));
        }
        out.faults = faults->GetEvents();
        Simulator::Destroy();
        return out;
    }
};

} // namespace

TEST_F(EcmpForwardingTest, PathsFollowBruteForceRoutesOnEveryFabric)
{
    FatTreeParams ft;
    ft.k = 4;
    CheckPaths(MakeFatTree(ft));
    CheckPaths(MakeRailOptimized(SmallRails()));
    CheckPaths(MakeLeafSpine(SmallLeafSpine(3, 2, 3, 2)));
}

TEST_F(EcmpForwardingTest, PermutationWithAFaultRunsTheSameOnRoutesPerPrefixAndPerHost)
{
    const PermutationOutcome prefix = RunPermutation(EcmpRoutes::Keying::PerPrefix);
    const PermutationOutcome host = RunPermutation(EcmpRoutes::Keying::PerHost);
    // Conservation: every flow delivered and acknowledged all its bytes.
    ASSERT_EQ(prefix.flows.size(), 16u);
    for (const auto& [id, f] : prefix.flows)
    {
        EXPECT_EQ(f.info.bytes, 1000000u);
        EXPECT_TRUE(f.delivered.IsPositive()) << "flow " << id;
        EXPECT_TRUE(f.acked >= f.delivered) << "flow " << id;
    }
    // The fault mattered: frames were lost on the failed link and sent again.
    uint64_t retransmitted = 0;
    for (const auto& [id, f] : prefix.flows)
    {
        retransmitted += f.retransmittedBytes;
    }
    EXPECT_GT(retransmitted, 0u);
    ASSERT_EQ(prefix.faults.size(), 4u) << "down, routes-withdrawn, up, routes-restored";
    // The same run, to the picosecond and the byte.
    ASSERT_EQ(host.flows.size(), prefix.flows.size());
    for (const auto& [id, f] : prefix.flows)
    {
        const RoceFlowMonitor::Flow& g = host.flows.at(id);
        EXPECT_EQ(f.info.srcNode, g.info.srcNode);
        EXPECT_EQ(f.info.dstNode, g.info.dstNode);
        EXPECT_EQ(f.info.srcPort, g.info.srcPort);
        EXPECT_EQ(f.delivered, g.delivered) << "flow " << id;
        EXPECT_EQ(f.acked, g.acked) << "flow " << id;
        EXPECT_EQ(f.retransmittedBytes, g.retransmittedBytes) << "flow " << id;
        EXPECT_EQ(f.lostBytes, g.lostBytes) << "flow " << id;
    }
    EXPECT_EQ(prefix.linkBytes, host.linkBytes);
    ASSERT_EQ(host.faults.size(), prefix.faults.size());
    for (std::size_t i = 0; i < prefix.faults.size(); ++i)
    {
        EXPECT_EQ(prefix.faults[i].event, host.faults[i].event);
        EXPECT_EQ(prefix.faults[i].time, host.faults[i].time);
    }
}
