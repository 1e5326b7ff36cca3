/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-scheduler-control.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlowSchedulerControl);

TypeId
FlowSchedulerControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowSchedulerControl")
                            .SetParent<Object>()
                            .SetGroupName("CollectiveScheduling");
    return tid;
}

FlowSchedulerControl::FlowSchedulerControl(Ptr<FlowNetwork> network)
    : m_network(network)
{
}

void
FlowSchedulerControl::DoDispose()
{
    m_network = nullptr;
    Object::DoDispose();
}

void
FlowSchedulerControl::SetGate(uint32_t job, bool open)
{
    m_network->SetGate(job, open);
}

void
FlowSchedulerControl::SetPriorityClass(uint32_t job, int16_t cls)
{
    m_network->SetPriorityClass(job, cls);
}

void
FlowSchedulerControl::SetRateWeight(uint32_t job, double weight)
{
    m_network->SetRateWeight(job, weight);
}

void
FlowSchedulerControl::SetSourcePort(uint32_t job, uint32_t srcHost, uint32_t dstHost, uint16_t port)
{
    m_network->SetSourcePort(job, srcHost, dstHost, port);
}

std::vector<uint32_t>
FlowSchedulerControl::GetPath(uint32_t srcHost, uint32_t dstHost, uint16_t port) const
{
    return DirectedPath(*m_network, srcHost, dstHost, port);
}

uint64_t
FlowSchedulerControl::GetLinkRateBps(uint32_t link) const
{
    return m_network->GetTopology().GetLink(link / 2).rateBps;
}

int32_t
FlowSchedulerControl::GetHostRack(uint32_t host) const
{
    return m_network->GetTopology().GetSchedulingRack(host);
}

std::vector<uint32_t>
DirectedPath(const FlowNetwork& network, uint32_t src, uint32_t dst, uint16_t port)
{
    return network.GetTopology().DirectedLinks(src, network.GetPath(src, dst, port));
}

} // namespace ns3
