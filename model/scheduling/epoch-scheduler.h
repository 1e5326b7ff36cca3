/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EPOCH_SCHEDULER_H
#define EPOCH_SCHEDULER_H

#include "collective-scheduler.h"
#include "epoch-plan.h"

#include "ns3/event-id.h"

#include <deque>
#include <map>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Base of the epoch-based planners (Symphony, Optimal, Harmonics):
 * at every epoch boundary and on every job arrival and departure it builds
 * the time-indexed instance (PlanInstance) of the jobs' next collectives,
 * has the subclass plan it, and opens each job's gate at its planned start.
 *
 * The instance, at time now: slots of SlotLength from now, HorizonEpochs x
 * EpochLength long. Each job's communication phase of an iteration (all its
 * buckets) is one collective, of duration its estimated communication time
 * alone (rounded up to slots), weight its worker count (the job's weight if
 * set: GPU time lost waiting) and usage its share of every directed link it
 * crosses (LinkShares). A job whose collective is ready has it at slot 0; a
 * computing job's is ready when its compute ends (predicted); a
 * communicating job's links are reserved until its expected end, and its
 * next collective follows its compute. LookAhead more iterations of every
 * job are chained behind (next ready = previous end + compute).
 *
 * Gates: jobs start gated; a job's gate opens at the planned start of its
 * ready collective and closes when its last bucket is done. Work
 * conservation: a ready collective whose links no other job is planned or
 * running on during its duration starts at once, before its planned start
 * or after it (a late job). Otherwise a late one waits for the next epoch,
 * which re-plans it.
 */
class EpochScheduler : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId();
    EpochScheduler();
    ~EpochScheduler() override;

    bool StartsJobsGated() const override;

  protected:
    /**
     * Plan \p instance (built as described above); record how in notes.
     * \return a plan that passes CheckPlan
     */
    virtual Plan PlanEpoch(const PlanInstance& instance) = 0;

    /// The solver options from the attributes (time limit, gap, threads, seed).
    MilpSolveOptions GetSolveOptions() const;

    /// Notes common to every planner: the plan's method, objective and solver statistics.
    void NotePlan(const std::string& prefix, const Plan& plan);

    void DoDispose() override;
    void DoJobArrived(const SchedulerJob& job) override;
    void DoCollectiveReady(uint32_t job, uint32_t iteration, uint32_t bucket) override;
    void DoCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket) override;
    void DoJobDone(uint32_t job) override;

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

        Time readyAt;                   ///< when its collective is (predicted to be) ready
        Time startedAt;                 ///< when its gate opened (RUNNING)
        std::deque<Time> plannedStarts; ///< planned starts of its next collectives, in order
        EventId openEvent;              ///< pending planned opening
        std::map<uint32_t, double> shares;
        int64_t durationSlots{1};
        int64_t computeSlots{0};
        double weight{1};
        uint32_t buckets{1};
        Time commTime;
        Time computeTime;
    };

    void Replan();
    void EpochTick();
    /// Open job \p id's gate now, or plan it for its planned start.
    void TryStart(uint32_t id);
    void Open(uint32_t id);
    /// Whether no other job runs or is planned on \p id's links in [from, from + its comm time).
    bool LinksIdle(uint32_t id, Time from) const;

    Time m_epoch;
    Time m_slot;
    uint32_t m_horizonEpochs;
    uint32_t m_lookAhead;
    Time m_timeLimit;
    double m_gap;
    uint32_t m_threads;
    std::map<uint32_t, JobState> m_state;
    EventId m_epochEvent;
};

} // namespace ns3

#endif /* EPOCH_SCHEDULER_H */
