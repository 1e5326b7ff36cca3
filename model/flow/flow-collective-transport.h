/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_COLLECTIVE_TRANSPORT_H
#define FLOW_COLLECTIVE_TRANSPORT_H

#include "flow-network.h"

#include "ns3/collective-transport.h"
#include "ns3/data-rate.h"
#include "ns3/ptr.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Carries one job's collective messages over a FlowNetwork, as
 * FabricCollectiveTransport does over the RoCE fabric: between ranks on
 * different hosts as messages of the job's connections (the same UDP source
 * ports, FabricCollectiveTransport::ConnectionPort, hence the same ECMP
 * paths), between ranks on the same host over NVLink at a fixed rate and
 * latency. The fluid model loses nothing, so a message never fails.
 */
class FlowCollectiveTransport : public CollectiveTransport
{
  public:
    /**
     * \param rankHosts host index of every rank
     * \param jobId tag of the job's messages (gates, classes, accounting)
     */
    FlowCollectiveTransport(Ptr<FlowNetwork> network,
                            std::vector<uint32_t> rankHosts,
                            uint32_t jobId,
                            uint8_t priority,
                            DataRate nvlinkRate,
                            Time nvlinkLatency);

    void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override;
    void BeginCollective(uint32_t iteration, uint32_t index) override;

    uint64_t GetFabricMessages() const
    {
        return m_fabricMessages;
    }

    uint64_t GetNvlinkMessages() const
    {
        return m_nvlinkMessages;
    }

  private:
    Ptr<FlowNetwork> m_network;
    std::vector<uint32_t> m_rankHosts;
    uint32_t m_jobId;
    uint8_t m_priority;
    DataRate m_nvlinkRate;
    Time m_nvlinkLatency;
    uint32_t m_iteration{0};
    uint32_t m_collective{0};
    uint64_t m_fabricMessages{0};
    uint64_t m_nvlinkMessages{0};
};

} // namespace ns3

#endif /* FLOW_COLLECTIVE_TRANSPORT_H */
