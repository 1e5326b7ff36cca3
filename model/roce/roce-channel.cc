/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-channel.h"

#include "roce-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceChannel");
NS_OBJECT_ENSURE_REGISTERED(RoceChannel);

namespace
{
uint64_t g_packetHops = 0;
}

TypeId
RoceChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceChannel")
                            .SetParent<Channel>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RoceChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the link.",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&RoceChannel::m_delay),
                                          MakeTimeChecker(Time(0)));
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
RoceChannel::Transmit(Ptr<Packet> p, RoceNetDevice* src, Time txTime)
{
    const std::size_t from = (src == PeekPointer(m_devices[0])) ? 0 : 1;
    ++m_txPackets[from];
    m_txBytes[from] += p->GetSize();
    ++g_packetHops;
    Deliver(p, 1 - from, txTime + m_delay);
}

void
RoceChannel::Deliver(Ptr<Packet> p, std::size_t to, Time delay)
{
    Simulator::ScheduleWithContext(m_nodeIds[to],
                                   delay,
                                   &RoceNetDevice::Receive,
                                   PeekPointer(m_devices[to]),
                                   p);
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

} // namespace ns3
