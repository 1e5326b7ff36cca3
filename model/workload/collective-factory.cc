/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-factory.h"

#include "ns3/object-factory.h"
#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

std::vector<std::string>
GetCollectiveNames()
{
    return ShortNameRegistry::GetNames(Collective::GetTypeId());
}

std::string
CollectiveOfFamily(const std::string& allReduce, const std::string& kind)
{
    // NCCL's tree reduces only: its family scatters and gathers on NCCL's rings.
    if (allReduce.rfind("nccl-tree-", 0) == 0)
    {
        return kind == "all-reduce" ? "nccl-tree-all-reduce" : "nccl-ring-" + kind;
    }
    for (const char* prefix : {"hierarchical-", "nccl-ring-", "nccl-"})
    {
        if (allReduce.rfind(prefix, 0) == 0)
        {
            return prefix + kind;
        }
    }
    return kind == "all-reduce" ? "ring-all-reduce" : kind;
}

Ptr<Collective>
CreateCollective(const std::string& name, uint32_t channels)
{
    if (channels == 0)
    {
        throw std::invalid_argument("collective '" + name + "': channels = 0; need at least 1");
    }
    const TypeId tid = ShortNameRegistry::Lookup(Collective::GetTypeId(), name, "collective");
    ObjectFactory factory(tid.GetName());
    factory.Set("Channels", UintegerValue(channels));
    return factory.Create<Collective>();
}

} // namespace ns3
