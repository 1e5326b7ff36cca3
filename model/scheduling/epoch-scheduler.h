/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EPOCH_SCHEDULER_H
#define EPOCH_SCHEDULER_H

#include "collective-scheduler.h"
#include "crux-priorities.h"
#include "epoch-plan.h"
#include "route-candidates.h"

#include "ns3/event-id.h"

#include <deque>
#include <functional>
#include <map>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Base of the epoch-based planners (Symphony, Optimal, Harmonics):
 * at every epoch boundary, on every job arrival and departure and on every
 * completed collective it builds the space-time instance (PlanInstance) of
 * the jobs' next collectives, has the subclass plan it, and, once the plan
 * is computed, sets each job's route and opens its gate at its planned start.
 *
 * Routes: every job has candidate routings (CandidateRoutings: its default
 * ECMP paths, the least-loaded assignment of all jobs, RandomRoutes random
 * ones), recomputed when jobs arrive or leave; each collective of the
 * instance may take any of them, except the collective of a job whose gate
 * opened ahead of it (armed). A route takes effect on the messages a job
 * posts after it reaches the NICs (a NIC reads a job's port per message).
 * A plan changes a route only while the job's gate is closed: at once for a
 * computing job, or a ready one (the steps of its collective not yet posted
 * take it), when the running collective is done for a communicating one
 * (SetSourcePort on every group of connections that changes). Between plans
 * (FollowJointRoutes), whenever a job arrives or leaves, every job whose
 * gate is not armed moves to its joint routing unless that is slower for it
 * alone, communicating or not, as Crux moves every job's paths: an LLM job's
 * first collective is ready as it starts and can last its whole iteration,
 * and its ungated traffic is on the links all the time.
 *
 * The instance, at time now: slots of SlotLength from now, HorizonEpochs x
 * EpochLength long, or HorizonIterations iterations of the longest job (in
 * at most HorizonSlots slots, longer ones if it must) if that is longer. Each job's communication
 * phase of an iteration (all its buckets) is one collective, of duration its estimated
 * communication time on the route (rounded up to slots), weight its worker count (the job's weight
 * if set: GPU time lost waiting) and usage its share of every directed link the route crosses. A
 * job whose collective is ready has it at slot 0; a computing job's is ready when its compute ends
 * (predicted); a communicating job's links are reserved until its expected end, and its next
 * collective follows its compute. LookAhead more iterations of every job are chained behind (next
 * ready = previous end + compute).
 *
 * Solve time is simulated time: a plan takes effect SolveTime after the
 * planning started (modelled from the model's size by default, so reruns
 * stay bit-identical; or the measured wall time x SolveTimeFactor). One
 * solve runs at a time; events during it are planned by the next solve,
 * which starts when it ends.
 *
 * Gates: jobs start gated; a job's gate opens at the planned start of its
 * ready collective and closes when its last bucket is done. A computing
 * job's gate opens ahead, a control delay before its collective is
 * predicted to be ready (compute time is known), when the collective will
 * fit its links then: it starts as it is posted, without the round trip
 * of a ready notice. Work
 * conservation: a ready collective starts at once, before its planned start
 * or after it (a late job), when on each of its links its share plus the
 * shares of the other jobs running or planned there during its duration fit
 * the link. A late, unplanned or deferred collective that does not fit
 * starts at once all the same.
 *
 * Priorities (what decides where collectives overlap that the plan did not
 * foresee: late or unplanned ones, estimates that were short, and the
 * traffic no gate holds). By default (Priorities=intensity) every job gets
 * a traffic class by its rank of GPU intensity, as Crux ranks jobs:
 * GPU-seconds of compute per second its ops have bytes on the fabric, so
 * the job whose compute waits most on each second of its traffic goes
 * first. With Priorities=smith the rank is Smith's rule, weight over that
 * time: the preemptive form of the plans' objective (weighted completion),
 * which serves data-parallel jobs as well (figures 1 and 3 within 1%) but
 * puts LLM jobs of long traffic last, whatever their compute (figure 6 at
 * 10% size: 0.91 of fair against 0.81). The ranks are compressed to the
 * seven data classes as Crux compresses its priorities (CruxClasses, over
 * the links of the routes the jobs' collectives use now and next); every
 * running collective takes its share in the plans. A ready collective whose
 * links only higher classes take until its planned start, leaving a quarter
 * of each or more, starts at once below them (YieldByClass). With Priorities=plan, planned
 * collectives run in PlannedClass and the others in LateClass below it, taking what the planned
 * ones leave and no share in the plans. Either way the NICs move a job's not yet sent queue pairs
 * to its new class.
 *
 * A job that shares no link with any other job in any of their candidate
 * routings (their planned traffic or any other op's) keeps its current route
 * for its next collective (the plans may still route the ones after it):
 * moving it frees no link for anyone. Unless one of its routings is faster
 * for itself (ECMP put two of its own rings on one link): the plans then
 * choose among them too.
 */
class EpochScheduler : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId();
    EpochScheduler();
    ~EpochScheduler() override;

    bool StartsJobsGated() const override;
    uint8_t GetPriorityClasses() const override;

    /// How a plan's solve time is charged in simulated time.
    enum SolveTimeMode
    {
        SOLVE_TIME_MODELLED, ///< SolveTimeBase + SolveTimePerVariable x variables + SolveTimePerRow
                             ///< x rows
        SOLVE_TIME_MEASURED, ///< the solve's wall-clock time x SolveTimeFactor
        SOLVE_TIME_NONE,     ///< plans take effect at once
    };

    /// What orders collectives that overlap on a link.
    enum Priorities
    {
        PRIORITIES_SMITH,     ///< classes by rank of weight over communication time
        PRIORITIES_INTENSITY, ///< classes by rank of GPU intensity (Crux's order)
        PRIORITIES_PLAN,      ///< planned collectives above the others (PlannedClass, LateClass)
    };

  protected:
    /**
     * Plan \p instance (built as described above); record how in notes, and
     * charge the solve with ChargeSolve.
     * \return a plan that passes CheckPlan
     */
    virtual Plan PlanEpoch(const PlanInstance& instance) = 0;

    /// The solver options from the attributes (time limit, gap, threads, seed).
    MilpSolveOptions GetSolveOptions() const;

    /**
     * The simulated time a solve of an MILP with \p variables variables and
     * \p rows constraints that took \p wallSeconds costs, by the SolveTime mode.
     */
    Time SolveTime(uint64_t variables, uint64_t rows, double wallSeconds) const;

    /// Charge \p t to the plan being made: it takes effect \p t after it started.
    void ChargeSolve(Time t);

    /// Notes common to every planner: the plan's method, objective and solver statistics.
    void NotePlan(const std::string& prefix, const Plan& plan);

    /// What an instance covers.
    struct Coverage
    {
        Time slot;                          ///< slot length
        int64_t horizon{1};                 ///< slots
        std::map<uint32_t, uint32_t> chain; ///< job -> collectives planned (its next one first)
    };

    /// A job as the coverage sees it: its remaining collectives and their time alone.
    struct ChainNeed
    {
        uint32_t remaining{0}; ///< collectives it has still to start (not the running one)
        Time commTime;         ///< per collective on its current route
        Time startTime;        ///< when the job started
        Time computeTime;      ///< per iteration
        Time readyIn;          ///< until its next collective can start
    };

    /// The routings a plan's routes stand for, as they were when it was made.
    struct PlannedRoutes
    {
        std::vector<JobRouting> routings;           ///< the job's routings then
        std::vector<std::vector<uint32_t>> allowed; ///< per collective: route -> routing
    };

    /// Weight of collective k of a chain of n of a job of weight w: f(w, k, n).
    using CollectiveWeightFn = std::function<double(double, uint32_t, uint32_t)>;

    /// What every planned job needs now.
    std::map<uint32_t, ChainNeed> Needs() const;

    /**
     * The instance of the jobs now (as described above) over \p cover, each
     * collective weighing \p weight. \p routeOf, if given, receives the
     * routings each collective's routes stand for.
     */
    PlanInstance BuildInstance(const std::map<uint32_t, ChainNeed>& needs,
                               const Coverage& cover,
                               const CollectiveWeightFn& weight,
                               std::map<uint32_t, PlannedRoutes>* routeOf = nullptr) const;

    /**
     * When the plan made at \p origin starts collective \p index of job
     * \p job, which it puts at slot \p slot of \p slotLength (< horizon).
     * Default: origin + slot x slotLength; a planner that keeps starts of an
     * earlier plan, off this plan's slot grid, gives them back exactly.
     */
    virtual Time PlannedStart(uint32_t job,
                              uint32_t index,
                              int64_t slot,
                              Time origin,
                              Time slotLength) const;

    /// Add notes to the decision that opens job \p job's gate at its planned start (default: none).
    virtual void NotePlannedStart(uint32_t job);

    /// Collectives job \p job has still to start (0 for a job not planned).
    uint32_t RemainingCollectives(uint32_t job) const;

    void DoDispose() override;
    void DoJobArrived(const SchedulerJob& job) override;
    void DoCollectiveReady(uint32_t job, uint32_t iteration, uint32_t bucket) override;
    void DoCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket) override;
    void DoJobDone(uint32_t job) override;
    int64_t CurrentRoute(uint32_t job) const override;

  private:
    /// What the scheduler tracks of one job.
    struct JobState
    {
        enum class Phase
        {
            COMPUTING, ///< between two communication phases; readyAt is a prediction
            READY,     ///< its collective is ready and its gate closed
            RUNNING,   ///< its gate is open, its collective runs
        } phase{Phase::COMPUTING};

        Time readyAt;                     ///< when its collective is (predicted to be) ready
        Time startedAt;                   ///< when its gate opened (RUNNING)
        std::deque<Time> plannedStarts;   ///< planned starts of its next collectives, in order
        EventId openEvent;                ///< pending planned opening
        EventId armEvent;                 ///< pending opening ahead of its next collective
        EventId windowEvent;              ///< pending reopening for its next planned op
        std::vector<Time> offsets;        ///< its planned ops' starts alone (PlannedOffsets)
        std::vector<JobRouting> routings; ///< candidate routings, [0] the default
        uint32_t route{0};                ///< the routing its connections use
        int32_t nextRoute{-1};            ///< routing to take when the running collective ends
        double weight{1};
        bool late{false};        ///< its running collective runs outside the plan
        bool early{false};       ///< it runs ahead of the planned start it keeps
        bool uncontended{false}; ///< it shares no link with any other job's routings
        bool armed{false};       ///< its gate opened ahead of its next collective
        int16_t cls{-1};         ///< traffic class last set for it (-1: none)
        uint32_t remaining{0};   ///< collectives not yet started
        uint32_t buckets{1};
        Time computeTime;

        const JobRouting& Current() const
        {
            return routings[route];
        }
    };

    /// Plan now, or after the solve in progress.
    void Replan();
    /// Build the instance, plan it, and install the plan when its solve is done.
    void Solve();
    /// Take \p plan (made at \p madeAt with \p cover) as the plan in force.
    void Install(const Plan& plan,
                 Time madeAt,
                 const Coverage& cover,
                 const std::map<uint32_t, PlannedRoutes>& routeOf);
    void EpochTick();
    /// Recompute every job's candidate routings, keeping the ones in use.
    void UpdateRoutings();
    /// Move every job whose gate is not armed to its joint routing unless
    /// that is slower for it alone (FollowJointRoutes).
    void FollowJointRoutings();
    /// Find the jobs that contend with none on any routing; the classes are
    /// ranked again when next needed.
    void UpdateContention();
    /// The jobs as Crux ranks them, with the links of their collectives'
    /// routes in use (current and next) if \p inUse, else every link of every
    /// candidate routing (ungated traffic's included).
    std::vector<CruxJob> RankedJobs(bool inUse) const;
    /// Rank the jobs into traffic classes over the links they use.
    void RankClasses();
    /// At the job's predicted ready time less the control delay, open its
    /// gate if its collective will fit its links then (LinksFree).
    void ScheduleArm(uint32_t id);
    /// The traffic class of job \p id's collective, late or planned.
    int16_t ClassOf(uint32_t id, bool late);
    /// Whether a running collective, late if \p late, takes its share in the plans.
    bool TakesShare(bool late) const;
    /// Move job \p id's connections to routing \p r (the messages it posts from then on).
    void ApplyRoute(uint32_t id, uint32_t r);
    /// Open job \p id's gate now, or plan it for its planned start; re-plan a
    /// late one that cannot start if \p replanIfLate.
    void TryStart(uint32_t id, bool replanIfLate);
    /// Open job \p id's gate in its class (ClassOf);
    /// \p early: ahead of its planned start, which stays reserved for it.
    void Open(uint32_t id, bool late, bool early = false);
    /// Set job \p id's class (ClassOf) if it changed, then open its gate.
    void OpenInClass(uint32_t id, bool late);
    /// Job \p st's collective runs from \p at (its gate open), \p late or \p early.
    void Begin(JobState& st, bool late, bool early, Time at);
    /// After planned op \p next - 1 of job \p id's running collective: close
    /// its gate until op \p next's start alone (OpGates).
    void HoldUntilNextOp(uint32_t id, uint32_t next);
    /// Whether, with YieldByClass, only jobs in higher classes than \p id's
    /// take its links from now until its collective would end, and they
    /// leave a quarter of each or more.
    bool OnlyHigherClasses(uint32_t id);
    /// Whether \p id's collective fits its links from \p from on, by shares
    /// (see above); with \p notAbove, counting only jobs ranked in its class
    /// or below, and a link that jobs above it (nearly) fill is not free.
    bool LinksFree(uint32_t id, Time from, bool notAbove = false) const;

    Time m_epoch;
    Time m_slot;
    uint32_t m_horizonEpochs;
    uint32_t m_horizonIterations;
    uint32_t m_horizonSlots;
    uint32_t m_lookAhead;
    Time m_timeLimit;
    double m_gap;
    uint32_t m_threads;
    bool m_preprocess;
    bool m_routeChoice;
    uint32_t m_randomRoutes;
    uint32_t m_pathProbes;
    SolveTimeMode m_solveTimeMode;
    double m_solveTimeFactor;
    Time m_solveTimeBase;
    Time m_solveTimePerVariable;
    uint8_t m_plannedClass;
    uint8_t m_lateClass;
    Priorities m_priorities;
    std::map<uint32_t, int16_t> m_rankClass; ///< job -> traffic class (but PRIORITIES_PLAN)
    bool m_classesStale{true};               ///< a route changed since m_rankClass was ranked
    bool m_startEarly;
    bool m_opSegments;
    bool m_followJoint;
    bool m_yieldByClass;
    bool m_opGates;
    Time m_solveTimePerRow;
    std::map<uint32_t, JobState> m_state;
    EventId m_epochEvent;
    EcmpPathProbe m_probe;
    Time m_charged;      ///< solve time charged to the plan being made
    Time m_lastSolve;    ///< solve time of the last plan (to foresee the next)
    EventId m_install;   ///< the solve in progress: its plan's installation
    bool m_dirty{false}; ///< something changed during the solve in progress
};

} // namespace ns3

#endif /* EPOCH_SCHEDULER_H */
