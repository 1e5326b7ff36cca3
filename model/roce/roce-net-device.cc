/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-net-device.h"

#include "pfc-header.h"
#include "roce-arrival-batch.h"
#include "roce-channel.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDevice");
NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

void
RocePortOwner::HandleDequeue(RoceNetDevice* /* port */,
                             uint8_t /* cls */,
                             uint32_t /* inPort */,
                             Ptr<Packet>& /* p */,
                             RoceForwardingInfo& /* info */)
{
}

bool
RocePortOwner::PullData(RoceNetDevice* /* port */,
                        uint8_t /* pausedMask */,
                        uint8_t& /* cls */,
                        RoceForwardingInfo& /* frame */)
{
    return false;
}

TypeId
RoceNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<RoceNetDevice>()
            .AddAttribute(
                "DataRate",
                "Line rate of the port.",
                DataRateValue(DataRate("100Gbps")),
                MakeDataRateAccessor(&RoceNetDevice::SetDataRate, &RoceNetDevice::GetDataRate),
                MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest frame the port carries, in bytes (Ethernet header included).",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&RoceNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>(64))
            .AddAttribute("DataScheduling",
                          "How the port serves data classes 0-6: strict priority (higher class "
                          "first) or deficit weighted round robin.",
                          EnumValue(STRICT_PRIORITY),
                          MakeEnumAccessor(&RoceNetDevice::m_scheduling),
                          MakeEnumChecker(STRICT_PRIORITY, "StrictPriority", DWRR, "Dwrr"))
            .AddAttribute("DwrrQuantum",
                          "Bytes credited to a data class per DWRR round.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&RoceNetDevice::m_dwrrQuantum),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("ReceiveErrorModel",
                          "Drops received frames (link errors, or chosen losses in tests).",
                          PointerValue(),
                          MakePointerAccessor(&RoceNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("PhyRxDrop",
                            "A received frame was dropped by the receive error model.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_rxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Enqueue",
                            "A packet was queued in a class.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_enqueueTrace),
                            "ns3::RoceNetDevice::QueueTracedCallback")
            .AddTraceSource("Dequeue",
                            "A queued packet started transmission.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_dequeueTrace),
                            "ns3::RoceNetDevice::QueueTracedCallback")
            .AddTraceSource("PfcReceived",
                            "A PFC frame arrived.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcSent",
                            "A PFC frame was transmitted.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Sniffer",
                            "Every frame sent or received (for pcap).",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PromiscSniffer",
                            "Every frame sent or received (for pcap).",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_promiscSnifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Transmit",
                            "A frame (data, control or PFC) starts onto the wire.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_txTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("TransmitFrame",
                            "A frame starts onto the wire, given by its fields: what Transmit "
                            "reports without building the frame's packet.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_txFrameTrace),
                            "ns3::RoceNetDevice::FrameTracedCallback");
    return tid;
}

RoceNetDevice::RoceNetDevice() = default;

RoceNetDevice::~RoceNetDevice() = default;

void
RoceNetDevice::DoDispose()
{
    m_wake.Cancel();
    m_node = nullptr;
    m_channel = nullptr;
    m_owner = nullptr;
    m_receiveErrorModel = nullptr;
    m_macControl.clear();
    m_macControlQueued = 0;
    for (auto& q : m_queues)
    {
        for (std::size_t i = 0; i < q.size(); ++i)
        {
            if (Packet* p = q.at(i).packet)
            {
                p->Unref(); // the queue's reference
            }
        }
        q.clear();
    }
    m_nonEmpty = 0;
    NetDevice::DoDispose();
}

void
RoceNetDevice::SetDataRate(DataRate rate)
{
    m_rate = rate;
    m_psPerByte = 8e12 / static_cast<double>(rate.GetBitRate());
    // Common rates give whole picoseconds per byte: then no rounding call per frame.
    const uint64_t bps = rate.GetBitRate();
    m_wholePsPerByte = (bps > 0 && 8000000000000ULL % bps == 0) ? 8000000000000ULL / bps : 0;
}

Time
RoceNetDevice::GetTxTime(uint32_t packetBytes) const
{
    if (m_wholePsPerByte != 0)
    {
        return PicoSeconds(
            static_cast<int64_t>(RoceWire::WireBytes(packetBytes) * m_wholePsPerByte));
    }
    return PicoSeconds(std::llround(RoceWire::WireBytes(packetBytes) * m_psPerByte));
}

bool
RoceNetDevice::Attach(Ptr<RoceChannel> channel)
{
    m_channel = channel;
    channel->Attach(this);
    return true;
}

void
RoceNetDevice::Enqueue(const RoceForwardingInfo& frame, uint8_t cls)
{
    Enqueue(Ptr<Packet>(), cls, 0, frame);
}

void
RoceNetDevice::Enqueue(Ptr<Packet> p, uint8_t cls, uint32_t inPort, const RoceForwardingInfo& info)
{
    NS_ASSERT(cls < kClasses);
    NS_ASSERT_MSG(!p || info == RoceForwardingInfo::Peek(p),
                  "forwarding fields differ from the frame");
    // The size travels in info: a switch hop does not read the packet.
    const uint32_t bytes = info.bytes;
    RoceFire(m_enqueueTrace, p, info, cls);
    m_queues[cls].push_back(Item{ReleaseRef(p), info, inPort});
    m_nonEmpty |= static_cast<uint8_t>(1u << cls);
    m_queueBytes[cls] += bytes;
    m_totalQueued += bytes;
    if (m_totalQueued > m_maxQueueBytes)
    {
        m_maxQueueBytes = m_totalQueued;
    }
    TrySend();
}

void
RoceNetDevice::SendPfc(Ptr<Packet> pfcFrame)
{
    m_macControl.push_back(std::move(pfcFrame));
    ++m_macControlQueued;
    TrySend();
}

uint64_t
RoceNetDevice::GetTotalQueueBytes() const
{
    return m_totalQueued;
}

bool
RoceNetDevice::IsPaused(uint8_t cls) const
{
    return Simulator::Now() < m_pausedUntil[cls];
}

uint8_t
RoceNetDevice::PausedMask(Time now) const
{
    if (now >= m_pauseHorizon)
    {
        return 0; // the common case: nothing paused
    }
    uint8_t mask = 0;
    for (uint8_t c = 0; c < kClasses; ++c)
    {
        if (now < m_pausedUntil[c])
        {
            mask |= static_cast<uint8_t>(1u << c);
        }
    }
    return mask;
}

bool
RoceNetDevice::HasQueued() const
{
    return m_macControlQueued > 0 || m_totalQueued > 0;
}

void
RoceNetDevice::ScheduleWake(Time at, Time now)
{
    if (m_wake.Covers(at))
    {
        return; // the hint below is only worth finding for a new wake-up
    }
    // The frame the wake-up will most likely send: the head of the highest
    // class with frames (a deep queue's head was written long ago).
    const void* head = nullptr;
    if (m_nonEmpty != 0)
    {
        head = &m_queues[31 - __builtin_clz(m_nonEmpty)].front();
    }
    m_wake.RequestAt(at, now, &RoceNetDevice::Wake, this, head);
}

void
RoceNetDevice::Wake()
{
    m_wake.Fired();
    TrySend();
}

void
RoceNetDevice::PauseExpired()
{
    TrySend();
}

bool
RoceNetDevice::DequeueDataClass(uint8_t& cls, Time now)
{
    if (m_scheduling == STRICT_PRIORITY)
    {
        // The highest data class with packets and no pause.
        const unsigned ready = m_nonEmpty & ~PausedMask(now) & ((1u << kControlClass) - 1);
        if (ready == 0)
        {
            return false;
        }
        cls = static_cast<uint8_t>(31 - __builtin_clz(ready));
        return true;
    }
    // DWRR: the class under the pointer is credited one quantum when the
    // pointer arrives and sends while its deficit covers the head packet;
    // then the pointer moves on. An empty class loses its deficit.
    for (uint32_t visits = 0; visits < 2u * kControlClass + 1; ++visits)
    {
        const uint8_t c = m_dwrrNext;
        const bool empty = m_queues[c].empty();
        if (!empty && now >= m_pausedUntil[c])
        {
            if (!m_dwrrCredited)
            {
                m_deficit[c] += m_dwrrQuantum;
                m_dwrrCredited = true;
            }
            const uint32_t head = m_queues[c].front().info.bytes;
            if (m_deficit[c] >= static_cast<int64_t>(head))
            {
                m_deficit[c] -= head;
                cls = c;
                return true;
            }
        }
        else if (empty)
        {
            m_deficit[c] = 0;
        }
        m_dwrrNext = static_cast<uint8_t>((c + 1) % kControlClass);
        m_dwrrCredited = false;
    }
    return false;
}

bool
RoceNetDevice::Dequeue(Ptr<Packet>& p, uint8_t& cls, RoceForwardingInfo& info, Time now)
{
    if (m_macControlQueued > 0)
    {
        p = std::move(m_macControl.front());
        m_macControl.pop_front();
        --m_macControlQueued;
        cls = kControlClass;
        ++m_pfcSent;
        m_pfcTxTrace(p);
        info = RoceForwardingInfo::Peek(p);
        return true;
    }
    bool found = false;
    if ((m_nonEmpty & (1u << kControlClass)) &&
        (now >= m_pauseHorizon || now >= m_pausedUntil[kControlClass]))
    {
        cls = kControlClass;
        found = true;
    }
    else if (m_totalQueued > 0)
    {
        found = DequeueDataClass(cls, now);
    }
    if (found)
    {
        const Item item = m_queues[cls].front();
        m_queues[cls].pop_front();
        AdoptRef(p, item.packet); // the queue's reference moves to p
        info = item.info;
        const uint32_t inPort = item.inPort;
        if (m_queues[cls].empty())
        {
            m_nonEmpty &= static_cast<uint8_t>(~(1u << cls));
        }
        const uint32_t bytes = info.bytes;
        m_queueBytes[cls] -= bytes;
        m_totalQueued -= bytes;
        if (m_owner)
        {
            m_owner->HandleDequeue(this, cls, inPort, p, info);
        }
        RoceFire(m_dequeueTrace, p, info, cls);
        return true;
    }
    if (m_owner)
    {
        // A frame the owner just built, by its fields alone: p stays null.
        return m_owner->PullData(this, PausedMask(now), cls, info);
    }
    return false;
}

void
RoceNetDevice::TrySend()
{
    const Time now = Simulator::Now();
    if (now < m_txFreeAt)
    {
        ScheduleWake(m_txFreeAt, now);
        return;
    }
    Ptr<Packet> p;
    uint8_t cls = 0;
    RoceForwardingInfo info;
    if (!Dequeue(p, cls, info, now))
    {
        return;
    }
    const Time txTime = GetTxTime(info.bytes);
    m_txFreeAt = now + txTime;
    RoceFire(m_snifferTrace, p, info);
    RoceFire(m_promiscSnifferTrace, p, info);
    RoceFire(m_txTrace, p, info);
    if (!m_txFrameTrace.IsEmpty())
    {
        m_txFrameTrace(info);
    }
    m_channel->Transmit(TakeRef(p), this, txTime, info);
    // Come back when the wire is free if there may be more; otherwise the
    // owner calls TrySend when it has something.
    if (m_ownerPullsData || HasQueued())
    {
        ScheduleWake(m_txFreeAt, now);
    }
}

void
RoceNetDevice::Receive(Ptr<Packet> p)
{
    const RoceForwardingInfo info = RoceForwardingInfo::Peek(p);
    Receive(TakeRef(p), info);
}

void
RoceNetDevice::Receive(Ptr<Packet> p, const RoceForwardingInfo& info)
{
    if (m_arrivalBatch)
    {
        m_arrivalBatch->Add(this, TakeRef(p), info);
        return;
    }
    ProcessFrame(TakeRef(p), info);
}

void
RoceNetDevice::ProcessFrame(Ptr<Packet> p, const RoceForwardingInfo& info)
{
    NS_ASSERT_MSG(!p || info == RoceForwardingInfo::Peek(p),
                  "forwarding fields differ from the frame");
    if (m_receiveErrorModel)
    {
        RoceMaterialize(p, info); // the model may look at any byte
        if (m_receiveErrorModel->IsCorrupt(p))
        {
            ++m_receiveErrors;
            m_rxDropTrace(p);
            return;
        }
    }
    RoceFire(m_snifferTrace, p, info);
    RoceFire(m_promiscSnifferTrace, p, info);
    if (info.etherType == RoceWire::kEtherTypeMacControl)
    {
        HandlePfc(p);
        return;
    }
    NS_ASSERT_MSG(info.etherType == RoceWire::kEtherTypeIpv4,
                  "unexpected EtherType " << info.etherType);
    m_owner->HandleReceive(this, TakeRef(p), info);
}

Time
RoceNetDevice::GetPausedTime(uint8_t cls) const
{
    return m_pausedThroughUntil[cls] - std::max(m_pausedUntil[cls] - Simulator::Now(), Time(0));
}

void
RoceNetDevice::HandlePfc(Ptr<Packet> p)
{
    ++m_pfcReceived;
    m_pfcRxTrace(p);
    PfcHeader pfc;
    p->PeekHeader(pfc);
    const Time now = Simulator::Now();
    // One quantum is 512 bit times at the port's rate.
    const double psPerQuantum = 512.0 / 8.0 * m_psPerByte;
    bool resumed = false;
    Time latest = now;
    for (uint8_t c = 0; c < kClasses; ++c)
    {
        if (!pfc.IsEnabled(c))
        {
            continue;
        }
        uint16_t q = pfc.GetQuanta(c);
        // The pause that was ahead is replaced by this frame's.
        m_pausedThroughUntil[c] -= std::max(m_pausedUntil[c] - now, Time(0));
        if (q == 0)
        {
            resumed = resumed || now < m_pausedUntil[c];
            m_pausedUntil[c] = now;
        }
        else
        {
            m_pausedUntil[c] = now + PicoSeconds(std::llround(q * psPerQuantum));
            m_pausedThroughUntil[c] += m_pausedUntil[c] - now;
            latest = std::max(latest, m_pausedUntil[c]);
            m_pauseHorizon = std::max(m_pauseHorizon, m_pausedUntil[c]);
        }
    }
    if (resumed)
    {
        TrySend();
    }
    if (latest > now)
    {
        // A pause that is never refreshed nor resumed expires on its own.
        Simulator::Schedule(latest - now, &RoceNetDevice::PauseExpired, this);
    }
}

void
RoceNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
RoceNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
RoceNetDevice::GetChannel() const
{
    return m_channel;
}

void
RoceNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
RoceNetDevice::GetAddress() const
{
    return m_address;
}

bool
RoceNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
RoceNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
RoceNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
RoceNetDevice::AddLinkChangeCallback(Callback<void> /* callback */)
{
}

bool
RoceNetDevice::IsBroadcast() const
{
    return false;
}

Address
RoceNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
RoceNetDevice::IsMulticast() const
{
    return false;
}

Address
RoceNetDevice::GetMulticast(Ipv4Address /* multicastGroup */) const
{
    return Mac48Address::GetMulticast(Ipv4Address());
}

Address
RoceNetDevice::GetMulticast(Ipv6Address /* addr */) const
{
    return Mac48Address::GetMulticast(Ipv6Address());
}

bool
RoceNetDevice::IsPointToPoint() const
{
    return true;
}

bool
RoceNetDevice::IsBridge() const
{
    return false;
}

bool
RoceNetDevice::Send(Ptr<Packet> /* packet */,
                    const Address& /* dest */,
                    uint16_t /* protocolNumber */)
{
    // The port carries only frames its owner builds (RoCEv2 and PFC);
    // there is no IP stack above it.
    NS_LOG_WARN("RoceNetDevice::Send is not supported; use RdmaNic");
    return false;
}

bool
RoceNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& /* source */,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
RoceNetDevice::GetNode() const
{
    return m_node;
}

void
RoceNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
    m_arrivalBatch = nullptr;
    if (RoceArrivalBatch::Enabled())
    {
        Ptr<RoceArrivalBatch> batch = node->GetObject<RoceArrivalBatch>();
        if (!batch)
        {
            batch = CreateObject<RoceArrivalBatch>();
            node->AggregateObject(batch);
        }
        m_arrivalBatch = PeekPointer(batch);
    }
}

bool
RoceNetDevice::NeedsArp() const
{
    return false;
}

void
RoceNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback /* cb */)
{
}

void
RoceNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback /* cb */)
{
}

bool
RoceNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
