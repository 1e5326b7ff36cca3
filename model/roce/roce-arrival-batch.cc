/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-arrival-batch.h"

#include "roce-net-device.h"

#include "ns3/boolean.h"
#include "ns3/global-value.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceArrivalBatch);

namespace
{

GlobalValue g_canonicalArrivals(
    "RoceCanonicalArrivals",
    "Frames reaching a node at the same instant take effect after the node's other events of "
    "that instant, in port order, whatever order they were scheduled in. Needed for results "
    "that do not depend on the number of MPI ranks (turned on for distributed runs); costs one "
    "event per node and instant with arrivals.",
    BooleanValue(false),
    MakeBooleanChecker());

} // namespace

TypeId
RoceArrivalBatch::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceArrivalBatch")
                            .SetParent<Object>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RoceArrivalBatch>();
    return tid;
}

bool
RoceArrivalBatch::Enabled()
{
    BooleanValue on;
    g_canonicalArrivals.GetValue(on);
    return on.Get();
}

void
RoceArrivalBatch::Add(RoceNetDevice* port, Ptr<Packet> p, const RoceForwardingInfo& info)
{
    if (!m_scheduled)
    {
        m_scheduled = true;
        Simulator::ScheduleNow(&RoceArrivalBatch::Run, this);
    }
    m_pending.push_back(Arrival{port, port->GetIfIndex(), std::move(p), info});
}

void
RoceArrivalBatch::Run()
{
    m_scheduled = false;
    m_running.swap(m_pending);
    // A port receives one frame at a time, so the index alone orders them.
    std::sort(m_running.begin(), m_running.end(), [](const Arrival& a, const Arrival& b) {
        return a.ifIndex < b.ifIndex;
    });
    for (Arrival& a : m_running)
    {
        a.port->ProcessFrame(std::move(a.packet), a.info);
    }
    m_running.clear();
}

void
RoceArrivalBatch::DoDispose()
{
    m_pending.clear();
    m_running.clear();
    Object::DoDispose();
}

} // namespace ns3
