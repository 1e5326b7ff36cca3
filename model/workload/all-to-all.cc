/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "all-to-all.h"

#include "ns3/log.h"
#include "ns3/short-name-registry.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AllToAll");
NS_OBJECT_ENSURE_REGISTERED(AllToAll);
NS_OBJECT_SHORT_NAME(AllToAll, "all-to-all");

TypeId
AllToAll::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AllToAll")
                            .SetParent<Collective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<AllToAll>();
    return tid;
}

void
AllToAll::DoStart()
{
    NS_LOG_FUNCTION(this);
    uint32_t n = GetRankCount();
    uint32_t channels = GetChannels();
    m_expected = static_cast<uint64_t>(n) * (n - 1) * channels;
    m_delivered = 0;
    if (m_expected == 0)
    {
        Finish();
        return;
    }
    // Peer-major order: round i of every rank targets a distinct receiver.
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        for (uint32_t offset = 1; offset < n; ++offset)
        {
            for (uint32_t channel = 0; channel < channels; ++channel)
            {
                CollectiveMessage m;
                m.srcRank = rank;
                m.dstRank = (rank + offset) % n;
                m.bytes = ChunkBytes(channel, m.dstRank);
                m.channel = channel;
                m.step = 0;
                // A delivery from inside Send() can end the run only on the last send.
                SendMessage(m);
            }
        }
    }
}

void
AllToAll::HandleDelivery(const CollectiveMessage& /* m */)
{
    if (++m_delivered == m_expected)
    {
        Finish();
    }
}

uint64_t
AllToAll::BytesPerRank() const
{
    // Rank r keeps chunk r of each channel and sends the rest.
    uint32_t n = GetRankCount();
    uint64_t most = 0;
    for (uint32_t rank = 0; rank < n && n > 1; ++rank)
    {
        uint64_t sent = 0;
        for (uint32_t channel = 0; channel < GetChannels(); ++channel)
        {
            sent += ChannelBytes(channel) - ChunkBytes(channel, rank);
        }
        most = std::max(most, sent);
    }
    return most;
}

} // namespace ns3
