/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's rings over every NIC and its protocol choice: on n servers of k
 * ranks, each channel's ring leaves every server through another GPU, so
 * each GPU's NIC carries 1/k of the bytes between servers (a rank-order ring
 * puts them all on one); the rings still reduce and gather every chunk;
 * servers of unequal sizes fall back to the rank-order ring. The protocol
 * is the one NCCL's tuning model (NCCL 2.20.3, src/graph/tuning.cc) predicts
 * fastest, recomputed here by hand from its constants, and it costs its
 * wire bytes (LL doubles them) and its latency.
 */
#include "collective-test-util.h"
#include "scenario-run-test.h"

#include "ns3/collective-factory.h"
#include "ns3/enum.h"
#include "ns3/nccl-collective.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
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

/// Every test of this file at the fabric's resolution: the run on the fabric
/// below needs picoseconds, and a resolution changed after the simulator ran
/// at another one does not hold in one process.
const bool kPicoseconds = (RoceUsePicoseconds(), true);

std::vector<CollectiveMessage>
Messages(const std::string& algorithm,
         uint32_t channels,
         uint64_t bytes,
         const std::vector<int64_t>& servers)
{
    return RunToEnd(CreateCollective(algorithm, channels), bytes, servers);
}

/// Bytes each rank sends to ranks of other servers.
std::vector<uint64_t>
NicBytes(const std::vector<CollectiveMessage>& sends, const std::vector<int64_t>& servers)
{
    std::vector<uint64_t> out(servers.size(), 0);
    for (const CollectiveMessage& m : sends)
    {
        if (servers[m.srcRank] != servers[m.dstRank])
        {
            out[m.srcRank] += m.bytes;
        }
    }
    return out;
}

using Key = std::tuple<uint32_t, uint32_t, uint64_t, uint32_t, uint32_t>;

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

TEST(NcclRingTest, DataParallelRingBytesOverAllOfAServersNics)
{
    const uint32_t k = 4;
    const uint32_t n = 2 * k; // 2 servers x 4 ranks
    const std::vector<int64_t> servers = Blocks(n, k);
    const uint64_t bytes = 3'840'000; // divides into C x N chunks for C = 4, 8

    struct Case
    {
        std::string nccl;
        std::string flat;
        double passes; // (N-1)/N x S a rank per pass
    };

    for (const Case& c : {Case{"nccl-ring-all-reduce", "ring-all-reduce", 2},
                          Case{"nccl-ring-reduce-scatter", "reduce-scatter", 1},
                          Case{"nccl-ring-all-gather", "all-gather", 1}})
    {
        for (uint32_t channels : {1u, 4u, 8u})
        {
            // Each NIC: passes x (N-1)/N x S/k.
            const double share = c.passes * (n - 1.0) / n * bytes / k;
            const auto sends = Messages(c.nccl, channels, bytes, servers);
            const std::vector<uint64_t> nic = NicBytes(sends, servers);
            for (const CollectiveMessage& m : sends)
            {
                if (servers[m.srcRank] != servers[m.dstRank])
                {
                    EXPECT_EQ(m.srcRank % k, m.dstRank % k) << c.nccl << ": off its rail";
                }
            }
            for (uint32_t r = 0; r < n; ++r)
            {
                EXPECT_NEAR(static_cast<double>(nic[r]), share, 1.0)
                    << c.nccl << " C " << channels << " rank " << r;
            }
            // The rank-order ring leaves each server by its last rank alone.
            const std::vector<uint64_t> flat =
                NicBytes(Messages(c.flat, channels, bytes, servers), servers);
            for (uint32_t r = 0; r < n; ++r)
            {
                const double expected = r % k == k - 1 ? share * k : 0.0;
                EXPECT_NEAR(static_cast<double>(flat[r]), expected, 1.0)
                    << c.flat << " C " << channels << " rank " << r;
            }
        }
    }
}

TEST(NcclRingTest, ChannelsLeaveEachServerThroughEveryRankAndCrossOnRails)
{
    const uint32_t k = 4;
    const uint32_t servers = 4;
    // Servers interleaved: rank r on server r mod 4 (its local rank r / 4).
    std::vector<int64_t> serverOf(servers * k);
    for (uint32_t r = 0; r < serverOf.size(); ++r)
    {
        serverOf[r] = 10 + r % servers;
    }
    Ptr<Collective> c = CreateCollective("nccl-ring-all-reduce", 1);
    const auto sends = RunToEnd(c, 1'600'000, serverOf);
    EXPECT_EQ(c->GetChannels(), k);                 // at least one channel per NIC
    std::set<std::tuple<uint32_t, uint32_t>> exits; // (channel, rank)
    for (const CollectiveMessage& m : sends)
    {
        if (serverOf[m.srcRank] != serverOf[m.dstRank])
        {
            exits.insert({m.channel, m.srcRank});
            // Entered through the local rank it left by: on one rail.
            EXPECT_EQ(m.srcRank / servers, m.dstRank / servers) << m.srcRank << "->" << m.dstRank;
        }
    }
    // Channel c leaves even servers through local rank (c + k - 1) mod k,
    // odd ones through local rank c.
    std::set<std::tuple<uint32_t, uint32_t>> expected;
    for (uint32_t channel = 0; channel < k; ++channel)
    {
        for (uint32_t server = 0; server < servers; ++server)
        {
            const uint32_t local = server % 2 == 0 ? (channel + k - 1) % k : channel;
            expected.insert({channel, local * servers + server});
        }
    }
    EXPECT_EQ(exits, expected);
}

TEST(NcclRingTest, EveryRankEndsWithEveryChunkReduced)
{
    // Each channel's ring over its positions: run the reduce-scatter then the
    // all-gather on sets of contributions, from the recorded messages.
    const uint32_t k = 4;
    const uint32_t n = 3 * k;
    const std::vector<int64_t> servers = Blocks(n, k);
    Ptr<NcclRingCollective> c =
        DynamicCast<NcclRingCollective>(CreateCollective("nccl-ring-all-reduce", 2));
    const auto sends = RunToEnd(c, 1'000'003, servers);
    const uint32_t channels = c->GetChannels();
    ASSERT_EQ(channels, k);
    for (uint32_t ch = 0; ch < channels; ++ch)
    {
        std::vector<std::vector<std::set<uint32_t>>> has(n, std::vector<std::set<uint32_t>>(n));
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t chunk = 0; chunk < n; ++chunk)
            {
                has[r][chunk].insert(r);
            }
        }
        for (uint32_t step = 0; step < c->GetStepCount(); ++step)
        {
            auto next = has;
            uint32_t seen = 0;
            for (const CollectiveMessage& m : sends)
            {
                if (m.channel != ch || m.step != step)
                {
                    continue;
                }
                ++seen;
                const uint32_t chunk = c->GetStepChunk(m.srcRank, ch, step);
                EXPECT_EQ(m.bytes, c->ChunkBytes(ch, chunk));
                if (step < n - 1)
                {
                    next[m.dstRank][chunk].insert(has[m.srcRank][chunk].begin(),
                                                  has[m.srcRank][chunk].end());
                }
                else
                {
                    next[m.dstRank][chunk] = has[m.srcRank][chunk];
                }
            }
            EXPECT_EQ(seen, n) << "channel " << ch << " step " << step;
            has = next;
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t chunk = 0; chunk < n; ++chunk)
            {
                EXPECT_EQ(has[r][chunk].size(), n) << "channel " << ch << " rank " << r;
            }
        }
    }
}

TEST(NcclRingTest, OneServerOneRankAServerOrUnequalServersRunTheRankOrderRing)
{
    const std::map<std::string, std::string> flat = {
        {"nccl-ring-all-reduce", "ring-all-reduce"},
        {"nccl-ring-reduce-scatter", "reduce-scatter"},
        {"nccl-ring-all-gather", "all-gather"},
    };
    for (const auto& [nccl, ring] : flat)
    {
        const uint64_t bytes = 1'000'003;
        for (uint32_t n : {2u, 5u, 8u})
        {
            const auto expected = AsSet(Messages(ring, 3, bytes, Blocks(n, 1)));
            EXPECT_EQ(AsSet(Messages(nccl, 3, bytes, Blocks(n, 1))), expected) << nccl << n;
            EXPECT_EQ(AsSet(Messages(nccl, 3, bytes, Blocks(n, n))), expected) << nccl << n;
        }
        // 5 ranks on servers of 3 and 2: the rank-order ring, with 3 channels.
        const std::vector<int64_t> uneven = {0, 0, 0, 1, 1};
        EXPECT_EQ(AsSet(Messages(nccl, 3, bytes, uneven)), AsSet(Messages(ring, 3, bytes, uneven)))
            << nccl << " uneven";
    }
}

// ------------------------------------------------------------ protocol choice

/// NCCL 2.20.3's ring model on 2 servers x 8 GPUs (Ampere, Intel host), by
/// hand: 8 channels (one a NIC) of 12.5 GB/s, so a bus bandwidth of 100 GB/s.
struct HandModel
{
    double ll;
    double ll128;
    double simple;
};

HandModel
AllReduceTimesUs(double bytes)
{
    const double ranks = 16;
    const double steps = 2 * (ranks - 1); // 30
    const double inter = 2 * 2;           // 2 x nodes
    const double ratio = ranks / steps;   // bus -> algorithm bandwidth
    const double bus = 8 * 12.5;
    // LL: a quarter of the bus, capped at 39 GB/s on 2 nodes; base 6.6 us,
    // NVLink hop 0.6 us raised to the 1 us network post, network hop 2.7 us.
    const double llLat = 6.6 + (steps - inter) * 1.0 + inter * 2.7;
    const double ll = llLat + bytes / (1000 * std::min(39.0, bus / 4) * ratio);
    // LL128: 92% of the bus, capped at 20 GB/s a channel; 14 / 1.9 / 4.0 us.
    const double ll128Lat = 14.0 + (steps - inter) * 1.9 + inter * 4.0;
    const double ll128 = ll128Lat + bytes / (1000 * std::min(bus * 0.92, 8 * 20.0) * ratio);
    // Simple: the whole bus; 8.4 / 3.4 (the 3 us post is lower) / 14.0 us, and
    // x 1.4 once each rank's share of a channel is 64 bytes or more.
    double simpleLat = 8.4 + (steps - inter) * 3.4 + inter * 14.0;
    if (bytes / (8 * ranks) >= 64)
    {
        simpleLat *= 1.4;
    }
    const double simple = simpleLat + bytes / (1000 * bus * ratio);
    return {ll, ll128, simple};
}

TEST(NcclTuningTest, NcclChoiceAtThreeSizes)
{
    const std::vector<int64_t> servers = Blocks(16, 8);
    const std::map<uint64_t, NcclProtocol> sizes = {{4096, NcclProtocol::LL},
                                                    {4u << 20, NcclProtocol::LL128},
                                                    {256u << 20, NcclProtocol::SIMPLE}};
    for (const auto& [bytes, fastest] : sizes)
    {
        const HandModel hand = AllReduceTimesUs(static_cast<double>(bytes));
        const double best = std::min({hand.ll, hand.ll128, hand.simple});
        const NcclProtocol expected = best == hand.ll      ? NcclProtocol::LL
                                      : best == hand.ll128 ? NcclProtocol::LL128
                                                           : NcclProtocol::SIMPLE;
        // The three sizes do exercise the three protocols.
        ASSERT_EQ(expected, fastest) << bytes;

        // The rings alone (NCCL_ALGO=Ring): at 4 KB NCCL's model takes the
        // tree (nccl-tree-test), and the protocol is then the ring's best.
        Ptr<NcclCollective> c = DynamicCast<NcclCollective>(CreateCollective("nccl-all-reduce", 1));
        c->SetAttribute("Algorithm", EnumValue(NcclCollective::ALGORITHM_RING));
        ServersTransport t(servers);
        c->Configure(16, bytes, &t);
        EXPECT_EQ(c->GetChannels(), 8u);
        EXPECT_EQ(c->GetAlgorithm(), NcclAlgorithm::RING);
        EXPECT_EQ(c->GetProtocol(), expected) << bytes;
        EXPECT_NEAR(c->GetChoice().ring[0].timeUs, hand.ll, hand.ll * 1e-9) << bytes;
        EXPECT_NEAR(c->GetChoice().ring[1].timeUs, hand.ll128, hand.ll128 * 1e-9) << bytes;
        EXPECT_NEAR(c->GetChoice().ring[2].timeUs, hand.simple, hand.simple * 1e-9) << bytes;
    }
}

TEST(NcclTuningTest, ReduceScatterCrossesTheNetworkOnce)
{
    // A reduce-scatter: 15 steps, of which nodes - 1 = 1 crosses the network.
    const std::vector<int64_t> servers = Blocks(16, 8);
    Ptr<NcclCollective> c = DynamicCast<NcclCollective>(CreateCollective("nccl-reduce-scatter", 1));
    ServersTransport t(servers);
    c->Configure(16, 4096, &t);
    const double ratio = 16.0 / 15;
    const double ll = 6.6 + 14 * 1.0 + 1 * 2.7 + 4096 / (1000 * 25.0 * ratio);
    const double simple = 8.4 + 14 * 3.4 + 1 * 14.0 + 4096 / (1000 * 100.0 * ratio);
    EXPECT_NEAR(c->GetChoice().ring[0].timeUs, ll, 1e-9 * ll);
    EXPECT_NEAR(c->GetChoice().ring[2].timeUs, simple, 1e-9 * simple);
    EXPECT_EQ(c->GetProtocol(), NcclProtocol::LL);
}

TEST(NcclTuningTest, LlDoublesTheWireBytesAndEachStepWaitsItsLatency)
{
    const std::vector<int64_t> servers = Blocks(16, 8);
    const uint64_t bytes = 4096; // LL's size
    Time simpleTook;
    const auto data =
        RunToEnd(CreateCollective("nccl-ring-all-reduce", 1), bytes, servers, &simpleTook);
    EXPECT_EQ(simpleTook, Time(0)); // no protocol latency on a zero-delay transport

    Ptr<NcclCollective> ll = DynamicCast<NcclCollective>(CreateCollective("nccl-all-reduce", 1));
    ll->SetAttribute("Algorithm",
                     EnumValue(NcclCollective::ALGORITHM_RING)); // 4 KB: the tree's size
    Time llTook;
    const auto wire = RunToEnd(ll, bytes, servers, &llTook);
    ASSERT_EQ(ll->GetProtocol(), NcclProtocol::LL);
    ASSERT_EQ(wire.size(), data.size());
    uint64_t dataBytes = 0;
    uint64_t wireBytes = 0;
    for (const CollectiveMessage& m : data)
    {
        dataBytes += m.bytes;
    }
    for (const CollectiveMessage& m : wire)
    {
        wireBytes += m.bytes;
    }
    EXPECT_EQ(dataBytes, 2u * 15 * bytes); // N ranks x 2(N-1)/N x S
    EXPECT_EQ(wireBytes, 2 * dataBytes);
    // Each of the 30 steps waits 1/30 of LL's latency (43.4 us): the run
    // takes the latency, to the nanosecond rounding of each step.
    const double llLatencyUs = 6.6 + 26 * 1.0 + 4 * 2.7;
    EXPECT_NEAR(llTook.GetNanoSeconds(), llLatencyUs * 1000, 30.0);

    // Forced LL128: 128/120 of each message, rounded up.
    Ptr<Collective> ll128 = CreateCollective("nccl-all-reduce", 1);
    ll128->SetAttribute("Algorithm", EnumValue(NcclCollective::ALGORITHM_RING));
    ll128->SetAttribute("Protocol", EnumValue(NcclCollective::PROTOCOL_LL128));
    uint64_t expected = 0;
    for (const CollectiveMessage& m : data)
    {
        expected += (m.bytes * 128 + 119) / 120;
    }
    uint64_t sent = 0;
    for (const CollectiveMessage& m : RunToEnd(ll128, bytes, servers))
    {
        sent += m.bytes;
    }
    EXPECT_EQ(sent, expected);
}

class NcclProtocolRunTest : public ScenarioRunTest
{
};

TEST_F(NcclProtocolRunTest, TheNetworkSendsEachStepItsLatencyLater)
{
    // Two hosts (a GPU each) on two leaves: a ring of 2 ranks over 2 servers.
    // At 8 MB NCCL's model picks Simple (as the ring without tuning sends:
    // the same bytes), whose latency is 8.4 + (2 - 4) x max(3.4, 3) + 4 x 14
    // = 57.6 us, x 1.4 (plateau) = 80.64 us, spread over the 2 steps: the
    // tuned all-reduce takes that much longer, at either level.
    const double latencyUs = (8.4 + (2.0 - 4.0) * 3.4 + 4 * 14.0) * 1.4;
    JobSpec job = Job(0, {0, 2}, 8'000'000, MicroSeconds(50), 2);
    job.gpusPerHost = 1;
    ExpectAddedLatency(TwoLeaves(1), job, "nccl-ring-all-reduce", "nccl-all-reduce", latencyUs);
}

} // namespace
} // namespace test
} // namespace ns3
