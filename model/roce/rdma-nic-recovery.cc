/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RdmaNic's loss recovery: retransmission timeouts (ConnectX adaptive
// retransmission, InfiniBand's local ACK timeout with a retry limit, or a
// fixed one) and the error state a queue pair enters when it runs out of
// retries.
#include "rdma-nic.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
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

Time
RdmaNic::GetRetransmitTimeout(const RdmaSendQueuePair* qp) const
{
    if (GetRecoveryMode() == RecoveryMode::ADAPTIVE)
    {
        return m_adp.Timeout(qp->adp, GetRetransmitTimeout());
    }
    return GetRetransmitTimeout();
}

void
RdmaNic::BuildAdaptiveRetransmission()
{
    m_adp.timeBase = m_adpTimeBase;
    m_adp.initialExponent = m_adpInitialExponent;
    m_adp.initialSpread = m_adpInitialSpread;
    m_adp.startRange = m_adpStartRange;
    m_adp.decrease = m_adpDecrease;
    std::string why = AdaptiveRetransmissionProfile::ParseRanges(m_adpRanges, m_adp.ranges);
    if (why.empty())
    {
        why = m_adp.Check();
    }
    NS_ABORT_MSG_UNLESS(why.empty(), "ns3::RdmaNic adaptive retransmission: " << why);
    m_adpBuilt = true;
}

RdmaNic::RecoveryMode
RdmaNic::GetRecoveryMode() const
{
    if (!m_rto.IsZero())
    {
        return RecoveryMode::FIXED;
    }
    return m_adaptive ? RecoveryMode::ADAPTIVE : RecoveryMode::LOCAL_ACK;
}

Time
RdmaNic::GetTotalTimeout() const
{
    // qp_total_timeout: the queue pair's local ACK timeout x its retry count.
    return m_adpTotal.IsZero() ? GetRetransmitTimeout() * static_cast<int64_t>(m_retryCount)
                               : m_adpTotal;
}

std::string
RdmaNic::DescribeRetryLimit() const
{
    std::ostringstream out;
    out << std::setprecision(10);
    switch (GetRecoveryMode())
    {
    case RecoveryMode::ADAPTIVE:
        out << "no progress for the adaptive retransmission's total timeout of "
            << GetTotalTimeout().GetSeconds() * 1e3 << " ms";
        break;
    case RecoveryMode::LOCAL_ACK:
        out << m_retryCount + 1 << " timeouts of " << GetRetransmitTimeout().GetSeconds() * 1e3
            << " ms in a row without progress, RetryCount " << m_retryCount;
        break;
    case RecoveryMode::FIXED:
        out << m_stallTimeouts + 1 << " timeouts of " << GetRetransmitTimeout().GetSeconds() * 1e3
            << " ms in a row without progress, StallTimeouts " << m_stallTimeouts;
        break;
    }
    return out.str();
}

bool
RdmaNic::OutOfRetries(const RdmaSendQueuePair* qp, Time now) const
{
    switch (GetRecoveryMode())
    {
    case RecoveryMode::ADAPTIVE:
        return now - TimeStep(qp->stallSince) >= GetTotalTimeout();
    case RecoveryMode::LOCAL_ACK:
        return qp->retries >= m_retryCount;
    case RecoveryMode::FIXED:
        return m_stallTimeouts > 0 && qp->retries >= m_stallTimeouts;
    }
    return false;
}

void
RdmaNic::OnForwardProgress(RdmaSendQueuePair* qp, Time now)
{
    qp->lastProgress = now;
    qp->retries = 0;
    if (GetRecoveryMode() == RecoveryMode::ADAPTIVE)
    {
        m_adp.OnProgress(qp->adp);
    }
}

void
RdmaNic::GoBack(RdmaSendQueuePair* qp, uint64_t from, Time now)
{
    m_goBackTrace(qp->info, from);
    if (m_slowRestart && qp->cc)
    {
        qp->cc->OnRetransmit(now);
    }
    if (qp->where == RdmaSendQueuePair::Where::IDLE)
    {
        MakeReady(qp);
    }
    m_port->TrySend();
}

void
RdmaNic::ArmTimeout(RdmaSendQueuePair* qp)
{
    DisarmTimeout(qp);
    const Time now = Simulator::Now();
    const Time at = std::max(now, qp->lastProgress + GetRetransmitTimeout(qp));
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
    if (now - qp->lastProgress < GetRetransmitTimeout(qp))
    {
        ArmTimeout(qp);
        return;
    }
    ++m_timeouts;
    if (qp->retries == 0)
    {
        qp->stallSince = qp->lastProgress.GetTimeStep();
    }
    if (OutOfRetries(qp, now))
    {
        NS_LOG_INFO("QP " << qpn << " timed out at packet " << qp->sndUna << " after "
                          << qp->retries << " retries: error state");
        FailConnection(qp);
        return;
    }
    ++qp->retries;
    if (GetRecoveryMode() == RecoveryMode::ADAPTIVE)
    {
        m_adp.OnExpiry(qp->adp);
    }
    m_timeoutTrace(qp->info, qp->retries, GetRetransmitTimeout(qp));
    NS_LOG_INFO("QP " << qpn << " timed out at packet " << qp->sndUna << ", retry " << qp->retries);
    // Go-back-N and selective repeat alike resend everything not acknowledged:
    // without a NAK the sender cannot tell which packets arrived.
    qp->sndNxt = qp->sndUna;
    qp->resendEnd = qp->resendIndex; // nothing of a hole left to resend alone
    qp->lastProgress = now;
    ArmTimeout(qp);
    GoBack(qp, qp->sndUna, now);
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
