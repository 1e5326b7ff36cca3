/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The per-hop packet path's parts: the port's ring queue against a deque,
 * packet references handed on without being copied, and the channel's
 * counts of data-frame hops, ACK hops and link bytes against what a message
 * over one switch must cost, and frames that are fields alone until
 * something needs their bytes.
 */

#include "fabric-test-util.h"

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <deque>
#include <gtest/gtest.h>
#include <random>

using namespace ns3;
using namespace ns3::test;

namespace
{

struct Record
{
    uint64_t value;
    uint32_t tag;
};

TEST(RingQueueTest, MatchesADequeUnderRandomPushesAndPops)
{
    RingQueue<Record> ring;
    std::deque<Record> reference;
    std::mt19937 rng(7);
    uint64_t next = 0;
    // Bursts of pushes then pops of random lengths, so the ring grows while
    // wrapped around and drains to empty many times.
    for (int burst = 0; burst < 2000; ++burst)
    {
        const int pushes = static_cast<int>(rng() % 70);
        for (int i = 0; i < pushes; ++i)
        {
            Record r{next, static_cast<uint32_t>(next * 2654435761u)};
            ++next;
            ring.push_back(r);
            reference.push_back(r);
        }
        const int pops = static_cast<int>(rng() % 80);
        for (int i = 0; i < pops && !reference.empty(); ++i)
        {
            ASSERT_FALSE(ring.empty());
            ASSERT_EQ(ring.front().value, reference.front().value);
            ASSERT_EQ(ring.front().tag, reference.front().tag);
            ring.pop_front();
            reference.pop_front();
        }
        ASSERT_EQ(ring.size(), reference.size());
        ASSERT_EQ(ring.empty(), reference.empty());
        for (std::size_t i = 0; i < reference.size(); ++i)
        {
            ASSERT_EQ(ring.at(i).value, reference[i].value) << "position " << i;
        }
    }
    ring.clear();
    EXPECT_TRUE(ring.empty());
    EXPECT_EQ(ring.size(), 0u);
}

TEST(PacketHandoffTest, ReferencesAreHandedOnNotCopied)
{
    Ptr<Packet> p = Create<Packet>(100);
    Packet* raw = PeekPointer(p);
    ASSERT_EQ(raw->GetReferenceCount(), 1u);

    Ptr<Packet> q = TakeRef(p);
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(PeekPointer(q), raw);
    EXPECT_EQ(raw->GetReferenceCount(), 1u);

    Packet* released = ReleaseRef(q);
    EXPECT_EQ(q, nullptr);
    EXPECT_EQ(released, raw);
    EXPECT_EQ(raw->GetReferenceCount(), 1u) << "the caller owns the one reference";

    // Adopting into a Ptr that holds another packet releases that one.
    Ptr<Packet> other = Create<Packet>(5);
    Ptr<Packet> keep = other;
    ASSERT_EQ(keep->GetReferenceCount(), 2u);
    AdoptRef(other, released);
    EXPECT_EQ(PeekPointer(other), raw);
    EXPECT_EQ(raw->GetReferenceCount(), 1u);
    EXPECT_EQ(keep->GetReferenceCount(), 1u);

    // Adopting into an empty Ptr.
    Ptr<Packet> empty;
    AdoptRef(empty, ReleaseRef(other));
    EXPECT_EQ(PeekPointer(empty), raw);
    EXPECT_EQ(raw->GetReferenceCount(), 1u);
}

class HopCountTest : public FabricTest
{
};

TEST_F(HopCountTest, DataAndAckHopsAndLinkBytesOfOneMessageOverOneSwitch)
{
    const uint64_t bytes = 40500; // 41 packets of 1000 B payload, the last one 500 B
    const uint32_t mtu = 1000;
    RoceFabricHelper helper;
    helper.SetNicAttribute("PayloadPerPacket", UintegerValue(mtu));
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
    RoceFlowMonitor monitor(fabric);
    RdmaMessageInfo info;
    info.bytes = bytes;
    fabric->SendMessage(1, 0, info, Seconds(0));

    const uint64_t hops0 = RoceChannel::GetTotalPacketHops();
    const uint64_t data0 = RoceChannel::GetTotalDataHops();
    const uint64_t bytes0 = RoceChannel::GetTotalLinkBytes();
    Simulator::Run();
    const uint64_t hops = RoceChannel::GetTotalPacketHops() - hops0;
    const uint64_t dataHops = RoceChannel::GetTotalDataHops() - data0;
    const uint64_t linkBytes = RoceChannel::GetTotalLinkBytes() - bytes0;
    ASSERT_EQ(monitor.GetFlows().size(), 1u);
    ASSERT_FALSE(monitor.GetFlows().begin()->second.acked.IsNegative()) << "message completed";
    ASSERT_EQ(fabric->GetTotalDrops(), 0u);

    // An uncongested path: every data packet crosses two links once, and
    // nothing but acknowledgements (62-byte frames: Ethernet 14, IPv4 20,
    // UDP 8, BTH 12, AETH 4, ICRC 4) comes back.
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    uint64_t dataFrameBytes = 0;
    for (uint64_t i = 0; i < packets; ++i)
    {
        dataFrameBytes += DataFrameBytes(bytes, mtu, i);
    }
    EXPECT_EQ(dataHops, 2 * packets);
    const uint64_t ackHops = hops - dataHops;
    EXPECT_GT(ackHops, 0u);
    EXPECT_EQ(ackHops % 2, 0u) << "each acknowledgement crosses two links";
    EXPECT_EQ(linkBytes, 2 * dataFrameBytes + ackHops * 62);
}

/// Packets ns-3 has created so far (each gets the next uid).
uint64_t
PacketsCreated()
{
    return Create<Packet>()->GetUid();
}

TEST_F(HopCountTest, WithNothingListeningNoHopBuildsAPacket)
{
    // An incast through one switch, with ECN marks and PFC: the fabric moves
    // data, ACKs and CNPs as fields alone; only PFC frames are packets.
    RoceFabricHelper helper;
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(5));
    for (uint32_t h = 0; h < 4; ++h)
    {
        RdmaMessageInfo info;
        info.bytes = 1000000;
        fabric->SendMessage(h, 4, info, Seconds(0));
    }
    const uint64_t before = PacketsCreated();
    const uint64_t hops0 = RoceChannel::GetTotalPacketHops();
    Simulator::Run();
    const uint64_t hops = RoceChannel::GetTotalPacketHops() - hops0;
    const uint64_t created = PacketsCreated() - before - 1;
    ASSERT_GT(hops, 2000u);
    ASSERT_GT(fabric->GetSwitch(0)->GetTotalEcnMarked(), 0u) << "the case must mark frames";
    EXPECT_EQ(created, fabric->GetTotalPausesSent()) << "packets built on a path nobody traces";
}

TEST_F(HopCountTest, AListenerSeesEveryFrameAsItsBytes)
{
    // Tracing one port builds its frames' packets there: what it sees must
    // be the frames themselves, data and acknowledgements, whole.
    const uint64_t bytes = 40500;
    const uint32_t mtu = 1000;
    RoceFabricHelper helper;
    helper.SetNicAttribute("PayloadPerPacket", UintegerValue(mtu));
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
    RdmaMessageInfo info;
    info.bytes = bytes;
    fabric->SendMessage(1, 0, info, Seconds(0));
    std::vector<RoceForwardingInfo> seen;
    std::vector<uint32_t> sizes;
    Ptr<RoceNetDevice> senderPort = fabric->GetChannel(1)->GetRoceDevice(0);
    senderPort->TraceConnectWithoutContext(
        "Transmit",
        MakeCallback(+[](std::vector<RoceForwardingInfo>* out, Ptr<const Packet> p) {
            out->push_back(RoceForwardingInfo::Peek(p));
        }).Bind(&seen));
    Simulator::Run();
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    ASSERT_EQ(seen.size(), packets);
    for (uint64_t i = 0; i < packets; ++i)
    {
        const RoceForwardingInfo& f = seen[i];
        EXPECT_EQ(f.bytes, DataFrameBytes(bytes, mtu, i)) << "packet " << i;
        EXPECT_EQ(f.srcIp, RoceHostAddress(1));
        EXPECT_EQ(f.dstIp, RoceHostAddress(0));
        EXPECT_EQ(f.psn, (seen[0].psn + i) & 0xFFFFFF);
        EXPECT_EQ(f.opcode,
                  i == 0             ? RoceOpcode::WRITE_FIRST
                  : i + 1 == packets ? RoceOpcode::WRITE_LAST
                                     : RoceOpcode::WRITE_MIDDLE);
        EXPECT_EQ(f.ackRequest, i + 1 == packets);
    }
    EXPECT_EQ(seen[0].dmaLength, bytes);
}

} // namespace
