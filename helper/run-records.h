/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RUN_RECORDS_H
#define RUN_RECORDS_H

#include "ns3/nstime.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/results-database.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief What a network model gives a run's results: the rows of the flows
 * and links tables and the time of its last activity. The packet-level
 * fabric's RoceFlowMonitor and the flow-level FlowNetworkRecords give the
 * same rows, and both stream them as flows complete (StreamFlows), so a run
 * writes the same tables the same way at both levels.
 */
class RunRecords
{
  public:
    virtual ~RunRecords() = default;
    /// Rows of the flows table for run \p runId; without the rows already
    /// streamed during the run (if the level streams them) unless \p withStreamed.
    virtual std::vector<FlowRecord> GetFlowRecords(int64_t runId,
                                                   bool withStreamed = true) const = 0;
    /// Rows of the links table for run \p runId.
    virtual std::vector<LinkRecord> GetLinkRecords(int64_t runId) const = 0;
    /// Latest delivery or final ACK of any flow.
    virtual Time GetLastActivity() const = 0;

    /// The flows row both levels share for message \p info of run \p runId:
    /// its identity, size and start, and its delivery and final ACK (a
    /// negative time: not yet, -1 in the row). Loss columns are the packet
    /// level's to fill.
    static FlowRecord MessageRow(int64_t runId,
                                 uint64_t flowId,
                                 const RdmaMessageInfo& info,
                                 Time delivered,
                                 Time acked)
    {
        FlowRecord r;
        r.runId = runId;
        r.flowId = flowId;
        r.jobId = info.jobId;
        r.srcNode = info.srcNode;
        r.dstNode = info.dstNode;
        r.bytes = info.bytes;
        r.startNs = info.start.GetNanoSeconds();
        r.endNs = delivered.IsNegative() ? -1 : delivered.GetNanoSeconds();
        r.ackNs = acked.IsNegative() ? -1 : acked.GetNanoSeconds();
        r.priority = info.priority;
        r.srcPort = info.srcPort;
        r.iteration = info.iteration;
        r.collective = info.collective;
        r.step = info.step;
        return r;
    }
};

} // namespace ns3

#endif /* RUN_RECORDS_H */
