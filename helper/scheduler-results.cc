/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scheduler-results.h"

#include <algorithm>

namespace ns3
{

void
WriteSchedulerResults(ResultsDatabase& db, int64_t runId, const CollectiveScheduler& scheduler)
{
    db.Exec("CREATE TABLE IF NOT EXISTS scheduler_decisions("
            " run_id INTEGER NOT NULL REFERENCES runs(run_id), t_ns INTEGER NOT NULL,"
            " scheduler TEXT NOT NULL, kind TEXT NOT NULL, job_id INTEGER,"
            " detail_json TEXT NOT NULL, wall_us REAL NOT NULL);"
            "CREATE INDEX IF NOT EXISTS scheduler_decisions_run ON scheduler_decisions(run_id);"
            "CREATE TABLE IF NOT EXISTS gates("
            " run_id INTEGER NOT NULL REFERENCES runs(run_id), t_ns INTEGER NOT NULL,"
            " job_id INTEGER NOT NULL, open INTEGER NOT NULL);"
            "CREATE INDEX IF NOT EXISTS gates_run ON gates(run_id, job_id);"
            "CREATE TABLE IF NOT EXISTS scheduler_runs("
            " run_id INTEGER PRIMARY KEY REFERENCES runs(run_id), scheduler TEXT NOT NULL,"
            " params_json TEXT NOT NULL, decisions INTEGER NOT NULL,"
            " total_wall_us REAL NOT NULL, max_wall_us REAL NOT NULL);"
            "CREATE TABLE IF NOT EXISTS scheduler_timing("
            " run_id INTEGER NOT NULL REFERENCES runs(run_id), part TEXT NOT NULL,"
            " count INTEGER NOT NULL, total_us REAL NOT NULL, mean_us REAL NOT NULL,"
            " max_us REAL NOT NULL, PRIMARY KEY (run_id, part));");
    const std::string name = scheduler.GetName();
    auto decision = db.Prepare("INSERT INTO scheduler_decisions VALUES (?,?,?,?,?,?,?)");
    double total = 0;
    double longest = 0;
    for (const SchedulerDecision& d : scheduler.GetDecisions())
    {
        decision.Reset();
        decision.BindInt64(1, runId)
            .BindInt64(2, d.when.GetNanoSeconds())
            .BindText(3, name)
            .BindText(4, d.kind);
        if (d.job >= 0)
        {
            decision.BindInt64(5, d.job);
        }
        else
        {
            decision.BindNull(5);
        }
        decision.BindText(6, d.detailJson).BindDouble(7, d.wallUs);
        decision.Step();
        total += d.wallUs;
        longest = std::max(longest, d.wallUs);
    }
    auto gate = db.Prepare("INSERT INTO gates VALUES (?,?,?,?)");
    for (const GateChange& g : scheduler.GetGateChanges())
    {
        gate.Reset();
        gate.BindInt64(1, runId)
            .BindInt64(2, g.when.GetNanoSeconds())
            .BindInt64(3, g.job)
            .BindInt64(4, g.open ? 1 : 0);
        gate.Step();
    }
    auto summary = db.Prepare("INSERT INTO scheduler_runs VALUES (?,?,?,?,?,?)");
    summary.BindInt64(1, runId)
        .BindText(2, name)
        .BindText(3, scheduler.GetParametersJson())
        .BindInt64(4, static_cast<int64_t>(scheduler.GetDecisions().size()))
        .BindDouble(5, total)
        .BindDouble(6, longest);
    summary.Step();
    auto timing = db.Prepare("INSERT INTO scheduler_timing VALUES (?,?,?,?,?,?)");
    for (const auto& [part, t] : scheduler.GetTimings())
    {
        timing.Reset();
        timing.BindInt64(1, runId)
            .BindText(2, part)
            .BindInt64(3, static_cast<int64_t>(t.count))
            .BindDouble(4, t.totalUs)
            .BindDouble(5, t.count ? t.totalUs / static_cast<double>(t.count) : 0.0)
            .BindDouble(6, t.maxUs);
        timing.Step();
    }
}

} // namespace ns3
