/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-all-reduce.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);

TypeId
RingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAllReduce")
                            .SetParent<RingCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RingAllReduce>();
    return tid;
}

RingAllReduce::RingAllReduce()
    : RingCollective(2)
{
}

std::string
RingAllReduce::GetName() const
{
    return "ring-all-reduce";
}

} // namespace ns3
