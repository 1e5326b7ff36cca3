/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "job-placement.h"

#include "model-catalog.h"
#include "placement-policy.h"

#include "ns3/log.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobPlacement");

namespace
{

std::string
JobName(const JobSpec& spec)
{
    return "job " + std::to_string(spec.id);
}

/// Checks explicit hosts against the cluster; throws before anything is taken.
void
CheckExplicit(const JobSpec& spec, const ClusterSlots& slots)
{
    std::map<uint32_t, uint32_t> perHost;
    for (uint32_t h : spec.hosts)
    {
        if (h >= slots.GetNHosts())
        {
            // Never satisfiable, unlike a full host: not a runtime_error.
            throw std::invalid_argument(JobName(spec) + ": hosts: host " + std::to_string(h) +
                                        " does not exist (cluster has " +
                                        std::to_string(slots.GetNHosts()) + " hosts)");
        }
        ++perHost[h];
    }
    for (const auto& [h, n] : perHost)
    {
        if (n > slots.GetGpusPerHost())
        {
            throw std::invalid_argument(JobName(spec) + ": hosts: host " + std::to_string(h) +
                                        " listed " + std::to_string(n) + " times, but it has " +
                                        std::to_string(slots.GetGpusPerHost()) + " GPUs");
        }
        if (slots.GetFree(h) < n)
        {
            throw std::runtime_error("not enough free GPUs for " + JobName(spec) + ": needs " +
                                     std::to_string(n) + " on host " + std::to_string(h) + ", " +
                                     std::to_string(slots.GetFree(h)) + " free");
        }
    }
}

} // namespace

ClusterSlots::ClusterSlots(std::vector<std::vector<uint32_t>> racks, uint32_t gpusPerHost)
    : m_racks(std::move(racks)),
      m_gpusPerHost(gpusPerHost),
      m_totalFree(0)
{
    if (gpusPerHost == 0)
    {
        throw std::invalid_argument("ClusterSlots: gpusPerHost must be >= 1");
    }
    std::size_t nHosts = 0;
    for (std::size_t r = 0; r < m_racks.size(); ++r)
    {
        if (m_racks[r].empty())
        {
            throw std::invalid_argument("ClusterSlots: rack " + std::to_string(r) + " is empty");
        }
        nHosts += m_racks[r].size();
    }
    const uint32_t none = static_cast<uint32_t>(-1);
    m_rackOf.assign(nHosts, none);
    for (std::size_t r = 0; r < m_racks.size(); ++r)
    {
        for (uint32_t h : m_racks[r])
        {
            if (h >= nHosts || m_rackOf[h] != none)
            {
                throw std::invalid_argument(
                    "ClusterSlots: host " + std::to_string(h) + " in rack " + std::to_string(r) +
                    (h >= nHosts ? " is out of range" : " is listed twice") + "; racks must hold " +
                    "each host index 0.." + std::to_string(nHosts - 1) + " once");
            }
            m_rackOf[h] = static_cast<uint32_t>(r);
        }
    }
    m_free.assign(nHosts, gpusPerHost);
    m_totalFree = static_cast<uint32_t>(nHosts) * gpusPerHost;
}

namespace
{

std::vector<std::vector<uint32_t>>
RacksOf(const FabricTopology& topo)
{
    std::map<int32_t, std::vector<uint32_t>> byRack; // ordered by rack value
    const auto& hosts = topo.GetHosts();
    for (uint32_t h = 0; h < hosts.size(); ++h)
    {
        const FabricNode& node = topo.GetNode(hosts[h]);
        if (node.rack < 0)
        {
            throw std::invalid_argument("ClusterSlots: host " + std::to_string(h) + " '" +
                                        node.name + "' has no rack");
        }
        byRack[node.rack].push_back(h);
    }
    std::vector<std::vector<uint32_t>> racks;
    for (auto& [rack, members] : byRack)
    {
        racks.push_back(std::move(members));
    }
    return racks;
}

} // namespace

ClusterSlots::ClusterSlots(const FabricTopology& topo, uint32_t gpusPerHost)
    : ClusterSlots(RacksOf(topo), gpusPerHost)
{
}

uint32_t
ClusterSlots::GetNHosts() const
{
    return m_free.size();
}

uint32_t
ClusterSlots::GetNRacks() const
{
    return m_racks.size();
}

uint32_t
ClusterSlots::GetGpusPerHost() const
{
    return m_gpusPerHost;
}

const std::vector<std::vector<uint32_t>>&
ClusterSlots::GetRacks() const
{
    return m_racks;
}

uint32_t
ClusterSlots::RackOf(uint32_t host) const
{
    return m_rackOf.at(host);
}

uint32_t
ClusterSlots::GetFree(uint32_t host) const
{
    return m_free.at(host);
}

uint32_t
ClusterSlots::GetTotalFree() const
{
    return m_totalFree;
}

uint32_t
ClusterSlots::GetTotalSlots() const
{
    return GetNHosts() * m_gpusPerHost;
}

void
ClusterSlots::Take(uint32_t host, uint32_t n)
{
    uint32_t& free = m_free.at(host);
    if (free < n)
    {
        throw std::runtime_error("ClusterSlots: host " + std::to_string(host) + ": taking " +
                                 std::to_string(n) + " GPUs, " + std::to_string(free) + " free");
    }
    free -= n;
    m_totalFree -= n;
}

void
ClusterSlots::Give(uint32_t host, uint32_t n)
{
    uint32_t& free = m_free.at(host);
    if (n > m_gpusPerHost - free)
    {
        throw std::runtime_error("ClusterSlots: host " + std::to_string(host) + ": releasing " +
                                 std::to_string(n) + " GPUs, only " +
                                 std::to_string(m_gpusPerHost - free) + " in use");
    }
    free += n;
    m_totalFree += n;
}

Placement
Place(const JobSpec& spec, ClusterSlots& slots, uint64_t seed)
{
    ModelCatalog::Validate(spec);

    std::vector<uint32_t> hosts;
    if (spec.placement == "explicit")
    {
        CheckExplicit(spec, slots);
        hosts = spec.hosts;
    }
    else
    {
        const uint32_t perHost = std::min(spec.gpusPerHost, slots.GetGpusPerHost());
        if (spec.workers > static_cast<uint64_t>(perHost) * slots.GetNHosts())
        {
            throw std::invalid_argument(
                JobName(spec) + ": workers: " + std::to_string(spec.workers) +
                " can never fit: the cluster has " + std::to_string(slots.GetNHosts()) +
                " hosts x " + std::to_string(perHost) + " usable GPUs");
        }
        std::vector<uint32_t> room(slots.GetNHosts());
        uint32_t total = 0;
        for (uint32_t h = 0; h < room.size(); ++h)
        {
            room[h] = std::min(slots.GetFree(h), spec.gpusPerHost);
            total += room[h];
        }
        if (total < spec.workers)
        {
            throw std::runtime_error(
                "not enough free GPUs for " + JobName(spec) + ": needs " +
                std::to_string(spec.workers) + ", " + std::to_string(total) + " free" +
                (total < slots.GetTotalFree()
                     ? " (at most " + std::to_string(spec.gpusPerHost) + " per host; " +
                           std::to_string(slots.GetTotalFree()) + " free in all)"
                     : ""));
        }
        // With no scheduler to choose, "scheduler" places as "packed".
        hosts = PlacementPolicy::Create(spec.placement == "scheduler" ? "packed" : spec.placement)
                    ->Choose(PlacementRequest{spec, slots, std::move(room), seed});
        // Ring order: same host adjacent, same rack adjacent.
        std::stable_sort(hosts.begin(), hosts.end(), [&slots](uint32_t a, uint32_t b) {
            return std::make_pair(slots.RackOf(a), a) < std::make_pair(slots.RackOf(b), b);
        });
    }
    if (hosts.size() != spec.workers)
    {
        throw std::logic_error(JobName(spec) + ": placement produced " +
                               std::to_string(hosts.size()) + " workers"); // a bug here
    }

    for (uint32_t h : hosts)
    {
        slots.Take(h, 1); // cannot fail: room was checked above
    }
    NS_LOG_INFO(JobName(spec) << " (" << spec.placement << "): " << hosts.size()
                              << " workers, cluster has " << slots.GetTotalFree()
                              << " free GPUs left");
    return Placement{spec.id, std::move(hosts)};
}

std::vector<Placement>
CandidatePlacements(const JobSpec& spec,
                    const ClusterSlots& slots,
                    uint64_t seed,
                    uint32_t randomCandidates)
{
    std::vector<Placement> out;
    auto add = [&](const std::string& policy, uint64_t s) {
        JobSpec one = spec;
        one.placement = policy;
        one.hosts.clear();
        ClusterSlots scratch = slots;
        Placement p = Place(one, scratch, s);
        if (std::none_of(out.begin(), out.end(), [&](const Placement& q) {
                return q.workerHost == p.workerHost;
            }))
        {
            out.push_back(std::move(p));
        }
    };
    add("packed", seed);
    add("spread", seed);
    for (uint32_t i = 0; i < randomCandidates; ++i)
    {
        add("random", seed + i);
    }
    return out;
}

void
Release(const Placement& placement, ClusterSlots& slots)
{
    std::map<uint32_t, uint32_t> perHost;
    for (uint32_t h : placement.workerHost)
    {
        ++perHost[h];
    }
    for (const auto& [h, n] : perHost)
    {
        if (h >= slots.GetNHosts() || n > slots.GetGpusPerHost() - slots.GetFree(h))
        {
            throw std::runtime_error("Release of job " + std::to_string(placement.jobId) +
                                     ": host " + std::to_string(h) +
                                     " does not have that many GPUs in use");
        }
    }
    for (const auto& [h, n] : perHost)
    {
        slots.Give(h, n);
    }
}

uint32_t
CountCrossRackHops(const Placement& placement, const std::function<uint32_t(uint32_t)>& rackOf)
{
    const auto& hosts = placement.workerHost;
    uint32_t hops = 0;
    for (std::size_t i = 0; hosts.size() > 1 && i < hosts.size(); ++i)
    {
        if (rackOf(hosts[i]) != rackOf(hosts[(i + 1) % hosts.size()]))
        {
            ++hops;
        }
    }
    return hops;
}

} // namespace ns3
