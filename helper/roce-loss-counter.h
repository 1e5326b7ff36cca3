/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_LOSS_COUNTER_H
#define ROCE_LOSS_COUNTER_H

#include "roce-fabric-helper.h"

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Where a frame was lost.
 */
enum class RoceLossCause : uint8_t
{
    BUFFER,    ///< refused by a switch's shared buffer (lossy class or PFC off)
    ERROR,     ///< dropped by a port's receive error model (ns-3 ErrorModel)
    LINK_DOWN, ///< on the wire, or sent, while its link was down
};

constexpr std::size_t kRoceLossCauses = 3;

/**
 * \ingroup collective-scheduling
 * \brief Counts every frame a RoceFabric loses, by cause, per link and per
 * message, and the payload bytes each message sent again, through trace
 * sources only (switch Drop, port PhyRxDrop, channel LinkDownDrop, NIC
 * Retransmit). A lost data frame is charged to its message (the receiver's
 * queue pair names it); ACKs, NAKs, CNPs and PFC frames count on links only.
 * Messages that never complete are counted like the others.
 */
class RoceLossCounter
{
  public:
    /// Bytes and frames lost, by cause (index: RoceLossCause).
    struct Losses
    {
        std::array<uint64_t, kRoceLossCauses> bytes{};
        std::array<uint64_t, kRoceLossCauses> frames{};

        uint64_t TotalBytes() const
        {
            return bytes[0] + bytes[1] + bytes[2];
        }
    };

    /// Connects to every switch, port, link and NIC of \p fabric; must outlive the run.
    explicit RoceLossCounter(Ptr<RoceFabric> fabric);

    /// Losses on link \p linkId (both directions; buffer drops by ingress port).
    const Losses& GetLink(uint32_t linkId) const
    {
        return m_links.at(linkId);
    }

    /// Losses of message \p flowId's data frames (frame bytes); zero if none.
    Losses GetFlow(uint64_t flowId) const;

    /// Payload bytes message \p flowId sent more than once.
    uint64_t GetRetransmittedBytes(uint64_t flowId) const;

    /// Losses over the whole fabric.
    Losses GetTotal() const;

    /// Payload bytes sent more than once, over every message.
    uint64_t GetTotalRetransmittedBytes() const;

    /// \return "buffer", "error model" or "link down"
    static const char* Name(RoceLossCause cause);

  private:
    void Lost(uint32_t linkId, RoceLossCause cause, const Ptr<const Packet>& p);

    Ptr<RoceFabric> m_fabric;
    std::vector<Losses> m_links;                   ///< by link id
    std::unordered_map<uint64_t, Losses> m_flows;  ///< by flow id, flows that lost frames
    std::unordered_map<uint64_t, uint64_t> m_retx; ///< by flow id, flows that resent
};

} // namespace ns3

#endif /* ROCE_LOSS_COUNTER_H */
