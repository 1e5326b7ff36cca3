/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-reduce-scatter.h"

#include "ns3/short-name-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingReduceScatter);
NS_OBJECT_SHORT_NAME(RingReduceScatter, "reduce-scatter");

TypeId
RingReduceScatter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingReduceScatter")
                            .SetParent<RingCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RingReduceScatter>();
    return tid;
}

RingReduceScatter::RingReduceScatter()
    : RingCollective(1)
{
}

} // namespace ns3
