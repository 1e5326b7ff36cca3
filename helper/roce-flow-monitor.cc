/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-flow-monitor.h"

#include "ns3/callback.h"
#include "ns3/distributed-simulation.h"

#include <algorithm>
#include <iomanip>
#include <stdexcept>

namespace ns3
{

RoceFlowMonitor::RoceFlowMonitor(Ptr<RoceFabric> fabric)
    : m_fabric(fabric),
      m_losses(fabric)
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
    if (m_sink && !f.delivered.IsNegative())
    {
        f.streamed = true;
        m_sink(ToRecord(m_sinkRunId, info.flowId, WithLosses(info.flowId, f)));
    }
}

void
RoceFlowMonitor::SetCompletedFlowSink(int64_t runId, std::function<void(const FlowRecord&)> sink)
{
    if (DistributedSize() > 1)
    {
        throw std::logic_error("RoceFlowMonitor: a completed-flow sink needs a single process");
    }
    m_sinkRunId = runId;
    m_sink = std::move(sink);
}

RoceFlowMonitor::Flow
RoceFlowMonitor::WithLosses(uint64_t id, const Flow& f) const
{
    if (m_combined)
    {
        return f; // Combine filled them in
    }
    Flow out = f;
    // The NIC's Retransmit trace covers flows that never complete too.
    out.retransmittedBytes = m_losses.GetRetransmittedBytes(id);
    out.lostBytes = m_losses.GetFlow(id).bytes;
    return out;
}

std::array<uint64_t, kRoceLossCauses>
RoceFlowMonitor::GetLostBytes() const
{
    return m_combined ? m_lostBytes : m_losses.GetTotal().bytes;
}

uint64_t
RoceFlowMonitor::GetRetransmittedBytes() const
{
    uint64_t n = 0;
    for (const auto& [id, f] : m_flows)
    {
        n += WithLosses(id, f).retransmittedBytes;
    }
    return n;
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

void
RoceFlowMonitor::Combine()
{
    if (DistributedSize() == 1)
    {
        return;
    }
    // Flows: ids are global (every rank posts every message), so fixed-size
    // arrays indexed by id combine with one AllReduce each. A field known to
    // one rank is summed with the others' zeros; times take the maximum of
    // the others' -1.
    const uint64_t nFlows = static_cast<uint64_t>(
        AllReduce(m_flows.empty() ? 0 : static_cast<int64_t>(m_flows.rbegin()->first + 1),
                  ReduceOp::Max));
    constexpr std::size_t kSumFields = 15;
    std::vector<int64_t> sums(nFlows * kSumFields, 0);
    std::vector<int64_t> times(nFlows * 2, -1);
    for (const auto& [id, flow] : m_flows)
    {
        const Flow f = WithLosses(id, flow);
        int64_t* row = &sums[id * kSumFields];
        // Losses are seen wherever the frame was lost: summed over ranks.
        row[12] = static_cast<int64_t>(f.lostBytes[0]);
        row[13] = static_cast<int64_t>(f.lostBytes[1]);
        row[14] = static_cast<int64_t>(f.lostBytes[2]);
        if (f.info.bytes > 0) // the sender's rank saw it start
        {
            const RdmaMessageInfo& i = f.info;
            const int64_t fields[kSumFields] = {1,
                                                i.jobId,
                                                i.iteration,
                                                i.collective,
                                                i.step,
                                                i.srcNode,
                                                i.dstNode,
                                                static_cast<int64_t>(i.bytes),
                                                i.priority,
                                                i.srcPort,
                                                i.start.GetTimeStep(),
                                                static_cast<int64_t>(f.retransmittedBytes)};
            std::copy(fields, fields + 12, row);
        }
        times[id * 2] = f.delivered.GetTimeStep();
        times[id * 2 + 1] = f.acked.GetTimeStep();
    }
    AllReduce(sums, ReduceOp::Sum);
    AllReduce(times, ReduceOp::Max);
    m_flows.clear();
    for (uint64_t id = 0; id < nFlows; ++id)
    {
        const int64_t* row = &sums[id * kSumFields];
        if (row[0] == 0 && times[id * 2] < 0)
        {
            continue; // never started
        }
        Flow& f = m_flows[id];
        f.info.flowId = id;
        f.info.jobId = row[1];
        f.info.iteration = row[2];
        f.info.collective = row[3];
        f.info.step = row[4];
        f.info.srcNode = static_cast<uint32_t>(row[5]);
        f.info.dstNode = static_cast<uint32_t>(row[6]);
        f.info.bytes = static_cast<uint64_t>(row[7]);
        f.info.priority = static_cast<uint8_t>(row[8]);
        f.info.srcPort = static_cast<uint16_t>(row[9]);
        f.info.start = TimeStep(row[10]);
        f.retransmittedBytes = static_cast<uint64_t>(row[11]);
        for (std::size_t c = 0; c < kRoceLossCauses; ++c)
        {
            f.lostBytes[c] = static_cast<uint64_t>(row[12 + c]);
        }
        f.delivered = TimeStep(times[id * 2]);
        f.acked = TimeStep(times[id * 2 + 1]);
    }

    // Links: each direction's frames are counted by the sending rank, each
    // switch port's drops, pauses and marks by the switch's rank.
    m_links = GetLinkRecords(0);
    constexpr std::size_t kLinkFields = 9;
    std::vector<int64_t> counters;
    std::vector<int64_t> peaks;
    for (const LinkRecord& l : m_links)
    {
        counters.insert(counters.end(),
                        {static_cast<int64_t>(l.txBytesAb),
                         static_cast<int64_t>(l.txBytesBa),
                         static_cast<int64_t>(l.drops),
                         static_cast<int64_t>(l.pfcPausesSent),
                         static_cast<int64_t>(l.ecnMarked),
                         static_cast<int64_t>(l.lostBytesBuffer),
                         static_cast<int64_t>(l.lostBytesError),
                         static_cast<int64_t>(l.lostBytesLinkDown),
                         static_cast<int64_t>(l.pfcPausedNs)});
        peaks.push_back(static_cast<int64_t>(l.maxQueueBytes));
    }
    counters.push_back(static_cast<int64_t>(GetCnpsSent()));
    counters.push_back(static_cast<int64_t>(GetTimeouts()));
    for (const ClassCounters& c : GetClassCounters())
    {
        counters.insert(counters.end(),
                        {static_cast<int64_t>(c.drops),
                         static_cast<int64_t>(c.pausesSent),
                         static_cast<int64_t>(c.ecnMarked)});
    }
    AllReduce(counters, ReduceOp::Sum);
    AllReduce(peaks, ReduceOp::Max);
    for (std::size_t i = 0; i < m_links.size(); ++i)
    {
        LinkRecord& l = m_links[i];
        const int64_t* at = &counters[i * kLinkFields];
        l.txBytesAb = at[0];
        l.txBytesBa = at[1];
        l.drops = at[2];
        l.pfcPausesSent = at[3];
        l.ecnMarked = at[4];
        l.lostBytesBuffer = at[5];
        l.lostBytesError = at[6];
        l.lostBytesLinkDown = at[7];
        l.pfcPausedNs = at[8];
        l.maxQueueBytes = peaks[i];
        m_lostBytes[0] += l.lostBytesBuffer;
        m_lostBytes[1] += l.lostBytesError;
        m_lostBytes[2] += l.lostBytesLinkDown;
    }
    m_cnpsSent = counters[m_links.size() * kLinkFields];
    m_timeouts = counters[m_links.size() * kLinkFields + 1];
    for (std::size_t c = 0; c < m_classCounters.size(); ++c)
    {
        const std::size_t at = m_links.size() * kLinkFields + 2 + c * 3;
        m_classCounters[c] = {static_cast<uint64_t>(counters[at]),
                              static_cast<uint64_t>(counters[at + 1]),
                              static_cast<uint64_t>(counters[at + 2])};
    }
    m_combined = true;
}

std::array<RoceFlowMonitor::ClassCounters, RoceNetDevice::kClasses>
RoceFlowMonitor::GetClassCounters() const
{
    if (m_combined)
    {
        return m_classCounters;
    }
    std::array<ClassCounters, RoceNetDevice::kClasses> counters{};
    for (uint32_t node = 0; node < m_fabric->GetTopology().GetNNodes(); ++node)
    {
        if (Ptr<RoceSwitch> sw = m_fabric->GetSwitch(node))
        {
            for (uint8_t c = 0; c < RoceNetDevice::kClasses; ++c)
            {
                counters[c].drops += sw->GetClassDrops(c);
                counters[c].pausesSent += sw->GetClassPausesSent(c);
                counters[c].ecnMarked += sw->GetClassEcnMarked(c);
            }
        }
    }
    return counters;
}

uint64_t
RoceFlowMonitor::GetCnpsSent() const
{
    if (m_combined)
    {
        return m_cnpsSent;
    }
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
    if (m_combined)
    {
        return m_timeouts;
    }
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

FlowRecord
RoceFlowMonitor::ToRecord(int64_t runId, uint64_t id, const Flow& f)
{
    FlowRecord r = MessageRow(runId, id, f.info, f.delivered, f.acked);
    r.retransmittedBytes = f.retransmittedBytes;
    r.lostBytesBuffer = f.lostBytes[static_cast<std::size_t>(RoceLossCause::BUFFER)];
    r.lostBytesError = f.lostBytes[static_cast<std::size_t>(RoceLossCause::ERROR)];
    r.lostBytesLinkDown = f.lostBytes[static_cast<std::size_t>(RoceLossCause::LINK_DOWN)];
    return r;
}

std::vector<FlowRecord>
RoceFlowMonitor::GetFlowRecords(int64_t runId, bool withStreamed) const
{
    std::vector<FlowRecord> rows;
    rows.reserve(m_flows.size());
    for (const auto& [id, flow] : m_flows)
    {
        const Flow f = WithLosses(id, flow);
        if (withStreamed || !f.streamed)
        {
            rows.push_back(ToRecord(runId, id, f));
        }
    }
    return rows;
}

std::vector<LinkRecord>
RoceFlowMonitor::GetLinkRecords(int64_t runId) const
{
    if (m_combined)
    {
        std::vector<LinkRecord> rows = m_links;
        for (LinkRecord& r : rows)
        {
            r.runId = runId;
        }
        return rows;
    }
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
        const RoceLossCounter::Losses& lost = m_losses.GetLink(l);
        r.lostBytesBuffer = lost.bytes[static_cast<std::size_t>(RoceLossCause::BUFFER)];
        r.lostBytesError = lost.bytes[static_cast<std::size_t>(RoceLossCause::ERROR)];
        r.lostBytesLinkDown = lost.bytes[static_cast<std::size_t>(RoceLossCause::LINK_DOWN)];
        for (uint32_t end = 0; end < 2; ++end)
        {
            const uint32_t node = end == 0 ? link.a : link.b;
            Ptr<RoceNetDevice> device = ch->GetRoceDevice(end);
            r.maxQueueBytes = std::max(r.maxQueueBytes, device->GetMaxQueueBytes());
            for (uint8_t c = 0; c < RoceNetDevice::kClasses; ++c)
            {
                r.pfcPausedNs += static_cast<uint64_t>(device->GetPausedTime(c).GetNanoSeconds());
            }
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
    for (const auto& [id, flow] : m_flows)
    {
        const Flow f = WithLosses(id, flow);
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
    const auto lost = GetLostBytes();
    os << "lost bytes:       " << RoceLossCounter::Name(RoceLossCause::BUFFER) << " " << lost[0]
       << "   " << RoceLossCounter::Name(RoceLossCause::ERROR) << " " << lost[1] << "   "
       << RoceLossCounter::Name(RoceLossCause::LINK_DOWN) << " " << lost[2] << "\n";
    os << "PFC pauses sent:  " << pauses << "   ECN marked: " << marks
       << "   CNPs sent: " << GetCnpsSent() << "\n";
    // Which classes paused, were marked or dropped: a lossless class that
    // pauses without marks, or a lossy one that drops, shows here.
    Ptr<SwitchMmu> mmu;
    for (uint32_t node = 0; node < m_fabric->GetTopology().GetNNodes() && !mmu; ++node)
    {
        if (Ptr<RoceSwitch> sw = m_fabric->GetSwitch(node))
        {
            mmu = sw->GetMmu();
        }
    }
    const auto counters = GetClassCounters();
    for (uint8_t c = 0; c < counters.size(); ++c)
    {
        const ClassCounters& k = counters[c];
        if (k.drops + k.pausesSent + k.ecnMarked == 0)
        {
            continue;
        }
        os << "  class " << +c << (mmu && mmu->IsLossless(c) ? " (lossless)" : " (lossy)")
           << ": PFC pauses sent " << k.pausesSent << "   ECN marked " << k.ecnMarked << "   drops "
           << k.drops << "\n";
    }
    os.flags(flags);
    os.precision(precision);
}

} // namespace ns3
