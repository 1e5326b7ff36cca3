/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "halving-doubling-all-reduce.h"

#include "ns3/log.h"
#include "ns3/short-name-registry.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HalvingDoublingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingAllReduce);
NS_OBJECT_SHORT_NAME(HalvingDoublingAllReduce, "halving-doubling-all-reduce");

TypeId
HalvingDoublingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingAllReduce")
                            .SetParent<SteppedCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<HalvingDoublingAllReduce>();
    return tid;
}

void
HalvingDoublingAllReduce::DoConfigure()
{
    uint32_t n = GetRankCount();
    if ((n & (n - 1)) != 0)
    {
        throw std::invalid_argument(GetName() + ": rank count N = " + std::to_string(n) +
                                    " is not a power of two");
    }
}

uint32_t
HalvingDoublingAllReduce::Levels() const
{
    uint32_t levels = 0;
    while ((1U << levels) < GetRankCount())
    {
        ++levels;
    }
    return levels;
}

uint32_t
HalvingDoublingAllReduce::GetStepCount() const
{
    return 2 * Levels();
}

uint32_t
HalvingDoublingAllReduce::LevelOf(uint32_t step) const
{
    uint32_t levels = Levels();
    return step < levels ? step : 2 * levels - 1 - step;
}

uint32_t
HalvingDoublingAllReduce::GetSendPeer(uint32_t rank, uint32_t /* channel */, uint32_t step) const
{
    return rank ^ (1U << LevelOf(step));
}

uint64_t
HalvingDoublingAllReduce::SegmentBytes(uint32_t rank, uint32_t channel, uint32_t level) const
{
    uint64_t length = ChannelBytes(channel);
    for (uint32_t k = 0; k < level; ++k)
    {
        uint64_t first = length / 2;
        length = ((rank >> k) & 1) == 0 ? first : length - first;
    }
    return length;
}

uint64_t
HalvingDoublingAllReduce::GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const
{
    uint32_t level = LevelOf(step);
    uint64_t segment = SegmentBytes(rank, channel, level);
    uint64_t kept = SegmentBytes(rank, channel, level + 1);
    // Reduce-scatter sends the half the partner keeps; all-gather sends the
    // half this rank kept (and has since reduced, then gathered into).
    return step < Levels() ? segment - kept : kept;
}

} // namespace ns3
