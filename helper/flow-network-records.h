/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_NETWORK_RECORDS_H
#define FLOW_NETWORK_RECORDS_H

#include "run-records.h"

#include "ns3/flow-network.h"

#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The flows and links rows of a run on a FlowNetwork, as
 * RoceFlowMonitor gives them for the packet level: one flow row per message
 * (no retransmissions, the final ACK at the time the sender would see it),
 * one link row per link with the wire bytes sent each way. Drops, PAUSEs,
 * ECN marks and queues do not exist in the fluid model and are 0.
 */
class FlowNetworkRecords : public RunRecords
{
  public:
    explicit FlowNetworkRecords(Ptr<FlowNetwork> network);

    /**
     * Hand each message's row for run \p runId to \p sink as it is
     * delivered (its row is then final: the time its sender sees the final
     * ACK is known); GetFlowRecords without the streamed rows then leaves
     * those out.
     */
    void SetCompletedFlowSink(int64_t runId, std::function<void(const FlowRecord&)> sink);

    std::vector<FlowRecord> GetFlowRecords(int64_t runId, bool withStreamed = true) const override;
    std::vector<LinkRecord> GetLinkRecords(int64_t runId) const override;
    Time GetLastActivity() const override;

  private:
    /// The flows row of message \p m.
    static FlowRecord Row(int64_t runId, const FlowNetwork::MessageRecord& m);
    /// The network's Delivered trace.
    void Delivered(const RdmaMessageInfo& info, Time when);

    Ptr<FlowNetwork> m_network;
    int64_t m_sinkRunId{-1};
    std::function<void(const FlowRecord&)> m_sink;
    std::vector<bool> m_streamed; ///< by flow id: handed to the sink
};

} // namespace ns3

#endif /* FLOW_NETWORK_RECORDS_H */
