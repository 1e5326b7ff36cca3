/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-monitor-writer.h"

#include "hpcc-output-writers.h"

#include "ns3/input-limits.h"
#include "ns3/simulator.h"

#include <cinttypes>
#include <cstdio>
#include <stdexcept>

namespace ns3
{

namespace
{

/// SimAI's periods when the config omits them (its common.h), ns.
constexpr int64_t kQlenIntervalNs = 10000 * 1000;
constexpr int64_t kBwIntervalNs = 10000 * 1000;
constexpr int64_t kQpIntervalNs = 100 * 1000;
/// HPCC's histogram monitor (its third.cc): sampling and dump periods, and its default window.
constexpr int64_t kHistogramIntervalNs = 100;
constexpr int64_t kHistogramDumpNs = 100000000;
constexpr int64_t kHistogramStartNs = 2000000000;
constexpr int64_t kHistogramEndNs = 2100000000;

} // namespace

HpccMonitorWriter::HpccMonitorWriter(const HpccScenario& scenario,
                                     Ptr<RoceFabric> fabric,
                                     const HpccPostedFlows& flows,
                                     std::function<bool()> workRemains)
    : m_scenario(scenario),
      m_fabric(fabric),
      m_workRemains(std::move(workRemains))
{
    for (const auto& [id, p] : flows.fabric)
    {
        m_dportOf[id] = p.flow.dport;
    }
    const FabricTopology& topo = fabric->GetTopology();
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        m_fileNodeOfIp[fabric->GetNic(h)->GetAddress()] = scenario.GetFileNode(topo.GetHosts()[h]);
    }
    const HpccConfig& c = scenario.GetConfig().config;
    if (c.qlenMonStartNs || c.qlenMonEndNs)
    {
        // HPCC's dialect: its own window and fixed periods.
        m_histogramEndNs = c.qlenMonEndNs.value_or(kHistogramEndNs);
        Open(c.qlenMonFile,
             nullptr,
             kHistogramIntervalNs,
             kHistogramIntervalNs,
             &HpccMonitorWriter::SampleHistogram);
        for (const auto& m : m_monitors)
        {
            m->event =
                Simulator::Schedule(NanoSeconds(c.qlenMonStartNs.value_or(kHistogramStartNs)),
                                    &HpccMonitorWriter::Tick,
                                    this,
                                    m.get());
        }
        return;
    }
    Open(c.qlenMonFile,
         "time, sw_id, port_id, q_id, q_len, port_len",
         c.qlenMonIntervalNs,
         kQlenIntervalNs,
         &HpccMonitorWriter::SampleQueues);
    Open(c.bwMonFile,
         "time, node_id, port_id, bandwidth",
         c.bwMonIntervalNs,
         kBwIntervalNs,
         &HpccMonitorWriter::SampleBandwidth);
    Open(c.rateMonFile,
         "time, src, dst, sport, dport, size, curr_rate",
         c.qpMonIntervalNs,
         kQpIntervalNs,
         &HpccMonitorWriter::SampleRates);
    Open(c.cnpMonFile,
         "time, src, dst, sport, dport, size, cnp_number",
         c.qpMonIntervalNs,
         kQpIntervalNs,
         &HpccMonitorWriter::SampleCnps);
    const Time start = NanoSeconds(c.monStartNs.value_or(0));
    for (const auto& m : m_monitors)
    {
        m->event = Simulator::Schedule(start, &HpccMonitorWriter::Tick, this, m.get());
    }
}

void
HpccMonitorWriter::Open(const std::optional<std::string>& path,
                        const char* header,
                        std::optional<int64_t> intervalNs,
                        int64_t defaultIntervalNs,
                        void (HpccMonitorWriter::*sample)(Monitor& m))
{
    if (!path)
    {
        return;
    }
    auto m = std::make_unique<Monitor>();
    m->path = *path;
    m->interval = NanoSeconds(intervalNs.value_or(defaultIntervalNs));
    m->sample = sample;
    OpenHpccOutput(m->out, m->path);
    if (header)
    {
        m->out << header << "\n";
    }
    m_monitors.push_back(std::move(m));
}

bool
HpccMonitorWriter::Busy() const
{
    const FabricTopology& topo = m_fabric->GetTopology();
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        if (m_fabric->GetNic(h)->GetActiveSendQueuePairs() > 0)
        {
            return true;
        }
    }
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        Ptr<RoceChannel> ch = m_fabric->GetChannel(l);
        if (ch->GetRoceDevice(0)->GetTotalQueueBytes() +
                ch->GetRoceDevice(1)->GetTotalQueueBytes() >
            0)
        {
            return true;
        }
    }
    return false;
}

void
HpccMonitorWriter::Tick(Monitor* m)
{
    (this->*(m->sample))(*m);
    // A period the run cannot afford (1 ns over seconds) ends the run with
    // an error, before it fills the disk or the run's time: rows written, and
    // ports or queue pairs sampled, since an idle fabric writes nothing but costs.
    try
    {
        InputLimits::CheckMonitorRows(static_cast<double>(m_lines + m_samples));
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(m->path + ": a monitor sampled every " +
                                 std::to_string(m->interval.GetNanoSeconds()) + " ns " + e.what());
    }
    if (m->sample == &HpccMonitorWriter::SampleHistogram)
    {
        // HPCC's window, whatever the run does.
        if (Simulator::Now().GetNanoSeconds() < m_histogramEndNs)
        {
            m->event = Simulator::Schedule(m->interval, &HpccMonitorWriter::Tick, this, m);
        }
        return;
    }
    if (Busy() || (m_workRemains && m_workRemains()))
    {
        m->event = Simulator::Schedule(m->interval, &HpccMonitorWriter::Tick, this, m);
    }
}

void
HpccMonitorWriter::SampleQueues(Monitor& m)
{
    const FabricTopology& topo = m_fabric->GetTopology();
    const int64_t t = Simulator::Now().GetNanoSeconds();
    char line[160];
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        Ptr<RoceSwitch> sw = m_fabric->GetSwitch(node);
        if (!sw)
        {
            continue;
        }
        for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
        {
            ++m_samples;
            Ptr<RoceNetDevice> device = sw->GetPort(port);
            const uint64_t total = device->GetTotalQueueBytes();
            uint64_t& last = m_lastQueue[{node, port}];
            if (total == last)
            {
                continue;
            }
            last = total;
            const uint32_t fileNode = m_scenario.GetFileNode(node);
            const uint32_t ifIndex = m_scenario.GetSimulatorIfIndex(node, port);
            for (uint8_t c = 0; c < RoceNetDevice::kClasses; ++c)
            {
                std::snprintf(line,
                              sizeof(line),
                              "%" PRId64 ", %u, %u, %u, %" PRIu64 ", %" PRIu64 "\n",
                              t,
                              fileNode,
                              ifIndex,
                              static_cast<unsigned>(c),
                              device->GetQueueBytes(c),
                              total);
                m.out << line;
                ++m_lines;
            }
        }
    }
}

void
HpccMonitorWriter::SampleBandwidth(Monitor& m)
{
    const FabricTopology& topo = m_fabric->GetTopology();
    const int64_t t = Simulator::Now().GetNanoSeconds();
    char line[160];
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        const std::vector<uint32_t>& links = topo.AdjacentLinks(node);
        for (uint32_t port = 0; port < links.size(); ++port)
        {
            ++m_samples;
            const uint32_t l = links[port];
            const uint32_t direction = topo.GetLink(l).a == node ? 0 : 1; // sent by node
            const uint64_t tx = m_fabric->GetChannel(l)->GetTxBytes(direction);
            uint64_t& last = m_lastTx[{l, direction}];
            if (tx == last)
            {
                continue;
            }
            const double gbps = static_cast<double>(tx - last) * 8 / m.interval.GetSeconds() / 1e9;
            last = tx;
            const bool host = topo.IsHost(node);
            std::snprintf(line,
                          sizeof(line),
                          "%" PRId64 ", %u, %u, %f\n",
                          t,
                          m_scenario.GetFileNode(node),
                          host ? 0u : m_scenario.GetSimulatorIfIndex(node, port),
                          gbps);
            m.out << line;
            ++m_lines;
        }
    }
}

void
HpccMonitorWriter::SampleQueuePairs(Monitor& m,
                                    std::map<std::pair<uint32_t, uint32_t>, uint64_t>& last,
                                    uint64_t (*value)(const RdmaNic::SendingRate& r))
{
    const FabricTopology& topo = m_fabric->GetTopology();
    const Time now = Simulator::Now();
    char line[200];
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        const uint32_t src = m_scenario.GetFileNode(topo.GetHosts()[h]);
        for (const RdmaNic::SendingRate& r : m_fabric->GetNic(h)->GetSendingRates(now))
        {
            ++m_samples;
            const uint64_t v = value(r);
            uint64_t& previous = last[{h, r.qpn}];
            if (v == previous)
            {
                continue; // SimAI writes a queue pair when its value changed
            }
            previous = v;
            std::snprintf(line,
                          sizeof(line),
                          "%" PRId64 ", %u, %u, %u, %u, %" PRIu64 ", %" PRIu64 "\n",
                          now.GetNanoSeconds(),
                          src,
                          m_fileNodeOfIp.at(r.dstIp),
                          static_cast<unsigned>(r.srcPort),
                          m_dportOf.count(r.flowId) ? m_dportOf.at(r.flowId) : 0u,
                          r.bytes,
                          v);
            m.out << line;
            ++m_lines;
        }
    }
}

void
HpccMonitorWriter::SampleRates(Monitor& m)
{
    SampleQueuePairs(m, m_lastRate, [](const RdmaNic::SendingRate& r) { return r.rateBps; });
}

void
HpccMonitorWriter::SampleCnps(Monitor& m)
{
    SampleQueuePairs(m, m_lastCnps, [](const RdmaNic::SendingRate& r) {
        return static_cast<uint64_t>(r.cnpsReceived);
    });
}

void
HpccMonitorWriter::SampleHistogram(Monitor& m)
{
    const FabricTopology& topo = m_fabric->GetTopology();
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        Ptr<RoceSwitch> sw = m_fabric->GetSwitch(node);
        if (!sw)
        {
            continue;
        }
        const uint32_t fileNode = m_scenario.GetFileNode(node);
        for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
        {
            ++m_samples;
            const uint64_t kb = sw->GetPort(port)->GetTotalQueueBytes() / 1000;
            std::vector<uint64_t>& bins =
                m_histogram[{fileNode, m_scenario.GetSimulatorIfIndex(node, port)}];
            if (bins.size() < kb + 1)
            {
                bins.resize(kb + 1);
            }
            ++bins[kb];
        }
    }
    const int64_t t = Simulator::Now().GetNanoSeconds();
    if (t % kHistogramDumpNs != 0)
    {
        return;
    }
    m.out << "time: " << t << "\n";
    for (const auto& [where, bins] : m_histogram)
    {
        m.out << where.first << " " << where.second;
        for (uint64_t n : bins)
        {
            m.out << " " << n;
        }
        m.out << "\n";
        ++m_lines;
    }
}

void
HpccMonitorWriter::Close()
{
    for (const auto& m : m_monitors)
    {
        m->event.Cancel();
        if (m->out.is_open())
        {
            CloseHpccOutput(m->out, m->path);
        }
    }
}

} // namespace ns3
