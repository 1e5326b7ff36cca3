/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "route-candidates.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Whether \p a is smaller than \p b beyond rounding (loads are sums of quotients).
bool
Below(double a, double b)
{
    return a < b && b - a > 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

/// Seconds \p bytes of payload take on directed link \p link.
double
BusySeconds(const SchedulerControl& control, uint32_t link, uint64_t bytes)
{
    const uint64_t rate = control.GetLinkRateBps(link);
    if (rate == 0)
    {
        std::ostringstream os;
        os << "route-candidates: link " << link << ": field rateBps must be positive";
        throw std::runtime_error(os.str());
    }
    return 8.0 * static_cast<double>(bytes) / static_cast<double>(rate);
}

double
Busiest(const std::map<uint32_t, double>& busy)
{
    double most = 0;
    for (const auto& [link, s] : busy)
    {
        most = std::max(most, s);
    }
    return most;
}

/**
 * The uses of \p job's ops (LinkUse) on routing \p r, whose planned
 * connection i takes path \p paths[i].
 */
void
FillUses(JobRouting& r,
         const SchedulerJob& job,
         const SchedulerControl& control,
         const std::vector<const std::vector<uint32_t>*>& paths)
{
    r.uses.clear();
    for (const SchedulerOp& op : job.ops)
    {
        std::map<uint32_t, double> busy; // link -> seconds
        for (const auto& [flow, bytes] : op.flowBytes)
        {
            for (uint32_t link : *paths.at(flow))
            {
                busy[link] += BusySeconds(control, link, bytes);
            }
        }
        for (const auto& [link, bytes] : op.linkBytes)
        {
            busy[link] += BusySeconds(control, link, bytes);
        }
        if (busy.empty() || !op.duration.IsStrictlyPositive())
        {
            continue;
        }
        const double alone = op.duration.GetSeconds();
        const double length = std::max(alone, Busiest(busy));
        LinkUse use;
        use.begin = op.start;
        use.end = op.start + Seconds(length);
        for (const auto& [link, seconds] : busy)
        {
            if (seconds > 0)
            {
                use.shares[link] = std::min(1.0, seconds / length);
            }
        }
        r.uses.push_back(std::move(use));
    }
}

/// Shares of \p r's links over its communication time, capped at 1 (as LinkShares).
void
FillShares(JobRouting& r)
{
    r.shares.clear();
    const double comm = r.commTime.GetSeconds();
    for (const auto& [link, busy] : r.busySeconds)
    {
        if (busy > 0)
        {
            r.shares[link] = comm > 0 ? std::min(1.0, busy / comm) : 1.0;
        }
    }
}

} // namespace

// Probing ---------------------------------------------------------------------

EcmpPathProbe::EcmpPathProbe(uint32_t probes)
    : m_probes(probes)
{
}

uint16_t
EcmpPathProbe::ProbePort(uint32_t i)
{
    // 40503 is odd, so the first 0x4000 probes are distinct ports.
    return static_cast<uint16_t>(0xC000 + (static_cast<uint64_t>(i) * 40503) % 0x4000);
}

void
EcmpPathProbe::SetProbes(uint32_t probes)
{
    if (probes != m_probes)
    {
        m_cache.clear();
        m_probes = probes;
    }
}

void
EcmpPathProbe::Clear()
{
    m_cache.clear();
}

const std::vector<PortPath>&
EcmpPathProbe::Paths(const SchedulerControl& control, uint32_t src, uint32_t dst)
{
    auto [it, fresh] = m_cache.try_emplace({src, dst});
    if (fresh)
    {
        std::map<std::vector<uint32_t>, uint16_t> portOf; // path -> smallest port
        for (uint32_t i = 0; i < m_probes; ++i)
        {
            const uint16_t port = ProbePort(i);
            auto [p, added] = portOf.try_emplace(control.GetDirectedPath(src, dst, port), port);
            if (!added)
            {
                p->second = std::min(p->second, port);
            }
        }
        for (auto& [path, port] : portOf)
        {
            it->second.push_back({port, path});
        }
        std::sort(it->second.begin(), it->second.end(), [](const PortPath& a, const PortPath& b) {
            return a.port < b.port;
        });
    }
    return it->second;
}

std::vector<PortPath>
EcmpPathProbe::Candidates(const SchedulerControl& control,
                          uint32_t src,
                          uint32_t dst,
                          const std::set<uint16_t>& ownPorts)
{
    std::vector<PortPath> candidates = Paths(control, src, dst);
    for (uint16_t own : ownPorts)
    {
        std::vector<uint32_t> path = control.GetDirectedPath(src, dst, own);
        auto same = std::find_if(candidates.begin(), candidates.end(), [&](const PortPath& c) {
            return c.links == path;
        });
        if (same == candidates.end())
        {
            candidates.push_back({own, std::move(path)});
        }
        else
        {
            same->port = std::min(same->port, own);
        }
    }
    return candidates;
}

const PortPath*
LeastLoadedPath(const std::vector<PortPath>& candidates,
                const std::map<uint32_t, double>& load,
                const std::vector<uint32_t>* current)
{
    const PortPath* best = nullptr;
    double bestMax = 0;
    double bestSum = 0;
    auto isCurrent = [current](const PortPath& c) { return current && c.links == *current; };
    for (const PortPath& c : candidates)
    {
        double peak = 0;
        double sum = 0;
        for (uint32_t link : c.links)
        {
            auto l = load.find(link);
            const double placed = l == load.end() ? 0.0 : l->second;
            peak = std::max(peak, placed);
            sum += placed;
        }
        const bool better = [&]() {
            if (best == nullptr || Below(peak, bestMax))
            {
                return true;
            }
            if (Below(bestMax, peak))
            {
                return false;
            }
            if (Below(sum, bestSum) || Below(bestSum, sum))
            {
                return Below(sum, bestSum);
            }
            if (isCurrent(c) != isCurrent(*best))
            {
                return isCurrent(c); // equal loads: do not move the group
            }
            return c.port < best->port;
        }();
        if (better)
        {
            best = &c;
            bestMax = peak;
            bestSum = sum;
        }
    }
    return best;
}

// Routings --------------------------------------------------------------------

std::vector<ConnectionGroup>
GroupConnections(const SchedulerJob& job)
{
    std::vector<ConnectionGroup> groups;
    std::map<std::pair<uint32_t, uint32_t>, std::size_t> groupOf;
    for (const SchedulerFlow& f : job.flows)
    {
        auto [g, added] = groupOf.try_emplace({f.srcHost, f.dstHost}, groups.size());
        if (added)
        {
            ConnectionGroup g0;
            g0.src = f.srcHost;
            g0.dst = f.dstHost;
            groups.push_back(g0);
        }
        groups[g->second].bytes += f.bytes;
        groups[g->second].ownPorts.insert(f.srcPort);
    }
    return groups;
}

bool
JobRouting::SameLinks(const JobRouting& other) const
{
    if (busySeconds.size() != other.busySeconds.size())
    {
        return false;
    }
    for (const auto& [link, s] : busySeconds)
    {
        auto it = other.busySeconds.find(link);
        if (it == other.busySeconds.end() || Below(s, it->second) || Below(it->second, s))
        {
            return false;
        }
    }
    return true;
}

JobRouting
DefaultRouting(const SchedulerJob& job, const SchedulerControl& control)
{
    JobRouting r;
    r.kind = "default";
    for (const SchedulerFlow& f : job.flows)
    {
        for (uint32_t link : f.path)
        {
            r.busySeconds[link] += BusySeconds(control, link, f.bytes);
        }
    }
    r.commTime = job.commTime;
    FillShares(r);
    std::vector<const std::vector<uint32_t>*> paths;
    for (const SchedulerFlow& f : job.flows)
    {
        paths.push_back(&f.path);
    }
    FillUses(r, job, control, paths);
    return r;
}

JobRouting
RoutingWithPorts(const SchedulerJob& job,
                 const SchedulerControl& control,
                 const std::map<std::pair<uint32_t, uint32_t>, uint16_t>& ports,
                 const std::string& kind)
{
    JobRouting r;
    r.kind = kind;
    r.ports = ports;
    std::vector<std::vector<uint32_t>> routed; // per flow: its path on this routing
    routed.reserve(job.flows.size());
    for (const SchedulerFlow& f : job.flows)
    {
        auto p = ports.find({f.srcHost, f.dstHost});
        routed.push_back(
            p == ports.end() ? f.path : control.GetDirectedPath(f.srcHost, f.dstHost, p->second));
        for (uint32_t link : routed.back())
        {
            r.busySeconds[link] += BusySeconds(control, link, f.bytes);
        }
    }
    const double base = Busiest(DefaultRouting(job, control).busySeconds);
    const double mine = Busiest(r.busySeconds);
    r.commTime = base > 0 ? Seconds(job.commTime.GetSeconds() * mine / base) : job.commTime;
    FillShares(r);
    std::vector<const std::vector<uint32_t>*> paths;
    for (const std::vector<uint32_t>& path : routed)
    {
        paths.push_back(&path);
    }
    FillUses(r, job, control, paths);
    return r;
}

GroupPlacement
PlaceGroup(const SchedulerControl& control,
           const ConnectionGroup& g,
           const std::vector<PortPath>& candidates,
           uint16_t current,
           std::map<uint32_t, double>& load)
{
    GroupPlacement out;
    const std::vector<uint32_t> currentPath =
        current != 0 ? control.GetDirectedPath(g.src, g.dst, current) : std::vector<uint32_t>();
    out.path = LeastLoadedPath(candidates, load, current != 0 ? &currentPath : nullptr);
    if (out.path == nullptr)
    {
        return out;
    }
    for (uint32_t link : out.path->links)
    {
        auto l = load.find(link);
        out.peak = std::max(out.peak, l == load.end() ? 0.0 : l->second);
    }
    // Same path as now: nothing to change.
    out.moved = current == 0 || out.path->links != currentPath;
    out.port = out.moved ? out.path->port : current;
    for (uint32_t link : out.path->links)
    {
        load[link] += BusySeconds(control, link, g.bytes);
    }
    return out;
}

std::map<uint32_t, std::vector<JobRouting>>
CandidateRoutings(const std::map<uint32_t, SchedulerJob>& jobs,
                  const SchedulerControl& control,
                  EcmpPathProbe& probe,
                  uint32_t randomRoutings,
                  uint64_t seed,
                  const std::map<uint32_t, const JobRouting*>* current)
{
    std::map<uint32_t, std::vector<JobRouting>> out;
    auto add = [&out](uint32_t id, JobRouting r) {
        auto& list = out[id];
        for (JobRouting& known : list)
        {
            if (known.SameLinks(r))
            {
                known.joint = known.joint || r.joint;
                return;
            }
        }
        list.push_back(std::move(r));
    };

    // Crux's order: decreasing GPU intensity (GPU-seconds of compute per
    // second of communication), ties by id.
    std::vector<const SchedulerJob*> order;
    for (const auto& [id, job] : jobs)
    {
        out[id].push_back(DefaultRouting(job, control));
        if (!job.flows.empty() && job.FabricTime() > Time(0))
        {
            order.push_back(&job);
        }
    }
    auto intensity = [](const SchedulerJob* j) {
        return j->GpuSeconds() / j->FabricTime().GetSeconds();
    };
    std::stable_sort(order.begin(), order.end(), [&](const SchedulerJob* a, const SchedulerJob* b) {
        return intensity(a) > intensity(b);
    });

    std::map<uint32_t, double> load; // link -> seconds per iteration placed on it
    for (const SchedulerJob* job : order)
    {
        const JobRouting* now = nullptr;
        if (current != nullptr)
        {
            auto it = current->find(job->id);
            now = it == current->end() ? nullptr : it->second;
        }
        std::map<std::pair<uint32_t, uint32_t>, uint16_t> ports;
        for (const ConnectionGroup& g : GroupConnections(*job))
        {
            const std::vector<PortPath> candidates =
                probe.Candidates(control, g.src, g.dst, g.ownPorts);
            // The port the group uses now: the routing's, else its own if its
            // connections share one (as Crux reads it); 0 without a current routing.
            uint16_t port = 0;
            if (now != nullptr)
            {
                auto set = now->ports.find({g.src, g.dst});
                port = set != now->ports.end()  ? set->second
                       : g.ownPorts.size() == 1 ? *g.ownPorts.begin()
                                                : 0;
            }
            ports[{g.src, g.dst}] = PlaceGroup(control, g, candidates, port, load).port;
        }
        JobRouting joint = RoutingWithPorts(*job, control, ports, "least-loaded");
        joint.joint = true;
        add(job->id, std::move(joint));
    }

    for (const SchedulerJob* job : order)
    {
        std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + job->id);
        for (uint32_t i = 0; i < randomRoutings; ++i)
        {
            std::map<std::pair<uint32_t, uint32_t>, uint16_t> ports;
            for (const ConnectionGroup& g : GroupConnections(*job))
            {
                const std::vector<PortPath> candidates =
                    probe.Candidates(control, g.src, g.dst, g.ownPorts);
                ports[{g.src, g.dst}] = candidates[rng() % candidates.size()].port;
            }
            add(job->id, RoutingWithPorts(*job, control, ports, "random"));
        }
    }
    return out;
}

} // namespace ns3
