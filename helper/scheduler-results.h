/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCHEDULER_RESULTS_H
#define SCHEDULER_RESULTS_H

#include "ns3/collective-scheduler.h"
#include "ns3/results-database.h"

#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief What StreamSchedulerResults has buffered of one run's scheduler
 * rows, so that WriteSchedulerResults adds only the rest.
 */
struct StreamedSchedulerRows
{
    std::size_t decisions{0}; ///< leading CollectiveScheduler::GetDecisions() buffered
    std::size_t gates{0};     ///< leading CollectiveScheduler::GetGateChanges() buffered
    /// (job, iteration) of the finished collectives buffered
    std::set<std::pair<uint32_t, uint32_t>> collectives;
    /// Timing part -> its sample count as last buffered
    std::map<std::string, uint64_t> timings;
};

/**
 * \ingroup collective-scheduling
 * Write a scheduler's record of run \p runId (inside the run's finishing
 * transaction):
 * - `scheduler_decisions(run_id, t_ns, scheduler, kind, job_id, detail_json, wall_us)`,
 *   one row per decision;
 * - `gates(run_id, t_ns, job_id, open)`, one row per gate change at the NICs;
 * - `collectives(run_id, job_id, iteration, ready_ns, start_ns, finish_ns, route,
 *   planned_start_ns, planned_finish_ns, planned_route, estimate_ns)`, one row per
 *   collective that became ready: as executed, and as planned when a planner
 *   planned it (NULLs otherwise; see CollectiveRecord);
 * - `scheduler_runs(run_id, scheduler, params_json, decisions, total_wall_us,
 *   max_wall_us)`, the policy, its parameters and the summary of its decision times;
 * - `scheduler_timing(run_id, part, count, total_us, mean_us, max_us)`, the parts of the
 *   scheduling time the policy timed (a solve, Harmonics' coordinator and local planners).
 *
 * With \p streamed (from StreamSchedulerResults for this run), the rows it
 * already buffered are not written again.
 */
void WriteSchedulerResults(ResultsDatabase& db,
                           int64_t runId,
                           const CollectiveScheduler& scheduler,
                           const StreamedSchedulerRows* streamed = nullptr);

/**
 * \ingroup collective-scheduling
 * Buffer \p scheduler's rows of run \p runId in \p db as they happen, so that
 * a run killed midway keeps them: a decision as it is made, a gate change
 * as it takes effect, a collective as it finishes, a timing part's summary
 * (an upsert) as it gets a sample. Rows the scheduler holds already are
 * buffered at once. The database batches them with the run's other rows
 * (ResultsDatabase::FlushThreshold, FlushInterval). Call once the jobs rows
 * are buffered (collectives reference them) and before the simulation runs;
 * \p db must outlive the scheduler.
 * \return what has been buffered so far, for WriteSchedulerResults at the run's end
 */
std::shared_ptr<const StreamedSchedulerRows> StreamSchedulerResults(
    Ptr<ResultsDatabase> db,
    int64_t runId,
    Ptr<CollectiveScheduler> scheduler);

} // namespace ns3

#endif /* SCHEDULER_RESULTS_H */
