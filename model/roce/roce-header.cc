/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceHeader");
NS_OBJECT_ENSURE_REGISTERED(RoceHeader);

namespace
{

void
WriteMac(Buffer::Iterator& i, uint32_t ip)
{
    // Locally administered unicast MAC carrying the IPv4 address.
    i.WriteU8(0x02);
    i.WriteU8(0x00);
    i.WriteHtonU32(ip);
}

uint16_t
Ipv4Checksum(uint8_t tos, uint16_t totalLength, uint16_t id, uint32_t src, uint32_t dst)
{
    uint32_t sum = (0x45u << 8 | tos) + totalLength + id + 0x4000u + (64u << 8 | 17u) +
                   (src >> 16) + (src & 0xFFFF) + (dst >> 16) + (dst & 0xFFFF);
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum);
}

} // namespace

RoceHeader::RoceHeader() = default;

TypeId
RoceHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHeader")
                            .SetParent<Header>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RoceHeader>();
    return tid;
}

TypeId
RoceHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceHeader::Print(std::ostream& os) const
{
    os << "RoCEv2 " << ((m_srcIp >> 24) & 0xFF) << '.' << ((m_srcIp >> 16) & 0xFF) << '.'
       << ((m_srcIp >> 8) & 0xFF) << '.' << (m_srcIp & 0xFF) << " > " << ((m_dstIp >> 24) & 0xFF)
       << '.' << ((m_dstIp >> 16) & 0xFF) << '.' << ((m_dstIp >> 8) & 0xFF) << '.'
       << (m_dstIp & 0xFF) << " dscp=" << +m_dscp << " ecn=" << +static_cast<uint8_t>(m_ecn)
       << " sport=" << m_srcPort << " opcode=0x" << std::hex << +static_cast<uint8_t>(m_opcode)
       << std::dec << " qp=" << m_destQp << " psn=" << m_psn;
    if (m_opcode == RoceOpcode::ACKNOWLEDGE)
    {
        os << " syndrome=0x" << std::hex << +m_syndrome << std::dec;
    }
}

uint32_t
RoceHeader::GetSerializedSize() const
{
    return SizeOf(m_opcode);
}

void
RoceHeader::Serialize(Buffer::Iterator i) const
{
    const uint32_t ext = SizeOf(m_opcode) - SizeOf(RoceOpcode::WRITE_MIDDLE);
    const uint16_t udpLength =
        static_cast<uint16_t>(RoceWire::kUdp + RoceWire::kBth + ext + m_payloadSize);
    const uint16_t ipLength = static_cast<uint16_t>(RoceWire::kIpv4 + udpLength);
    const uint8_t tos = static_cast<uint8_t>(m_dscp << 2 | static_cast<uint8_t>(m_ecn));

    WriteMac(i, m_dstIp);
    WriteMac(i, m_srcIp);
    i.WriteHtonU16(RoceWire::kEtherTypeIpv4);

    i.WriteU8(0x45);
    i.WriteU8(tos);
    i.WriteHtonU16(ipLength);
    i.WriteHtonU16(m_ipId);
    i.WriteHtonU16(0x4000); // don't fragment
    i.WriteU8(64);          // TTL
    i.WriteU8(17);          // UDP
    i.WriteHtonU16(Ipv4Checksum(tos, ipLength, m_ipId, m_srcIp, m_dstIp));
    i.WriteHtonU32(m_srcIp);
    i.WriteHtonU32(m_dstIp);

    i.WriteHtonU16(m_srcPort);
    i.WriteHtonU16(RoceWire::kUdpPort);
    i.WriteHtonU16(udpLength);
    i.WriteHtonU16(0); // RoCEv2 leaves the UDP checksum zero

    i.WriteU8(static_cast<uint8_t>(m_opcode));
    i.WriteU8(0x40); // SE=0, MigReq=1, pad=0, TVer=0
    i.WriteHtonU16(0xFFFF);
    i.WriteHtonU32(m_destQp); // 8 reserved bits, 24-bit QPN
    i.WriteHtonU32((m_ackReq ? 0x80000000u : 0u) | m_psn);

    switch (m_opcode)
    {
    case RoceOpcode::WRITE_FIRST:
    case RoceOpcode::WRITE_ONLY:
        i.WriteHtonU64(0);      // virtual address
        i.WriteHtonU32(0x1000); // rkey
        i.WriteHtonU32(m_dmaLength);
        break;
    case RoceOpcode::ACKNOWLEDGE:
        i.WriteHtonU32(static_cast<uint32_t>(m_syndrome) << 24 | m_msn);
        break;
    case RoceOpcode::CNP:
        i.WriteHtonU64(0);
        i.WriteHtonU64(0);
        break;
    default:
        break;
    }
}

uint32_t
RoceHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    i.Next(2);
    uint32_t macDst = i.ReadNtohU32();
    i.Next(2);
    uint32_t macSrc = i.ReadNtohU32();
    uint16_t etherType = i.ReadNtohU16();
    NS_ASSERT_MSG(etherType == RoceWire::kEtherTypeIpv4, "not an IPv4 frame");
    (void)etherType;
    i.Next(1); // version / IHL
    uint8_t tos = i.ReadU8();
    m_dscp = tos >> 2;
    m_ecn = static_cast<RoceEcn>(tos & 0x3);
    uint16_t ipLength = i.ReadNtohU16();
    m_ipId = i.ReadNtohU16();
    i.Next(6); // flags, TTL, protocol, checksum
    m_srcIp = i.ReadNtohU32();
    m_dstIp = i.ReadNtohU32();
    NS_ASSERT(m_srcIp == macSrc && m_dstIp == macDst);
    (void)macSrc;
    (void)macDst;
    m_srcPort = i.ReadNtohU16();
    i.Next(6); // destination port, length, checksum
    m_opcode = static_cast<RoceOpcode>(i.ReadU8());
    i.Next(3);
    m_destQp = i.ReadNtohU32() & 0xFFFFFF;
    uint32_t w = i.ReadNtohU32();
    m_ackReq = (w & 0x80000000u) != 0;
    m_psn = w & 0xFFFFFF;
    switch (m_opcode)
    {
    case RoceOpcode::WRITE_FIRST:
    case RoceOpcode::WRITE_ONLY:
        i.Next(12);
        m_dmaLength = i.ReadNtohU32();
        break;
    case RoceOpcode::ACKNOWLEDGE:
        w = i.ReadNtohU32();
        m_syndrome = static_cast<uint8_t>(w >> 24);
        m_msn = w & 0xFFFFFF;
        break;
    case RoceOpcode::CNP:
        i.Next(RoceWire::kCnpPad);
        break;
    default:
        break;
    }
    const uint32_t headerBytes = GetSerializedSize();
    m_payloadSize = RoceWire::kEthernet + ipLength - headerBytes;
    return headerBytes;
}

RoceForwardingInfo
RoceForwardingInfo::Peek(const Ptr<const Packet>& p)
{
    // Offsets in an untagged Ethernet + IPv4 (IHL 5) + UDP frame.
    uint8_t b[38];
    RoceForwardingInfo info;
    info.bytes = p->GetSize();
    uint32_t n = p->CopyData(b, sizeof(b));
    if (n < 14)
    {
        return info;
    }
    info.etherType = static_cast<uint16_t>(b[12] << 8 | b[13]);
    if (info.etherType != RoceWire::kEtherTypeIpv4 || n < sizeof(b))
    {
        return info;
    }
    info.dstPort = static_cast<uint16_t>(b[36] << 8 | b[37]);
    if (info.IsRoce())
    {
        // The whole RoCEv2 header, read once.
        RoceHeader h;
        p->PeekHeader(h);
        info = FromHeader(h);
        NS_ASSERT(info.bytes == p->GetSize());
        return info;
    }
    info.dscp = b[15] >> 2;
    info.ecn = static_cast<RoceEcn>(b[15] & 0x3);
    info.srcIp = static_cast<uint32_t>(b[26]) << 24 | b[27] << 16 | b[28] << 8 | b[29];
    info.dstIp = static_cast<uint32_t>(b[30]) << 24 | b[31] << 16 | b[32] << 8 | b[33];
    info.srcPort = static_cast<uint16_t>(b[34] << 8 | b[35]);
    return info;
}

RoceForwardingInfo
RoceForwardingInfo::FromHeader(const RoceHeader& h)
{
    RoceForwardingInfo info;
    info.etherType = RoceWire::kEtherTypeIpv4;
    info.dscp = h.GetDscp();
    info.ecn = h.GetEcn();
    info.srcIp = h.GetSource();
    info.dstIp = h.GetDestination();
    info.srcPort = h.GetSourcePort();
    info.dstPort = RoceWire::kUdpPort;
    info.bytes = h.GetSerializedSize() + h.GetPayloadSize();
    info.ipId = h.GetIpId();
    info.opcode = h.GetOpcode();
    info.ackRequest = h.GetAckRequest();
    info.destQp = h.GetDestQp();
    info.psn = h.GetPsn();
    // Only what the wire carries, so that fields read back equal fields built.
    switch (h.GetOpcode())
    {
    case RoceOpcode::WRITE_FIRST:
    case RoceOpcode::WRITE_ONLY:
        info.dmaLength = h.GetDmaLength();
        break;
    case RoceOpcode::ACKNOWLEDGE:
        info.syndrome = h.GetSyndrome();
        info.msn = h.GetMsn();
        break;
    default:
        break;
    }
    return info;
}

RoceHeader
RoceForwardingInfo::ToHeader() const
{
    NS_ASSERT_MSG(IsRoce(), "not a RoCEv2 frame");
    RoceHeader h;
    h.SetSource(srcIp);
    h.SetDestination(dstIp);
    h.SetDscp(dscp);
    h.SetEcn(ecn);
    h.SetIpId(ipId);
    h.SetSourcePort(srcPort);
    h.SetOpcode(opcode);
    h.SetDestQp(destQp);
    h.SetPsn(psn);
    h.SetAckRequest(ackRequest);
    h.SetDmaLength(dmaLength);
    if (opcode == RoceOpcode::ACKNOWLEDGE)
    {
        h.SetSyndrome(syndrome);
        h.SetMsn(msn);
    }
    h.SetPayloadSize(bytes - h.GetSerializedSize());
    return h;
}

Ptr<Packet>
RoceForwardingInfo::ToPacket() const
{
    const RoceHeader h = ToHeader();
    Ptr<Packet> p = Create<Packet>(h.GetPayloadSize());
    p->AddHeader(h);
    return p;
}

bool
RoceMarkCe(const Ptr<Packet>& p, RoceForwardingInfo& info)
{
    if (info.ecn == RoceEcn::NOT_ECT)
    {
        return false;
    }
    info.ecn = RoceEcn::CE;
    if (p)
    {
        RoceHeader h;
        p->RemoveHeader(h);
        h.SetEcn(RoceEcn::CE);
        p->AddHeader(h);
    }
    return true;
}

} // namespace ns3
