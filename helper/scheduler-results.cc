/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scheduler-results.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <optional>

namespace ns3
{

namespace
{

const char* const kInsertDecision =
    "INSERT INTO scheduler_decisions (run_id, t_ns, scheduler, kind, job_id, detail_json,"
    " wall_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

const char* const kInsertGate =
    "INSERT INTO gates (run_id, t_ns, job_id, open) VALUES (?1, ?2, ?3, ?4)";

const char* const kInsertCollective =
    "INSERT INTO collectives (run_id, job_id, iteration, ready_ns, start_ns, finish_ns, route,"
    " planned_start_ns, planned_finish_ns, planned_route, estimate_ns)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";

// A part's summary changes with each sample: the last one written stands.
const char* const kUpsertTiming =
    "INSERT INTO scheduler_timing (run_id, part, count, total_us, mean_us, max_us)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (run_id, part) DO UPDATE SET"
    " count = excluded.count, total_us = excluded.total_us, mean_us = excluded.mean_us,"
    " max_us = excluded.max_us";

void
AddDecisionRow(ResultsDatabase& db,
               int64_t runId,
               const std::string& scheduler,
               const SchedulerDecision& d)
{
    db.AddRow(runId,
              kInsertDecision,
              {runId,
               d.when.GetNanoSeconds(),
               scheduler,
               d.kind,
               d.job >= 0 ? SqlValue(static_cast<int64_t>(d.job)) : SqlValue(),
               d.detailJson,
               d.wallUs});
}

void
AddGateRow(ResultsDatabase& db, int64_t runId, const GateChange& g)
{
    db.AddRow(runId,
              kInsertGate,
              {runId,
               g.when.GetNanoSeconds(),
               static_cast<int64_t>(g.job),
               static_cast<int64_t>(g.open ? 1 : 0)});
}

void
AddCollectiveRow(ResultsDatabase& db, int64_t runId, const CollectiveRecord& c)
{
    // A time before zero is none: NULL.
    auto ns = [](Time t) {
        return t.IsStrictlyNegative() ? SqlValue() : SqlValue(t.GetNanoSeconds());
    };
    const std::optional<PlannedCollective>& p = c.plan;
    db.AddRow(runId,
              kInsertCollective,
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

void
AddTimingRow(ResultsDatabase& db,
             int64_t runId,
             const std::string& part,
             const CollectiveScheduler::TimingSummary& t)
{
    db.AddRow(runId,
              kUpsertTiming,
              {runId,
               part,
               static_cast<int64_t>(t.count),
               t.totalUs,
               t.count ? t.totalUs / static_cast<double>(t.count) : 0.0,
               t.maxUs});
}

/// Buffers one run's scheduler rows as the scheduler's trace sources report them.
struct SchedulerStream
{
    Ptr<ResultsDatabase> db;
    int64_t runId;
    std::string scheduler; ///< the policy's short name, the decisions' `scheduler` column
    StreamedSchedulerRows rows;

    static void Decision(std::shared_ptr<SchedulerStream> self, const SchedulerDecision& d)
    {
        if (self->db->IsOpen())
        {
            AddDecisionRow(*self->db, self->runId, self->scheduler, d);
            ++self->rows.decisions;
        }
    }

    static void Gate(std::shared_ptr<SchedulerStream> self, uint32_t job, bool open)
    {
        if (self->db->IsOpen())
        {
            AddGateRow(*self->db, self->runId, GateChange{Simulator::Now(), job, open});
            ++self->rows.gates;
        }
    }

    static void Collective(std::shared_ptr<SchedulerStream> self, const CollectiveRecord& c)
    {
        if (self->db->IsOpen())
        {
            AddCollectiveRow(*self->db, self->runId, c);
            self->rows.collectives.emplace(c.job, c.iteration);
        }
    }

    static void Timing(std::shared_ptr<SchedulerStream> self,
                       const std::string& part,
                       const CollectiveScheduler::TimingSummary& t)
    {
        if (self->db->IsOpen())
        {
            AddTimingRow(*self->db, self->runId, part, t);
            self->rows.timings[part] = t.count;
        }
    }
};

} // namespace

void
WriteSchedulerResults(ResultsDatabase& db,
                      int64_t runId,
                      const CollectiveScheduler& scheduler,
                      const StreamedSchedulerRows* streamed)
{
    const StreamedSchedulerRows none;
    const StreamedSchedulerRows& done = streamed ? *streamed : none;
    const std::string name = scheduler.GetName();
    double total = 0;
    double longest = 0;
    const std::vector<SchedulerDecision>& decisions = scheduler.GetDecisions();
    for (std::size_t i = 0; i < decisions.size(); ++i)
    {
        if (i >= done.decisions)
        {
            AddDecisionRow(db, runId, name, decisions[i]);
        }
        total += decisions[i].wallUs;
        longest = std::max(longest, decisions[i].wallUs);
    }
    const std::vector<GateChange>& gates = scheduler.GetGateChanges();
    for (std::size_t i = done.gates; i < gates.size(); ++i)
    {
        AddGateRow(db, runId, gates[i]);
    }
    for (const CollectiveRecord& c : scheduler.GetCollectives())
    {
        if (done.collectives.count({c.job, c.iteration}) == 0)
        {
            AddCollectiveRow(db, runId, c);
        }
    }
    db.AddRow(runId,
              "INSERT INTO scheduler_runs (run_id, scheduler, params_json, decisions,"
              " total_wall_us, max_wall_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
              {runId,
               name,
               scheduler.GetParametersJson(),
               static_cast<int64_t>(decisions.size()),
               total,
               longest});
    for (const auto& [part, t] : scheduler.GetTimings())
    {
        auto it = done.timings.find(part);
        if (it == done.timings.end() || it->second != t.count)
        {
            AddTimingRow(db, runId, part, t);
        }
    }
}

std::shared_ptr<const StreamedSchedulerRows>
StreamSchedulerResults(Ptr<ResultsDatabase> db, int64_t runId, Ptr<CollectiveScheduler> scheduler)
{
    auto stream = std::make_shared<SchedulerStream>();
    stream->db = db;
    stream->runId = runId;
    stream->scheduler = scheduler->GetName();
    // What the scheduler recorded before now (a job placed with its gate
    // closed, say), then the rest as it comes.
    for (const SchedulerDecision& d : scheduler->GetDecisions())
    {
        SchedulerStream::Decision(stream, d);
    }
    for (const GateChange& g : scheduler->GetGateChanges())
    {
        if (db->IsOpen())
        {
            AddGateRow(*db, runId, g);
            ++stream->rows.gates;
        }
    }
    for (const CollectiveRecord& c : scheduler->GetCollectives())
    {
        if (!c.finish.IsNegative())
        {
            SchedulerStream::Collective(stream, c);
        }
    }
    for (const auto& [part, t] : scheduler->GetTimings())
    {
        SchedulerStream::Timing(stream, part, t);
    }
    scheduler->TraceConnectWithoutContext("Decision",
                                          MakeBoundCallback(&SchedulerStream::Decision, stream));
    scheduler->TraceConnectWithoutContext("GateChange",
                                          MakeBoundCallback(&SchedulerStream::Gate, stream));
    scheduler->TraceConnectWithoutContext("Collective",
                                          MakeBoundCallback(&SchedulerStream::Collective, stream));
    scheduler->TraceConnectWithoutContext("Timing",
                                          MakeBoundCallback(&SchedulerStream::Timing, stream));
    return std::shared_ptr<const StreamedSchedulerRows>(stream, &stream->rows);
}

} // namespace ns3
