/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "random-placement.h"

#include "job-placement.h"
#include "split-mix64.h"

#include "ns3/short-name-registry.h"

#include <random>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RandomPlacement);
NS_OBJECT_SHORT_NAME(RandomPlacement, "random");

TypeId
RandomPlacement::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RandomPlacement")
                            .SetParent<PlacementPolicy>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RandomPlacement>();
    return tid;
}

namespace
{

/// Uniform integer in [0, n), n >= 1, by rejection. Unlike
/// std::uniform_int_distribution its output is the same on every library.
uint64_t
Below(std::mt19937_64& rng, uint64_t n)
{
    const uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % n;
    uint64_t r;
    do
    {
        r = rng();
    } while (r >= limit);
    return r % n;
}

} // namespace

std::vector<uint32_t>
RandomPlacement::Choose(PlacementRequest request) const
{
    const JobSpec& spec = request.spec;
    const ClusterSlots& slots = request.slots;
    std::vector<uint32_t>& room = request.room;
    std::vector<uint32_t> hosts;
    for (uint32_t h = 0; h < slots.GetNHosts(); ++h)
    {
        if (room[h] > 0)
        {
            hosts.push_back(h);
        }
    }
    // SplitMix64 spreads (seed, job id) over the whole seed space.
    std::mt19937_64 rng(SplitMix64(SplitMix64(request.seed) ^ spec.id));
    for (std::size_t i = hosts.size(); i > 1; --i) // Fisher-Yates
    {
        std::swap(hosts[i - 1], hosts[Below(rng, i)]);
    }
    uint32_t need = spec.workers;
    std::vector<uint32_t> out;
    FillInOrder(hosts, room, need, out);
    return out;
}

} // namespace ns3
