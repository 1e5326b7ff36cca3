/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CRUX_PRIORITIES_H
#define CRUX_PRIORITIES_H

#include <cstdint>
#include <map>
#include <vector>

/**
 * \file
 * Algorithmic core of Crux (Cao et al., SIGCOMM 2024): GPU-intensity
 * priorities and their compression to K hardware priority classes. Plain C++,
 * no simulator objects.
 *
 * Priority: P_j = k_j * I_j with GPU intensity I_j = W_j / t_j (compute work per
 * iteration over communication time on the job's bottleneck link).
 *
 * Priority order: a job ranks above another when its priority is larger, or
 * equal with a smaller id (a strict total order).
 *
 * Contention DAG: one node per job, an edge from the higher-ranked to the
 * lower-ranked job of every pair that shares at least one link. Edge weight:
 * the priority of the lower-ranked endpoint. Rationale: leaving two contending
 * jobs in one class lets the lower one take bandwidth from the higher one, and
 * the GPU time that separation protects grows with the intensity of the jobs
 * involved; weighting by the lower endpoint counts each job's pairs with the
 * jobs it would otherwise interfere with at its own intensity.
 *
 * Compression (Max-K-Cut on the DAG): classes 0..K-1, larger is served first.
 * Every edge u -> v must get class(u) >= class(v); the weight of edges whose
 * endpoints get different classes (the cut) is maximized.
 *  - Up to kCruxMaxExactJobs jobs: exact. An order-respecting assignment is a
 *    chain of ancestor-closed job sets (the jobs of class >= c); a dynamic
 *    program over subsets adds one class at a time below the ones placed,
 *    O(K 3^n).
 *  - More jobs: order-preserving greedy. Jobs are sorted by rank and cut into
 *    at most K contiguous groups (top group -> highest class) by a dynamic
 *    program over the sorted order that maximizes the cut, O(K n^2). Every DAG
 *    edge goes forward in the sorted order, so these assignments always respect
 *    the DAG, and the program is exact among them; it can miss assignments that
 *    reorder jobs which do not contend, so it is a lower bound on the optimum.
 * In both cases the classes used are renumbered to 0..m-1 (order kept), which
 * changes neither the constraints nor the cut.
 */

namespace ns3
{

/// Largest job count compressed exactly.
constexpr uint32_t kCruxMaxExactJobs = 12;

/// A job as Crux sees it.
struct CruxJob
{
    uint32_t id;                 ///< job id, unique
    double computeWork;          ///< W_j: compute per iteration (FLOPs, GPU-seconds), >= 0
    double commTime;             ///< t_j: communication time per iteration on its bottleneck, > 0
    double k{1.0};               ///< k_j: per-job correction factor, > 0
    std::vector<uint32_t> links; ///< links the job's traffic uses
};

/// One edge of the contention DAG.
struct CruxEdge
{
    uint32_t high; ///< id of the higher-ranked job
    uint32_t low;  ///< id of the lower-ranked job
    double weight; ///< priority of the lower-ranked job
};

/**
 * Priorities P_j = k_j W_j / t_j, in the order of \p jobs.
 * \throws std::invalid_argument on bad input
 */
std::vector<double> CruxPriorities(const std::vector<CruxJob>& jobs);

/**
 * The contention DAG, edges sorted by (high, low) id.
 * \throws std::invalid_argument on bad input
 */
std::vector<CruxEdge> CruxContentionDag(const std::vector<CruxJob>& jobs);

/**
 * Compress priorities to at most K classes (job id -> class in 0..K-1).
 * \throws std::invalid_argument on bad input or K == 0
 */
std::map<uint32_t, uint32_t> CruxClasses(const std::vector<CruxJob>& jobs, uint32_t K);

/**
 * Weight of the DAG edges whose endpoints have different classes.
 * \throws std::invalid_argument when a job has no class
 */
double CruxCutWeight(const std::vector<CruxJob>& jobs, const std::map<uint32_t, uint32_t>& classes);

/**
 * Whether every DAG edge u -> v has class(u) >= class(v).
 * \throws std::invalid_argument when a job has no class
 */
bool CruxRespectsOrder(const std::vector<CruxJob>& jobs,
                       const std::map<uint32_t, uint32_t>& classes);

/**
 * The order-preserving compression used beyond kCruxMaxExactJobs, exposed so
 * that it can be used (and checked) at any size.
 */
std::map<uint32_t, uint32_t> CruxClassesOrderPreserving(const std::vector<CruxJob>& jobs,
                                                        uint32_t K);

} // namespace ns3

#endif /* CRUX_PRIORITIES_H */
