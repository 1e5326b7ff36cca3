/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ALL_TO_ALL_H
#define ALL_TO_ALL_H

#include "collective.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief All-to-all: every rank sends chunk d of its S-byte buffer (S/N
 * bytes, split over the channels) to every other rank d, all at once.
 *
 * Rank r posts its N-1 messages per channel at the start, in the order
 * r+1, r+2, ..., r+N-1 (mod N), as NCCL staggers peers, so that when each
 * rank's sends go out one after another no receiver is the target of two
 * ranks at the same time. All messages have step 0. The run finishes when
 * every message is delivered. Each rank sends (N-1)/N x S bytes; in total
 * (N-1) x S, in N (N-1) x C messages.
 */
class AllToAll : public Collective
{
  public:
    static TypeId GetTypeId();

    uint64_t BytesPerRank() const override;

  protected:
    void DoStart() override;
    void HandleDelivery(const CollectiveMessage& m) override;

  private:
    uint64_t m_expected{0};
    uint64_t m_delivered{0};
};

} // namespace ns3

#endif /* ALL_TO_ALL_H */
