/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RdmaNic's loss recovery: retransmission timeouts (fixed, or InfiniBand's
// local ACK timeout with a retry limit) and the error state a queue pair
// enters when it runs out of retries.
#include "rdma-nic.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNicRecovery");

Time
RdmaNic::GetRetransmitTimeout() const
{
    if (!m_rto.IsZero())
    {
        return m_rto;
    }
    // 4.096 us x 2^N; at most 2^43 ns, far inside the simulated span.
    return NanoSeconds(static_cast<int64_t>(4096) << m_ackTimeoutExponent);
}

void
RdmaNic::ArmTimeout(RdmaSendQueuePair* qp)
{
    DisarmTimeout(qp);
    const Time now = Simulator::Now();
    const Time at = std::max(now, qp->lastProgress + GetRetransmitTimeout());
    qp->rtoArmed = true;
    qp->rtoAt = at.GetTimeStep();
    m_timeoutQueue.emplace(qp->rtoAt, qp->qpn);
    m_timeoutTimer.RequestAt(at, &RdmaNic::RunTimeouts, this);
}

void
RdmaNic::DisarmTimeout(RdmaSendQueuePair* qp)
{
    if (qp->rtoArmed)
    {
        m_timeoutQueue.erase({qp->rtoAt, qp->qpn});
        qp->rtoArmed = false;
    }
}

void
RdmaNic::RunTimeouts()
{
    m_timeoutTimer.Fired();
    const int64_t now = Simulator::Now().GetTimeStep();
    while (!m_timeoutQueue.empty() && m_timeoutQueue.begin()->first <= now)
    {
        const uint32_t qpn = m_timeoutQueue.begin()->second;
        m_timeoutQueue.erase(m_timeoutQueue.begin());
        auto it = m_sendQps.find(qpn);
        if (it != m_sendQps.end())
        {
            it->second->rtoArmed = false;
            OnTimeout(qpn); // may arm again, always later than now
        }
    }
    if (!m_timeoutQueue.empty())
    {
        m_timeoutTimer.RequestAt(TimeStep(m_timeoutQueue.begin()->first),
                                 &RdmaNic::RunTimeouts,
                                 this);
    }
}

void
RdmaNic::OnTimeout(uint32_t qpn)
{
    auto it = m_sendQps.find(qpn);
    if (it == m_sendQps.end())
    {
        return;
    }
    RdmaSendQueuePair* qp = it->second.get();
    qp->rtoArmed = false;
    if (qp->done || qp->sndNxt == qp->sndUna)
    {
        return; // nothing outstanding; re-armed at the next send
    }
    const Time now = Simulator::Now();
    if (now - qp->lastProgress < GetRetransmitTimeout())
    {
        ArmTimeout(qp);
        return;
    }
    ++m_timeouts;
    if ((HasRetryLimit() || m_stallTimeouts > 0) && qp->retries >= GetTimeoutLimit())
    {
        NS_LOG_INFO("QP " << qpn << " timed out at packet " << qp->sndUna << " after "
                          << qp->retries << " retries: error state");
        FailConnection(qp);
        return;
    }
    ++qp->retries;
    NS_LOG_INFO("QP " << qpn << " timed out at packet " << qp->sndUna << ", retry " << qp->retries);
    qp->sndNxt = qp->sndUna;
    qp->lastProgress = now;
    m_goBackTrace(qp->info, qp->sndUna);
    if (qp->where == RdmaSendQueuePair::Where::IDLE)
    {
        MakeReady(qp);
    }
    ArmTimeout(qp);
    m_port->TrySend();
}

void
RdmaNic::FailConnection(RdmaSendQueuePair* qp)
{
    // The queue pair carries every live message of its connection: they all
    // complete in error, the one that timed out first. Rare, so a scan.
    std::vector<RdmaSendQueuePair*> flushed;
    if (qp->onConnection)
    {
        const uint64_t key = static_cast<uint64_t>(qp->dstIp) << 16 | qp->info.srcPort;
        m_connections[key].error = true;
        for (auto& [qpn, other] : m_sendQps)
        {
            if (other.get() != qp && other->onConnection && !other->done &&
                other->dstIp == qp->dstIp && other->info.srcPort == qp->info.srcPort)
            {
                flushed.push_back(other.get());
            }
        }
        // Posting order, whatever the hash map's.
        std::sort(flushed.begin(),
                  flushed.end(),
                  [](const RdmaSendQueuePair* a, const RdmaSendQueuePair* b) {
                      return a->info.flowId < b->info.flowId;
                  });
    }
    flushed.insert(flushed.begin(), qp);
    std::vector<std::pair<RdmaMessageInfo, RdmaSendError>> failed;
    failed.reserve(flushed.size());
    for (RdmaSendQueuePair* f : flushed)
    {
        failed.emplace_back(f->info,
                            f == qp ? RdmaSendError::RETRY_EXCEEDED : RdmaSendError::FLUSHED);
        f->done = true;
        DisarmTimeout(f);
        f->next = nullptr;
        f->waiting = false;
        f->cc = nullptr;
        ++m_sendsFailed;
        // Elsewhere (ready ring, pacing heap, a closed gate) it is released
        // when it next comes up, as a completed one is.
        if (f->where == RdmaSendQueuePair::Where::IDLE)
        {
            Release(f);
        }
    }
    // State first, then the traces: a listener may post or stop the run.
    for (const auto& [info, error] : failed)
    {
        m_sendFailedTrace(info, error);
    }
}

} // namespace ns3
