/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "placement-contention.h"

#include "ns3/simulator.h"

#include <map>
#include <tuple>

namespace ns3
{

double
ContentionSummary::JobFraction() const
{
    return jobs == 0 ? 0.0 : static_cast<double>(contendedJobs) / jobs;
}

double
ContentionSummary::GpuFraction() const
{
    return gpus == 0 ? 0.0 : static_cast<double>(contendedGpus) / static_cast<double>(gpus);
}

ContentionSummary
MeasureContention(const TrainingCluster& cluster)
{
    const FabricTopology& topo = cluster.GetNetwork()->GetTopology();
    const std::vector<uint32_t>& hostNodes = topo.GetHosts();

    // Link group -> the jobs sending through it, with their lifetimes.
    enum Level
    {
        NIC,
        RACK,
        POD
    };

    struct User
    {
        uint32_t id;
        Time start;
        Time end;
    };

    std::map<std::pair<Level, int64_t>, std::vector<User>> groups;
    ContentionSummary s;
    std::map<uint32_t, uint64_t> workers;
    for (const auto& e : cluster.GetJobs())
    {
        if (!e->job)
        {
            continue; // never started
        }
        ++s.jobs;
        s.gpus += e->spec.workers;
        workers[e->spec.id] = e->spec.workers;
        const User u{e->spec.id,
                     e->job->GetStartTime(),
                     e->job->IsDone() ? e->job->GetEndTime() : Simulator::Now()};
        std::set<std::pair<Level, int64_t>> mine;
        std::set<uint32_t> hosts(e->placement.workerHost.begin(), e->placement.workerHost.end());
        std::set<int32_t> racks;
        std::set<int32_t> pods;
        for (uint32_t h : hosts)
        {
            const FabricNode& n = topo.GetNode(hostNodes.at(h));
            racks.insert(n.rack);
            pods.insert(n.pod);
        }
        for (uint32_t h : hosts)
        {
            const FabricNode& n = topo.GetNode(hostNodes.at(h));
            if (hosts.size() > 1)
            {
                mine.insert({NIC, h});
            }
            if (racks.size() > 1)
            {
                mine.insert({RACK, n.rack});
            }
            if (pods.size() > 1)
            {
                mine.insert({POD, n.pod});
            }
        }
        for (const auto& g : mine)
        {
            groups[g].push_back(u);
        }
    }
    for (const auto& [group, users] : groups)
    {
        for (std::size_t i = 0; i < users.size(); ++i)
        {
            for (std::size_t j = i + 1; j < users.size(); ++j)
            {
                const User& a = users[i];
                const User& b = users[j];
                if (a.start < b.end && b.start < a.end)
                {
                    s.contended.insert(a.id);
                    s.contended.insert(b.id);
                }
            }
        }
    }
    s.contendedJobs = static_cast<uint32_t>(s.contended.size());
    for (uint32_t id : s.contended)
    {
        s.contendedGpus += workers.at(id);
    }
    return s;
}

} // namespace ns3
