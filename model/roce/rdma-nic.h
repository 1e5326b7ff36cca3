/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_NIC_H
#define RDMA_NIC_H

#include "adaptive-retransmission.h"
#include "rdma-queue-pair.h"
#include "roce-net-device.h"
#include "wake-timer.h"

#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <memory>
#include <queue>
#include <set>
#include <unordered_map>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The RDMA engine of a host's RoCE NIC (aggregated to the host node).
 *
 * It holds the queue pairs, picks the next one to transmit whenever its
 * port is free (strict priority between classes, round robin within a
 * class, O(1) per packet; paced queue pairs wait in a heap, O(log n)),
 * paces each at the rate of its congestion control, honours job gates and
 * PFC pauses, acknowledges received data every AckInterval packets, NAKs
 * out-of-order packets, recovers with go-back-N and a retransmission
 * timeout, and sends CNPs for ECN-marked packets.
 *
 * Timeouts are ConnectX's adaptive retransmission by default
 * (AdaptiveRetransmission, see AdaptiveRetransmissionProfile): a randomized
 * timeout of microseconds that doubles through ranges, capped by the
 * InfiniBand local ACK timeout 4.096 us x 2^AckTimeoutExponent, with the
 * error state after that timeout x RetryCount without progress. With
 * AdaptiveRetransmission false the timeout is the local ACK timeout itself,
 * with a limit of RetryCount timeouts in a row without progress. Either way
 * the queue pair then moves to the error state and its messages fail
 * (SendFailed), as ConnectX NICs under NCCL do. A non-zero RetransmitTimeout
 * selects instead the fixed timeout of the HPCC-lineage simulators.
 * SlowRestart cuts a queue pair's rate when it goes back (its congestion
 * control's OnRetransmit); SelectiveRepeat keeps out-of-order packets at
 * the receiver and resends only the packet a NAK names.
 */
class RdmaNic : public Object, public RocePortOwner
{
  public:
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    /// Fix the stream of this object's random variables. \return streams used (1)
    int64_t AssignStreams(int64_t stream);

    /// Attach the NIC to its port; \p address is the host's IPv4 address (host order).
    void SetPort(Ptr<RoceNetDevice> port, uint32_t address);

    Ptr<RoceNetDevice> GetPort() const
    {
        return m_port;
    }

    uint32_t GetAddress() const
    {
        return m_address;
    }

    /// A fresh queue pair number on this NIC.
    uint32_t AllocateQpn();
    /// A first PSN drawn from the InitialPsn attribute.
    uint32_t DrawInitialPsn();

    /**
     * Connection set-up, receiver side: expect \p info.bytes on \p qpn from
     * (\p srcIp, \p srcQpn), first PSN \p initialPsn.
     */
    void CreateReceiveQueuePair(const RdmaMessageInfo& info,
                                uint32_t qpn,
                                uint32_t srcIp,
                                uint32_t srcQpn,
                                uint32_t initialPsn);
    /// Connection set-up, sender side: start sending \p info.bytes now.
    void CreateSendQueuePair(const RdmaMessageInfo& info,
                             uint32_t qpn,
                             uint32_t dstIp,
                             uint32_t dstQpn,
                             uint32_t initialPsn);

    /// Open or close job \p jobId's gate; takes effect at the next packet boundary.
    void SetGate(int64_t jobId, bool open);
    bool IsGateOpen(int64_t jobId) const;
    /**
     * Traffic class (0-6) of job \p jobId's queue pairs created from now on,
     * overriding the class their messages carry, and of those that have sent
     * nothing yet, parked behind the job's closed gate or waiting behind their
     * connection's previous message; -1 restores the message's for new ones.
     */
    void SetPriorityClass(int64_t jobId, int16_t priorityClass);
    /// Multiplies the additive increase of job \p jobId's queue pairs, current and new.
    void SetRateWeight(int64_t jobId, double weight);
    /**
     * UDP source port (the ECMP hash input) of job \p jobId's queue pairs to
     * \p dstIp created from now on; 0 restores the message's own.
     */
    void SetSourcePort(int64_t jobId, uint32_t dstIp, uint16_t srcPort);
    /// What the NIC holds for job \p jobId; null if it never heard of it.
    const RdmaJobState* GetJobState(int64_t jobId) const;
    /**
     * Queue pairs created from now on run congestion control made by
     * \p factory, attribute values included (the CongestionControl attribute
     * names a type only, configured by its defaults). The attribute takes the
     * factory's type; setting it to another type later drops the factory.
     */
    void SetCongestionControlFactory(const ObjectFactory& factory);

    /// Queue pairs still sending or waiting for ACKs.
    std::size_t GetActiveSendQueuePairs() const
    {
        return m_sendQps.size();
    }

    /// A sending queue pair as a monitor sees it.
    struct SendingRate
    {
        uint32_t qpn{0};
        uint32_t dstIp{0};
        uint16_t srcPort{0};
        int64_t jobId{-1};
        uint64_t flowId{0};       ///< its message's (RdmaMessageInfo::flowId)
        uint64_t bytes{0};        ///< its message's size
        uint32_t cnpsReceived{0}; ///< CNPs that reached it so far
        uint64_t rateBps{0};      ///< its congestion control's rate now
    };

    /// Every queue pair still sending or waiting for ACKs, by queue pair number.
    std::vector<SendingRate> GetSendingRates(Time now) const;

    uint64_t GetCnpsSent() const
    {
        return m_cnpsSent;
    }

    uint64_t GetCnpsReceived() const
    {
        return m_cnpsReceived;
    }

    /**
     * The message a receive queue pair of this NIC was created for (they are
     * kept for the whole run), or null for an unknown \p qpn. For attributing
     * a lost frame to its message; not on the packet path.
     */
    const RdmaMessageInfo* FindReceiveMessage(uint32_t qpn) const
    {
        auto it = m_recvQps.find(qpn);
        return it == m_recvQps.end() ? nullptr : &it->second.info;
    }

    uint64_t GetTimeouts() const
    {
        return m_timeouts;
    }

    uint64_t GetNaksSent() const
    {
        return m_naksSent;
    }

    /// Messages that failed (SendFailed), for any reason.
    uint64_t GetSendsFailed() const
    {
        return m_sendsFailed;
    }

    /// How queue pairs time out.
    enum class RecoveryMode : uint8_t
    {
        ADAPTIVE,  ///< ConnectX adaptive retransmission, capped by the local ACK timeout
        LOCAL_ACK, ///< the InfiniBand local ACK timeout, RetryCount retries
        FIXED,     ///< RetransmitTimeout, StallTimeouts retries
    };

    RecoveryMode GetRecoveryMode() const;

    /**
     * RetransmitTimeout if it is set, else the local ACK timeout 4.096 us x
     * 2^AckTimeoutExponent: the timeout of every queue pair, or under
     * adaptive retransmission the cap of each one's own.
     */
    Time GetRetransmitTimeout() const;
    /// The timeout \p qp runs now.
    Time GetRetransmitTimeout(const RdmaSendQueuePair* qp) const;
    /// Adaptive retransmission: how long without progress a queue pair errors after.
    Time GetTotalTimeout() const;
    /// When a queue pair moves to the error state, in words (for failure reports).
    std::string DescribeRetryLimit() const;

    uint32_t GetRetryCount() const
    {
        return m_retryCount;
    }

    // RocePortOwner
    void HandleReceive(RoceNetDevice* port, Ptr<Packet> p, const RoceForwardingInfo& info) override;
    bool PullData(RoceNetDevice* port,
                  uint8_t pausedMask,
                  uint8_t& cls,
                  RoceForwardingInfo& frame) override;

    /// Sender side done: every byte acknowledged. Args: info, ack time, retransmitted bytes.
    typedef void (*SendCompleteCallback)(const RdmaMessageInfo& info,
                                         Time ackTime,
                                         uint64_t retransmittedBytes);
    /// A message (queue pair) started sending.
    typedef void (*MessageCallback)(const RdmaMessageInfo& info);
    /// A queue pair went back to packet index \p from (NAK or timeout).
    typedef void (*GoBackCallback)(const RdmaMessageInfo& info, uint64_t from);
    /// Receiver side done: the last byte was delivered.
    typedef void (*DeliveredCallback)(const RdmaMessageInfo& info, Time when);
    /// Sender side failed: the queue pair is in the error state. Args: info, why.
    typedef void (*SendFailedCallback)(const RdmaMessageInfo& info, RdmaSendError error);
    /// Trace signature of Retransmit: message, payload bytes sent again.
    typedef void (*RetransmitCallback)(const RdmaMessageInfo& info, uint32_t bytes);
    /// A queue pair timed out: message, timeouts in a row, its next timeout.
    typedef void (*TimeoutCallback)(const RdmaMessageInfo& info, uint32_t retries, Time next);

  protected:
    void DoDispose() override;

  private:
    void MakeReady(RdmaSendQueuePair* qp);
    void Park(RdmaSendQueuePair* qp);
    RoceForwardingInfo BuildData(RdmaSendQueuePair* qp);
    /// A frame of this NIC with no payload yet (its size counts the headers and ICRC).
    RoceForwardingInfo NewFrame(uint32_t dstIp,
                                uint8_t dscp,
                                RoceEcn ecn,
                                uint16_t srcPort,
                                RoceOpcode op,
                                uint32_t destQp);
    /// An ACK, NAK or CNP; a selective-repeat NAK also names the end of its hole, \p holeEnd.
    void SendControl(const RdmaRecvQueuePair& rq,
                     RoceOpcode op,
                     uint8_t syndrome,
                     uint64_t index,
                     uint64_t holeEnd = 0);
    /// NAK the gap at rq.expected (and under selective repeat, say where it ends).
    void SendHoleNak(RdmaRecvQueuePair& rq);
    void ReceiveData(const RoceForwardingInfo& f);
    void ReceiveAck(const RoceForwardingInfo& f);
    /// (Re)arm \p qp's timeout at its last progress plus the timeout.
    void ArmTimeout(RdmaSendQueuePair* qp);
    /// Forget \p qp's timeout (it completed or failed).
    void DisarmTimeout(RdmaSendQueuePair* qp);
    /// The earliest timeouts fell due: run each, then wait for the next.
    void RunTimeouts();
    void OnTimeout(uint32_t qpn);
    /// Whether \p qp, timed out at \p now, has no retry left.
    bool OutOfRetries(const RdmaSendQueuePair* qp, Time now) const;
    /// An ACK advanced \p qp or a NAK arrived.
    void OnForwardProgress(RdmaSendQueuePair* qp, Time now);
    /// \p qp resends from packet \p from (NAK or timeout): slow restart, and back to sending.
    void GoBack(RdmaSendQueuePair* qp, uint64_t from, Time now);
    /// Selective repeat: mark \p index received early at \p rq.
    static void MarkEarly(RdmaRecvQueuePair& rq, uint64_t index);
    static bool IsEarly(const RdmaRecvQueuePair& rq, uint64_t index);
    /// m_adp from the Adp* attributes; aborts naming the attribute if they do not fit.
    void BuildAdaptiveRetransmission();
    void Complete(RdmaSendQueuePair* qp);
    /// \p qp ran out of retries: it and every live message of its connection fail.
    void FailConnection(RdmaSendQueuePair* qp);
    void ScheduleWake(Time at);
    void Wake();
    void Release(RdmaSendQueuePair* qp);
    /// \p qp sent its last packet: the next message of its connection may start.
    void HandOver(RdmaSendQueuePair* qp);

    /**
     * A connection: the messages a sender posts to one destination with one
     * UDP source port, as on one long-lived RDMA queue pair. They share one
     * congestion-control state and are sent in order, each starting when the
     * one before has sent its last packet.
     */
    struct Connection
    {
        Ptr<RdmaCongestionOps> cc;
        RdmaSendQueuePair* tail{nullptr}; ///< the newest message still alive
        bool error{false}; ///< the queue pair is in the error state: new messages fail at once
    };

    Ptr<RoceNetDevice> m_port;
    uint32_t m_address{0};
    uint32_t m_payloadPerPacket{1000};
    uint32_t m_ackInterval{16};
    Time m_rto; ///< fixed timeout; zero selects the local ACK timeout
    uint32_t m_ackTimeoutExponent{20};
    uint32_t m_retryCount{7};
    uint32_t m_stallTimeouts{1000}; ///< the fixed timeout's limit; 0: none
    bool m_adaptive{true};
    Time m_adpTimeBase;
    uint8_t m_adpInitialExponent{10};
    uint8_t m_adpInitialSpread{2};
    std::string m_adpRanges;
    uint8_t m_adpStartRange{0};
    AdaptiveRetransmissionProfile::Decrease m_adpDecrease{AdaptiveRetransmissionProfile::HALVE};
    Time m_adpTotal; ///< zero: the local ACK timeout x RetryCount
    /// The profile the attributes above give, built at the first queue pair.
    AdaptiveRetransmissionProfile m_adp;
    bool m_adpBuilt{false};
    bool m_selectiveRepeat{false};
    bool m_slowRestart{true};
    Time m_cnpInterval;
    TypeId m_ccTypeId;
    ObjectFactory m_ccFactory; ///< type and attribute values; used while its type is m_ccTypeId
    Ptr<RdmaCongestionOps> m_ccPrototype;
    Ptr<RandomVariableStream> m_initialPsn;
    uint32_t m_nextQpn{0x100};
    uint16_t m_ipId{0};

    /**
     * Armed timeouts, (time step, QPN), earliest first, behind one wake-up.
     * A timeout of seconds (InfiniBand's 4.29 s) would otherwise leave a
     * cancelled event per finished message in the simulator's queue for
     * that long.
     */
    std::set<std::pair<int64_t, uint32_t>> m_timeoutQueue;
    WakeTimer m_timeoutTimer;
    std::unordered_map<uint32_t, std::unique_ptr<RdmaSendQueuePair>> m_sendQps;
    std::unordered_map<uint32_t, RdmaRecvQueuePair> m_recvQps;
    std::unordered_map<int64_t, RdmaJobState> m_jobs; ///< by job id
    /// by destination address << 16 | UDP source port; only messages posted with a port
    std::unordered_map<uint64_t, Connection> m_connections;

    /// Queue pairs that may send now, per class, served round robin.
    std::array<std::deque<RdmaSendQueuePair*>, RoceNetDevice::kClasses> m_ready;
    uint8_t m_readyMask{0}; ///< bit c set while m_ready[c] may hold queue pairs
    using PacedEntry = std::pair<int64_t, RdmaSendQueuePair*>;
    /// Queue pairs waiting for their pacing time, earliest first.
    std::priority_queue<PacedEntry, std::vector<PacedEntry>, std::greater<PacedEntry>> m_paced;
    WakeTimer m_wake;

    uint64_t m_cnpsSent{0};
    uint64_t m_cnpsReceived{0};
    uint64_t m_timeouts{0};
    uint64_t m_naksSent{0};
    uint64_t m_sendsFailed{0};

    TracedCallback<const RdmaMessageInfo&> m_sendStartTrace;
    TracedCallback<const RdmaMessageInfo&, Time, uint64_t> m_sendCompleteTrace;
    TracedCallback<const RdmaMessageInfo&, Time> m_deliveredTrace;
    TracedCallback<const RdmaMessageInfo&> m_cnpSentTrace;
    TracedCallback<const RdmaMessageInfo&> m_cnpReceivedTrace;
    TracedCallback<const RdmaMessageInfo&, uint64_t> m_goBackTrace;
    TracedCallback<const RdmaMessageInfo&, RdmaSendError> m_sendFailedTrace;
    TracedCallback<const RdmaMessageInfo&, uint32_t> m_retransmitTrace;
    TracedCallback<const RdmaMessageInfo&, uint32_t, Time> m_timeoutTrace;
};

} // namespace ns3

#endif /* RDMA_NIC_H */
