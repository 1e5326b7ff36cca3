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
