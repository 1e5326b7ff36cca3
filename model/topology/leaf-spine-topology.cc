/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "leaf-spine-topology.h"

#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeafSpineBuilder);
NS_OBJECT_SHORT_NAME(LeafSpineBuilder, "leaf-spine");

TypeId
LeafSpineBuilder::GetTypeId()
{
    const LeafSpineParams d;
    static TypeId tid =
        TypeId("ns3::LeafSpineBuilder")
            .SetParent<TopologyBuilder>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<LeafSpineBuilder>()
            .AddAttribute("Leaves",
                          "leaf (ToR) switches",
                          UintegerValue(d.leaves),
                          MakeUintegerAccessor(&LeafSpineBuilder::m_leaves),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Spines",
                          "spine switches",
                          UintegerValue(d.spines),
                          MakeUintegerAccessor(&LeafSpineBuilder::m_spines),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("HostsPerLeaf",
                          "hosts under each leaf",
                          UintegerValue(d.hostsPerLeaf),
                          MakeUintegerAccessor(&LeafSpineBuilder::m_hostsPerLeaf),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("LinksPerLeafSpine",
                          "parallel links between each leaf and each spine",
                          UintegerValue(d.linksPerLeafSpine),
                          MakeUintegerAccessor(&LeafSpineBuilder::m_linksPerLeafSpine),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("HostRate",
                          "host - leaf links",
                          DataRateValue(DataRate(d.hostRateBps)),
                          MakeDataRateAccessor(&LeafSpineBuilder::m_hostRate),
                          MakeDataRateChecker())
            .AddAttribute("LeafSpineRate",
                          "leaf - spine links",
                          DataRateValue(DataRate(d.leafSpineRateBps)),
                          MakeDataRateAccessor(&LeafSpineBuilder::m_leafSpineRate),
                          MakeDataRateChecker())
            .AddAttribute("HostDelay",
                          "host - leaf propagation delay",
                          TimeValue(NanoSeconds(d.hostDelayNs)),
                          MakeTimeAccessor(&LeafSpineBuilder::m_hostDelay),
                          MakeTimeChecker())
            .AddAttribute("LeafSpineDelay",
                          "leaf - spine propagation delay",
                          TimeValue(NanoSeconds(d.leafSpineDelayNs)),
                          MakeTimeAccessor(&LeafSpineBuilder::m_leafSpineDelay),
                          MakeTimeChecker());
    return tid;
}

LeafSpineParams
LeafSpineBuilder::GetParams() const
{
    LeafSpineParams p;
    p.leaves = m_leaves;
    p.spines = m_spines;
    p.hostsPerLeaf = m_hostsPerLeaf;
    p.linksPerLeafSpine = m_linksPerLeafSpine;
    p.hostRateBps = m_hostRate.GetBitRate();
    p.leafSpineRateBps = m_leafSpineRate.GetBitRate();
    p.hostDelayNs = m_hostDelay.GetNanoSeconds();
    p.leafSpineDelayNs = m_leafSpineDelay.GetNanoSeconds();
    return p;
}

FabricTopology
LeafSpineBuilder::Build() const
{
    return MakeLeafSpine(GetParams());
}

std::optional<TopologySize>
LeafSpineBuilder::Estimate() const
{
    TopologySize size;
    size.hosts = static_cast<double>(m_leaves) * m_hostsPerLeaf;
    size.switches = static_cast<double>(m_leaves) + m_spines;
    size.links = size.hosts + static_cast<double>(m_leaves) * m_spines * m_linksPerLeafSpine;
    return size;
}

std::string
LeafSpineBuilder::GetDescription() const
{
    return "Two tiers: every leaf linked to every spine by `linksPerLeafSpine` parallel links "
           "(`MakeLeafSpine`).";
}

FabricTopology
MakeLeafSpine(const LeafSpineParams& params)
{
    auto requirePositive = [](uint32_t value, const char* field) {
        if (value == 0)
        {
            throw std::runtime_error(std::string("leaf-spine: ") + field + " must be >= 1");
        }
    };
    requirePositive(params.leaves, "leaves");
    requirePositive(params.spines, "spines");
    requirePositive(params.hostsPerLeaf, "hostsPerLeaf");
    requirePositive(params.linksPerLeafSpine, "linksPerLeafSpine");

    FabricTopology topo;
    std::vector<uint32_t> hosts;
    for (uint32_t l = 0; l < params.leaves; ++l)
    {
        for (uint32_t h = 0; h < params.hostsPerLeaf; ++h)
        {
            hosts.push_back(
                topo.AddHost("host-l" + std::to_string(l) + "-h" + std::to_string(h), -1, l));
        }
    }
    std::vector<uint32_t> leaves;
    for (uint32_t l = 0; l < params.leaves; ++l)
    {
        leaves.push_back(topo.AddSwitch("leaf-" + std::to_string(l), 1, -1, l));
    }
    std::vector<uint32_t> spines;
    for (uint32_t s = 0; s < params.spines; ++s)
    {
        spines.push_back(topo.AddSwitch("spine-" + std::to_string(s), 2));
    }

    for (uint32_t i = 0; i < hosts.size(); ++i)
    {
        topo.AddLink(hosts[i],
                     leaves[i / params.hostsPerLeaf],
                     params.hostRateBps,
                     params.hostDelayNs);
    }
    for (uint32_t leaf : leaves)
    {
        for (uint32_t spine : spines)
        {
            for (uint32_t m = 0; m < params.linksPerLeafSpine; ++m)
            {
                topo.AddLink(leaf, spine, params.leafSpineRateBps, params.leafSpineDelayNs);
            }
        }
    }
    topo.Validate();
    return topo;
}

} // namespace ns3
