/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "spread-placement.h"

#include "job-placement.h"

#include "ns3/short-name-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SpreadPlacement);
NS_OBJECT_SHORT_NAME(SpreadPlacement, "spread");

TypeId
SpreadPlacement::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SpreadPlacement")
                            .SetParent<PlacementPolicy>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<SpreadPlacement>();
    return tid;
}

std::vector<uint32_t>
SpreadPlacement::Choose(PlacementRequest request) const
{
    const JobSpec& spec = request.spec;
    const ClusterSlots& slots = request.slots;
    std::vector<uint32_t>& room = request.room;
    const auto& racks = slots.GetRacks();
    std::vector<std::size_t> cursor(racks.size(), 0); // next host to try, per rack
    std::vector<uint32_t> out;
    while (out.size() < spec.workers)
    {
        bool placedAny = false;
        for (std::size_t r = 0; r < racks.size() && out.size() < spec.workers; ++r)
        {
            const auto& rack = racks[r];
            for (std::size_t tried = 0; tried < rack.size(); ++tried)
            {
                uint32_t h = rack[cursor[r]];
                cursor[r] = (cursor[r] + 1) % rack.size();
                if (room[h] > 0)
                {
                    --room[h];
                    out.push_back(h);
                    placedAny = true;
                    break;
                }
            }
        }
        if (!placedAny)
        {
            break; // cannot happen: the caller checked the total room
        }
    }
    return out;
}

} // namespace ns3
