/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EPOCH_SCHEDULER_INTERNAL_H
#define EPOCH_SCHEDULER_INTERNAL_H

// Slot arithmetic and routing lists shared by the epoch planners' files
// (plans, instances, routes); not part of the module's interface.

#include "route-candidates.h"

#include "ns3/nstime.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace epoch_detail
{

/// Whole slots of \p slot needed to cover \p t (at least \p atLeast).
inline int64_t
SlotsCovering(Time t, Time slot, int64_t atLeast)
{
    if (t <= Time(0))
    {
        return atLeast;
    }
    const int64_t n = (t.GetTimeStep() + slot.GetTimeStep() - 1) / slot.GetTimeStep();
    return std::max(n, atLeast);
}

/// \p t in slots of \p slot, unrounded (0 for a negative time).
inline double
InSlots(Time t, Time slot)
{
    return t <= Time(0)
               ? 0.0
               : static_cast<double>(t.GetTimeStep()) / static_cast<double>(slot.GetTimeStep());
}

/// Index of \p r in \p list, appended (as "kept") if it is not there.
inline uint32_t
IndexOf(std::vector<JobRouting>& list, const JobRouting& r)
{
    for (uint32_t i = 0; i < list.size(); ++i)
    {
        if (list[i].SameLinks(r) && list[i].ports == r.ports)
        {
            return i;
        }
    }
    list.push_back(r);
    list.back().kind = "kept";
    return static_cast<uint32_t>(list.size() - 1);
}

} // namespace epoch_detail
} // namespace ns3

#endif /* EPOCH_SCHEDULER_INTERNAL_H */
