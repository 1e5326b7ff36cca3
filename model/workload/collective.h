/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_H
#define COLLECTIVE_H

#include "collective-transport.h"

#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief A collective operation over N ranks, decomposed into the
 * point-to-point messages NCCL would send and driven through a
 * CollectiveTransport.
 *
 * Usage: Configure(N, S, transport), then Start(done) as often as needed (one
 * run at a time). The base keeps the shared machinery (configuration,
 * message and byte counters, trace sources, the single call of done); a
 * subclass decides which messages to send and when (DoStart, HandleDelivery)
 * and calls Finish() once every rank is done.
 *
 * Byte split: S is the per-rank buffer of the collective (the gradient for
 * an all-reduce, the full output for an all-gather, the full send buffer
 * for an all-to-all). Channel c carries ChannelBytes(c) = S / C bytes, the
 * first S mod C channels one byte more, and each channel is an independent
 * ring / set of queue pairs. Within a channel, the N chunks are split the
 * same way (ChunkBytes), so chunks differ by at most one byte and the totals
 * are exact. When S < N x C some messages carry 0 bytes; they are still sent,
 * as they carry the step's synchronization.
 */
class Collective : public Object
{
  public:
    static TypeId GetTypeId();

    Collective();
    ~Collective() override;

    /**
     * Sets the size of the collective. \p transport is not owned and must
     * outlive every run.
     * \throws std::invalid_argument if \p nRanks is 0, \p transport is null,
     *         the subclass rejects the configuration, or a run is in progress
     */
    void Configure(uint32_t nRanks, uint64_t bytes, CollectiveTransport* transport);

    /// Called once when the transport gave up on message \p m of a run, with its reason.
    using FailedCallback =
        std::function<void(const CollectiveMessage& m, const std::string& reason)>;

    /**
     * Starts one run; \p done is called once, when every rank has finished.
     * With nothing to send (N == 1) \p done is called before Start returns.
     * Counters restart from zero.
     *
     * If the transport gives up on a message of the run (CollectiveTransport::Post),
     * \p failed is called, at most once per run. A run still going ends there:
     * \p done is never called, nothing more is sent and deliveries still in
     * flight are ignored. A message can also fail after its run finished (its
     * sender's queue pair gave up waiting for the last acknowledgement after
     * the data arrived): \p failed then reports it late. With no \p failed,
     * a failure is a fatal error, never ignored.
     * \throws std::logic_error if not configured or a run is in progress
     */
    void Start(std::function<void()> done, FailedCallback failed = nullptr);

    /**
     * Ends the current run, if any, calling neither done nor failed: nothing
     * more is sent and deliveries still in flight are ignored (their failures
     * are still reported).
     */
    void Abort();

    /**
     * \return the name CreateCollective() knows this algorithm by: the short
     * name its class gave itself (NS_OBJECT_SHORT_NAME), else its TypeId name
     */
    virtual std::string GetName() const;

    /// \return the messages handed to the transport in the current (or last) run
    uint64_t GetMessagesSent() const;
    /// \return the bytes handed to the transport in the current (or last) run
    uint64_t GetBytesSent() const;
    /// \return the messages delivered in the current (or last) run
    uint64_t GetMessagesDelivered() const;

    /**
     * Per-rank bytes sent over the whole collective, from the algorithm's
     * arithmetic (no run needed), e.g. 2(N-1)/N x S for a ring all-reduce.
     * When S does not divide evenly ranks differ by a few bytes; the value is
     * then the largest any rank sends (the busiest NIC).
     */
    virtual uint64_t BytesPerRank() const = 0;

    uint32_t GetRankCount() const;
    uint64_t GetBytes() const;
    /**
     * \return the channels the runs use: the Channels attribute, unless the
     * algorithm needs more (NCCL's rings use at least one channel per NIC
     * of a server, see NcclRingCollective)
     */
    virtual uint32_t GetChannels() const;
    bool IsConfigured() const;
    bool IsRunning() const;

    /// \return the bytes channel \p channel carries (of S)
    uint64_t ChannelBytes(uint32_t channel) const;
    /// \return the bytes of chunk \p chunk (of N) of channel \p channel
    uint64_t ChunkBytes(uint32_t channel, uint32_t chunk) const;
    /// \return \p total / \p parts, plus one for the first \p total mod \p parts indices
    static uint64_t SplitEvenly(uint64_t total, uint64_t parts, uint64_t index);

    /// Message trace signature.
    typedef void (*MessageTracedCallback)(const CollectiveMessage& m);

  protected:
    void DoDispose() override;

    /**
     * Checks the configuration just set (GetRankCount(), GetBytes());
     * throws std::invalid_argument to reject it.
     */
    virtual void DoConfigure();
    /// Sends the first messages of a run (or calls Finish() if there are none).
    virtual void DoStart() = 0;
    /// Called when message \p m was delivered; counters are already updated.
    virtual void HandleDelivery(const CollectiveMessage& m) = 0;

    /// The transport of the runs (null before Configure).
    CollectiveTransport* GetTransport() const
    {
        return m_transport;
    }

    /// Hands \p m to the transport, counts it, and calls HandleDelivery on delivery.
    void SendMessage(const CollectiveMessage& m);
    /// Ends the run: calls done once. Do not touch run state after calling it.
    void Finish();

  private:
    /// A run's failure callback, kept as long as its messages may fail.
    struct RunFailure
    {
        FailedCallback failed;
        bool reported{false};
    };

    /// The transport gave up on \p m, sent in run \p run: that run fails.
    void MessageFailed(uint64_t run,
                       const std::shared_ptr<RunFailure>& state,
                       const CollectiveMessage& m,
                       const std::string& reason);

    uint32_t m_channels;
    uint32_t m_nRanks{0};
    uint64_t m_bytes{0};
    CollectiveTransport* m_transport{nullptr};
    bool m_running{false};
    uint64_t m_runs{0}; ///< runs started: tells a delivery of a failed run from one of the current
    std::function<void()> m_done;
    std::shared_ptr<RunFailure> m_failure; ///< of the current run
    uint64_t m_messagesSent{0};
    uint64_t m_bytesSent{0};
    uint64_t m_messagesDelivered{0};
    /// A Post is under way: deliveries a zero-delay transport makes from
    /// inside it wait in m_inlineDeliveries until the outermost Post returns.
    bool m_posting{false};
    std::deque<std::function<void()>> m_inlineDeliveries;

    TracedCallback<const CollectiveMessage&> m_sendTrace;
    TracedCallback<const CollectiveMessage&> m_deliverTrace;
    TracedCallback<> m_finishTrace;
};

/**
 * \ingroup collective-scheduling
 * \brief A collective in which every rank runs the same sequence of steps:
 * in step t, on each channel c, rank r sends one message to
 * GetSendPeer(r, c, t) and receives exactly one message of step t on c.
 * Rank r posts step t+1 on a channel only after it has received its step-t
 * message on that channel (its own step-t send is posted by then).
 * Channels progress independently.
 *
 * Messages of different steps may arrive out of order; an early one is
 * remembered until the rank reaches that step. The run finishes when every
 * rank has received every step on every channel. Ring all-reduce,
 * reduce-scatter, all-gather and halving-doubling are such collectives.
 */
class SteppedCollective : public Collective
{
  public:
    static TypeId GetTypeId();

    /// \return the number of steps of one run
    virtual uint32_t GetStepCount() const = 0;
    /**
     * \return the rank \p rank sends to in step \p step on channel \p channel;
     * a permutation of ranks per (channel, step). Channels may follow
     * different rings (NCCL builds one ring per channel).
     */
    virtual uint32_t GetSendPeer(uint32_t rank, uint32_t channel, uint32_t step) const = 0;
    /// \return the bytes \p rank sends in step \p step on channel \p channel
    virtual uint64_t GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const = 0;
    /// \return the busiest rank's GetStepBytes summed over every step and channel
    uint64_t BytesPerRank() const override;

  protected:
    void DoStart() override;
    void HandleDelivery(const CollectiveMessage& m) override;

    /**
     * The delay of every step's message (CollectiveMessage::delay: the
     * transport sends its bytes that long after the post): a protocol's
     * fixed per-step cost (NCCL's latency of LL, LL128 or Simple). Zero, the
     * default, for every algorithm without a protocol. A field of the
     * message rather than an event of the collective, so that a recording
     * transport (the schedulers' estimate) still sees every message of a run
     * from inside Start.
     */
    virtual Time GetStepDelay() const;

  private:
    /// Posts every step rank \p rank may post on \p channel now.
    void Advance(uint32_t rank, uint32_t channel);
    /// Hands the message of step \p step of (\p rank, \p channel) to the transport.
    void PostStep(uint32_t rank, uint32_t channel, uint32_t step);
    std::size_t Slot(uint32_t rank, uint32_t channel) const;

    uint64_t m_run{0}; //!< counts runs, so a nested restart stops an outer loop
    uint32_t m_steps{0};
    uint32_t m_runChannels{0};
    std::vector<uint32_t> m_posted; //!< per (rank, channel): steps posted
    std::vector<bool> m_received;   //!< per (rank, channel, step): its message arrived
    uint64_t m_expected{0};         //!< deliveries that end the run
    uint64_t m_delivered{0};
};

} // namespace ns3

#endif /* COLLECTIVE_H */
