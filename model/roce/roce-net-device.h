/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NET_DEVICE_H
#define ROCE_NET_DEVICE_H

#include "packet-handoff.h"
#include "ring-queue.h"
#include "roce-channel.h"
#include "roce-header.h"
#include "wake-timer.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>

namespace ns3
{

class RoceArrivalBatch;
class RoceChannel;
class RoceNetDevice;

/**
 * \ingroup collective-scheduling
 * \brief What sits above a RoCE port: the host NIC (RdmaNic) or the switch
 * (RoceSwitch). The port calls it on receive, when it dequeues a packet it
 * queued for it, and, on a host, to pull the next data packet.
 */
class RocePortOwner
{
  public:
    virtual ~RocePortOwner() = default;

    /// A RoCEv2 frame (not PFC) arrived on \p port.
    virtual void HandleReceive(RoceNetDevice* port,
                               Ptr<Packet> p,
                               const RoceForwardingInfo& info) = 0;

    /**
     * A frame queued on \p port is about to be transmitted. \p inPort is the
     * value given to Enqueue. The owner may mark it (RoceMarkCe: \p info, and
     * \p p if the frame has a packet).
     */
    virtual void HandleDequeue(RoceNetDevice* port,
                               uint8_t cls,
                               uint32_t inPort,
                               Ptr<Packet>& p,
                               RoceForwardingInfo& info);

    /**
     * The port is idle and its queues hold nothing it may send: offer the
     * owner to send a data frame in a class not paused.
     * \param pausedMask bit c set when class c is paused
     * \param cls out: the frame's class
     * \param frame out: the frame, by its fields (it has no packet until
     *        something needs its bytes)
     * \return whether there is a frame
     */
    virtual bool PullData(RoceNetDevice* port,
                          uint8_t pausedMask,
                          uint8_t& cls,
                          RoceForwardingInfo& frame);
};

/**
 * \ingroup collective-scheduling
 * \brief A RoCE Ethernet port: 8 priority queues, PFC pause honoured per
 * class, strict priority or DWRR between data classes, and one
 * store-and-forward transmitter whose busy time is kept as a number.
 *
 * Class 7 carries control traffic (ACK, NAK, CNP) and is served first;
 * PFC MAC-control frames bypass every queue and are never paused. A frame
 * occupies the wire for its bytes plus preamble, inter-frame gap and FCS.
 */
class RoceNetDevice : public NetDevice
{
  public:
    static constexpr uint8_t kClasses = 8;
    static constexpr uint8_t kControlClass = 7;

    /// How data classes share the port (plain enum: ns-3.37's EnumValue takes int).
    enum DataScheduling
    {
        STRICT_PRIORITY,
        DWRR,
    };

    static TypeId GetTypeId();
    RoceNetDevice();
    ~RoceNetDevice() override;

    /**
     * Set the component above the port (not owned). \p pullsData: the owner
     * feeds data through PullData, so the port asks again whenever the wire
     * frees up.
     */
    void SetOwner(RocePortOwner* owner, bool pullsData)
    {
        m_owner = owner;
        m_ownerPullsData = pullsData;
    }

    bool Attach(Ptr<RoceChannel> channel);

    Ptr<RoceChannel> GetRoceChannel() const
    {
        return m_channel;
    }

    DataRate GetDataRate() const
    {
        return m_rate;
    }

    void SetDataRate(DataRate rate);

    /**
     * Queue the frame (\p info, and \p p if it has a packet yet) in class
     * \p cls for transmission; \p inPort is handed back to the owner at
     * dequeue (the switch's ingress port for its MMU). The fields travel
     * with the frame to the next hop, so no hop reads the packet's bytes.
     */
    void Enqueue(Ptr<Packet> p, uint8_t cls, uint32_t inPort, const RoceForwardingInfo& info);

    /// Queue a frame the owner built by its fields alone (no packet yet).
    void Enqueue(const RoceForwardingInfo& frame, uint8_t cls);

    /// Send a PFC frame ahead of every queue.
    void SendPfc(Ptr<Packet> pfcFrame);

    /// Try to start a transmission now (the owner has something new to send).
    void TrySend();

    /// Called by the channel when the last bit of \p p has arrived.
    void Receive(Ptr<Packet> p);

    /// Receive with the frame's forwarding fields, as the sending port knew them.
    void Receive(Ptr<Packet> p, const RoceForwardingInfo& info);

    /**
     * Take in frame \p p: receive errors, sniffers, PFC, then the owner.
     * Receive calls it at once or, with RoceCanonicalArrivals, through the
     * node's RoceArrivalBatch.
     */
    void ProcessFrame(Ptr<Packet> p, const RoceForwardingInfo& info);

    /// Frames the receive error model dropped.
    uint64_t GetReceiveErrors() const
    {
        return m_receiveErrors;
    }

    /// Bytes queued in class \p cls.
    uint64_t GetQueueBytes(uint8_t cls) const
    {
        return m_queueBytes[cls];
    }

    uint64_t GetTotalQueueBytes() const;

    /// Largest total bytes this port ever held queued.
    uint64_t GetMaxQueueBytes() const
    {
        return m_maxQueueBytes;
    }

    bool IsPaused(uint8_t cls) const;

    /// Time class \p cls has been held by PFC so far (pauses received, until
    /// resumed or expired).
    Time GetPausedTime(uint8_t cls) const;

    /// No class is paused from this time on (for monitors that skip a quiet port).
    Time GetPauseHorizon() const
    {
        return m_pauseHorizon;
    }

    uint64_t GetPfcFramesReceived() const
    {
        return m_pfcReceived;
    }

    uint64_t GetPfcFramesSent() const
    {
        return m_pfcSent;
    }

    /// Time needed to put a frame of \p packetBytes on the wire.
    Time GetTxTime(uint32_t packetBytes) const;

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

    /// Trace signature of Enqueue/Dequeue: packet, class.
    typedef void (*QueueTracedCallback)(Ptr<const Packet> p, uint8_t cls);

    /// Trace signature of TransmitFrame: the frame's fields.
    typedef void (*FrameTracedCallback)(const RoceForwardingInfo& frame);

  protected:
    void DoDispose() override;

  private:
    /**
     * A queued frame. It holds one reference to its packet as a plain
     * pointer, so the ring copies it as bytes and the packet's memory is not
     * touched from Enqueue to Dequeue (see packet-handoff.h).
     */
    struct Item
    {
        Packet* packet; ///< null until something needed the frame's bytes
        RoceForwardingInfo info;
        uint32_t inPort;
    };

    /// Pick the next frame allowed on the wire; false if none.
    bool Dequeue(Ptr<Packet>& p, uint8_t& cls, RoceForwardingInfo& info, Time now);
    bool DequeueDataClass(uint8_t& cls, Time now);
    bool HasQueued() const;
    void ScheduleWake(Time at, Time now);
    void Wake();
    void PauseExpired();
    void HandlePfc(Ptr<Packet> p);
    uint8_t PausedMask(Time now) const;

    // What every hop reads or writes comes first, together, so that a hop
    // through a port whose lines were evicted since its last frame misses on
    // as few of them as possible (at k=16 a hop's cost is its misses).
    RocePortOwner* m_owner{nullptr};
    RoceArrivalBatch* m_arrivalBatch{nullptr}; ///< the node's, with RoceCanonicalArrivals
    Ptr<RoceChannel> m_channel;
    Ptr<ErrorModel> m_receiveErrorModel;
    Time m_txFreeAt{0};
    uint64_t m_totalQueued{0};
    uint64_t m_maxQueueBytes{0};
    uint64_t m_wholePsPerByte{80}; ///< m_psPerByte when a whole number, else 0
    double m_psPerByte{80.0};
    Time m_pauseHorizon{0};         ///< no class is paused from this time on
    uint32_t m_macControlQueued{0}; ///< m_macControl.size(), read without touching the deque
    DataScheduling m_scheduling{DataScheduling::STRICT_PRIORITY};
    uint8_t m_nonEmpty{0}; ///< bit c set while class c has packets queued
    bool m_ownerPullsData{false};
    TracedCallback<Ptr<const Packet>, uint8_t> m_enqueueTrace;
    TracedCallback<Ptr<const Packet>, uint8_t> m_dequeueTrace;
    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    TracedCallback<Ptr<const Packet>> m_promiscSnifferTrace;
    TracedCallback<Ptr<const Packet>> m_txTrace;
    TracedCallback<const RoceForwardingInfo&> m_txFrameTrace;
    std::array<uint64_t, kClasses> m_queueBytes{};
    WakeTimer m_wake;
    std::array<RingQueue<Item>, kClasses> m_queues;

    Ptr<Node> m_node;
    uint32_t m_ifIndex{0};
    Mac48Address m_address;
    uint16_t m_mtu{9000};
    DataRate m_rate{"100Gbps"};
    uint32_t m_dwrrQuantum{9000};
    std::deque<Ptr<Packet>> m_macControl;
    std::array<int64_t, kClasses> m_deficit{};
    uint8_t m_dwrrNext{0};
    bool m_dwrrCredited{false};
    std::array<Time, kClasses> m_pausedUntil{};
    /// Per class: paused time counted through m_pausedUntil (what is ahead of now included).
    std::array<Time, kClasses> m_pausedThroughUntil{};
    uint64_t m_pfcReceived{0};
    uint64_t m_pfcSent{0};
    uint64_t m_receiveErrors{0};
    TracedCallback<Ptr<const Packet>> m_pfcRxTrace;
    TracedCallback<Ptr<const Packet>> m_pfcTxTrace;
    TracedCallback<Ptr<const Packet>> m_rxDropTrace;
};

} // namespace ns3

#endif /* ROCE_NET_DEVICE_H */
