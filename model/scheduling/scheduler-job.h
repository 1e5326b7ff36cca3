/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCHEDULER_JOB_H
#define SCHEDULER_JOB_H

#include "ns3/job-spec.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One fabric connection of a job as a scheduler sees it: the bytes
 * it carries per iteration and the links its ECMP path crosses.
 */
struct SchedulerFlow
{
    uint32_t srcHost{0}; ///< sending host index
    uint32_t dstHost{0}; ///< receiving host index
    uint64_t bytes{0};   ///< payload bytes per iteration
    uint16_t srcPort{0}; ///< UDP source port the connection uses
    /// directed link ids from srcHost to dstHost: 2 x link id, + 1 when crossed from b to a
    std::vector<uint32_t> path;
};

/**
 * \ingroup collective-scheduling
 * \brief One communication op of a job's iteration that crosses the fabric,
 * as it runs when the job is alone: the planners' view of the job's traffic
 * op by op (every byte on the fabric, planned or not).
 */
struct SchedulerOp
{
    uint32_t graphOp{0}; ///< its index in the job's graph
    /// When it starts alone, from the iteration's first planned op's start
    /// (negative: before it, in the compute that precedes it).
    Time start;
    Time duration;       ///< its estimate alone on the default routes
    bool planned{false}; ///< gated and planned (GraphOp::planned)
    /// A planned op's payload bytes per connection: index in SchedulerJob::flows -> bytes.
    std::vector<std::pair<uint32_t, uint64_t>> flowBytes;
    /// Another op's payload bytes per directed link, on its connections' own
    /// paths (routings move the planned connections only).
    std::map<uint32_t, uint64_t> linkBytes;
};

/**
 * \ingroup collective-scheduling
 * \brief What a scheduler knows of a placed job: its spec and placement,
 * its fabric connections, and its communication time per iteration when
 * alone on the fabric, estimated from the placement and the routes (see
 * MakeSchedulerJob).
 */
struct SchedulerJob
{
    uint32_t id{0};
    JobSpec spec;
    /// Per iteration alone: from its start to its first planned collective
    /// (for a data-parallel job of one bucket, its compute).
    Time computeTime;
    /// GPU compute per iteration, summed over the job's ranks (GPU-seconds;
    /// 0: computeTime on every worker).
    double gpuSeconds{0};
    uint64_t gradientBytes{0};        ///< bytes all-reduced per iteration
    std::vector<uint32_t> rankHosts;  ///< host index of every rank
    std::vector<SchedulerFlow> flows; ///< connections over the fabric (same-host ranks excluded)
    /// Per iteration alone: from its first planned collective's start to the
    /// iteration's end (for a data-parallel job of one bucket, its collective).
    Time commTime;
    Time startTime; ///< when the job started (placed)
    /// Its planned ops and its other ops that cross the fabric, by start
    /// alone (empty: a job described by its times alone, whose flows carry
    /// its bytes over commTime).
    std::vector<SchedulerOp> ops;

    /**
     * When each planned op starts alone, from the first one's start, in the
     * order they start (TrainingJob numbers them in the order they become
     * ready, which alone is that order).
     */
    std::vector<Time> PlannedOffsets() const
    {
        std::vector<Time> offsets;
        for (const SchedulerOp& op : ops)
        {
            if (op.planned)
            {
                offsets.push_back(op.start);
            }
        }
        return offsets;
    }

    /// Estimated iteration time when alone: compute then communication.
    Time IsolatedIterationTime() const
    {
        return computeTime + commTime;
    }

    /**
     * Seconds per iteration alone during which the job has bytes on the
     * fabric: the union of its fabric ops' times alone (SchedulerJob::ops,
     * planned or not), or commTime for a job without ops. Crux's t_j.
     */
    Time FabricTime() const;

    /// GPU-seconds of compute per iteration (Crux's work).
    double GpuSeconds() const
    {
        return gpuSeconds > 0 ? gpuSeconds : computeTime.GetSeconds() * spec.workers;
    }
};

/**
 * \ingroup collective-scheduling
 * \brief The narrow control plane a CollectiveScheduler acts through. It
 * reaches every NIC of a job at once; the scheduler adds the control-plane
 * delay before calling it. Every ClusterNetwork is one (the packet-level
 * RoceFabric and the flow-level FlowNetwork each pull the levers their own
 * way), and so are test doubles. A new lever is a method here and its
 * implementation in the two networks.
 */
class SchedulerControl
{
  public:
    virtual ~SchedulerControl() = default;

    /// Open or close job \p job's gate on all its NICs, now.
    virtual void SetGate(uint32_t job, bool open) = 0;
    /// Traffic class (0-6) of the job's new queue pairs on all its NICs; -1 restores the default.
    virtual void SetPriorityClass(uint32_t job, int16_t cls) = 0;
    /// Multiplier of the additive increase of the job's queue pairs on all its NICs.
    virtual void SetRateWeight(uint32_t job, double weight) = 0;
    /// UDP source port of the job's new queue pairs from \p srcHost to \p dstHost.
    virtual void SetSourcePort(uint32_t job, uint32_t srcHost, uint32_t dstHost, uint16_t port) = 0;

    /**
     * Directed links from \p srcHost to \p dstHost for UDP source port \p port:
     * 2 x link id, + 1 when the link is crossed from its end b to its end a
     * (each direction of a full-duplex link is its own resource).
     */
    virtual std::vector<uint32_t> GetDirectedPath(uint32_t srcHost,
                                                  uint32_t dstHost,
                                                  uint16_t port) const = 0;
    /// Line rate of directed link \p link, bit/s.
    virtual uint64_t GetLinkRateBps(uint32_t link) const = 0;

    /**
     * The rack a rack-level scheduler plans host \p host in: its edge switch's rack
     * (FabricTopology::GetSchedulingRack: on a rail-optimized fabric, its rail group);
     * -1 if unknown (the default).
     */
    virtual int32_t GetHostRack(uint32_t /* host */) const
    {
        return -1;
    }
};

/**
 * \ingroup collective-scheduling
 * The share of each directed link a job uses while it communicates: its
 * busy time per iteration there (payload bits over the line rate) over its
 * communication time, capped at 1. Links it does not use are absent.
 */
std::map<uint32_t, double> LinkShares(const SchedulerJob& job, const SchedulerControl& control);

/**
 * \ingroup collective-scheduling
 * Checks a scheduler's input jobs (each with a uint32_t id) one by one:
 * \p fail(where + "duplicate job id") on an id seen before, else
 * \p check(job, where), where ("job <id>: ") beginning the job's errors.
 */
template <typename Job, typename Fail, typename Check>
void
CheckJobsWithUniqueIds(const std::vector<Job>& jobs, Fail fail, Check check)
{
    std::set<uint32_t> ids;
    for (const Job& j : jobs)
    {
        const std::string where = "job " + std::to_string(j.id) + ": ";
        if (!ids.insert(j.id).second)
        {
            fail(where + "duplicate job id");
        }
        check(j, where);
    }
}

} // namespace ns3

#endif /* SCHEDULER_JOB_H */
