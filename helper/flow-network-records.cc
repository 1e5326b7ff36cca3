/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-network-records.h"

#include <algorithm>

namespace ns3
{

FlowNetworkRecords::FlowNetworkRecords(Ptr<FlowNetwork> network)
    : m_network(network)
{
}

void
FlowNetworkRecords::SetCompletedFlowSink(int64_t runId, std::function<void(const FlowRecord&)> sink)
{
    m_sinkRunId = runId;
    m_sink = std::move(sink);
    m_network->TraceConnectWithoutContext("Delivered",
                                          MakeCallback(&FlowNetworkRecords::Delivered, this));
}

void
FlowNetworkRecords::Delivered(const RdmaMessageInfo& info, Time /* when */)
{
    if (!m_sink)
    {
        return;
    }
    if (m_streamed.size() <= info.flowId)
    {
        m_streamed.resize(info.flowId + 1, false);
    }
    m_streamed[info.flowId] = true;
    m_sink(Row(m_sinkRunId, m_network->GetMessages().at(info.flowId)));
}

FlowRecord
FlowNetworkRecords::Row(int64_t runId, const FlowNetwork::MessageRecord& m)
{
    return MessageRow(runId, m.info.flowId, m.info, m.delivered, m.acked);
}

std::vector<FlowRecord>
FlowNetworkRecords::GetFlowRecords(int64_t runId, bool withStreamed) const
{
    std::vector<FlowRecord> rows;
    rows.reserve(m_network->GetMessages().size());
    for (const FlowNetwork::MessageRecord& m : m_network->GetMessages())
    {
        const uint64_t id = m.info.flowId;
        if (!withStreamed && id < m_streamed.size() && m_streamed[id])
        {
            continue;
        }
        rows.push_back(Row(runId, m));
    }
    return rows;
}

std::vector<LinkRecord>
FlowNetworkRecords::GetLinkRecords(int64_t runId) const
{
    const FabricTopology& topo = m_network->GetTopology();
    std::vector<LinkRecord> rows;
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const FabricLink& link = topo.GetLink(l);
        LinkRecord r;
        r.runId = runId;
        r.linkId = l;
        r.nodeA = link.a;
        r.nodeB = link.b;
        r.rateBps = link.rateBps;
        r.delayNs = link.delayNs;
        r.txBytesAb = m_network->GetTxBytes(2 * l);
        r.txBytesBa = m_network->GetTxBytes(2 * l + 1);
        rows.push_back(r);
    }
    return rows;
}

Time
FlowNetworkRecords::GetLastActivity() const
{
    Time last = m_network->GetLastDelivery();
    for (const FlowNetwork::MessageRecord& m : m_network->GetMessages())
    {
        last = std::max(last, m.acked);
    }
    return last;
}

} // namespace ns3
