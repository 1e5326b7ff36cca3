/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PACKED_PLACEMENT_H
#define PACKED_PLACEMENT_H

#include "placement-policy.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Placement "packed": the first rack (in rack order) whose hosts can take the whole job,
 * hosts in order, each filled up to its room; if no single rack fits, racks and hosts in order,
 * each filled up to its room. A job stays in one rack when it can, as cluster schedulers try to
 * keep a job under one top-of-rack switch.
 */
class PackedPlacement : public PlacementPolicy
{
  public:
    static TypeId GetTypeId();

    std::vector<uint32_t> Choose(PlacementRequest request) const override;
};

} // namespace ns3

#endif /* PACKED_PLACEMENT_H */
