/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_TRANSPORT_H
#define COLLECTIVE_TRANSPORT_H

#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One point-to-point message of a collective, as NCCL would post it.
 */
struct CollectiveMessage
{
    uint32_t srcRank{0}; ///< sending rank, 0..N-1
    uint32_t dstRank{0}; ///< receiving rank, 0..N-1
    uint64_t bytes{0};   ///< payload; can be 0 when the buffer is smaller than N x channels
    uint32_t channel{0}; ///< parallel ring / queue pair index, 0..channels-1
    uint32_t step{0};    ///< algorithm step, 0-based (0 for every all-to-all message)
    /// How long the sender waits, once the message is posted, before its
    /// first byte leaves: a protocol's fixed per-step cost (NCCL's LL, LL128
    /// or Simple latency, see NcclCollective). Zero for most collectives.
    Time delay;
};

/**
 * \ingroup collective-scheduling
 * \brief What the messages a job posts from now on belong to
 * (CollectiveTransport::BeginCollective).
 */
struct CollectiveTag
{
    uint32_t iteration{0}; ///< the job's iteration
    uint32_t index{0};     ///< the communication op of the iteration (a gradient bucket)
    /// The communicator: 0 for the job's data-parallel one; each other (tensor,
    /// pipeline, expert) has connections of its own, as NCCL communicators do.
    uint8_t communicator{0};
    /// Held by the job's gate: the communication its scheduler plans. The
    /// rest passes a closed gate, in the job's traffic class.
    bool gated{true};
};

/**
 * \ingroup collective-scheduling
 * \brief What a collective needs from a network model: move bytes between
 * two ranks and say when they arrived.
 *
 * Collectives are written against this interface only, so the same
 * decomposition runs over the packet-level RoCE fabric, a flow-level model or
 * a test double. Ranks are the collective's own indices; mapping them to
 * hosts and queue pairs is the transport's business.
 */
class CollectiveTransport
{
  public:
    virtual ~CollectiveTransport() = default;

    /**
     * Move \p m.bytes from rank \p m.srcRank to rank \p m.dstRank and call
     * \p onDelivered once, when the last byte arrived. The bytes leave
     * \p m.delay after the call. Calling it from inside Send() (a zero-delay
     * transport) is allowed.
     */
    virtual void Send(const CollectiveMessage& m, std::function<void()> onDelivered) = 0;

    /// Called with the reason when the network gave up on a message.
    using FailedCallback = std::function<void(const std::string& reason)>;

    /**
     * As Send, for a sender that must hear of failure: when the network gives
     * up on the message (its queue pair moved to the error state, as NCCL
     * sees a work request complete in error) \p onFailed is called once with
     * the reason, and \p onDelivered never. The default suits a transport
     * that never loses a message: it is Send, and \p onFailed is never called.
     */
    virtual void Post(const CollectiveMessage& m,
                      std::function<void()> onDelivered,
                      FailedCallback onFailed)
    {
        (void)onFailed;
        Send(m, std::move(onDelivered));
    }

    /**
     * The messages sent from now on belong to \p tag (for tagging,
     * accounting, connections and gates).
     */
    virtual void BeginCollective(const CollectiveTag& /* tag */)
    {
    }

    /**
     * The server rank \p rank runs on: equal for two ranks exactly when they
     * share a server's NVLink. Hierarchical collectives build their rings
     * from it. The default puts every rank on a server of its own.
     */
    virtual int64_t GetServer(uint32_t rank) const
    {
        return rank;
    }
};

} // namespace ns3

#endif /* COLLECTIVE_TRANSPORT_H */
