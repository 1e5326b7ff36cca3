/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fair-scheduler.h"

#include "ns3/enum.h"
#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FairScheduler);
NS_OBJECT_SHORT_NAME(FairScheduler, "fair");
NS_OBJECT_ENSURE_REGISTERED(IsolatedScheduler);
NS_OBJECT_SHORT_NAME(IsolatedScheduler, "isolated");

TypeId
FairScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FairScheduler")
                            .SetParent<CollectiveScheduler>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<FairScheduler>();
    return tid;
}

TypeId
IsolatedScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IsolatedScheduler")
            .SetParent<FairScheduler>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<IsolatedScheduler>()
            .AddAttribute(
                "Routes",
                "The routes of the job alone: ecmp, the ECMP paths of its "
                "connections' own ports; best, each of its connection groups on the "
                "least-loaded path given the job's own groups placed before it "
                "(Crux's path choice for the job alone).",
                EnumValue(IsolatedScheduler::ECMP),
                MakeEnumAccessor(&IsolatedScheduler::m_routes),
                MakeEnumChecker(IsolatedScheduler::ECMP, "ecmp", IsolatedScheduler::BEST, "best"))
            .AddAttribute("PathCandidates",
                          "UDP source ports probed per host pair to find its distinct ECMP "
                          "paths (Routes best).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&IsolatedScheduler::m_candidates),
                          MakeUintegerChecker<uint32_t>(0, 0x4000));
    return tid;
}

IsolatedScheduler::IsolatedScheduler() = default;
IsolatedScheduler::~IsolatedScheduler() = default;

void
IsolatedScheduler::DoDispose()
{
    m_probe.Clear();
    FairScheduler::DoDispose();
}

void
IsolatedScheduler::DoJobArrived(const SchedulerJob& job)
{
    if (m_routes == BEST)
    {
        RouteAlone(job);
    }
}

void
IsolatedScheduler::RouteAlone(const SchedulerJob& job)
{
    const SchedulerControl& control = GetControl();
    m_probe.SetProbes(m_candidates);
    std::map<uint32_t, double> load; // link -> seconds per iteration of this job's groups
    nlohmann::json paths = nlohmann::json::array();
    for (const ConnectionGroup& g : GroupConnections(job))
    {
        const std::vector<PortPath> candidates =
            m_probe.Candidates(control, g.src, g.dst, g.ownPorts);
        if (candidates.empty())
        {
            continue;
        }
        // The port the group has: its own if its connections share one.
        const uint16_t current = g.ownPorts.size() == 1 ? *g.ownPorts.begin() : 0;
        const GroupPlacement placed = PlaceGroup(control, g, candidates, current, load);
        if (placed.moved)
        {
            SetSourcePort(job.id, g.src, g.dst, placed.port);
        }
        paths.push_back({{"src", g.src},
                         {"dst", g.dst},
                         {"port", placed.port},
                         {"moved", placed.moved},
                         {"links", placed.path->links},
                         {"peak_load_s", placed.peak}});
    }
    Note("routes", "\"best\"");
    Note("paths", paths.dump());
}

} // namespace ns3
