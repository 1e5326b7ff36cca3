/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-collective-transport.h"

#include "ns3/simulator.h"

namespace ns3
{

FabricCollectiveTransport::FabricCollectiveTransport(Ptr<RoceFabric> fabric,
                                                     std::vector<uint32_t> rankHosts,
                                                     uint32_t jobId,
                                                     uint8_t priority,
                                                     DataRate nvlinkRate,
                                                     Time nvlinkLatency)
    : m_fabric(fabric),
      m_rankHosts(std::move(rankHosts)),
      m_jobId(jobId),
      m_priority(priority),
      m_nvlinkRate(nvlinkRate),
      m_nvlinkLatency(nvlinkLatency)
{
}

void
FabricCollectiveTransport::BeginCollective(uint32_t iteration, uint32_t index)
{
    m_iteration = iteration;
    m_collective = index;
}

uint16_t
FabricCollectiveTransport::ConnectionPort(uint32_t jobId,
                                          uint32_t srcRank,
                                          uint32_t dstRank,
                                          uint32_t channel)
{
    uint64_t h = (static_cast<uint64_t>(jobId) << 40) ^ (static_cast<uint64_t>(srcRank) << 20) ^
                 dstRank ^ (static_cast<uint64_t>(channel) << 58);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return static_cast<uint16_t>(0xC000 | (h & 0x3FFF));
}

void
FabricCollectiveTransport::Send(const CollectiveMessage& m, std::function<void()> onDelivered)
{
    const uint32_t src = m_rankHosts.at(m.srcRank);
    const uint32_t dst = m_rankHosts.at(m.dstRank);
    if (src == dst)
    {
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
    info.srcPort = ConnectionPort(m_jobId, m.srcRank, m.dstRank, m.channel);
    m_fabric->SendMessage(src, dst, info, Simulator::Now(), std::move(onDelivered));
}

} // namespace ns3
