/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The two-level collectives against the flat rings they are built from:
 * with one rank a server or one server they send the ring's messages; on n
 * servers of k ranks, every message between servers stays on its rail, each
 * rank puts 2(n-1)/n x S/k of an all-reduce on its NIC and the ring's share
 * of S on NVLink, and every byte sent is received.
 */
#include "collective-test-util.h"

#include "ns3/collective-factory.h"
#include "ns3/hierarchical-collective.h"

#include <gtest/gtest.h>
#include <map>
#include <set>
#include <tuple>

namespace ns3
{
namespace test
{
namespace
{

std::vector<CollectiveMessage>
Messages(const std::string& algorithm,
         uint32_t channels,
         uint64_t bytes,
         const std::vector<int64_t>& servers)
{
    ServersTransport t(servers);
    Ptr<Collective> c = CreateCollective(algorithm, channels);
    c->Configure(static_cast<uint32_t>(servers.size()), bytes, &t);
    bool done = false;
    c->Start([&done]() { done = true; });
    EXPECT_TRUE(done) << algorithm;
    uint64_t sent = 0;
    for (const CollectiveMessage& m : t.sends)
    {
        sent += m.bytes;
    }
    EXPECT_EQ(c->GetBytesSent(), sent) << algorithm;
    return t.sends;
}

using Key = std::tuple<uint32_t, uint32_t, uint64_t, uint32_t, uint32_t>;

/// The messages as a multiset (their order of posting differs only in ties).
std::multiset<Key>
AsSet(const std::vector<CollectiveMessage>& ms)
{
    std::multiset<Key> s;
    for (const CollectiveMessage& m : ms)
    {
        s.insert({m.srcRank, m.dstRank, m.bytes, m.channel, m.step});
    }
    return s;
}

TEST(HierarchicalCollectiveTest, OneRankAServerOrOneServerIsTheFlatRing)
{
    const std::map<std::string, std::string> flat = {
        {"hierarchical-all-reduce", "ring-all-reduce"},
        {"hierarchical-reduce-scatter", "reduce-scatter"},
        {"hierarchical-all-gather", "all-gather"},
    };
    for (const auto& [two, ring] : flat)
    {
        for (uint32_t n : {1u, 2u, 5u, 8u})
        {
            const uint64_t bytes = 1000003;
            const auto expected = AsSet(Messages(ring, 3, bytes, Blocks(n, 1)));
            EXPECT_EQ(AsSet(Messages(two, 3, bytes, Blocks(n, 1))), expected) << two << " n " << n;
            EXPECT_EQ(AsSet(Messages(two, 3, bytes, Blocks(n, n))), expected)
                << two << " one server";
            // Servers of unequal sizes have no rails: the flat ring.
            if (n >= 3)
            {
                std::vector<int64_t> uneven = Blocks(n, 1);
                uneven[1] = uneven[0];
                EXPECT_EQ(AsSet(Messages(two, 3, bytes, uneven)), expected) << two << " uneven";
            }
        }
    }
}

TEST(HierarchicalCollectiveTest, ServersTalkOnRailsAndEachNicCarriesItsShare)
{
    struct Case
    {
        std::string algorithm;
        double serverPasses; // rings in the server, each (k-1)/k x S a rank
        double railPasses;   // rings on the rail, each (n-1)/n x S/k a rank
    };

    for (const Case& c : {Case{"hierarchical-all-reduce", 2, 2},
                          Case{"hierarchical-reduce-scatter", 1, 1},
                          Case{"hierarchical-all-gather", 1, 1}})
    {
        const uint32_t n = 4;
        const uint32_t k = 8;
        const uint32_t channels = 2;
        const uint64_t bytes = 8000007;
        // Ranks interleaved over the servers: rank r on server r mod n.
        std::vector<int64_t> servers(n * k);
        for (uint32_t r = 0; r < n * k; ++r)
        {
            servers[r] = 100 + r % n;
        }
        const std::vector<CollectiveMessage> sends =
            Messages(c.algorithm, channels, bytes, servers);
        std::map<uint32_t, uint64_t> network;
        std::map<uint32_t, uint64_t> nvlink;
        // (rank, channel, step): messages received; one each.
        std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> received;
        uint32_t steps = 0;
        for (const CollectiveMessage& m : sends)
        {
            steps = std::max(steps, m.step + 1);
            ++received[{m.dstRank, m.channel, m.step}];
            if (servers[m.srcRank] == servers[m.dstRank])
            {
                nvlink[m.srcRank] += m.bytes;
                continue;
            }
            network[m.srcRank] += m.bytes;
            // Local rank = order among the server's ranks = r / n here.
            EXPECT_EQ(m.srcRank / n, m.dstRank / n) << c.algorithm << ": off its rail";
            EXPECT_EQ(servers[m.dstRank], 100 + (servers[m.srcRank] - 100 + 1) % n)
                << "the rail's ring goes server by server";
        }
        EXPECT_EQ(steps, c.serverPasses * (k - 1) + c.railPasses * (n - 1)) << c.algorithm;
        const double s = static_cast<double>(bytes);
        for (uint32_t r = 0; r < n * k; ++r)
        {
            // Chunks differ by a byte at most: a byte a message of slack.
            const double slack = static_cast<double>(steps * channels);
            EXPECT_NEAR(network[r], c.railPasses * (n - 1.0) / n * s / k, slack) << c.algorithm;
            EXPECT_NEAR(nvlink[r], c.serverPasses * (k - 1.0) / k * s, slack) << c.algorithm;
        }
        // Each step a permutation: every rank receives one message a channel.
        EXPECT_EQ(received.size(), static_cast<std::size_t>(n * k * channels * steps));
        for (const auto& [key, count] : received)
        {
            EXPECT_EQ(count, 1u) << c.algorithm;
        }
    }
}

TEST(HierarchicalCollectiveTest, ItKnowsItsServersAndRails)
{
    ServersTransport t(Blocks(12, 4));
    Ptr<Collective> c = CreateCollective("hierarchical-all-reduce", 1);
    c->Configure(12, 1000, &t);
    auto h = DynamicCast<HierarchicalCollective>(c);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->GetServerCount(), 3u);
    EXPECT_EQ(h->GetRanksPerServer(), 4u);
    EXPECT_EQ(h->GetStepCount(), 2u * 3 + 2u * 2);
}

} // namespace
} // namespace test
} // namespace ns3
