/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CONGESTION_OPS_H
#define RDMA_CONGESTION_OPS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Rate-based congestion control of one RDMA queue pair (the reaction
 * point), pluggable in the manner of TcpCongestionOps.
 *
 * The NIC keeps one instance per queue pair (obtained with Fork() from the
 * prototype chosen by attribute) and asks it for the sending rate before it
 * paces each packet. Algorithms run their timers lazily: GetRate(now)
 * applies every timer expiry that fell due since the last call, in time
 * order, so a timer costs no simulator event.
 */
class RdmaCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();

    /// \return the algorithm name (e.g. "Dcqcn").
    virtual std::string GetName() const = 0;

    /// A fresh instance with the same configuration and initial state.
    virtual Ptr<RdmaCongestionOps> Fork() const = 0;

    /**
     * Called once when the queue pair starts sending.
     * \param lineRate rate of the NIC port
     * \param now current time
     */
    virtual void Init(DataRate lineRate, Time now) = 0;

    /**
     * \param now current time (never earlier than the last call)
     * \return the rate at which the queue pair may send now
     */
    virtual DataRate GetRate(Time now) = 0;

    /**
     * A packet of the queue pair was handed to the port.
     * \param wireBytes bytes of the frame on the wire
     * \param now current time
     */
    virtual void OnSend(uint32_t wireBytes, Time now);

    /**
     * The earliest time after \p now at which the rate may change without a
     * call (a timer of the algorithm falls due). A queue pair paced at a low
     * rate is looked at again then, so that a rate increase takes effect on
     * the packet it is waiting to send, as the NIC's rate limiter does.
     * \param now current time
     * \return Time::Max() (the default) for an algorithm whose rate changes only on calls
     */
    virtual Time GetNextRateChange(Time now);

    /// A congestion notification packet arrived for this queue pair.
    virtual void OnCnp(Time now);

    /**
     * The queue pair went back to resend (a NAK or a timeout) and its NIC
     * restarts it slowly (RdmaNic::SlowRestart). Nothing by default: an
     * algorithm with no rate of its own to cut has nothing to restart.
     */
    virtual void OnRetransmit(Time now);

    /**
     * An ACK advanced the acknowledged byte count.
     * \param newlyAcked payload bytes newly acknowledged
     * \param now current time
     */
    virtual void OnAck(uint64_t newlyAcked, Time now);

    /// SetProgress's value while the iteration's volume is not known yet.
    static constexpr double kUnknownProgress = -1.0;

    /**
     * Progress of the message the queue pair carries, for algorithms that
     * scale their behaviour with it (MLTCP).
     * \param fraction in [0,1]: bytes sent so far over bytes in the
     *        iteration; kUnknownProgress in the job's first iteration, whose
     *        volume is not known yet
     */
    virtual void SetProgress(double fraction);

    /// Whether SetProgress matters to this algorithm (the NIC skips it otherwise).
    virtual bool UsesProgress() const;

    /**
     * A scheduler's weight for the queue pair's job: algorithms that grow
     * their rate additively scale the step with it (1 = unweighted).
     * \param weight > 0
     */
    virtual void SetRateWeight(double weight);
};

/**
 * \ingroup collective-scheduling
 * \brief No congestion control: the queue pair always sends at line rate.
 */
class RdmaNoCongestionControl : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    Ptr<RdmaCongestionOps> Fork() const override;
    void Init(DataRate lineRate, Time now) override;
    DataRate GetRate(Time now) override;

  private:
    DataRate m_lineRate;
};

} // namespace ns3

#endif /* RDMA_CONGESTION_OPS_H */
