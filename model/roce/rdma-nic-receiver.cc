/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Frames arriving at an RdmaNic: data at the receiver (in-order delivery,
// ACK coalescing, NAKs and, with selective repeat, the holes they name,
// CNPs), and ACKs and NAKs back at the sender.
#include "rdma-nic.h"
#include "roce-psn.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNicReceiver");

void
RdmaNic::CreateReceiveQueuePair(const RdmaMessageInfo& info,
                                uint32_t qpn,
                                uint32_t srcIp,
                                uint32_t srcQpn,
                                uint32_t initialPsn)
{
    RdmaRecvQueuePair& rq = m_recvQps[qpn];
    rq.info = info;
    rq.qpn = qpn;
    rq.srcIp = srcIp;
    rq.srcQpn = srcQpn;
    rq.initialPsn = initialPsn;
    rq.nPackets = std::max<uint64_t>(1, (info.bytes + m_payloadPerPacket - 1) / m_payloadPerPacket);
}

void
RdmaNic::HandleReceive(RoceNetDevice* /* port */, Ptr<Packet> /* p */, const RoceForwardingInfo& f)
{
    switch (f.opcode)
    {
    case RoceOpcode::ACKNOWLEDGE:
        ReceiveAck(f);
        break;
    case RoceOpcode::CNP: {
        auto it = m_sendQps.find(f.destQp);
        if (it != m_sendQps.end() && !it->second->done)
        {
            ++m_cnpsReceived;
            ++it->second->cnpsReceived;
            it->second->cc->OnCnp(Simulator::Now());
            m_cnpReceivedTrace(it->second->info);
        }
        break;
    }
    default:
        ReceiveData(f);
        break;
    }
}

void
RdmaNic::ReceiveData(const RoceForwardingInfo& f)
{
    auto it = m_recvQps.find(f.destQp);
    if (it == m_recvQps.end())
    {
        NS_LOG_WARN("data for unknown QP " << f.destQp << " dropped");
        return;
    }
    RdmaRecvQueuePair& rq = it->second;
    const Time now = Simulator::Now();
    if (f.ecn == RoceEcn::CE && (!rq.cnpSent || now - rq.lastCnp >= m_cnpInterval))
    {
        rq.cnpSent = true;
        rq.lastCnp = now;
        ++m_cnpsSent;
        SendControl(rq, RoceOpcode::CNP, 0, 0);
        m_cnpSentTrace(rq.info);
    }
    const uint64_t index = RocePsn::FromWire(rq.initialPsn, f.psn, rq.expected);
    if (index == rq.expected)
    {
        ++rq.expected;
        rq.nakSent = false;
        if (!rq.early.empty())
        {
            // Selective repeat: the hole is filled; what came after it is in.
            while (rq.expected < rq.beyond && IsEarly(rq, rq.expected))
            {
                ++rq.expected;
            }
            if (rq.expected >= rq.beyond)
            {
                rq.early.clear();
            }
        }
        if (rq.expected == rq.nPackets && !rq.delivered)
        {
            rq.delivered = true;
            rq.sinceAck = 0;
            SendControl(rq, RoceOpcode::ACKNOWLEDGE, RoceHeader::kAck, rq.expected - 1);
            m_deliveredTrace(rq.info, now);
            return;
        }
        if (!rq.early.empty())
        {
            // Past the hole the last NAK named, the next one: NAK it at once
            // (it acknowledges all before it). Inside it, the resends are on
            // their way.
            rq.sinceAck = 0;
            if (rq.expected >= rq.nakEnd)
            {
                SendHoleNak(rq);
                return;
            }
            rq.nakSent = true;
        }
        if (++rq.sinceAck >= m_ackInterval)
        {
            rq.sinceAck = 0;
            SendControl(rq, RoceOpcode::ACKNOWLEDGE, RoceHeader::kAck, rq.expected - 1);
        }
    }
    else if (index > rq.expected)
    {
        if (m_selectiveRepeat)
        {
            MarkEarly(rq, index);
        }
        // One NAK per gap; the sender resends from `expected` (go-back-N) or
        // the hole alone (selective repeat).
        if (!rq.nakSent)
        {
            SendHoleNak(rq);
        }
    }
    else
    {
        // A duplicate: the sender missed an ACK. Re-acknowledge, coalesced,
        // but always for the last packet so a lost final ACK is recovered.
        if (++rq.sinceAck >= m_ackInterval || index + 1 == rq.nPackets)
        {
            rq.sinceAck = 0;
            SendControl(rq, RoceOpcode::ACKNOWLEDGE, RoceHeader::kAck, rq.expected - 1);
        }
    }
}

void
RdmaNic::MarkEarly(RdmaRecvQueuePair& rq, uint64_t index)
{
    if (rq.early.empty())
    {
        rq.earlyBase = rq.expected & ~uint64_t{63};
    }
    const uint64_t word = (index - rq.earlyBase) / 64;
    if (word >= rq.early.size())
    {
        rq.early.resize(word + 1, 0);
    }
    rq.early[word] |= uint64_t{1} << ((index - rq.earlyBase) % 64);
    rq.beyond = std::max(rq.beyond, index + 1);
}

bool
RdmaNic::IsEarly(const RdmaRecvQueuePair& rq, uint64_t index)
{
    const uint64_t word = (index - rq.earlyBase) / 64;
    return word < rq.early.size() && (rq.early[word] >> ((index - rq.earlyBase) % 64) & 1) != 0;
}

void
RdmaNic::SendHoleNak(RdmaRecvQueuePair& rq)
{
    rq.nakSent = true;
    ++m_naksSent;
    uint64_t end = rq.expected;
    if (!rq.early.empty())
    {
        // Selective repeat: the hole ends at the first packet kept after it;
        // the NAK's MSN field carries that PSN, so that the sender resends
        // the whole hole at once rather than a packet per round trip.
        while (end < rq.beyond && !IsEarly(rq, end))
        {
            ++end;
        }
    }
    rq.nakEnd = end;
    SendControl(rq, RoceOpcode::ACKNOWLEDGE, RoceHeader::kNakSequenceError, rq.expected, end);
}

void
RdmaNic::SendControl(const RdmaRecvQueuePair& rq,
                     RoceOpcode op,
                     uint8_t syndrome,
                     uint64_t index,
                     uint64_t holeEnd)
{
    RoceForwardingInfo f = NewFrame(rq.srcIp,
                                    RoceNetDevice::kControlClass,
                                    RoceEcn::NOT_ECT,
                                    rq.info.srcPort,
                                    op,
                                    rq.srcQpn);
    if (op == RoceOpcode::ACKNOWLEDGE)
    {
        f.psn = RocePsn::ToWire(rq.initialPsn, index);
        f.syndrome = syndrome;
        f.msn = holeEnd > index ? RocePsn::ToWire(rq.initialPsn, holeEnd)
                                : static_cast<uint32_t>(rq.expected) & 0xFFFFFF;
    }
    m_port->Enqueue(f, RoceNetDevice::kControlClass);
}

void
RdmaNic::ReceiveAck(const RoceForwardingInfo& f)
{
    auto it = m_sendQps.find(f.destQp);
    if (it == m_sendQps.end() || it->second->done)
    {
        return; // late ACK of a finished message
    }
    RdmaSendQueuePair* qp = it->second.get();
    const Time now = Simulator::Now();
    const uint64_t index = RocePsn::FromWire(qp->initialPsn, f.psn, qp->sndUna);
    if (f.syndrome == RoceHeader::kNakSequenceError)
    {
        // The receiver expects `index`: everything before it arrived.
        if (index < qp->sndUna || index > qp->maxSent)
        {
            return; // stale NAK
        }
        if (index > qp->sndUna)
        {
            qp->cc->OnAck((index - qp->sndUna) * qp->payloadPerPacket, now);
            qp->sndUna = index;
        }
        OnForwardProgress(qp, now);
        if (!m_selectiveRepeat)
        {
            qp->sndNxt = index;
        }
        else if (index < qp->sndNxt)
        {
            // Only the hole: the receiver kept what came after it.
            const uint64_t end = RocePsn::FromWire(qp->initialPsn, f.msn, index);
            qp->resendIndex = index;
            qp->resendEnd = std::min(std::max(end, index + 1), qp->sndNxt);
        }
        GoBack(qp, index, now);
        return;
    }
    const uint64_t acked = index + 1;
    if (acked <= qp->sndUna || acked > qp->maxSent)
    {
        return;
    }
    uint64_t newly = 0;
    for (uint64_t i = qp->sndUna; i < acked; ++i)
    {
        newly += qp->PayloadOf(i);
    }
    qp->sndUna = acked;
    OnForwardProgress(qp, now);
    if (qp->ResendPending() && qp->resendIndex < acked)
    {
        qp->resendIndex = std::min(acked, qp->resendEnd); // arrived after all
    }
    if (qp->sndNxt < acked)
    {
        qp->sndNxt = acked; // a timeout rewound past what has now arrived
    }
    qp->cc->OnAck(newly, now);
    if (qp->sndUna == qp->nPackets)
    {
        Complete(qp);
    }
}

} // namespace ns3
