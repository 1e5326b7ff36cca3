/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fair-scheduler.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FairScheduler);
NS_OBJECT_ENSURE_REGISTERED(IsolatedScheduler);

TypeId
FairScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FairScheduler")
                            .SetParent<CollectiveScheduler>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<FairScheduler>();
    return tid;
}

std::string
FairScheduler::GetName() const
{
    return "fair";
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

std::string
IsolatedScheduler::GetName() const
{
    return "isolated";
}

} // namespace ns3
