/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-faults.h"

#include "ns3/ecmp-routes.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <iomanip>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricFaults");
NS_OBJECT_ENSURE_REGISTERED(FabricFaults);

TypeId
FabricFaults::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricFaults")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<FabricFaults>()
            .AddAttribute("DetectionDelay",
                          "Time from a link failing to every switch routing around it "
                          "(failure detection plus route convergence); until then switches "
                          "keep sending into the dead link.",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&FabricFaults::m_detectionDelay),
                          MakeTimeChecker(Time(0)));
    return tid;
}

std::vector<uint32_t>
FabricFaults::LinksOf(const FabricFault& fault) const
{
    const FabricTopology& topo = m_fabric->GetTopology();
    auto error = [&fault](const std::string& what) {
        return std::invalid_argument((fault.where.empty() ? std::string("fault") : fault.where) +
                                     ": " + what);
    };
    switch (fault.target)
    {
    case FabricFault::Target::LINK:
        if (fault.id >= topo.GetNLinks())
        {
            throw error("no link " + std::to_string(fault.id) + " (the fabric has " +
                        std::to_string(topo.GetNLinks()) + " links, ids from 0)");
        }
        return {fault.id};
    case FabricFault::Target::SWITCH:
        for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
        {
            if (m_fabric->GetNode(node)->GetId() == fault.id)
            {
                if (topo.GetHostIndex(node) >= 0)
                {
                    throw error("node " + std::to_string(fault.id) + " is a host, not a switch");
                }
                return topo.AdjacentLinks(node);
            }
        }
        throw error("no switch with node id " + std::to_string(fault.id));
    case FabricFault::Target::HOST:
        if (fault.id >= topo.GetNHosts())
        {
            throw error("no host " + std::to_string(fault.id) + " (the fabric has " +
                        std::to_string(topo.GetNHosts()) + " hosts, indices from 0)");
        }
        return topo.AdjacentLinks(topo.GetHosts()[fault.id]);
    }
    throw error("unknown target");
}

void
FabricFaults::Install(Ptr<RoceFabric> fabric, const std::vector<FabricFault>& faults)
{
    m_fabric = fabric;
    m_faults = faults;
    m_routedAround.assign(fabric->GetTopology().GetNLinks(), 0);
    const Time now = Simulator::Now();
    for (uint32_t i = 0; i < faults.size(); ++i)
    {
        const FabricFault& f = faults[i];
        const std::vector<uint32_t> links = LinksOf(f);
        m_linkCount.push_back(static_cast<uint32_t>(links.size()));
        if (f.downNs < 0 || (f.upNs >= 0 && f.upNs <= f.downNs))
        {
            throw std::invalid_argument(f.where + ": the up time must be after the down time");
        }
        const Time down = NanoSeconds(f.downNs);
        const Time up = f.upNs < 0 ? Time::Max() : NanoSeconds(f.upNs);
        for (uint32_t l : links)
        {
            m_fabric->GetChannel(l)->AddOutage(down, up);
        }
        Simulator::Schedule(down - now, &FabricFaults::Record, this, i, "down");
        // Routes change only if the failure is detected before it heals.
        const Time detected = down + m_detectionDelay;
        if (detected < up)
        {
            Simulator::Schedule(detected - now, [this, i, links]() {
                Reroute(links, true);
                Record(i, "routes-withdrawn");
            });
        }
        if (f.upNs >= 0)
        {
            Simulator::Schedule(up - now, [this, i, links, detected, up]() {
                Record(i, "up");
                if (detected < up)
                {
                    Reroute(links, false);
                    Record(i, "routes-restored");
                }
            });
        }
    }
}

void
FabricFaults::Reroute(const std::vector<uint32_t>& links, bool down)
{
    for (uint32_t l : links)
    {
        m_routedAround[l] += down ? 1 : -1;
    }
    const FabricTopology& topo = m_fabric->GetTopology();
    std::vector<bool> linkDown(topo.GetNLinks());
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        linkDown[l] = m_routedAround[l] > 0;
    }
    auto routes =
        std::make_shared<const EcmpRoutes>(topo, linkDown, m_fabric->GetRoutes()->GetKeying());
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        if (Ptr<RoceSwitch> sw = m_fabric->GetSwitch(node))
        {
            sw->SetRoutes(routes);
        }
    }
}

void
FabricFaults::Record(uint32_t faultId, const char* event)
{
    const FabricFault& f = m_faults[faultId];
    NS_LOG_INFO(ToString(f.target) << " " << f.id << ": " << event);
    m_events.push_back(
        Event{faultId, Simulator::Now(), event, ToString(f.target), f.id, m_linkCount[faultId]});
}

void
FabricFaults::Write(ResultsDatabase& db, int64_t runId) const
{
    auto row = db.Prepare("INSERT INTO faults (run_id, fault_id, time_ns, event, target, "
                          "target_id, links) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    for (const Event& e : m_events)
    {
        row.BindInt64(1, runId)
            .BindInt64(2, e.faultId)
            .BindInt64(3, e.time.GetNanoSeconds())
            .BindText(4, e.event)
            .BindText(5, e.target)
            .BindInt64(6, e.targetId)
            .BindInt64(7, e.links);
        row.Step();
        row.Reset();
    }
}

void
FabricFaults::PrintSummary(std::ostream& os) const
{
    const std::ios_base::fmtflags flags = os.flags();
    const std::streamsize precision = os.precision();
    for (const Event& e : m_events)
    {
        os << "fault " << e.faultId << ": " << std::fixed << std::setprecision(3)
           << e.time.GetSeconds() * 1e6 << " us  " << e.target << " " << e.targetId << " ("
           << e.links << (e.links == 1 ? " link) " : " links) ") << e.event << "\n";
    }
    os.flags(flags);
    os.precision(precision);
}

} // namespace ns3
