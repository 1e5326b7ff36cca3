/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-scheduler.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/short-name-registry.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveScheduler");

Time
SchedulerJob::FabricTime() const
{
    std::vector<std::pair<Time, Time>> spans;
    for (const SchedulerOp& op : ops)
    {
        if (!op.flowBytes.empty() || !op.linkBytes.empty())
        {
            spans.emplace_back(op.start, op.start + op.duration);
        }
    }
    if (spans.empty())
    {
        return commTime;
    }
    std::sort(spans.begin(), spans.end());
    Time total(0);
    Time covered = spans.front().first;
    for (const auto& [b, e] : spans)
    {
        const Time from = std::max(b, covered);
        if (e > from)
        {
            total += e - from;
            covered = e;
        }
    }
    return total;
}

std::map<uint32_t, double>
LinkShares(const SchedulerJob& job, const SchedulerControl& control)
{
    std::map<uint32_t, double> busySeconds;
    for (const auto& f : job.flows)
    {
        for (uint32_t link : f.path)
        {
            const double rate = static_cast<double>(control.GetLinkRateBps(link));
            busySeconds[link] += rate > 0 ? 8.0 * static_cast<double>(f.bytes) / rate : 0.0;
        }
    }
    std::map<uint32_t, double> shares;
    const double commSeconds = job.commTime.GetSeconds();
    for (const auto& [link, busy] : busySeconds)
    {
        if (busy > 0)
        {
            shares[link] = commSeconds > 0 ? std::min(1.0, busy / commSeconds) : 1.0;
        }
    }
    return shares;
}

NS_OBJECT_ENSURE_REGISTERED(CollectiveScheduler);

TypeId
CollectiveScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveScheduler")
            .SetParent<Application>()
            .SetGroupName("CollectiveScheduling")
            .AddAttribute("ControlDelay",
                          "One-way control-plane delay: from an event to the scheduler, and "
                          "from a decision to the NICs.",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&CollectiveScheduler::m_controlDelay),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Decision",
                            "A policy handler acted or noted something.",
                            MakeTraceSourceAccessor(&CollectiveScheduler::m_decisionTrace),
                            "ns3::CollectiveScheduler::DecisionCallback")
            .AddTraceSource("GateChange",
                            "A job's gate changed at its NICs.",
                            MakeTraceSourceAccessor(&CollectiveScheduler::m_gateTrace),
                            "ns3::CollectiveScheduler::GateCallback")
            .AddTraceSource("Collective",
                            "A job's collective finished: its record, planned and executed.",
                            MakeTraceSourceAccessor(&CollectiveScheduler::m_collectiveTrace),
                            "ns3::CollectiveScheduler::CollectiveCallback")
            .AddTraceSource("Timing",
                            "A part of the scheduling time got a sample: the part and its "
                            "summary so far.",
                            MakeTraceSourceAccessor(&CollectiveScheduler::m_timingTrace),
                            "ns3::CollectiveScheduler::TimingCallback");
    return tid;
}

CollectiveScheduler::CollectiveScheduler() = default;
CollectiveScheduler::~CollectiveScheduler() = default;

std::string
CollectiveScheduler::GetName() const
{
    const std::string name = ShortNameRegistry::Get(GetInstanceTypeId());
    return name.empty() ? GetInstanceTypeId().GetName() : name;
}

bool
CollectiveScheduler::StartsJobsGated() const
{
    return false;
}

std::string
CollectiveScheduler::GetCongestionControl(const std::string& /* fabricCc */) const
{
    return "";
}

std::size_t
CollectiveScheduler::ChoosePlacement(const std::vector<SchedulerJob>& /* candidates */)
{
    return 0;
}

uint8_t
CollectiveScheduler::GetPriorityClasses() const
{
    return 0;
}

void
CollectiveScheduler::SetControl(SchedulerControl* control)
{
    m_control = control;
}

const SchedulerControl&
CollectiveScheduler::GetControl() const
{
    NS_ABORT_MSG_UNLESS(m_control, "CollectiveScheduler has no control plane");
    return *m_control;
}

void
CollectiveScheduler::DoDispose()
{
    m_control = nullptr;
    m_jobs.clear();
    Application::DoDispose();
}

void
CollectiveScheduler::StartApplication()
{
}

void
CollectiveScheduler::StopApplication()
{
}

std::string
CollectiveScheduler::GetParametersJson() const
{
    nlohmann::json params = nlohmann::json::object();
    for (TypeId tid = GetInstanceTypeId(); tid != Application::GetTypeId(); tid = tid.GetParent())
    {
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation& info = tid.GetAttribute(i);
            if (info.checker->GetValueTypeName() == "ns3::TimeValue")
            {
                // "2us" rather than the picosecond count a TimeValue prints.
                TimeValue t;
                GetAttribute(info.name, t);
                std::ostringstream os;
                os << t.Get().As(Time::AUTO);
                std::string text = os.str();
                params[info.name] = text.rfind('+', 0) == 0 ? text.substr(1) : text;
                continue;
            }
            StringValue v;
            GetAttribute(info.name, v);
            params[info.name] = v.Get();
        }
    }
    return params.dump();
}

// Events -------------------------------------------------------------------

void
CollectiveScheduler::NotifyJobArrived(const SchedulerJob& job)
{
    m_recordState[job.id].buckets = std::max<uint32_t>(1, job.spec.buckets);
    Simulator::Schedule(m_controlDelay, &CollectiveScheduler::DeliverJobArrived, this, job);
}

void
CollectiveScheduler::NotifyCollectiveReady(uint32_t job, uint32_t iteration, uint32_t bucket)
{
    if (bucket == 0)
    {
        // Recorded as it happens at the job, not as the policy hears of it.
        JobRecordState& rs = m_recordState[job];
        CollectiveRecord r;
        r.job = job;
        r.iteration = iteration;
        r.ready = Simulator::Now();
        m_collectives.push_back(r);
        rs.current = static_cast<int64_t>(m_collectives.size() - 1);
        MaybeStartCollective(job);
    }
    Simulator::Schedule(m_controlDelay,
                        &CollectiveScheduler::DeliverCollectiveReady,
                        this,
                        job,
                        iteration,
                        bucket);
}

void
CollectiveScheduler::NotifyCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket)
{
    auto rs = m_recordState.find(job);
    if (rs != m_recordState.end() && rs->second.current >= 0 && bucket + 1 == rs->second.buckets)
    {
        CollectiveRecord& r = m_collectives[rs->second.current];
        if (r.iteration == iteration)
        {
            r.finish = Simulator::Now();
            rs->second.current = -1;
            m_collectiveTrace(r);
        }
    }
    Simulator::Schedule(m_controlDelay,
                        &CollectiveScheduler::DeliverCollectiveDone,
                        this,
                        job,
                        iteration,
                        bucket);
}

void
CollectiveScheduler::NotifyJobDone(uint32_t job)
{
    Simulator::Schedule(m_controlDelay, &CollectiveScheduler::DeliverJobDone, this, job);
}

template <typename F>
void
CollectiveScheduler::Decide(const char* kind, int64_t job, F handler)
{
    m_deciding = true;
    m_actions.clear();
    m_notes.clear();
    const auto begin = std::chrono::steady_clock::now();
    handler();
    const auto end = std::chrono::steady_clock::now();
    m_deciding = false;
    if (m_actions.empty() && m_notes.empty())
    {
        return;
    }
    SchedulerDecision d;
    d.when = Simulator::Now();
    d.kind = kind;
    d.job = job;
    d.detailJson = "{\"actions\":[" + m_actions + "]" + m_notes + "}";
    d.wallUs = std::chrono::duration<double, std::micro>(end - begin).count();
    m_decisions.push_back(d);
    m_decisionTrace(m_decisions.back());
}

EventId
CollectiveScheduler::ScheduleDecision(Time at,
                                      const std::string& kind,
                                      int64_t job,
                                      std::function<void()> handler)
{
    const Time delay = std::max(at, Simulator::Now()) - Simulator::Now();
    return Simulator::Schedule(delay, [this, kind, job, handler]() {
        Decide(kind.c_str(), job, handler);
    });
}

void
CollectiveScheduler::DeliverJobArrived(SchedulerJob job)
{
    const uint32_t id = job.id;
    auto it = m_jobs.insert_or_assign(id, std::move(job)).first;
    Decide("job-arrived", id, [this, it]() { DoJobArrived(it->second); });
}

void
CollectiveScheduler::DeliverCollectiveReady(uint32_t job, uint32_t iteration, uint32_t bucket)
{
    Decide("collective-ready", job, [=]() { DoCollectiveReady(job, iteration, bucket); });
}

void
CollectiveScheduler::DeliverCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket)
{
    Decide("collective-done", job, [=]() { DoCollectiveDone(job, iteration, bucket); });
}

void
CollectiveScheduler::DeliverJobDone(uint32_t job)
{
    Decide("job-done", job, [=]() { DoJobDone(job); });
    m_jobs.erase(job);
}

void
CollectiveScheduler::DoJobArrived(const SchedulerJob& /* job */)
{
}

void
CollectiveScheduler::DoCollectiveReady(uint32_t /* job */,
                                       uint32_t /* iteration */,
                                       uint32_t /* bucket */)
{
}

void
CollectiveScheduler::DoCollectiveDone(uint32_t /* job */,
                                      uint32_t /* iteration */,
                                      uint32_t /* bucket */)
{
}

void
CollectiveScheduler::DoJobDone(uint32_t /* job */)
{
}

// Control API ----------------------------------------------------------------

Time
CollectiveScheduler::Arrival(Time at) const
{
    return std::max(at, Simulator::Now() + m_controlDelay);
}

void
CollectiveScheduler::AddAction(const std::string& actionJson)
{
    NS_ABORT_MSG_UNLESS(m_deciding, "control actions are taken from a policy handler");
    if (!m_actions.empty())
    {
        m_actions += ",";
    }
    m_actions += actionJson;
}

void
CollectiveScheduler::RecordTiming(const std::string& part, double us)
{
    TimingSummary& t = m_timings[part];
    ++t.count;
    t.totalUs += us;
    t.maxUs = std::max(t.maxUs, us);
    m_timingTrace(part, t);
}

void
CollectiveScheduler::Note(const std::string& key, const std::string& jsonValue)
{
    NS_ABORT_MSG_UNLESS(m_deciding, "notes belong to a decision");
    m_notes += "," + nlohmann::json(key).dump() + ":" + jsonValue;
}

void
CollectiveScheduler::RecordPlan(uint32_t job, const PlannedCollective& plan)
{
    m_recordState[job].plan.push_back(plan);
}

void
CollectiveScheduler::ClearPlan(uint32_t job)
{
    m_recordState[job].plan.clear();
}

int64_t
CollectiveScheduler::CurrentRoute(uint32_t /* job */) const
{
    return -1;
}

void
CollectiveScheduler::MaybeStartCollective(uint32_t job)
{
    JobRecordState& rs = m_recordState[job];
    if (!rs.gateOpen || rs.current < 0)
    {
        return;
    }
    CollectiveRecord& r = m_collectives[rs.current];
    if (r.start >= Time(0))
    {
        return; // started already (a gate reopened in the middle of it)
    }
    r.start = Simulator::Now();
    r.route = CurrentRoute(job);
    r.plan = rs.bound;
    rs.bound.reset();
}

void
CollectiveScheduler::OpenGate(uint32_t job, Time at)
{
    const Time when = Arrival(at);
    // The plan in force as the policy starts the job's next collective goes
    // with it (a plan made after this belongs to the collective after it).
    JobRecordState& rs = m_recordState[job];
    if (!rs.plan.empty())
    {
        rs.bound = rs.plan.front();
        rs.plan.pop_front();
    }
    AddAction(
        nlohmann::json{{"gate", "open"}, {"job", job}, {"at_ns", when.GetNanoSeconds()}}.dump());
    Simulator::Schedule(when - Simulator::Now(), &CollectiveScheduler::ApplyGate, this, job, true);
}

void
CollectiveScheduler::ResumeGate(uint32_t job, Time at)
{
    const Time when = Arrival(at);
    AddAction(
        nlohmann::json{{"gate", "resume"}, {"job", job}, {"at_ns", when.GetNanoSeconds()}}.dump());
    Simulator::Schedule(when - Simulator::Now(), &CollectiveScheduler::ApplyGate, this, job, true);
}

void
CollectiveScheduler::CloseGate(uint32_t job, Time at)
{
    const Time when = Arrival(at);
    AddAction(
        nlohmann::json{{"gate", "close"}, {"job", job}, {"at_ns", when.GetNanoSeconds()}}.dump());
    Simulator::Schedule(when - Simulator::Now(), &CollectiveScheduler::ApplyGate, this, job, false);
}

void
CollectiveScheduler::ApplyGate(uint32_t job, bool open)
{
    NS_ABORT_MSG_UNLESS(m_control, "CollectiveScheduler has no control plane");
    m_control->SetGate(job, open);
    RecordGateChange(job, open);
}

void
CollectiveScheduler::RecordGateChange(uint32_t job, bool open)
{
    m_gateChanges.push_back(GateChange{Simulator::Now(), job, open});
    m_gateTrace(job, open);
    m_recordState[job].gateOpen = open;
    if (open)
    {
        MaybeStartCollective(job);
    }
}

void
CollectiveScheduler::SetPriorityClass(uint32_t job, int16_t cls)
{
    NS_ABORT_MSG_UNLESS(cls >= -1 && cls <= 6, "priority class must be 0-6 (or -1)");
    AddAction(nlohmann::json{{"priority_class", cls}, {"job", job}}.dump());
    Simulator::Schedule(m_controlDelay,
                        [this, job, cls]() { m_control->SetPriorityClass(job, cls); });
}

void
CollectiveScheduler::SetRateWeight(uint32_t job, double weight)
{
    NS_ABORT_MSG_UNLESS(weight > 0, "rate weight must be positive");
    AddAction(nlohmann::json{{"rate_weight", weight}, {"job", job}}.dump());
    Simulator::Schedule(m_controlDelay,
                        [this, job, weight]() { m_control->SetRateWeight(job, weight); });
}

void
CollectiveScheduler::SetSourcePort(uint32_t job, uint32_t src, uint32_t dst, uint16_t port)
{
    AddAction(
        nlohmann::json{{"source_port", port}, {"job", job}, {"src", src}, {"dst", dst}}.dump());
    Simulator::Schedule(m_controlDelay, [this, job, src, dst, port]() {
        m_control->SetSourcePort(job, src, dst, port);
    });
}

} // namespace ns3
