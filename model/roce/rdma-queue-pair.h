/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_QUEUE_PAIR_H
#define RDMA_QUEUE_PAIR_H

#include "adaptive-retransmission.h"
#include "iteration-progress.h"
#include "rdma-congestion-ops.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief What identifies one RDMA message (one queue pair per message):
 * set by whoever posts it, reported back in traces.
 */
struct RdmaMessageInfo
{
    uint64_t flowId{0};     ///< unique id of the message in the simulation
    int64_t jobId{-1};      ///< owning job, -1 for none (never gated)
    int64_t iteration{-1};  ///< job iteration, -1 for none
    int64_t collective{-1}; ///< collective (gradient bucket) within the iteration, -1 for none
    int64_t step{-1};       ///< step of the collective, -1 for none
    uint32_t srcNode{0};    ///< ns-3 node id of the sender
    uint32_t dstNode{0};    ///< ns-3 node id of the receiver
    uint64_t bytes{0};      ///< payload bytes
    uint8_t priority{3};    ///< traffic class 0-6 (DSCP and PFC priority)
    uint16_t srcPort{0};    ///< UDP source port (ECMP entropy); 0 = derived from the QPN
    bool gated{true};       ///< held by its job's gate (false: communication not planned)
    Time start;             ///< when the message was posted
};

/**
 * \ingroup collective-scheduling
 * \brief Why a queue pair gave up on a message: it moved to the error state
 * and the message's work request completed in error, as on a ConnectX NIC.
 */
enum class RdmaSendError : uint8_t
{
    /// RetryCount timeouts in a row brought no progress and the next one
    /// expired too (IBV_WC_RETRY_EXC_ERR).
    RETRY_EXCEEDED,
    /// An earlier message of the same connection failed; the queue pair is in
    /// the error state, so this one is flushed (IBV_WC_WR_FLUSH_ERR).
    FLUSHED,
};

/// \return a short text for \p error ("retry count exceeded", ...)
inline const char*
ToString(RdmaSendError error)
{
    switch (error)
    {
    case RdmaSendError::RETRY_EXCEEDED:
        return "retry count exceeded";
    case RdmaSendError::FLUSHED:
        return "flushed: an earlier message of its connection failed";
    }
    return "unknown error";
}

/**
 * \ingroup collective-scheduling
 * \brief Sender state of a reliable-connected queue pair carrying one
 * message with go-back-N recovery. Sequence state is 64-bit packet indices;
 * the 24-bit wire PSN is derived with RocePsn.
 */
struct RdmaSendQueuePair
{
    enum class Where : uint8_t
    {
        IDLE,   ///< in no NIC structure (all sent, or not started)
        READY,  ///< in the NIC's ready ring of its class
        PACED,  ///< in the NIC's pacing heap, waiting for its next send time
        PARKED, ///< held behind its job's closed gate
    };

    RdmaMessageInfo info;
    uint32_t qpn{0};
    uint32_t dstQpn{0};
    uint32_t dstIp{0};
    uint32_t initialPsn{0};
    uint32_t payloadPerPacket{1000};
    uint64_t nPackets{0};
    uint64_t sndNxt{0};  ///< next packet index to send
    uint64_t sndUna{0};  ///< first packet index not acknowledged
    uint64_t maxSent{0}; ///< one past the highest index ever sent
    uint64_t retransmittedBytes{0};
    uint32_t cnpsReceived{0}; ///< CNPs that reached it (for monitors)
    Time nextSend;            ///< pacing: earliest time of the next packet
    Time lastSend;            ///< pacing: when the last data packet was handed to the port
    uint32_t lastWire{0};     ///< pacing: wire bytes of that packet
    Time lastProgress;        ///< last time the acknowledged index advanced or a NAK arrived
    Ptr<RdmaCongestionOps> cc;
    struct RdmaJobState* job{nullptr}; ///< the owning job's state on this NIC, null for none
    Where where{Where::IDLE};
    /// The next message of the same connection, waiting until this one has sent its last packet.
    RdmaSendQueuePair* next{nullptr};
    bool waiting{false};        ///< behind an earlier message of its connection
    bool onConnection{false};   ///< posted with a UDP source port: part of a connection
    bool ccUsesProgress{false}; ///< cc->UsesProgress(), asked once
    bool rtoArmed{false};
    bool done{false};      ///< every byte acknowledged, or failed
    uint32_t retries{0};   ///< timeouts in a row without progress (ACK advancing or NAK)
    int64_t rtoAt{0};      ///< time step of the armed timeout, valid while rtoArmed
    int64_t stallSince{0}; ///< time step of the last progress before this run of timeouts
    /// Selective repeat: the hole a NAK named, [resendIndex, resendEnd), goes
    /// before sndNxt; empty when the two are equal.
    uint64_t resendIndex{0};
    uint64_t resendEnd{0};
    AdaptiveRetransmissionState adp; ///< adaptive retransmission: the current timeout

    bool ResendPending() const
    {
        return resendIndex < resendEnd;
    }

    uint32_t PayloadOf(uint64_t index) const
    {
        uint64_t left = info.bytes - index * payloadPerPacket;
        return static_cast<uint32_t>(left < payloadPerPacket ? left : payloadPerPacket);
    }
};

/**
 * \ingroup collective-scheduling
 * \brief Receiver state of a queue pair: the expected PSN, ACK coalescing,
 * NAK suppression and CNP rate limiting.
 */
struct RdmaRecvQueuePair
{
    RdmaMessageInfo info;
    uint32_t qpn{0};
    uint32_t srcQpn{0};
    uint32_t srcIp{0};
    uint32_t initialPsn{0};
    uint64_t nPackets{0};
    uint64_t expected{0}; ///< next in-order packet index
    /// Selective repeat: packets received past `expected`, one bit each from
    /// `expected` rounded down to 64 (empty until the first gap).
    std::vector<uint64_t> early;
    uint64_t earlyBase{0}; ///< packet index of bit 0 of early[0]
    uint64_t beyond{0};    ///< selective repeat: one past the highest index received
    uint64_t nakEnd{0};    ///< selective repeat: one past the hole the last NAK named
    uint32_t sinceAck{0};  ///< packets received since the last ACK
    bool nakSent{false};   ///< a NAK for `expected` is outstanding
    bool delivered{false};
    Time lastCnp;
    bool cnpSent{false};
};

/**
 * \ingroup collective-scheduling
 * \brief What a NIC knows of one job: the scheduler's settings for it (gate,
 * priority class, rate weight, ECMP source ports) and the job's progress
 * through its current iteration, which progress-aware congestion control
 * (MLTCP) reads.
 */
struct RdmaJobState
{
    bool open{true}; ///< gate: closed, the NIC sends no new packet of the job
    std::vector<RdmaSendQueuePair*> parked;
    int16_t priorityClass{-1}; ///< class of the job's new queue pairs; -1 keeps the message's
    double rateWeight{1.0};    ///< multiplies the additive increase of the job's queue pairs
    /// destination IPv4 address -> UDP source port of the job's new queue pairs to it
    std::unordered_map<uint32_t, uint16_t> srcPortByDst;
    IterationProgress progress; ///< through the iteration, from this NIC
};

} // namespace ns3

#endif /* RDMA_QUEUE_PAIR_H */
