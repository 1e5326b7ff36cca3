/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HARMONICS_COORDINATOR_H
#define HARMONICS_COORDINATOR_H

#include "epoch-plan.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/// A directed link between a rack's switch and the layer above it.
struct RackUplink
{
    int32_t rack{-1}; ///< the rack whose switch it leaves (up) or enters (down)
    bool up{true};    ///< true: out of the rack; false: into it
    double rate{1.0}; ///< its line rate (any unit, the same for every uplink; > 0)
};

/// Directed link id -> the rack uplink it is. Links absent are not uplinks.
using RackUplinks = std::map<uint32_t, RackUplink>;

/// One rack's uplinks in one direction: (rack, up).
using UplinkGroup = std::pair<int32_t, bool>;

/// What the Global Coordinator decided for the collectives that cross racks.
struct CoordinatorPlan
{
    Plan plan; ///< start slot and route of every collective it was given
    /// (slot, route) pairs it may weigh, routes x horizon per collective: its cost model
    uint64_t choices{0};
    /// Per rack and direction, per slot: the load of the rack's uplinks,
    /// reservations included, as a fraction of their aggregate capacity.
    std::map<UplinkGroup, std::vector<double>> aggregate;
};

/**
 * \ingroup collective-scheduling
 * Harmonics' Global Coordinator for \p instance (the collectives that cross
 * racks; \p instance.reserved holds what is taken already). It sees the
 * uplinks of each rack in each direction as one resource (capacity: the sum
 * of their rates) and the other links (host links, links above the racks'
 * switches) as they are.
 *
 * Collectives in Smith's order (weight / shortest duration, chains in order).
 * For each it scans start slots from its earliest: a (slot, route) is a
 * candidate when the route's load fits the aggregates and the other links
 * over its duration; the spine assignment then keeps, among the candidates,
 * those whose route leaves every single uplink within its capacity, and
 * takes the one that finishes first, then the one whose most loaded uplink
 * ends least loaded (balance), then the route of the joint least-loaded
 * assignment (PlanCollective::jointRoute: taking the lowest route there let
 * the first ring placed block the next one's only free spine), then the
 * lowest route. Every rack the
 * collective touches starts it at that slot (one gate per job). Nothing
 * fits: deferred past the horizon. Light by design: per collective, slots x
 * routes checks on a few aggregates and the links of one route.
 */
CoordinatorPlan PlanCoordinator(const PlanInstance& instance, const RackUplinks& uplinks);

} // namespace ns3

#endif /* HARMONICS_COORDINATOR_H */
