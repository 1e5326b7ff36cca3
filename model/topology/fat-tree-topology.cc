/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fat-tree-topology.h"

#include <stdexcept>
#include <string>

namespace ns3
{

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
