/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "star-topology.h"

#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(StarBuilder);
NS_OBJECT_SHORT_NAME(StarBuilder, "star");

FabricTopology
MakeStar(const StarParams& params)
{
    FabricTopology topo;
    const uint32_t sw = topo.AddSwitch("switch", 1, -1, 0);
    for (uint32_t h = 0; h < params.hosts; ++h)
    {
        const uint32_t host = topo.AddHost("host-" + std::to_string(h), -1, 0);
        topo.AddLink(host, sw, params.rateBps, params.delayNs);
    }
    return topo;
}

TypeId
StarBuilder::GetTypeId()
{
    const StarParams d;
    static TypeId tid = TypeId("ns3::StarBuilder")
                            .SetParent<TopologyBuilder>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<StarBuilder>()
                            .AddAttribute("Hosts",
                                          "hosts on the switch, >= 1",
                                          UintegerValue(d.hosts),
                                          MakeUintegerAccessor(&StarBuilder::m_hosts),
                                          MakeUintegerChecker<uint32_t>())
                            .AddAttribute("Rate",
                                          "host - switch links",
                                          DataRateValue(DataRate(d.rateBps)),
                                          MakeDataRateAccessor(&StarBuilder::m_rate),
                                          MakeDataRateChecker())
                            .AddAttribute("Delay",
                                          "host - switch propagation delay",
                                          TimeValue(NanoSeconds(d.delayNs)),
                                          MakeTimeAccessor(&StarBuilder::m_delay),
                                          MakeTimeChecker());
    return tid;
}

StarParams
StarBuilder::GetParams() const
{
    StarParams p;
    p.hosts = m_hosts;
    p.rateBps = m_rate.GetBitRate();
    p.delayNs = m_delay.GetNanoSeconds();
    return p;
}

FabricTopology
StarBuilder::Build() const
{
    return MakeStar(GetParams());
}

std::optional<TopologySize>
StarBuilder::Estimate() const
{
    TopologySize size;
    size.hosts = m_hosts;
    size.switches = 1;
    size.links = m_hosts;
    return size;
}

std::string
StarBuilder::GetDescription() const
{
    return "One switch with every host attached to it (`MakeStar`).";
}

std::string
StarBuilder::WhyRequired(const std::string& key) const
{
    return key == "hosts" ? "kind star needs the number of hosts" : "";
}

std::string
StarBuilder::CheckGiven(const std::string& key, const AttributeValue& value) const
{
    if (key == "hosts" && dynamic_cast<const UintegerValue&>(value).Get() == 0)
    {
        return "must be at least 1, got 0";
    }
    return "";
}

} // namespace ns3
