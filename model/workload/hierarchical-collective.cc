/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hierarchical-collective.h"

#include "ns3/short-name-registry.h"

#include <map>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HierarchicalCollective);
NS_OBJECT_ENSURE_REGISTERED(HierarchicalAllReduce);
NS_OBJECT_ENSURE_REGISTERED(HierarchicalReduceScatter);
NS_OBJECT_ENSURE_REGISTERED(HierarchicalAllGather);
NS_OBJECT_SHORT_NAME(HierarchicalAllReduce, "hierarchical-all-reduce");
NS_OBJECT_SHORT_NAME(HierarchicalReduceScatter, "hierarchical-reduce-scatter");
NS_OBJECT_SHORT_NAME(HierarchicalAllGather, "hierarchical-all-gather");

TypeId
HierarchicalCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalCollective")
                            .SetParent<SteppedCollective>()
                            .SetGroupName("CollectiveScheduling");
    return tid;
}

HierarchicalCollective::HierarchicalCollective(bool serverReduceScatter,
                                               uint32_t railPasses,
                                               bool serverAllGather)
    : m_serverReduceScatter(serverReduceScatter),
      m_railPasses(railPasses),
      m_serverAllGather(serverAllGather)
{
}

void
HierarchicalCollective::DoConfigure()
{
    const uint32_t n = GetRankCount();
    std::map<int64_t, uint32_t> serverIndex;
    std::vector<uint32_t> count;
    m_serverOf.assign(n, 0);
    m_localOf.assign(n, 0);
    for (uint32_t r = 0; r < n; ++r)
    {
        auto [it, added] =
            serverIndex.emplace(GetTransport()->GetServer(r), static_cast<uint32_t>(count.size()));
        if (added)
        {
            count.push_back(0);
        }
        m_serverOf[r] = it->second;
        m_localOf[r] = count[it->second]++;
    }
    bool even = true;
    for (uint32_t c : count)
    {
        even = even && c == count.front();
    }
    if (!even)
    {
        // No rails to pair the servers' ranks on: one flat ring, in rank order.
        count.assign(n, 1);
        for (uint32_t r = 0; r < n; ++r)
        {
            m_serverOf[r] = r;
            m_localOf[r] = 0;
        }
    }
    m_servers = static_cast<uint32_t>(count.size());
    m_local = n == 0 ? 1 : count.front();
    m_rankAt.assign(n, 0);
    for (uint32_t r = 0; r < n; ++r)
    {
        m_rankAt[m_serverOf[r] * m_local + m_localOf[r]] = r;
    }
}

uint32_t
HierarchicalCollective::GetStepCount() const
{
    return (m_serverReduceScatter ? m_local - 1 : 0) + m_railPasses * (m_servers - 1) +
           (m_serverAllGather ? m_local - 1 : 0);
}

uint32_t
HierarchicalCollective::PhaseOf(uint32_t step, uint32_t* within) const
{
    const uint32_t server = m_serverReduceScatter ? m_local - 1 : 0;
    const uint32_t rail = m_railPasses * (m_servers - 1);
    if (step < server)
    {
        *within = step;
        return 0;
    }
    if (step < server + rail)
    {
        *within = step - server;
        return 1;
    }
    *within = step - server - rail;
    return 2;
}

uint32_t
HierarchicalCollective::GetSendPeer(uint32_t rank, uint32_t /* channel */, uint32_t step) const
{
    uint32_t within = 0;
    const uint32_t i = m_serverOf[rank];
    const uint32_t l = m_localOf[rank];
    if (PhaseOf(step, &within) == 1)
    {
        return m_rankAt[((i + 1) % m_servers) * m_local + l];
    }
    return m_rankAt[i * m_local + (l + 1) % m_local];
}

uint64_t
HierarchicalCollective::GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const
{
    const uint64_t bytes = ChannelBytes(channel);
    const uint32_t k = m_local;
    const uint32_t n = m_servers;
    const uint32_t i = m_serverOf[rank];
    const uint32_t l = m_localOf[rank];
    uint32_t within = 0;
    // The local chunk a rank holds between the phases: after a server
    // reduce-scatter, l + 1 (the ring's); in an all-gather, its own, l.
    const uint32_t held = (l + (m_serverReduceScatter ? 1 : 0)) % k;
    switch (PhaseOf(step, &within))
    {
    case 0:
        // Ring reduce-scatter in the server: local rank l ends with chunk l + 1.
        return SplitEvenly(bytes, k, (l + k - within % k) % k);
    case 2:
        // Ring all-gather in the server from the held chunk on.
        return SplitEvenly(bytes, k, (held + k - within % k) % k);
    default: {
        // The rail's ring over the n pieces of the held chunk.
        const uint64_t chunk = SplitEvenly(bytes, k, held);
        return SplitEvenly(chunk, n, (i + n - within % n) % n);
    }
    }
}

TypeId
HierarchicalAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalAllReduce")
                            .SetParent<HierarchicalCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<HierarchicalAllReduce>();
    return tid;
}

HierarchicalAllReduce::HierarchicalAllReduce()
    : HierarchicalCollective(true, 2, true)
{
}

TypeId
HierarchicalReduceScatter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalReduceScatter")
                            .SetParent<HierarchicalCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<HierarchicalReduceScatter>();
    return tid;
}

HierarchicalReduceScatter::HierarchicalReduceScatter()
    : HierarchicalCollective(true, 1, false)
{
}

TypeId
HierarchicalAllGather::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalAllGather")
                            .SetParent<HierarchicalCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<HierarchicalAllGather>();
    return tid;
}

HierarchicalAllGather::HierarchicalAllGather()
    : HierarchicalCollective(false, 1, true)
{
}

} // namespace ns3
