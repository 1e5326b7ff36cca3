/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scheduler-results.h"

#include <algorithm>
#include <optional>

namespace ns3
{

void
WriteSchedulerResults(ResultsDatabase& db, int64_t runId, const CollectiveScheduler& scheduler)
{
    const std::string name = scheduler.GetName();
    double total = 0;
    double longest = 0;
    for (const SchedulerDecision& d : scheduler.GetDecisions())
    {
        db.AddRow(runId,
                  "INSERT INTO scheduler_decisions (run_id, t_ns, scheduler, kind, job_id,"
                  " detail_json, wall_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                  {runId,
                   d.when.GetNanoSeconds(),
                   name,
                   d.kind,
                   d.job >= 0 ? SqlValue(static_cast<int64_t>(d.job)) : SqlValue(),
                   d.detailJson,
                   d.wallUs});
        total += d.wallUs;
        longest = std::max(longest, d.wallUs);
    }
    for (const GateChange& g : scheduler.GetGateChanges())
    {
        db.AddRow(runId,
                  "INSERT INTO gates (run_id, t_ns, job_id, open) VALUES (?1, ?2, ?3, ?4)",
                  {runId,
                   g.when.GetNanoSeconds(),
                   static_cast<int64_t>(g.job),
                   static_cast<int64_t>(g.open ? 1 : 0)});
    }
    // A time before zero is none: NULL.
    auto ns = [](Time t) { return t.IsNegative() ? SqlValue() : SqlValue(t.GetNanoSeconds()); };
    for (const CollectiveRecord& c : scheduler.GetCollectives())
    {
        const std::optional<PlannedCollective>& p = c.plan;
        db.AddRow(runId,
                  "INSERT INTO collectives (run_id, job_id, iteration, ready_ns, start_ns,"
                  " finish_ns, route, planned_start_ns, planned_finish_ns, planned_route,"
                  " estimate_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                  {runId,
                   static_cast<int64_t>(c.job),
                   static_cast<int64_t>(c.iteration),
                   c.ready.GetNanoSeconds(),
                   ns(c.start),
                   ns(c.finish),
                   c.route >= 0 ? SqlValue(c.route) : SqlValue(),
                   p ? ns(p->start) : SqlValue(),
                   p ? ns(p->start + p->duration) : SqlValue(),
                   p && p->route >= 0 ? SqlValue(p->route) : SqlValue(),
                   p ? ns(p->estimate) : SqlValue()});
    }
    db.AddRow(runId,
              "INSERT INTO scheduler_runs (run_id, scheduler, params_json, decisions,"
              " total_wall_us, max_wall_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
              {runId,
               name,
               scheduler.GetParametersJson(),
               static_cast<int64_t>(scheduler.GetDecisions().size()),
               total,
               longest});
    for (const auto& [part, t] : scheduler.GetTimings())
    {
        db.AddRow(runId,
                  "INSERT INTO scheduler_timing (run_id, part, count, total_us, mean_us, max_us)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                  {runId,
                   part,
                   static_cast<int64_t>(t.count),
                   t.totalUs,
                   t.count ? t.totalUs / static_cast<double>(t.count) : 0.0,
                   t.maxUs});
    }
}

} // namespace ns3
