/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ECMP hashing on a k=8 fat-tree (4 uplinks at the edge and at the
 * aggregation tier): 10,000 random five-tuples spread within 5% of uniform
 * over the uplinks at each tier, and the flows one edge uplink carries
 * spread again at the aggregation switch it reaches (no polarization).
 *
 * The expectation is the uniform share; the polarization check is proved
 * able to fail inside the test itself: with one seed on every switch, the
 * same flows take the same uplink index at both tiers and the detector sees
 * every flow of an edge uplink on a single core link.
 */

#include "fabric-test-util.h"

#include <gtest/gtest.h>
#include <map>
#include <random>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint32_t kFlows = 10000;

class EcmpSpreadTest : public FabricTest
{
  protected:
    void SetUp() override
    {
        FabricTest::SetUp();
        FatTreeParams ft;
        ft.k = 8;
        m_topo = MakeFatTree(ft);
        RoceFabricHelper helper;
        m_fabric = helper.Install(m_topo);
        // Sources: the hosts of pod 0's first edge switch; destinations: hosts of other pods.
        const std::vector<uint32_t>& hosts = m_topo.GetHosts(); // by host index
        for (uint32_t h = 0; h < hosts.size(); ++h)
        {
            (m_topo.GetNode(hosts[h]).pod == 0 ? m_pod0 : m_others).push_back(h);
        }
        ASSERT_EQ(m_pod0.size(), 16u);
        // Behind one edge switch: the hosts of the first pod-0 host's rack.
        const int32_t rack = m_topo.GetNode(hosts[m_pod0[0]]).rack;
        for (uint32_t h : m_pod0)
        {
            if (m_topo.GetNode(hosts[h]).rack == rack)
            {
                m_sources.push_back(h);
            }
        }
        ASSERT_EQ(m_sources.size(), 4u);
    }

    /// Give every switch the same ECMP seed (the polarizing configuration).
    void UseOneSeed()
    {
        for (uint32_t node = 0; node < m_topo.GetNNodes(); ++node)
        {
            if (!m_topo.IsHost(node))
            {
                m_fabric->GetSwitch(node)->SetAttribute("EcmpSeed", UintegerValue(7));
            }
        }
    }

    /// Upper end of the path's link number \p hop (links are stored lower tier first).
    uint32_t UpperNode(const std::vector<uint32_t>& path, size_t hop) const
    {
        return m_topo.GetLink(path.at(hop)).b;
    }

    /**
     * Draws random five-tuples from the edge switch's hosts to other pods
     * until \p flows of them leave through aggregation switch \p agg (any,
     * when \p agg is -1); counts the aggregation switch (hop 1) and core
     * switch (hop 2) each takes.
     */
    void Draw(uint32_t flows,
              int64_t agg,
              std::map<uint32_t, uint32_t>& byAgg,
              std::map<uint32_t, uint32_t>& byCore)
    {
        std::mt19937 rng(12345);
        std::uniform_int_distribution<size_t> src(0, m_sources.size() - 1);
        std::uniform_int_distribution<size_t> dst(0, m_others.size() - 1);
        std::uniform_int_distribution<uint32_t> port(0, 65535);
        uint32_t taken = 0;
        while (taken < flows)
        {
            const std::vector<uint32_t> path = m_fabric->GetPath(m_sources[src(rng)],
                                                                 m_others[dst(rng)],
                                                                 static_cast<uint16_t>(port(rng)));
            ASSERT_EQ(path.size(), 6u) << "host-edge-agg-core-agg-edge-host";
            const uint32_t a = UpperNode(path, 1);
            if (agg >= 0 && a != static_cast<uint32_t>(agg))
            {
                continue;
            }
            ++byAgg[a];
            ++byCore[UpperNode(path, 2)];
            ++taken;
        }
    }

    /// Every count within 5% of an equal share of \p total over \p n choices.
    static void ExpectUniform(const std::map<uint32_t, uint32_t>& counts,
                              uint32_t n,
                              uint32_t total,
                              const std::string& what)
    {
        ASSERT_EQ(counts.size(), n) << what << ": every uplink used";
        const double share = static_cast<double>(total) / n;
        for (const auto& [node, c] : counts)
        {
            EXPECT_NEAR(c, share, 0.05 * share) << what << ": node " << node;
        }
    }

    FabricTopology m_topo;
    Ptr<RoceFabric> m_fabric;
    std::vector<uint32_t> m_pod0;
    std::vector<uint32_t> m_others;
    std::vector<uint32_t> m_sources;
};

TEST_F(EcmpSpreadTest, EdgeUplinksWithinFivePercentOfUniform)
{
    std::map<uint32_t, uint32_t> byAgg;
    std::map<uint32_t, uint32_t> byCore;
    Draw(kFlows, -1, byAgg, byCore);
    ExpectUniform(byAgg, 4, kFlows, "edge tier");
}

TEST_F(EcmpSpreadTest, AggregationUplinksSpreadTheFlowsOfOneEdgeUplink)
{
    // The flows that reach one aggregation switch from the edge tier: had
    // both tiers hashed alike, they would all leave on one core link.
    std::map<uint32_t, uint32_t> byAgg;
    std::map<uint32_t, uint32_t> byCore;
    Draw(kFlows, -1, byAgg, byCore);
    const uint32_t agg = byAgg.begin()->first;
    byAgg.clear();
    byCore.clear();
    Draw(kFlows, agg, byAgg, byCore);
    ExpectUniform(byCore, 4, kFlows, "aggregation tier, flows of one edge uplink");
}

TEST_F(EcmpSpreadTest, OneSeedEverywherePolarizesAndIsDetected)
{
    UseOneSeed();
    std::map<uint32_t, uint32_t> byAgg;
    std::map<uint32_t, uint32_t> byCore;
    Draw(kFlows, -1, byAgg, byCore);
    // The edge tier alone still looks uniform...
    ExpectUniform(byAgg, 4, kFlows, "edge tier, one seed");
    const uint32_t agg = byAgg.begin()->first;
    byAgg.clear();
    byCore.clear();
    Draw(kFlows, agg, byAgg, byCore);
    // ...but every flow of one edge uplink takes the same core link.
    ASSERT_EQ(byCore.size(), 1u) << "polarized: one core link carries them all";
    EXPECT_EQ(byCore.begin()->second, kFlows);
}

} // namespace
