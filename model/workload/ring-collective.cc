/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-collective.h"

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
RingCollective::GetSendPeer(uint32_t rank, uint32_t /* channel */, uint32_t /* step */) const
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

} // namespace ns3
