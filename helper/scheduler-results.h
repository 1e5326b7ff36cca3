/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCHEDULER_RESULTS_H
#define SCHEDULER_RESULTS_H

#include "ns3/collective-scheduler.h"
#include "ns3/results-database.h"

namespace ns3
{

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
 */
void WriteSchedulerResults(ResultsDatabase& db,
                           int64_t runId,
                           const CollectiveScheduler& scheduler);

} // namespace ns3

#endif /* SCHEDULER_RESULTS_H */
