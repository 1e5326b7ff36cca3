/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-all-reduce.h"

#include "ns3/short-name-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);
NS_OBJECT_SHORT_NAME(RingAllReduce, "ring-all-reduce");

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

} // namespace ns3
