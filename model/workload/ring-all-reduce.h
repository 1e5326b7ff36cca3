/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_ALL_REDUCE_H
#define RING_ALL_REDUCE_H

#include "ring-collective.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Ring all-reduce as NCCL runs it: a reduce-scatter then an
 * all-gather around the ring, 2(N-1) steps (see RingCollective). Alone on an
 * unloaded network with per-message latency L and bandwidth B, it takes
 * 2(N-1) (L + S/(N C)/B).
 */
class RingAllReduce : public RingCollective
{
  public:
    static TypeId GetTypeId();
    RingAllReduce();
};

} // namespace ns3

#endif /* RING_ALL_REDUCE_H */
