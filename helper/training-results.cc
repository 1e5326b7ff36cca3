/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-results.h"

#include <nlohmann/json.hpp>

namespace ns3
{

void
WriteTrainingResults(ResultsDatabase& db, int64_t runId, const TrainingCluster& cluster)
{
    db.Exec("CREATE TABLE IF NOT EXISTS jobs("
            " run_id INTEGER NOT NULL REFERENCES runs(run_id), job_id INTEGER NOT NULL,"
            " model TEXT, workers INTEGER, gpus_per_host INTEGER, placement_json TEXT,"
            " arrival_ns INTEGER, start_ns INTEGER, end_ns INTEGER, iterations INTEGER,"
            " weight REAL, PRIMARY KEY (run_id, job_id));"
            "CREATE TABLE IF NOT EXISTS iterations("
            " run_id INTEGER NOT NULL REFERENCES runs(run_id), job_id INTEGER NOT NULL,"
            " iter INTEGER NOT NULL, compute_start_ns INTEGER, comm_ready_ns INTEGER,"
            " comm_start_ns INTEGER, comm_end_ns INTEGER, PRIMARY KEY (run_id, job_id, iter));");
    auto jobRow = db.Prepare("INSERT INTO jobs VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    auto iterRow = db.Prepare("INSERT INTO iterations VALUES (?,?,?,?,?,?,?)");
    for (const auto& e : cluster.GetJobs())
    {
        const JobSpec& s = e->spec;
        nlohmann::json placement = {{"policy", s.placement}, {"hosts", e->placement.workerHost}};
        jobRow.Reset();
        jobRow.BindInt64(1, runId)
            .BindInt64(2, s.id)
            .BindText(3, s.model)
            .BindInt64(4, s.workers)
            .BindInt64(5, s.gpusPerHost)
            .BindText(6, placement.dump())
            .BindInt64(7, s.arrivalNs);
        if (e->job)
        {
            jobRow.BindInt64(8, e->job->GetStartTime().GetNanoSeconds());
        }
        else
        {
            jobRow.BindNull(8);
        }
        if (e->job && e->job->IsDone())
        {
            jobRow.BindInt64(9, e->job->GetEndTime().GetNanoSeconds());
        }
        else
        {
            jobRow.BindNull(9);
        }
        jobRow.BindInt64(10, s.iterations).BindDouble(11, s.weight > 0 ? s.weight : s.workers);
        jobRow.Step();
        if (!e->job)
        {
            continue;
        }
        for (const TrainingJob::IterationRecord& r : e->job->GetIterations())
        {
            iterRow.Reset();
            iterRow.BindInt64(1, runId)
                .BindInt64(2, s.id)
                .BindInt64(3, r.iteration)
                .BindInt64(4, r.computeStart.GetNanoSeconds())
                .BindInt64(5, r.commReady.GetNanoSeconds())
                .BindInt64(6, r.commStart.GetNanoSeconds())
                .BindInt64(7, r.commEnd.GetNanoSeconds());
            iterRow.Step();
        }
    }
}

} // namespace ns3
