/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "crux-scheduler.h"

#include "crux-priorities.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxScheduler");
NS_OBJECT_ENSURE_REGISTERED(CruxScheduler);
NS_OBJECT_SHORT_NAME(CruxScheduler, "crux");

namespace
{

/// Traffic classes a data job can get: 0-6 (class 7 carries control frames).
constexpr uint32_t kDataClasses = 7;

} // namespace

TypeId
CruxScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CruxScheduler")
            .SetParent<CollectiveScheduler>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<CruxScheduler>()
            .AddAttribute("Classes",
                          "K of the Max-K-Cut compression of priorities; at most 7 are used, "
                          "because traffic class 7 carries control frames.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&CruxScheduler::m_classes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("PathCandidates",
                          "UDP source ports probed per host pair to find its distinct ECMP paths.",
                          UintegerValue(64),
                          MakeUintegerAccessor(&CruxScheduler::m_candidates),
                          MakeUintegerChecker<uint32_t>(0, 0x4000))
            .AddAttribute("CorrectionFactor",
                          "k_j of the priority k_j * W_j / t_j, the same for every job.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&CruxScheduler::m_correction),
                          MakeDoubleChecker<double>(std::numeric_limits<double>::min()));
    return tid;
}

CruxScheduler::CruxScheduler() = default;
CruxScheduler::~CruxScheduler() = default;

uint8_t
CruxScheduler::GetPriorityClasses() const
{
    return static_cast<uint8_t>((1u << std::min(m_classes, kDataClasses)) - 1);
}

void
CruxScheduler::DoDispose()
{
    m_ports.clear();
    m_jobClass.clear();
    m_probe.Clear();
    CollectiveScheduler::DoDispose();
}

void
CruxScheduler::DoJobArrived(const SchedulerJob& /* job */)
{
    Plan(-1);
}

void
CruxScheduler::DoJobDone(uint32_t job)
{
    // The departed job's NIC settings die with its queue pairs: forget them, act on the rest.
    m_jobClass.erase(job);
    for (auto it = m_ports.begin(); it != m_ports.end();)
    {
        it = std::get<0>(it->first) == job ? m_ports.erase(it) : std::next(it);
    }
    Plan(job);
}

void
CruxScheduler::Plan(int64_t departed)
{
    const SchedulerControl& control = GetControl();

    // 1. GPU intensity of every job with fabric traffic.
    struct Active
    {
        const SchedulerJob* job;
        double work;      ///< W_j, GPU-seconds per iteration
        double comm;      ///< t_j, seconds per iteration
        double intensity; ///< W_j / t_j
        std::set<uint32_t> links;
    };

    std::vector<Active> active;
    nlohmann::json idle = nlohmann::json::array();
    for (const auto& [id, job] : GetJobs())
    {
        if (static_cast<int64_t>(id) == departed)
        {
            continue;
        }
        const double work = job.GpuSeconds();
        const double comm = job.FabricTime().GetSeconds();
        if (job.flows.empty() || !(comm > 0))
        {
            idle.push_back(id); // nothing on the fabric to prioritize or route
            continue;
        }
        active.push_back({&job, work, comm, work / comm, {}});
    }
    std::sort(active.begin(), active.end(), [](const Active& a, const Active& b) {
        return a.intensity != b.intensity ? a.intensity > b.intensity : a.job->id < b.job->id;
    });

    // 2. Paths, most intensive job first, each group onto the least loaded candidate.
    std::map<uint32_t, double> load; // link -> seconds per iteration placed on it
    nlohmann::json paths = nlohmann::json::array();
    for (Active& a : active)
    {
        const SchedulerJob& job = *a.job;
        m_probe.SetProbes(m_candidates);
        for (const ConnectionGroup& g : GroupConnections(job))
        {
            const std::vector<PortPath> candidates =
                m_probe.Candidates(control, g.src, g.dst, g.ownPorts);

            // The port the group uses now: the one set, else its own if its connections share one.
            const GroupKey key{job.id, g.src, g.dst};
            auto set = m_ports.find(key);
            uint16_t current = 0;
            if (set != m_ports.end())
            {
                current = set->second;
            }
            else if (g.ownPorts.size() == 1)
            {
                current = *g.ownPorts.begin();
            }
            const GroupPlacement placed = PlaceGroup(control, g, candidates, current, load);
            a.links.insert(placed.path->links.begin(), placed.path->links.end());
            if (placed.moved)
            {
                SetSourcePort(job.id, g.src, g.dst, placed.port);
                m_ports[key] = placed.port;
            }
            paths.push_back({{"job", job.id},
                             {"src", g.src},
                             {"dst", g.dst},
                             {"port", placed.port},
                             {"links", placed.path->links},
                             {"peak_load_s", placed.peak}});
        }
    }

    // 3. Priorities, compressed to the data classes the fabric has.
    const uint32_t k = std::min(m_classes, kDataClasses);
    if (k < m_classes)
    {
        Note("effective_classes",
             nlohmann::json{{"configured", m_classes},
                            {"effective", k},
                            {"reason", "traffic class 7 carries control frames"}}
                 .dump());
    }
    std::vector<CruxJob> cruxJobs;
    nlohmann::json intensity = nlohmann::json::object();
    for (const Active& a : active)
    {
        cruxJobs.push_back(
            {a.job->id, a.work, a.comm, m_correction, {a.links.begin(), a.links.end()}});
        intensity[std::to_string(a.job->id)] = a.intensity;
    }
    const std::map<uint32_t, uint32_t> classes = CruxClasses(cruxJobs, k);
    nlohmann::json classNote = nlohmann::json::object();
    for (const auto& [id, c] : classes)
    {
        const auto cls = static_cast<int16_t>(c);
        classNote[std::to_string(id)] = cls;
        auto known = m_jobClass.find(id);
        if (known == m_jobClass.end() || known->second != cls)
        {
            SetPriorityClass(id, cls);
            m_jobClass[id] = cls;
        }
    }

    Note("intensity", intensity.dump());
    Note("classes", classNote.dump());
    Note("paths", paths.dump());
    if (!idle.empty())
    {
        Note("no_fabric_traffic", idle.dump());
    }
}

} // namespace ns3
