/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cassini-scheduler.h"

#include "cassini-placement.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CassiniScheduler");
NS_OBJECT_ENSURE_REGISTERED(CassiniScheduler);

namespace
{

/// \p t in whole quanta \p q, rounded to nearest.
int64_t
RoundTo(Time t, int64_t q)
{
    return (t.GetTimeStep() + q / 2) / q;
}

/// \p t in whole quanta \p q, rounded up; at least 1.
int64_t
CeilTo(Time t, int64_t q)
{
    return std::max<int64_t>(1, (t.GetTimeStep() + q - 1) / q);
}

/// One communication phase of length \p len starting at \p start (any integer),
/// on a circle of \p period; split in two if it wraps past the period.
std::vector<DemandInterval>
PhaseIntervals(int64_t start, int64_t len, int64_t period, double demand)
{
    start = ((start % period) + period) % period;
    len = std::clamp<int64_t>(len, 1, period);
    if (start + len <= period)
    {
        return {{start, start + len, demand}};
    }
    return {{start, period, demand}, {0, start + len - period, demand}};
}

/// Whether every link's circle (LCM of its jobs' periods) fits kCassiniMaxPerimeter.
bool
PerimetersFit(const std::vector<CassiniJob>& jobs)
{
    std::map<uint32_t, int64_t> lcm;
    for (const auto& j : jobs)
    {
        for (const auto& kv : j.demand)
        {
            int64_t& l = lcm.try_emplace(kv.first, 1).first->second;
            const int64_t step = j.period / std::gcd(l, j.period);
            if (l > kCassiniMaxPerimeter / step)
            {
                return false;
            }
            l *= step;
        }
    }
    return true;
}

} // namespace

TypeId
CassiniScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CassiniScheduler")
            .SetParent<CollectiveScheduler>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<CassiniScheduler>()
            .AddAttribute("AngleSteps",
                          "Bins of each link's circle in the CASSINI geometric abstraction.",
                          UintegerValue(360),
                          MakeUintegerAccessor(&CassiniScheduler::m_angleSteps),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("TimeQuantum",
                          "Unit iteration times are rounded to before taking LCMs (doubled "
                          "while a link's LCM exceeds the core's maximum perimeter).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&CassiniScheduler::m_timeQuantum),
                          MakeTimeChecker(TimeStep(1)))
            .AddAttribute("PeriodSlack",
                          "Fraction added to a job's estimated iteration time to make its grid "
                          "period. A period shorter than the real iteration (the estimate "
                          "misses congestion-control ramps, the control round trip) makes the "
                          "job later at every grid point until it loses a whole period.",
                          DoubleValue(0.03),
                          MakeDoubleAccessor(&CassiniScheduler::m_periodSlack),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("LateTolerance",
                          "How far past its grid point (fraction of its period) a job may be "
                          "ready and still start at once instead of waiting a period.",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&CassiniScheduler::m_lateTolerance),
                          MakeDoubleChecker<double>(0.0, 1.0));
    return tid;
}

CassiniScheduler::CassiniScheduler() = default;
CassiniScheduler::~CassiniScheduler() = default;

std::string
CassiniScheduler::GetName() const
{
    return "cassini";
}

bool
CassiniScheduler::StartsJobsGated() const
{
    return true;
}

void
CassiniScheduler::DoJobArrived(const SchedulerJob& job)
{
    JobGrid grid;
    grid.buckets = std::max<uint32_t>(1, job.spec.buckets);
    grid.linkDemand = LinkShares(job, GetControl());
    if (grid.linkDemand.empty())
    {
        OpenGate(job.id); // nothing on the fabric: no slot to keep
        return;
    }

    // Running jobs that share a link with the new one, fixed on their grids.
    std::vector<uint32_t> neighbours;
    for (const auto& [id, g] : m_grids)
    {
        const bool shares = std::any_of(g.linkDemand.begin(), g.linkDemand.end(), [&](auto& kv) {
            return grid.linkDemand.count(kv.first) > 0;
        });
        if (id != job.id && shares)
        {
            neighbours.push_back(id);
        }
    }

    // Quantize; double the quantum until every link's circle fits.
    int64_t q = m_timeQuantum.GetTimeStep();
    std::vector<CassiniJob> jobs;
    int64_t period = 0;
    int64_t compute = 0;
    int64_t comm = 0;
    while (true)
    {
        jobs.clear();
        period = CeilTo(job.IsolatedIterationTime() * (1 + m_periodSlack), q);
        compute = std::min(RoundTo(job.computeTime, q), period - 1);
        comm = std::clamp<int64_t>(RoundTo(job.commTime, q), 1, period - compute);
        CassiniJob mine{job.id, period, {}, false};
        for (const auto& [link, d] : grid.linkDemand)
        {
            mine.demand[link] = {{compute, compute + comm, d}};
        }
        jobs.push_back(mine);
        for (uint32_t id : neighbours)
        {
            const JobGrid& g = m_grids.at(id);
            CassiniJob fixed{id, CeilTo(g.period, q), {}, true};
            for (const auto& [link, d] : g.linkDemand)
            {
                if (grid.linkDemand.count(link))
                {
                    fixed.demand[link] =
                        PhaseIntervals(RoundTo(g.anchor, q), RoundTo(g.comm, q), fixed.period, d);
                }
            }
            jobs.push_back(fixed);
        }
        if (PerimetersFit(jobs))
        {
            break;
        }
        q *= 2;
    }
    const CassiniResult r = ComputeCassiniShifts(jobs, m_angleSteps);
    const int64_t shift = r.shift.at(job.id);

    // Anchor: the first time >= start + C at absolute phase (C + shift) mod T.
    const Time quantum = TimeStep(q);
    const Time p = quantum * period;
    const Time phase = quantum * ((compute + shift) % period);
    const Time earliest = job.startTime + quantum * compute;
    const int64_t pSteps = p.GetTimeStep();
    const int64_t behind = (earliest - phase).GetTimeStep();
    const int64_t n = behind <= 0 ? -((-behind) / pSteps) : (behind + pSteps - 1) / pSteps;
    grid.anchor = phase + p * n;
    grid.period = p;
    grid.comm = quantum * comm;
    m_grids[job.id] = grid;

    nlohmann::json scores = nlohmann::json::object();
    for (const auto& [link, d] : grid.linkDemand)
    {
        scores[std::to_string(link)] = r.linkScore.at(link);
    }
    Note("quantum_ns", std::to_string(quantum.GetNanoSeconds()));
    Note("period_ns", std::to_string(p.GetNanoSeconds()));
    Note("shift_ns", std::to_string((quantum * shift).GetNanoSeconds()));
    Note("anchor_ns", std::to_string(grid.anchor.GetNanoSeconds()));
    Note("compute_ns", std::to_string((quantum * compute).GetNanoSeconds()));
    Note("comm_ns", std::to_string((quantum * comm).GetNanoSeconds()));
    nlohmann::json demand = nlohmann::json::object();
    for (const auto& [link, d] : grid.linkDemand)
    {
        demand[std::to_string(link)] = d;
    }
    Note("link_demand", demand.dump());
    Note("running_neighbours", nlohmann::json(neighbours).dump());
    Note("link_scores", scores.dump());
    Note("inconsistent_edges", std::to_string(r.inconsistentEdges));
    NS_LOG_INFO("job " << job.id << ": period " << p << ", shift " << quantum * shift << ", anchor "
                       << grid.anchor);
}

void
CassiniScheduler::DoCollectiveReady(uint32_t job, uint32_t /* iteration */, uint32_t bucket)
{
    auto it = m_grids.find(job);
    if (bucket != 0 || it == m_grids.end())
    {
        return; // later buckets pass through the gate the first one opened
    }
    const JobGrid& g = it->second;
    const Time now = Simulator::Now();
    if (now < g.anchor)
    {
        OpenGate(job, g.anchor);
        return;
    }
    const int64_t n = (now - g.anchor).GetTimeStep() / g.period.GetTimeStep();
    const Time last = g.anchor + g.period * n;
    const Time late = now - last;
    Note("late_ns", std::to_string(late.GetNanoSeconds()));
    if (late.GetSeconds() <= m_lateTolerance * g.period.GetSeconds())
    {
        OpenGate(job);
    }
    else
    {
        OpenGate(job, last + g.period);
    }
}

void
CassiniScheduler::DoCollectiveDone(uint32_t job, uint32_t /* iteration */, uint32_t bucket)
{
    auto it = m_grids.find(job);
    if (it != m_grids.end() && bucket + 1 == it->second.buckets)
    {
        CloseGate(job);
    }
}

void
CassiniScheduler::DoJobDone(uint32_t job)
{
    m_grids.erase(job);
}

} // namespace ns3
