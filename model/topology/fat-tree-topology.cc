/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fat-tree-topology.h"

#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FatTreeBuilder);
NS_OBJECT_SHORT_NAME(FatTreeBuilder, "fat-tree");

TypeId
FatTreeBuilder::GetTypeId()
{
    const FatTreeParams d;
    static TypeId tid =
        TypeId("ns3::FatTreeBuilder")
            .SetParent<TopologyBuilder>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<FatTreeBuilder>()
            .AddAttribute("K",
                          "switch radix, even",
                          UintegerValue(d.k),
                          MakeUintegerAccessor(&FatTreeBuilder::m_k),
                          MakeUintegerChecker<uint32_t>(2))
            .AddAttribute("HostsPerEdge",
                          "hosts under each edge switch; 0: k/2 (more oversubscribes the edge)",
                          UintegerValue(d.hostsPerEdge),
                          MakeUintegerAccessor(&FatTreeBuilder::m_hostsPerEdge),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HostRate",
                          "host - edge links",
                          DataRateValue(DataRate(d.hostRateBps)),
                          MakeDataRateAccessor(&FatTreeBuilder::m_hostRate),
                          MakeDataRateChecker())
            .AddAttribute("EdgeAggRate",
                          "edge - aggregation links",
                          DataRateValue(DataRate(d.edgeAggRateBps)),
                          MakeDataRateAccessor(&FatTreeBuilder::m_edgeAggRate),
                          MakeDataRateChecker())
            .AddAttribute("AggCoreRate",
                          "aggregation - core links",
                          DataRateValue(DataRate(d.aggCoreRateBps)),
                          MakeDataRateAccessor(&FatTreeBuilder::m_aggCoreRate),
                          MakeDataRateChecker())
            .AddAttribute("HostDelay",
                          "host - edge propagation delay",
                          TimeValue(NanoSeconds(d.hostDelayNs)),
                          MakeTimeAccessor(&FatTreeBuilder::m_hostDelay),
                          MakeTimeChecker())
            .AddAttribute("EdgeAggDelay",
                          "edge - aggregation propagation delay",
                          TimeValue(NanoSeconds(d.edgeAggDelayNs)),
                          MakeTimeAccessor(&FatTreeBuilder::m_edgeAggDelay),
                          MakeTimeChecker())
            .AddAttribute("AggCoreDelay",
                          "aggregation - core propagation delay",
                          TimeValue(NanoSeconds(d.aggCoreDelayNs)),
                          MakeTimeAccessor(&FatTreeBuilder::m_aggCoreDelay),
                          MakeTimeChecker());
    return tid;
}

FatTreeParams
FatTreeBuilder::GetParams() const
{
    FatTreeParams p;
    p.k = m_k;
    p.hostsPerEdge = m_hostsPerEdge;
    p.hostRateBps = m_hostRate.GetBitRate();
    p.edgeAggRateBps = m_edgeAggRate.GetBitRate();
    p.aggCoreRateBps = m_aggCoreRate.GetBitRate();
    p.hostDelayNs = m_hostDelay.GetNanoSeconds();
    p.edgeAggDelayNs = m_edgeAggDelay.GetNanoSeconds();
    p.aggCoreDelayNs = m_aggCoreDelay.GetNanoSeconds();
    return p;
}

FabricTopology
FatTreeBuilder::Build() const
{
    return MakeFatTree(GetParams());
}

std::optional<TopologySize>
FatTreeBuilder::Estimate() const
{
    const double k = m_k;
    const double perEdge = m_hostsPerEdge > 0 ? m_hostsPerEdge : k / 2;
    const double edges = k * k / 2;
    TopologySize size;
    size.hosts = edges * perEdge;
    size.switches = edges + k * k / 2 + k * k / 4; // edge, aggregation, core
    size.links = size.hosts + edges * k / 2 + edges * k / 2;
    return size;
}

std::string
FatTreeBuilder::GetDescription() const
{
    return "A k-ary fat-tree: k pods of k/2 edge and k/2 aggregation switches, every edge switch "
           "linked to every aggregation switch of its pod, and (k/2)^2 core switches "
           "(`MakeFatTree`).";
}

std::string
FatTreeBuilder::CheckGiven(const std::string& key, const AttributeValue& value) const
{
    if (key == "k")
    {
        const uint64_t k = dynamic_cast<const UintegerValue&>(value).Get();
        if (k % 2 != 0)
        {
            return "must be even, got " + std::to_string(k);
        }
    }
    return "";
}

FabricTopology
MakeFatTree(const FatTreeParams& params)
{
    const uint32_t k = params.k;
    if (k < 2 || k % 2 != 0)
    {
        throw std::runtime_error("fat-tree: k must be even and >= 2, got " + std::to_string(k));
    }
    const uint32_t half = k / 2;
    const uint32_t hostsPerEdge = params.hostsPerEdge == 0 ? half : params.hostsPerEdge;

    FabricTopology topo;
    std::vector<uint32_t> hosts; // pod-major, edge, host
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            for (uint32_t h = 0; h < hostsPerEdge; ++h)
            {
                hosts.push_back(topo.AddHost("host-p" + std::to_string(p) + "-e" +
                                                 std::to_string(e) + "-h" + std::to_string(h),
                                             p,
                                             p * half + e));
            }
        }
    }
    std::vector<uint32_t> edges; // index p*half+e
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            edges.push_back(topo.AddSwitch("edge-p" + std::to_string(p) + "-" + std::to_string(e),
                                           1,
                                           p,
                                           p * half + e));
        }
    }
    std::vector<uint32_t> aggs; // index p*half+a
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t a = 0; a < half; ++a)
        {
            aggs.push_back(
                topo.AddSwitch("agg-p" + std::to_string(p) + "-" + std::to_string(a), 2, p));
        }
    }
    std::vector<uint32_t> cores; // index j*half+i: member i of core group j
    for (uint32_t c = 0; c < half * half; ++c)
    {
        cores.push_back(topo.AddSwitch("core-" + std::to_string(c), 3));
    }

    for (uint32_t i = 0; i < hosts.size(); ++i)
    {
        topo.AddLink(hosts[i], edges[i / hostsPerEdge], params.hostRateBps, params.hostDelayNs);
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            for (uint32_t a = 0; a < half; ++a)
            {
                topo.AddLink(edges[p * half + e],
                             aggs[p * half + a],
                             params.edgeAggRateBps,
                             params.edgeAggDelayNs);
            }
        }
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t j = 0; j < half; ++j)
        {
            for (uint32_t i = 0; i < half; ++i)
            {
                topo.AddLink(aggs[p * half + j],
                             cores[j * half + i],
                             params.aggCoreRateBps,
                             params.aggCoreDelayNs);
            }
        }
    }
    topo.Validate();
    return topo;
}

} // namespace ns3
