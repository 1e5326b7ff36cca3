/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The epoch planners' instance: what each job needs (remaining collectives,
// readiness) and the plan instance built from it, with running jobs' and
// computing jobs' traffic reserved slot by slot.

#include "epoch-scheduler-internal.h"
#include "epoch-scheduler.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

using epoch_detail::InSlots;
using epoch_detail::SlotsCovering;

namespace
{

/**
 * Add routing \p r's link uses (LinkUse), slot by slot, to \p bySlot (slot
 * t: the slot length from t slots on): its ops of a communication phase
 * that starts \p origin after slot 0 if \p phase, and if \p tail its
 * ops before the first planned op, \p tailShift later than the phase start
 * they precede. A use covers part of a slot with its share times the part.
 */
void
AddUses(std::vector<std::map<uint32_t, double>>& bySlot,
        const JobRouting& r,
        Time origin,
        Time tailShift,
        bool phase,
        bool tail,
        Time slot)
{
    const int64_t step = slot.GetTimeStep();
    const int64_t slots = static_cast<int64_t>(bySlot.size());
    for (const LinkUse& use : r.uses)
    {
        const bool before = use.begin.IsStrictlyNegative();
        if ((before && !tail) || (!before && !phase))
        {
            continue;
        }
        const int64_t b = (origin + use.begin + (before ? tailShift : Time(0))).GetTimeStep();
        const int64_t e = b + (use.end - use.begin).GetTimeStep();
        const int64_t first = std::max<int64_t>(0, b >= 0 ? b / step : -((-b + step - 1) / step));
        const int64_t last = std::min(slots, e <= 0 ? 0 : (e + step - 1) / step);
        for (int64_t t = first; t < last; ++t)
        {
            const int64_t covered = std::min(e, (t + 1) * step) - std::max(b, t * step);
            if (covered <= 0)
            {
                continue;
            }
            const double part = static_cast<double>(covered) / static_cast<double>(step);
            for (const auto& [link, share] : use.shares)
            {
                bySlot[t][link] += share * part;
            }
        }
    }
}

} // namespace

std::map<uint32_t, EpochScheduler::ChainNeed>
EpochScheduler::Needs() const
{
    const Time now = Simulator::Now();
    std::map<uint32_t, ChainNeed> needs;
    for (const auto& [id, st] : m_state)
    {
        ChainNeed& n = needs[id];
        n.remaining = st.remaining;
        n.commTime = st.Current().commTime;
        n.startTime = GetJobs().at(id).startTime;
        n.computeTime = st.computeTime;
        n.readyIn = st.phase == JobState::Phase::RUNNING
                        ? std::max(Time(0), st.startedAt + n.commTime - now) + st.computeTime
                    : st.phase == JobState::Phase::COMPUTING ? std::max(Time(0), st.readyAt - now)
                                                             : Time(0);
    }
    return needs;
}

PlanInstance
EpochScheduler::BuildInstance(const std::map<uint32_t, ChainNeed>& needs,
                              const Coverage& cover,
                              const CollectiveWeightFn& weight,
                              std::map<uint32_t, PlannedRoutes>* routeOf) const
{
    const Time now = Simulator::Now();
    const Time slot = cover.slot;
    PlanInstance instance;
    instance.horizon = cover.horizon;
    for (const auto& [id, st] : m_state)
    {
        const uint32_t chain = cover.chain.count(id) > 0 ? cover.chain.at(id) : 0;
        const bool segmented = m_opSegments && !st.Current().uses.empty();
        std::vector<std::map<uint32_t, double>> held(segmented ? instance.horizon : 0);
        if (st.phase == JobState::Phase::RUNNING && TakesShare(st.late))
        {
            if (segmented)
            {
                // Its ops take their slots, and the next iteration's before its
                // first planned op follow its compute.
                AddUses(held,
                        st.Current(),
                        st.startedAt - now,
                        st.Current().commTime + st.computeTime,
                        true,
                        true,
                        slot);
            }
            else
            {
                // Its links are taken until its expected end (at least one slot if
                // overdue).
                const int64_t left =
                    SlotsCovering(st.startedAt + st.Current().commTime - now, slot, 1);
                held.resize(std::min(left, instance.horizon));
                for (auto& u : held)
                {
                    u = st.Current().shares;
                }
            }
        }
        else if (segmented && st.phase == JobState::Phase::COMPUTING)
        {
            // Its traffic before its next planned op (ungated) is on the links now.
            AddUses(held, st.Current(), st.readyAt - now, Time(0), false, true, slot);
        }
        for (int64_t t = 0; t < static_cast<int64_t>(held.size()); ++t)
        {
            for (const auto& [link, share] : held[t])
            {
                auto& r = instance.reserved[link];
                r.resize(instance.horizon, 0.0);
                r[t] = std::min(1.0, r[t] + share);
            }
        }
        if (chain == 0)
        {
            continue; // nothing left to start
        }
        PlanJob pj;
        pj.id = id;
        pj.computeSlots = SlotsCovering(st.computeTime, slot, 0);
        pj.exactComputeSlots = InSlots(st.computeTime, slot);
        const int64_t ready = SlotsCovering(needs.at(id).readyIn, slot, 0);
        // The first collective keeps its route once it is (about to be) posted.
        // Moving an uncontended job frees no link for anyone; it moves only
        // to a routing on which it is faster itself (its own rings kept
        // apart where ECMP put two on one link).
        bool faster = false;
        for (const JobRouting& r : st.routings)
        {
            faster = faster || r.commTime < st.Current().commTime;
        }
        // A gate opened ahead (armed) has the collective's plan bound: it
        // starts on the route planned for it.
        const bool fixed = (st.uncontended && !faster) || st.armed;
        std::vector<uint32_t> all;
        all.push_back(st.route); // the current routing first: ties keep it
        for (uint32_t r = 0; r < st.routings.size(); ++r)
        {
            if (r != st.route)
            {
                all.push_back(r);
            }
        }
        for (uint32_t k = 0; k < chain; ++k)
        {
            const std::vector<uint32_t> allowed =
                (k == 0 && fixed) ? std::vector<uint32_t>{st.route} : all;
            PlanCollective c;
            c.readySlot = k == 0 ? std::min(ready, instance.horizon) : 0;
            c.exactReady = k == 0 ? std::min(InSlots(needs.at(id).readyIn, slot),
                                             static_cast<double>(c.readySlot))
                                  : 0.0;
            c.weight = weight(st.weight, k, chain);
            for (std::size_t i = 0; i < allowed.size(); ++i)
            {
                const JobRouting& routing = st.routings[allowed[i]];
                PlanRoute route;
                route.duration = SlotsCovering(routing.commTime, slot, 1);
                route.exactDuration = InSlots(routing.commTime, slot);
                route.usage = routing.shares;
                if (segmented)
                {
                    // Slots past the horizon hold nothing to plan.
                    std::vector<std::map<uint32_t, double>> bySlot(
                        std::min(route.duration + pj.computeSlots, instance.horizon));
                    AddUses(bySlot,
                            routing,
                            Time(0),
                            routing.commTime + st.computeTime,
                            true,
                            true,
                            slot);
                    route.segments = SegmentsOfSlots(bySlot);
                    if (!route.segments.empty())
                    {
                        route.usage = PeakUsage(route.segments);
                    }
                }
                if (i == 0)
                {
                    c.duration = route.duration;
                    c.exactDuration = route.exactDuration;
                    c.usage = std::move(route.usage);
                    c.segments = std::move(route.segments);
                }
                else
                {
                    c.alternatives.push_back(std::move(route));
                }
            }
            for (std::size_t i = 0; i < allowed.size(); ++i)
            {
                if (st.routings[allowed[i]].joint)
                {
                    c.jointRoute = static_cast<int32_t>(i);
                }
            }
            pj.collectives.push_back(std::move(c));
            if (routeOf != nullptr)
            {
                (*routeOf)[id].allowed.push_back(allowed);
            }
        }
        if (routeOf != nullptr)
        {
            (*routeOf)[id].routings = st.routings;
        }
        instance.jobs.push_back(std::move(pj));
    }
    return instance;
}

} // namespace ns3
