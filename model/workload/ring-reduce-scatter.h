/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_REDUCE_SCATTER_H
#define RING_REDUCE_SCATTER_H

#include "ring-collective.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Ring reduce-scatter, N-1 steps (see RingCollective): rank r ends
 * with the reduced chunk (r + 1) mod N; (N-1) x S bytes in total.
 */
class RingReduceScatter : public RingCollective
{
  public:
    static TypeId GetTypeId();
    RingReduceScatter();
};

} // namespace ns3

#endif /* RING_REDUCE_SCATTER_H */
