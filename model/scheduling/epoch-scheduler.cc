/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "epoch-scheduler.h"

#include "epoch-scheduler-internal.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
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

using epoch_detail::IndexOf;
using epoch_detail::SlotsCovering;

TypeId
EpochScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EpochScheduler")
            .SetParent<CollectiveScheduler>()
            .SetGroupName("CollectiveScheduling")
            .AddAttribute("EpochLength",
                          "Time between two plans (a plan is also made on every job arrival "
                          "and departure and every completed collective).",
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
            .AddAttribute("HorizonIterations",
                          "A plan looks ahead at least this many iterations (alone) of the "
                          "longest job, in at most HorizonSlots slots (longer slots than "
                          "SlotLength if it must): an LLM job's iteration of hundreds of "
                          "milliseconds is then planned, not left past a horizon of a few. 0: "
                          "HorizonEpochs x EpochLength of SlotLength slots only.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EpochScheduler::m_horizonIterations),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HorizonSlots",
                          "The most slots a plan's horizon is cut into when HorizonIterations "
                          "makes it longer than HorizonEpochs x EpochLength.",
                          UintegerValue(100),
                          MakeUintegerAccessor(&EpochScheduler::m_horizonSlots),
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
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Preprocess",
                          "Whether the solver preprocesses the MILP (CBC's CglPreProcess): "
                          "off, the plans of whole runs solve several times faster (figure "
                          "3's central MILP, the Lingjun cluster's plans); on pays only on "
                          "large, hard MILPs near the time limit. Modelled solve times do not "
                          "depend on it.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&EpochScheduler::m_preprocess),
                          MakeBooleanChecker())
            .AddAttribute("RouteChoice",
                          "Whether plans choose each collective's route among the candidate "
                          "routings (false: every job keeps its default ECMP paths).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EpochScheduler::m_routeChoice),
                          MakeBooleanChecker())
            .AddAttribute("RandomRoutes",
                          "Randomised candidate routings per job, beside its default ECMP "
                          "paths and the least-loaded assignment.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&EpochScheduler::m_randomRoutes),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("PathProbes",
                          "UDP source ports probed per host pair to find its distinct ECMP paths.",
                          UintegerValue(64),
                          MakeUintegerAccessor(&EpochScheduler::m_pathProbes),
                          MakeUintegerChecker<uint32_t>(1, 0x4000))
            .AddAttribute("SolveTime",
                          "How a plan's solve time is charged in simulated time: modelled from "
                          "the model's size (repeatable), measured (wall clock x "
                          "SolveTimeFactor), or none.",
                          EnumValue(SOLVE_TIME_MODELLED),
                          MakeEnumAccessor(&EpochScheduler::m_solveTimeMode),
                          MakeEnumChecker(SOLVE_TIME_MODELLED,
                                          "modelled",
                                          SOLVE_TIME_MEASURED,
                                          "measured",
                                          SOLVE_TIME_NONE,
                                          "none"))
            .AddAttribute("SolveTimeFactor",
                          "Simulated seconds per measured wall-clock second of a solve "
                          "(SolveTime=measured).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&EpochScheduler::m_solveTimeFactor),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("SolveTimeBase",
                          "Modelled solve time of any MILP: set-up and presolve.",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&EpochScheduler::m_solveTimeBase),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SolveTimePerVariable",
                          "Modelled solve time per MILP variable.",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&EpochScheduler::m_solveTimePerVariable),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SolveTimePerRow",
                          "Modelled solve time per MILP constraint.",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&EpochScheduler::m_solveTimePerRow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Priorities",
                          "What orders collectives that overlap on a link: smith, a traffic "
                          "class per job ranked by weight over estimated communication time "
                          "(classes 0-6); intensity, ranked by GPU intensity as Crux ranks "
                          "jobs (GPU-seconds of compute over the time its ops have bytes on "
                          "the fabric); or plan, planned collectives in PlannedClass above "
                          "the others in LateClass.",
                          EnumValue(PRIORITIES_INTENSITY),
                          MakeEnumAccessor(&EpochScheduler::m_priorities),
                          MakeEnumChecker(PRIORITIES_SMITH,
                                          "smith",
                                          PRIORITIES_INTENSITY,
                                          "intensity",
                                          PRIORITIES_PLAN,
                                          "plan"))
            .AddAttribute("PlannedClass",
                          "Traffic class of collectives started by the plan (or fitting their "
                          "links by share), with Priorities=plan.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&EpochScheduler::m_plannedClass),
                          MakeUintegerChecker<uint8_t>(0, 6))
            .AddAttribute("LateClass",
                          "Traffic class of collectives that run outside the plan (late, "
                          "unplanned or deferred) when their links are taken, with "
                          "Priorities=plan: they start at once and yield to planned traffic; "
                          "must be below PlannedClass.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&EpochScheduler::m_lateClass),
                          MakeUintegerChecker<uint8_t>(0, 6))
            .AddAttribute("StartEarly",
                          "Whether a ready collective whose links are taken until its planned "
                          "start runs at once (in LateClass with Priorities=plan), "
                          "keeping its planned start (false: its gate stays closed until then). "
                          "Off by default: DCQCN cuts a starved flow's rate, which then ramps up "
                          "slowly when its slot comes.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&EpochScheduler::m_startEarly),
                          MakeBooleanChecker())
            .AddAttribute("YieldByClass",
                          "Whether a ready collective whose links are taken until its planned "
                          "start only by jobs in higher traffic classes (Priorities smith or "
                          "intensity), which leave a quarter of each link or more, starts at "
                          "once, keeping its planned slot: it yields to them on every shared "
                          "link anyway (false: its gate stays closed until its planned start).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EpochScheduler::m_yieldByClass),
                          MakeBooleanChecker())
            .AddAttribute("FollowJointRoutes",
                          "Whether, whenever a job arrives or leaves, every job whose gate is "
                          "not armed moves to its joint routing (each connection on the path "
                          "least loaded by the jobs ranked above it, in Crux's order) unless "
                          "that is slower for the job alone; false: a job keeps its route "
                          "until a plan moves it.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EpochScheduler::m_followJoint),
                          MakeBooleanChecker())
            .AddAttribute("OpSegments",
                          "Whether a collective of the instance uses each link in the slots "
                          "its ops use it (SchedulerJob::ops: buckets, pipeline and expert "
                          "traffic, each in its own slots, none in the compute between them, "
                          "the next iteration's traffic before its first planned op "
                          "included); false: its route's share of every link over its whole "
                          "duration, as one communication phase.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EpochScheduler::m_opSegments),
                          MakeBooleanChecker())
            .AddAttribute("OpGates",
                          "Whether a job's gate closes between its planned ops while the next "
                          "one's start alone (from the first one's actual start) is more than "
                          "two control delays away, and reopens then: its ops keep the slots "
                          "the plan gave them, and the compute between them holds none. Off "
                          "by default: the starts alone are the default routes' estimates, and "
                          "a job on faster routes, or whose ops run ahead of them, waits for "
                          "them (the four-job LLM example: 0.84 of fair with it, 0.76 without).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&EpochScheduler::m_opGates),
                          MakeBooleanChecker());
    return tid;
}

EpochScheduler::EpochScheduler() = default;
EpochScheduler::~EpochScheduler() = default;

bool
EpochScheduler::StartsJobsGated() const
{
    return true;
}

uint8_t
EpochScheduler::GetPriorityClasses() const
{
    if (m_priorities != PRIORITIES_PLAN)
    {
        return 0x7f; // classes 0-6; 7 carries control frames
    }
    NS_ABORT_MSG_UNLESS(m_lateClass < m_plannedClass,
                        "EpochScheduler: LateClass ("
                            << +m_lateClass << ") must be below PlannedClass (" << +m_plannedClass
                            << ")");
    return static_cast<uint8_t>((1u << m_plannedClass) | (1u << m_lateClass));
}

void
EpochScheduler::DoDispose()
{
    m_epochEvent.Cancel();
    m_install.Cancel();
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
    o.preprocess = m_preprocess;
    return o;
}

Time
EpochScheduler::SolveTime(uint64_t variables, uint64_t rows, double wallSeconds) const
{
    switch (m_solveTimeMode)
    {
    case SOLVE_TIME_MODELLED:
        return m_solveTimeBase + m_solveTimePerVariable * static_cast<int64_t>(variables) +
               m_solveTimePerRow * static_cast<int64_t>(rows);
    case SOLVE_TIME_MEASURED:
        return Seconds(wallSeconds * m_solveTimeFactor);
    case SOLVE_TIME_NONE:
        break;
    }
    return Time(0);
}

void
EpochScheduler::ChargeSolve(Time t)
{
    m_charged = t;
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
        j["iterations"] = plan.solve.iterations;
        j["slot_factor"] = plan.slotFactor;
    }
    Note(prefix, j.dump());
}

Time
EpochScheduler::PlannedStart(uint32_t /* job */,
                             uint32_t /* index */,
                             int64_t slot,
                             Time origin,
                             Time slotLength) const
{
    return origin + slotLength * slot;
}

void
EpochScheduler::NotePlannedStart(uint32_t /* job */)
{
}

uint32_t
EpochScheduler::RemainingCollectives(uint32_t job) const
{
    auto it = m_state.find(job);
    return it == m_state.end() ? 0 : it->second.remaining;
}

// Events ---------------------------------------------------------------------

void
EpochScheduler::DoJobArrived(const SchedulerJob& job)
{
    JobState st;
    st.computeTime = job.computeTime;
    st.remaining = job.spec.iterations;
    st.weight = job.spec.weight > 0 ? job.spec.weight : job.spec.workers;
    st.buckets = std::max<uint32_t>(1, job.spec.buckets);
    st.readyAt = job.startTime + job.computeTime;
    st.offsets = job.PlannedOffsets();
    st.routings.push_back(DefaultRouting(job, GetControl()));
    if (st.routings[0].shares.empty())
    {
        OpenGate(job.id); // nothing on the fabric: nothing to plan
        return;
    }
    m_state[job.id] = std::move(st);
    UpdateRoutings();
    ScheduleArm(job.id);
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
    JobState& st = it->second;
    st.readyAt = Simulator::Now();
    if (st.armed)
    {
        // Through the gate already open: it started as the notice left.
        st.armed = false;
        Begin(st, false, false, st.readyAt - GetControlDelay());
        return;
    }
    st.phase = JobState::Phase::READY;
    TryStart(job, true);
}

void
EpochScheduler::DoCollectiveDone(uint32_t job, uint32_t /* iteration */, uint32_t bucket)
{
    auto it = m_state.find(job);
    if (it == m_state.end())
    {
        return;
    }
    JobState& st = it->second;
    if (bucket + 1 < st.buckets)
    {
        HoldUntilNextOp(job, bucket + 1);
        return;
    }
    if (bucket + 1 != st.buckets)
    {
        return;
    }
    st.windowEvent.Cancel();
    CloseGate(job);
    st.phase = JobState::Phase::COMPUTING;
    // The notice took a control delay: the compute started that much earlier.
    st.readyAt = Simulator::Now() - GetControlDelay() + st.computeTime;
    ScheduleArm(job);
    if (!st.plannedStarts.empty())
    {
        st.plannedStarts.pop_front(); // the one just done; the next is planned already
    }
    if (st.nextRoute >= 0)
    {
        ApplyRoute(job, static_cast<uint32_t>(st.nextRoute));
        st.nextRoute = -1;
    }
    // Work conservation: a ready job waiting for these links may go now.
    for (auto& [other, os] : m_state)
    {
        if (os.phase == JobState::Phase::READY)
        {
            TryStart(other, false);
        }
    }
    Replan();
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
    it->second.armEvent.Cancel();
    it->second.windowEvent.Cancel();
    m_state.erase(it);
    if (m_state.empty())
    {
        m_epochEvent.Cancel();
        return;
    }
    UpdateRoutings();
    Replan();
}

void
EpochScheduler::HoldUntilNextOp(uint32_t id, uint32_t next)
{
    JobState& st = m_state.at(id);
    if (!m_opGates || st.phase != JobState::Phase::RUNNING || next >= st.offsets.size())
    {
        return;
    }
    const Time now = Simulator::Now();
    const Time at = st.startedAt + st.offsets[next] - st.offsets.front();
    // The closing reaches the NICs a control delay from now, the opening
    // must be sent a control delay before it takes effect: a shorter hold
    // is not worth a round of commands.
    if (at - now <= GetControlDelay() * 2)
    {
        return;
    }
    CloseGate(id);
    st.windowEvent.Cancel();
    st.windowEvent = ScheduleDecision(at - GetControlDelay(), "op-window", id, [this, id]() {
        auto it = m_state.find(id);
        if (it != m_state.end() && it->second.phase == JobState::Phase::RUNNING)
        {
            ResumeGate(id);
        }
    });
}

int64_t
EpochScheduler::CurrentRoute(uint32_t job) const
{
    auto it = m_state.find(job);
    return it == m_state.end() ? -1 : it->second.route;
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
    if (m_install.IsRunning())
    {
        m_dirty = true; // the solver is busy: plan again when it is done
        return;
    }
    Solve();
}

void
EpochScheduler::Solve()
{
    const Time now = Simulator::Now();
    m_dirty = false;
    const std::map<uint32_t, ChainNeed> needs = Needs();
    Coverage cover;
    cover.slot = m_slot;
    Time span = m_epoch * m_horizonEpochs;
    Time longest(0);
    for (const auto& [id, st] : m_state)
    {
        longest = std::max(longest, st.computeTime + st.Current().commTime);
    }
    if (m_horizonIterations > 0 && longest * m_horizonIterations > span)
    {
        span = longest * m_horizonIterations;
        const int64_t step = (span.GetTimeStep() + m_horizonSlots - 1) / m_horizonSlots;
        cover.slot = std::max(m_slot, TimeStep(step));
    }
    cover.horizon = std::max<int64_t>(1, span.GetTimeStep() / cover.slot.GetTimeStep());
    for (const auto& [id, need] : needs)
    {
        cover.chain[id] = std::min(need.remaining, m_lookAhead + 1);
    }
    const Time slot = cover.slot;
    // Per job and collective, the routings its routes 0, 1, ... stand for.
    std::map<uint32_t, PlannedRoutes> routeOf;
    const PlanInstance instance = BuildInstance(
        needs,
        cover,
        [](double w, uint32_t /* k */, uint32_t /* n */) { return w; },
        &routeOf);
    if (instance.jobs.empty())
    {
        return;
    }
    Note("horizon_slots", std::to_string(instance.horizon));
    Note("slot_ns", std::to_string(slot.GetNanoSeconds()));
    m_charged = Time(0);
    const Plan plan = PlanEpoch(instance);
    m_lastSolve = m_charged;
    Note("solve_time_ns", std::to_string(m_charged.GetNanoSeconds()));
    if (m_charged > Time(0))
    {
        m_install = ScheduleDecision(now + m_charged, "plan-ready", -1, [=]() {
            Install(plan, now, cover, routeOf);
            if (m_dirty)
            {
                Replan();
            }
        });
        return;
    }
    Install(plan, now, cover, routeOf);
}

void
EpochScheduler::Install(const Plan& plan,
                        Time madeAt,
                        const Coverage& cover,
                        const std::map<uint32_t, PlannedRoutes>& routeOf)
{
    const Time now = Simulator::Now();
    nlohmann::json starts = nlohmann::json::object();
    nlohmann::json routes = nlohmann::json::object();
    std::vector<uint32_t> installed;
    for (const auto& [id, planned] : routeOf)
    {
        const auto& allowed = planned.allowed;
        auto it = m_state.find(id);
        if (it == m_state.end())
        {
            continue; // done while the plan was being made
        }
        JobState& st = it->second;
        st.plannedStarts.clear();
        ClearPlan(id);
        nlohmann::json js = nlohmann::json::array();
        nlohmann::json jr = nlohmann::json::array();
        for (uint32_t k = 0; k < allowed.size(); ++k)
        {
            const int64_t s = plan.start.at({id, k});
            uint32_t choice = plan.RouteOf(id, k);
            if (s >= cover.horizon)
            {
                // Deferred: no route of it fits the horizon. It takes the
                // joint routing, where the routes of all jobs keep off each
                // other: two jobs colliding on their current routes cannot
                // each gain by moving alone, and would stay put.
                for (uint32_t i = 0; i < allowed[k].size(); ++i)
                {
                    choice = planned.routings.at(allowed[k][i]).joint ? i : choice;
                }
            }
            // The routings may have been recomputed while the plan was made.
            const uint32_t r = IndexOf(st.routings, planned.routings.at(allowed[k].at(choice)));
            js.push_back(s);
            jr.push_back(r);
            // Routes change between collectives: the next one's now if it is
            // not posted yet, the one after it when the coming one ends.
            if (k == 0)
            {
                // A computing job's next collective, the steps not yet posted
                // of a ready one behind its closed gate: the messages posted
                // from now on take it. A running job's next collective, when
                // the running one ends (its plan and record keep their route).
                const int32_t before = st.nextRoute;
                st.nextRoute = -1;
                if (st.phase == JobState::Phase::RUNNING)
                {
                    st.nextRoute = static_cast<int32_t>(r);
                }
                else
                {
                    ApplyRoute(id, r);
                }
                m_classesStale = m_classesStale || st.nextRoute != before;
            }
            else if (k == 1 && st.phase != JobState::Phase::RUNNING)
            {
                m_classesStale = m_classesStale || st.nextRoute != static_cast<int32_t>(r);
                st.nextRoute = static_cast<int32_t>(r);
            }
            if (s >= cover.horizon)
            {
                break; // deferred: re-planned later
            }
            // Planned in the past (the solve took its time): as soon as possible.
            st.plannedStarts.push_back(std::max(PlannedStart(id, k, s, madeAt, cover.slot), now));
            const Time estimate = st.routings[r].commTime;
            RecordPlan(id,
                       {st.plannedStarts.back(),
                        cover.slot * SlotsCovering(estimate, cover.slot, 1),
                        r,
                        estimate});
        }
        starts[std::to_string(id)] = js;
        routes[std::to_string(id)] = jr;
        if (st.phase == JobState::Phase::RUNNING)
        {
            // The plan's first collective is the one after the running one.
            st.plannedStarts.push_front(st.startedAt);
        }
        installed.push_back(id);
    }
    Note("planned_start_slots", starts.dump());
    Note("planned_routes", routes.dump());
    for (uint32_t id : installed)
    {
        if (m_state.at(id).phase == JobState::Phase::READY)
        {
            TryStart(id, false);
        }
    }
}

} // namespace ns3
