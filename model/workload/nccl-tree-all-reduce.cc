/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-tree-all-reduce.h"

#include "ns3/log.h"
#include "ns3/short-name-registry.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NcclTreeAllReduce");
NS_OBJECT_ENSURE_REGISTERED(NcclTreeAllReduce);
NS_OBJECT_SHORT_NAME(NcclTreeAllReduce, "nccl-tree-all-reduce");

uint32_t
NcclGraphChannels(const NcclRankLayout& layout, uint32_t channels)
{
    if (layout.serverSizes.size() < 2)
    {
        return channels;
    }
    // NCCL runs at least one channel per NIC of a server.
    return std::max(channels,
                    *std::max_element(layout.serverSizes.begin(), layout.serverSizes.end()));
}

TypeId
NcclTreeAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NcclTreeAllReduce")
                            .SetParent<Collective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<NcclTreeAllReduce>();
    return tid;
}

NcclTreeAllReduce::NcclTreeAllReduce() = default;

void
NcclTreeAllReduce::DoConfigure()
{
    const NcclRankLayout layout = NcclRankLayout::Read(*GetTransport(), GetRankCount());
    m_topology.Build(layout, NcclGraphChannels(layout, Collective::GetChannels()));
    NcclTuningInput in;
    in.ranks = GetRankCount();
    in.nodes = static_cast<uint32_t>(layout.serverSizes.size());
    in.bytes = GetBytes();
    m_pipeline.Configure(&m_topology,
                         GetBytes(),
                         NcclTreeChunkBytes(NcclProtocol::SIMPLE, in, m_topology.GetChannels()),
                         NcclProtocol::SIMPLE,
                         0.0);
    NS_LOG_INFO(GetName() << ": " << GetRankCount() << " ranks on " << in.nodes << " servers, "
                          << m_topology.GetChannels() << " channels of " << m_pipeline.GetChunks(0)
                          << " chunks");
}

uint32_t
NcclTreeAllReduce::GetChannels() const
{
    return m_topology.GetChannels() > 0 ? m_topology.GetChannels() : Collective::GetChannels();
}

uint64_t
NcclTreeAllReduce::BytesPerRank() const
{
    return m_pipeline.BytesPerRank();
}

NcclTreePipeline::SendFunction
NcclTreeAllReduce::Sender()
{
    return [this, run = m_run](const CollectiveMessage& m) {
        SendMessage(m);
        return IsRunning() && m_run == run;
    };
}

void
NcclTreeAllReduce::DoStart()
{
    // The Channels attribute may have changed since Configure.
    DoConfigure();
    ++m_run;
    if (m_pipeline.Start(Sender()))
    {
        Finish();
    }
}

void
NcclTreeAllReduce::HandleDelivery(const CollectiveMessage& m)
{
    if (m_pipeline.Deliver(m, Sender()))
    {
        Finish();
    }
}

} // namespace ns3
