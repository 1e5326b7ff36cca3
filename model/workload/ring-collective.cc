/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-collective.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingCollective);

TypeId
RingCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingCollective")
                            .SetParent<SteppedCollective>()
                            .SetGroupName("CollectiveScheduling");
    return tid;
}

RingCollective::RingCollective(uint32_t passes)
    : m_passes(passes)
{
}

uint32_t
RingCollective::GetStepCount() const
{
    uint32_t n = GetRankCount();
    return n < 2 ? 0 : m_passes * (n - 1);
}

uint32_t
RingCollective::GetSendPeer(uint32_t rank, uint32_t /* step */) const
{
    return (rank + 1) % GetRankCount();
}

uint32_t
RingCollective::GetStepChunk(uint32_t rank, uint32_t step) const
{
    uint32_t n = GetRankCount();
    return (rank + n - step % n) % n;
}

uint64_t
RingCollective::GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const
{
    return ChunkBytes(channel, GetStepChunk(rank, step));
}

uint64_t
RingCollective::BytesPerRank() const
{
    // Chunks may differ by a byte: report the busiest rank.
    uint64_t most = 0;
    for (uint32_t rank = 0; rank < GetRankCount(); ++rank)
    {
        uint64_t sent = 0;
        for (uint32_t channel = 0; channel < GetChannels(); ++channel)
        {
            for (uint32_t step = 0; step < GetStepCount(); ++step)
            {
                sent += GetStepBytes(rank, channel, step);
            }
        }
        most = std::max(most, sent);
    }
    return most;
}

} // namespace ns3
