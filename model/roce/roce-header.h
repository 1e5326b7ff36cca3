/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HEADER_H
#define ROCE_HEADER_H

#include "ns3/header.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <algorithm>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Base Transport Header opcodes used by the model (RC transport).
 */
enum class RoceOpcode : uint8_t
{
    WRITE_FIRST = 0x06,
    WRITE_MIDDLE = 0x07,
    WRITE_LAST = 0x08,
    WRITE_ONLY = 0x0A,
    ACKNOWLEDGE = 0x11,
    CNP = 0x81, ///< RoCEv2 congestion notification packet
};

/// ECN codepoints of the IPv4 TOS byte.
enum class RoceEcn : uint8_t
{
    NOT_ECT = 0,
    ECT1 = 1,
    ECT0 = 2,
    CE = 3,
};

/// Sizes of the RoCEv2 frame on the wire.
namespace RoceWire
{
constexpr uint32_t kEthernet = 14;
constexpr uint32_t kIpv4 = 20;
constexpr uint32_t kUdp = 8;
constexpr uint32_t kBth = 12;
constexpr uint32_t kReth = 16;
constexpr uint32_t kAeth = 4;
constexpr uint32_t kCnpPad = 16;
constexpr uint32_t kIcrc = 4;
/// Preamble and SFD (8), inter-frame gap (12) and FCS (4): occupy the wire, not the packet.
constexpr uint32_t kFrameOverhead = 24;
/// Ethernet minimum frame without FCS.
constexpr uint32_t kMinFrame = 60;
constexpr uint16_t kUdpPort = 4791;
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint16_t kEtherTypeMacControl = 0x8808;
/// The RoCE path MTU AI clusters run: RDMA payload bytes per full data packet.
constexpr uint32_t kDefaultMtu = 4096;

/**
 * \return true if \p mtu is a RoCE path MTU (IB MTU enumeration 256, 512,
 * 1024, 2048, 4096: the payload of a full packet, headers excluded).
 */
inline bool
IsPathMtu(uint32_t mtu)
{
    return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

/// What IsPathMtu accepts, for error messages.
constexpr const char* kPathMtus = "a RoCE path MTU: 256, 512, 1024, 2048 or 4096";

/// Bytes a frame of \p packetBytes occupies on the wire.
inline uint32_t
WireBytes(uint32_t packetBytes)
{
    return (packetBytes < kMinFrame ? kMinFrame : packetBytes) + kFrameOverhead;
}

/**
 * Wire bytes of a whole RDMA WRITE of \p bytes split into \p payloadPerPacket
 * packets. In closed form (the first packet carries the RETH, every full
 * packet costs the same, the last one the rest): the cost of a message of
 * any size is bounded, where a loop per packet would keep a huge message's
 * event from ending.
 */
inline uint64_t
MessageWireBytes(uint64_t bytes, uint32_t payloadPerPacket)
{
    const uint32_t headers = kEthernet + kIpv4 + kUdp + kBth + kIcrc;
    const uint64_t packets = bytes == 0 ? 1 : (bytes + payloadPerPacket - 1) / payloadPerPacket;
    const uint64_t lastPayload = bytes - (packets - 1) * payloadPerPacket;
    if (packets == 1)
    {
        return WireBytes(static_cast<uint32_t>(headers + kReth + lastPayload));
    }
    return WireBytes(headers + kReth + payloadPerPacket) +
           (packets - 2) * WireBytes(headers + payloadPerPacket) +
           WireBytes(static_cast<uint32_t>(headers + lastPayload));
}
} // namespace RoceWire

/**
 * \ingroup collective-scheduling
 * \brief A RoCEv2 frame's headers: Ethernet, IPv4, UDP (port 4791) and the
 * InfiniBand BTH, with RETH on the first packet of an RDMA WRITE, AETH on
 * ACK/NAK and the reserved bytes of a CNP.
 *
 * One Header object serializes the whole stack so that a frame costs one
 * AddHeader. The payload that follows carries the 4-byte ICRC at its end;
 * SetPayloadSize() must count it, since it sets the IP and UDP lengths.
 * MAC addresses are derived from the IPv4 addresses (02:00:a.b.c.d); the
 * switches model L3 forwarding without rewriting them.
 */
class RoceHeader : public Header
{
  public:
    RoceHeader();
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    void SetSource(uint32_t ip)
    {
        m_srcIp = ip;
    }

    void SetDestination(uint32_t ip)
    {
        m_dstIp = ip;
    }

    uint32_t GetSource() const
    {
        return m_srcIp;
    }

    uint32_t GetDestination() const
    {
        return m_dstIp;
    }

    /// The IPv4 DSCP; the model maps it to the priority class (DSCP = class).
    void SetDscp(uint8_t dscp)
    {
        m_dscp = dscp;
    }

    uint8_t GetDscp() const
    {
        return m_dscp;
    }

    void SetEcn(RoceEcn ecn)
    {
        m_ecn = ecn;
    }

    RoceEcn GetEcn() const
    {
        return m_ecn;
    }

    void SetIpId(uint16_t id)
    {
        m_ipId = id;
    }

    uint16_t GetIpId() const
    {
        return m_ipId;
    }

    void SetSourcePort(uint16_t port)
    {
        m_srcPort = port;
    }

    uint16_t GetSourcePort() const
    {
        return m_srcPort;
    }

    void SetOpcode(RoceOpcode op)
    {
        m_opcode = op;
    }

    RoceOpcode GetOpcode() const
    {
        return m_opcode;
    }

    void SetDestQp(uint32_t qpn)
    {
        m_destQp = qpn & 0xFFFFFF;
    }

    uint32_t GetDestQp() const
    {
        return m_destQp;
    }

    void SetPsn(uint32_t psn)
    {
        m_psn = psn & 0xFFFFFF;
    }

    uint32_t GetPsn() const
    {
        return m_psn;
    }

    void SetAckRequest(bool ack)
    {
        m_ackReq = ack;
    }

    bool GetAckRequest() const
    {
        return m_ackReq;
    }

    /// RETH DMA length: the message size, on WRITE_FIRST / WRITE_ONLY.
    void SetDmaLength(uint32_t len)
    {
        m_dmaLength = len;
    }

    uint32_t GetDmaLength() const
    {
        return m_dmaLength;
    }

    /// AETH syndrome: kAck or kNakSequenceError.
    void SetSyndrome(uint8_t s)
    {
        m_syndrome = s;
    }

    uint8_t GetSyndrome() const
    {
        return m_syndrome;
    }

    void SetMsn(uint32_t msn)
    {
        m_msn = msn & 0xFFFFFF;
    }

    uint32_t GetMsn() const
    {
        return m_msn;
    }

    /// Bytes after the headers, ICRC included.
    void SetPayloadSize(uint32_t bytes)
    {
        m_payloadSize = bytes;
    }

    uint32_t GetPayloadSize() const
    {
        return m_payloadSize;
    }

    bool IsData() const
    {
        return static_cast<uint8_t>(m_opcode) <= 0x0A;
    }

    /// Bytes of the headers (Ethernet to BTH and its extension) of a \p op frame.
    static constexpr uint32_t SizeOf(RoceOpcode op)
    {
        const uint32_t base =
            RoceWire::kEthernet + RoceWire::kIpv4 + RoceWire::kUdp + RoceWire::kBth;
        switch (op)
        {
        case RoceOpcode::WRITE_FIRST:
        case RoceOpcode::WRITE_ONLY:
            return base + RoceWire::kReth;
        case RoceOpcode::ACKNOWLEDGE:
            return base + RoceWire::kAeth;
        case RoceOpcode::CNP:
            return base + RoceWire::kCnpPad;
        default:
            return base;
        }
    }

    static constexpr uint8_t kAck = 0x1F;              ///< ACK, credits field "invalid"
    static constexpr uint8_t kNakSequenceError = 0x60; ///< NAK, PSN sequence error

  private:
    uint32_t m_srcIp{0};
    uint32_t m_dstIp{0};
    uint32_t m_payloadSize{0};
    uint32_t m_destQp{0};
    uint32_t m_psn{0};
    uint32_t m_dmaLength{0};
    uint32_t m_msn{0};
    uint16_t m_ipId{0};
    uint16_t m_srcPort{0};
    uint8_t m_dscp{0};
    RoceEcn m_ecn{RoceEcn::NOT_ECT};
    RoceOpcode m_opcode{RoceOpcode::WRITE_ONLY};
    uint8_t m_syndrome{kAck};
    bool m_ackReq{false};
};

/**
 * \ingroup collective-scheduling
 * \brief A frame as the fabric moves it: the fields a switch forwards on,
 * the frame's size, and for a RoCEv2 frame the rest of its header, so that
 * the frame needs no ns-3 Packet at all.
 *
 * A NIC describes the frames it builds by these fields alone; they travel
 * through ports, queues and links beside a packet pointer that stays null
 * until something needs the bytes (a trace or pcap with listeners, an error
 * model, a link to another MPI rank), which then builds the packet from
 * the fields (ToPacket) and carries it on. Frames that start as packets
 * (PFC, frames from another rank, tests) are read once with Peek.
 */
struct RoceForwardingInfo
{
    uint16_t etherType{0};
    uint8_t dscp{0};
    RoceEcn ecn{RoceEcn::NOT_ECT};
    uint32_t srcIp{0};
    uint32_t dstIp{0};
    uint16_t srcPort{0};
    uint16_t dstPort{0};
    uint32_t bytes{0}; ///< the frame's size (Packet::GetSize)

    // The rest of a RoCEv2 frame's header (UDP destination port 4791).
    uint16_t ipId{0};
    RoceOpcode opcode{RoceOpcode::WRITE_ONLY};
    uint8_t syndrome{0}; ///< AETH, on ACKNOWLEDGE
    bool ackRequest{false};
    uint32_t destQp{0};
    uint32_t psn{0};
    uint32_t dmaLength{0}; ///< RETH, on WRITE_FIRST and WRITE_ONLY
    uint32_t msn{0};       ///< AETH, on ACKNOWLEDGE

    /// Read the fields of \p p.
    static RoceForwardingInfo Peek(const Ptr<const Packet>& p);

    /// The fields of a frame made of header \p h and its payload.
    static RoceForwardingInfo FromHeader(const RoceHeader& h);

    /// The RoCEv2 header these fields describe.
    RoceHeader ToHeader() const;

    /// Whether the fields describe a RoCEv2 frame, which ToPacket can build.
    bool IsRoce() const
    {
        return etherType == RoceWire::kEtherTypeIpv4 && dstPort == RoceWire::kUdpPort;
    }

    /// The frame as an ns-3 packet, byte for byte as its sender would build it.
    Ptr<Packet> ToPacket() const;

    bool operator==(const RoceForwardingInfo& o) const
    {
        return etherType == o.etherType && dscp == o.dscp && ecn == o.ecn && srcIp == o.srcIp &&
               dstIp == o.dstIp && srcPort == o.srcPort && dstPort == o.dstPort &&
               bytes == o.bytes && ipId == o.ipId && opcode == o.opcode && syndrome == o.syndrome &&
               ackRequest == o.ackRequest && destQp == o.destQp && psn == o.psn &&
               dmaLength == o.dmaLength && msn == o.msn;
    }
};

/// Give the frame \p info describes its packet, if it has none yet.
inline void
RoceMaterialize(Ptr<Packet>& p, const RoceForwardingInfo& info)
{
    if (!p)
    {
        p = info.ToPacket();
    }
}

/**
 * Fire a packet trace source with the frame (\p p, \p info) if anything
 * listens: the frame then gets its packet, which it keeps from here on; a
 * trace nobody listens to costs no packet and no reference count change.
 */
template <typename... Args, typename... Values>
inline void
RoceFire(const TracedCallback<Ptr<const Packet>, Args...>& trace,
         Ptr<Packet>& p,
         const RoceForwardingInfo& info,
         Values... args)
{
    if (!trace.IsEmpty())
    {
        RoceMaterialize(p, info);
        trace(p, args...);
    }
}

/**
 * Mark a RoCEv2 frame CE: \p info, and \p p's ECN field and IPv4 checksum
 * when the frame has a packet.
 * \return true if the frame was ECN-capable and is now marked
 */
bool RoceMarkCe(const Ptr<Packet>& p, RoceForwardingInfo& info);

/// The model's IPv4 address of host index \p hostIndex (10.0.0.0/8, from 10.0.0.1).
inline uint32_t
RoceHostAddress(uint32_t hostIndex)
{
    return 0x0A000001u + hostIndex;
}

/// Inverse of RoceHostAddress.
inline uint32_t
RoceHostIndex(uint32_t address)
{
    return address - 0x0A000001u;
}

} // namespace ns3

#endif /* ROCE_HEADER_H */
