/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Collective decompositions over a fake transport in which a message takes
 * latency + bytes / bandwidth, optionally serialized per sending and per
 * receiving rank. Completion times, message and byte counts, per-rank
 * bytes and the step dependencies are checked against closed forms.
 */

#include "ns3/all-to-all.h"
#include "ns3/collective-factory.h"
#include "ns3/collective-transport.h"
#include "ns3/collective.h"
#include "ns3/halving-doubling-all-reduce.h"
#include "ns3/ring-all-gather.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/ring-reduce-scatter.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/**
 * A message takes latency + bytes x nsPerByte (cut-through: its first byte
 * arrives a latency after it starts, its last byte bytes x nsPerByte later).
 * With serialized sends a rank's messages start one after another; with
 * serialized receives a rank takes in one message at a time, in order of
 * first byte. Optional jitter delays each message by a random 0..jitter ns,
 * which reorders messages. Every send and delivery is recorded, and each send of step s > 0
 * is checked against the deliveries seen so far.
 */
class FakeTransport : public CollectiveTransport
{
  public:
    FakeTransport(int64_t latencyNs,
                  int64_t nsPerByte,
                  bool serializeSend = false,
                  bool serializeReceive = false)
        : m_latencyNs(latencyNs),
          m_nsPerByte(nsPerByte),
          m_serializeSend(serializeSend),
          m_serializeReceive(serializeReceive)
    {
    }

    void SetJitter(int64_t maxNs, uint32_t seed)
    {
        m_jitterNs = maxNs;
        m_rng.seed(seed);
    }

    /// When set, the delivery callback runs inside Send() (zero delay).
    void SetSynchronous(bool synchronous)
    {
        m_synchronous = synchronous;
    }

    /// When set, sends are checked for the stepped-collective dependency.
    void SetCheckSteps(bool check)
    {
        m_checkSteps = check;
    }

    void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override
    {
        ++messages;
        bytes += m.bytes;
        bytesFrom[m.srcRank] += m.bytes;
        maxStep = std::max(maxStep, m.step);
        sends.push_back(m);
        if (m_checkSteps)
        {
            CheckDependency(m);
        }
        if (m_synchronous)
        {
            Deliver(m, onDelivered);
            return;
        }
        int64_t now = Simulator::Now().GetNanoSeconds();
        int64_t wire = static_cast<int64_t>(m.bytes) * m_nsPerByte;
        int64_t start = now;
        if (m_serializeSend)
        {
            start = std::max(now, m_txFree[m.srcRank]);
            m_txFree[m.srcRank] = start + wire;
        }
        int64_t firstByte = start + m_latencyNs;
        if (m_jitterNs > 0)
        {
            firstByte += std::uniform_int_distribution<int64_t>(0, m_jitterNs)(m_rng);
        }
        if (!m_serializeReceive)
        {
            Simulator::Schedule(NanoSeconds(firstByte + wire - now),
                                [this, m, onDelivered]() { Deliver(m, onDelivered); });
            return;
        }
        // The receiver takes messages one at a time, in order of first byte.
        Simulator::Schedule(NanoSeconds(firstByte - now), [this, m, wire, onDelivered]() {
            int64_t t = Simulator::Now().GetNanoSeconds();
            int64_t done = std::max(t, m_rxFree[m.dstRank]) + wire;
            m_rxFree[m.dstRank] = done;
            Simulator::Schedule(NanoSeconds(done - t),
                                [this, m, onDelivered]() { Deliver(m, onDelivered); });
        });
    }

    uint64_t messages{0};
    uint64_t bytes{0};
    uint64_t deliveries{0};
    uint32_t maxStep{0};
    std::map<uint32_t, uint64_t> bytesFrom;
    std::vector<CollectiveMessage> sends;
    uint64_t violations{0}; ///< sends of step s+1 before step s was received
    uint64_t duplicateDeliveries{0};
    uint64_t earlyDeliveries{0}; ///< step s+1 arrived at a rank before its step s

  private:
    using Key = std::tuple<uint32_t, uint32_t, uint32_t>; // rank, channel, step

    void Deliver(const CollectiveMessage& m, const std::function<void()>& onDelivered)
    {
        ++deliveries;
        if (!m_received.insert(Key{m.dstRank, m.channel, m.step}).second)
        {
            ++duplicateDeliveries;
        }
        if (m.step > 0 && m_received.count(Key{m.dstRank, m.channel, m.step - 1}) == 0)
        {
            ++earlyDeliveries;
        }
        onDelivered();
    }

    void CheckDependency(const CollectiveMessage& m)
    {
        auto posted = m_lastPosted.find({m.srcRank, m.channel});
        uint32_t expected = posted == m_lastPosted.end() ? 0 : posted->second + 1;
        if (m.step != expected)
        {
            ++violations; // steps of one rank and channel are posted in order
        }
        m_lastPosted[{m.srcRank, m.channel}] = m.step;
        if (m.step > 0 && m_received.count(Key{m.srcRank, m.channel, m.step - 1}) == 0)
        {
            ++violations;
        }
    }

    int64_t m_latencyNs;
    int64_t m_nsPerByte;
    bool m_serializeSend;
    bool m_serializeReceive;
    int64_t m_jitterNs{0};
    bool m_synchronous{false};
    bool m_checkSteps{false};
    std::mt19937 m_rng{1};
    std::map<uint32_t, int64_t> m_txFree;
    std::map<uint32_t, int64_t> m_rxFree;
    std::set<Key> m_received;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_lastPosted;
};

/// What one run produced.
struct RunResult
{
    uint32_t doneCalls{0};
    int64_t finishNs{-1};
};

/// Configures and runs \p c to the end of the simulation.
RunResult
RunToEnd(Ptr<Collective> c, uint32_t n, uint64_t bytes, FakeTransport& transport)
{
    RunResult result;
    c->Configure(n, bytes, &transport);
    c->Start([&result]() {
        ++result.doneCalls;
        result.finishNs = Simulator::Now().GetNanoSeconds();
    });
    Simulator::Run();
    Simulator::Destroy();
    return result;
}

Ptr<Collective>
Make(const std::string& name, uint32_t channels)
{
    return CreateCollective(name, channels);
}

bool
IsPowerOfTwo(uint32_t n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

uint32_t
Log2(uint32_t n)
{
    uint32_t k = 0;
    while ((1U << k) < n)
    {
        ++k;
    }
    return k;
}

/// Steps of one run, by the algorithms' definitions.
uint64_t
ExpectedSteps(const std::string& name, uint32_t n)
{
    if (name == "ring-all-reduce")
    {
        return 2ull * (n - 1);
    }
    if (name == "reduce-scatter" || name == "all-gather")
    {
        return n - 1;
    }
    if (name == "halving-doubling-all-reduce")
    {
        return 2ull * Log2(n);
    }
    return n > 1 ? 1 : 0; // all-to-all
}

uint64_t
ExpectedMessages(const std::string& name, uint32_t n, uint32_t channels)
{
    if (name == "all-to-all")
    {
        return uint64_t{n} * (n - 1) * channels;
    }
    return ExpectedSteps(name, n) * n * channels;
}

/**
 * Messages of a ring collective of \p s bytes that carry bytes: an empty
 * chunk (fewer bytes in a channel than ranks) sends nothing, as in NCCL. A
 * channel of b bytes has min(N, b) chunks of at least a byte (its bytes
 * split evenly, the remainder one each to the first), and a ring passes each
 * chunk once a step of each pass; 0 for the other algorithms, whose pieces
 * are not ring chunks (they are bounded by ExpectedMessages instead).
 */
uint64_t
RingMessagesWithBytes(const std::string& name, uint32_t n, uint32_t channels, uint64_t s)
{
    if (name != "ring-all-reduce" && name != "reduce-scatter" && name != "all-gather")
    {
        return 0;
    }
    uint64_t chunks = 0;
    for (uint32_t c = 0; c < channels; ++c)
    {
        const uint64_t channelBytes = s / channels + (c < s % channels ? 1 : 0);
        chunks += std::min<uint64_t>(n, channelBytes);
    }
    const uint64_t passes = name == "ring-all-reduce" ? 2 : 1;
    return passes * (n - 1) * chunks;
}

/// Total bytes over all ranks: 2(N-1)S for all-reduces, (N-1)S otherwise.
uint64_t
ExpectedTotalBytes(const std::string& name, uint32_t n, uint64_t s)
{
    bool allReduce = name == "ring-all-reduce" || name == "halving-doubling-all-reduce";
    return (allReduce ? 2 : 1) * uint64_t{n - 1} * s;
}

const std::vector<std::string> kNames{"ring-all-reduce",
                                      "halving-doubling-all-reduce",
                                      "reduce-scatter",
                                      "all-gather",
                                      "all-to-all"};

bool
Supports(const std::string& name, uint32_t n)
{
    return name != "halving-doubling-all-reduce" || IsPowerOfTwo(n);
}

constexpr int64_t kLatNs = 2000;

// ------------------------------------------------------------ ring all-reduce

TEST(RingAllReduce, CompletionTimeOneChannel)
{
    const uint64_t s = 840 * 1000; // divisible by 2..8
    const int64_t nsPerByte = 1;
    for (uint32_t n = 2; n <= 8; ++n)
    {
        for (bool serialized : {false, true})
        {
            FakeTransport transport(kLatNs, nsPerByte, serialized, serialized);
            RunResult r = RunToEnd(CreateObject<RingAllReduce>(), n, s, transport);
            int64_t expected = 2 * (n - 1) * (kLatNs + static_cast<int64_t>(s / n) * nsPerByte);
            EXPECT_EQ(r.doneCalls, 1u);
            EXPECT_NEAR(r.finishNs, expected, 1) << "N = " << n << " serialized " << serialized;
        }
    }
}

TEST(RingAllReduce, CompletionTimeWithParallelChannels)
{
    for (uint32_t c : {2u, 3u, 4u})
    {
        for (uint32_t n = 2; n <= 8; ++n)
        {
            const uint64_t perMessage = 1009;
            FakeTransport transport(kLatNs, 1);
            RunResult r =
                RunToEnd(Make("ring-all-reduce", c), n, uint64_t{n} * c * perMessage, transport);
            int64_t expected = 2 * (n - 1) * (kLatNs + static_cast<int64_t>(perMessage));
            EXPECT_EQ(r.doneCalls, 1u);
            EXPECT_NEAR(r.finishNs, expected, 1) << "N = " << n << " C = " << c;
        }
    }
}

TEST(RingAllReduce, UnevenChunksStayWithinOneByteAndTimeIsBounded)
{
    const uint64_t s = 1000003;
    for (uint32_t n = 2; n <= 8; ++n)
    {
        for (uint32_t c : {1u, 3u})
        {
            FakeTransport transport(kLatNs, 1, true, true);
            RunResult r = RunToEnd(Make("ring-all-reduce", c), n, s, transport);
            // Per channel chunk: floor or ceil of (bytes of channel) / N.
            uint64_t lo = s / c / n;
            uint64_t hi = (s + c - 1) / c / n + 1;
            for (const auto& m : transport.sends)
            {
                EXPECT_GE(m.bytes, lo);
                EXPECT_LE(m.bytes, hi);
                EXPECT_EQ(m.dstRank, (m.srcRank + 1) % n);
            }
            if (c == 1)
            {
                uint64_t steps = 2 * (n - 1);
                EXPECT_GE(r.finishNs, static_cast<int64_t>(steps * (kLatNs + s / n)));
                EXPECT_LE(r.finishNs, static_cast<int64_t>(steps * (kLatNs + s / n + 1)));
            }
        }
    }
}

TEST(RingAllReduce, ChunkScheduleEndsWithEveryChunkEverywhere)
{
    // Simulate the data: after reduce-scatter rank r owns the full sum of
    // chunk (r+1) mod N; after all-gather every rank holds every sum.
    for (uint32_t n = 2; n <= 8; ++n)
    {
        Ptr<RingAllReduce> ring = CreateObject<RingAllReduce>();
        FakeTransport transport(kLatNs, 1);
        ring->Configure(n, 840, &transport);
        // contributions[r][k]: set of ranks whose input is summed in rank r's chunk k
        std::vector<std::vector<std::set<uint32_t>>> has(n, std::vector<std::set<uint32_t>>(n));
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t k = 0; k < n; ++k)
            {
                has[r][k].insert(r);
            }
        }
        for (uint32_t step = 0; step < ring->GetStepCount(); ++step)
        {
            auto next = has;
            for (uint32_t r = 0; r < n; ++r)
            {
                uint32_t k = ring->GetStepChunk(r, step);
                uint32_t dst = ring->GetSendPeer(r, 0, step);
                if (step < n - 1)
                {
                    next[dst][k].insert(has[r][k].begin(), has[r][k].end()); // reduce
                }
                else
                {
                    next[dst][k] = has[r][k]; // copy
                }
            }
            has = next;
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t k = 0; k < n; ++k)
            {
                EXPECT_EQ(has[r][k].size(), n) << "N = " << n << " rank " << r << " chunk " << k;
            }
        }
    }
}

// ------------------------------------------------------ counts for every kind

TEST(Collectives, MessageAndByteCountsAreExact)
{
    for (const auto& name : kNames)
    {
        for (uint32_t n : {1u, 2u, 3u, 4u, 5u, 8u})
        {
            if (!Supports(name, n))
            {
                continue;
            }
            for (uint32_t c : {1u, 3u})
            {
                for (uint64_t s : {uint64_t{840000}, uint64_t{1000003}, uint64_t{5}, uint64_t{0}})
                {
                    FakeTransport transport(kLatNs, 1);
                    Ptr<Collective> coll = Make(name, c);
                    RunResult r = RunToEnd(coll, n, s, transport);
                    SCOPED_TRACE(name + " N = " + std::to_string(n) + " C = " + std::to_string(c) +
                                 " S = " + std::to_string(s));
                    EXPECT_EQ(r.doneCalls, 1u);
                    // Every chunk has a byte: every step's message is sent.
                    // Otherwise only those with bytes are, never an empty one.
                    if (s >= uint64_t{n} * n * c)
                    {
                        EXPECT_EQ(transport.messages, ExpectedMessages(name, n, c));
                    }
                    else if (n > 1 && RingMessagesWithBytes(name, n, c, s) > 0)
                    {
                        EXPECT_EQ(transport.messages, RingMessagesWithBytes(name, n, c, s));
                    }
                    else
                    {
                        EXPECT_LE(transport.messages, ExpectedMessages(name, n, c));
                    }
                    if (s == 0)
                    {
                        EXPECT_EQ(transport.messages, 0u);
                    }
                    for (const CollectiveMessage& m : transport.sends)
                    {
                        EXPECT_GT(m.bytes, 0u) << "an empty message on the wire";
                    }
                    EXPECT_EQ(transport.bytes, ExpectedTotalBytes(name, n, s));
                    EXPECT_EQ(coll->GetMessagesSent(), transport.messages);
                    EXPECT_EQ(coll->GetBytesSent(), transport.bytes);
                    EXPECT_EQ(coll->GetMessagesDelivered(), transport.messages);
                    EXPECT_EQ(transport.deliveries, transport.messages);
                    EXPECT_FALSE(coll->IsRunning());
                    if (transport.messages > 0 && s >= uint64_t{n} * n * c)
                    {
                        EXPECT_EQ(transport.maxStep + 1, ExpectedSteps(name, n));
                    }
                }
            }
        }
    }
}

TEST(Collectives, BytesPerRankMatchesWhatRanksSent)
{
    for (const auto& name : kNames)
    {
        for (uint32_t n : {2u, 3u, 4u, 5u, 8u})
        {
            if (!Supports(name, n))
            {
                continue;
            }
            for (uint32_t c : {1u, 2u, 3u})
            {
                for (uint64_t s : {uint64_t{n} * c * 1024, uint64_t{1000003}, uint64_t{7}})
                {
                    SCOPED_TRACE(name + " N = " + std::to_string(n) + " C = " + std::to_string(c) +
                                 " S = " + std::to_string(s));
                    FakeTransport transport(kLatNs, 1);
                    Ptr<Collective> coll = Make(name, c);
                    RunToEnd(coll, n, s, transport);
                    uint64_t most = 0;
                    uint64_t least = UINT64_MAX;
                    for (uint32_t rank = 0; rank < n; ++rank)
                    {
                        most = std::max(most, transport.bytesFrom[rank]);
                        least = std::min(least, transport.bytesFrom[rank]);
                    }
                    EXPECT_EQ(coll->BytesPerRank(), most);
                    if (s % (uint64_t{n} * c) == 0)
                    {
                        // Every rank sends the same: the closed form.
                        EXPECT_EQ(least, most);
                        EXPECT_EQ(coll->BytesPerRank(), ExpectedTotalBytes(name, n, s) / n);
                    }
                }
            }
        }
    }
}

TEST(Collectives, RingAllReducePerRankIsTwoNMinusOneOverN)
{
    Ptr<Collective> ring = Make("ring-all-reduce", 1);
    FakeTransport transport(kLatNs, 1);
    ring->Configure(8, 8 * 1000, &transport);
    EXPECT_EQ(ring->BytesPerRank(), 2u * 7 * 1000);
}

// -------------------------------------------------------------- dependencies

TEST(Collectives, NoRankSendsStepBeforeReceivingThePreviousOne)
{
    uint64_t early = 0;
    for (const auto& name : kNames)
    {
        if (name == "all-to-all")
        {
            continue; // a single step
        }
        for (uint32_t n : {2u, 3u, 4u, 7u, 8u})
        {
            if (!Supports(name, n))
            {
                continue;
            }
            for (int mode = 0; mode < 3; ++mode)
            {
                SCOPED_TRACE(name + " N = " + std::to_string(n) + " mode " + std::to_string(mode));
                FakeTransport transport(kLatNs, 1, mode == 1, mode == 1);
                transport.SetCheckSteps(true);
                if (mode == 2)
                {
                    transport.SetJitter(50000, 7 * n + 1); // reorders steps in flight
                }
                Ptr<Collective> coll = Make(name, 2);
                RunResult r = RunToEnd(coll, n, 100003, transport);
                EXPECT_EQ(r.doneCalls, 1u);
                EXPECT_EQ(transport.violations, 0u);
                EXPECT_EQ(transport.duplicateDeliveries, 0u);
                EXPECT_EQ(transport.messages, ExpectedMessages(name, n, 2));
                early += transport.earlyDeliveries;
            }
        }
    }
    EXPECT_GT(early, 0u) << "the jitter never delivered a step ahead of the previous one";
}

TEST(Collectives, DependencyCheckSeesTheWaitInTime)
{
    // Independent of the transport's own check: in the ring, rank r's
    // step-s message (s > 0) cannot leave before step s-1 of rank r-1 has
    // arrived, so with one-byte-per-ns messages step s leaves no earlier
    // than s x (lat + S/N).
    const uint32_t n = 5;
    const uint64_t s = 5000;
    FakeTransport transport(kLatNs, 1);
    std::vector<std::pair<int64_t, uint32_t>> sendTimes;
    Ptr<Collective> ring = Make("ring-all-reduce", 1);
    ring->TraceConnectWithoutContext(
        "MessageSent",
        MakeCallback(+[](std::vector<std::pair<int64_t, uint32_t>>* out,
                         const CollectiveMessage& m) {
            out->emplace_back(Simulator::Now().GetNanoSeconds(), m.step);
        }).Bind(&sendTimes));
    RunToEnd(ring, n, s, transport);
    ASSERT_EQ(sendTimes.size(), 2u * (n - 1) * n);
    for (const auto& [t, step] : sendTimes)
    {
        EXPECT_EQ(t, static_cast<int64_t>(step) * (kLatNs + static_cast<int64_t>(s / n)));
    }
}

// ------------------------------------------------- reduce-scatter, all-gather

TEST(RingReduceScatterAndAllGather, StepsBytesAndTime)
{
    for (const std::string name : {"reduce-scatter", "all-gather"})
    {
        for (uint32_t n = 2; n <= 8; ++n)
        {
            const uint64_t s = 840 * 100;
            FakeTransport transport(kLatNs, 1, true, true);
            Ptr<Collective> coll = Make(name, 1);
            RunResult r = RunToEnd(coll, n, s, transport);
            SCOPED_TRACE(name + " N = " + std::to_string(n));
            EXPECT_EQ(transport.maxStep + 1, n - 1);
            EXPECT_EQ(transport.bytes, uint64_t{n - 1} * s);
            EXPECT_EQ(coll->BytesPerRank(), (n - 1) * s / n);
            EXPECT_EQ(r.finishNs, static_cast<int64_t>((n - 1) * (kLatNs + s / n)));
        }
    }
}

TEST(RingReduceScatterAndAllGather, TypesAndChunks)
{
    Ptr<RingReduceScatter> rs = CreateObject<RingReduceScatter>();
    Ptr<RingAllGather> ag = CreateObject<RingAllGather>();
    EXPECT_EQ(rs->GetName(), "reduce-scatter");
    EXPECT_EQ(ag->GetName(), "all-gather");
    FakeTransport transport(kLatNs, 1);
    rs->Configure(4, 400, &transport);
    ag->Configure(4, 400, &transport);
    // Reduce-scatter: rank r never sends chunk r+1, the one it ends with.
    // All-gather: rank r starts by sending its own chunk r.
    for (uint32_t r = 0; r < 4; ++r)
    {
        for (uint32_t step = 0; step < 3; ++step)
        {
            EXPECT_NE(rs->GetStepChunk(r, step), (r + 1) % 4);
        }
        EXPECT_EQ(ag->GetStepChunk(r, 0), r);
    }
}

// ----------------------------------------------------------- halving-doubling

TEST(HalvingDoublingAllReduce, StepsBytesAndTime)
{
    for (uint32_t n : {2u, 4u, 8u, 16u})
    {
        const uint64_t s = uint64_t{n} * 4096;
        for (bool serialized : {false, true})
        {
            FakeTransport transport(kLatNs, 1, serialized, serialized);
            transport.SetCheckSteps(true);
            Ptr<Collective> coll = Make("halving-doubling-all-reduce", 1);
            RunResult r = RunToEnd(coll, n, s, transport);
            SCOPED_TRACE("N = " + std::to_string(n));
            uint32_t levels = Log2(n);
            EXPECT_EQ(transport.maxStep + 1, 2 * levels);
            EXPECT_EQ(transport.violations, 0u);
            int64_t expected = 0;
            for (uint32_t k = 0; k < levels; ++k)
            {
                expected += 2 * (kLatNs + static_cast<int64_t>(s >> (k + 1)));
            }
            EXPECT_EQ(r.finishNs, expected);
            for (uint32_t rank = 0; rank < n; ++rank)
            {
                EXPECT_EQ(transport.bytesFrom[rank], 2 * s * (n - 1) / n);
            }
            EXPECT_EQ(coll->BytesPerRank(), 2 * s * (n - 1) / n);
            for (const auto& m : transport.sends)
            {
                uint32_t level = m.step < levels ? m.step : 2 * levels - 1 - m.step;
                EXPECT_EQ(m.dstRank, m.srcRank ^ (1U << level));
                EXPECT_EQ(m.bytes, s >> (level + 1));
            }
        }
    }
}

TEST(HalvingDoublingAllReduce, NonPowerOfTwoThrows)
{
    FakeTransport transport(kLatNs, 1);
    for (uint32_t n : {3u, 5u, 6u, 7u, 12u, 100u})
    {
        Ptr<Collective> coll = Make("halving-doubling-all-reduce", 1);
        try
        {
            coll->Configure(n, 1000, &transport);
            ADD_FAILURE() << "N = " << n << " accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find("N = " + std::to_string(n)), std::string::npos)
                << e.what();
        }
        EXPECT_FALSE(coll->IsConfigured());
    }
}

// ---------------------------------------------------------------- all-to-all

TEST(AllToAll, CountsAndTime)
{
    for (uint32_t n = 2; n <= 8; ++n)
    {
        const uint64_t s = uint64_t{n} * 1000;
        const int64_t chunkNs = static_cast<int64_t>(s / n);
        {
            FakeTransport transport(kLatNs, 1);
            RunResult r = RunToEnd(Make("all-to-all", 1), n, s, transport);
            EXPECT_EQ(transport.messages, uint64_t{n} * (n - 1));
            EXPECT_EQ(r.finishNs, kLatNs + chunkNs) << "N = " << n;
        }
        {
            FakeTransport transport(kLatNs, 1, true, false);
            RunResult r = RunToEnd(Make("all-to-all", 1), n, s, transport);
            EXPECT_EQ(r.finishNs, (n - 1) * chunkNs + kLatNs) << "N = " << n;
        }
        {
            // Staggered peers: with receives serialized too, no receiver is
            // hit twice at once, so the time does not grow.
            FakeTransport transport(kLatNs, 1, true, true);
            RunResult r = RunToEnd(Make("all-to-all", 1), n, s, transport);
            EXPECT_EQ(r.finishNs, (n - 1) * chunkNs + kLatNs) << "N = " << n;
        }
    }
}

TEST(AllToAll, EveryOrderedPairOncePerChannel)
{
    const uint32_t n = 6;
    FakeTransport transport(kLatNs, 1);
    RunToEnd(Make("all-to-all", 2), n, 6000, transport);
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> pairs;
    for (const auto& m : transport.sends)
    {
        EXPECT_NE(m.srcRank, m.dstRank);
        EXPECT_EQ(m.bytes, 500u);
        pairs.insert({m.srcRank, m.dstRank, m.channel});
    }
    EXPECT_EQ(pairs.size(), n * (n - 1) * 2u);
}

// ----------------------------------------------------------- life cycle

TEST(Collectives, OneRankFinishesAtOnceWithoutMessages)
{
    for (const auto& name : kNames)
    {
        FakeTransport transport(kLatNs, 1);
        Ptr<Collective> coll = Make(name, 2);
        coll->Configure(1, 1000000, &transport);
        uint32_t done = 0;
        coll->Start([&done]() { ++done; });
        EXPECT_EQ(done, 1u) << name; // before any event runs
        Simulator::Run();
        Simulator::Destroy();
        EXPECT_EQ(done, 1u) << name;
        EXPECT_EQ(coll->GetMessagesSent(), 0u);
        EXPECT_EQ(transport.messages, 0u);
        EXPECT_EQ(coll->BytesPerRank(), 0u);
    }
}

TEST(Collectives, DoneIsCalledOncePerRunAndRunsRepeat)
{
    for (const auto& name : kNames)
    {
        FakeTransport transport(kLatNs, 1);
        Ptr<Collective> coll = Make(name, 2);
        coll->Configure(4, 4000, &transport);
        uint32_t done = 0;
        coll->Start([&done]() { ++done; });
        EXPECT_THROW(coll->Start([]() {}), std::logic_error) << name;
        EXPECT_THROW(coll->Configure(8, 1, &transport), std::invalid_argument) << name;
        Simulator::Run();
        EXPECT_EQ(done, 1u) << name;
        coll->Start([&done]() { ++done; });
        Simulator::Run();
        Simulator::Destroy();
        EXPECT_EQ(done, 2u) << name;
        EXPECT_EQ(coll->GetMessagesSent(), ExpectedMessages(name, 4, 2)) << name;
        EXPECT_EQ(transport.messages, 2 * ExpectedMessages(name, 4, 2)) << name;
    }
}

TEST(Collectives, ZeroDelayTransportAndRestartFromDone)
{
    // Deliveries run inside Send(), and done starts the next run from within
    // the last delivery: the state of one run must not leak into the next.
    for (const auto& name : kNames)
    {
        for (uint32_t n : {2u, 4u, 5u})
        {
            if (!Supports(name, n))
            {
                continue;
            }
            SCOPED_TRACE(name + " N = " + std::to_string(n));
            FakeTransport transport(0, 0);
            transport.SetSynchronous(true);
            Ptr<Collective> coll = Make(name, 2);
            coll->Configure(n, 10007, &transport);
            uint32_t done = 0;
            std::function<void()> onDone = [&]() {
                if (++done < 3)
                {
                    coll->Start(onDone);
                }
            };
            coll->Start(onDone);
            EXPECT_EQ(done, 3u);
            EXPECT_EQ(transport.messages, 3 * ExpectedMessages(name, n, 2));
            EXPECT_EQ(transport.bytes, 3 * ExpectedTotalBytes(name, n, 10007));
            EXPECT_EQ(transport.deliveries, transport.messages);
            EXPECT_FALSE(coll->IsRunning());
            Simulator::Destroy();
        }
    }
}

TEST(Collectives, ZeroDelayTransportKeepsStepOrder)
{
    for (const std::string name : {"ring-all-reduce", "reduce-scatter", "all-gather"})
    {
        FakeTransport transport(0, 0);
        transport.SetSynchronous(true);
        transport.SetCheckSteps(true);
        uint32_t done = 0;
        Ptr<Collective> coll = Make(name, 3);
        coll->Configure(6, 6000, &transport);
        coll->Start([&done]() { ++done; });
        EXPECT_EQ(done, 1u) << name;
        EXPECT_EQ(transport.violations, 0u) << name;
        Simulator::Destroy();
    }
}

TEST(Collectives, ZeroDelayTransportRunsALongRingAsALoop)
{
    // Every delivery of a zero-delay transport posts the next step; handled
    // inside Post, a ring of 256 ranks (130,560 messages) nested that deep
    // and overflowed the stack.
    FakeTransport transport(0, 0);
    transport.SetSynchronous(true);
    transport.SetCheckSteps(true);
    Ptr<Collective> coll = Make("ring-all-reduce", 1);
    coll->Configure(256, 256 * 64, &transport);
    uint32_t done = 0;
    coll->Start([&done]() { ++done; });
    EXPECT_EQ(done, 1u);
    EXPECT_EQ(transport.messages, ExpectedMessages("ring-all-reduce", 256, 1));
    EXPECT_EQ(transport.deliveries, transport.messages);
    EXPECT_EQ(transport.violations, 0u);
    EXPECT_FALSE(coll->IsRunning());
    Simulator::Destroy();
}

TEST(Collectives, BadConfigurationThrows)
{
    FakeTransport transport(kLatNs, 1);
    Ptr<Collective> coll = Make("ring-all-reduce", 1);
    EXPECT_THROW(coll->Start([]() {}), std::logic_error);
    EXPECT_THROW(coll->Configure(0, 1000, &transport), std::invalid_argument);
    EXPECT_THROW(coll->Configure(4, 1000, nullptr), std::invalid_argument);
}

TEST(Collectives, TraceSourcesSeeEveryMessage)
{
    FakeTransport transport(kLatNs, 1);
    Ptr<Collective> coll = Make("ring-all-reduce", 2);
    uint64_t sent = 0;
    uint64_t delivered = 0;
    uint64_t finished = 0;
    coll->TraceConnectWithoutContext(
        "MessageSent",
        MakeCallback(+[](uint64_t* n, const CollectiveMessage&) { ++*n; }).Bind(&sent));
    coll->TraceConnectWithoutContext(
        "MessageDelivered",
        MakeCallback(+[](uint64_t* n, const CollectiveMessage&) { ++*n; }).Bind(&delivered));
    coll->TraceConnectWithoutContext("Finished",
                                     MakeCallback(+[](uint64_t* n) { ++*n; }).Bind(&finished));
    RunToEnd(coll, 4, 4000, transport);
    EXPECT_EQ(sent, 2u * 3 * 4 * 2);
    EXPECT_EQ(delivered, sent);
    EXPECT_EQ(finished, 1u);
}

} // namespace
