/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FABRIC_H
#define ROCE_FABRIC_H

#include "roce-switch.h"

#include "ns3/cluster-network.h"
#include "ns3/ecmp-routes.h"
#include "ns3/error-model.h"
#include "ns3/fabric-topology.h"
#include "ns3/node-container.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-channel.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief A RoCE fabric built from a FabricTopology: its nodes, ports,
 * links, host NICs and switches, and the message API on top.
 */
class RoceFabric : public ClusterNetwork
{
  public:
    static TypeId GetTypeId();

    const FabricTopology& GetTopology() const override
    {
        return m_topology;
    }

    std::shared_ptr<const EcmpRoutes> GetRoutes() const
    {
        return m_routes;
    }

    /// The ns-3 node of topology node \p topologyNode.
    Ptr<Node> GetNode(uint32_t topologyNode) const
    {
        return m_nodes.Get(topologyNode);
    }

    Ptr<Node> GetHost(uint32_t hostIndex) const;

    Ptr<RdmaNic> GetNic(uint32_t hostIndex) const
    {
        return m_nics[hostIndex];
    }

    /// The switch engine of topology node \p topologyNode (null for a host).
    Ptr<RoceSwitch> GetSwitch(uint32_t topologyNode) const
    {
        return m_switches[topologyNode];
    }

    Ptr<RoceChannel> GetChannel(uint32_t linkId) const
    {
        return m_channels[linkId];
    }

    NodeContainer GetNodes() const
    {
        return m_nodes;
    }

    /**
     * Whether this process runs host \p hostIndex's events: always in a
     * single process; in a distributed run, on the host's owner rank only.
     */
    bool IsLocalHost(uint32_t hostIndex) const;

    /// Host index of an ns-3 node id, -1 for a switch.
    int32_t GetHostIndexOfNode(uint32_t nodeId) const;

    /**
     * Post one RDMA WRITE of \p info.bytes from host \p src to host \p dst at
     * time \p at: both ends of a queue pair are set up then (as a connection
     * manager would) and the sender starts. Fills info.flowId (unique,
     * increasing), srcNode, dstNode and start.
     * \return the flow id
     */
    uint64_t SendMessage(uint32_t src, uint32_t dst, RdmaMessageInfo info, Time at);

    /**
     * As SendMessage, and call \p onDelivered when the message's last byte
     * has arrived at \p dst (the receiver's view, as a collective needs).
     */
    uint64_t SendMessage(uint32_t src,
                         uint32_t dst,
                         RdmaMessageInfo info,
                         Time at,
                         std::function<void()> onDelivered);

    /// Write pcap traces (Ethernet link type) of the port of host \p hostIndex.
    void EnablePcap(const std::string& prefix, uint32_t hostIndex);
    /// Write a pcap trace (Ethernet link type) of any port, a switch's included.
    void EnablePcap(const std::string& prefix, Ptr<RoceNetDevice> port);

    /**
     * The links, in order, that frames from host \p src to host \p dst with
     * UDP source port \p srcPort cross: the ECMP choices every switch makes.
     * \throw std::out_of_range if a host index does not exist
     */
    std::vector<uint32_t> GetPath(uint32_t src, uint32_t dst, uint16_t srcPort) const override;

    /**
     * SendMessage now, and hear of the message's end from its sender's NIC:
     * when the NIC gives up on it (SendFailed: retry count exceeded, or
     * flushed behind a message that did), \p onFailed is called with a
     * reason naming the flow, its hosts and the NIC's timeout settings. The
     * fabric listens until the sender has seen the message's last ACK, so a
     * message can fail after it was delivered. In a distributed run only
     * the rank that runs the sender hears of its failure.
     */
    uint64_t Post(uint32_t src,
                  uint32_t dst,
                  const RdmaMessageInfo& info,
                  std::function<void()> onDelivered,
                  FailedCallback onFailed) override;

    uint64_t GetMessagesPosted() const override
    {
        return m_nextFlowId;
    }

    uint64_t GetMessagesDelivered() const override
    {
        return m_delivered;
    }

    /// The NICs' PayloadPerPacket.
    uint32_t GetPayloadPerPacket() const override;
    /// The NICs' AckInterval.
    uint32_t GetAckInterval() const override;

    /// \name Per-job levers, on the NICs of the job's hosts (GetJobHosts)
    /// @{
    void SetGate(uint32_t job, bool open) override;
    /**
     * As the NICs' SetPriorityClass. A class that is lossy in a switch
     * while PFC protects the data class gets one warning (rank 0): the
     * job's data may then be dropped, and the policy should have declared
     * the class (CollectiveScheduler::GetPriorityClasses).
     */
    void SetPriorityClass(uint32_t job, int16_t cls) override;
    void SetRateWeight(uint32_t job, double weight) override;
    void SetSourcePort(uint32_t job, uint32_t srcHost, uint32_t dstHost, uint16_t port) override;
    /// @}

    /**
     * Drop frames received over link \p linkId with probability \p rate, at
     * each end independently: an ns-3 RateErrorModel (packet unit) as the
     * receive error model of both ports, as the HPCC-lineage simulators
     * model a link's error rate. Replaces any receive error model of the two
     * ports; rate 0 removes them. Call before AssignStreams, which fixes the
     * models' random streams after those of the NICs and switches.
     * \throw std::out_of_range for a link that does not exist
     * \throw std::invalid_argument for a rate outside [0,1]
     */
    void SetLinkErrorRate(uint32_t linkId, double rate);

    /**
     * Fix the random streams of every NIC and switch, then of the link
     * error models, starting at \p stream, so that a run does not depend on
     * what ran before it in the process.
     * \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /// Frames dropped anywhere in the fabric.
    uint64_t GetTotalDrops() const;
    uint64_t GetTotalPausesSent() const;

    /**
     * Make the classes of \p mask (bit c for class c) lossless in every
     * switch, besides those already lossless (SwitchMmu::SetLosslessClasses):
     * what a scheduler that moves jobs to other classes needs so that their
     * traffic stays PFC-protected. Call before the simulation runs.
     * \throw std::runtime_error if a switch's buffer cannot hold the extra
     * reserves and headrooms
     */
    void AddLosslessClasses(uint8_t mask) override;

    /// A switch port whose ECN Kmin cannot be reached before its ingress pauses.
    struct EcnAbovePause
    {
        uint32_t node;       ///< topology node of the switch
        uint32_t port;       ///< the switch's port (egress)
        uint64_t kmin;       ///< the port's ECN Kmin, bytes
        uint64_t pauseOnset; ///< SwitchMmu::GetPauseOnsetBytes of the switch
        uint64_t reserve;    ///< ReservePerQueue, bytes
        uint64_t sharedPool; ///< shared pool of the switch, bytes
        double pfcAlpha;     ///< PfcAlpha of the switch
    };

    /**
     * Every switch port (with ECN on and a lossless class) whose Kmin is at
     * or above the egress bytes at which one congested ingress queue of a
     * lossless class pauses (SwitchMmu::GetPauseOnsetBytes): there DCQCN
     * gets no mark before PFC pauses.
     */
    std::vector<EcnAbovePause> FindEcnAbovePause() const;

    /**
     * If FindEcnAbovePause finds ports, write one warning to \p os naming
     * the first and the count. Install schedules it (to std::cerr, rank 0)
     * at time 0, after every configuration made before the run.
     * \return the number of ports found
     */
    std::size_t WarnEcnAbovePause(std::ostream& os) const;

  protected:
    void DoDispose() override;

  private:
    friend class RoceFabricHelper;
    void StartMessage(uint32_t src, uint32_t dst, RdmaMessageInfo info);
    void OnDelivered(const RdmaMessageInfo& info, Time when);
    void QueueNotification(uint64_t flowId);
    /// WarnEcnAbovePause on std::cerr, on rank 0 only.
    void WarnEcnAbovePauseAtStart() const;
    void RunNotifications();
    /// Call and forget the onDelivered callback of message \p flowId, if any.
    void Notify(uint64_t flowId);
    /// The NIC of host \p host tells the fabric of its messages' ends (once per host).
    void ListenToSender(uint32_t host);
    void OnSendComplete(const RdmaMessageInfo& info, Time ackTime, uint64_t retransmitted);
    void OnSendFailed(const RdmaMessageInfo& info, RdmaSendError error);
    /// Warn once per class if \p cls is lossy where the data class is lossless.
    void CheckLossless(uint32_t job, int16_t cls);

    /// A posted message whose sender has not yet seen its last ACK.
    struct Pending
    {
        uint32_t srcHost{0};
        uint32_t dstHost{0};
        FailedCallback onFailed; ///< null: a failure is fatal
    };

    FabricTopology m_topology;
    std::shared_ptr<const EcmpRoutes> m_routes;
    NodeContainer m_nodes;
    std::vector<Ptr<RdmaNic>> m_nics;         ///< by host index
    std::vector<Ptr<RoceSwitch>> m_switches;  ///< by topology node
    std::vector<Ptr<RoceChannel>> m_channels; ///< by link id
    std::vector<int32_t> m_hostOfNode;        ///< ns-3 node id -> host index
    uint64_t m_nextFlowId{0};
    uint32_t m_rank{0}; ///< this process's rank in a distributed run
    Time m_notificationDelay;
    Time m_minRemoteDelay{0};              ///< smallest delay of a link between ranks, 0 if none
    std::vector<uint64_t> m_notifications; ///< due now, by flow id, not yet run
    Ptr<Object> m_messenger;               ///< RankMessenger of a distributed run
    std::unordered_map<uint64_t, std::function<void()>> m_onDelivered; ///< by flow id
    std::unordered_map<uint64_t, Pending> m_pending;                   ///< by flow id
    std::vector<bool> m_listening; ///< by host: ListenToSender done
    uint64_t m_delivered{0};
    uint8_t m_warnedClasses{0}; ///< classes CheckLossless warned about
    /// by link id: the receive error models of end a and end b set by SetLinkErrorRate
    std::map<uint32_t, std::array<Ptr<RateErrorModel>, 2>> m_linkErrorModels;
};

} // namespace ns3

#endif /* ROCE_FABRIC_H */
