/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NETWORK_COLLECTIVE_TRANSPORT_H
#define NETWORK_COLLECTIVE_TRANSPORT_H

#include "cluster-network.h"
#include "nvswitch.h"

#include "ns3/collective-transport.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Carries one job's collective messages, at either level: between
 * ranks on different servers as messages of a ClusterNetwork (an RDMA WRITE
 * on a queue pair of its own, tagged with the job), between ranks of one
 * server over NVLink, modelled as a fixed rate and latency that never
 * touches the network.
 *
 * A network message fails when the network gives up on it (at the packet
 * level, its sender's queue pair exceeded its retries or was flushed behind
 * one that did); the transport then calls the message's onFailed with the
 * network's reason. NVLink messages never fail.
 */
class NetworkCollectiveTransport : public CollectiveTransport
{
  public:
    /**
     * \param rankHosts host index of every rank
     * \param jobId tag of the job's messages (gates, priorities, accounting)
     * \param nvswitch the cluster's NVSwitches (NvSwitch)
     * \param rankGpus GPU of every rank in \p nvswitch's numbering, on its rank's host
     */
    NetworkCollectiveTransport(Ptr<ClusterNetwork> network,
                               std::vector<uint32_t> rankHosts,
                               uint32_t jobId,
                               uint8_t priority,
                               Ptr<NvSwitch> nvswitch,
                               std::vector<uint32_t> rankGpus);

    /**
     * The UDP source port of a job's connection from rank \p srcRank to rank
     * \p dstRank on channel \p channel. NCCL keeps one queue pair per
     * connection for the job's life, so a connection keeps its ECMP path
     * across messages and iterations; the port is a hash of the connection
     * in the RoCEv2 range 0xC000-0xFFFF.
     */
    static uint16_t ConnectionPort(uint32_t jobId,
                                   uint32_t srcRank,
                                   uint32_t dstRank,
                                   uint32_t channel,
                                   uint8_t communicator = 0);

    /**
     * The RDMA message that carries collective message \p m of job \p jobId
     * in traffic class \p priority, tagged \p tag, on its connection's port
     * (ConnectionPort of the tag's communicator).
     */
    static RdmaMessageInfo MessageInfo(const CollectiveMessage& m,
                                       uint32_t jobId,
                                       uint8_t priority,
                                       const CollectiveTag& tag);

    /**
     * Multiplies the latencies that belong to the job, NVLink's and a
     * collective protocol's per step (CollectiveMessage::delay), by \p scale:
     * the scenario's scale (JobSpec::latencyScale), so that a scenario run
     * at a fraction of its size keeps its ratio of latency to bytes and
     * compute. The fabric's latencies, which every job shares, do not scale
     * (doc/scenario-format.md, "scale").
     */
    void SetLatencyScale(double scale)
    {
        m_latencyScale = scale;
    }

    /// Post with no failure callback: a failure of the message is a fatal error.
    void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override;
    void Post(const CollectiveMessage& m,
              std::function<void()> onDelivered,
              FailedCallback onFailed) override;
    void BeginCollective(const CollectiveTag& tag) override;
    /// The topology's server key of the rank's host (FabricTopology::GetServerKey).
    int64_t GetServer(uint32_t rank) const override;

    /// Messages carried by the network.
    uint64_t GetNetworkMessages() const
    {
        return m_networkMessages;
    }

    /// Messages carried over NVLink.
    uint64_t GetNvlinkMessages() const
    {
        return m_nvlinkMessages;
    }

  private:
    Ptr<ClusterNetwork> m_network;
    std::vector<uint32_t> m_rankHosts;
    uint32_t m_jobId;
    uint8_t m_priority;
    double m_latencyScale{1.0}; ///< SetLatencyScale
    Ptr<NvSwitch> m_nvswitch;
    std::vector<uint32_t> m_rankGpus;
    CollectiveTag m_tag;
    uint64_t m_networkMessages{0};
    uint64_t m_nvlinkMessages{0};
};

} // namespace ns3

#endif /* NETWORK_COLLECTIVE_TRANSPORT_H */
