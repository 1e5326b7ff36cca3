/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RANDOM_PLACEMENT_H
#define RANDOM_PLACEMENT_H

#include "placement-policy.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Placement "random": the hosts with room in a seeded random order, each filled up to its
 * room (whole hosts, as a cluster scheduler hands them out). The order depends on the seed and the
 * job id only, and is the same on every platform.
 */
class RandomPlacement : public PlacementPolicy
{
  public:
    static TypeId GetTypeId();

    std::vector<uint32_t> Choose(PlacementRequest request) const override;
};

} // namespace ns3

#endif /* RANDOM_PLACEMENT_H */
