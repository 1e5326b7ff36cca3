/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_COLLECTIVE_H
#define RING_COLLECTIVE_H

#include "collective.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The ring 0 -> 1 -> ... -> N-1 -> 0 that NCCL's ring collectives
 * share: P passes of N-1 steps each.
 *
 * Each channel is its own ring over its share of the buffer, cut into N
 * chunks. In step s rank r sends chunk (r - s) mod N to r+1, after it has
 * received step s-1 from r-1. A reduce-scatter is one pass (rank r ends
 * with the reduced chunk (r + 1) mod N), an all-gather one pass (rank r
 * starts with chunk r), an all-reduce both: 2(N-1) steps, each rank sending
 * 2(N-1)/N x S bytes.
 */
class RingCollective : public SteppedCollective
{
  public:
    static TypeId GetTypeId();

    uint32_t GetStepCount() const override;
    uint32_t GetSendPeer(uint32_t rank, uint32_t channel, uint32_t step) const override;
    uint64_t GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const override;
    /// \return the chunk (0..N-1) \p rank sends in step \p step
    uint32_t GetStepChunk(uint32_t rank, uint32_t step) const;

  protected:
    /// \param passes 1 (reduce-scatter, all-gather) or 2 (all-reduce)
    explicit RingCollective(uint32_t passes);

  private:
    uint32_t m_passes;
};

} // namespace ns3

#endif /* RING_COLLECTIVE_H */
