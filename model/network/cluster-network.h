/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CLUSTER_NETWORK_H
#define CLUSTER_NETWORK_H

#include "ns3/fabric-topology.h"
#include "ns3/object.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/scheduler-job.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The network a GPU cluster's jobs share, as jobs, collectives,
 * schedulers and results see it, whatever the level that carries it.
 *
 * Two classes implement it: RoceFabric (the packet level: NICs, queue
 * pairs, switches) and FlowNetwork (the flow level: fluid flows on the same
 * topology and routes). Everything above the network (TrainingCluster,
 * NetworkCollectiveTransport, the schedulers, MakeSchedulerJob) is
 * written once, against this class; the level is chosen once, where a run
 * is built.
 *
 * It offers:
 * - the hosts and links (GetTopology) and the path a connection takes
 *   (GetPath: ECMP on the connection's UDP source port);
 * - messages between hosts (Post), each an RDMA WRITE on a queue pair of
 *   its own, with a callback when its last byte arrived and one when the
 *   network gave up on it;
 * - the per-job levers a scheduler pulls (SchedulerControl: gate, traffic
 *   class, rate weight and a connection's source port, so route), each
 *   acting on the job's traffic wherever it runs: a scheduler's control
 *   is the network itself;
 * - counters and the wire parameters an estimate of a message's time needs.
 *
 * Traffic between GPUs of one server (NVLink) never reaches the network:
 * NetworkCollectiveTransport carries it.
 */
class ClusterNetwork : public Object, public SchedulerControl
{
  public:
    static TypeId GetTypeId();

    /// Called with the reason when the network gave up on a message.
    using FailedCallback = std::function<void(const std::string& reason)>;

    /// \name Hosts, links and routes
    /// @{
    virtual const FabricTopology& GetTopology() const = 0;

    uint32_t GetNHosts() const
    {
        return GetTopology().GetNHosts();
    }

    /**
     * The links, in order, that data from host \p src to host \p dst with
     * UDP source port \p srcPort crosses.
     * \throw std::out_of_range if a host index does not exist
     */
    virtual std::vector<uint32_t> GetPath(uint32_t src, uint32_t dst, uint16_t srcPort) const = 0;

    /**
     * GetPath as directed link ids: 2 x link id, + 1 when the link is
     * crossed from its end b to its end a (FabricTopology::DirectedLinks).
     */
    std::vector<uint32_t> GetDirectedPath(uint32_t src, uint32_t dst, uint16_t srcPort) const final;
    /// Line rate of directed link \p link, bit/s.
    uint64_t GetLinkRateBps(uint32_t link) const final;
    /// The topology's scheduling rack of host \p host (FabricTopology::GetSchedulingRack).
    int32_t GetHostRack(uint32_t host) const final;
    /// @}

    /// \name Messages
    /// @{
    /**
     * Post one RDMA WRITE of \p info.bytes (at least 1) from host \p src to
     * host \p dst, now. Fills info.flowId (unique, increasing), srcNode,
     * dstNode and start. \p onDelivered is called once, when the message's
     * last byte has arrived at \p dst. When the network gives up on the
     * message (its queue pair failed), \p onFailed is called once with the
     * reason instead; a failure with no \p onFailed is a fatal error. A
     * message's callbacks may be called after the posting code's own
     * objects are gone only if it says so: callers keep them alive.
     * \return the flow id
     */
    virtual uint64_t Post(uint32_t src,
                          uint32_t dst,
                          const RdmaMessageInfo& info,
                          std::function<void()> onDelivered,
                          FailedCallback onFailed) = 0;

    /// Messages posted so far.
    virtual uint64_t GetMessagesPosted() const = 0;
    /// Messages whose last byte arrived so far.
    virtual uint64_t GetMessagesDelivered() const = 0;

    /// Payload bytes of a full data packet.
    virtual uint32_t GetPayloadPerPacket() const = 0;
    /// Data packets acknowledged by one ACK.
    virtual uint32_t GetAckInterval() const = 0;
    /// @}

    /**
     * \name Jobs
     * The levers of SchedulerControl (SetGate, SetPriorityClass,
     * SetRateWeight, SetSourcePort) are each level's own; they act on a job
     * at every host it runs on.
     * @{
     */
    /**
     * Job \p job runs on \p rankHosts (a host per rank, repeats allowed):
     * its traffic's levers act there. Called as the job starts.
     */
    void AddJob(uint32_t job, const std::vector<uint32_t>& rankHosts);

    /// The distinct hosts of job \p job, sorted; a job never added is a fatal error.
    const std::vector<uint32_t>& GetJobHosts(uint32_t job) const;

    /**
     * Make the traffic classes of \p mask (bit c for class c) lossless,
     * besides those already lossless: what a scheduler that moves jobs to
     * other classes needs. Call before the run. A network that loses
     * nothing does nothing.
     */
    virtual void AddLosslessClasses(uint8_t /* mask */)
    {
    }

    /// @}

  private:
    std::map<uint32_t, std::vector<uint32_t>> m_jobHosts; ///< job -> its distinct hosts
};

} // namespace ns3

#endif /* CLUSTER_NETWORK_H */
