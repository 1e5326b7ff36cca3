/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pfc-header.h"

#include "roce-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "PFC";
    for (uint8_t c = 0; c < kClasses; ++c)
    {
        if (IsEnabled(c))
        {
            os << " c" << +c << '=' << m_quanta[c];
        }
    }
}

void
PfcHeader::SetQuanta(uint8_t cls, uint16_t quanta)
{
    m_classEnable |= static_cast<uint16_t>(1u << cls);
    m_quanta[cls] = quanta;
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return RoceWire::kMinFrame;
}

void
PfcHeader::Serialize(Buffer::Iterator i) const
{
    // 01:80:C2:00:00:01, the reserved MAC-control multicast address.
    i.WriteU8(0x01);
    i.WriteU8(0x80);
    i.WriteU8(0xC2);
    i.WriteU8(0x00);
    i.WriteU8(0x00);
    i.WriteU8(0x01);
    for (int shift = 40; shift >= 0; shift -= 8)
    {
        i.WriteU8(static_cast<uint8_t>(m_srcMac >> shift));
    }
    i.WriteHtonU16(RoceWire::kEtherTypeMacControl);
    i.WriteHtonU16(kOpcode);
    i.WriteHtonU16(m_classEnable);
    for (uint16_t q : m_quanta)
    {
        i.WriteHtonU16(q);
    }
    i.WriteU8(0, RoceWire::kMinFrame - 14 - 4 - 2 * kClasses);
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    i.Next(6);
    m_srcMac = 0;
    for (int k = 0; k < 6; ++k)
    {
        m_srcMac = m_srcMac << 8 | i.ReadU8();
    }
    i.Next(4); // EtherType, opcode
    m_classEnable = i.ReadNtohU16();
    for (auto& q : m_quanta)
    {
        q = i.ReadNtohU16();
    }
    return RoceWire::kMinFrame;
}

} // namespace ns3
