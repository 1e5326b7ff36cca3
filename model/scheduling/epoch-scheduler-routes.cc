/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The epoch planners' routes between plans: each job's candidate routings,
// the joint routing jobs follow when others arrive or leave, and a route's
// source ports set on the job's connections.

#include "epoch-scheduler-internal.h"
#include "epoch-scheduler.h"

#include "ns3/simulator.h"

#include <nlohmann/json.hpp>

namespace ns3
{

using epoch_detail::IndexOf;

void
EpochScheduler::UpdateRoutings()
{
    std::map<uint32_t, SchedulerJob> jobs;
    for (const auto& [id, st] : m_state)
    {
        jobs.emplace(id, GetJobs().at(id));
    }
    std::map<uint32_t, std::vector<JobRouting>> fresh;
    if (m_routeChoice)
    {
        m_probe.SetProbes(m_pathProbes);
        std::map<uint32_t, const JobRouting*> current;
        for (const auto& [id, st] : m_state)
        {
            if (!st.routings.empty())
            {
                current[id] = &st.Current();
            }
        }
        fresh = CandidateRoutings(jobs, GetControl(), m_probe, m_randomRoutes, 1, &current);
    }
    else
    {
        for (const auto& [id, job] : jobs)
        {
            fresh[id].push_back(DefaultRouting(job, GetControl()));
        }
    }
    nlohmann::json note = nlohmann::json::object();
    for (auto& [id, st] : m_state)
    {
        std::vector<JobRouting>& list = fresh.at(id);
        // Keep the routings in use (current and next) among the candidates.
        const uint32_t current = IndexOf(list, st.Current());
        const int32_t next =
            st.nextRoute >= 0 ? static_cast<int32_t>(IndexOf(list, st.routings[st.nextRoute])) : -1;
        st.routings = std::move(list);
        st.route = current;
        st.nextRoute = next;
        nlohmann::json kinds = nlohmann::json::array();
        for (const JobRouting& r : st.routings)
        {
            kinds.push_back({{"kind", r.kind},
                             {"joint", r.joint},
                             {"comm_us", r.commTime.GetMicroSeconds()},
                             {"shares", r.shares}});
        }
        note[std::to_string(id)] = kinds;
    }
    Note("routings", note.dump());
    if (m_followJoint)
    {
        FollowJointRoutings();
    }
    UpdateContention();
}

void
EpochScheduler::FollowJointRoutings()
{
    // The joint routing puts each connection on the path least loaded by the
    // jobs ranked above it, as Crux routes. Left on ECMP, or on a joint
    // routing made before the last arrival, a job meets others on links it
    // need not share, and there the lower ranked one is starved for as long
    // as both communicate: its ungated traffic (pipeline, expert, ZeRO)
    // included, which no plan holds back. A plan may still pick another
    // routing; ties keep the current one.
    for (auto& [id, st] : m_state)
    {
        if (st.armed)
        {
            continue; // its collective's plan is bound to the route it was armed on
        }
        for (uint32_t r = 0; r < st.routings.size(); ++r)
        {
            if (!st.routings[r].joint || r == st.route ||
                st.routings[r].commTime > st.Current().commTime)
            {
                continue;
            }
            // A running collective's queue pairs made from now on take it.
            ApplyRoute(id, r);
            st.nextRoute = -1;
            break;
        }
    }
}

void
EpochScheduler::ApplyRoute(uint32_t id, uint32_t r)
{
    JobState& st = m_state.at(id);
    if (r == st.route)
    {
        return;
    }
    const auto& from = st.Current().ports;
    const auto& to = st.routings.at(r).ports;
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint16_t, uint16_t>> change;
    for (const auto& [group, port] : from)
    {
        change[group].first = port;
    }
    for (const auto& [group, port] : to)
    {
        change[group].second = port;
    }
    for (const auto& [group, ports] : change)
    {
        if (ports.first != ports.second)
        {
            // Port 0 gives the connections their own ports back (the default paths).
            SetSourcePort(id, group.first, group.second, ports.second);
        }
    }
    st.route = r;
    m_classesStale = true; // its links changed: so may the classes
}

} // namespace ns3
