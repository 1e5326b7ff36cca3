/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-all-gather.h"

#include "ns3/short-name-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingAllGather);
NS_OBJECT_SHORT_NAME(RingAllGather, "all-gather");

TypeId
RingAllGather::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAllGather")
                            .SetParent<RingCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RingAllGather>();
    return tid;
}

RingAllGather::RingAllGather()
    : RingCollective(1)
{
}

} // namespace ns3
