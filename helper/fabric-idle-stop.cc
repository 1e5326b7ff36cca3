/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-idle-stop.h"

#include "ns3/distributed-simulation.h"
#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/simple-ref-count.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ns3
{

namespace
{

/// Checks at the same simulated times on every rank; see StopWhenFabricIdle.
class FabricIdleCheck : public SimpleRefCount<FabricIdleCheck>
{
  public:
    FabricIdleCheck(Ptr<RoceFabric> fabric, std::function<bool()> workRemains, Time interval)
        : m_workRemains(std::move(workRemains)),
          m_interval(interval)
    {
        const uint32_t rank = DistributedRank();
        for (uint32_t n = 0; n < fabric->GetTopology().GetNNodes(); ++n)
        {
            Ptr<Node> node = fabric->GetNode(n);
            if (node->GetSystemId() != rank)
            {
                continue;
            }
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                if (Ptr<RoceNetDevice> port = DynamicCast<RoceNetDevice>(node->GetDevice(d)))
                {
                    m_ports.push_back(port);
                }
            }
        }
        for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
        {
            if (fabric->IsLocalHost(h))
            {
                m_nics.push_back(fabric->GetNic(h));
            }
        }
    }

    /// Schedule the next check; the pending event holds the only reference.
    void ScheduleNext()
    {
        Simulator::Schedule(m_interval, &FabricIdleCheck::Check, Ptr<FabricIdleCheck>(this));
    }

  private:
    void Check()
    {
        // Every rank runs this at the same simulated time and takes part in
        // the all-reduce, so all reach the same decision.
        std::vector<int64_t> counts{0, 0, 0, 0};
        counts[0] = m_workRemains && m_workRemains() ? 1 : 0;
        for (const Ptr<RoceNetDevice>& port : m_ports)
        {
            counts[1] += static_cast<int64_t>(port->GetTotalQueueBytes());
        }
        for (const Ptr<RdmaNic>& nic : m_nics)
        {
            counts[2] += static_cast<int64_t>(nic->GetActiveSendQueuePairs());
        }
        counts[3] = static_cast<int64_t>(RoceChannel::GetTotalPacketHops());
        AllReduce(counts, ReduceOp::Sum);
        const bool idle = counts[0] == 0 && counts[1] == 0 && counts[2] == 0;
        if (idle && m_wasIdle && counts[3] == m_framesAtLast)
        {
            Simulator::Stop();
            return;
        }
        m_wasIdle = idle;
        m_framesAtLast = counts[3];
        ScheduleNext();
    }

    std::function<bool()> m_workRemains;
    Time m_interval;
    std::vector<Ptr<RoceNetDevice>> m_ports; ///< this rank's
    std::vector<Ptr<RdmaNic>> m_nics;        ///< this rank's
    bool m_wasIdle{false};
    int64_t m_framesAtLast{-1};
};

} // namespace

Time
FabricIdleCheckInterval(Ptr<RoceFabric> fabric)
{
    Time longest(0);
    for (uint32_t l = 0; l < fabric->GetTopology().GetNLinks(); ++l)
    {
        Ptr<RoceChannel> channel = fabric->GetChannel(l);
        for (std::size_t end : {0, 1})
        {
            Ptr<RoceNetDevice> port = channel->GetRoceDevice(end);
            longest = std::max(longest, port->GetTxTime(port->GetMtu()) + channel->GetDelay());
        }
    }
    return std::max(MicroSeconds(100), 2 * longest);
}

void
StopWhenFabricIdle(Ptr<RoceFabric> fabric, std::function<bool()> workRemains)
{
    if (!IsNullMessageEngine())
    {
        return;
    }
    Create<FabricIdleCheck>(fabric, std::move(workRemains), FabricIdleCheckInterval(fabric))
        ->ScheduleNext();
}

} // namespace ns3
