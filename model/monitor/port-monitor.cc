/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "port-monitor.h"

#include "ns3/abort.h"
#include "ns3/csv-fields.h"
#include "ns3/input-limits.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/strict-numbers.h"
#include "ns3/string.h"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PortMonitor");
NS_OBJECT_ENSURE_REGISTERED(PortMonitor);

namespace
{

const char* const kInsertPortSample =
    "INSERT INTO port_samples (run_id, node_id, port, link_id, t_ns, class, queue_bytes,"
    " paused_ns, ecn_marks, kind) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'fabric')";
const char* const kInsertNvSwitchSample =
    "INSERT INTO port_samples (run_id, node_id, port, link_id, t_ns, class, queue_bytes,"
    " paused_ns, ecn_marks, kind, tx_bytes)"
    " VALUES (?1, ?2, ?3, ?2, ?4, 0, ?5, 0, 0, 'nvswitch', ?6)";
const char* const kInsertNicSample =
    "INSERT INTO nic_samples (run_id, node_id, t_ns, cnps_sent, cnps_received)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";
const char* const kInsertQpSample =
    "INSERT INTO qp_samples (run_id, node_id, job_id, dst_node, src_port, t_ns, rate_bps)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

/// The comma-separated items of \p text, blanks trimmed; none for "".
std::vector<std::string>
Items(const std::string& text)
{
    return text.empty() ? std::vector<std::string>{} : SplitCsvLine(text);
}

/// \p text as an integer in [0, max), or an error naming \p attribute and \p what.
uint32_t
Index(const std::string& text, uint32_t count, const std::string& attribute, const char* what)
{
    try
    {
        return static_cast<uint32_t>(ParseUnsignedText(text, 0, count - 1));
    }
    catch (const std::exception&)
    {
        throw std::invalid_argument("ns3::PortMonitor::" + attribute + ": \"" + text +
                                    "\" is not a " + what + " of this fabric (0-" +
                                    std::to_string(count - 1) + ")");
    }
}

} // namespace

Time
PortMonitor::DefaultInterval()
{
    return MilliSeconds(1);
}

TypeId
PortMonitor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PortMonitor")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<PortMonitor>()
            .AddAttribute("Interval",
                          "Time between samples; on by default (1 ms, where the run has "
                          "packets on one process); 0 turns the monitors off.",
                          TimeValue(DefaultInterval()),
                          MakeTimeAccessor(&PortMonitor::m_interval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Ports",
                          "Ports to sample: \"\" for every port of every switch and NIC, else "
                          "a comma-separated list of topology node ids (all their ports) and "
                          "node:port pairs.",
                          StringValue(""),
                          MakeStringAccessor(&PortMonitor::m_ports),
                          MakeStringChecker())
            .AddAttribute("QueuePairHosts",
                          "Hosts (host indices, comma-separated, or \"all\") whose sending "
                          "queue pairs' rates are sampled; \"\" for none.",
                          StringValue(""),
                          MakeStringAccessor(&PortMonitor::m_qpHosts),
                          MakeStringChecker());
    return tid;
}

PortMonitor::PortMonitor() = default;

void
PortMonitor::DoDispose()
{
    m_event.Cancel();
    m_fabric = nullptr;
    m_nvswitch = nullptr;
    m_db = nullptr;
    m_watched.clear();
    Object::DoDispose();
}

void
PortMonitor::SetPortSampleSink(std::function<void(const PortSample&)> sink)
{
    m_sink = std::move(sink);
}

void
PortMonitor::SetNvSwitchSampleSink(std::function<void(const NvSwitchSample&)> sink)
{
    m_nvSink = std::move(sink);
}

void
PortMonitor::AddNvSwitch(Ptr<NvSwitch> nvswitch)
{
    NS_ABORT_MSG_IF(m_event.IsRunning(), "PortMonitor::AddNvSwitch after Install");
    m_nvswitch = nvswitch;
    m_nvBytes.assign(nvswitch->GetNGpus(), {0.0, 0.0});
}

void
PortMonitor::Parse(const FabricTopology& topology)
{
    // (node, port) pairs to watch, in node then port order.
    std::set<std::pair<uint32_t, uint32_t>> ports;
    auto addNode = [&](uint32_t node) {
        for (uint32_t p = 0; p < topology.AdjacentLinks(node).size(); ++p)
        {
            ports.insert({node, p});
        }
    };
    if (m_ports.empty())
    {
        for (uint32_t n = 0; n < topology.GetNNodes(); ++n)
        {
            addNode(n);
        }
    }
    for (const std::string& item : Items(m_ports))
    {
        const auto colon = item.find(':');
        const uint32_t node = Index(item.substr(0, colon), topology.GetNNodes(), "Ports", "node");
        if (colon == std::string::npos)
        {
            addNode(node);
            continue;
        }
        const auto nPorts = static_cast<uint32_t>(topology.AdjacentLinks(node).size());
        ports.insert({node, Index(item.substr(colon + 1), nPorts, "Ports", "port of the node")});
    }
    for (const auto& [node, port] : ports)
    {
        Watched w;
        w.node = m_fabric->GetNode(node)->GetId();
        w.port = port;
        w.link = topology.AdjacentLinks(node).at(port);
        if (topology.IsHost(node))
        {
            Ptr<RdmaNic> nic = m_fabric->GetNic(static_cast<uint32_t>(topology.GetHostIndex(node)));
            if (port != 0)
            {
                if (!m_ports.empty())
                {
                    throw std::invalid_argument(
                        "ns3::PortMonitor::Ports: host node " + std::to_string(node) +
                        " has one NIC port, 0; port " + std::to_string(port) +
                        " is a link the NIC does not send on");
                }
                continue; // a multi-homed host's NIC sends on its first link only
            }
            w.device = nic->GetPort();
        }
        else
        {
            w.sw = m_fabric->GetSwitch(node);
            w.device = w.sw->GetPort(port);
        }
        m_watched.push_back(w);
    }
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        m_nics.push_back(h);
    }
    m_cnps.assign(m_nics.size(), {0, 0});
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        m_nodeOfAddress[m_fabric->GetNic(h)->GetAddress()] = m_fabric->GetHost(h)->GetId();
    }
    if (m_qpHosts == "all")
    {
        m_qpHostList = m_nics;
    }
    else
    {
        for (const std::string& item : Items(m_qpHosts))
        {
            m_qpHostList.push_back(Index(item, topology.GetNHosts(), "QueuePairHosts", "host"));
        }
    }
}

void
PortMonitor::Install(Ptr<RoceFabric> fabric,
                     Ptr<ResultsDatabase> db,
                     int64_t runId,
                     std::function<bool()> workRemains)
{
    if (!IsEnabled())
    {
        return;
    }
    m_workRemains = std::move(workRemains);
    m_fabric = fabric;
    m_db = db;
    m_runId = runId;
    if (fabric)
    {
        Parse(fabric->GetTopology());
    }
    m_event = Simulator::Schedule(m_interval, &PortMonitor::Sample, this);
}

bool
PortMonitor::SampleNvSwitchPorts(int64_t t)
{
    if (!m_nvswitch)
    {
        return false;
    }
    const bool writing = m_db && m_db->IsOpen();
    bool busy = false;
    for (uint32_t g = 0; g < m_nvswitch->GetNGpus(); ++g)
    {
        for (const auto direction : {NvSwitch::PortDirection::In, NvSwitch::PortDirection::Out})
        {
            const NvSwitch::PortState port = m_nvswitch->GetPort(g, direction);
            double& last = m_nvBytes[g][static_cast<uint8_t>(direction)];
            const NvSwitchSample sample{g,
                                        direction,
                                        t,
                                        port.bytes - last,
                                        port.backlog,
                                        port.messages};
            last = port.bytes;
            busy = busy || port.messages > 0;
            const auto tx = static_cast<int64_t>(std::llround(sample.txBytes));
            const auto backlog = static_cast<int64_t>(std::llround(sample.backlog));
            if (tx == 0 && backlog == 0)
            {
                continue;
            }
            ++m_samples;
            if (m_nvSink)
            {
                m_nvSink(sample);
            }
            if (writing)
            {
                m_db->AddRow(m_runId,
                             kInsertNvSwitchSample,
                             {m_runId,
                              static_cast<int64_t>(g),
                              static_cast<int64_t>(direction),
                              t,
                              backlog,
                              tx});
            }
        }
    }
    m_looked += 2 * m_nvswitch->GetNGpus();
    return busy;
}

void
PortMonitor::Sample()
{
    const Time now = Simulator::Now();
    const int64_t t = now.GetNanoSeconds();
    bool busy = SampleFabricPorts(t);
    busy = SampleNvSwitchPorts(t) || busy;
    try
    {
        // Rows written, and ports looked at: an idle fabric writes none but costs each.
        m_looked += m_watched.size() + 1;
        InputLimits::CheckMonitorRows(static_cast<double>(m_samples + m_looked));
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error("ns3::PortMonitor: sampling every " +
                                 std::to_string(m_interval.GetNanoSeconds()) + " ns " + e.what());
    }
    // Sampling goes on while the fabric or an NVSwitch carries anything or
    // the model has work left; after that it stops, so that it does not keep
    // an ended run alive.
    if (busy || (m_workRemains && m_workRemains()))
    {
        m_event = Simulator::Schedule(m_interval, &PortMonitor::Sample, this);
    }
}

bool
PortMonitor::SampleFabricPorts(int64_t t)
{
    if (!m_fabric)
    {
        return false;
    }
    const Time now = Simulator::Now();
    const bool writing = m_db && m_db->IsOpen();
    bool busy = false;
    const Time previous = now - m_interval;
    for (Watched& w : m_watched)
    {
        // A quiet port (nothing queued, no pause since the last sample, no
        // new mark) has no row: skip its classes at the cost of a few loads.
        const uint64_t queued = w.device->GetTotalQueueBytes();
        const uint64_t pfcFrames = w.device->GetPfcFramesReceived();
        const uint64_t portMarks = w.sw ? w.sw->GetEcnMarked(w.port) : 0;
        busy = busy || queued > 0;
        if (queued == 0 && pfcFrames == w.pfcFrames && portMarks == w.portMarks &&
            w.device->GetPauseHorizon() <= previous)
        {
            continue;
        }
        w.pfcFrames = pfcFrames;
        w.portMarks = portMarks;
        for (uint8_t c = 0; c < RoceNetDevice::kClasses; ++c)
        {
            // Whole nanoseconds, so that a port's samples add up to its total exactly.
            const int64_t paused = w.device->GetPausedTime(c).GetNanoSeconds();
            const uint64_t marks = w.sw ? w.sw->GetEcnMarked(w.port, c) : 0;
            PortSample s{w.node,
                         w.port,
                         w.link,
                         t,
                         c,
                         w.device->GetQueueBytes(c),
                         paused - w.paused[c],
                         marks - w.marks[c]};
            w.paused[c] = paused;
            w.marks[c] = marks;
            if (s.queueBytes == 0 && s.pausedNs == 0 && s.ecnMarks == 0)
            {
                continue;
            }
            ++m_samples;
            if (m_sink)
            {
                m_sink(s);
            }
            if (writing)
            {
                m_db->AddRow(m_runId,
                             kInsertPortSample,
                             {m_runId,
                              static_cast<int64_t>(s.node),
                              static_cast<int64_t>(s.port),
                              static_cast<int64_t>(s.link),
                              t,
                              static_cast<int64_t>(c),
                              static_cast<int64_t>(s.queueBytes),
                              s.pausedNs,
                              static_cast<int64_t>(s.ecnMarks)});
            }
        }
    }
    return SampleNics(t) || busy;
}

bool
PortMonitor::SampleNics(int64_t t)
{
    const Time now = Simulator::Now();
    const bool writing = m_db && m_db->IsOpen();
    bool busy = false;
    for (std::size_t i = 0; i < m_nics.size(); ++i)
    {
        Ptr<RdmaNic> nic = m_fabric->GetNic(m_nics[i]);
        busy = busy || nic->GetActiveSendQueuePairs() > 0;
        const std::array<uint64_t, 2> cnps{nic->GetCnpsSent(), nic->GetCnpsReceived()};
        const uint64_t sent = cnps[0] - m_cnps[i][0];
        const uint64_t received = cnps[1] - m_cnps[i][1];
        m_cnps[i] = cnps;
        if (sent == 0 && received == 0)
        {
            continue;
        }
        ++m_samples;
        if (writing)
        {
            const uint32_t node = m_fabric->GetHost(m_nics[i])->GetId();
            m_db->AddRow(m_runId,
                         kInsertNicSample,
                         {m_runId,
                          static_cast<int64_t>(node),
                          t,
                          static_cast<int64_t>(sent),
                          static_cast<int64_t>(received)});
        }
    }
    if (!m_qpHostList.empty())
    {
        for (uint32_t h : m_qpHostList)
        {
            const uint32_t node = m_fabric->GetHost(h)->GetId();
            for (const RdmaNic::SendingRate& r : m_fabric->GetNic(h)->GetSendingRates(now))
            {
                ++m_samples;
                if (writing)
                {
                    const auto dst = m_nodeOfAddress.find(r.dstIp);
                    m_db->AddRow(
                        m_runId,
                        kInsertQpSample,
                        {m_runId,
                         static_cast<int64_t>(node),
                         r.jobId >= 0 ? SqlValue(r.jobId) : SqlValue(),
                         static_cast<int64_t>(dst == m_nodeOfAddress.end() ? 0 : dst->second),
                         static_cast<int64_t>(r.srcPort),
                         t,
                         static_cast<int64_t>(r.rateBps)});
                }
            }
        }
    }
    return busy;
}

} // namespace ns3
