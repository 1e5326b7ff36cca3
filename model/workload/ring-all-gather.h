/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_ALL_GATHER_H
#define RING_ALL_GATHER_H

#include "ring-collective.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Ring all-gather, N-1 steps (see RingCollective). S is the gathered
 * output; rank r starts with chunk r; (N-1) x S bytes in total.
 */
class RingAllGather : public RingCollective
{
  public:
    static TypeId GetTypeId();
    RingAllGather();
};

} // namespace ns3

#endif /* RING_ALL_GATHER_H */
