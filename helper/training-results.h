/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_RESULTS_H
#define TRAINING_RESULTS_H

#include "ns3/results-database.h"
#include "ns3/training-cluster.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Write the rows of \p cluster for run \p runId (upserts: rows streamed
 * earlier by StreamTrainingResults are completed, not repeated):
 * - jobs(run_id, job_id, model, workers, gpus_per_host, placement_json,
 *   arrival_ns, start_ns, end_ns, iterations, weight): start and end are
 *   NULL for a job that never started or never finished; weight defaults to
 *   the number of workers;
 * - iterations(run_id, job_id, iter, compute_start_ns, comm_ready_ns,
 *   comm_start_ns, comm_end_ns): communication time is comm_end - comm_ready
 *   (waiting counts), transfer time comm_end - comm_start.
 */
void WriteTrainingResults(ResultsDatabase& db, int64_t runId, const TrainingCluster& cluster);

/**
 * \ingroup collective-scheduling
 * Buffer a jobs row for each job of \p cluster now (start and end NULL) and,
 * as the run goes, an iterations row for each iteration that ends, so that
 * a run killed midway keeps them. Call after the jobs are added and before
 * the simulation runs; \p db must outlive it.
 */
void StreamTrainingResults(Ptr<ResultsDatabase> db, int64_t runId, Ptr<TrainingCluster> cluster);

} // namespace ns3

#endif /* TRAINING_RESULTS_H */
