/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rank-messenger.h"

#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/packet.h"
#include "ns3/simple-net-device.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RankMessenger);

TypeId
RankMessenger::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RankMessenger")
                            .SetParent<Object>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RankMessenger>();
    return tid;
}

void
RankMessenger::Setup(Callback<void, uint64_t> receive)
{
    m_receive = receive;
    const uint32_t me = MpiInterface::GetSystemId();
    for (uint32_t r = 0; r < MpiInterface::GetSize(); ++r)
    {
        // No channel: the distributed simulator's lookahead ignores it.
        Ptr<Node> node = CreateObject<Node>(r);
        Ptr<SimpleNetDevice> dev = CreateObject<SimpleNetDevice>();
        node->AddDevice(dev);
        if (r == me)
        {
            Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
            receiver->SetReceiveCallback(MakeCallback(&RankMessenger::Receive, this));
            dev->AggregateObject(receiver);
        }
        m_nodes.push_back(node);
    }
}

void
RankMessenger::SendToOthers(uint64_t value, Time at) const
{
    uint8_t bytes[8];
    for (int i = 0; i < 8; ++i)
    {
        bytes[i] = static_cast<uint8_t>(value >> (56 - 8 * i));
    }
    const uint32_t me = MpiInterface::GetSystemId();
    for (uint32_t r = 0; r < m_nodes.size(); ++r)
    {
        if (r != me)
        {
            MpiInterface::SendPacket(Create<Packet>(bytes, sizeof(bytes)),
                                     at,
                                     m_nodes[r]->GetId(),
                                     m_nodes[r]->GetDevice(0)->GetIfIndex());
        }
    }
}

void
RankMessenger::Receive(Ptr<Packet> p)
{
    uint8_t bytes[8];
    NS_ABORT_MSG_UNLESS(p->CopyData(bytes, sizeof(bytes)) == sizeof(bytes),
                        "RankMessenger: short message of " << p->GetSize() << " bytes");
    uint64_t value = 0;
    for (uint8_t b : bytes)
    {
        value = value << 8 | b;
    }
    m_receive(value);
}

void
RankMessenger::DoDispose()
{
    m_nodes.clear();
    m_receive = MakeNullCallback<void, uint64_t>();
    Object::DoDispose();
}

} // namespace ns3
