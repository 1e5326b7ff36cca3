/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-all-gather.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingAllGather);

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

std::string
RingAllGather::GetName() const
{
    return "all-gather";
}

} // namespace ns3
