/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_NETWORK_RECORDS_H
#define FLOW_NETWORK_RECORDS_H

#include "run-records.h"

#include "ns3/flow-network.h"

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

    std::vector<FlowRecord> GetFlowRecords(int64_t runId, bool withStreamed = true) const override;
    std::vector<LinkRecord> GetLinkRecords(int64_t runId) const override;
    Time GetLastActivity() const override;

  private:
    Ptr<FlowNetwork> m_network;
};

} // namespace ns3

#endif /* FLOW_NETWORK_RECORDS_H */
