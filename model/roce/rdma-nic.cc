/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-nic.h"

#include "roce-psn.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<RdmaNic>()
            .AddAttribute("PayloadPerPacket",
                          "RDMA payload bytes carried by a full data packet; the frame adds "
                          "58-74 bytes of headers. 4096, the RoCE path MTU AI clusters run, by "
                          "default; the examples accept path MTUs only (256-4096), while "
                          "hpcc-compat sets any size here from HPCC's PACKET_PAYLOAD_SIZE "
                          "(1000 in its configurations).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaNic::m_payloadPerPacket),
                          MakeUintegerChecker<uint32_t>(1, 9000))
            .AddAttribute("AckInterval",
                          "The receiver acknowledges every this many in-order packets, always "
                          "the last packet of a message, and NAKs a gap at once. 16 (the "
                          "default): an ACK per 64 KB at the 4096-byte payload of RoCE "
                          "fabrics (16 KB at 1000 bytes), between the HPCC-lineage "
                          "simulators' ACK per packet (1, which hpcc-compat keeps) and the "
                          "Linux soft-RoCE driver's ACK request every 65 packets "
                          "(RXE_MAX_PKT_PER_ACK 64); ConnectX coalesces in firmware by rules "
                          "it does not publish.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&RdmaNic::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RetransmitTimeout",
                          "A fixed retransmission timeout with no retry limit, as the "
                          "HPCC-lineage simulators run (4 ms there; hpcc-compat sets it). "
                          "Non-zero selects this mode, in which AckTimeoutExponent and "
                          "RetryCount are not used; 0 (the default) selects the InfiniBand "
                          "local ACK timeout and its retry limit. Either way a queue pair "
                          "goes back to its first unacknowledged packet when no ACK or NAK "
                          "advanced it for the timeout while packets are outstanding.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaNic::m_rto),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("AckTimeoutExponent",
                          "Local ACK timeout exponent N, as NCCL_IB_TIMEOUT sets it (NCCL's "
                          "default 20 since 2.23): the timeout is 4.096 us x 2^N (InfiniBand "
                          "spec vol. 1, 12.7.34), 4.29 s at 20. 1-31; the spec's 0 (no "
                          "timeout at all) is not modelled. Used while RetransmitTimeout is 0.",
                          UintegerValue(20),
                          MakeUintegerAccessor(&RdmaNic::m_ackTimeoutExponent),
                          MakeUintegerChecker<uint32_t>(1, 31))
            .AddAttribute("RetryCount",
                          "Timeouts in a row without progress a queue pair retries, as "
                          "NCCL_IB_RETRY_CNT sets it (default 7; 0-7, a 3-bit field of the "
                          "InfiniBand spec vol. 1, 12.7.38). The next expiry moves it to the "
                          "error state: its message and every other live message of its "
                          "connection fail (SendFailed). An ACK that advances or a NAK resets "
                          "the count. Used while RetransmitTimeout is 0.",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaNic::m_retryCount),
                          MakeUintegerChecker<uint32_t>(0, 7))
            .AddAttribute("StallTimeouts",
                          "Under the fixed RetransmitTimeout, which has no retry limit: "
                          "timeouts in a row without progress after which a queue pair "
                          "gives up as at the retry limit (SendFailed), so that a run whose "
                          "peer never comes back (a host down for good) ends instead of "
                          "retransmitting forever. An ACK that advances or a NAK resets the "
                          "count, so no run that makes progress is affected; 1000 timeouts "
                          "are 4 s without progress at the HPCC simulators' 4 ms. 0: no limit.",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&RdmaNic::m_stallTimeouts),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdaptiveRetransmission",
                          "ConnectX adaptive retransmission (ROCE_ACCL roce_adp_retrans_en, "
                          "enabled in NVIDIA's sample query of the register): each queue pair "
                          "times out after AdpTimeBase x 2^e, e drawn at random at first and "
                          "then walked through AdpRanges, capped by the local ACK timeout "
                          "(AckTimeoutExponent); it errors after AdpTotalTimeout without "
                          "progress. false: the local ACK timeout itself with RetryCount "
                          "retries. Not used while RetransmitTimeout is set.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_adaptive),
                          MakeBooleanChecker())
            .AddAttribute("AdpTimeBase",
                          "Adaptive retransmission time_base: timeouts are this x 2^e. A power "
                          "of two microseconds, at least the firmware's adp_retx_base_timeout_min "
                          "(4 us, the default).",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&RdmaNic::m_adpTimeBase),
                          MakeAdpTimeBaseChecker())
            .AddAttribute("AdpInitialExponent",
                          "Adaptive retransmission timeout_init_low_bound: a queue pair's first "
                          "timeout exponent is drawn uniformly in [this, this + "
                          "AdpInitialSpread - 1]. NVIDIA does not publish the default "
                          "profile; 10 (4.096 ms at 4 us) is this model's choice: below it, "
                          "queue pairs starved behind strict priority or deep lossless "
                          "queues time out spuriously in the model's figure runs "
                          "(doc/faults.md).",
                          UintegerValue(10),
                          MakeUintegerAccessor(&RdmaNic::m_adpInitialExponent),
                          MakeUintegerChecker<uint8_t>(0, 31))
            .AddAttribute("AdpInitialSpread",
                          "Adaptive retransmission timeout_init_range_size: how many exponents "
                          "the first timeout is drawn from. 2 (4.096 or 8.192 ms) by this "
                          "model's choice.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&RdmaNic::m_adpInitialSpread),
                          MakeUintegerChecker<uint8_t>(1, 32))
            .AddAttribute("AdpRanges",
                          "Adaptive retransmission timeout_range[]: up to four ranges of "
                          "exponents LOW-HIGHxRETRIES, sorted and disjoint. Each value of a "
                          "range serves RETRIES expiries, then doubles; past HIGH the next "
                          "range starts at its LOW. 10-12x2,13-15x2,16-18x1,19-20x1 (4.1 ms to "
                          "4.2 s at 4 us) by this model's choice.",
                          StringValue("10-12x2,13-15x2,16-18x1,19-20x1"),
                          MakeStringAccessor(&RdmaNic::m_adpRanges),
                          MakeAdpRangesChecker())
            .AddAttribute("AdpStartRange",
                          "Adaptive retransmission start_range_index: the range a queue pair "
                          "enters at its first expiry if its drawn exponent is in none.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_adpStartRange),
                          MakeUintegerChecker<uint8_t>(0, 3))
            .AddAttribute("AdpDecrease",
                          "Adaptive retransmission dec_mode: on forward progress the timeout "
                          "halves (Halve), quarters (Quarter) or returns to its range's low "
                          "bound (Reset); below a range's low bound it enters the range "
                          "before.",
                          EnumValue(AdaptiveRetransmissionProfile::HALVE),
                          MakeEnumAccessor(&RdmaNic::m_adpDecrease),
                          MakeEnumChecker(AdaptiveRetransmissionProfile::HALVE,
                                          "Halve",
                                          AdaptiveRetransmissionProfile::QUARTER,
                                          "Quarter",
                                          AdaptiveRetransmissionProfile::RESET,
                                          "Reset"))
            .AddAttribute("AdpTotalTimeout",
                          "Adaptive retransmission retx_total_timeout: a queue pair that makes "
                          "no progress this long moves to the error state. 0 (the default): "
                          "qp_total_timeout, the local ACK timeout x RetryCount (30 s at "
                          "NCCL's 20 and 7).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaNic::m_adpTotal),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SelectiveRepeat",
                          "ROCE_ACCL selective_repeat_forced_en (off in NVIDIA's sample query, "
                          "the default): the receiver keeps packets that arrive after a gap "
                          "and NAKs each hole, naming where it ends, and the sender resends "
                          "only that hole. A timeout still resends everything not "
                          "acknowledged.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_selectiveRepeat),
                          MakeBooleanChecker())
            .AddAttribute("SlowRestart",
                          "ROCE_ACCL roce_slow_restart_en (on in NVIDIA's sample query, the "
                          "default): a queue pair that goes back (NAK or timeout) resumes "
                          "at a reduced rate, its congestion control's OnRetransmit (DCQCN: "
                          "SlowRestartFraction of line rate) instead of where it was.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_slowRestart),
                          MakeBooleanChecker())
            .AddAttribute("CnpInterval",
                          "Minimum time between two CNPs for one queue pair (notification "
                          "point rate limit; ConnectX's MIN_TIME_BETWEEN_CNPS, 4 us).",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CongestionControl",
                          "TypeId of the RdmaCongestionOps each queue pair runs "
                          "(ns3::Dcqcn, ns3::RdmaNoCongestionControl, ...).",
                          TypeIdValue(RdmaNoCongestionControl::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::m_ccTypeId),
                          MakeTypeIdChecker())
            .AddAttribute("InitialPsn",
                          "Draws the first PSN of each queue pair (24 bits); random as on "
                          "real NICs.",
                          StringValue("ns3::UniformRandomVariable[Min=0|Max=16777215]"),
                          MakePointerAccessor(&RdmaNic::m_initialPsn),
                          MakePointerChecker<RandomVariableStream>())
            .AddTraceSource("SendStarted",
                            "A queue pair was created and started sending a message.",
                            MakeTraceSourceAccessor(&RdmaNic::m_sendStartTrace),
                            "ns3::RdmaNic::MessageCallback")
            .AddTraceSource("SendComplete",
                            "Every byte of a message was acknowledged.",
                            MakeTraceSourceAccessor(&RdmaNic::m_sendCompleteTrace),
                            "ns3::RdmaNic::SendCompleteCallback")
            .AddTraceSource("Delivered",
                            "The last byte of a message arrived in order.",
                            MakeTraceSourceAccessor(&RdmaNic::m_deliveredTrace),
                            "ns3::RdmaNic::DeliveredCallback")
            .AddTraceSource("CnpSent",
                            "The notification point sent a CNP.",
                            MakeTraceSourceAccessor(&RdmaNic::m_cnpSentTrace),
                            "ns3::RdmaNic::MessageCallback")
            .AddTraceSource("CnpReceived",
                            "The reaction point received a CNP.",
                            MakeTraceSourceAccessor(&RdmaNic::m_cnpReceivedTrace),
                            "ns3::RdmaNic::MessageCallback")
            .AddTraceSource("GoBack",
                            "A queue pair went back to an earlier packet (NAK or timeout); "
                            "args: message, packet index resent from.",
                            MakeTraceSourceAccessor(&RdmaNic::m_goBackTrace),
                            "ns3::RdmaNic::GoBackCallback")
            .AddTraceSource("Timeout",
                            "A queue pair timed out and goes back; args: message, timeouts "
                            "in a row, the timeout it runs next.",
                            MakeTraceSourceAccessor(&RdmaNic::m_timeoutTrace),
                            "ns3::RdmaNic::TimeoutCallback")
            .AddTraceSource("SendFailed",
                            "A message failed: its queue pair moved to the error state (retry "
                            "count exceeded) or an earlier message of its connection failed "
                            "(flushed); it is never completed. Args: message, error.",
                            MakeTraceSourceAccessor(&RdmaNic::m_sendFailedTrace),
                            "ns3::RdmaNic::SendFailedCallback")
            .AddTraceSource("Retransmit",
                            "A data packet was sent again (go-back-N); args: message, its "
                            "payload bytes. Fires for messages that never complete too.",
                            MakeTraceSourceAccessor(&RdmaNic::m_retransmitTrace),
                            "ns3::RdmaNic::RetransmitCallback");
    return tid;
}

RdmaNic::RdmaNic() = default;

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    m_wake.Cancel();
    m_timeoutTimer.Cancel();
    m_timeoutQueue.clear();
    m_sendQps.clear();
    m_recvQps.clear();
    m_jobs.clear();
    m_connections.clear();
    for (auto& r : m_ready)
    {
        r.clear();
    }
    m_readyMask = 0;
    m_paced = decltype(m_paced)();
    m_port = nullptr;
    m_ccPrototype = nullptr;
    Object::DoDispose();
}

void
RdmaNic::SetPort(Ptr<RoceNetDevice> port, uint32_t address)
{
    m_port = port;
    m_address = address;
    port->SetOwner(this, true);
}

uint32_t
RdmaNic::AllocateQpn()
{
    NS_ABORT_MSG_IF(m_nextQpn > RocePsn::kMask, "out of 24-bit queue pair numbers");
    return m_nextQpn++;
}

uint32_t
RdmaNic::DrawInitialPsn()
{
    return m_initialPsn->GetInteger() & RocePsn::kMask;
}

void
RdmaNic::CreateSendQueuePair(const RdmaMessageInfo& info,
                             uint32_t qpn,
                             uint32_t dstIp,
                             uint32_t dstQpn,
                             uint32_t initialPsn)
{
    NS_ABORT_MSG_IF(info.priority >= RoceNetDevice::kControlClass,
                    "data priority must be 0-6 (class 7 carries control traffic)");
    NS_ABORT_MSG_UNLESS(m_port, "RdmaNic has no port");
    const Time now = Simulator::Now();
    auto owned = std::make_unique<RdmaSendQueuePair>();
    RdmaSendQueuePair* qp = owned.get();
    qp->info = info;
    if (info.jobId >= 0)
    {
        RdmaJobState& job = m_jobs[info.jobId];
        qp->job = &job;
        if (job.priorityClass >= 0)
        {
            qp->info.priority = static_cast<uint8_t>(job.priorityClass);
        }
        auto port = job.srcPortByDst.find(dstIp);
        if (port != job.srcPortByDst.end())
        {
            qp->info.srcPort = port->second;
        }
        job.progress.Post(info.iteration);
    }
    // A message posted with a UDP source port belongs to a connection (a
    // long-lived queue pair, as NCCL keeps per peer and channel); one without
    // is a connection of its own.
    Connection* conn = nullptr;
    if (qp->info.srcPort != 0)
    {
        conn = &m_connections[static_cast<uint64_t>(dstIp) << 16 | qp->info.srcPort];
        qp->onConnection = true;
        if (conn->error)
        {
            // Posted on a queue pair in the error state: completes in error at once.
            ++m_sendsFailed;
            m_sendStartTrace(qp->info);
            m_sendFailedTrace(qp->info, RdmaSendError::FLUSHED);
            return;
        }
    }
    else
    {
        // Spread queue pairs over ECMP paths as NICs do: a port per QP,
        // hashed with the host address so hosts do not all start alike.
        const uint32_t h = (qpn ^ (m_address * 0x9E3779B1u)) * 2654435761u;
        qp->info.srcPort = static_cast<uint16_t>(0xC000 | (h >> 18));
    }
    qp->qpn = qpn;
    qp->dstQpn = dstQpn;
    qp->dstIp = dstIp;
    qp->initialPsn = initialPsn;
    qp->payloadPerPacket = m_payloadPerPacket;
    qp->nPackets =
        std::max<uint64_t>(1, (info.bytes + m_payloadPerPacket - 1) / m_payloadPerPacket);
    qp->nextSend = now;
    qp->lastProgress = now;
    if (GetRecoveryMode() == RecoveryMode::ADAPTIVE)
    {
        if (!m_adpBuilt)
        {
            BuildAdaptiveRetransmission();
        }
        // Randomized so that queue pairs do not expire together; drawn from a
        // hash of the run's seed and the queue pair rather than a stream, so
        // that no other random variable's stream moves.
        uint64_t h = RngSeedManager::GetSeed() * 0x9E3779B97F4A7C15ull ^
                     RngSeedManager::GetRun() * 0xC2B2AE3D27D4EB4Full ^
                     (static_cast<uint64_t>(m_address) << 32 | qpn);
        h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
        h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
        h ^= h >> 31;
        qp->adp = m_adp.Start(static_cast<double>(h >> 11) * 0x1.0p-53);
    }
    if (!m_ccPrototype || m_ccPrototype->GetInstanceTypeId() != m_ccTypeId)
    {
        if (m_ccFactory.GetTypeId() != m_ccTypeId)
        {
            m_ccFactory = ObjectFactory();
            m_ccFactory.SetTypeId(m_ccTypeId);
        }
        m_ccPrototype = m_ccFactory.Create<RdmaCongestionOps>();
    }
    if (conn && conn->cc)
    {
        qp->cc = conn->cc; // the connection's rate and timers carry on
    }
    else
    {
        qp->cc = m_ccPrototype->Fork();
        qp->cc->Init(m_port->GetDataRate(), now);
        if (conn)
        {
            conn->cc = qp->cc;
        }
    }
    if (qp->job)
    {
        qp->cc->SetRateWeight(qp->job->rateWeight);
        qp->ccUsesProgress = qp->cc->UsesProgress();
    }
    m_sendQps.emplace(qpn, std::move(owned));
    m_sendStartTrace(qp->info);
    RdmaSendQueuePair* before = conn ? conn->tail : nullptr;
    if (conn)
    {
        conn->tail = qp;
    }
    if (before && !before->done && before->maxSent < before->nPackets)
    {
        qp->waiting = true;
        before->next = qp;
        return;
    }
    MakeReady(qp);
    m_port->TrySend();
}

void
RdmaNic::HandOver(RdmaSendQueuePair* qp)
{
    RdmaSendQueuePair* next = qp->next;
    qp->next = nullptr;
    next->waiting = false;
    if (qp->nextSend > next->nextSend)
    {
        // Pacing carries on across the messages of a connection.
        next->nextSend = qp->nextSend;
        next->lastSend = qp->lastSend;
        next->lastWire = qp->lastWire;
    }
    MakeReady(next);
}

void
RdmaNic::SetGate(int64_t jobId, bool open)
{
    RdmaJobState& job = m_jobs[jobId];
    if (job.open == open)
    {
        return;
    }
    job.open = open;
    if (!open)
    {
        // Queue pairs are parked lazily, when they next come up to send.
        return;
    }
    std::vector<RdmaSendQueuePair*> parked;
    parked.swap(job.parked);
    for (RdmaSendQueuePair* qp : parked)
    {
        qp->where = RdmaSendQueuePair::Where::IDLE;
        if (qp->done)
        {
            Release(qp);
            continue;
        }
        MakeReady(qp);
    }
    if (m_port)
    {
        m_port->TrySend();
    }
}

void
RdmaNic::SetPriorityClass(int64_t jobId, int16_t priorityClass)
{
    NS_ABORT_MSG_IF(priorityClass >= RoceNetDevice::kControlClass,
                    "data priority must be 0-6 (class 7 carries control traffic)");
    RdmaJobState& job = m_jobs[jobId];
    job.priorityClass = priorityClass < 0 ? -1 : priorityClass;
    if (priorityClass < 0)
    {
        return; // queue pairs keep the class they have
    }
    // Queue pairs that have sent nothing and sit in no class ring (parked
    // behind the closed gate, or behind their connection's previous message)
    // move too: none of their packets is in the fabric, so nothing reorders.
    for (auto& [qpn, qp] : m_sendQps)
    {
        const bool unsent = qp->maxSent == 0 && !qp->done;
        const bool outOfRings = qp->where == RdmaSendQueuePair::Where::PARKED || qp->waiting;
        if (qp->job == &job && unsent && outOfRings)
        {
            qp->info.priority = static_cast<uint8_t>(priorityClass);
        }
    }
}

void
RdmaNic::SetRateWeight(int64_t jobId, double weight)
{
    NS_ABORT_MSG_UNLESS(weight > 0, "rate weight must be positive");
    m_jobs[jobId].rateWeight = weight;
    for (auto& [qpn, qp] : m_sendQps)
    {
        if (qp->info.jobId == jobId)
        {
            qp->cc->SetRateWeight(weight);
        }
    }
}

std::vector<RdmaNic::SendingRate>
RdmaNic::GetSendingRates(Time now) const
{
    std::vector<SendingRate> rates;
    rates.reserve(m_sendQps.size());
    for (const auto& [qpn, qp] : m_sendQps)
    {
        // The congestion control's timers run lazily up to now, as they would at the next send.
        rates.push_back(
            {qpn,
             qp->dstIp,
             qp->info.srcPort,
             qp->info.jobId,
             qp->info.flowId,
             qp->info.bytes,
             qp->cnpsReceived,
             qp->cc ? qp->cc->GetRate(now).GetBitRate() : m_port->GetDataRate().GetBitRate()});
    }
    std::sort(rates.begin(), rates.end(), [](const SendingRate& a, const SendingRate& b) {
        return a.qpn < b.qpn;
    });
    return rates;
}

void
RdmaNic::SetSourcePort(int64_t jobId, uint32_t dstIp, uint16_t srcPort)
{
    if (srcPort == 0)
    {
        m_jobs[jobId].srcPortByDst.erase(dstIp);
        return;
    }
    m_jobs[jobId].srcPortByDst[dstIp] = srcPort;
}

const RdmaJobState*
RdmaNic::GetJobState(int64_t jobId) const
{
    auto it = m_jobs.find(jobId);
    return it == m_jobs.end() ? nullptr : &it->second;
}

void
RdmaNic::SetCongestionControlFactory(const ObjectFactory& factory)
{
    NS_ABORT_MSG_UNLESS(factory.IsTypeIdSet(), "RdmaNic: congestion control factory has no type");
    m_ccFactory = factory;
    m_ccTypeId = factory.GetTypeId();
    m_ccPrototype = nullptr; // made at the next queue pair, as the attribute's is
}

bool
RdmaNic::IsGateOpen(int64_t jobId) const
{
    auto it = m_jobs.find(jobId);
    return it == m_jobs.end() || it->second.open;
}

void
RdmaNic::MakeReady(RdmaSendQueuePair* qp)
{
    NS_ASSERT(qp->where == RdmaSendQueuePair::Where::IDLE);
    const Time now = Simulator::Now();
    if (qp->nextSend > now)
    {
        qp->where = RdmaSendQueuePair::Where::PACED;
        // A rate raised while the queue pair waits must shorten the wait (a
        // queue pair cut to 1 Mb/s would otherwise sit out 33 ms for its next
        // 4 KB frame whatever its rate does meanwhile): look again when the
        // rate may next change, if that comes first.
        Time at = qp->nextSend;
        if (qp->cc)
        {
            const Time change = qp->cc->GetNextRateChange(now);
            if (change > now && change < at)
            {
                at = change;
            }
        }
        m_paced.emplace(at.GetTimeStep(), qp);
        ScheduleWake(at);
    }
    else
    {
        qp->where = RdmaSendQueuePair::Where::READY;
        m_ready[qp->info.priority].push_back(qp);
        m_readyMask |= static_cast<uint8_t>(1u << qp->info.priority);
    }
}

void
RdmaNic::Park(RdmaSendQueuePair* qp)
{
    qp->where = RdmaSendQueuePair::Where::PARKED;
    qp->job->parked.push_back(qp);
}

void
RdmaNic::Release(RdmaSendQueuePair* qp)
{
    NS_ASSERT(qp->where == RdmaSendQueuePair::Where::IDLE);
    NS_ASSERT(!qp->next);
    if (qp->onConnection)
    {
        auto it = m_connections.find(static_cast<uint64_t>(qp->dstIp) << 16 | qp->info.srcPort);
        if (it != m_connections.end() && it->second.tail == qp)
        {
            it->second.tail = nullptr;
        }
    }
    m_sendQps.erase(qp->qpn);
}

void
RdmaNic::ScheduleWake(Time at)
{
    m_wake.RequestAt(at, &RdmaNic::Wake, this);
}

void
RdmaNic::Wake()
{
    m_wake.Fired();
    m_port->TrySend();
}

bool
RdmaNic::PullData(RoceNetDevice* port, uint8_t pausedMask, uint8_t& cls, RoceForwardingInfo& frame)
{
    const Time now = Simulator::Now();
    const int64_t nowTs = now.GetTimeStep();
    while (!m_paced.empty() && m_paced.top().first <= nowTs)
    {
        RdmaSendQueuePair* qp = m_paced.top().second;
        m_paced.pop();
        if (qp->nextSend > now && qp->cc)
        {
            // Woken at a possible rate change: the last packet's gap at the rate now.
            const double rate = static_cast<double>(qp->cc->GetRate(now).GetBitRate());
            qp->nextSend = qp->lastSend + PicoSeconds(std::llround(qp->lastWire * 8e12 / rate));
            if (qp->nextSend > now)
            {
                qp->where = RdmaSendQueuePair::Where::IDLE;
                MakeReady(qp);
                continue;
            }
        }
        qp->where = RdmaSendQueuePair::Where::READY;
        m_ready[qp->info.priority].push_back(qp);
        m_readyMask |= static_cast<uint8_t>(1u << qp->info.priority);
    }
    // Classes with ready queue pairs and no pause, highest first.
    unsigned candidates = m_readyMask & ~pausedMask & ((1u << RoceNetDevice::kControlClass) - 1);
    while (candidates != 0)
    {
        const int c = 31 - __builtin_clz(candidates);
        candidates &= ~(1u << c);
        auto& ring = m_ready[c];
        while (!ring.empty())
        {
            RdmaSendQueuePair* qp = ring.front();
            ring.pop_front();
            qp->where = RdmaSendQueuePair::Where::IDLE;
            if (qp->done)
            {
                Release(qp);
                continue;
            }
            if (qp->sndNxt >= qp->nPackets && !qp->ResendPending())
            {
                continue; // all sent; waiting for ACKs
            }
            if (qp->job && qp->info.gated && !qp->job->open)
            {
                Park(qp);
                continue;
            }
            frame = BuildData(qp);
            const uint32_t wire = RoceWire::WireBytes(frame.bytes);
            if (qp->ccUsesProgress)
            {
                qp->cc->SetProgress(qp->job->progress.Progress());
            }
            qp->cc->OnSend(wire, now);
            const double rate = static_cast<double>(qp->cc->GetRate(now).GetBitRate());
            qp->nextSend = now + PicoSeconds(std::llround(wire * 8e12 / rate));
            qp->lastSend = now;
            qp->lastWire = wire;
            if (!qp->rtoArmed)
            {
                ArmTimeout(qp);
            }
            if (qp->next && qp->maxSent == qp->nPackets)
            {
                HandOver(qp);
            }
            if (qp->sndNxt < qp->nPackets || qp->ResendPending())
            {
                // The port is busy for this frame anyway: a queue pair due by
                // then stays in the ring instead of costing a wake-up.
                if (qp->nextSend <= now + port->GetTxTime(frame.bytes))
                {
                    qp->where = RdmaSendQueuePair::Where::READY;
                    ring.push_back(qp);
                }
                else
                {
                    MakeReady(qp);
                }
            }
            if (ring.empty())
            {
                m_readyMask &= static_cast<uint8_t>(~(1u << c));
            }
            cls = static_cast<uint8_t>(c);
            return true;
        }
        m_readyMask &= static_cast<uint8_t>(~(1u << c));
    }
    if (!m_paced.empty())
    {
        ScheduleWake(TimeStep(m_paced.top().first));
    }
    return false;
}

RoceForwardingInfo
RdmaNic::BuildData(RdmaSendQueuePair* qp)
{
    uint64_t index;
    if (qp->ResendPending())
    {
        index = qp->resendIndex++;
    }
    else
    {
        index = qp->sndNxt++;
        if (index == qp->sndUna)
        {
            // Nothing was outstanding: the timeout counts from now.
            qp->lastProgress = Simulator::Now();
        }
    }
    const uint32_t payload = qp->PayloadOf(index);
    if (index < qp->maxSent)
    {
        qp->retransmittedBytes += payload;
        m_retransmitTrace(qp->info, payload);
    }
    else
    {
        qp->maxSent = index + 1;
        if (qp->job)
        {
            qp->job->progress.Sent(qp->info.iteration, payload);
        }
    }
    RoceOpcode op;
    if (qp->nPackets == 1)
    {
        op = RoceOpcode::WRITE_ONLY;
    }
    else if (index == 0)
    {
        op = RoceOpcode::WRITE_FIRST;
    }
    else if (index + 1 == qp->nPackets)
    {
        op = RoceOpcode::WRITE_LAST;
    }
    else
    {
        op = RoceOpcode::WRITE_MIDDLE;
    }
    RoceForwardingInfo f =
        NewFrame(qp->dstIp, qp->info.priority, RoceEcn::ECT0, qp->info.srcPort, op, qp->dstQpn);
    f.psn = RocePsn::ToWire(qp->initialPsn, index);
    f.ackRequest = index + 1 == qp->nPackets;
    if (op == RoceOpcode::WRITE_FIRST || op == RoceOpcode::WRITE_ONLY)
    {
        f.dmaLength = static_cast<uint32_t>(std::min<uint64_t>(qp->info.bytes, UINT32_MAX));
    }
    f.bytes += payload;
    return f;
}

RoceForwardingInfo
RdmaNic::NewFrame(uint32_t dstIp,
                  uint8_t dscp,
                  RoceEcn ecn,
                  uint16_t srcPort,
                  RoceOpcode op,
                  uint32_t destQp)
{
    // The frame is its fields: no packet is built unless something needs its bytes.
    RoceForwardingInfo f;
    f.etherType = RoceWire::kEtherTypeIpv4;
    f.srcIp = m_address;
    f.dstIp = dstIp;
    f.dscp = dscp;
    f.ecn = ecn;
    f.ipId = m_ipId++;
    f.srcPort = srcPort;
    f.dstPort = RoceWire::kUdpPort;
    f.opcode = op;
    f.destQp = destQp & 0xFFFFFF;
    f.bytes = RoceHeader::SizeOf(op) + RoceWire::kIcrc;
    return f;
}

void
RdmaNic::Complete(RdmaSendQueuePair* qp)
{
    qp->done = true;
    DisarmTimeout(qp);
    m_sendCompleteTrace(qp->info, Simulator::Now(), qp->retransmittedBytes);
    qp->cc = nullptr;
    if (qp->where == RdmaSendQueuePair::Where::IDLE)
    {
        Release(qp);
    }
}

int64_t
RdmaNic::AssignStreams(int64_t stream)
{
    m_initialPsn->SetStream(stream);
    return 1;
}

} // namespace ns3
