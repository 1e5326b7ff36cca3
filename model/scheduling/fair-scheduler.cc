/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fair-scheduler.h"

#include "ns3/short-name-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FairScheduler);
NS_OBJECT_SHORT_NAME(FairScheduler, "fair");
NS_OBJECT_ENSURE_REGISTERED(IsolatedScheduler);
NS_OBJECT_SHORT_NAME(IsolatedScheduler, "isolated");

TypeId
FairScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FairScheduler")
                            .SetParent<CollectiveScheduler>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<FairScheduler>();
    return tid;
}

TypeId
IsolatedScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IsolatedScheduler")
                            .SetParent<FairScheduler>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<IsolatedScheduler>();
    return tid;
}

} // namespace ns3
