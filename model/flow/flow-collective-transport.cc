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
    // GPUs of one server share NVLink, exactly as the packet-level transport models it.
    if (m_network->GetTopology().SameServer(src, dst))
    {
        ++m_nvlinkMessages;
        Simulator::Schedule(m_nvlinkLatency + m_nvlinkRate.CalculateBytesTxTime(m.bytes),
                            std::move(onDelivered));
        return;
    }
    ++m_fabricMessages;
    m_network->SendMessage(
        src,
        dst,
        FabricCollectiveTransport::MessageInfo(m, m_jobId, m_priority, m_iteration, m_collective),
        std::move(onDelivered));
}

} // namespace ns3
