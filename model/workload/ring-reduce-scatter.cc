/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-reduce-scatter.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingReduceScatter");
NS_OBJECT_ENSURE_REGISTERED(RingReduceScatter);

TypeId
RingReduceScatter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingReduceScatter")
                            .SetParent<SteppedCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RingReduceScatter>();
    return tid;
}

std::string
RingReduceScatter::GetName() const
{
    return "reduce-scatter";
}

uint32_t
RingReduceScatter::GetStepCount() const
{
    uint32_t n = GetRankCount();
    return n < 2 ? 0 : n - 1;
}

uint32_t
RingReduceScatter::GetSendPeer(uint32_t rank, uint32_t /* step */) const
{
    return (rank + 1) % GetRankCount();
}

uint32_t
RingReduceScatter::GetStepChunk(uint32_t rank, uint32_t step) const
{
    uint32_t n = GetRankCount();
    return (rank + n - step % n) % n;
}

uint64_t
RingReduceScatter::GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const
{
    return ChunkBytes(channel, GetStepChunk(rank, step));
}

uint64_t
RingReduceScatter::BytesPerRank() const
{
    uint32_t n = GetRankCount();
    if (n < 2)
    {
        return 0;
    }
    // Rank r sends every chunk but (r + 1) mod N.
    uint64_t most = 0;
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        uint64_t sent = 0;
        for (uint32_t channel = 0; channel < GetChannels(); ++channel)
        {
            sent += ChannelBytes(channel) - ChunkBytes(channel, (rank + 1) % n);
        }
        most = std::max(most, sent);
    }
    return most;
}

} // namespace ns3
