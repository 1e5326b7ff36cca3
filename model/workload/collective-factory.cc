/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-factory.h"

#include "all-to-all.h"
#include "halving-doubling-all-reduce.h"
#include "ring-all-gather.h"
#include "ring-all-reduce.h"
#include "ring-reduce-scatter.h"

#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// Algorithm name -> TypeId name, in the order error messages list them.
const std::vector<std::pair<std::string, std::string>>&
Registry()
{
    static const std::vector<std::pair<std::string, std::string>> registry{
        {"ring-all-reduce", "ns3::RingAllReduce"},
        {"halving-doubling-all-reduce", "ns3::HalvingDoublingAllReduce"},
        {"reduce-scatter", "ns3::RingReduceScatter"},
        {"all-gather", "ns3::RingAllGather"},
        {"all-to-all", "ns3::AllToAll"},
    };
    return registry;
}

} // namespace

std::vector<std::string>
GetCollectiveNames()
{
    std::vector<std::string> names;
    for (const auto& entry : Registry())
    {
        names.push_back(entry.first);
    }
    return names;
}

Ptr<Collective>
CreateCollective(const std::string& name, uint32_t channels)
{
    if (channels == 0)
    {
        throw std::invalid_argument("collective '" + name + "': channels = 0; need at least 1");
    }
    for (const auto& entry : Registry())
    {
        if (entry.first == name)
        {
            ObjectFactory factory(entry.second);
            factory.Set("Channels", UintegerValue(channels));
            return factory.Create<Collective>();
        }
    }
    std::string known;
    for (const auto& entry : Registry())
    {
        known += (known.empty() ? "" : ", ") + entry.first;
    }
    throw std::invalid_argument("unknown collective '" + name + "'; known: " + known);
}

} // namespace ns3
