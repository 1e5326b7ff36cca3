/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-reduce-scatter.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingReduceScatter);

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

std::string
RingReduceScatter::GetName() const
{
    return "reduce-scatter";
}

} // namespace ns3
