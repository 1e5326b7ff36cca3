/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// PartitionFabric: which rank of a distributed simulation owns each node.

#include "ns3/fabric-partition.h"
#include "ns3/fat-tree-topology.h"
#include "ns3/leaf-spine-topology.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <stdexcept>

using namespace ns3;

namespace
{

/// Number of links whose two ends are on different ranks.
uint32_t
CutLinks(const FabricTopology& t, const std::vector<uint32_t>& rank)
{
    uint32_t cut = 0;
    for (const FabricLink& l : t.GetLinks())
    {
        cut += rank[l.a] != rank[l.b];
    }
    return cut;
}

/// Nodes per rank.
std::map<uint32_t, uint32_t>
Loads(const std::vector<uint32_t>& rank)
{
    std::map<uint32_t, uint32_t> loads;
    for (uint32_t r : rank)
    {
        ++loads[r];
    }
    return loads;
}

} // namespace

TEST(FabricPartition, OneRankOwnsEverything)
{
    const FabricTopology t = MakeFatTree(FatTreeParams{});
    EXPECT_EQ(PartitionFabric(t, 1), std::vector<uint32_t>(t.GetNNodes(), 0));
}

TEST(FabricPartition, FatTreePodsStayWholeAndHostsFollowTheirSwitch)
{
    FatTreeParams p;
    p.k = 8; // 8 pods
    const FabricTopology t = MakeFatTree(p);
    for (uint32_t ranks : {2u, 4u, 8u})
    {
        const std::vector<uint32_t> rank = PartitionFabric(t, ranks);
        ASSERT_EQ(rank.size(), t.GetNNodes());
        std::map<int32_t, std::set<uint32_t>> ranksOfPod;
        for (uint32_t n = 0; n < t.GetNNodes(); ++n)
        {
            ASSERT_LT(rank[n], ranks);
            if (t.GetNode(n).pod >= 0)
            {
                ranksOfPod[t.GetNode(n).pod].insert(rank[n]);
            }
        }
        ASSERT_EQ(ranksOfPod.size(), 8u);
        std::map<uint32_t, uint32_t> podsPerRank;
        for (const auto& [pod, rs] : ranksOfPod)
        {
            EXPECT_EQ(rs.size(), 1u) << "pod " << pod << " split over ranks";
            ++podsPerRank[*rs.begin()];
        }
        // Pods are shared out evenly, and so are the cores.
        EXPECT_EQ(podsPerRank.size(), ranks);
        for (const auto& [r, pods] : podsPerRank)
        {
            EXPECT_EQ(pods, 8u / ranks);
        }
        const std::map<uint32_t, uint32_t> loads = Loads(rank);
        for (const auto& [r, nodes] : loads)
        {
            EXPECT_EQ(nodes, t.GetNNodes() / ranks) << "rank " << r;
        }
        // Only aggregation-core links cross ranks: at most all k^3/4 of them.
        EXPECT_LE(CutLinks(t, rank), 8u * 8 * 8 / 4);
        for (const FabricLink& l : t.GetLinks())
        {
            if (rank[l.a] != rank[l.b])
            {
                EXPECT_EQ(std::max(t.GetNode(l.a).tier, t.GetNode(l.b).tier), 3u);
            }
        }
    }
}

TEST(FabricPartition, FewerPodsThanRanksSplitsByRack)
{
    LeafSpineParams p;
    p.leaves = 6;
    p.spines = 3;
    const FabricTopology t = MakeLeafSpine(p);
    const std::vector<uint32_t> rank = PartitionFabric(t, 3);
    for (uint32_t n = 0; n < t.GetNNodes(); ++n)
    {
        if (t.IsHost(n))
        {
            // A host's only link goes to its leaf, on the same rank.
            for (const FabricLink& l : t.GetLinks())
            {
                if (l.a == n || l.b == n)
                {
                    EXPECT_EQ(rank[l.a], rank[l.b]);
                }
            }
        }
    }
    EXPECT_EQ(Loads(rank).size(), 3u);
}

TEST(FabricPartition, ImpossibleRequestsAreRefused)
{
    const FabricTopology t = MakeFatTree(FatTreeParams{}); // 4 pods, 8 racks
    EXPECT_THROW(PartitionFabric(t, 0), std::invalid_argument);
    EXPECT_NO_THROW(PartitionFabric(t, 8));
    try
    {
        PartitionFabric(t, 9);
        FAIL() << "9 ranks accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("4 pods and 8 racks"), std::string::npos) << e.what();
    }
}

// Two ranks: whole pods in halves cut k^3/8 links, the fat-tree's bisection
// width (half its hosts' links: it carries any permutation at line rate), so
// no partition that gives each rank half the hosts cuts fewer. Each core
// switch has k/2 links into either half, so where it goes does not matter.
TEST(FabricPartition, TwoRanksCutOnlyTheBisection)
{
    for (uint32_t k : {4u, 8u, 16u})
    {
        FatTreeParams p;
        p.k = k;
        const FabricTopology t = MakeFatTree(p);
        const std::vector<uint32_t> rank = PartitionFabric(t, 2);
        uint32_t hostsOnRank0 = 0;
        for (uint32_t h : t.GetHosts())
        {
            hostsOnRank0 += rank[h] == 0;
        }
        EXPECT_EQ(hostsOnRank0, t.GetNHosts() / 2) << "k=" << k;
        EXPECT_EQ(CutLinks(t, rank), k * k * k / 8) << "k=" << k;
    }
}

// The bound above, by brute force on k=4: every split of the 20 switches
// that gives each side 4 of the 8 edge switches (hosts follow theirs) cuts at
// least 8 links.
TEST(FabricPartition, NoEvenSplitOfASmallFatTreeCutsFewerLinks)
{
    const FabricTopology t = MakeFatTree(FatTreeParams{}); // k=4
    std::vector<uint32_t> switches;
    std::vector<int32_t> edgeOfHost(t.GetNNodes(), -1);
    for (uint32_t n = 0; n < t.GetNNodes(); ++n)
    {
        if (!t.IsHost(n))
        {
            switches.push_back(n);
        }
    }
    ASSERT_EQ(switches.size(), 20u);
    for (const FabricLink& l : t.GetLinks())
    {
        if (t.IsHost(l.a))
        {
            edgeOfHost[l.a] = static_cast<int32_t>(l.b);
        }
        else if (t.IsHost(l.b))
        {
            edgeOfHost[l.b] = static_cast<int32_t>(l.a);
        }
    }
    uint32_t best = UINT32_MAX;
    std::vector<uint32_t> rank(t.GetNNodes(), 0);
    // The first switch on rank 0: the mirror image of a split cuts the same links.
    for (uint32_t mask = 0; mask < (1u << (switches.size() - 1)); ++mask)
    {
        for (std::size_t i = 1; i < switches.size(); ++i)
        {
            rank[switches[i]] = (mask >> (i - 1)) & 1;
        }
        uint32_t hostsOnRank1 = 0;
        for (uint32_t h : t.GetHosts())
        {
            rank[h] = rank[static_cast<uint32_t>(edgeOfHost[h])];
            hostsOnRank1 += rank[h];
        }
        if (hostsOnRank1 * 2 == t.GetNHosts())
        {
            best = std::min(best, CutLinks(t, rank));
        }
    }
    EXPECT_EQ(best, 8u);
    EXPECT_EQ(CutLinks(t, PartitionFabric(t, 2)), best);
}
