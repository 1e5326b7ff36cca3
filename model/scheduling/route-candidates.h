/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROUTE_CANDIDATES_H
#define ROUTE_CANDIDATES_H

#include "scheduler-job.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

/**
 * \file
 * Routes as scheduling decisions. A job's connections between two hosts
 * form a group that takes one ECMP path, chosen by the UDP source port its
 * NICs put on the queue pairs (CollectiveScheduler::SetSourcePort). This
 * file finds the distinct paths of a host pair by probing ports, picks the
 * least-loaded one (Crux's path selection), and builds the candidate
 * routings of a job that the epoch planners choose among: its default ECMP
 * paths, the least-loaded assignment of all jobs, and a few randomised ones.
 */

namespace ns3
{

/// A distinct path between two hosts (directed link ids) and the smallest port leading to it.
struct PortPath
{
    uint16_t port{0};
    std::vector<uint32_t> links;
};

/**
 * \ingroup collective-scheduling
 * \brief The distinct ECMP paths between host pairs, found by probing UDP
 * source ports through SchedulerControl::GetDirectedPath, cached per pair.
 */
class EcmpPathProbe
{
  public:
    /// \param probes ports probed per host pair
    explicit EcmpPathProbe(uint32_t probes = 64);

    /// Probe port \p i (0-based): 0xC000 + (i x 40503 mod 0x4000), distinct for i < 0x4000.
    static uint16_t ProbePort(uint32_t i);

    /// Change the number of probes (drops the cache if it changes).
    void SetProbes(uint32_t probes);

    /// Distinct paths of the probe ports from \p src to \p dst, by increasing port.
    const std::vector<PortPath>& Paths(const SchedulerControl& control, uint32_t src, uint32_t dst);

    /**
     * The probed paths plus those of \p ownPorts (a group's ports as created):
     * every path the group can take, each with the smallest port leading to it.
     */
    std::vector<PortPath> Candidates(const SchedulerControl& control,
                                     uint32_t src,
                                     uint32_t dst,
                                     const std::set<uint16_t>& ownPorts);

    void Clear();

  private:
    uint32_t m_probes;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<PortPath>> m_cache;
};

/**
 * \ingroup collective-scheduling
 * Crux's path choice: the candidate whose most loaded link carries the least
 * load (\p load: link -> seconds per iteration), then the least total load,
 * then \p current (when its path is among the candidates: do not move a group
 * for nothing), then the smallest port.
 * \return the chosen candidate; nullptr if \p candidates is empty
 */
const PortPath* LeastLoadedPath(const std::vector<PortPath>& candidates,
                                const std::map<uint32_t, double>& load,
                                const std::vector<uint32_t>* current = nullptr);

/// The connections of a job between one host pair: they share one port choice.
struct ConnectionGroup
{
    uint32_t src{0};
    uint32_t dst{0};
    uint64_t bytes{0};           ///< payload bytes per iteration
    std::set<uint16_t> ownPorts; ///< the ports the connections were created with
};

/// The groups of \p job's connections, in order of first appearance.
std::vector<ConnectionGroup> GroupConnections(const SchedulerJob& job);

/// Where PlaceGroup put a connection group.
struct GroupPlacement
{
    const PortPath* path{nullptr}; ///< the chosen candidate (LeastLoadedPath)
    uint16_t port{0};              ///< its port; the current one if the path is the current path
    bool moved{false};             ///< the port differs from the current one
    double peak{0};                ///< the busiest of its links' loads before the group was added
};

/**
 * \ingroup collective-scheduling
 * Put connection group \p g, whose queue pairs use port \p current now (0:
 * each its own), on the least loaded of \p candidates (LeastLoadedPath: ties
 * keep the current path) and add the seconds its bytes take on each of that
 * path's links to \p load. Crux's and the isolated runs' path choice.
 * \throws std::runtime_error if a link of the path has no rate
 * \return the placement; its path is nullptr if \p candidates is empty
 */
GroupPlacement PlaceGroup(const SchedulerControl& control,
                          const ConnectionGroup& g,
                          const std::vector<PortPath>& candidates,
                          uint16_t current,
                          std::map<uint32_t, double>& load);

/**
 * \ingroup collective-scheduling
 * What one op of a job (SchedulerOp) uses of the links on a routing: its
 * share of each directed link from begin to end, times from the job's first
 * planned op's start, as it runs alone.
 */
struct LinkUse
{
    Time begin; ///< negative: in the compute before the first planned op
    Time end;
    std::map<uint32_t, double> shares; ///< link -> share, in (0, 1]
};

/**
 * \ingroup collective-scheduling
 * One candidate routing of a job: the source port of each of its groups
 * (a group absent from #ports keeps its connections' own ports: the default
 * ECMP paths), what it uses of every directed link and how long its
 * communication takes on it.
 */
struct JobRouting
{
    std::string kind; ///< "default", "least-loaded", "random" or "kept"
    std::map<std::pair<uint32_t, uint32_t>, uint16_t> ports; ///< (src, dst) -> source port
    std::map<uint32_t, double> busySeconds; ///< link -> payload seconds per iteration
    std::map<uint32_t, double> shares;      ///< link -> share while communicating, (0, 1]
    Time commTime;                          ///< estimated communication per iteration
    /**
     * Its ops' use of the links, op by op (SchedulerJob::ops, empty for a
     * job without them): each op's bytes on the routing's paths over its
     * time alone, stretched where the routing loads one of its links beyond
     * its line rate (the op then takes that much longer).
     */
    std::vector<LinkUse> uses;
    /// Whether it is the job's part of the least-loaded assignment of all jobs
    /// together (whatever its kind: a duplicate of the default keeps "default").
    bool joint{false};

    /// Whether both routings put the same bytes on the same links.
    bool SameLinks(const JobRouting& other) const;
};

/**
 * The default routing of \p job: every connection on its own port's ECMP
 * path; its communication time is the job's estimate (SchedulerJob::commTime).
 */
JobRouting DefaultRouting(const SchedulerJob& job, const SchedulerControl& control);

/**
 * The routing of \p job with each group in \p ports on the path its port
 * leads to (the others on their default paths). Its communication time
 * scales the job's estimate by the ratio of its busiest link's load to the
 * default routing's: the ring's steps are paced by the busiest link either way.
 */
JobRouting RoutingWithPorts(const SchedulerJob& job,
                            const SchedulerControl& control,
                            const std::map<std::pair<uint32_t, uint32_t>, uint16_t>& ports,
                            const std::string& kind);

/**
 * \ingroup collective-scheduling
 * The candidate routings the epoch planners choose among, per job: [0] the
 * default; then the least-loaded assignment of all jobs (Crux's order:
 * decreasing GPU intensity, each group onto the least-loaded of its paths
 * given the groups placed before it); then \p randomRoutings with each group
 * on a path drawn from its candidates (seeded by \p seed and the job id).
 * A routing that puts the same bytes on the same links as an earlier one is
 * left out. Jobs without fabric connections get their default only.
 *
 * \p current, if given, has the routing each job is on now: the joint
 * assignment places each group with PlaceGroup from the port it uses there,
 * so that, as with Crux, a tie keeps a group where it is. Without it a tie
 * goes to the smallest port, and recomputing the assignment on every
 * arrival moves groups back and forth between paths of equal load.
 */
std::map<uint32_t, std::vector<JobRouting>> CandidateRoutings(
    const std::map<uint32_t, SchedulerJob>& jobs,
    const SchedulerControl& control,
    EcmpPathProbe& probe,
    uint32_t randomRoutings,
    uint64_t seed,
    const std::map<uint32_t, const JobRouting*>* current = nullptr);

} // namespace ns3

#endif /* ROUTE_CANDIDATES_H */
