/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_ALL_REDUCE_H
#define RING_ALL_REDUCE_H

#include "collective.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Ring all-reduce as NCCL runs it: a reduce-scatter then an
 * all-gather around the ring 0 -> 1 -> ... -> N-1 -> 0, 2(N-1) steps.
 *
 * Each channel is its own ring over its share of the buffer, cut into N
 * chunks. In reduce-scatter step s (0..N-2) rank r sends chunk (r - s) mod N
 * to r+1 (adding what it received in step s-1); afterwards rank r holds the
 * reduced chunk (r + 1) mod N. In all-gather step s (N-1..2N-3) it sends
 * chunk (r + 1 - (s - N + 1)) mod N. Rank r posts step s+1 only after it has
 * received step s from r-1. Each rank sends 2(N-1)/N x S bytes; in total
 * 2(N-1) x S. Alone on an unloaded network with per-message latency L and
 * bandwidth B, it takes 2(N-1) (L + S/(N C)/B).
 */
class RingAllReduce : public SteppedCollective
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override;
    uint64_t BytesPerRank() const override;
    uint32_t GetStepCount() const override;
    uint32_t GetSendPeer(uint32_t rank, uint32_t step) const override;
    uint64_t GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const override;
    /// \return the chunk (0..N-1) \p rank sends in step \p step
    uint32_t GetStepChunk(uint32_t rank, uint32_t step) const;
};

} // namespace ns3

#endif /* RING_ALL_REDUCE_H */
