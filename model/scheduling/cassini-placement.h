/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CASSINI_PLACEMENT_H
#define CASSINI_PLACEMENT_H

#include <cstdint>
#include <map>
#include <vector>

/**
 * \file
 * Algorithmic core of CASSINI (Rajasekaran et al., NSDI 2024): the geometric
 * abstraction that picks per-job time shifts so that jobs sharing a link
 * interleave their communication phases. Plain C++, no simulator objects.
 *
 * Per link: every job's demand profile is unrolled on a circle whose perimeter
 * L is the LCM of the iteration times of the jobs on the link. The circle is
 * cut into S = min(angleSteps, L) equal bins; a job's demand in a bin is its
 * average demand over that bin (exact when S == L and interval ends are
 * integers, an approximation otherwise). A rotation moves a job later by a
 * whole number of bins; only rotations smaller than the job's own period are
 * tried (the profile repeats with that period). The compatibility score of a
 * set of rotations is 1 - mean over bins of max(0, total demand - 1)
 * (capacity 1).
 *
 * Fixed jobs: a job marked fixed already runs on its grid. Its intervals are
 * given in absolute phase (time t is phase t mod period) and its shift stays 0,
 * so the other jobs are placed around it. On a link, jobs are taken fixed
 * first, then free, each group in id order (the profile order). Fixed jobs
 * have only rotation 0; when the link has no fixed job, the first free job
 * stays at 0 instead (only relative rotations matter there).
 *
 * Search: exhaustive over all rotation combinations when the link has at most
 * kCassiniMaxExhaustiveJobs free jobs and at most kCassiniMaxExhaustiveCombos
 * combinations; otherwise greedy: jobs are added in profile order, each at its
 * best rotation given the jobs already placed. Ties go to the
 * lexicographically smallest rotation vector (profile order), so the result is
 * deterministic.
 *
 * Across links: a BFS over the bipartite job-link affinity graph (neighbours
 * visited in increasing id, a job's links in increasing id) gives each job one
 * shift. All fixed jobs get shift 0 and are expanded first, in id order; the
 * remaining components are then rooted at their smallest free id, with shift
 * 0. Moving from job cur to neighbour nbr through link l:
 * t_nbr = (t_cur - t^l_cur + t^l_nbr) mod T_nbr. A job reached twice keeps its
 * first (BFS-order) assignment; a loop in the graph whose links disagree thus
 * leaves some edges unhonoured, counted in CassiniResult::inconsistentEdges.
 * Because fixed jobs are expanded before any free one, every link with a fixed
 * job is anchored at a fixed job, and the free jobs reached through it get
 * exactly that link's rotations.
 */

namespace ns3
{

/// Largest circle perimeter (LCM of periods on one link), in time units.
constexpr int64_t kCassiniMaxPerimeter = 10000000;
/// Links with more free jobs than this are searched greedily.
constexpr uint32_t kCassiniMaxExhaustiveJobs = 4;
/// Links whose rotation combinations exceed this are searched greedily.
constexpr uint64_t kCassiniMaxExhaustiveCombos = 200000;

/// One communication phase within an iteration: [start, end) at a fraction of capacity.
struct DemandInterval
{
    int64_t start; ///< start within [0, period)
    int64_t end;   ///< end, start < end <= period
    double demand; ///< fraction of the link capacity, in (0, 1]
};

/// A job as CASSINI sees it: an iteration time and a demand profile per link.
struct CassiniJob
{
    uint32_t id;                                            ///< job id, unique
    int64_t period;                                         ///< iteration time T_j (> 0)
    std::map<uint32_t, std::vector<DemandInterval>> demand; ///< link id -> intervals
    /// Already running on its grid: intervals in absolute phase, shift stays 0.
    bool fixed{false};
};

/// Outcome of ComputeCassiniShifts.
struct CassiniResult
{
    std::map<uint32_t, int64_t> shift;    ///< job id -> time shift in [0, T_j)
    std::map<uint32_t, double> linkScore; ///< link id -> best compatibility score
    /// (job, link) edges whose link-relative shift the global shifts do not honour:
    /// with anchor a (the job through which BFS first expanded link l) and
    /// D = t_a - t^l_a, edge (x, l) is inconsistent when t_x != t^l_x + D (mod T_x).
    uint32_t inconsistentEdges{0};
    /// link id -> shift (in [0, T_j)) that the link's own optimization chose per job.
    std::map<uint32_t, std::map<uint32_t, int64_t>> linkShift;
};

/**
 * Compute CASSINI time shifts.
 * \param jobs the jobs; ids unique, periods > 0, intervals inside [0, period)
 * \param angleSteps number of bins on each link's circle (capped at L)
 * \return per-job shifts, per-link scores and the number of inconsistent edges
 * \throws std::invalid_argument on bad input or when a link's LCM exceeds
 *         kCassiniMaxPerimeter
 */
CassiniResult ComputeCassiniShifts(const std::vector<CassiniJob>& jobs, uint32_t angleSteps = 360);

/**
 * Compatibility score of jobs on one link for given time shifts, evaluated on
 * the same discretized circle as ComputeCassiniShifts (S = min(angleSteps, L)).
 * \param jobs jobs that use \p link
 * \param link the link id
 * \param shift job id -> time shift (any integer, taken mod the job's period)
 * \param angleSteps number of bins
 * \return 1 - mean excess demand over capacity
 */
double CassiniLinkScore(const std::vector<CassiniJob>& jobs,
                        uint32_t link,
                        const std::map<uint32_t, int64_t>& shift,
                        uint32_t angleSteps = 360);

} // namespace ns3

#endif /* CASSINI_PLACEMENT_H */
