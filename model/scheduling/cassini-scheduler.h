/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CASSINI_SCHEDULER_H
#define CASSINI_SCHEDULER_H

#include "cassini-placement.h"
#include "collective-scheduler.h"
#include "route-candidates.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief CASSINI (Rajasekaran et al., NSDI 2024): jobs that share links are
 * given time shifts so that their communication phases interleave, and each
 * job is then kept on its shifted grid with its gate.
 *
 * Placement (on job arrival). The job's period T is its isolated iteration
 * time (compute C then communication), its communication phase [C, C + comm)
 * of every period; both in units of TimeQuantum, the period rounded up (a
 * grid shorter than the iteration would make the job late every period).
 * Its demand on each link is its pattern from the job's timeline alone:
 * each op that crosses the fabric (SchedulerJob::ops, planned or not: DP
 * buckets, pipeline sends, expert all-to-alls) uses its links at its share
 * over its own interval of the iteration, as CASSINI's profiles are
 * measured from a job running alone. A job known by its times alone (no
 * ops) uses each link its flows cross at the link's busy time per iteration
 * over comm, capped at 1, over [C, C + comm). Every job already running is a fixed job
 * of the geometric core (ComputeCassiniShifts): its communication phase at
 * its own grid, in absolute phase. Only running jobs that share a link with
 * the new one take part, and only on those links: the others cannot change
 * the new job's shift. If a link's circle (the LCM of the periods on it, in
 * quanta) is too large, the quantum is doubled until it fits. The chosen
 * shift s puts the new job's communication at absolute times = C + s
 * (mod T); its grid anchor is the first such time not before its start + C.
 *
 * Loops in the job-link affinity graph: the core assigns shifts by a BFS that
 * expands the fixed jobs first; a free job reached through several links
 * keeps the shift of the first (BFS-order) link, i.e. the link of the running
 * job with the smallest id. The links whose own best shift is not honoured
 * are counted (inconsistent edges) and noted with the decision.
 *
 * Gating (every iteration). A job's gates start closed. When its first
 * bucket is ready, let g be the last grid point (anchor + nT) not after now:
 * if the job is at most LateTolerance * T past g, the gate opens at once;
 * otherwise (or before the anchor) it opens at the next grid point. The
 * gate closes when the iteration's last bucket is done. The tolerance is
 * there because a job runs a little late now and then (contention, the
 * control-plane delay): losing a whole period for a small delay would cost
 * far more than the small overlap with the neighbour's slot. A job that is
 * far off its grid would overlap much of its neighbour's slot, so it waits
 * for its own.
 *
 * Work conservation: the grid only keeps a job out of its neighbours'
 * slots, so a job is held only while a job that shares one of its links
 * has its gate open. A job ready off its grid whose links no open job
 * uses opens at once, and a held job opens as soon as the last open job
 * on its links closes (both noted as "work_conserving"); the grid point it
 * was waiting for is then dropped. Without this a job alone on its links
 * would wait up to PeriodSlack of every period, and a job that missed its
 * grid point by more than LateTolerance would idle a whole period on free
 * links.
 *
 * A job without fabric flows (all ranks on one host) needs no slot: its gate
 * opens on arrival and stays open.
 */
class CassiniScheduler : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId();
    CassiniScheduler();
    ~CassiniScheduler() override;

    bool StartsJobsGated() const override;

    /**
     * Placement (for a job that leaves it to the scheduler): each candidate
     * is fitted as an arriving job would be (its links, the running jobs
     * that share them, the best shifts), and scored by its worst link's
     * compatibility score, ties broken by the mean over its links, then by
     * candidate order. A candidate without fabric flows scores 1. The
     * scores are noted with the job's arrival.
     * \return the index of the best-scoring candidate
     */
    std::size_t ChoosePlacement(const std::vector<SchedulerJob>& candidates) override;

  protected:
    void DoJobArrived(const SchedulerJob& job) override;
    void DoCollectiveReady(uint32_t job, uint32_t iteration, uint32_t bucket) override;
    void DoCollectiveDone(uint32_t job, uint32_t iteration, uint32_t bucket) override;
    void DoJobDone(uint32_t job) override;

  private:
    /// Where a placed job communicates: from anchor + n * period, for comm.
    struct JobGrid
    {
        Time anchor;                           ///< start of the first communication phase
        Time period;                           ///< grid spacing (quantized iteration time)
        Time comm;                             ///< quantized communication phase length
        uint32_t buckets{1};                   ///< buckets per iteration
        std::map<uint32_t, double> linkDemand; ///< link id -> fraction of its capacity (its peak)
        std::vector<LinkUse> uses;             ///< its ops' use of the links, from the anchor
        bool open{false};                      ///< gate opened for this iteration, not closed
        EventId heldUntil;                     ///< pending grid-point open of a held job
    };

    /// A job fitted against the running jobs on its links (quantized, in quanta).
    struct Fit
    {
        int64_t quantum{1};               ///< time steps per quantum
        int64_t period{1};                ///< grid period
        int64_t compute{0};               ///< compute phase
        int64_t comm{1};                  ///< communication phase
        std::vector<uint32_t> neighbours; ///< running jobs sharing a link, by id
        CassiniResult result;             ///< shifts and link scores
        double minScore{1};               ///< worst score over the job's links
        double meanScore{1};              ///< mean score over the job's links
    };

    /// Fits \p job, whose demand is \p linkDemand and \p uses, against the running jobs.
    Fit FitJob(const SchedulerJob& job,
               const std::map<uint32_t, double>& linkDemand,
               const std::vector<LinkUse>& uses) const;

    /// \p job's uses of the links op by op (LinkUse, empty for a job without
    /// ops) and, in \p linkDemand, each link's peak share.
    std::vector<LinkUse> Pattern(const SchedulerJob& job,
                                 std::map<uint32_t, double>& linkDemand) const;

    /// Whether jobs \p a and \p b share a link.
    static bool SharesLink(const JobGrid& a, const JobGrid& b);
    /// Whether no other job with an open gate shares a link with job \p id.
    bool LinksIdle(uint32_t id) const;
    /// Opens the gates of held jobs whose links no open job uses any more.
    void ReleaseIdleHeldJobs();

    uint32_t m_angleSteps;
    Time m_timeQuantum;
    double m_periodSlack;
    double m_lateTolerance;
    std::map<uint32_t, JobGrid> m_grids; ///< placed jobs with a slot, by id
    /// Job id -> candidate scores (JSON) and choice, noted when the job arrives.
    std::map<uint32_t, std::pair<std::string, std::size_t>> m_placementNotes;
};

} // namespace ns3

#endif /* CASSINI_SCHEDULER_H */
