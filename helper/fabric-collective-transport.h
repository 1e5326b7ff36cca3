/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_COLLECTIVE_TRANSPORT_H
#define FABRIC_COLLECTIVE_TRANSPORT_H

#include "roce-fabric-helper.h"

#include "ns3/collective-transport.h"
#include "ns3/data-rate.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Carries one job's collective messages: between ranks on different
 * hosts as RDMA WRITEs over the RoCE fabric (one queue pair per message,
 * tagged with the job), between ranks on the same host over NVLink, modelled
 * as a fixed rate and latency that never touches the fabric.
 *
 * A fabric message fails when its sender's NIC gives up on it (the
 * RdmaNic's SendFailed trace: retry count exceeded, or flushed behind a
 * message that did); the transport then calls the message's onFailed with a
 * reason naming the flow, its hosts and the NIC's timeout settings. It
 * listens until the sender has seen the message's last ACK, so a message
 * can fail after it was delivered. NVLink messages never fail.
 */
class FabricCollectiveTransport : public CollectiveTransport
{
  public:
    /**
     * \param rankHosts host index of every rank
     * \param jobId tag of the job's messages (gates, priorities, accounting)
     */
    FabricCollectiveTransport(Ptr<RoceFabric> fabric,
                              std::vector<uint32_t> rankHosts,
                              uint32_t jobId,
                              uint8_t priority,
                              DataRate nvlinkRate,
                              Time nvlinkLatency);
    ~FabricCollectiveTransport() override;
    FabricCollectiveTransport(const FabricCollectiveTransport&) = delete;
    FabricCollectiveTransport& operator=(const FabricCollectiveTransport&) = delete;

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
                                   uint32_t channel);

    /**
     * The RDMA message that carries collective message \p m of job \p jobId
     * in traffic class \p priority, collective \p collective of iteration
     * \p iteration, on its connection's port (ConnectionPort): the same at
     * packet and flow level.
     */
    static RdmaMessageInfo MessageInfo(const CollectiveMessage& m,
                                       uint32_t jobId,
                                       uint8_t priority,
                                       uint32_t iteration,
                                       uint32_t collective);

    /// Post with no failure callback: a failure of the message is a fatal error.
    void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override;
    void Post(const CollectiveMessage& m,
              std::function<void()> onDelivered,
              FailedCallback onFailed) override;
    void BeginCollective(uint32_t iteration, uint32_t index) override;

    uint64_t GetFabricMessages() const
    {
        return m_fabricMessages;
    }

    uint64_t GetNvlinkMessages() const
    {
        return m_nvlinkMessages;
    }

    /// Fabric messages that failed.
    uint64_t GetFailedMessages() const
    {
        return m_failedMessages;
    }

  private:
    /// A fabric message whose sender has not yet seen its last ACK.
    struct Pending
    {
        uint32_t srcHost{0};
        uint32_t dstHost{0};
        FailedCallback onFailed; ///< null: a failure is fatal
    };

    void OnSendComplete(const RdmaMessageInfo& info, Time ackTime, uint64_t retransmitted);
    void OnSendFailed(const RdmaMessageInfo& info, RdmaSendError error);

    Ptr<RoceFabric> m_fabric;
    std::vector<uint32_t> m_rankHosts;
    std::vector<uint32_t>
        m_senderHosts; ///< distinct hosts of m_rankHosts, whose NICs it listens to
    uint32_t m_jobId;
    uint8_t m_priority;
    DataRate m_nvlinkRate;
    Time m_nvlinkLatency;
    uint32_t m_iteration{0};
    uint32_t m_collective{0};
    uint64_t m_fabricMessages{0};
    uint64_t m_nvlinkMessages{0};
    uint64_t m_failedMessages{0};
    std::unordered_map<uint64_t, Pending> m_pending; ///< by flow id
};

} // namespace ns3

#endif /* FABRIC_COLLECTIVE_TRANSPORT_H */
