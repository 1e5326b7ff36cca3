/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-remote-channel.h"

#include "roce-net-device.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRemoteChannel");
NS_OBJECT_ENSURE_REGISTERED(RoceRemoteChannel);

TypeId
RoceRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRemoteChannel")
                            .SetParent<RoceChannel>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RoceRemoteChannel>();
    return tid;
}

RoceRemoteChannel::RoceRemoteChannel() = default;

void
RoceRemoteChannel::AttachReceiver(Ptr<RoceNetDevice> device)
{
    if (device->GetObject<MpiReceiver>())
    {
        return;
    }
    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
    // Only the bytes cross ranks: the port reads the forwarding fields again.
    void (RoceNetDevice::*receive)(Ptr<Packet>) = &RoceNetDevice::Receive;
    receiver->SetReceiveCallback(MakeCallback(receive, PeekPointer(device)));
    device->AggregateObject(receiver);
}

void
RoceRemoteChannel::Deliver(Ptr<Packet> p,
                           std::size_t to,
                           Time delay,
                           const RoceForwardingInfo& info)
{
    Ptr<RoceNetDevice> dst = m_devices[to];
    const uint32_t owner = dst->GetNode()->GetSystemId();
    if (owner == MpiInterface::GetSystemId())
    {
        RoceChannel::Deliver(std::move(p), to, delay, info);
        return;
    }
    NS_LOG_LOGIC("frame of " << info.bytes << " bytes to rank " << owner << ", node "
                             << dst->GetNode()->GetId() << " port " << dst->GetIfIndex());
    // Only the bytes cross: the receiving port reads the fields again.
    RoceMaterialize(p, info);
    MpiInterface::SendPacket(p,
                             Simulator::Now() + delay,
                             dst->GetNode()->GetId(),
                             dst->GetIfIndex());
}

} // namespace ns3
