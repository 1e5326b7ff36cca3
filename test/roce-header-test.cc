/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoCEv2 and PFC framing: field round trips, byte layout at the offsets the
 * standards give, a valid IPv4 checksum, ECN re-marking.
 */

#include "fabric-test-util.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

std::vector<uint8_t>
Bytes(const Ptr<Packet>& p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

uint32_t
Be(const std::vector<uint8_t>& b, std::size_t at, int n)
{
    uint32_t v = 0;
    for (int i = 0; i < n; ++i)
    {
        v = v << 8 | b[at + i];
    }
    return v;
}

/// The one's-complement sum over the IPv4 header must be 0xFFFF.
bool
Ipv4ChecksumValid(const std::vector<uint8_t>& b)
{
    uint32_t sum = 0;
    for (std::size_t i = 14; i < 34; i += 2)
    {
        sum += Be(b, i, 2);
    }
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return sum == 0xFFFF;
}

/// Every opcode the model sends.
const RoceOpcode kOpcodes[] = {RoceOpcode::WRITE_FIRST,
                               RoceOpcode::WRITE_MIDDLE,
                               RoceOpcode::WRITE_LAST,
                               RoceOpcode::WRITE_ONLY,
                               RoceOpcode::ACKNOWLEDGE,
                               RoceOpcode::CNP};

Ptr<Packet>
Frame(RoceOpcode op, uint32_t payload, RoceEcn ecn = RoceEcn::ECT0)
{
    RoceHeader h;
    h.SetSource(RoceHostAddress(3));
    h.SetDestination(RoceHostAddress(700));
    h.SetDscp(5);
    h.SetEcn(ecn);
    h.SetIpId(0xBEEF);
    h.SetSourcePort(0xC123);
    h.SetOpcode(op);
    h.SetDestQp(0xABCDEF);
    h.SetPsn(0xFFFFFE);
    h.SetAckRequest(true);
    h.SetDmaLength(123456);
    h.SetSyndrome(RoceHeader::kNakSequenceError);
    h.SetMsn(77);
    h.SetPayloadSize(payload + 4);
    Ptr<Packet> p = Create<Packet>(payload + 4);
    p->AddHeader(h);
    return p;
}

TEST(RoceHeaderTest, WireLayoutOfAnRdmaWriteFirst)
{
    Ptr<Packet> p = Frame(RoceOpcode::WRITE_FIRST, 1000);
    std::vector<uint8_t> b = Bytes(p);
    ASSERT_EQ(b.size(), 14u + 20 + 8 + 12 + 16 + 1000 + 4);
    EXPECT_EQ(Be(b, 12, 2), 0x0800u);              // EtherType IPv4
    EXPECT_EQ(b[14], 0x45);                        // IPv4, IHL 5
    EXPECT_EQ(b[15], 5 << 2 | 2);                  // DSCP 5, ECT(0)
    EXPECT_EQ(Be(b, 16, 2), b.size() - 14);        // total length
    EXPECT_EQ(b[23], 17);                          // UDP
    EXPECT_EQ(Be(b, 26, 4), RoceHostAddress(3));   // source
    EXPECT_EQ(Be(b, 30, 4), RoceHostAddress(700)); // destination
    EXPECT_TRUE(Ipv4ChecksumValid(b));
    EXPECT_EQ(Be(b, 34, 2), 0xC123u);       // UDP source port
    EXPECT_EQ(Be(b, 36, 2), 4791u);         // RoCEv2
    EXPECT_EQ(Be(b, 38, 2), b.size() - 34); // UDP length
    EXPECT_EQ(b[42], 0x06);                 // BTH opcode RC WRITE FIRST
    EXPECT_EQ(Be(b, 44, 2), 0xFFFFu);       // partition key
    EXPECT_EQ(Be(b, 47, 3), 0xABCDEFu);     // destination QP
    EXPECT_EQ(b[50] & 0x80, 0x80);          // AckReq
    EXPECT_EQ(Be(b, 51, 3), 0xFFFFFEu);     // PSN
    EXPECT_EQ(Be(b, 66, 4), 123456u);       // RETH DMA length
}

TEST(RoceHeaderTest, RoundTripOfEveryOpcode)
{
    for (RoceOpcode op : kOpcodes)
    {
        const uint32_t payload = (op == RoceOpcode::ACKNOWLEDGE || op == RoceOpcode::CNP) ? 0 : 512;
        Ptr<Packet> p = Frame(op, payload);
        RoceHeader h;
        const uint32_t extra = op == RoceOpcode::WRITE_FIRST || op == RoceOpcode::WRITE_ONLY ? 16
                               : op == RoceOpcode::ACKNOWLEDGE                               ? 4
                               : op == RoceOpcode::CNP                                       ? 16
                                                                                             : 0;
        EXPECT_EQ(p->RemoveHeader(h), 54u + extra);
        EXPECT_EQ(p->GetSize(), payload + 4u);
        EXPECT_EQ(h.GetOpcode(), op);
        EXPECT_EQ(h.GetSource(), RoceHostAddress(3));
        EXPECT_EQ(h.GetDestination(), RoceHostAddress(700));
        EXPECT_EQ(h.GetDscp(), 5);
        EXPECT_EQ(h.GetEcn(), RoceEcn::ECT0);
        EXPECT_EQ(h.GetSourcePort(), 0xC123);
        EXPECT_EQ(h.GetDestQp(), 0xABCDEFu);
        EXPECT_EQ(h.GetPsn(), 0xFFFFFEu);
        EXPECT_TRUE(h.GetAckRequest());
        if (extra == 16 && op != RoceOpcode::CNP)
        {
            EXPECT_EQ(h.GetDmaLength(), 123456u);
        }
        if (op == RoceOpcode::ACKNOWLEDGE)
        {
            EXPECT_EQ(h.GetSyndrome(), RoceHeader::kNakSequenceError);
        }
        EXPECT_EQ(h.IsData(), static_cast<uint8_t>(op) <= 0x0A);
    }
}

TEST(RoceHeaderTest, ForwardingViewAndEcnMarking)
{
    Ptr<Packet> p = Frame(RoceOpcode::WRITE_MIDDLE, 1000);
    RoceForwardingInfo info = RoceForwardingInfo::Peek(p);
    EXPECT_EQ(info.etherType, 0x0800);
    EXPECT_EQ(info.dscp, 5);
    EXPECT_EQ(info.ecn, RoceEcn::ECT0);
    EXPECT_EQ(info.srcIp, RoceHostAddress(3));
    EXPECT_EQ(info.dstIp, RoceHostAddress(700));
    EXPECT_EQ(info.srcPort, 0xC123);
    EXPECT_EQ(info.dstPort, 4791);
    const uint32_t size = p->GetSize();
    EXPECT_TRUE(RoceMarkCe(p, info));
    EXPECT_EQ(info.ecn, RoceEcn::CE);
    EXPECT_EQ(p->GetSize(), size);
    EXPECT_EQ(RoceForwardingInfo::Peek(p).ecn, RoceEcn::CE);
    EXPECT_TRUE(Ipv4ChecksumValid(Bytes(p))) << "the checksum follows the TOS byte";
    // A frame that is not ECN-capable is left alone.
    Ptr<Packet> ack = Frame(RoceOpcode::ACKNOWLEDGE, 0, RoceEcn::NOT_ECT);
    RoceForwardingInfo ackInfo = RoceForwardingInfo::Peek(ack);
    EXPECT_FALSE(RoceMarkCe(ack, ackInfo));
    EXPECT_EQ(ackInfo.ecn, RoceEcn::NOT_ECT);
    EXPECT_EQ(RoceForwardingInfo::Peek(ack).ecn, RoceEcn::NOT_ECT);
}

TEST(RoceHeaderTest, AFrameBuiltFromItsFieldsIsItsPacketByteForByte)
{
    // What a NIC sends as fields alone must become, when something needs
    // the bytes, exactly the frame it would have built as a packet.
    for (RoceOpcode op : kOpcodes)
    {
        const uint32_t payload = (op == RoceOpcode::ACKNOWLEDGE || op == RoceOpcode::CNP) ? 0 : 777;
        Ptr<Packet> p = Frame(op, payload);
        const RoceForwardingInfo info = RoceForwardingInfo::Peek(p);
        EXPECT_EQ(info.bytes, p->GetSize());
        EXPECT_EQ(info.opcode, op);
        EXPECT_EQ(info.ipId, 0xBEEF);
        EXPECT_EQ(info.destQp, 0xABCDEFu);
        EXPECT_EQ(info.psn, 0xFFFFFEu);
        EXPECT_TRUE(info.ackRequest);
        EXPECT_TRUE(info.IsRoce());
        Ptr<Packet> rebuilt = info.ToPacket();
        EXPECT_EQ(Bytes(rebuilt), Bytes(p)) << static_cast<int>(op);
        EXPECT_EQ(RoceForwardingInfo::Peek(rebuilt), info);
        EXPECT_EQ(RoceForwardingInfo::FromHeader(info.ToHeader()), info);
    }
}

TEST(RoceHeaderTest, MarkingAFrameWithoutItsPacketMarksItsFields)
{
    Ptr<Packet> p = Frame(RoceOpcode::WRITE_LAST, 100);
    RoceForwardingInfo info = RoceForwardingInfo::Peek(p);
    Ptr<Packet> none;
    EXPECT_TRUE(RoceMarkCe(none, info));
    EXPECT_EQ(none, nullptr);
    EXPECT_EQ(info.ecn, RoceEcn::CE);
    // Built afterwards, the packet carries the mark and a valid checksum.
    Ptr<Packet> built = info.ToPacket();
    EXPECT_EQ(RoceForwardingInfo::Peek(built).ecn, RoceEcn::CE);
    EXPECT_TRUE(Ipv4ChecksumValid(Bytes(built)));
}

TEST(RoceHeaderTest, PfcFrameIsAnIeee8021QbbMacControlFrame)
{
    PfcHeader pfc;
    pfc.SetSourceMac(0x0200AABBCCDDull);
    pfc.SetQuanta(3, 0xFFFF);
    pfc.SetQuanta(5, 0);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(pfc);
    std::vector<uint8_t> b = Bytes(p);
    ASSERT_EQ(b.size(), 60u) << "padded to the Ethernet minimum";
    EXPECT_EQ(Be(b, 0, 4), 0x0180C200u);
    EXPECT_EQ(Be(b, 4, 2), 0x0001u);
    EXPECT_EQ(Be(b, 12, 2), 0x8808u);               // MAC control
    EXPECT_EQ(Be(b, 14, 2), 0x0101u);               // PFC opcode
    EXPECT_EQ(Be(b, 16, 2), (1u << 3) | (1u << 5)); // class-enable vector
    EXPECT_EQ(Be(b, 18 + 2 * 3, 2), 0xFFFFu);
    EXPECT_EQ(Be(b, 18 + 2 * 5, 2), 0u);
    PfcHeader back;
    p->PeekHeader(back);
    EXPECT_TRUE(back.IsEnabled(3));
    EXPECT_TRUE(back.IsEnabled(5));
    EXPECT_FALSE(back.IsEnabled(4));
    EXPECT_EQ(back.GetQuanta(3), 0xFFFF);
    EXPECT_EQ(RoceForwardingInfo::Peek(p).etherType, 0x8808);
}

TEST(RoceHeaderTest, MessageWireBytesCountsEveryFrameAndItsOverhead)
{
    for (uint64_t bytes : {1ull, 999ull, 1000ull, 1001ull, 4096ull, 1000000ull})
    {
        uint64_t expected = 0;
        for (uint64_t i = 0; i * 1000 < bytes; ++i)
        {
            expected += test::WireOf(test::DataFrameBytes(bytes, 1000, i));
        }
        EXPECT_EQ(RoceWire::MessageWireBytes(bytes, 1000), expected) << bytes;
    }
}

TEST(RoceHeaderTest, MessageWireBytesIsClosedFormForAnySize)
{
    // The same values as a frame-by-frame count, for every path MTU and the
    // sizes around packet boundaries.
    for (uint32_t payload : {256u, 1000u, 4096u})
    {
        for (uint64_t bytes = 0; bytes <= 3 * payload + 2; ++bytes)
        {
            uint64_t expected = 0;
            for (uint64_t i = 0; i == 0 || i * payload < bytes; ++i)
            {
                expected += test::WireOf(test::DataFrameBytes(bytes, payload, i));
            }
            ASSERT_EQ(RoceWire::MessageWireBytes(bytes, payload), expected)
                << bytes << " " << payload;
        }
    }
    // 10^15 bytes (a message of --scale=1e12): 2.4e11 packets, which a loop
    // per packet would take minutes to count inside one event.
    const uint64_t huge = 1000000000000000ull;
    const uint64_t packets = (huge + 4095) / 4096;
    const uint64_t full =
        RoceWire::MessageWireBytes(4096 * 3, 4096) - RoceWire::MessageWireBytes(4096 * 2, 4096);
    EXPECT_EQ(RoceWire::MessageWireBytes(huge, 4096),
              RoceWire::MessageWireBytes(huge - (packets - 3) * 4096, 4096) + (packets - 3) * full);
}

} // namespace
