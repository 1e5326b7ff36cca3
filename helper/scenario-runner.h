/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_RUNNER_H
#define SCENARIO_RUNNER_H

#include "collective-scheduler-helper.h"
#include "scenario-helper.h"
#include "simulation-run.h"

#include "ns3/iteration-time-account.h"
#include "ns3/nstime.h"
#include "ns3/scenario-spec.h"

#include <cstdint>
#include <deque>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief How one job fared in a run.
 */
struct JobOutcome
{
    uint32_t id{0};
    std::string model;
    uint32_t workers{0};
    bool done{false};                 ///< every iteration finished
    bool failed{false};               ///< a collective failed (TrainingJob::IsFailed)
    uint32_t iterations{0};           ///< iterations finished
    Time trainingTime;                ///< arrival to last iteration done (job completion time)
    Time meanIteration;               ///< iteration start to end, mean over iterations
    Time meanCommunication;           ///< first bucket ready to last collective done, mean
    Time meanTransfer;                ///< first collective started to last done, mean
    double gpuUtilization{0};         ///< compute time over iteration time
    std::vector<Time> iterationTimes; ///< per iteration, in order
    IterationTime meanTime;           ///< where an iteration's time went, mean over iterations
    /// The routes of the run the outcome is of: empty under a policy; for
    /// isolated, "ecmp" or "best", whichever of the job's two runs alone
    /// (IsolatedScheduler's Routes) trained faster.
    std::string routes;
};

/**
 * \ingroup collective-scheduling
 * \brief A run stopped because a job failed (a queue pair of one of its
 * collectives gave up: retry count exceeded). The run is recorded as failed
 * with this message, after the rows of what it did; the example exits with
 * code 1.
 */
class JobFailedError : public IncompleteRunError
{
  public:
    using IncompleteRunError::IncompleteRunError;
};

/**
 * \ingroup collective-scheduling
 * \brief How a run (one policy over every job) fared.
 */
struct RunOutcome
{
    std::string scheduler;
    /**
     * In job order of the scenario. Isolated: per job, the faster (lower
     * training time; ECMP on a tie) of its run alone under ECMP and its run
     * alone on its best routes, the one the comparison normalizes to.
     */
    std::vector<JobOutcome> jobs;
    std::vector<JobOutcome> aloneEcmp; ///< isolated only: each job alone under ECMP, in job order
    std::vector<JobOutcome> aloneBest; ///< isolated only: each job alone on its best routes
    /// Database runs written (isolated: two per job, every job alone under
    /// ECMP first, then every job alone on its best routes).
    std::vector<int64_t> runIds;
    uint64_t decisions{0};       ///< scheduler decisions
    double decisionWallUs{0};    ///< their total wall-clock time
    double maxDecisionWallUs{0}; ///< the longest one

    Time MeanTrainingTime() const;
    Time MeanIterationTime() const;
    Time MeanCommunicationTime() const;
    double MeanGpuUtilization() const;
};

/**
 * \ingroup collective-scheduling
 * \brief Runs a scenario under a scheduler: builds the fabric, the cluster and
 * the scheduler, runs the simulation, records the run in the results database
 * (runs, jobs, iterations, flows, links, scheduler decisions and gates) and
 * destroys the simulation, so that runs can follow one another in a process.
 * Each run fixes the random streams of the fabric, so its results depend on the
 * scenario and seed only, not on the runs before it.
 *
 * The scheduler "isolated" runs each job alone, twice (one simulation and
 * one database run each, same fabric, same arrival time, placed by its own
 * placement rule on the empty cluster): under ECMP, and on its best routes
 * (IsolatedScheduler's Routes ecmp and best; every job under ECMP first).
 * Per job the faster of the two is its isolated outcome, the reference
 * the comparison normalizes to (RunOutcome::jobs); both are kept
 * (RunOutcome::aloneEcmp, aloneBest) and recorded as runs of scheduler
 * "isolated", told apart by their scheduler parameter Routes and their run
 * tag ("job 3 alone", "job 3 alone on best routes").
 */
class ScenarioRunner
{
  public:
    /**
     * \param spec the scenario; \p spec.scheduler and spec.schedulerParams
     *        are the defaults of Run()
     * \param exampleName name stored with the runs
     */
    ScenarioRunner(const ScenarioSpec& spec, std::string exampleName);
    ScenarioRunner(const ScenarioRunner&) = delete;
    ScenarioRunner& operator=(const ScenarioRunner&) = delete;

    /**
     * Run the scenario.
     * \param scheduler a scheduler's short or TypeId name; empty: the spec's.
     *        The spec's scheduler parameters apply when it names the same policy.
     * \param out where the per-job table and summaries go (null: nowhere)
     * \throw std::runtime_error (naming the spec's field) for an unknown
     *        scheduler or parameter; IncompleteRunError when jobs did not
     *        finish before the stop time (the run is then marked failed);
     *        JobFailedError when a job failed: the simulation stops at the
     *        first failure and the run is marked failed with a message naming
     *        the job, where it failed, the flow and why, after the rows of
     *        every job, flow and link up to then
     */
    RunOutcome Run(const std::string& scheduler = "", std::ostream* out = nullptr);

    /**
     * Run every policy in \p schedulers (fair and isolated are added first
     * when missing: they are the references) and print one table: per
     * policy, mean training, iteration and communication time and GPU
     * utilization, each also normalized to fair and to isolated (per job
     * the faster of its two runs alone, RunOutcome::jobs).
     */
    std::vector<RunOutcome> Compare(std::vector<std::string> schedulers, std::ostream& out);

    /// One comparison of CompareTogether(): a runner and its policies.
    struct Comparison
    {
        ScenarioRunner* runner;              ///< the scenario
        std::vector<std::string> schedulers; ///< as Compare()'s
    };

    /**
     * Compare() for several scenarios (one set of jobs on several fabrics,
     * say) whose simulations share one pool of \p parallel processes (as
     * SetParallelRuns; 0: one per core), so that no core waits for the last
     * simulation of one scenario before the next scenario's begin. The
     * simulations start in the comparisons' order and get the run_ids they
     * would get one comparison after the other. Each comparison's table is
     * printed after a line "--- " and its run name, once all have run (with
     * \p parallel 1, or in a distributed run, each as its comparison ends).
     * \return each comparison's outcomes, in order
     * \throw as Compare(), for the first simulation in that order that failed
     */
    static std::vector<std::vector<RunOutcome>> CompareTogether(
        const std::vector<Comparison>& comparisons,
        uint32_t parallel,
        std::ostream& out);

    /**
     * Run Compare()'s simulations side by side, at most \p parallel at
     * once, each in a process of its own (ForkedTasks); 1 (the default) runs
     * them one after the other in this process, 0 one per core. Results
     * are the same either way, down to the run_ids: the runs are reserved
     * in the database in the comparison's order before any starts.
     */
    void SetParallelRuns(uint32_t parallel);

    /**
     * Print progress (simulated time, wall time, events per second) to
     * \p os every \p wallInterval of wall-clock time during each simulation
     * (ns-3's ShowProgress); zero (the default) prints none.
     */
    void SetShowProgress(Time wallInterval, std::ostream* os = nullptr);

    /// Print the comparison table of \p outcomes (the first two: fair, isolated).
    static void PrintComparison(const std::vector<RunOutcome>& outcomes, std::ostream& out);

  private:
    /// A scheduler attribute: name, value text.
    using Attribute = std::pair<std::string, std::string>;

    /**
     * One simulation of \p jobs under scheduler \p typeName (with
     * \p attributes over the spec's parameters), recorded as one database run.
     */
    void Simulate(const std::string& typeName,
                  const std::vector<JobSpec>& jobs,
                  RunOutcome& outcome,
                  std::ostream* out,
                  const std::string& runTag,
                  const std::vector<Attribute>& attributes = {});

    /// The isolated runs of \p jobs (see the class description): each job alone under ECMP,
    /// then each on its best routes.
    RunOutcome RunIsolated(const std::string& typeName,
                           const std::vector<JobSpec>& jobs,
                           std::ostream* out);

    /**
     * A scheduler helper for policy \p typeName, with the spec's parameters
     * if they are its, then \p attributes.
     */
    CollectiveSchedulerHelper MakeSchedulerHelper(const std::string& typeName,
                                                  const std::vector<Attribute>& attributes) const;

    /**
     * Give \p fabricHelper the congestion control \p policy asks for, if any.
     * \return what the NICs run
     */
    std::string SetCongestionControl(const CollectiveScheduler& policy,
                                     RoceFabricHelper& fabricHelper) const;

    /// The run's parameters as the runs table records them (JSON); the host
    /// count once \p topology is built (null before).
    std::string RunParameters(const FabricTopology* topology,
                              const std::vector<JobSpec>& jobs,
                              const std::string& cc,
                              const CollectiveScheduler& policy,
                              const std::string& runTag) const;

    /// The next reserved run id, or -1 (the database assigns one).
    int64_t TakeReservedRunId();

    /// Compare() with \p parallel simulations at once (SetParallelRuns).
    std::vector<RunOutcome> CompareIn(uint32_t parallel,
                                      const std::vector<std::string>& schedulers,
                                      std::ostream& out);

    /// Compare()'s policies in its order: fair and isolated first, then \p schedulers.
    static std::vector<std::string> ComparisonOrder(const std::vector<std::string>& schedulers);

    /**
     * The simulations of \p ordered (each runner's policies in the order they
     * run, ComparisonOrder), side by side in processes of their own, at most
     * \p parallel at once.
     * \return per comparison, its outcomes in its order
     */
    static std::vector<std::vector<RunOutcome>> RunSideBySide(
        const std::vector<Comparison>& ordered,
        uint32_t parallel,
        std::ostream& out);

    /// The name the runs are recorded under.
    std::string RunName() const;

    ScenarioSpec m_spec;
    std::string m_example;
    uint32_t m_parallel{1};               ///< Compare()'s simulations at once
    std::deque<int64_t> m_reservedRunIds; ///< reserved runs the next simulations take, in order
    ScenarioHelper m_scenario;            ///< over m_spec; locates every job's errors
    Time m_progressInterval;
    std::ostream* m_progressStream{nullptr};
};

} // namespace ns3

#endif /* SCENARIO_RUNNER_H */
