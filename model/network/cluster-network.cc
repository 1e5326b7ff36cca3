/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cluster-network.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ClusterNetwork);

TypeId
ClusterNetwork::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ClusterNetwork").SetParent<Object>().SetGroupName("CollectiveScheduling");
    return tid;
}

std::vector<uint32_t>
ClusterNetwork::GetDirectedPath(uint32_t src, uint32_t dst, uint16_t srcPort) const
{
    return GetTopology().DirectedLinks(src, GetPath(src, dst, srcPort));
}

uint64_t
ClusterNetwork::GetLinkRateBps(uint32_t link) const
{
    return GetTopology().GetLink(link / 2).rateBps;
}

int32_t
ClusterNetwork::GetHostRack(uint32_t host) const
{
    return GetTopology().GetSchedulingRack(host);
}

void
ClusterNetwork::AddJob(uint32_t job, const std::vector<uint32_t>& rankHosts)
{
    std::vector<uint32_t> hosts = rankHosts;
    std::sort(hosts.begin(), hosts.end());
    hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
    m_jobHosts[job] = std::move(hosts);
}

const std::vector<uint32_t>&
ClusterNetwork::GetJobHosts(uint32_t job) const
{
    auto it = m_jobHosts.find(job);
    NS_ABORT_MSG_IF(it == m_jobHosts.end(), "a lever was pulled for unknown job " << job);
    return it->second;
}

} // namespace ns3
