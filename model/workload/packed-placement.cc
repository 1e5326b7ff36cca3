/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "packed-placement.h"

#include "job-placement.h"

#include "ns3/short-name-registry.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PackedPlacement);
NS_OBJECT_SHORT_NAME(PackedPlacement, "packed");

TypeId
PackedPlacement::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PackedPlacement")
                            .SetParent<PlacementPolicy>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<PackedPlacement>();
    return tid;
}

std::vector<uint32_t>
PackedPlacement::Choose(PlacementRequest request) const
{
    const JobSpec& spec = request.spec;
    const ClusterSlots& slots = request.slots;
    std::vector<uint32_t>& room = request.room;
    std::vector<uint32_t> out;
    uint32_t workers = spec.workers;
    for (const auto& rack : slots.GetRacks())
    {
        uint32_t rackRoom = 0;
        for (uint32_t h : rack)
        {
            rackRoom += room[h];
        }
        if (rackRoom >= workers)
        {
            FillInOrder(rack, room, workers, out);
            return out;
        }
    }
    for (const auto& rack : slots.GetRacks())
    {
        FillInOrder(rack, room, workers, out);
    }
    return out;
}

} // namespace ns3
