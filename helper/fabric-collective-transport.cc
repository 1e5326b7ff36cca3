/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-collective-transport.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

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
    m_senderHosts = m_rankHosts;
    std::sort(m_senderHosts.begin(), m_senderHosts.end());
    m_senderHosts.erase(std::unique(m_senderHosts.begin(), m_senderHosts.end()),
                        m_senderHosts.end());
    for (uint32_t host : m_senderHosts)
    {
        Ptr<RdmaNic> nic = m_fabric->GetNic(host);
        nic->TraceConnectWithoutContext(
            "SendComplete",
            MakeCallback(&FabricCollectiveTransport::OnSendComplete, this));
        nic->TraceConnectWithoutContext(
            "SendFailed",
            MakeCallback(&FabricCollectiveTransport::OnSendFailed, this));
    }
}

FabricCollectiveTransport::~FabricCollectiveTransport()
{
    for (uint32_t host : m_senderHosts)
    {
        Ptr<RdmaNic> nic = m_fabric->GetNic(host);
        nic->TraceDisconnectWithoutContext(
            "SendComplete",
            MakeCallback(&FabricCollectiveTransport::OnSendComplete, this));
        nic->TraceDisconnectWithoutContext(
            "SendFailed",
            MakeCallback(&FabricCollectiveTransport::OnSendFailed, this));
    }
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

RdmaMessageInfo
FabricCollectiveTransport::MessageInfo(const CollectiveMessage& m,
                                       uint32_t jobId,
                                       uint8_t priority,
                                       uint32_t iteration,
                                       uint32_t collective)
{
    RdmaMessageInfo info;
    info.bytes = m.bytes;
    info.jobId = jobId;
    info.priority = priority;
    info.iteration = iteration;
    info.collective = collective;
    info.step = m.step;
    info.srcPort = ConnectionPort(jobId, m.srcRank, m.dstRank, m.channel);
    return info;
}

void
FabricCollectiveTransport::Send(const CollectiveMessage& m, std::function<void()> onDelivered)
{
    Post(m, std::move(onDelivered), nullptr);
}

void
FabricCollectiveTransport::Post(const CollectiveMessage& m,
                                std::function<void()> onDelivered,
                                FailedCallback onFailed)
{
    const uint32_t src = m_rankHosts.at(m.srcRank);
    const uint32_t dst = m_rankHosts.at(m.dstRank);
    // GPUs of one server (one host, or the NICs of one multi-NIC server) share NVLink.
    if (m_fabric->GetTopology().SameServer(src, dst))
    {
        ++m_nvlinkMessages;
        Simulator::Schedule(m_nvlinkLatency + m_nvlinkRate.CalculateBytesTxTime(m.bytes),
                            std::move(onDelivered));
        return;
    }
    ++m_fabricMessages;
    const RdmaMessageInfo info = MessageInfo(m, m_jobId, m_priority, m_iteration, m_collective);
    const uint64_t flowId =
        m_fabric->SendMessage(src, dst, info, Simulator::Now(), std::move(onDelivered));
    // The queue pair is set up by an event of its own, so nothing is
    // reported for the flow before it is registered here. Only the rank that
    // runs the sender hears of its end (see doc: distributed runs).
    if (m_fabric->IsLocalHost(src))
    {
        m_pending.emplace(flowId, Pending{src, dst, std::move(onFailed)});
    }
}

void
FabricCollectiveTransport::OnSendComplete(const RdmaMessageInfo& info,
                                          Time /* ackTime */,
                                          uint64_t /* retransmitted */)
{
    if (info.jobId == static_cast<int64_t>(m_jobId))
    {
        m_pending.erase(info.flowId);
    }
}

void
FabricCollectiveTransport::OnSendFailed(const RdmaMessageInfo& info, RdmaSendError error)
{
    if (info.jobId != static_cast<int64_t>(m_jobId))
    {
        return;
    }
    auto it = m_pending.find(info.flowId);
    if (it == m_pending.end())
    {
        return; // another transport's job with the same id (not in one cluster)
    }
    Pending p = std::move(it->second);
    m_pending.erase(it);
    ++m_failedMessages;
    Ptr<RdmaNic> nic = m_fabric->GetNic(p.srcHost);
    std::ostringstream reason;
    reason << "flow " << info.flowId << " from host " << p.srcHost << " to host " << p.dstHost
           << ": " << ToString(error);
    if (error == RdmaSendError::RETRY_EXCEEDED)
    {
        reason << " (" << nic->GetTimeoutLimit() + 1 << " timeouts of " << std::setprecision(10)
               << nic->GetRetransmitTimeout().GetSeconds() * 1e3
               << " ms in a row without progress, "
               << (nic->HasRetryLimit() ? "RetryCount " : "StallTimeouts ")
               << nic->GetTimeoutLimit() << ")";
    }
    NS_ABORT_MSG_UNLESS(p.onFailed,
                        "job " << m_jobId << ": " << reason.str()
                               << "; the message was sent without a failure callback");
    p.onFailed(reason.str());
}

} // namespace ns3
