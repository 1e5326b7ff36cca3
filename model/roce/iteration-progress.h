/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ITERATION_PROGRESS_H
#define ITERATION_PROGRESS_H

#include "rdma-congestion-ops.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief How far a job is through its current iteration's bytes from one
 * sender, as MLTCP reads it: the payload bytes sent in the newest iteration
 * over those of the iteration before (whose volume the next one repeats).
 * Kept per job by each NIC (RdmaJobState) and per job and host by the flow
 * level (FlowNetwork).
 */
struct IterationProgress
{
    int64_t iteration{-1};     ///< newest iteration a message of the job was posted for
    uint64_t bytes{0};         ///< payload bytes first sent in that iteration
    uint64_t previousBytes{0}; ///< payload bytes first sent in the iteration before

    /// A message of iteration \p i is posted: a newer iteration starts counting afresh.
    void Post(int64_t i)
    {
        if (i > iteration)
        {
            previousBytes = iteration >= 0 ? bytes : 0;
            bytes = 0;
            iteration = i;
        }
    }

    /// \p n payload bytes of iteration \p i were sent for the first time.
    void Sent(int64_t i, uint64_t n)
    {
        if (i == iteration)
        {
            bytes += n;
        }
    }

    /// Bytes sent this iteration (plus \p inFlight not counted yet) over those of the
    /// previous one, in [0,1]; RdmaCongestionOps::kUnknownProgress in the first
    /// iteration, whose volume is not known yet.
    double Progress(double inFlight = 0) const
    {
        if (previousBytes == 0)
        {
            return RdmaCongestionOps::kUnknownProgress;
        }
        const double f =
            (static_cast<double>(bytes) + inFlight) / static_cast<double>(previousBytes);
        return f < 1.0 ? f : 1.0;
    }
};

} // namespace ns3

#endif /* ITERATION_PROGRESS_H */
