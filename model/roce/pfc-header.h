/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PFC_HEADER_H
#define PFC_HEADER_H

#include "ns3/header.h"

#include <array>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief An IEEE 802.1Qbb priority-based flow control frame: an Ethernet
 * MAC-control frame (EtherType 0x8808, opcode 0x0101) to 01:80:C2:00:00:01
 * with a class-enable vector and one pause time per priority, in quanta of
 * 512 bit times. A quanta of zero for an enabled class is a RESUME.
 * Padded to the 60-byte Ethernet minimum.
 */
class PfcHeader : public Header
{
  public:
    static constexpr uint32_t kClasses = 8;
    static constexpr uint16_t kOpcode = 0x0101;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// Source MAC of the frame, as the sending port's 48-bit address.
    void SetSourceMac(uint64_t mac)
    {
        m_srcMac = mac;
    }

    /// Enable class \p cls with pause time \p quanta (0 = resume).
    void SetQuanta(uint8_t cls, uint16_t quanta);

    bool IsEnabled(uint8_t cls) const
    {
        return (m_classEnable >> cls) & 1;
    }

    uint16_t GetQuanta(uint8_t cls) const
    {
        return m_quanta[cls];
    }

    uint16_t GetClassEnableVector() const
    {
        return m_classEnable;
    }

  private:
    uint64_t m_srcMac{0};
    uint16_t m_classEnable{0};
    std::array<uint16_t, kClasses> m_quanta{};
};

} // namespace ns3

#endif /* PFC_HEADER_H */
