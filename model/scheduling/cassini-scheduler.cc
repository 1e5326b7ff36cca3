/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cassini-scheduler.h"

#include "cassini-placement.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/short-name-registry.h"
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
NS_OBJECT_SHORT_NAME(CassiniScheduler, "cassini");

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

/**
 * Add to \p job's demand each use of \p uses on the links of \p links: its
 * interval from \p origin (a time from which the first planned op starts,
 * for uses measured from it), in quanta \p q of its circle.
 */
void
AddUses(CassiniJob& job,
        const std::vector<LinkUse>& uses,
        Time origin,
        int64_t q,
        const std::map<uint32_t, double>& links)
{
    for (const LinkUse& u : uses)
    {
        const int64_t start = RoundTo(origin + u.begin, q);
        const int64_t len = std::max<int64_t>(1, RoundTo(u.end - u.begin, q));
        for (const auto& [link, share] : u.shares)
        {
            if (links.count(link) > 0)
            {
                auto& list = job.demand[link];
                for (const DemandInterval& in : PhaseIntervals(start, len, job.period, share))
                {
                    list.push_back(in);
                }
            }
        }
    }
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

bool
CassiniScheduler::StartsJobsGated() const
{
    return true;
}

std::vector<LinkUse>
CassiniScheduler::Pattern(const SchedulerJob& job, std::map<uint32_t, double>& linkDemand) const
{
    linkDemand = LinkShares(job, GetControl());
    std::vector<LinkUse> uses = DefaultRouting(job, GetControl()).uses;
    if (!uses.empty())
    {
        linkDemand.clear();
        for (const LinkUse& u : uses)
        {
            for (const auto& [link, share] : u.shares)
            {
                double& d = linkDemand[link];
                d = std::max(d, share);
            }
        }
    }
    return uses;
}

CassiniScheduler::Fit
CassiniScheduler::FitJob(const SchedulerJob& job,
                         const std::map<uint32_t, double>& linkDemand,
                         const std::vector<LinkUse>& uses) const
{
    Fit fit;
    // Running jobs that share a link with the new one, fixed on their grids.
    for (const auto& [id, g] : m_grids)
    {
        const bool shares = std::any_of(g.linkDemand.begin(), g.linkDemand.end(), [&](auto& kv) {
            return linkDemand.count(kv.first) > 0;
        });
        if (id != job.id && shares)
        {
            fit.neighbours.push_back(id);
        }
    }

    // Quantize; double the quantum until every link's circle fits.
    int64_t q = m_timeQuantum.GetTimeStep();
    std::vector<CassiniJob> jobs;
    while (true)
    {
        jobs.clear();
        fit.period = CeilTo(job.IsolatedIterationTime() * (1 + m_periodSlack), q);
        fit.compute = std::min(RoundTo(job.computeTime, q), fit.period - 1);
        fit.comm = std::clamp<int64_t>(RoundTo(job.commTime, q), 1, fit.period - fit.compute);
        CassiniJob mine{job.id, fit.period, {}, false};
        // Each op's interval, from the iteration's start (its compute first).
        AddUses(mine, uses, job.computeTime, q, linkDemand);
        for (const auto& [link, d] : linkDemand)
        {
            if (uses.empty())
            {
                mine.demand[link] = {{fit.compute, fit.compute + fit.comm, d}};
            }
        }
        jobs.push_back(mine);
        for (uint32_t id : fit.neighbours)
        {
            const JobGrid& g = m_grids.at(id);
            CassiniJob fixed{id, CeilTo(g.period, q), {}, true};
            AddUses(fixed, g.uses, g.anchor, q, linkDemand);
            for (const auto& [link, d] : g.linkDemand)
            {
                if (linkDemand.count(link) && g.uses.empty())
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
    fit.quantum = q;
    fit.result = ComputeCassiniShifts(jobs, m_angleSteps);
    fit.minScore = 1.0;
    double sum = 0;
    for (const auto& [link, d] : linkDemand)
    {
        const double score = fit.result.linkScore.at(link);
        fit.minScore = std::min(fit.minScore, score);
        sum += score;
    }
    fit.meanScore = linkDemand.empty() ? 1.0 : sum / static_cast<double>(linkDemand.size());
    return fit;
}

std::size_t
CassiniScheduler::ChoosePlacement(const std::vector<SchedulerJob>& candidates)
{
    std::size_t best = 0;
    double bestMin = -1;
    double bestMean = -1;
    nlohmann::json notes = nlohmann::json::array();
    for (std::size_t i = 0; i < candidates.size(); ++i)
    {
        const SchedulerJob& c = candidates[i];
        std::map<uint32_t, double> demand;
        const std::vector<LinkUse> uses = Pattern(c, demand);
        double minScore = 1.0;
        double meanScore = 1.0;
        if (!demand.empty())
        {
            const Fit fit = FitJob(c, demand, uses);
            minScore = fit.minScore;
            meanScore = fit.meanScore;
        }
        notes.push_back({{"hosts", c.rankHosts}, {"score", minScore}, {"mean_score", meanScore}});
        // Strictly better only: ties keep the earlier candidate.
        if (minScore > bestMin || (minScore == bestMin && meanScore > bestMean))
        {
            best = i;
            bestMin = minScore;
            bestMean = meanScore;
        }
    }
    if (!candidates.empty())
    {
        m_placementNotes[candidates.front().id] = {notes.dump(), best};
    }
    return best;
}

void
CassiniScheduler::DoJobArrived(const SchedulerJob& job)
{
    auto chosen = m_placementNotes.find(job.id);
    if (chosen != m_placementNotes.end())
    {
        Note("placement_candidates", chosen->second.first);
        Note("placement_choice", std::to_string(chosen->second.second));
        m_placementNotes.erase(chosen);
    }
    JobGrid grid;
    grid.buckets = std::max<uint32_t>(1, job.spec.buckets);
    grid.uses = Pattern(job, grid.linkDemand);
    if (grid.linkDemand.empty() || LinkShares(job, GetControl()).empty())
    {
        OpenGate(job.id); // nothing gated on the fabric: no slot to keep
        return;
    }
    const Fit fit = FitJob(job, grid.linkDemand, grid.uses);
    const CassiniResult& r = fit.result;
    const int64_t shift = r.shift.at(job.id);
    const int64_t period = fit.period;
    const int64_t compute = fit.compute;

    // Anchor: the first time >= start + C at absolute phase (C + shift) mod T.
    const Time quantum = TimeStep(fit.quantum);
    const Time p = quantum * period;
    const Time phase = quantum * ((compute + shift) % period);
    const Time earliest = job.startTime + quantum * compute;
    const int64_t pSteps = p.GetTimeStep();
    const int64_t behind = (earliest - phase).GetTimeStep();
    const int64_t n = behind <= 0 ? -((-behind) / pSteps) : (behind + pSteps - 1) / pSteps;
    grid.anchor = phase + p * n;
    grid.period = p;
    grid.comm = quantum * fit.comm;
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
    Note("comm_ns", std::to_string((quantum * fit.comm).GetNanoSeconds()));
    nlohmann::json demand = nlohmann::json::object();
    for (const auto& [link, d] : grid.linkDemand)
    {
        demand[std::to_string(link)] = d;
    }
    Note("link_demand", demand.dump());
    Note("running_neighbours", nlohmann::json(fit.neighbours).dump());
    Note("link_scores", scores.dump());
    Note("inconsistent_edges", std::to_string(r.inconsistentEdges));
    NS_LOG_INFO("job " << job.id << ": period " << p << ", shift " << quantum * shift << ", anchor "
                       << grid.anchor);
}

bool
CassiniScheduler::SharesLink(const JobGrid& a, const JobGrid& b)
{
    return std::any_of(a.linkDemand.begin(), a.linkDemand.end(), [&](const auto& kv) {
        return b.linkDemand.count(kv.first) > 0;
    });
}

bool
CassiniScheduler::LinksIdle(uint32_t id) const
{
    const JobGrid& mine = m_grids.at(id);
    return std::none_of(m_grids.begin(), m_grids.end(), [&](const auto& kv) {
        return kv.first != id && kv.second.open && SharesLink(mine, kv.second);
    });
}

void
CassiniScheduler::ReleaseIdleHeldJobs()
{
    for (auto& [id, g] : m_grids)
    {
        if (g.heldUntil.IsRunning() && LinksIdle(id))
        {
            g.heldUntil.Cancel();
            g.open = true;
            Note("work_conserving", std::to_string(id));
            OpenGate(id);
        }
    }
}

void
CassiniScheduler::DoCollectiveReady(uint32_t job, uint32_t /* iteration */, uint32_t bucket)
{
    auto it = m_grids.find(job);
    if (bucket != 0 || it == m_grids.end())
    {
        return; // later buckets pass through the gate the first one opened
    }
    JobGrid& g = it->second;
    const Time now = Simulator::Now();
    Time next;
    if (now < g.anchor)
    {
        next = g.anchor;
    }
    else
    {
        const int64_t n = (now - g.anchor).GetTimeStep() / g.period.GetTimeStep();
        const Time last = g.anchor + g.period * n;
        const Time late = now - last;
        Note("late_ns", std::to_string(late.GetNanoSeconds()));
        next = last + g.period;
        if (late.GetSeconds() <= m_lateTolerance * g.period.GetSeconds())
        {
            next = now;
        }
    }
    if (next > now && LinksIdle(job))
    {
        Note("work_conserving", std::to_string(job));
        next = now;
    }
    g.open = true;
    if (next == now)
    {
        OpenGate(job);
        return;
    }
    // Held for its grid point, unless its links fall idle before.
    g.open = false;
    // Decided a control delay ahead, so that the gate still opens at the grid point.
    g.heldUntil =
        ScheduleDecision(next - GetControlDelay(), "grid-point", job, [this, job, next]() {
            m_grids.at(job).open = true;
            OpenGate(job, next);
        });
}

void
CassiniScheduler::DoCollectiveDone(uint32_t job, uint32_t /* iteration */, uint32_t bucket)
{
    auto it = m_grids.find(job);
    if (it != m_grids.end() && bucket + 1 == it->second.buckets)
    {
        it->second.open = false;
        CloseGate(job);
        ReleaseIdleHeldJobs();
    }
}

void
CassiniScheduler::DoJobDone(uint32_t job)
{
    auto it = m_grids.find(job);
    if (it != m_grids.end())
    {
        it->second.heldUntil.Cancel();
        m_grids.erase(it);
        ReleaseIdleHeldJobs();
    }
}

} // namespace ns3
