/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-collective-transport.h"

#include "ns3/fabric-collective-transport.h"
#include "ns3/simulator.h"

namespace ns3
{

FlowCollectiveTransport::FlowCollectiveTransport(Ptr<FlowNetwork> network,
                                                 std::vector<uint32_t> rankHosts,
                                                 uint32_t jobId,
                                                 uint8_t priority,
                                                 DataRate nvlinkRate,
                                                 Time nvlinkLatency)
    : m_network(network),
      m_rankHosts(std::move(rankHosts)),
      m_jobId(jobId),
      m_priority(priority),
      m_nvlinkRate(nvlinkRate),
      m_nvlinkLatency(nvlinkLatency)
{
}

void
FlowCollectiveTransport::BeginCollective(uint32_t iteration, uint32_t index)
{
    m_iteration = iteration;
    m_collective = index;
}

void
FlowCollectiveTransport::Send(const CollectiveMessage& m, std::function<void()> onDelivered)
{
    const uint32_t src = m_rankHosts.at(m.srcRank);
    const uint32_t dst = m_rankHosts.at(m.dstRank);
    if (src == dst)
    {
        // NVLink exactly as the packet-level transport models it.
        ++m_nvlinkMessages;
        Simulator::Schedule(m_nvlinkLatency + m_nvlinkRate.CalculateBytesTxTime(m.bytes),
                            std::move(onDelivered));
        return;
    }
    ++m_fabricMessages;
    RdmaMessageInfo info;
    info.bytes = m.bytes;
    info.jobId = m_jobId;
    info.priority = m_priority;
    info.iteration = m_iteration;
    info.collective = m_collective;
    info.step = m.step;
    info.srcPort =
        FabricCollectiveTransport::ConnectionPort(m_jobId, m.srcRank, m.dstRank, m.channel);
    m_network->SendMessage(src, dst, info, std::move(onDelivered));
}

} // namespace ns3
