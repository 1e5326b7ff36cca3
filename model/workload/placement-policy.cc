/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "placement-policy.h"

#include "ns3/object-factory.h"
#include "ns3/short-name-registry.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PlacementPolicy);

TypeId
PlacementPolicy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PlacementPolicy").SetParent<Object>().SetGroupName("CollectiveScheduling");
    return tid;
}

Ptr<PlacementPolicy>
PlacementPolicy::Create(const std::string& name)
{
    const TypeId tid = ShortNameRegistry::Lookup(GetTypeId(), name, "placement");
    return ObjectFactory(tid.GetName()).Create<PlacementPolicy>();
}

std::vector<std::string>
PlacementPolicy::GetNames()
{
    std::vector<std::string> names = ShortNameRegistry::GetNames(GetTypeId());
    names.push_back("explicit");
    names.push_back("scheduler");
    std::sort(names.begin(), names.end());
    return names;
}

void
PlacementPolicy::FillInOrder(const std::vector<uint32_t>& hosts,
                             std::vector<uint32_t>& room,
                             uint32_t& need,
                             std::vector<uint32_t>& out)
{
    for (uint32_t h : hosts)
    {
        for (; need > 0 && room[h] > 0; --need, --room[h])
        {
            out.push_back(h);
        }
    }
}

} // namespace ns3
