/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

#include "roce-header.h"

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class RoceNetDevice;

/**
 * \ingroup collective-scheduling
 * \brief A full-duplex point-to-point link between two RoCE ports.
 *
 * The channel only carries packets: it schedules the far end's receive at
 * the time the last bit arrives (transmission time + propagation delay), one
 * event per packet-hop. Packets travel as serialized bytes and the channel
 * holds no state of either end beyond the device pointers, so a remote
 * variant can deliver across processes the way PointToPointRemoteChannel does.
 */
class RoceChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    RoceChannel();

    /// Connect \p device as end 0 or 1 (in attach order).
    void Attach(Ptr<RoceNetDevice> device);

    /**
     * Put \p p on the wire from \p src; it arrives at the other end after
     * \p txTime + delay. Its forwarding fields \p info go with it, so the
     * next hop need not read them from the bytes (which stay the frame).
     */
    virtual void Transmit(Ptr<Packet> p,
                          RoceNetDevice* src,
                          Time txTime,
                          const RoceForwardingInfo& info);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    Ptr<RoceNetDevice> GetRoceDevice(std::size_t i) const;

    Time GetDelay() const
    {
        return m_delay;
    }

    /// Frames carried from end \p i to the other end, and their bytes (frame bytes, no preamble).
    uint64_t GetTxPackets(std::size_t i) const
    {
        return m_txPackets[i];
    }

    uint64_t GetTxBytes(std::size_t i) const
    {
        return m_txBytes[i];
    }

    /// Frames that crossed any RoceChannel since the simulation started (packet-hops).
    static uint64_t GetTotalPacketHops();

    /// Of those, data frames (RoCEv2 frames outside the control class: not ACK, NAK, CNP or PFC).
    static uint64_t GetTotalDataHops();

    /// Bytes of all those frames (frame bytes, no preamble).
    static uint64_t GetTotalLinkBytes();
    /**
     * Take the link down from \p down until \p up (both absolute times;
     * Time::Max() for never back up). A frame is lost when its time on the
     * wire, from the start of its transmission to its arrival, overlaps the
     * outage: frames in flight at \p down and every frame sent before \p up.
     * Outages may be added in any order; overlapping ones merge.
     */
    void AddOutage(Time down, Time up);

    /// Frames from end \p i lost to outages, and their bytes (frame bytes).
    uint64_t GetLinkDownPackets(std::size_t i) const
    {
        return m_downPackets[i];
    }

    uint64_t GetLinkDownBytes(std::size_t i) const
    {
        return m_downBytes[i];
    }

    /// Trace signature of LinkDownDrop: the frame, the end (0 or 1) that sent it.
    typedef void (*LinkDownDropCallback)(Ptr<const Packet> p, uint32_t end);

  protected:
    /**
     * Deliver \p p, whose forwarding fields are \p info, to end \p to after
     * \p delay; overridable for a remote end.
     */
    virtual void Deliver(Ptr<Packet> p, std::size_t to, Time delay, const RoceForwardingInfo& info);

    Time m_delay;
    Ptr<RoceNetDevice> m_devices[2];
    uint32_t m_nodeIds[2]{0, 0};
    std::size_t m_nDevices{0};
    uint64_t m_txPackets[2]{0, 0};
    uint64_t m_txBytes[2]{0, 0};

  private:
    /// Does a frame on the wire from now for \p onWire meet an outage?
    bool MeetsOutage(Time onWire);

    /// Outages not yet over, by start time, disjoint; empty on a healthy link.
    std::vector<std::pair<Time, Time>> m_outages;
    uint64_t m_downPackets[2]{0, 0};
    uint64_t m_downBytes[2]{0, 0};
    TracedCallback<Ptr<const Packet>, uint32_t> m_linkDownDropTrace;
};

} // namespace ns3

#endif /* ROCE_CHANNEL_H */
