/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_H
#define ROCE_SWITCH_H

#include "switch-mmu.h"

#include "ns3/ecmp-routes.h"
#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-net-device.h"
#include "ns3/traced-callback.h"

#include <array>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The forwarding engine of a RoCE switch (aggregated to the switch
 * node): for each arriving frame it routes (ECMP over equal-cost ports,
 * hash seeded per switch), admits into the shared buffer (SwitchMmu),
 * pauses the upstream with PFC when the ingress queue of a lossless class
 * crosses its threshold (lossy classes are dropped instead), and at egress
 * dequeue marks ECN (RED) and resumes. Drops, PAUSEs sent and ECN marks are
 * counted per port and per class.
 */
class RoceSwitch : public Object, public RocePortOwner
{
  public:
    static TypeId GetTypeId();
    RoceSwitch();
    ~RoceSwitch() override;

    /// Fix the stream of this object's random variables. \return streams used (1)
    int64_t AssignStreams(int64_t stream);

    /**
     * Wire the switch. \p ports[i] is port i (FabricTopology adjacency order).
     * \param routes shared routes of the fabric
     * \param topologyNode this switch's node id in the topology
     */
    void Setup(const std::vector<Ptr<RoceNetDevice>>& ports,
               std::shared_ptr<const EcmpRoutes> routes,
               uint32_t topologyNode);

    /**
     * Forward by \p routes from now on (the control plane converged after a
     * link went down or came back up); frames already queued stay where they are.
     */
    void SetRoutes(std::shared_ptr<const EcmpRoutes> routes);

    Ptr<SwitchMmu> GetMmu() const
    {
        return m_mmu;
    }

    uint32_t GetNPorts() const
    {
        return static_cast<uint32_t>(m_ports.size());
    }

    Ptr<RoceNetDevice> GetPort(uint32_t i) const
    {
        return m_ports[i];
    }

    /// Per-port counters (port = index in Setup).
    uint64_t GetDrops(uint32_t port) const
    {
        return m_stats[port].drops;
    }

    uint64_t GetPausesSent(uint32_t port) const
    {
        return m_stats[port].pausesSent;
    }

    uint64_t GetEcnMarked(uint32_t port) const
    {
        return m_stats[port].ecnMarked;
    }

    /// Packets of class \p cls ECN-marked at egress port \p port.
    uint64_t GetEcnMarked(uint32_t port, uint8_t cls) const
    {
        return m_portClassMarks[port * RoceNetDevice::kClasses + cls];
    }

    uint64_t GetTotalDrops() const;
    uint64_t GetTotalPausesSent() const;
    uint64_t GetTotalEcnMarked() const;

    /// Per-class counters over all ports (class = priority class 0-7).
    uint64_t GetClassDrops(uint8_t cls) const
    {
        return m_classStats.at(cls).drops;
    }

    uint64_t GetClassPausesSent(uint8_t cls) const
    {
        return m_classStats.at(cls).pausesSent;
    }

    uint64_t GetClassEcnMarked(uint8_t cls) const
    {
        return m_classStats.at(cls).ecnMarked;
    }

    /// The egress port ECMP picks for a frame (exposed for tests and path tools).
    uint32_t SelectPort(const RoceForwardingInfo& info) const;

    // RocePortOwner
    void HandleReceive(RoceNetDevice* port, Ptr<Packet> p, const RoceForwardingInfo& info) override;
    void HandleDequeue(RoceNetDevice* port,
                       uint8_t cls,
                       uint32_t inPort,
                       Ptr<Packet>& p,
                       RoceForwardingInfo& info) override;

    /// Trace signature: packet, port, class.
    typedef void (*PortPacketCallback)(Ptr<const Packet> p, uint32_t port, uint8_t cls);

  protected:
    void DoDispose() override;

  private:
    struct PortStats
    {
        uint64_t drops{0};
        uint64_t pausesSent{0};
        uint64_t ecnMarked{0};
    };

    void SendPfc(uint32_t port, uint8_t cls, uint16_t quanta);
    void RefreshPause(uint32_t port, uint8_t cls);

    std::vector<Ptr<RoceNetDevice>> m_ports;
    std::vector<PortStats> m_stats;                              ///< per port
    std::array<PortStats, RoceNetDevice::kClasses> m_classStats; ///< per class, all ports
    std::vector<EventId> m_pauseRefresh;                         ///< per (port, class)
    std::vector<uint64_t> m_portClassMarks;                      ///< per (port, class)
    std::shared_ptr<const EcmpRoutes> m_routes;
    const EcmpRoutes::ForwardingTable* m_forwarding{nullptr}; ///< this switch's, in m_routes
    uint32_t m_topologyNode{0};
    Ptr<SwitchMmu> m_mmu;
    Ptr<UniformRandomVariable> m_ecnRng;
    uint32_t m_ecmpSeed{0};
    uint16_t m_pauseQuanta{0xFFFF};
    bool m_pfcEnabled{true};
    bool m_ecnEnabled{true};

    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t> m_dropTrace;
    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t> m_ecnMarkTrace;
    TracedCallback<uint32_t, uint8_t, bool> m_pfcTrace;
};

} // namespace ns3

#endif /* ROCE_SWITCH_H */
