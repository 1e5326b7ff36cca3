/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ITERATION_TIME_ACCOUNT_H
#define ITERATION_TIME_ACCOUNT_H

#include "job-graph.h"

#include "ns3/nstime.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Where an iteration's time went, in nanoseconds, as the mean over
 * the job's ranks. compute + exposed (every group) + gateWait + bubble is
 * the iteration's duration, on every rank and so in the mean.
 */
struct IterationTime
{
    static constexpr std::size_t kGroups = 5; ///< CommGroup values

    double computeNs{0};    ///< the rank computed (with or without communication)
    double overlappedNs{0}; ///< the rank computed and communicated at once (part of compute)
    /// The rank only communicated, by CommGroup; time two groups share is split evenly.
    std::array<double, kGroups> exposedNs{};
    /// The rank only waited for a gated (planned) op whose gate was closed.
    double gateWaitNs{0};
    /// The rank did nothing: it waited for another rank (a pipeline bubble,
    /// or the slowest rank of a collective it has finished).
    double bubbleNs{0};

    double Exposed(CommGroup group) const
    {
        return exposedNs[static_cast<std::size_t>(group)];
    }

    /// Exposed communication of every group.
    double ExposedTotal() const;

    /// The sum of the parts: the iteration's duration.
    double Total() const;

    /// Every part plus \p other's.
    IterationTime& operator+=(const IterationTime& other);

    /// Every part times \p factor.
    IterationTime Scaled(double factor) const;
};

/**
 * \ingroup collective-scheduling
 * \brief Splits each rank's time in an iteration by what it was doing:
 * computing, only communicating (by group), waiting at a closed gate, or
 * idle. Each rank keeps counts of its running ops and the time it last
 * changed; a change charges the time since to the state it was in, so an
 * op's start or end costs O(its ranks), and a gate change O(ranks).
 */
class IterationTimeAccount
{
  public:
    /// Begin an iteration of \p ranks ranks at \p now (the gate keeps its state).
    void Begin(uint32_t ranks, Time now);
    /// \p op started on its ranks at \p now.
    void OpStarted(const GraphOp& op, Time now);
    /// \p op ended on its ranks at \p now.
    void OpDone(const GraphOp& op, Time now);
    /// The job's gate (on its planned ops) opened or closed at \p now.
    void SetGateOpen(bool open, Time now);
    /// The iteration ended at \p now: its parts, as the mean over ranks.
    IterationTime End(Time now);

  private:
    struct RankState
    {
        uint32_t compute{0};                                  ///< compute ops running
        std::array<uint32_t, IterationTime::kGroups> comm{};  ///< comm ops running, by group
        std::array<uint32_t, IterationTime::kGroups> gated{}; ///< of them, planned (gated)
        int64_t sinceNs{0};                                   ///< last change
    };

    /// Charge rank \p r's time up to \p nowNs to the state it is in.
    void Charge(RankState& r, int64_t nowNs);
    void Change(const GraphOp& op, Time now, int delta);

    std::vector<RankState> m_ranks;
    IterationTime m_sum; ///< over ranks
    bool m_gateOpen{true};
};

} // namespace ns3

#endif /* ITERATION_TIME_ACCOUNT_H */
