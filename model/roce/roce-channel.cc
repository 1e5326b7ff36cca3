/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-channel.h"

#include "free-list-allocated.h"
#include "packet-handoff.h"
#include "roce-net-device.h"

#include "ns3/bucket-scheduler.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceChannel");
NS_OBJECT_ENSURE_REGISTERED(RoceChannel);

namespace
{
uint64_t g_packetHops = 0;
uint64_t g_dataHops = 0;
uint64_t g_linkBytes = 0;

/**
 * A frame's arrival at a port: the one event of every packet-hop. Its memory
 * comes from a free list (the hottest allocation of a run), and it hands its
 * packet reference straight to the port instead of copying it.
 */
class RoceArrival : public EventImpl, public FreeListAllocated<RoceArrival>
{
  public:
    /// Takes over \p p's reference, if it has a packet (\p p is left empty),
    /// without touching the packet.
    RoceArrival(RoceNetDevice* port, Ptr<Packet>& p, const RoceForwardingInfo& info)
        : m_port(port),
          m_packet(ReleaseRef(p)),
          m_info(info)
    {
    }

    ~RoceArrival() override
    {
        if (m_packet)
        {
            m_packet->Unref(); // cancelled or never run
        }
    }

  protected:
    void Notify() override
    {
        Packet* p = m_packet;
        m_packet = nullptr;
        m_port->Receive(Ptr<Packet>(p, false), m_info); // our reference moves to the port
    }

  private:
    RoceNetDevice* m_port;
    Packet* m_packet; ///< holds one reference until Notify
    RoceForwardingInfo m_info;
};

} // namespace

TypeId
RoceChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceChannel")
            .SetParent<Channel>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<RoceChannel>()
            .AddAttribute("Delay",
                          "Propagation delay of the link.",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RoceChannel::m_delay),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("LinkDownDrop",
                            "A frame was lost: its link was down during its "
                            "time on the wire (args: frame, sending end).",
                            MakeTraceSourceAccessor(&RoceChannel::m_linkDownDropTrace),
                            "ns3::RoceChannel::LinkDownDropCallback");
    return tid;
}

RoceChannel::RoceChannel() = default;

void
RoceChannel::Attach(Ptr<RoceNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices == 2, "a RoceChannel connects exactly two devices");
    m_devices[m_nDevices] = device;
    m_nodeIds[m_nDevices] = device->GetNode()->GetId();
    ++m_nDevices;
}

void
RoceChannel::Transmit(Ptr<Packet> p,
                      RoceNetDevice* src,
                      Time txTime,
                      const RoceForwardingInfo& info)
{
    const std::size_t from = (src == PeekPointer(m_devices[0])) ? 0 : 1;
    if (!m_outages.empty() && MeetsOutage(txTime + m_delay))
    {
        ++m_downPackets[from];
        m_downBytes[from] += info.bytes;
        RoceFire(m_linkDownDropTrace, p, info, static_cast<uint32_t>(from));
        return;
    }
    ++m_txPackets[from];
    m_txBytes[from] += info.bytes;
    ++g_packetHops;
    // Data frames are RoCEv2 frames outside the control class (ACK, NAK, CNP); PFC is not data.
    if (info.etherType == RoceWire::kEtherTypeIpv4 && info.dscp != RoceNetDevice::kControlClass)
    {
        ++g_dataHops;
    }
    g_linkBytes += info.bytes;
    Deliver(TakeRef(p), 1 - from, txTime + m_delay, info);
}

void
RoceChannel::Deliver(Ptr<Packet> p, std::size_t to, Time delay, const RoceForwardingInfo& info)
{
    BucketScheduler::HintNextInsert(PeekPointer(m_devices[to]));
    Simulator::ScheduleWithContext(m_nodeIds[to],
                                   delay,
                                   new RoceArrival(PeekPointer(m_devices[to]), p, info));
}

std::size_t
RoceChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
RoceChannel::GetDevice(std::size_t i) const
{
    return m_devices[i];
}

Ptr<RoceNetDevice>
RoceChannel::GetRoceDevice(std::size_t i) const
{
    return m_devices[i];
}

uint64_t
RoceChannel::GetTotalPacketHops()
{
    return g_packetHops;
}

uint64_t
RoceChannel::GetTotalDataHops()
{
    return g_dataHops;
}

uint64_t
RoceChannel::GetTotalLinkBytes()
{
    return g_linkBytes;
}

} // namespace ns3
