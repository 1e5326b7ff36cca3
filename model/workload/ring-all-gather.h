/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_ALL_GATHER_H
#define RING_ALL_GATHER_H

#include "collective.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Ring all-gather, N-1 steps.
 *
 * S is the gathered output; rank r starts with chunk r (S/N bytes, split
 * over the channels) and forwards around the ring what it last received: in
 * step s it sends chunk (r - s) mod N to r+1, after it has received step s-1
 * from r-1. Each rank sends (N-1)/N x S bytes; in total (N-1) x S.
 */
class RingAllGather : public SteppedCollective
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

#endif /* RING_ALL_GATHER_H */
