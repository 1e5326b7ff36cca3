/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "network-collective-transport.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

namespace ns3
{

NetworkCollectiveTransport::NetworkCollectiveTransport(Ptr<ClusterNetwork> network,
                                                       std::vector<uint32_t> rankHosts,
                                                       uint32_t jobId,
                                                       uint8_t priority,
                                                       Ptr<NvSwitch> nvswitch,
                                                       std::vector<uint32_t> rankGpus)
    : m_network(network),
      m_rankHosts(std::move(rankHosts)),
      m_jobId(jobId),
      m_priority(priority),
      m_nvswitch(std::move(nvswitch)),
      m_rankGpus(std::move(rankGpus))
{
    NS_ABORT_MSG_IF(!m_nvswitch, "NetworkCollectiveTransport: no NvSwitch");
    NS_ABORT_MSG_IF(m_rankGpus.size() != m_rankHosts.size(),
                    "NetworkCollectiveTransport: " << m_rankGpus.size() << " GPUs for "
                                                   << m_rankHosts.size() << " ranks");
}

void
NetworkCollectiveTransport::BeginCollective(const CollectiveTag& tag)
{
    m_tag = tag;
}

uint16_t
NetworkCollectiveTransport::ConnectionPort(uint32_t jobId,
                                           uint32_t srcRank,
                                           uint32_t dstRank,
                                           uint32_t channel,
                                           uint8_t communicator)
{
    uint64_t h = (static_cast<uint64_t>(jobId) << 40) ^ (static_cast<uint64_t>(srcRank) << 20) ^
                 dstRank ^ (static_cast<uint64_t>(channel) << 58) ^
                 (static_cast<uint64_t>(communicator) << 52);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return static_cast<uint16_t>(0xC000 | (h & 0x3FFF));
}

RdmaMessageInfo
NetworkCollectiveTransport::MessageInfo(const CollectiveMessage& m,
                                        uint32_t jobId,
                                        uint8_t priority,
                                        const CollectiveTag& tag)
{
    RdmaMessageInfo info;
    info.bytes = m.bytes;
    info.jobId = jobId;
    info.priority = priority;
    info.iteration = tag.iteration;
    info.collective = tag.index;
    info.step = m.step;
    info.gated = tag.gated;
    info.srcPort = ConnectionPort(jobId, m.srcRank, m.dstRank, m.channel, tag.communicator);
    return info;
}

int64_t
NetworkCollectiveTransport::GetServer(uint32_t rank) const
{
    return m_network->GetTopology().GetServerKey(m_rankHosts.at(rank));
}

void
NetworkCollectiveTransport::Send(const CollectiveMessage& m, std::function<void()> onDelivered)
{
    Post(m, std::move(onDelivered), nullptr);
}

void
NetworkCollectiveTransport::Post(const CollectiveMessage& m,
                                 std::function<void()> onDelivered,
                                 FailedCallback onFailed)
{
    const uint32_t src = m_rankHosts.at(m.srcRank);
    const uint32_t dst = m_rankHosts.at(m.dstRank);
    const Time delay = m_latencyScale == 1.0 ? m.delay : m.delay * int64x64_t(m_latencyScale);
    // GPUs of one server (one host, or the NICs of one multi-NIC server) share NVLink.
    if (m_network->GetTopology().SameServer(src, dst))
    {
        ++m_nvlinkMessages;
        const uint32_t from = m_rankGpus[m.srcRank];
        const uint32_t to = m_rankGpus[m.dstRank];
        if (delay.IsStrictlyPositive())
        {
            // A protocol's per-step latency: the bytes enter the switch later.
            Simulator::Schedule(
                delay,
                [nvswitch = m_nvswitch,
                 from,
                 to,
                 bytes = m.bytes,
                 job = m_jobId,
                 scale = m_latencyScale,
                 onDelivered = std::move(onDelivered)]() mutable {
                    nvswitch->Send(from, to, bytes, job, std::move(onDelivered), scale);
                });
            return;
        }
        m_nvswitch->Send(from, to, m.bytes, m_jobId, std::move(onDelivered), m_latencyScale);
        return;
    }
    ++m_networkMessages;
    if (delay.IsStrictlyPositive())
    {
        // A protocol's per-step latency: the bytes leave later, tagged as now.
        Ptr<ClusterNetwork> network = m_network;
        Simulator::Schedule(
            delay,
            [network,
             src,
             dst,
             info = MessageInfo(m, m_jobId, m_priority, m_tag),
             onDelivered = std::move(onDelivered),
             onFailed = std::move(onFailed)]() mutable {
                network->Post(src, dst, info, std::move(onDelivered), std::move(onFailed));
            });
        return;
    }
    m_network->Post(src,
                    dst,
                    MessageInfo(m, m_jobId, m_priority, m_tag),
                    std::move(onDelivered),
                    std::move(onFailed));
}

} // namespace ns3
