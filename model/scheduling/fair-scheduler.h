/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FAIR_SCHEDULER_H
#define FAIR_SCHEDULER_H

#include "collective-scheduler.h"
#include "route-candidates.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Fair sharing: never gates, never prioritizes; congestion control
 * (DCQCN) alone shares the links. The baseline every figure normalizes to.
 */
class FairScheduler : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId();
};

/**
 * \ingroup collective-scheduling
 * \brief The policy of an isolated run: each job runs alone on the fabric
 * (ScenarioRunner makes one simulation per job), so nothing is shared and
 * nothing needs scheduling. Never gates, never prioritizes.
 *
 * Alone, a job can still collide with itself: two of its connection groups
 * (its connections between one host pair) that ECMP hashes onto one link
 * share it. Attribute Routes says which routes the job takes:
 *  - ecmp (the default): the ones ECMP gives its connections' own ports;
 *  - best: the routes a planner would give the job alone, Crux's path
 *    choice over the job's own groups only: on arrival each group, in
 *    order of first appearance, goes onto the path (among those of
 *    PathCandidates probe ports and of its own ports) whose most loaded
 *    link carries the least of the job's groups placed before it, then the
 *    least summed load, then the path it has (equal loads are no reason to
 *    move), then the smaller port. Load of a link: 8 x bytes / rate. A
 *    source port is set only when it changes the group's path. As under
 *    Crux, a group's connections then share one path even if their own
 *    ports spread them.
 *
 * ScenarioRunner runs every job alone both ways, and a job's isolated time
 * is the lower of the two: neither alone is a lower bound of the policies
 * (ECMP's collisions can make a job slower alone than under a policy that
 * routes it; the greedy choice can be worse than ECMP's spread).
 */
class IsolatedScheduler : public FairScheduler
{
  public:
    static TypeId GetTypeId();
    IsolatedScheduler();
    ~IsolatedScheduler() override;

    /// Which routes the job alone takes.
    enum Routes
    {
        ECMP, ///< its connections' own ports' ECMP paths
        BEST  ///< its groups on least-loaded paths, its own load only
    };

  protected:
    void DoDispose() override;
    void DoJobArrived(const SchedulerJob& job) override;

  private:
    /// Put \p job's connection groups on their least-loaded paths (Routes best).
    void RouteAlone(const SchedulerJob& job);

    Routes m_routes{ECMP};
    uint32_t m_candidates{64}; ///< probe ports per host pair
    EcmpPathProbe m_probe;     ///< distinct paths per host pair
};

} // namespace ns3

#endif /* FAIR_SCHEDULER_H */
