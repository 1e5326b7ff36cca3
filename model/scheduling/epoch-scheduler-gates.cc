/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The epoch planners' gates and traffic classes: when a job's gate opens
// (planned, fitting by share, late, or ahead of a collective about to be
// posted), in which class, and which jobs contend.

#include "crux-priorities.h"
#include "epoch-scheduler.h"

#include "ns3/simulator.h"

#include <nlohmann/json.hpp>
#include <set>

namespace ns3
{

namespace
{

/// Shares may add up to this much above 1 (sums of quotients).
constexpr double kShareTolerance = 1e-9;

/// YieldByClass: the part of each link that higher classes must leave for a
/// collective below them to start early (a job alone fills about 0.95).
constexpr double kYieldLeftover = 0.25;

/// The links routing \p r puts bytes on: its collectives' and its ungated traffic's.
void
AddLinks(const JobRouting& r, std::set<uint32_t>& links)
{
    for (const auto& [link, share] : r.shares)
    {
        links.insert(link);
    }
    for (const LinkUse& use : r.uses)
    {
        for (const auto& [link, share] : use.shares)
        {
            links.insert(link);
        }
    }
}

} // namespace

std::vector<CruxJob>
EpochScheduler::RankedJobs(bool inUse) const
{
    std::vector<CruxJob> jobs;
    for (const auto& [id, st] : m_state)
    {
        std::set<uint32_t> links;
        if (inUse)
        {
            for (const auto& [link, share] : st.Current().shares)
            {
                links.insert(link);
            }
            if (st.nextRoute >= 0)
            {
                for (const auto& [link, share] : st.routings.at(st.nextRoute).shares)
                {
                    links.insert(link);
                }
            }
        }
        else
        {
            for (const JobRouting& r : st.routings)
            {
                AddLinks(r, links);
            }
        }
        // Smith's rule: GPU time lost per second of communication, the time
        // its ops have bytes on the fabric (not its phase's compute between
        // them), on its current routing.
        const SchedulerJob& job = GetJobs().at(id);
        const double phase = job.commTime.GetSeconds();
        const double scale = phase > 0 ? st.Current().commTime.GetSeconds() / phase : 1.0;
        const double comm = std::max(job.FabricTime().GetSeconds() * scale, 1e-12);
        // Crux's GPU intensity: GPU-seconds of compute per second on the fabric.
        const double weight = m_priorities == PRIORITIES_INTENSITY ? job.GpuSeconds() : st.weight;
        jobs.push_back({id, weight, comm, 1.0, {links.begin(), links.end()}});
    }
    return jobs;
}

void
EpochScheduler::UpdateContention()
{
    // A job that no routing of another job touches is uncontended: moving it
    // frees nothing for anyone.
    std::set<uint32_t> contended;
    for (const CruxEdge& e : CruxContentionDag(RankedJobs(false)))
    {
        contended.insert(e.high);
        contended.insert(e.low);
    }
    nlohmann::json alone = nlohmann::json::array();
    for (auto& [id, st] : m_state)
    {
        st.uncontended = contended.count(id) == 0;
        if (st.uncontended)
        {
            alone.push_back(id);
        }
    }
    Note("uncontended", alone.dump());
    m_classesStale = true;
}

void
EpochScheduler::RankClasses()
{
    m_classesStale = false;
    if (m_priorities == PRIORITIES_PLAN)
    {
        return;
    }
    // Classes order jobs whose collectives' routes in use (current and next)
    // share a link, as Crux ranks jobs over the paths it gave their flows: a
    // job ranked below another only on a routing neither takes would be
    // starved for nothing wherever strict priority meets a link they do share.
    m_rankClass.clear();
    nlohmann::json classes = nlohmann::json::object();
    for (const auto& [id, c] : CruxClasses(RankedJobs(true), 7))
    {
        m_rankClass[id] = static_cast<int16_t>(c);
        classes[std::to_string(id)] = c;
    }
    Note("classes", classes.dump());
}

void
EpochScheduler::TryStart(uint32_t id, bool replanIfLate)
{
    JobState& st = m_state.at(id);
    const Time now = Simulator::Now();
    st.openEvent.Cancel();
    if (LinksFree(id, now))
    {
        Open(id, false);
        return;
    }
    if (!st.plannedStarts.empty() && st.plannedStarts.front() >= now && OnlyHigherClasses(id))
    {
        // Only jobs ranked above it take its links until its planned start,
        // and they leave a good part of each: it would yield to them by class
        // anyway, so holding it back only leaves what they do not use idle.
        // It keeps its planned slot.
        Open(id, true, true);
        return;
    }
    if (!st.plannedStarts.empty() && st.plannedStarts.front() >= now && m_startEarly)
    {
        // Idle links are work the plan did not count on: take what the planned
        // traffic leaves until then (below it with Priorities=plan), and keep
        // the planned slot.
        Open(id, true, true);
        return;
    }
    if (!st.plannedStarts.empty() && st.plannedStarts.front() >= now)
    {
        // Timed so that the gate opens at the planned start.
        st.openEvent = ScheduleDecision(st.plannedStarts.front() - GetControlDelay(),
                                        "planned-start",
                                        id,
                                        [this, id]() {
                                            auto it = m_state.find(id);
                                            if (it != m_state.end() &&
                                                it->second.phase == JobState::Phase::READY)
                                            {
                                                NotePlannedStart(id);
                                            }
                                            Open(id, false);
                                        });
        return;
    }
    // Late, unplanned or deferred, and its links are taken: it runs at once
    // (work conservation) in its class, and the next plan places what
    // follows it.
    Open(id, true);
    if (replanIfLate)
    {
        Replan();
    }
}

void
EpochScheduler::Open(uint32_t id, bool late, bool early)
{
    auto it = m_state.find(id);
    if (it == m_state.end() || it->second.phase != JobState::Phase::READY)
    {
        return;
    }
    OpenInClass(id, late);
    Begin(it->second, late, early, Simulator::Now() + GetControlDelay());
}

void
EpochScheduler::OpenInClass(uint32_t id, bool late)
{
    JobState& st = m_state.at(id);
    const int16_t cls = ClassOf(id, late);
    if (st.cls != cls)
    {
        SetPriorityClass(id, cls); // reaches the NICs before the gate opens
        st.cls = cls;
    }
    OpenGate(id);
}

void
EpochScheduler::Begin(JobState& st, bool late, bool early, Time at)
{
    st.late = late;
    st.early = early;
    st.phase = JobState::Phase::RUNNING;
    st.remaining = st.remaining > 0 ? st.remaining - 1 : 0;
    st.startedAt = at;
    if (early)
    {
        // Its planned start stays in plannedStarts: the others keep off its slot.
    }
    else if (!st.plannedStarts.empty())
    {
        st.plannedStarts.front() = st.startedAt;
    }
    else
    {
        st.plannedStarts.push_back(st.startedAt);
    }
}

void
EpochScheduler::ScheduleArm(uint32_t id)
{
    JobState& st = m_state.at(id);
    const Time at = st.readyAt - GetControlDelay();
    // Not before now: the opening must reach the NICs after the closing that
    // the collective just done sent.
    if (st.remaining == 0 || at < Simulator::Now())
    {
        return;
    }
    st.armEvent = ScheduleDecision(at, "arm", id, [this, id]() {
        JobState& st = m_state.at(id);
        // Its next collective is posted as the gate opens: on links free
        // then it starts without waiting for the round trip of a ready notice.
        if (st.phase != JobState::Phase::COMPUTING || !LinksFree(id, st.readyAt))
        {
            return;
        }
        OpenInClass(id, false);
        st.armed = true;
    });
}

bool
EpochScheduler::OnlyHigherClasses(uint32_t id)
{
    if (!m_yieldByClass || m_priorities == PRIORITIES_PLAN)
    {
        return false;
    }
    if (m_classesStale)
    {
        RankClasses();
    }
    return LinksFree(id, Simulator::Now(), true);
}

int16_t
EpochScheduler::ClassOf(uint32_t id, bool late)
{
    if (m_priorities != PRIORITIES_PLAN)
    {
        if (m_classesStale)
        {
            RankClasses();
        }
        return m_rankClass.at(id);
    }
    return late ? m_lateClass : m_plannedClass;
}

bool
EpochScheduler::TakesShare(bool late) const
{
    // With Priorities=plan a late collective yields to planned ones.
    return !late || m_priorities != PRIORITIES_PLAN;
}

bool
EpochScheduler::LinksFree(uint32_t id, Time from, bool notAbove) const
{
    const JobState& me = m_state.at(id);
    const int16_t myClass = notAbove ? m_rankClass.at(id) : 0;
    const JobRouting& mine = me.Current();
    const Time to = from + mine.commTime;
    // Per link of mine: the shares of the others running or planned there in
    // [from, to); with notAbove, those of higher classes apart.
    std::map<uint32_t, double> load;
    std::map<uint32_t, double> above;
    for (const auto& [other, st] : m_state)
    {
        if (other == id)
        {
            continue;
        }
        auto& into = notAbove && m_rankClass.at(other) > myClass ? above : load;
        auto add = [&](const JobRouting& theirs) {
            for (const auto& [link, share] : theirs.shares)
            {
                if (mine.shares.count(link) > 0)
                {
                    into[link] += share;
                }
            }
        };
        const bool running = st.phase == JobState::Phase::RUNNING;
        // Its collective runs, or (an armed gate) starts as it is posted.
        const bool occupies = (running && TakesShare(st.late)) || st.armed;
        const Time start = running ? st.startedAt : st.readyAt;
        if (occupies && start < to && start + st.Current().commTime > from)
        {
            add(st.Current());
        }
        // Its planned collectives take the route planned for them.
        const JobRouting& next =
            running && st.nextRoute >= 0 ? st.routings[st.nextRoute] : st.Current();
        bool first = true;
        for (Time start : st.plannedStarts)
        {
            if (running && start == st.startedAt)
            {
                first = false;
                continue; // the running one, counted above
            }
            // One started early keeps its planned slot, on its current route.
            const JobRouting& planned = running && st.early && first ? st.Current() : next;
            first = false;
            if (start < to && start + planned.commTime > from)
            {
                add(planned);
                break; // one collective of a job at a time
            }
        }
    }
    for (const auto& [link, share] : mine.shares)
    {
        auto l = load.find(link);
        if (l != load.end() && l->second + share > 1.0 + kShareTolerance)
        {
            return false;
        }
        // Higher classes pre-empt it: worth starting only where they leave
        // a good part of the link (a flow starved outright has its rate cut,
        // and ramps up slowly when its turn comes).
        auto a = above.find(link);
        if (a != above.end() && a->second > 1.0 - kYieldLeftover)
        {
            return false;
        }
    }
    return true;
}

} // namespace ns3
