/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-tree.h"

#include "collective.h"

#include "ns3/assert.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ns3
{

// ----------------------------------------------------------- NcclRankLayout

bool
NcclRankLayout::IsEven() const
{
    return std::all_of(serverSizes.begin(), serverSizes.end(), [this](uint32_t c) {
        return c == serverSizes.front();
    });
}

NcclRankLayout
NcclRankLayout::Read(const CollectiveTransport& transport, uint32_t ranks)
{
    NcclRankLayout layout;
    layout.serverOf.assign(ranks, 0);
    layout.localOf.assign(ranks, 0);
    std::map<int64_t, uint32_t> serverIndex;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        auto [it, added] = serverIndex.emplace(transport.GetServer(r),
                                               static_cast<uint32_t>(layout.serverSizes.size()));
        if (added)
        {
            layout.serverSizes.push_back(0);
        }
        layout.serverOf[r] = it->second;
        layout.localOf[r] = layout.serverSizes[it->second]++;
    }
    return layout;
}

// ----------------------------------------------------------- double binary tree

namespace
{

/// Node \p node's links in NCCL's binary tree over \p nodes nodes: the
/// lowest set bit b of the node's index gives its parent, (node ^ b) | 2b,
/// or node ^ b when that is out of range.
NcclTreeLinks
BinaryTreeLinks(uint32_t nodes, uint32_t node)
{
    NcclTreeLinks links;
    if (node == 0)
    {
        return links; // the root
    }
    uint32_t bit = 1;
    while (bit < nodes && (bit & node) == 0)
    {
        bit <<= 1;
    }
    uint32_t up = (node ^ bit) | (bit << 1);
    if (up >= nodes)
    {
        up = node ^ bit;
    }
    links.up = static_cast<int32_t>(up);
    links.childType = node < up ? 0 : 1;
    return links;
}

} // namespace

NcclTreeLinks
NcclDoubleTreeLinks(uint32_t nodes, uint32_t node, uint32_t tree)
{
    NS_ASSERT(node < nodes);
    if (tree == 0)
    {
        return BinaryTreeLinks(nodes, node);
    }
    NcclTreeLinks links;
    if (nodes % 2 == 1)
    {
        // Shifted by one: node i plays node i - 1 of the first tree.
        links = BinaryTreeLinks(nodes, (node + nodes - 1) % nodes);
        if (links.up >= 0)
        {
            links.up = static_cast<int32_t>((static_cast<uint32_t>(links.up) + 1) % nodes);
        }
        return links;
    }
    // Mirrored: node i plays node n - 1 - i of the first tree.
    links = BinaryTreeLinks(nodes, nodes - 1 - node);
    if (links.up >= 0)
    {
        links.up = static_cast<int32_t>(nodes - 1 - static_cast<uint32_t>(links.up));
    }
    return links;
}

// ----------------------------------------------------------- NcclTreeTopology

void
NcclTreeTopology::Build(const NcclRankLayout& layout, uint32_t graphChannels)
{
    m_ranks = static_cast<uint32_t>(layout.serverOf.size());
    const uint32_t graph = std::max(graphChannels, 1u);
    m_channels = 2 * graph;
    const auto nodes = static_cast<uint32_t>(layout.serverSizes.size());
    // rankAt[server][local]
    std::vector<std::vector<uint32_t>> rankAt(nodes);
    for (uint32_t s = 0; s < nodes; ++s)
    {
        rankAt[s].resize(layout.serverSizes[s]);
    }
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        rankAt[layout.serverOf[r]][layout.localOf[r]] = r;
    }
    m_parent.assign(static_cast<std::size_t>(m_channels) * m_ranks, -1);
    m_children.assign(m_parent.size(), {});
    m_depth.assign(m_parent.size(), 0);
    m_height.assign(m_channels, 0);
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        const uint32_t rotation = c % graph;
        const uint32_t tree = c / graph;
        // The rank at position p of server s's chain on this channel.
        const auto chain = [&](uint32_t s, uint32_t p) {
            const auto k = static_cast<uint32_t>(rankAt[s].size());
            return rankAt[s][(rotation + std::min(p, k - 1)) % k];
        };
        for (uint32_t s = 0; s < nodes; ++s)
        {
            for (uint32_t p = 1; p < rankAt[s].size(); ++p)
            {
                m_parent[Slot(c, chain(s, p))] = static_cast<int32_t>(chain(s, p - 1));
            }
            const NcclTreeLinks links = NcclDoubleTreeLinks(nodes, s, tree);
            if (links.up >= 0)
            {
                // The first child hangs off the parent's position 1, the second off 0.
                const auto up = static_cast<uint32_t>(links.up);
                m_parent[Slot(c, chain(s, 0))] =
                    static_cast<int32_t>(chain(up, links.childType == 0 ? 1 : 0));
            }
        }
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            if (m_parent[Slot(c, r)] >= 0)
            {
                m_children[Slot(c, static_cast<uint32_t>(m_parent[Slot(c, r)]))].push_back(r);
            }
        }
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            uint32_t depth = 0;
            for (int32_t at = m_parent[Slot(c, r)]; at >= 0;
                 at = m_parent[Slot(c, static_cast<uint32_t>(at))])
            {
                ++depth;
                NS_ASSERT_MSG(depth <= m_ranks, "NcclTreeTopology: a cycle on channel " << c);
            }
            m_depth[Slot(c, r)] = depth;
            m_height[c] = std::max(m_height[c], depth);
        }
    }
}

int32_t
NcclTreeTopology::GetParent(uint32_t channel, uint32_t rank) const
{
    return m_parent.at(Slot(channel, rank));
}

const std::vector<uint32_t>&
NcclTreeTopology::GetChildren(uint32_t channel, uint32_t rank) const
{
    return m_children.at(Slot(channel, rank));
}

uint32_t
NcclTreeTopology::GetDepth(uint32_t channel, uint32_t rank) const
{
    return m_depth.at(Slot(channel, rank));
}

uint32_t
NcclTreeTopology::GetHeight(uint32_t channel) const
{
    return m_height.at(channel);
}

// ----------------------------------------------------------- NcclTreePipeline

void
NcclTreePipeline::Configure(const NcclTreeTopology* topology,
                            uint64_t bytes,
                            uint64_t chunkBytes,
                            NcclProtocol protocol,
                            double latencyUs)
{
    m_topology = topology;
    m_bytes = bytes;
    m_chunkBytes = std::max<uint64_t>(chunkBytes, 1);
    m_protocol = protocol;
    m_latencyUs = latencyUs;
}

uint32_t
NcclTreePipeline::GetChunks(uint32_t channel) const
{
    const uint64_t channelBytes =
        Collective::SplitEvenly(m_bytes, m_topology->GetChannels(), channel);
    // An empty channel still sends one (empty) chunk, which carries nothing.
    return static_cast<uint32_t>(
        std::max<uint64_t>(1, (channelBytes + m_chunkBytes - 1) / m_chunkBytes));
}

uint64_t
NcclTreePipeline::GetChunkBytes(uint32_t channel, uint32_t chunk) const
{
    const uint64_t channelBytes =
        Collective::SplitEvenly(m_bytes, m_topology->GetChannels(), channel);
    return Collective::SplitEvenly(channelBytes, GetChunks(channel), chunk);
}

Time
NcclTreePipeline::GetHopDelay(uint32_t channel) const
{
    const uint32_t hops = 2 * m_topology->GetHeight(channel);
    return hops == 0 || m_latencyUs <= 0 ? Time(0) : Time::FromDouble(m_latencyUs / hops, Time::US);
}

uint64_t
NcclTreePipeline::BytesPerRank() const
{
    uint64_t most = 0;
    for (uint32_t r = 0; r < m_topology->GetRankCount(); ++r)
    {
        uint64_t sent = 0;
        for (uint32_t c = 0; c < m_topology->GetChannels(); ++c)
        {
            const uint64_t peers =
                (m_topology->GetParent(c, r) >= 0 ? 1 : 0) + m_topology->GetChildren(c, r).size();
            for (uint32_t j = 0; j < GetChunks(c); ++j)
            {
                sent += peers * NcclWireBytes(m_protocol, GetChunkBytes(c, j));
            }
        }
        most = std::max(most, sent);
    }
    return most;
}

CollectiveMessage
NcclTreePipeline::Message(uint32_t channel, uint32_t src, uint32_t dst, uint32_t chunk, bool up)
    const
{
    const uint32_t height = m_topology->GetHeight(channel);
    const uint32_t depth = m_topology->GetDepth(channel, src);
    CollectiveMessage m;
    m.srcRank = src;
    m.dstRank = dst;
    m.channel = channel;
    m.bytes = NcclWireBytes(m_protocol, GetChunkBytes(channel, chunk));
    m.step = up ? chunk + height - depth : chunk + height + depth;
    m.delay = GetHopDelay(channel);
    return m;
}

bool
NcclTreePipeline::Start(const SendFunction& send)
{
    const uint32_t ranks = m_topology->GetRankCount();
    const uint32_t channels = m_topology->GetChannels();
    m_sentUp.assign(static_cast<std::size_t>(channels) * ranks, 0);
    m_sentDown.assign(m_sentUp.size(), 0);
    m_fromChildren.assign(m_sentUp.size(), {});
    m_fromParent.assign(m_sentUp.size(), {});
    m_expected = 0;
    m_delivered = 0;
    for (uint32_t c = 0; c < channels; ++c)
    {
        for (uint32_t r = 0; r < ranks; ++r)
        {
            m_fromChildren[Slot(c, r)].assign(GetChunks(c), 0);
            m_fromParent[Slot(c, r)].assign(GetChunks(c), false);
        }
        // Every rank but the root sends each chunk up once and receives it down once.
        m_expected += 2ull * (ranks - 1) * GetChunks(c);
    }
    if (ranks < 2)
    {
        return true;
    }
    for (uint32_t c = 0; c < channels; ++c)
    {
        for (uint32_t r = 0; r < ranks; ++r)
        {
            if (m_topology->GetChildren(c, r).empty() && !AdvanceUp(c, r, send))
            {
                return false;
            }
        }
    }
    return false;
}

bool
NcclTreePipeline::AdvanceUp(uint32_t channel, uint32_t rank, const SendFunction& send)
{
    const std::size_t slot = Slot(channel, rank);
    const auto children = static_cast<uint32_t>(m_topology->GetChildren(channel, rank).size());
    const int32_t parent = m_topology->GetParent(channel, rank);
    while (m_sentUp[slot] < GetChunks(channel) && m_fromChildren[slot][m_sentUp[slot]] == children)
    {
        const uint32_t chunk = m_sentUp[slot]++;
        if (parent < 0)
        {
            // The root holds chunk j reduced: the broadcast down starts.
            m_fromParent[slot][chunk] = true;
            if (!AdvanceDown(channel, rank, send))
            {
                return false;
            }
        }
        else if (!send(Message(channel, rank, static_cast<uint32_t>(parent), chunk, true)))
        {
            return false;
        }
    }
    return true;
}

bool
NcclTreePipeline::AdvanceDown(uint32_t channel, uint32_t rank, const SendFunction& send)
{
    const std::size_t slot = Slot(channel, rank);
    const std::vector<uint32_t>& children = m_topology->GetChildren(channel, rank);
    while (m_sentDown[slot] < GetChunks(channel) && m_fromParent[slot][m_sentDown[slot]])
    {
        const uint32_t chunk = m_sentDown[slot]++;
        for (uint32_t child : children)
        {
            if (!send(Message(channel, rank, child, chunk, false)))
            {
                return false;
            }
        }
    }
    return true;
}

bool
NcclTreePipeline::Deliver(const CollectiveMessage& m, const SendFunction& send)
{
    ++m_delivered;
    const uint32_t c = m.channel;
    const uint32_t height = m_topology->GetHeight(c);
    const uint32_t depth = m_topology->GetDepth(c, m.srcRank);
    const bool up = m_topology->GetParent(c, m.srcRank) == static_cast<int32_t>(m.dstRank);
    const uint32_t chunk = up ? m.step - (height - depth) : m.step - height - depth;
    NS_ASSERT(chunk < GetChunks(c));
    const std::size_t slot = Slot(c, m.dstRank);
    if (m_delivered == m_expected)
    {
        return true;
    }
    if (up)
    {
        ++m_fromChildren[slot][chunk];
        AdvanceUp(c, m.dstRank, send);
    }
    else
    {
        m_fromParent[slot][chunk] = true;
        AdvanceDown(c, m.dstRank, send);
    }
    return false;
}

} // namespace ns3
