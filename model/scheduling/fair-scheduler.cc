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
#include <sstream>
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
        const std::vector<uint32_t> currentPath =
            current != 0 ? control.GetDirectedPath(g.src, g.dst, current) : std::vector<uint32_t>();
        const PortPath* best =
            LeastLoadedPath(candidates, load, current != 0 ? &currentPath : nullptr);
        double peak = 0;
        for (uint32_t link : best->links)
        {
            auto l = load.find(link);
            peak = std::max(peak, l == load.end() ? 0.0 : l->second);
        }
        const bool stays = current != 0 && best->links == currentPath;
        const uint16_t port = stays ? current : best->port;
        for (uint32_t link : best->links)
        {
            const uint64_t rate = control.GetLinkRateBps(link);
            if (rate == 0)
            {
                std::ostringstream os;
                os << "isolated-scheduler: link " << link << " (job " << job.id << ", hosts "
                   << g.src << " -> " << g.dst << "): field rateBps must be positive";
                throw std::runtime_error(os.str());
            }
            load[link] += 8.0 * static_cast<double>(g.bytes) / static_cast<double>(rate);
        }
        if (!stays)
        {
            SetSourcePort(job.id, g.src, g.dst, port);
        }
        paths.push_back({{"src", g.src},
                         {"dst", g.dst},
                         {"port", port},
                         {"moved", !stays},
                         {"links", best->links},
                         {"peak_load_s", peak}});
    }
    Note("routes", "\"best\"");
    Note("paths", paths.dump());
}

} // namespace ns3
