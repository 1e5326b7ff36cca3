/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_SCHEDULER_H
#define COLLECTIVE_SCHEDULER_H

#include "scheduler-job.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One scheduler decision: a policy handler that acted or explained itself.
 */
struct SchedulerDecision
{
    Time when;              ///< simulation time of the decision
    std::string kind;       ///< the event handled: job-arrived, collective-ready, ...
    int64_t job{-1};        ///< the job the event was about, -1 for none
    std::string detailJson; ///< JSON object: the actions taken and the policy's notes
    double wallUs{0};       ///< wall-clock time the policy spent on it, microseconds
};

/**
 * \ingroup collective-scheduling
 * \brief A change of a job's gate, as it took effect at the job's NICs.
 */
struct GateChange
{
    Time when;
    uint32_t job{0};
    bool open{true};
};

/**
 * \ingroup collective-scheduling
 * \brief What a plan says of a job's next collective (its whole communication
 * phase of one iteration, all buckets).
 */
struct PlannedCollective
{
    Time start;        ///< when the plan opens the job's gate for it
    Time duration;     ///< the time the plan gives it (a planner's grid may round the estimate up)
    int64_t route{-1}; ///< the candidate routing it is planned on, -1 if the policy has none
    Time estimate;     ///< its estimated communication time on that route, unrounded
};

/**
 * \ingroup collective-scheduling
 * \brief One collective of a job as planned and as executed (a row of the
 * `collectives` table). Times are simulation times; a negative time is none.
 */
struct CollectiveRecord
{
    uint32_t job{0};
    uint32_t iteration{0};
    Time ready{-1};    ///< its first bucket was ready to send
    Time start{-1};    ///< executed start: first bucket ready and the job's gate open
    Time finish{-1};   ///< executed finish: its last bucket done
    int64_t route{-1}; ///< the candidate routing its connections used, -1 if the policy has none
    /// The plan in force when the policy opened the job's gate for it; none if it ran unplanned.
    std::optional<PlannedCollective> plan;
};

/**
 * \ingroup collective-scheduling
 * \brief Base class of collective schedulers, pluggable the way QueueDiscs
 * are: a policy subclasses it, gives itself a short name
 * (NS_OBJECT_SHORT_NAME), is found by it or by TypeId name through
 * CollectiveSchedulerHelper, and acts only through the control API below,
 * never on NIC internals.
 *
 * It runs as an Application on a controller node. Each event (job arrived,
 * collective ready, collective done, job done) reaches the policy
 * ControlDelay after it happened, and each control action reaches the NICs
 * ControlDelay after the policy took it (a timed gate change at its time,
 * if that is later). Every handler call that acted or noted something is a
 * decision, recorded with its wall-clock cost; every gate change is
 * recorded when it takes effect.
 *
 * Every collective (a job's communication phase of one iteration) is
 * recorded as executed: its first bucket ready, its start (first bucket ready
 * and the job's gate open) and its finish (last bucket done), at the times
 * they happen at the job, and the route it took (CurrentRoute). A planner
 * reports its plan of a job's next collectives with RecordPlan; the plan
 * in force when the policy opens the job's gate (OpenGate) is the one
 * recorded for the collective that the opening starts.
 */
class CollectiveScheduler : public Application
{
  public:
    static TypeId GetTypeId();
    CollectiveScheduler();
    ~CollectiveScheduler() override;

    /**
     * \return the policy's short name (fair, cassini, ...): the one its class
     * gave itself with NS_OBJECT_SHORT_NAME, else its TypeId name
     */
    virtual std::string GetName() const;

    /**
     * Whether jobs start with their gates closed, so that no packet leaves
     * before the policy has decided (applied by the helper when the job is
     * placed, before its first packet). Default: false.
     */
    virtual bool StartsJobsGated() const;

    /**
     * The congestion control the policy needs on every NIC ("ns3::MltcpDcqcn"
     * for MLTCP), applied before the fabric is built; empty (the default)
     * keeps the fabric's own.
     * \param fabricCc the fabric's own congestion control, in
     *        RoceFabricHelper::SetCongestionControl syntax, whose parameters
     *        (a DCQCN profile, overrides) a policy that changes the
     *        algorithm carries over
     * \throw std::invalid_argument if the policy cannot run on \p fabricCc
     */
    virtual std::string GetCongestionControl(const std::string& fabricCc) const;

    /**
     * Where a job runs, for a job whose spec leaves it to the scheduler
     * (placement "scheduler"): called as the cluster places the job, with
     * what the policy would know of it on each candidate placement
     * (CandidatePlacements, in that order). Default: the first (packed).
     * \return an index into \p candidates
     */
    virtual std::size_t ChoosePlacement(const std::vector<SchedulerJob>& candidates);

    /**
     * The traffic classes the policy may move jobs to with SetPriorityClass
     * (bit c for class c), which CollectiveSchedulerHelper makes lossless in
     * every switch so that PFC keeps protecting the jobs' data. Default: 0,
     * the policy leaves jobs in the class they start in.
     */
    virtual uint8_t GetPriorityClasses() const;

    /// The control plane to act through; not owned, must outlive the scheduler.
    void SetControl(SchedulerControl* control);

    /// \name Events, delivered to the policy after ControlDelay
    /// @{
    void NotifyJobArrived(const SchedulerJob& job);
    void NotifyCollectiveReady(uint32_t job, uint32_t iteration, uint32_t bucket);
    void NotifyCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket);
    void NotifyJobDone(uint32_t job);
    /// @}

    /// Record a gate change made outside the policy (a job placed with its gate closed).
    void RecordGateChange(uint32_t job, bool open);

    Time GetControlDelay() const
    {
        return m_controlDelay;
    }

    const std::vector<SchedulerDecision>& GetDecisions() const
    {
        return m_decisions;
    }

    const std::vector<GateChange>& GetGateChanges() const
    {
        return m_gateChanges;
    }

    /// Every collective that became ready, in that order (see the class description).
    const std::vector<CollectiveRecord>& GetCollectives() const
    {
        return m_collectives;
    }

    /// Count, total and maximum of one named part of the scheduling time, in microseconds.
    struct TimingSummary
    {
        uint64_t count{0};
        double totalUs{0};
        double maxUs{0};
    };

    /// Parts of the scheduling time the policy recorded (RecordTiming), by name.
    const std::map<std::string, TimingSummary>& GetTimings() const
    {
        return m_timings;
    }

    /// The policy's attributes as a JSON object (name -> value text).
    std::string GetParametersJson() const;

    /// Trace signature of a decision.
    typedef void (*DecisionCallback)(const SchedulerDecision& decision);
    /// Trace signature of a gate change.
    typedef void (*GateCallback)(uint32_t job, bool open);
    /// Trace signature of a finished collective's record.
    typedef void (*CollectiveCallback)(const CollectiveRecord& record);
    /// Trace signature of a timing part's summary, as it stands after a new sample.
    typedef void (*TimingCallback)(const std::string& part, const TimingSummary& summary);

  protected:
    void DoDispose() override;

    /// \name Policy handlers (default: do nothing)
    /// @{
    virtual void DoJobArrived(const SchedulerJob& job);
    virtual void DoCollectiveReady(uint32_t job, uint32_t iteration, uint32_t bucket);
    virtual void DoCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket);
    virtual void DoJobDone(uint32_t job);
    /// @}

    /// \name Control API: each action reaches the NICs ControlDelay later
    /// @{
    /// Open job \p job's gate at \p at (or as soon as the command arrives, if later).
    void OpenGate(uint32_t job, Time at = Time(0));
    /// Close job \p job's gate at \p at (or as soon as the command arrives, if later).
    void CloseGate(uint32_t job, Time at = Time(0));
    /// Open job \p job's gate again within the collective it runs (between
    /// its ops, see OpenGate): the plan recorded for the collective stays.
    void ResumeGate(uint32_t job, Time at = Time(0));
    /// Traffic class 0-6 of the job's queue pairs posted after the change arrives (7 is control).
    void SetPriorityClass(uint32_t job, int16_t cls);
    /// Weight of the job's additive rate increase (1 = plain congestion control).
    void SetRateWeight(uint32_t job, double weight);
    /// ECMP path choice: UDP source port of the job's connections from \p src to \p dst.
    void SetSourcePort(uint32_t job, uint32_t src, uint32_t dst, uint16_t port);
    /// @}

    /// \name Plan records: what a planner planned, kept beside what was executed
    /// @{
    /**
     * Add \p plan to the plan of job \p job's next collectives, in order:
     * the first recorded since ClearPlan is the plan of the collective the
     * policy next opens the job's gate for, the second of the one after.
     */
    void RecordPlan(uint32_t job, const PlannedCollective& plan);
    /// Withdraw the plan of job \p job's next collectives (a new plan follows, or none).
    void ClearPlan(uint32_t job);
    /**
     * The candidate routing job \p job's connections use now, recorded as
     * the route a collective took when it starts. Default: -1 (none).
     */
    virtual int64_t CurrentRoute(uint32_t job) const;
    /// @}

    /**
     * Run \p handler at \p at (now if earlier) as a decision of kind \p kind
     * about \p job: a policy's own timers (epoch boundaries, planned starts)
     * act through the control API like event handlers do.
     * \return the event, to cancel it
     */
    EventId ScheduleDecision(Time at,
                             const std::string& kind,
                             int64_t job,
                             std::function<void()> handler);

    /// Add \p us microseconds to the timing part \p part (e.g. "solve", "coordinator").
    void RecordTiming(const std::string& part, double us);

    /// Add a note (a JSON value, as text) to the decision being made.
    void Note(const std::string& key, const std::string& jsonValue);

    /// Jobs placed and not done, by id.
    const std::map<uint32_t, SchedulerJob>& GetJobs() const
    {
        return m_jobs;
    }

    /// Paths and link rates, for policies that reason about links.
    const SchedulerControl& GetControl() const;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Runs \p handler as one decision of kind \p kind about \p job.
    template <typename F>
    void Decide(const char* kind, int64_t job, F handler);
    void DeliverJobArrived(SchedulerJob job);
    void DeliverCollectiveReady(uint32_t job, uint32_t iteration, uint32_t bucket);
    void DeliverCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket);
    void DeliverJobDone(uint32_t job);
    void ApplyGate(uint32_t job, bool open);
    /// Record the start of job \p job's ready collective if its gate is open.
    void MaybeStartCollective(uint32_t job);
    /// When an action taken now reaches the NICs, not before \p at.
    Time Arrival(Time at) const;
    void AddAction(const std::string& actionJson);

    Time m_controlDelay;
    SchedulerControl* m_control{nullptr};
    std::map<uint32_t, SchedulerJob> m_jobs;
    std::vector<SchedulerDecision> m_decisions;
    std::vector<GateChange> m_gateChanges;
    std::map<std::string, TimingSummary> m_timings;

    /// What the collective records need of a job (kept after it is done).
    struct JobRecordState
    {
        uint32_t buckets{1};                    ///< buckets per collective
        bool gateOpen{true};                    ///< its gate, as at its NICs
        std::deque<PlannedCollective> plan;     ///< plan of its next collectives
        std::optional<PlannedCollective> bound; ///< plan in force at the last gate opening
        int64_t current{-1}; ///< m_collectives index of its collective not yet finished
    };

    std::map<uint32_t, JobRecordState> m_recordState;
    std::vector<CollectiveRecord> m_collectives;
    bool m_deciding{false};
    std::string m_actions; ///< JSON array items of the decision being made
    std::string m_notes;   ///< JSON object members of the decision being made

    TracedCallback<const SchedulerDecision&> m_decisionTrace;
    TracedCallback<uint32_t, bool> m_gateTrace;
    TracedCallback<const CollectiveRecord&> m_collectiveTrace;
    TracedCallback<const std::string&, const TimingSummary&> m_timingTrace;
};

} // namespace ns3

#endif /* COLLECTIVE_SCHEDULER_H */
