/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-all-reduce.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);

TypeId
RingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAllReduce")
                            .SetParent<SteppedCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RingAllReduce>();
    return tid;
}

std::string
RingAllReduce::GetName() const
{
    return "ring-all-reduce";
}

uint32_t
RingAllReduce::GetStepCount() const
{
    uint32_t n = GetRankCount();
    return n < 2 ? 0 : 2 * (n - 1);
}

uint32_t
RingAllReduce::GetSendPeer(uint32_t rank, uint32_t /* step */) const
{
    return (rank + 1) % GetRankCount();
}

uint32_t
RingAllReduce::GetStepChunk(uint32_t rank, uint32_t step) const
{
    uint32_t n = GetRankCount();
    if (step + 1 < n)
    {
        return (rank + n - step) % n; // reduce-scatter
    }
    uint32_t s = step - (n - 1);
    return (rank + 1 + n - s) % n; // all-gather
}

uint64_t
RingAllReduce::GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const
{
    return ChunkBytes(channel, GetStepChunk(rank, step));
}

uint64_t
RingAllReduce::BytesPerRank() const
{
    uint32_t n = GetRankCount();
    if (n < 2)
    {
        return 0;
    }
    // Rank r sends every chunk twice except (r + 1) mod N, which it reduces
    // last and never sends in reduce-scatter, and (r + 2) mod N, which it
    // receives last in all-gather and never forwards.
    uint64_t most = 0;
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        uint64_t sent = 0;
        for (uint32_t channel = 0; channel < GetChannels(); ++channel)
        {
            sent += 2 * ChannelBytes(channel) - ChunkBytes(channel, (rank + 1) % n) -
                    ChunkBytes(channel, (rank + 2) % n);
        }
        most = std::max(most, sent);
    }
    return most;
}

} // namespace ns3
