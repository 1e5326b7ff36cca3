/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-flow-monitor.h"

#include "ns3/callback.h"

#include <algorithm>
#include <iomanip>

namespace ns3
{

RoceFlowMonitor::RoceFlowMonitor(Ptr<RoceFabric> fabric)
    : m_fabric(fabric)
{
    for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
    {
        Ptr<RdmaNic> nic = fabric->GetNic(h);
        nic->TraceConnectWithoutContext("SendStarted",
                                        MakeCallback(&RoceFlowMonitor::OnStart, this));
        nic->TraceConnectWithoutContext("Delivered",
                                        MakeCallback(&RoceFlowMonitor::OnDelivered, this));
        nic->TraceConnectWithoutContext("SendComplete",
                                        MakeCallback(&RoceFlowMonitor::OnComplete, this));
    }
}

void
RoceFlowMonitor::OnStart(const RdmaMessageInfo& info)
{
    m_flows[info.flowId].info = info;
}

void
RoceFlowMonitor::OnDelivered(const RdmaMessageInfo& info, Time when)
{
    m_flows[info.flowId].delivered = when;
}

void
RoceFlowMonitor::OnComplete(const RdmaMessageInfo& info, Time when, uint64_t retransmitted)
{
    Flow& f = m_flows[info.flowId];
    f.acked = when;
    f.retransmittedBytes = retransmitted;
}

std::size_t
RoceFlowMonitor::GetCompletedFlows() const
{
    return std::count_if(m_flows.begin(), m_flows.end(), [](const auto& kv) {
        return !kv.second.delivered.IsNegative() && !kv.second.acked.IsNegative();
    });
}

Time
RoceFlowMonitor::GetLastDelivery() const
{
    Time last(0);
    for (const auto& [id, f] : m_flows)
    {
        last = std::max(last, f.delivered);
    }
    return last;
}

Time
RoceFlowMonitor::GetLastActivity() const
{
    Time last(0);
    for (const auto& [id, f] : m_flows)
    {
        last = std::max({last, f.delivered, f.acked});
    }
    return last;
}

uint64_t
RoceFlowMonitor::GetCnpsSent() const
{
    uint64_t n = 0;
    for (uint32_t h = 0; h < m_fabric->GetNHosts(); ++h)
    {
        n += m_fabric->GetNic(h)->GetCnpsSent();
    }
    return n;
}

uint64_t
RoceFlowMonitor::GetTimeouts() const
{
    uint64_t n = 0;
    for (uint32_t h = 0; h < m_fabric->GetNHosts(); ++h)
    {
        n += m_fabric->GetNic(h)->GetTimeouts();
    }
    return n;
}

uint64_t
RoceFlowMonitor::GetEcnMarked() const
{
    uint64_t n = 0;
    for (const LinkRecord& l : GetLinkRecords(0))
    {
        n += l.ecnMarked;
    }
    return n;
}

std::vector<FlowRecord>
RoceFlowMonitor::GetFlowRecords(int64_t runId) const
{
    std::vector<FlowRecord> rows;
    rows.reserve(m_flows.size());
    for (const auto& [id, f] : m_flows)
    {
        FlowRecord r;
        r.runId = runId;
        r.flowId = id;
        r.jobId = f.info.jobId;
        r.srcNode = f.info.srcNode;
        r.dstNode = f.info.dstNode;
        r.bytes = f.info.bytes;
        r.startNs = f.info.start.GetNanoSeconds();
        r.endNs = f.delivered.IsNegative() ? -1 : f.delivered.GetNanoSeconds();
        r.ackNs = f.acked.IsNegative() ? -1 : f.acked.GetNanoSeconds();
        r.retransmittedBytes = f.retransmittedBytes;
        r.priority = f.info.priority;
        r.srcPort = f.info.srcPort;
        r.iteration = f.info.iteration;
        r.collective = f.info.collective;
        r.step = f.info.step;
        rows.push_back(r);
    }
    return rows;
}

std::vector<LinkRecord>
RoceFlowMonitor::GetLinkRecords(int64_t runId) const
{
    const FabricTopology& topo = m_fabric->GetTopology();
    std::vector<LinkRecord> rows;
    rows.reserve(topo.GetNLinks());
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const FabricLink& link = topo.GetLink(l);
        Ptr<RoceChannel> ch = m_fabric->GetChannel(l);
        LinkRecord r;
        r.runId = runId;
        r.linkId = l;
        r.nodeA = m_fabric->GetNode(link.a)->GetId();
        r.nodeB = m_fabric->GetNode(link.b)->GetId();
        r.rateBps = link.rateBps;
        r.delayNs = link.delayNs;
        r.txBytesAb = ch->GetTxBytes(0);
        r.txBytesBa = ch->GetTxBytes(1);
        for (uint32_t end = 0; end < 2; ++end)
        {
            const uint32_t node = end == 0 ? link.a : link.b;
            r.maxQueueBytes = std::max(r.maxQueueBytes, ch->GetRoceDevice(end)->GetMaxQueueBytes());
            if (Ptr<RoceSwitch> sw = m_fabric->GetSwitch(node))
            {
                const uint32_t port = topo.PortOf(node, l);
                r.drops += sw->GetDrops(port);
                r.pfcPausesSent += sw->GetPausesSent(port);
                r.ecnMarked += sw->GetEcnMarked(port);
            }
        }
        rows.push_back(r);
    }
    return rows;
}

void
RoceFlowMonitor::PrintSummary(std::ostream& os) const
{
    std::vector<double> fctUs;
    uint64_t bytes = 0;
    uint64_t retrans = 0;
    for (const auto& [id, f] : m_flows)
    {
        bytes += f.info.bytes;
        retrans += f.retransmittedBytes;
        if (!f.delivered.IsNegative())
        {
            fctUs.push_back((f.delivered - f.info.start).GetSeconds() * 1e6);
        }
    }
    std::sort(fctUs.begin(), fctUs.end());
    auto pct = [&fctUs](double p) {
        if (fctUs.empty())
        {
            return 0.0;
        }
        std::size_t i = static_cast<std::size_t>(p * (fctUs.size() - 1) + 0.5);
        return fctUs[i];
    };
    uint64_t drops = 0;
    uint64_t pauses = 0;
    uint64_t marks = 0;
    for (const LinkRecord& l : GetLinkRecords(0))
    {
        drops += l.drops;
        pauses += l.pfcPausesSent;
        marks += l.ecnMarked;
    }
    const std::ios_base::fmtflags flags = os.flags();
    const std::streamsize precision = os.precision();
    os << std::fixed << std::setprecision(2);
    os << "flows:            " << m_flows.size() << " (" << GetCompletedFlows() << " complete), "
       << bytes << " bytes\n";
    os << "FCT (us):         min " << pct(0) << "  median " << pct(0.5) << "  p99 " << pct(0.99)
       << "  max " << pct(1) << "\n";
    os << "last delivery:    " << GetLastDelivery().GetSeconds() * 1e6 << " us\n";
    os << "drops:            " << drops << "   retransmitted bytes: " << retrans
       << "   timeouts: " << GetTimeouts() << "\n";
    os << "PFC pauses sent:  " << pauses << "   ECN marked: " << marks
       << "   CNPs sent: " << GetCnpsSent() << "\n";
    os.flags(flags);
    os.precision(precision);
}

} // namespace ns3
