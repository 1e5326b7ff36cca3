/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SPREAD_PLACEMENT_H
#define SPREAD_PLACEMENT_H

#include "placement-policy.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Placement "spread": round robin over racks, one worker per turn on the rack's next host
 * with room (cycling over its hosts), so workers go to distinct racks first, then distinct hosts:
 * the placement that crosses the fabric most.
 */
class SpreadPlacement : public PlacementPolicy
{
  public:
    static TypeId GetTypeId();

    std::vector<uint32_t> Choose(PlacementRequest request) const override;
};

} // namespace ns3

#endif /* SPREAD_PLACEMENT_H */
