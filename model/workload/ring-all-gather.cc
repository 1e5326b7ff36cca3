/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-all-gather.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingAllGather");
NS_OBJECT_ENSURE_REGISTERED(RingAllGather);

TypeId
RingAllGather::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAllGather")
                            .SetParent<SteppedCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RingAllGather>();
    return tid;
}

std::string
RingAllGather::GetName() const
{
    return "all-gather";
}

uint32_t
RingAllGather::GetStepCount() const
{
    uint32_t n = GetRankCount();
    return n < 2 ? 0 : n - 1;
}

uint32_t
RingAllGather::GetSendPeer(uint32_t rank, uint32_t /* step */) const
{
    return (rank + 1) % GetRankCount();
}

uint32_t
RingAllGather::GetStepChunk(uint32_t rank, uint32_t step) const
{
    uint32_t n = GetRankCount();
    return (rank + n - step % n) % n;
}

uint64_t
RingAllGather::GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const
{
    return ChunkBytes(channel, GetStepChunk(rank, step));
}

uint64_t
RingAllGather::BytesPerRank() const
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
