/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NCCL's tree all-reduce and NCCL's choice between ring and tree: the double
 * binary tree over the servers against the trees NCCL draws in
 * src/graph/trees.cc; the bytes each NIC and each server pair carries
 * against the closed form of a double binary tree (each tree edge carries
 * half the buffer each way, a server's NICs share its edges evenly); every
 * rank ends with every chunk reduced from every rank; a run alone on an idle
 * fabric against bytes / rate plus the model's latency, at both levels and in
 * the schedulers' estimate; NCCL's choice at three sizes against NCCL
 * 2.20.3's tuning model worked out by hand.
 */
#include "collective-test-util.h"
#include "scenario-run-test.h"

#include "ns3/collective-factory.h"
#include "ns3/enum.h"
#include "ns3/nccl-collective.h"
#include "ns3/nccl-tree-all-reduce.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace ns3
{
namespace test
{
namespace
{

/// Every test of this file at the fabric's resolution (see nccl-collective-test).
const bool kPicoseconds = (RoceUsePicoseconds(), true);

// ------------------------------------------------------------ the trees

/// Parents of the nodes in one of NCCL's trees, -1 at the root.
std::vector<int32_t>
Parents(uint32_t nodes, uint32_t tree)
{
    std::vector<int32_t> up(nodes);
    for (uint32_t i = 0; i < nodes; ++i)
    {
        up[i] = NcclDoubleTreeLinks(nodes, i, tree).up;
    }
    return up;
}

TEST(NcclTreeTest, DoubleBinaryTreesAreNcclsDrawings)
{
    // src/graph/trees.cc draws, for 14 nodes, 0-8, 8-4, 8-12, 4-2, 4-6,
    // 12-10, 12-13, 2-1, 2-3, 6-5, 6-7, 10-9, 10-11.
    EXPECT_EQ(Parents(14, 0),
              (std::vector<int32_t>{-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8, 12}));
    // 12 nodes: the first tree, and its mirror rooted at 11: 11-3, 3-1, 3-7,
    // 1-0, 1-2, 7-5, 7-9, 5-4, 5-6, 9-8, 9-10.
    EXPECT_EQ(Parents(12, 0), (std::vector<int32_t>{-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 8, 10}));
    EXPECT_EQ(Parents(12, 1), (std::vector<int32_t>{1, 3, 1, 11, 5, 7, 5, 3, 9, 7, 9, -1}));
    // 13 nodes: the first tree shifted by one, rooted at 1: 1-9, 9-5, 9-0,
    // 5-3, 5-7, 0-11, 3-2, 3-4, 7-6, 7-8, 11-10, 11-12.
    EXPECT_EQ(Parents(13, 1), (std::vector<int32_t>{9, -1, 3, 5, 3, 9, 7, 5, 7, 1, 11, 0, 11}));
    // A node's child type says which child it is: the smaller one is the first.
    EXPECT_EQ(NcclDoubleTreeLinks(14, 4, 0).childType, 0u);  // 4 < 8
    EXPECT_EQ(NcclDoubleTreeLinks(14, 12, 0).childType, 1u); // 12 > 8
}

// ------------------------------------------------------------ bytes

TEST(NcclTreeTest, EachNicCarriesItsServersTreeEdgesAndEachEdgeHalfTheBuffer)
{
    // 4 servers of 4 GPUs, 4 graph channels: 8 tree channels of S/8. NCCL's
    // trees over 4 servers: tree 0 is 0-2, 2-1, 2-3, tree 1 (mirrored)
    // 3-1, 1-0, 1-2. A tree edge carries S/2 each way (its G channels of
    // S/2G each); a server's edges are shared by its k NICs, each NIC the
    // head (parent and second child) of one chain a tree and the second
    // (first child) of another: NIC bytes = (deg0 + deg1) x S / 2k.
    const uint32_t k = 4;
    const uint32_t n = 4;
    const std::vector<int64_t> servers = Blocks(n * k, k);
    const uint64_t bytes = 8 * 3 * 1'000'000; // chunks split evenly
    const auto sends = RunToEnd(CreateCollective("nccl-tree-all-reduce", 1), bytes, servers);

    const std::vector<double> degrees = {1 + 1, 1 + 3, 3 + 1, 1 + 1};
    std::vector<double> nicOut(n * k, 0);
    std::vector<double> nicIn(n * k, 0);
    std::vector<double> nvlinkOut(n * k, 0);
    std::map<std::pair<int64_t, int64_t>, double> serverPair;
    for (const CollectiveMessage& m : sends)
    {
        const int64_t a = servers[m.srcRank];
        const int64_t b = servers[m.dstRank];
        if (a == b)
        {
            nvlinkOut[m.srcRank] += m.bytes;
            continue;
        }
        nicOut[m.srcRank] += m.bytes;
        nicIn[m.dstRank] += m.bytes;
        serverPair[{a, b}] += m.bytes;
    }
    for (uint32_t r = 0; r < n * k; ++r)
    {
        const double expected = degrees[servers[r]] * bytes / (2.0 * k);
        EXPECT_NEAR(nicOut[r], expected, 1.0) << "rank " << r;
        EXPECT_NEAR(nicIn[r], expected, 1.0) << "rank " << r;
        // The chain: every GPU sends up and down at each of k - 1 of its k
        // positions, in both trees: 2 (k - 1) / k x S, as a ring inside a server.
        EXPECT_NEAR(nvlinkOut[r], 2.0 * (k - 1) / k * bytes, 1.0) << "rank " << r;
    }
    const double half = bytes / 2.0;
    const std::map<std::pair<int64_t, int64_t>, double> expectedPairs = {
        {{0, 2}, half},
        {{2, 0}, half},
        {{2, 3}, half},
        {{3, 2}, half},
        {{0, 1}, half},
        {{1, 0}, half},
        {{1, 3}, half},
        {{3, 1}, half},
        {{1, 2}, 2 * half}, // an edge of both trees
        {{2, 1}, 2 * half},
    };
    ASSERT_EQ(serverPair.size(), expectedPairs.size());
    for (const auto& [pair, expected] : expectedPairs)
    {
        EXPECT_NEAR(serverPair[pair], expected, 1.0) << pair.first << "->" << pair.second;
    }
}

TEST(NcclTreeTest, ChainsRotateByChannelAndChildrenHangOffTheFirstTwoGpus)
{
    // 4 servers of 4 GPUs (rank 4 i + l: GPU l of server i), 4 graph
    // channels. Channel c's chain in each server is GPUs c, c+1, ... (mod 4);
    // channels 4..7 repeat the chains on tree 1. Tree 0: server 2 has the
    // first child 1 (1 < 2) and the second child 3: as NCCL's balanced tree,
    // server 1's head hangs off server 2's second GPU of the chain, server
    // 3's head off its first, which also has server 2's parent, server 0.
    Ptr<NcclTreeAllReduce> c =
        DynamicCast<NcclTreeAllReduce>(CreateCollective("nccl-tree-all-reduce", 1));
    RunToEnd(c, 1 << 20, Blocks(16, 4));
    const NcclTreeTopology& t = c->GetTopology();
    ASSERT_EQ(t.GetChannels(), 8u);
    for (uint32_t ch = 0; ch < 4; ++ch)
    {
        const auto gpu = [ch](uint32_t server, uint32_t position) {
            return static_cast<int32_t>(4 * server + (ch + position) % 4);
        };
        for (uint32_t server = 0; server < 4; ++server)
        {
            for (uint32_t p = 1; p < 4; ++p)
            {
                EXPECT_EQ(t.GetParent(ch, gpu(server, p)), gpu(server, p - 1)) << ch;
            }
        }
        EXPECT_EQ(t.GetParent(ch, gpu(0, 0)), -1);        // the root
        EXPECT_EQ(t.GetParent(ch, gpu(2, 0)), gpu(0, 0)); // 0's only child is its second
        EXPECT_EQ(t.GetParent(ch, gpu(1, 0)), gpu(2, 1)); // first child: position 1
        EXPECT_EQ(t.GetParent(ch, gpu(3, 0)), gpu(2, 0)); // second child: position 0
        // Tree 1 (3-1, 1-0, 1-2), the mirror of tree 0 with its child types:
        // 2, the mirror of 1, is 1's first child, 0 (of 3) its second.
        EXPECT_EQ(t.GetParent(ch + 4, gpu(3, 0)), -1);
        EXPECT_EQ(t.GetParent(ch + 4, gpu(1, 0)), gpu(3, 0));
        EXPECT_EQ(t.GetParent(ch + 4, gpu(2, 0)), gpu(1, 1));
        EXPECT_EQ(t.GetParent(ch + 4, gpu(0, 0)), gpu(1, 0));
        EXPECT_EQ(t.GetHeight(ch),
                  3u + 2 + 1); // server 1's tail: 3 chain hops, 2 of the tree, 1 in 2
    }
}

TEST(NcclTreeTest, EveryRankEndsWithEveryChunkReducedFromEveryRank)
{
    // Replays the messages on sets of contributions: up a chunk carries the
    // union of its sender's subtree, down the root's full set. Servers of
    // unequal sizes (3, 2, 4) and an odd count: the shifted second tree.
    const std::vector<int64_t> servers = {7, 7, 7, 3, 3, 9, 9, 9, 9};
    const uint32_t n = static_cast<uint32_t>(servers.size());
    Ptr<NcclTreeAllReduce> c =
        DynamicCast<NcclTreeAllReduce>(CreateCollective("nccl-tree-all-reduce", 1));
    const uint64_t bytes = 3'000'017;
    const auto sends = RunToEnd(c, bytes, servers);
    const NcclTreeTopology& tree = c->GetTopology();
    ASSERT_EQ(tree.GetChannels(), 8u); // 4 graph channels (the largest server), doubled
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::set<uint32_t>> has; // (ch, rank, step)
    // Messages arrive in the order they were sent on a zero-delay transport,
    // so a replay in send order sees each chunk's inputs first.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::set<uint32_t>> up; // (ch, rank, chunk)
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::set<uint32_t>> got;
    uint64_t total = 0;
    for (const CollectiveMessage& m : sends)
    {
        total += m.bytes;
        const uint32_t height = tree.GetHeight(m.channel);
        const uint32_t depth = tree.GetDepth(m.channel, m.srcRank);
        const bool isUp = tree.GetParent(m.channel, m.srcRank) == static_cast<int32_t>(m.dstRank);
        const uint32_t chunk = isUp ? m.step - (height - depth) : m.step - height - depth;
        auto& mine = up[{m.channel, m.srcRank, chunk}];
        mine.insert(m.srcRank);
        if (isUp)
        {
            up[{m.channel, m.dstRank, chunk}].insert(mine.begin(), mine.end());
        }
        else
        {
            // The root sends what it reduced; the others forward what they got.
            const bool root = tree.GetParent(m.channel, m.srcRank) < 0;
            const auto& from = root ? mine : got[{m.channel, m.srcRank, chunk}];
            EXPECT_EQ(from.size(), n) << "channel " << m.channel << " chunk " << chunk;
            got[{m.channel, m.dstRank, chunk}] = from;
        }
    }
    for (uint32_t ch = 0; ch < tree.GetChannels(); ++ch)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            if (tree.GetParent(ch, r) < 0)
            {
                continue;
            }
            for (uint32_t j = 0; j < c->GetPipeline().GetChunks(ch); ++j)
            {
                EXPECT_EQ((got[{ch, r, j}].size()), n) << ch << " " << r << " " << j;
            }
        }
    }
    // Each non-root rank sends and receives every byte once on each channel.
    EXPECT_EQ(total, 2ull * (n - 1) * bytes);
}

// ------------------------------------------------------------ the choice

/// NCCL 2.20.3's model for an all-reduce on 2 servers x 8 GPUs (Ampere,
/// Intel host), worked out by hand: 8 channels of one 12.5 GB/s NIC each.
struct Predicted
{
    double tree[3];
    double ring[3];
};

/// treeCorrectionFactor[protocol][log2(S / 64)], the entries the sizes below use.
double
Correction(int protocol, uint64_t bytes)
{
    const std::map<uint64_t, std::array<double, 3>> table = {
        {4096, {.7, .8, .9}},       // 2^6 x 64 B
        {1u << 20, {.5, .6, .5}},   // 2^14
        {1u << 30, {1.0, 1.0, 1.0}} // 2^24: past the table
    };
    return table.at(bytes)[protocol];
}

Predicted
ByHand(double s, uint64_t bytes)
{
    Predicted p{};
    const double n = 16;
    const double bus = 8 * 12.5; // 100 GB/s
    // Tree: bus x 0.92 (under the 8 x 23.6 cap of 2 nodes); LL / 3.8 (under
    // the 39 GB/s of 2 Intel nodes), LL128 x 120/128 (under 8 x 20); algBw
    // = bus / 2. Latency base + 2 (7 NVLink hops + log2(2) = 1 network hop).
    const double treeBus = bus * 0.92;
    const double treeBw[3] = {treeBus / 3.8 / 2, treeBus * 120 / 128 / 2, treeBus / 2};
    const double treeLat[3] = {6.8 + 2 * (7 * 0.6 + 5.0),
                               14.0 + 2 * (7 * 1.25 + 8.5),
                               0.0 + 2 * (7 * 28.0 + 28.0)};
    for (int i = 0; i < 3; ++i)
    {
        p.tree[i] = treeLat[i] + s / (1000 * treeBw[i] * Correction(i, bytes));
    }
    // Ring: as nccl-collective-test works it out.
    const double steps = 30;
    const double ratio = n / steps;
    p.ring[0] = 6.6 + 26 * 1.0 + 4 * 2.7 + s / (1000 * std::min(39.0, bus / 4) * ratio);
    p.ring[1] = 14.0 + 26 * 1.9 + 4 * 4.0 + s / (1000 * std::min(bus * 0.92, 160.0) * ratio);
    p.ring[2] =
        (8.4 + 26 * 3.4 + 4 * 14.0) * (s / (8 * n) >= 64 ? 1.4 : 1.0) + s / (1000 * bus * ratio);
    return p;
}

TEST(NcclTreeTest, NcclChoosesTreeOrRingAtThreeSizes)
{
    const std::vector<int64_t> servers = Blocks(16, 8);

    struct Case
    {
        uint64_t bytes;
        NcclAlgorithm algorithm;
        NcclProtocol protocol;
    };

    for (const Case& c : {Case{4096, NcclAlgorithm::TREE, NcclProtocol::LL},
                          Case{1u << 20, NcclAlgorithm::TREE, NcclProtocol::LL128},
                          Case{1u << 30, NcclAlgorithm::RING, NcclProtocol::SIMPLE}})
    {
        const Predicted hand = ByHand(static_cast<double>(c.bytes), c.bytes);
        // The hand model's fastest is the case's (Tree first on a tie, as NCCL).
        double best = hand.tree[0];
        NcclAlgorithm algorithm = NcclAlgorithm::TREE;
        NcclProtocol protocol = NcclProtocol::LL;
        for (int a = 0; a < 2; ++a)
        {
            for (int p = 0; p < 3; ++p)
            {
                const double t = a == 0 ? hand.tree[p] : hand.ring[p];
                if (t < best)
                {
                    best = t;
                    algorithm = a == 0 ? NcclAlgorithm::TREE : NcclAlgorithm::RING;
                    protocol = static_cast<NcclProtocol>(p);
                }
            }
        }
        ASSERT_EQ(algorithm, c.algorithm) << c.bytes;
        ASSERT_EQ(protocol, c.protocol) << c.bytes;

        Ptr<NcclCollective> coll =
            DynamicCast<NcclCollective>(CreateCollective("nccl-all-reduce", 1));
        ServersTransport t(servers);
        coll->Configure(16, c.bytes, &t);
        const NcclChoice& choice = coll->GetChoice();
        EXPECT_EQ(choice.algorithm, c.algorithm) << c.bytes;
        EXPECT_EQ(choice.protocol, c.protocol) << c.bytes;
        EXPECT_EQ(coll->GetAlgorithm(), c.algorithm) << c.bytes;
        EXPECT_NEAR(choice.timeUs, best, best * 1e-6) << c.bytes;
        for (int p = 0; p < 3; ++p)
        {
            EXPECT_NEAR(choice.tree[p].timeUs, hand.tree[p], hand.tree[p] * 1e-6) << c.bytes;
            EXPECT_NEAR(choice.ring[p].timeUs, hand.ring[p], hand.ring[p] * 1e-6) << c.bytes;
        }
        // The tree runs twice the graph's channels.
        EXPECT_EQ(coll->GetChannels(), c.algorithm == NcclAlgorithm::TREE ? 16u : 8u);
    }
}

TEST(NcclTreeTest, ReduceScatterAndAllGatherStayOnTheRings)
{
    const std::vector<int64_t> servers = Blocks(16, 8);
    for (const std::string name : {"nccl-reduce-scatter", "nccl-all-gather"})
    {
        Ptr<NcclCollective> c = DynamicCast<NcclCollective>(CreateCollective(name, 1));
        c->SetAttribute("Algorithm", EnumValue(NcclCollective::ALGORITHM_TREE));
        ServersTransport t(servers);
        c->Configure(16, 4096, &t);
        EXPECT_FALSE(c->GetChoice().tree[0].enabled) << name;
        EXPECT_EQ(c->GetAlgorithm(), NcclAlgorithm::RING) << name;
    }
    EXPECT_EQ(CollectiveOfFamily("nccl-tree-all-reduce", "all-reduce"), "nccl-tree-all-reduce");
    EXPECT_EQ(CollectiveOfFamily("nccl-tree-all-reduce", "reduce-scatter"),
              "nccl-ring-reduce-scatter");
    EXPECT_EQ(CollectiveOfFamily("nccl-tree-all-reduce", "all-gather"), "nccl-ring-all-gather");
}

TEST(NcclTreeTest, TheTreesLatencyIsItsLongestPathsHops)
{
    // 4 KB on 2 x 8: Tree/LL, latency 6.8 + 2 (7 x 0.6 + 5.0) = 25.2 us. On
    // a zero-time network the run lasts the latency: the longest path up and
    // down the chains and the tree, each hop a share of it.
    Ptr<NcclCollective> c = DynamicCast<NcclCollective>(CreateCollective("nccl-all-reduce", 1));
    Time took;
    const auto sends = RunToEnd(c, 4096, Blocks(16, 8), &took);
    ASSERT_EQ(c->GetAlgorithm(), NcclAlgorithm::TREE);
    ASSERT_EQ(c->GetProtocol(), NcclProtocol::LL);
    EXPECT_NEAR(took.GetNanoSeconds(), 25.2e3, 20.0);
    // LL doubles the wire bytes: each non-root rank sends S up and S down a channel set.
    uint64_t wire = 0;
    for (const CollectiveMessage& m : sends)
    {
        wire += m.bytes;
    }
    EXPECT_EQ(wire, 2u * 2 * 15 * 4096);
    EXPECT_EQ(c->BytesPerRank(), c->GetTreePipeline().BytesPerRank());
}

// ------------------------------------------------------------ on a fabric

class NcclTreeRunTest : public ScenarioRunTest
{
  protected:
    void TearDown() override
    {
        Config::SetDefault("ns3::NcclCollective::Algorithm",
                           EnumValue(NcclCollective::ALGORITHM_AUTO));
        Config::SetDefault("ns3::NcclCollective::Protocol",
                           EnumValue(NcclCollective::PROTOCOL_AUTO));
        Config::SetDefault("ns3::FlowNetwork::ContendedLinkEfficiency", DoubleValue(0.86));
        ScenarioRunTest::TearDown();
    }
};

/// Seconds of \p bytes of 512 KiB chunks on the wire at \p bps.
double
WireSeconds(double bytes, double bps)
{
    const double chunk = 512 * 1024;
    return bytes / chunk * static_cast<double>(RoceWire::MessageWireBytes(512 * 1024, 4096)) * 8 /
           bps;
}

TEST_F(NcclTreeRunTest, TwoServersEachNicCarriesTheBufferOnce)
{
    // Two single-GPU servers on two leaves: tree 0 is 0-1 rooted at 0, tree
    // 1 the same rooted at 1. Each NIC sends S/2 up one tree and S/2 down
    // the other, 32 chunks of 512 KiB a channel; only the last chunk down
    // waits for its way up: T = (S + one chunk) on the wire at 100 Gb/s.
    ScenarioSpec spec = TwoLeaves(1);
    const uint64_t bytes = 32u << 20;
    const double expected = WireSeconds(bytes + 512 * 1024, 100e9);
    JobSpec job = Job(0, {0, 2}, bytes, MicroSeconds(50), 2);
    job.gpusPerHost = 1;
    job.collective = "nccl-tree-all-reduce";
    for (const std::string backend : {"packet", "flow"})
    {
        spec.backend = backend;
        const JobOutcome tree = RunAlone(spec, job);
        EXPECT_NEAR(tree.meanCommunication.GetSeconds() / expected, 1.0, 0.03)
            << backend << ": expected " << expected * 1e6 << " us, measured "
            << tree.meanCommunication.GetSeconds() * 1e6 << " us";
    }
    // The schedulers' estimate times the pipeline slot by slot: 34 slots of
    // one chunk up and one down through each NIC.
    const Time seen = SchedulerView(spec, job).commTime;
    EXPECT_NEAR(seen.GetSeconds() / WireSeconds(bytes * 34.0 / 32, 100e9), 1.0, 0.03)
        << "estimated " << seen.GetMicroSeconds() << " us";
}

TEST_F(NcclTreeRunTest, FourServersTheInnerNodesNicsCarryTwiceTheBuffer)
{
    // Four single-GPU servers on two leaves (a 200 Gb/s spine): the trees
    // 0-2, 2-1, 2-3 and 3-1, 1-0, 1-2. Servers 1 and 2 have degree 4 in
    // all, so their NICs send and receive 4 x S/2 = 2S, from three peers:
    // T = 2S on the wire at 100 Gb/s (plus a few chunks' fill) in the fluid
    // model without the loss DCQCN takes where several senders share a port
    // (ContendedLinkEfficiency 1).
    Config::SetDefault("ns3::FlowNetwork::ContendedLinkEfficiency", DoubleValue(1.0));
    ScenarioSpec spec = TwoLeaves(1);
    spec.topology.Set("leafSpineRate", DataRateValue(DataRate("200Gbps")));
    spec.backend = "flow";
    const uint64_t bytes = 32u << 20;
    const double expected = WireSeconds(2.0 * bytes, 100e9);
    JobSpec job = Job(0, {0, 1, 2, 3}, bytes, MicroSeconds(50), 2);
    job.gpusPerHost = 1;
    job.collective = "nccl-tree-all-reduce";
    const JobOutcome tree = RunAlone(spec, job);
    EXPECT_NEAR(tree.meanCommunication.GetSeconds() / expected, 1.0, 0.05)
        << "expected " << expected * 1e6 << " us, measured "
        << tree.meanCommunication.GetSeconds() * 1e6 << " us";
    // The estimate: 32 + 2 x 2 slots, the inner NICs' 4 chunks in each of the full ones.
    const Time seen = SchedulerView(spec, job).commTime;
    EXPECT_NEAR(seen.GetSeconds() / expected, 1.0, 0.125) << "estimated " << seen.GetMicroSeconds();
}

TEST_F(NcclTreeRunTest, TheTunedTreeAddsNcclsTreeLatency)
{
    // 64 KB, one 32 KiB chunk a channel: the tree forced with Simple adds
    // its latency, 0 + 2 (0 x 28 + log2(4) x 28) = 112 us, spread over the
    // longest path's 2 x 2 hops, to the untuned tree's time, at either level.
    const double latencyUs = 2 * (2 * 28.0);
    Config::SetDefault("ns3::NcclCollective::Algorithm", EnumValue(NcclCollective::ALGORITHM_TREE));
    Config::SetDefault("ns3::NcclCollective::Protocol", EnumValue(NcclCollective::PROTOCOL_SIMPLE));
    JobSpec job = Job(0, {0, 1, 2, 3}, 64 * 1024, MicroSeconds(50), 2);
    job.gpusPerHost = 1;
    ExpectAddedLatency(TwoLeaves(1), job, "nccl-tree-all-reduce", "nccl-all-reduce", latencyUs);
}

} // namespace
} // namespace test
} // namespace ns3
