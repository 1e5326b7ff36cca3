/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HALVING_DOUBLING_ALL_REDUCE_H
#define HALVING_DOUBLING_ALL_REDUCE_H

#include "collective.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief All-reduce by recursive halving (reduce-scatter) then recursive
 * doubling (all-gather), for N a power of two: 2 log2(N) steps.
 *
 * Reduce-scatter step k (0..log2 N - 1): rank r exchanges with r XOR 2^k.
 * Both hold the same segment of the channel's buffer (S at k = 0); it is cut
 * in two (the first half floor(len/2) bytes), the rank whose bit k is 0
 * keeps the first half and sends the second, its partner the reverse, so
 * S/2, S/4, ... bytes move. The all-gather mirrors it: step 2 log2 N - 1 - k
 * exchanges with r XOR 2^k, each rank sending the half it kept. A rank moves
 * to its next step when it has received its partner's message of the
 * current step. Each rank sends 2 (N-1)/N x S bytes; in total 2 (N-1) x S.
 */
class HalvingDoublingAllReduce : public SteppedCollective
{
  public:
    static TypeId GetTypeId();

    uint32_t GetStepCount() const override;
    uint32_t GetSendPeer(uint32_t rank, uint32_t channel, uint32_t step) const override;
    uint64_t GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const override;

  protected:
    /// Rejects N that is not a power of two (std::invalid_argument).
    void DoConfigure() override;

  private:
    /// \return log2 N
    uint32_t Levels() const;
    /// \return the bit k of the partner in step \p step (k, then mirrored)
    uint32_t LevelOf(uint32_t step) const;
    /// \return the length of the segment \p rank holds before reduce-scatter step \p level
    uint64_t SegmentBytes(uint32_t rank, uint32_t channel, uint32_t level) const;
};

} // namespace ns3

#endif /* HALVING_DOUBLING_ALL_REDUCE_H */
