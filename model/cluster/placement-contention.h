/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PLACEMENT_CONTENTION_H
#define PLACEMENT_CONTENTION_H

#include "training-cluster.h"

#include <cstdint>
#include <set>

namespace ns3
{

/// Which jobs of a run meet contention, as the Crux paper counts it on the
/// Lingjun cluster (a fraction of jobs, and of the GPUs they hold).
struct ContentionSummary
{
    uint32_t jobs{0};             ///< jobs that started
    uint32_t contendedJobs{0};    ///< of them, those that meet contention
    uint64_t gpus{0};             ///< workers of the jobs that started
    uint64_t contendedGpus{0};    ///< workers of the contended jobs
    std::set<uint32_t> contended; ///< ids of the contended jobs

    /// Contended jobs over jobs (0 without jobs).
    double JobFraction() const;
    /// Contended jobs' GPUs over all jobs' GPUs (0 without jobs).
    double GpuFraction() const;
};

/**
 * \ingroup collective-scheduling
 * The jobs of \p cluster that meet contention: a job meets it when, while
 * both run (start to end, or to now for a job still running), it and
 * another job send traffic through one of the same link groups of a tree
 * fabric:
 * - a host's NIC, when both use the network there (more than one host);
 * - a rack's uplinks, when both have workers in the rack and each spans
 *   more than one rack (its ring leaves each of its racks);
 * - a pod's uplinks, likewise across pods.
 * A link group, not a link: ECMP may or may not put the two on one uplink,
 * as it may not at the next flowlet, and schedulers move routes within a
 * group. A job on one host (NVLink only) meets no one.
 */
ContentionSummary MeasureContention(const TrainingCluster& cluster);

} // namespace ns3

#endif /* PLACEMENT_CONTENTION_H */
