/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-results.h"

#include "ns3/placement-contention.h"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace ns3
{

namespace
{

// A job's row is written when the run starts and completed at its end.
const char* const kUpsertJob =
    "INSERT INTO jobs (run_id, job_id, model, workers, gpus_per_host, placement_json, arrival_ns,"
    " start_ns, end_ns, iterations, weight) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
    " ON CONFLICT (run_id, job_id) DO UPDATE SET model = excluded.model,"
    " workers = excluded.workers, gpus_per_host = excluded.gpus_per_host,"
    " placement_json = excluded.placement_json, arrival_ns = excluded.arrival_ns,"
    " start_ns = excluded.start_ns, end_ns = excluded.end_ns,"
    " iterations = excluded.iterations, weight = excluded.weight";

// An iteration's row is final when it is first written.
const char* const kInsertIteration =
    "INSERT INTO iterations (run_id, job_id, iter, compute_start_ns, comm_ready_ns,"
    " comm_start_ns, comm_end_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
    " ON CONFLICT (run_id, job_id, iter) DO NOTHING";

const char* const kInsertIterationTime =
    "INSERT INTO iteration_times (run_id, job_id, iter, end_ns, compute_ns, overlapped_ns,"
    " exposed_dp_ns, exposed_tp_ns, exposed_pp_ns, exposed_ep_ns, exposed_other_ns,"
    " gate_wait_ns, bubble_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
    " ON CONFLICT (run_id, job_id, iter) DO NOTHING";

const char* const kInsertOpSpan =
    "INSERT INTO op_spans (run_id, job_id, iteration, op, kind, name, grp, algorithm, bytes,"
    " ranks, planned, ready_ns, start_ns, end_ns)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
    " ON CONFLICT (run_id, job_id, iteration, op) DO NOTHING";

/// \p ranks as ascending ranges: "0-7,16-23".
std::string
RankRanges(std::vector<uint32_t> ranks)
{
    std::sort(ranks.begin(), ranks.end());
    std::string text;
    for (std::size_t i = 0; i < ranks.size();)
    {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
        {
            ++j;
        }
        text += (text.empty() ? "" : ",") + std::to_string(ranks[i]);
        if (j > i)
        {
            text += "-" + std::to_string(ranks[j]);
        }
        i = j + 1;
    }
    return text;
}

const char*
OpKindName(GraphOp::Kind kind)
{
    switch (kind)
    {
    case GraphOp::Kind::Compute:
        return "compute";
    case GraphOp::Kind::Collective:
        return "collective";
    case GraphOp::Kind::Transfer:
        return "transfer";
    }
    return "compute";
}

/// The job's row; with \p contention (at the run's end), whether it met contention.
void
AddJobRow(ResultsDatabase& db,
          int64_t runId,
          const TrainingCluster::JobEntry& e,
          const ContentionSummary* contention = nullptr)
{
    const JobSpec& s = e.spec;
    nlohmann::json placement = {{"policy", s.placement}, {"hosts", e.placement.workerHost}};
    if (contention != nullptr && e.job)
    {
        placement["contended"] = contention->contended.count(s.id) > 0;
    }
    db.AddRow(
        runId,
        kUpsertJob,
        {runId,
         static_cast<int64_t>(s.id),
         s.model,
         static_cast<int64_t>(s.workers),
         static_cast<int64_t>(s.gpusPerHost),
         placement.dump(),
         static_cast<int64_t>(s.arrivalNs),
         e.job ? SqlValue(e.job->GetStartTime().GetNanoSeconds()) : SqlValue(),
         e.job && e.job->IsDone() ? SqlValue(e.job->GetEndTime().GetNanoSeconds()) : SqlValue(),
         static_cast<int64_t>(s.iterations),
         s.weight > 0 ? s.weight : static_cast<double>(s.workers)});
}

void
AddIterationRow(ResultsDatabase& db,
                int64_t runId,
                uint32_t job,
                const TrainingJob::IterationRecord& r)
{
    db.AddRow(runId,
              kInsertIteration,
              {runId,
               static_cast<int64_t>(job),
               static_cast<int64_t>(r.iteration),
               r.computeStart.GetNanoSeconds(),
               r.commReady.GetNanoSeconds(),
               r.commStart.GetNanoSeconds(),
               r.commEnd.GetNanoSeconds()});
    const IterationTime& t = r.time;
    db.AddRow(runId,
              kInsertIterationTime,
              {runId,
               static_cast<int64_t>(job),
               static_cast<int64_t>(r.iteration),
               r.end.GetNanoSeconds(),
               t.computeNs,
               t.overlappedNs,
               t.Exposed(CommGroup::Data),
               t.Exposed(CommGroup::Tensor),
               t.Exposed(CommGroup::Pipeline),
               t.Exposed(CommGroup::Expert),
               t.Exposed(CommGroup::None),
               t.gateWaitNs,
               t.bubbleNs});
}

/// Streams one run's iteration and op rows as the cluster's jobs start and iterate.
struct IterationStream
{
    Ptr<ResultsDatabase> db;
    int64_t runId;
    TrainingCluster* cluster; ///< owns the callback that holds this stream
    /// Per started job: its graph, and each op's ranks as text (made once).
    std::map<uint32_t, std::pair<const JobGraph*, std::vector<std::string>>> graphs;

    static void Started(std::shared_ptr<IterationStream> self, uint32_t job)
    {
        for (const auto& e : self->cluster->GetJobs())
        {
            if (e->spec.id == job && e->job)
            {
                e->job->TraceConnectWithoutContext(
                    "IterationDone",
                    MakeBoundCallback(&IterationStream::Iteration, self));
                e->job->TraceConnectWithoutContext("OpDone",
                                                   MakeBoundCallback(&IterationStream::Op, self));
                std::vector<std::string> ranks;
                for (const GraphOp& o : e->job->GetGraph().GetOps())
                {
                    ranks.push_back(RankRanges(o.ranks));
                }
                self->graphs[job] = {&e->job->GetGraph(), std::move(ranks)};
            }
        }
    }

    static void Op(std::shared_ptr<IterationStream> self,
                   uint32_t job,
                   uint32_t iteration,
                   const TrainingJob::OpSpan& span)
    {
        if (!self->db->IsOpen())
        {
            return;
        }
        const auto& [graph, ranks] = self->graphs.at(job);
        const GraphOp& o = graph->GetOp(span.op);
        self->db->AddRow(self->runId,
                         kInsertOpSpan,
                         {self->runId,
                          static_cast<int64_t>(job),
                          static_cast<int64_t>(iteration),
                          static_cast<int64_t>(span.op),
                          OpKindName(o.kind),
                          o.name.Get(),
                          CommGroupName(o.group),
                          o.kind == GraphOp::Kind::Collective ? SqlValue(o.algorithm) : SqlValue(),
                          static_cast<int64_t>(o.bytes),
                          ranks[span.op],
                          static_cast<int64_t>(o.planned ? 1 : 0),
                          span.ready.GetNanoSeconds(),
                          span.start.GetNanoSeconds(),
                          span.end.GetNanoSeconds()});
    }

    static void Iteration(std::shared_ptr<IterationStream> self,
                          uint32_t job,
                          const TrainingJob::IterationRecord& r)
    {
        if (self->db->IsOpen())
        {
            AddIterationRow(*self->db, self->runId, job, r);
        }
    }
};

} // namespace

void
WriteTrainingResults(ResultsDatabase& db, int64_t runId, const TrainingCluster& cluster)
{
    const ContentionSummary contention = MeasureContention(cluster);
    for (const auto& e : cluster.GetJobs())
    {
        AddJobRow(db, runId, *e, &contention);
        if (!e->job)
        {
            continue;
        }
        for (const TrainingJob::IterationRecord& r : e->job->GetIterations())
        {
            AddIterationRow(db, runId, e->spec.id, r);
        }
    }
}

void
StreamTrainingResults(Ptr<ResultsDatabase> db, int64_t runId, Ptr<TrainingCluster> cluster)
{
    for (const auto& e : cluster->GetJobs())
    {
        AddJobRow(*db, runId, *e);
    }
    auto stream =
        std::make_shared<IterationStream>(IterationStream{db, runId, PeekPointer(cluster), {}});
    cluster->TraceConnectWithoutContext("JobStarted",
                                        MakeBoundCallback(&IterationStream::Started, stream));
}

} // namespace ns3
