/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "epoch-scheduler.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EpochScheduler");
NS_OBJECT_ENSURE_REGISTERED(EpochScheduler);

namespace
{

/// Whole slots of \p slot needed to cover \p t (at least \p atLeast).
int64_t
SlotsCovering(Time t, Time slot, int64_t atLeast)
{
    if (t <= Time(0))
    {
        return atLeast;
    }
    const int64_t n = (t.GetTimeStep() + slot.GetTimeStep() - 1) / slot.GetTimeStep();
    return std::max(n, atLeast);
}

} // namespace

TypeId
EpochScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EpochScheduler")
            .SetParent<CollectiveScheduler>()
            .SetGroupName("CollectiveScheduling")
            .AddAttribute("EpochLength",
                          "Time between two plans (a plan is also made on every job arrival "
                          "and departure).",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&EpochScheduler::m_epoch),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("SlotLength",
                          "Time resolution of a plan.",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&EpochScheduler::m_slot),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("HorizonEpochs",
                          "Epochs a plan looks ahead.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&EpochScheduler::m_horizonEpochs),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("LookAhead",
                          "Predicted iterations of every job planned behind its next one.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&EpochScheduler::m_lookAhead),
                          MakeUintegerChecker<uint32_t>(0, 16))
            .AddAttribute("TimeLimit",
                          "Wall-clock limit of one solve (0: none).",
                          TimeValue(Seconds(10)),
                          MakeTimeAccessor(&EpochScheduler::m_timeLimit),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RelativeGap",
                          "Relative optimality gap at which a solve stops.",
                          DoubleValue(1e-3),
                          MakeDoubleAccessor(&EpochScheduler::m_gap),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Threads",
                          "Solver threads (results stay repeatable only with 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&EpochScheduler::m_threads),
                          MakeUintegerChecker<uint32_t>(1, 64));
    return tid;
}

EpochScheduler::EpochScheduler() = default;
EpochScheduler::~EpochScheduler() = default;

bool
EpochScheduler::StartsJobsGated() const
{
    return true;
}

void
EpochScheduler::DoDispose()
{
    m_epochEvent.Cancel();
    for (auto& [id, st] : m_state)
    {
        st.openEvent.Cancel();
    }
    m_state.clear();
    CollectiveScheduler::DoDispose();
}

MilpSolveOptions
EpochScheduler::GetSolveOptions() const
{
    MilpSolveOptions o;
    o.timeLimitSeconds = m_timeLimit.GetSeconds();
    o.relativeGap = m_gap;
    o.threads = m_threads;
    return o;
}

void
EpochScheduler::NotePlan(const std::string& prefix, const Plan& plan)
{
    nlohmann::json j = {{"method", plan.method},
                        {"objective", plan.objective},
                        {"proven", plan.proven}};
    if (plan.method == "milp" || plan.solve.variables > 0)
    {
        j["status"] = ToString(plan.solve.status);
        j["bound"] =
            std::isnan(plan.solve.bound) ? nlohmann::json() : nlohmann::json(plan.solve.bound);
        j["solve_wall_us"] = plan.solve.wallSeconds * 1e6;
        j["variables"] = plan.solve.variables;
        j["constraints"] = plan.solve.constraints;
        j["nodes"] = plan.solve.nodes;
    }
    Note(prefix, j.dump());
}

// Events ---------------------------------------------------------------------

void
EpochScheduler::DoJobArrived(const SchedulerJob& job)
{
    JobState st;
    st.shares = LinkShares(job, GetControl());
    st.commTime = job.commTime;
    st.computeTime = job.computeTime;
    st.durationSlots = SlotsCovering(job.commTime, m_slot, 1);
    st.computeSlots = SlotsCovering(job.computeTime, m_slot, 0);
    st.weight = job.spec.weight > 0 ? job.spec.weight : job.spec.workers;
    st.buckets = std::max<uint32_t>(1, job.spec.buckets);
    st.readyAt = job.startTime + job.computeTime;
    m_state[job.id] = st;
    if (st.shares.empty())
    {
        OpenGate(job.id); // nothing on the fabric: nothing to plan
        m_state.erase(job.id);
        return;
    }
    if (!m_epochEvent.IsRunning())
    {
        m_epochEvent = Simulator::Schedule(m_epoch, &EpochScheduler::EpochTick, this);
    }
    Replan();
}

void
EpochScheduler::DoCollectiveReady(uint32_t job, uint32_t /* iteration */, uint32_t bucket)
{
    auto it = m_state.find(job);
    if (it == m_state.end() || bucket != 0)
    {
        return; // not planned (no fabric traffic), or a later bucket through the open gate
    }
    it->second.phase = JobState::Phase::READY;
    it->second.readyAt = Simulator::Now();
    TryStart(job);
}

void
EpochScheduler::DoCollectiveDone(uint32_t job, uint32_t /* iteration */, uint32_t bucket)
{
    auto it = m_state.find(job);
    if (it == m_state.end() || bucket + 1 != it->second.buckets)
    {
        return;
    }
    JobState& st = it->second;
    CloseGate(job);
    st.phase = JobState::Phase::COMPUTING;
    st.readyAt = Simulator::Now() + st.computeTime;
    if (!st.plannedStarts.empty())
    {
        st.plannedStarts.pop_front(); // the one just done; the next is planned already
    }
    // Work conservation: a ready job waiting for these links may go now.
    for (auto& [other, os] : m_state)
    {
        if (os.phase == JobState::Phase::READY)
        {
            TryStart(other);
        }
    }
}

void
EpochScheduler::DoJobDone(uint32_t job)
{
    auto it = m_state.find(job);
    if (it == m_state.end())
    {
        return;
    }
    it->second.openEvent.Cancel();
    m_state.erase(it);
    if (m_state.empty())
    {
        m_epochEvent.Cancel();
        return;
    }
    Replan();
}

void
EpochScheduler::EpochTick()
{
    if (m_state.empty())
    {
        return;
    }
    ScheduleDecision(Simulator::Now(), "epoch", -1, [this]() { Replan(); });
    m_epochEvent = Simulator::Schedule(m_epoch, &EpochScheduler::EpochTick, this);
}

// Planning -------------------------------------------------------------------

void
EpochScheduler::Replan()
{
    const Time now = Simulator::Now();
    PlanInstance instance;
    instance.horizon =
        std::max<int64_t>(1, m_epoch.GetTimeStep() * m_horizonEpochs / m_slot.GetTimeStep());
    std::vector<uint32_t> planned; // jobs with a chain in the instance
    for (auto& [id, st] : m_state)
    {
        PlanJob pj;
        pj.id = id;
        pj.computeSlots = st.computeSlots;
        int64_t ready = 0;
        if (st.phase == JobState::Phase::RUNNING)
        {
            // Its links are taken until its expected end (at least one slot if overdue).
            const int64_t left = SlotsCovering(st.startedAt + st.commTime - now, m_slot, 1);
            for (const auto& [link, share] : st.shares)
            {
                auto& r = instance.reserved[link];
                r.resize(instance.horizon, 0.0);
                for (int64_t t = 0; t < std::min(left, instance.horizon); ++t)
                {
                    r[t] = std::min(1.0, r[t] + share);
                }
            }
            ready = left + st.computeSlots;
        }
        else if (st.phase == JobState::Phase::COMPUTING)
        {
            ready = SlotsCovering(st.readyAt - now, m_slot, 0);
        }
        for (uint32_t k = 0; k <= m_lookAhead; ++k)
        {
            PlanCollective c;
            c.readySlot = k == 0 ? std::min(ready, instance.horizon) : 0;
            c.duration = st.durationSlots;
            c.weight = st.weight;
            c.usage = st.shares;
            pj.collectives.push_back(c);
        }
        instance.jobs.push_back(pj);
        planned.push_back(id);
    }
    if (instance.jobs.empty())
    {
        return;
    }
    Note("horizon_slots", std::to_string(instance.horizon));
    Note("slot_ns", std::to_string(m_slot.GetNanoSeconds()));
    const Plan plan = PlanEpoch(instance);

    nlohmann::json starts = nlohmann::json::object();
    for (uint32_t id : planned)
    {
        JobState& st = m_state.at(id);
        st.plannedStarts.clear();
        nlohmann::json js = nlohmann::json::array();
        for (uint32_t k = 0; k <= m_lookAhead; ++k)
        {
            const int64_t s = plan.start.at({id, k});
            js.push_back(s);
            if (s >= instance.horizon)
            {
                break; // deferred: re-planned at a later epoch
            }
            st.plannedStarts.push_back(now + m_slot * s);
        }
        starts[std::to_string(id)] = js;
        if (st.phase == JobState::Phase::RUNNING)
        {
            // The plan's first collective is the one after the running one.
            st.plannedStarts.push_front(st.startedAt);
        }
    }
    Note("planned_start_slots", starts.dump());
    for (uint32_t id : planned)
    {
        if (m_state.at(id).phase == JobState::Phase::READY)
        {
            TryStart(id);
        }
    }
}

void
EpochScheduler::TryStart(uint32_t id)
{
    JobState& st = m_state.at(id);
    const Time now = Simulator::Now();
    st.openEvent.Cancel();
    if (LinksIdle(id, now))
    {
        Open(id);
        return;
    }
    if (!st.plannedStarts.empty() && st.plannedStarts.front() >= now)
    {
        // Timed so that the gate opens at the planned start.
        st.openEvent = ScheduleDecision(st.plannedStarts.front() - GetControlDelay(),
                                        "planned-start",
                                        id,
                                        [this, id]() { Open(id); });
    }
    // Otherwise late and its links are busy: the next epoch re-plans it.
}

void
EpochScheduler::Open(uint32_t id)
{
    auto it = m_state.find(id);
    if (it == m_state.end() || it->second.phase != JobState::Phase::READY)
    {
        return;
    }
    JobState& st = it->second;
    OpenGate(id);
    st.phase = JobState::Phase::RUNNING;
    st.startedAt = Simulator::Now() + GetControlDelay();
    if (!st.plannedStarts.empty())
    {
        st.plannedStarts.front() = st.startedAt;
    }
    else
    {
        st.plannedStarts.push_back(st.startedAt);
    }
}

bool
EpochScheduler::LinksIdle(uint32_t id, Time from) const
{
    const JobState& me = m_state.at(id);
    const Time to = from + me.commTime;
    for (const auto& [other, st] : m_state)
    {
        if (other == id)
        {
            continue;
        }
        const bool shares = std::any_of(st.shares.begin(), st.shares.end(), [&](const auto& kv) {
            return me.shares.count(kv.first) > 0;
        });
        if (!shares)
        {
            continue;
        }
        if (st.phase == JobState::Phase::RUNNING && st.startedAt + st.commTime > from)
        {
            return false;
        }
        for (Time start : st.plannedStarts)
        {
            if (st.phase == JobState::Phase::RUNNING && start == st.startedAt)
            {
                continue; // the running one, checked above
            }
            if (start < to && start + st.commTime > from)
            {
                return false;
            }
        }
    }
    return true;
}

} // namespace ns3
