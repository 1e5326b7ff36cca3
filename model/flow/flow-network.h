/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_NETWORK_H
#define FLOW_NETWORK_H

#include "max-min-allocator.h"

#include "ns3/cluster-network.h"
#include "ns3/ecmp-routes.h"
#include "ns3/event-id.h"
#include "ns3/fabric-topology.h"
#include "ns3/iteration-progress.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief A flow-level (fluid) model of a RoCE fabric: the same topology,
 * ECMP routes and message API as RoceFabric, with rates instead of packets.
 *
 * A message is a fluid flow of its wire bytes (headers included, as
 * RoceWire::MessageWireBytes counts them) along the path the packet-level
 * switches would give its 5-tuple (EcmpRoutes::FlowHash with the same
 * per-switch seeds). Rates are weighted max-min fair with strict priority
 * between traffic classes (MaxMinAllocator); a flow's ACKs load its reverse
 * path by the ACK bytes per data byte. Rates are recomputed only when a
 * flow starts or ends, or a gate, class or weight changes, and only over the
 * connected component (flows and the links they share) of the changed
 * flows; every change at one instant is solved together. A message is
 * delivered when its last byte has been sent, plus the path's propagation
 * and the store-and-forward of its last frame at every switch. One
 * calibrated term stands for what the fluid model leaves out: a switch
 * port that is a bottleneck of data from two or more senders in one class
 * gives that class only ContendedLinkEfficiency of what the classes above
 * leave, as DCQCN's rate cuts leave it idle part of the time, once the
 * contention has lasted ContentionOnset (doc/flow-backend.md).
 *
 * As on the NIC, messages of one connection (source host, destination host,
 * UDP source port) go in order, each starting when the one before it has
 * sent its last byte; a job's gate pauses its flows at once; a job's class
 * and source port apply to messages posted after the change, its weight
 * to its current and future flows.
 */
class FlowNetwork : public ClusterNetwork
{
  public:
    static TypeId GetTypeId();
    FlowNetwork();
    ~FlowNetwork() override;

    /**
     * Build the model of \p topology (validated) with the ECMP routes of
     * every switch. Call once, before any message.
     */
    void Build(const FabricTopology& topology);

    const FabricTopology& GetTopology() const override
    {
        return m_topology;
    }

    /// RDMA payload bytes per full packet (the NIC's PayloadPerPacket).
    uint32_t GetPayloadPerPacket() const override
    {
        return m_payload;
    }

    /// Packets per ACK (the NIC's AckInterval).
    uint32_t GetAckInterval() const override
    {
        return m_ackInterval;
    }

    /**
     * The links, in order, from host \p src to host \p dst for UDP source
     * port \p srcPort: the choices RoceFabric's switches make for that
     * 5-tuple with the same EcmpSeed (RoceFabric::GetPath).
     * \throw std::out_of_range if a host index does not exist
     */
    std::vector<uint32_t> GetPath(uint32_t src, uint32_t dst, uint16_t srcPort) const override;

    /**
     * Post \p info.bytes from host \p src to host \p dst now; call
     * \p onDelivered when the last byte has arrived. Fills info.flowId
     * (unique, increasing), srcNode and dstNode (topology node ids) and start.
     * \return the flow id
     */
    uint64_t SendMessage(uint32_t src,
                         uint32_t dst,
                         RdmaMessageInfo info,
                         std::function<void()> onDelivered);

    /// SendMessage: the flow level loses nothing, so \p onFailed is never called.
    uint64_t Post(uint32_t src,
                  uint32_t dst,
                  const RdmaMessageInfo& info,
                  std::function<void()> onDelivered,
                  FailedCallback onFailed) override;

    /// \name Job controls, as RdmaNic's, on every host at once
    /// @{
    void SetGate(uint32_t job, bool open) override;
    bool IsGateOpen(int64_t jobId) const;
    /// Class 0-6 of the job's messages posted from now on and of those not yet moving;
    /// -1 restores the message's own for new ones.
    void SetPriorityClass(uint32_t job, int16_t cls) override;
    /// Share of the job's flows relative to others of their class (max-min weight)
    /// where they queue at a switch port, as the NICs' congestion control weighs them; > 0.
    void SetRateWeight(uint32_t job, double weight) override;
    /**
     * MLTCP at the flow level: every flow's max-min weight is multiplied by
     * F = \p intercept + \p slope x progress, where progress is the fraction
     * of its iteration's bytes the job has sent from that host (the bytes of
     * the previous iteration from there, capped at 1; the first iteration's
     * F is intercept + slope / 2), as MltcpDcqcn scales DCQCN's steps. F is
     * taken at every rate solve of the flow's component (each message's
     * start or end), not continuously, and broken between jobs by
     * MltcpTieBreak.
     */
    void SetMltcp(double slope, double intercept);
    /// UDP source port of the job's messages from \p srcHost to \p dstHost posted from now on.
    void SetSourcePort(uint32_t job, uint32_t srcHost, uint32_t dstHost, uint16_t port) override;
    /// @}

    /// Current rate of message \p flowId in bit/s of wire bytes; 0 if it is not sending.
    double GetRate(uint64_t flowId) const;

    /// One message's life, for the flows table.
    struct MessageRecord
    {
        RdmaMessageInfo info;
        Time delivered{-1}; ///< last byte arrived; negative if not yet
        Time acked{-1};     ///< the sender would have seen the final ACK; negative if not yet
    };

    /// Every message posted, by flow id (kept only while RecordMessages is true).
    const std::vector<MessageRecord>& GetMessages() const
    {
        return m_records;
    }

    /// Wire bytes sent over directed link \p dirLink (2 x link id, + 1 from end b to end a).
    uint64_t GetTxBytes(uint32_t dirLink) const
    {
        return static_cast<uint64_t>(m_txBytes[dirLink] + 0.5);
    }

    uint64_t GetMessagesPosted() const override
    {
        return m_nextFlowId;
    }

    uint64_t GetMessagesDelivered() const override
    {
        return m_delivered;
    }

    /// Rate recomputations (one per instant at which anything changed).
    uint64_t GetRecomputations() const
    {
        return m_recomputations;
    }

    /// Flows solved over all recomputations (the sum of component sizes).
    uint64_t GetFlowsSolved() const
    {
        return m_flowsSolved;
    }

    /// Latest delivery of any message.
    Time GetLastDelivery() const
    {
        return m_lastDelivery;
    }

    /// Trace signature: message, delivery time.
    typedef void (*DeliveredCallback)(const RdmaMessageInfo& info, Time when);

  protected:
    void DoDispose() override;

  private:
    /// A message in the fabric: waiting behind its connection, sending, or paused by its gate.
    struct Active
    {
        RdmaMessageInfo info;
        uint32_t connection{0};
        double remainingBits{0}; ///< wire bits left to send
        double rate{0};          ///< bit/s
        Time updated;            ///< when remainingBits was last brought up to date
        EventId done;            ///< its last bit leaves the sender
        std::function<void()> onDelivered;
        bool inLinks{false}; ///< listed on its links (sending, gate open)
        uint32_t mark{0};    ///< recomputation that visited it
    };

    /// Messages between two hosts over one ECMP path, in order (one queue pair).
    struct Connection
    {
        uint32_t src{0};
        uint32_t dst{0};
        std::vector<uint32_t> path;    ///< directed links, sender to receiver
        std::vector<uint32_t> reverse; ///< directed links of the ACKs
        std::deque<uint32_t> queue;    ///< active slots, head sending
    };

    uint32_t ConnectionOf(uint32_t src, uint32_t dst, uint16_t port);
    std::vector<uint32_t> DirectedPath(uint32_t src, uint32_t dst, uint16_t port) const;
    void StartHead(uint32_t connection);
    void Attach(uint32_t slot);
    void Detach(uint32_t slot);
    void MarkDirty(uint32_t dirLink);
    void Recompute();
    void SendDone(uint32_t slot);
    void Deliver(uint64_t flowId, Time acked);
    Time PathLatency(const std::vector<uint32_t>& path, uint32_t lastFrameBytes) const;
    double WireBits(uint64_t bytes) const;
    double AckLoad() const;
    /**
     * After an ideal allocation of the component on \p links (local index ->
     * directed link), discount every full switch port where a class has data
     * from two or more senders: the highest such class gets
     * ContendedLinkEfficiency of what the classes above leave, and the
     * classes below it the rest, once it has been so for ContentionOnset. \return whether any was
     * discounted (allocate again).
     */
    bool DiscountContended(const std::vector<uint32_t>& links);
    /// Fill m_classLoad and m_classSender from the last allocation of \p nLinks local links.
    void TallyClasses(std::size_t nLinks);
    /// Whether local link \p local carries as much data as it has room for.
    bool Full(std::size_t local) const;
    /// Whether class \p cls queues at local link \p local (directed link \p link):
    /// a switch sends there, the link is full and the class has data from several hosts.
    bool Queues(std::size_t local, uint32_t link, uint8_t cls) const;
    /**
     * A flow's weight (MLTCP's F, a scheduler's rate weight) scales its
     * congestion control's steps, which act only on marks from a queue at a
     * switch port: give a flow that crosses no such queue weight 1 (a NIC
     * serves its queue pairs in turn). \return whether any weight changed
     * (allocate again).
     */
    bool UnweighWhereNotQueued(const std::vector<uint32_t>& links);
    /// The MLTCP factor of message \p a (1 unless SetMltcp was called).
    double MltcpFactor(const Active& a) const;
    /// Uniform in [0, 1), fixed by \p jobId and the run's seed: MLTCP's tie-break.
    static double TieBreakOf(int64_t jobId);

    FabricTopology m_topology;
    std::unique_ptr<EcmpRoutes> m_routes;
    uint32_t m_payload{4096};
    uint32_t m_ackInterval{16};
    uint32_t m_ecmpSeed{1};
    bool m_record{true};
    double m_contendedEfficiency{1}; ///< ContendedLinkEfficiency
    Time m_contentionOnset;          ///< ContentionOnset

    std::vector<double> m_capacity;     ///< by directed link, bit/s
    std::vector<uint8_t> m_switchSends; ///< by directed link: a switch transmits on it
    std::vector<Time> m_contendedSince; ///< by directed link: contended since; negative: not
    std::vector<std::vector<uint32_t>> m_onLink; ///< by directed link: active slots loading it
    std::vector<double> m_txBytes;               ///< by directed link
    std::vector<uint8_t> m_dirty;                ///< by directed link
    std::vector<uint32_t> m_dirtyList;
    std::vector<uint32_t> m_linkMark; ///< by directed link: recomputation that saw it
    bool m_recomputeScheduled{false};

    std::vector<Active> m_active; ///< slots
    std::vector<uint32_t> m_freeSlots;
    std::map<uint64_t, uint32_t> m_slotOfFlow; ///< sending or queued messages by flow id
    std::vector<Connection> m_connections;
    std::map<std::tuple<uint32_t, uint32_t, uint16_t>, uint32_t> m_connectionIndex;

    std::map<int64_t, bool> m_gateOpen;    ///< absent: open
    std::map<int64_t, int16_t> m_jobClass; ///< absent or -1: the message's
    std::map<int64_t, double> m_jobWeight; ///< absent: 1

    bool m_mltcp{false}; ///< SetMltcp was called
    double m_mltcpSlope{0};
    double m_mltcpIntercept{1};
    double m_mltcpTieBreak{0.01}; ///< MltcpTieBreak attribute
    /// (job, host) -> the job's progress through its iteration from that host (MLTCP)
    std::map<std::pair<int64_t, uint32_t>, IterationProgress> m_progress;
    std::map<std::tuple<int64_t, uint32_t, uint32_t>, uint16_t> m_jobPort;

    std::vector<uint32_t> m_nextQpn; ///< by host: next queue pair number, as RdmaNic's
    std::vector<MessageRecord> m_records;
    std::map<uint64_t, std::function<void()>> m_pendingDelivery;
    uint64_t m_nextFlowId{0};
    uint64_t m_delivered{0};
    uint64_t m_recomputations{0};
    uint64_t m_flowsSolved{0};
    uint32_t m_epoch{0};
    Time m_lastDelivery{0};

    MaxMinAllocator m_allocator;
    std::vector<MaxMinAllocator::Flow> m_solveFlows;
    std::vector<uint32_t> m_solveSlots;
    std::vector<double> m_solveCapacity;
    std::vector<double> m_solveRates;
    static constexpr std::size_t kClasses = 8; ///< traffic classes 0-7
    /// By local link and class: load in the ideal allocation.
    std::vector<std::array<double, kClasses>> m_classLoad;
    /// By local link and class: the data's one source host, or none (-1) or several (-2).
    std::vector<std::array<int64_t, kClasses>> m_classSender;
    /// By local link: the class DiscountContended limits there, and its share.
    std::vector<MaxMinAllocator::ClassShare> m_classShare;
    std::vector<uint32_t> m_localOf; ///< by directed link: local index in this recomputation

    TracedCallback<const RdmaMessageInfo&, Time> m_deliveredTrace;
};

} // namespace ns3

#endif /* FLOW_NETWORK_H */
