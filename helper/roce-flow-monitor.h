/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FLOW_MONITOR_H
#define ROCE_FLOW_MONITOR_H

#include "roce-fabric-helper.h"
#include "roce-loss-counter.h"
#include "run-records.h"

#include "ns3/results-database.h"

#include <array>
#include <functional>
#include <map>
#include <ostream>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Follows every message of a RoceFabric through the NICs' trace
 * sources (it never sits in the packet path) and turns them, with the
 * links' counters, into result rows and a readable summary.
 */
class RoceFlowMonitor : public RunRecords
{
  public:
    struct Flow
    {
        RdmaMessageInfo info;
        Time delivered{-1};             ///< last byte arrived at the receiver; negative if not yet
        Time acked{-1};                 ///< sender saw the final ACK; negative if not yet
        uint64_t retransmittedBytes{0}; ///< payload sent again, complete or not
        /// Frame bytes of its data frames lost, by RoceLossCause.
        std::array<uint64_t, kRoceLossCauses> lostBytes{};
        bool streamed{false}; ///< handed to the completed-flow sink
    };

    /// Connects to every NIC of \p fabric; must outlive the simulation run.
    explicit RoceFlowMonitor(Ptr<RoceFabric> fabric);

    const std::map<uint64_t, Flow>& GetFlows() const
    {
        return m_flows;
    }

    /// Switch counters of one priority class, over every switch and port.
    struct ClassCounters
    {
        uint64_t drops{0};
        uint64_t pausesSent{0};
        uint64_t ecnMarked{0};
    };

    std::size_t GetCompletedFlows() const;
    /// Drops, PFC PAUSEs sent and ECN marks of every class (index = class 0-7).
    std::array<ClassCounters, RoceNetDevice::kClasses> GetClassCounters() const;
    uint64_t GetCnpsSent() const;
    uint64_t GetEcnMarked() const;
    uint64_t GetTimeouts() const;
    /// Frame bytes lost over the whole fabric, by RoceLossCause.
    std::array<uint64_t, kRoceLossCauses> GetLostBytes() const;
    /// Payload bytes sent more than once, over every flow.
    uint64_t GetRetransmittedBytes() const;
    /// Latest delivery time of any flow.
    Time GetLastDelivery() const;
    /// Latest delivery or final ACK of any flow.
    Time GetLastActivity() const override;

    /**
     * Hand each flow's row (for run \p runId) to \p sink as the flow
     * completes (delivered and acknowledged), so that results can be written
     * during the run. Single-process runs only (a distributed run's flows
     * are known only after Combine).
     */
    void SetCompletedFlowSink(int64_t runId, std::function<void(const FlowRecord&)> sink);

    /// Rows of the flows table for run \p runId; without those handed to the sink unless \p
    /// withStreamed.
    std::vector<FlowRecord> GetFlowRecords(int64_t runId, bool withStreamed = true) const override;
    /// Rows of the links table for run \p runId.
    std::vector<LinkRecord> GetLinkRecords(int64_t runId) const override;

    /**
     * In a distributed run, combine the ranks' partial views (a flow starts
     * on its sender's rank and is delivered on its receiver's; each rank
     * counts its own nodes' links, drops, marks and CNPs) so that every rank
     * holds the whole run. Every rank must call it, after Simulator::Run. In a
     * single process it changes nothing.
     */
    void Combine();

    /**
     * A short human-readable report: flow completion times, drops, PFC, ECN,
     * and the drops, PAUSEs and marks of each class that saw any.
     */
    void PrintSummary(std::ostream& os) const;

  private:
    /// The flow with its losses and retransmissions filled in.
    Flow WithLosses(uint64_t id, const Flow& f) const;

    void OnStart(const RdmaMessageInfo& info);
    void OnDelivered(const RdmaMessageInfo& info, Time when);
    void OnComplete(const RdmaMessageInfo& info, Time when, uint64_t retransmitted);
    /// The flows-table row of flow \p id.
    static FlowRecord ToRecord(int64_t runId, uint64_t id, const Flow& f);

    Ptr<RoceFabric> m_fabric;
    RoceLossCounter m_losses;
    std::map<uint64_t, Flow> m_flows;
    /// Set by Combine: the whole run's link rows and NIC counters.
    bool m_combined{false};
    std::vector<LinkRecord> m_links;
    std::array<ClassCounters, RoceNetDevice::kClasses> m_classCounters{};
    uint64_t m_cnpsSent{0};
    uint64_t m_timeouts{0};
    std::function<void(const FlowRecord&)> m_sink; ///< completed flows, as they complete
    int64_t m_sinkRunId{-1};                       ///< run of the sink's rows
    std::array<uint64_t, kRoceLossCauses> m_lostBytes{};
};

} // namespace ns3

#endif /* ROCE_FLOW_MONITOR_H */
