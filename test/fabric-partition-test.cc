/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// PartitionFabric: which rank of a distributed simulation owns each node.

#include "ns3/fabric-partition.h"
#include "ns3/fat-tree-topology.h"
#include "ns3/leaf-spine-topology.h"

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
