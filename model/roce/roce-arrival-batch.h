/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_ARRIVAL_BATCH_H
#define ROCE_ARRIVAL_BATCH_H

#include "roce-header.h"

#include "ns3/object.h"
#include "ns3/packet.h"

#include <vector>

namespace ns3
{

class RoceNetDevice;

/**
 * \ingroup collective-scheduling
 * \brief Frames that reach one node at the same instant, taken in a fixed
 * order: after the node's other events of that instant, by port index.
 *
 * ns-3 runs events of equal time in the order they were scheduled. Frames
 * arriving together on two ports of a switch were scheduled by two other
 * nodes, and in a distributed run one of them may come from another rank,
 * where it is scheduled later; so which frame the switch takes first, and
 * everything that follows, would depend on the number of ranks. With the
 * global value RoceCanonicalArrivals on, each port hands its frames to its
 * node's batch, and one event per node and instant (scheduled "now" from
 * the first arrival, so it runs after every event already due) processes
 * them in port order. The node's own events of that instant were all
 * scheduled by the node itself, in an order the same argument keeps fixed.
 * The price is one extra event per node and instant with arrivals.
 */
class RoceArrivalBatch : public Object
{
  public:
    static TypeId GetTypeId();

    /// Whether RoceCanonicalArrivals is on.
    static bool Enabled();

    /// Hold \p p, received by \p port at this instant, until the batch runs.
    void Add(RoceNetDevice* port, Ptr<Packet> p, const RoceForwardingInfo& info);

  protected:
    void DoDispose() override;

  private:
    void Run();

    struct Arrival
    {
        RoceNetDevice* port;
        uint32_t ifIndex;
        Ptr<Packet> packet;
        RoceForwardingInfo info;
    };

    std::vector<Arrival> m_pending;
    std::vector<Arrival> m_running; ///< reused to avoid an allocation per batch
    bool m_scheduled{false};
};

} // namespace ns3

#endif /* ROCE_ARRIVAL_BATCH_H */
