/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_SCHEDULER_CONTROL_H
#define FLOW_SCHEDULER_CONTROL_H

#include "flow-network.h"

#include "ns3/object.h"
#include "ns3/scheduler-job.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The scheduler's control plane over a FlowNetwork: gates, classes,
 * weights and source ports act on the job's flows, and paths and rates are
 * the network's (the same as the packet-level fabric's).
 */
class FlowSchedulerControl : public Object, public SchedulerControl
{
  public:
    static TypeId GetTypeId();
    explicit FlowSchedulerControl(Ptr<FlowNetwork> network);

    void SetGate(uint32_t job, bool open) override;
    void SetPriorityClass(uint32_t job, int16_t cls) override;
    void SetRateWeight(uint32_t job, double weight) override;
    void SetSourcePort(uint32_t job, uint32_t srcHost, uint32_t dstHost, uint16_t port) override;
    std::vector<uint32_t> GetPath(uint32_t srcHost, uint32_t dstHost, uint16_t port) const override;
    uint64_t GetLinkRateBps(uint32_t link) const override;
    int32_t GetHostRack(uint32_t host) const override;

  protected:
    void DoDispose() override;

  private:
    Ptr<FlowNetwork> m_network;
};

/**
 * The path from host \p src to host \p dst for UDP source port \p port as
 * directed link ids (2 x link id, + 1 when crossed from end b to end a), as
 * DirectedPath gives it for a RoceFabric.
 */
std::vector<uint32_t> DirectedPath(const FlowNetwork& network,
                                   uint32_t src,
                                   uint32_t dst,
                                   uint16_t port);

} // namespace ns3

#endif /* FLOW_SCHEDULER_CONTROL_H */
