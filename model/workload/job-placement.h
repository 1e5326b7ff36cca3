/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef JOB_PLACEMENT_H
#define JOB_PLACEMENT_H

#include "job-spec.h"

#include "ns3/fabric-topology.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Free GPU slots of every host of a cluster, hosts grouped by rack.
 *
 * Hosts are dense host indices 0..H-1 (FabricTopology::GetHostIndex); racks
 * are numbered 0..R-1 in the order given. Every host has the same number of
 * GPUs.
 */
class ClusterSlots
{
  public:
    /**
     * \param racks per rack, its host indices, in the order placement visits
     *        them; together they must hold each of 0..H-1 exactly once
     * \param gpusPerHost GPUs of every host, >= 1
     * \throw std::invalid_argument if a host is missing or repeated, a rack is
     *        empty or gpusPerHost is 0
     */
    ClusterSlots(std::vector<std::vector<uint32_t>> racks, uint32_t gpusPerHost);

    /**
     * Racks from the hosts' `rack` field: one rack per distinct value, racks
     * in increasing value, hosts of a rack in host-index order.
     * \param topo the fabric
     * \param gpusPerHost GPUs of every host, >= 1
     * \throw std::invalid_argument if a host has no rack (-1) or gpusPerHost is 0
     */
    ClusterSlots(const FabricTopology& topo, uint32_t gpusPerHost);

    /// \return number of hosts
    uint32_t GetNHosts() const;
    /// \return number of racks
    uint32_t GetNRacks() const;
    /// \return GPUs of every host
    uint32_t GetGpusPerHost() const;
    /// \return per rack, its host indices
    const std::vector<std::vector<uint32_t>>& GetRacks() const;
    /// \return the rack of host \p host \throw std::out_of_range
    uint32_t RackOf(uint32_t host) const;
    /// \return free GPUs of host \p host \throw std::out_of_range
    uint32_t GetFree(uint32_t host) const;
    /// \return free GPUs of the whole cluster
    uint32_t GetTotalFree() const;
    /// \return GPUs of the whole cluster
    uint32_t GetTotalSlots() const;

    /**
     * Mark \p n GPUs of \p host used.
     * \throw std::out_of_range for an unknown host
     * \throw std::runtime_error if fewer than \p n are free (nothing changes)
     */
    void Take(uint32_t host, uint32_t n);
    /**
     * Mark \p n GPUs of \p host free again.
     * \throw std::out_of_range for an unknown host
     * \throw std::runtime_error if that would exceed the host's GPUs (nothing changes)
     */
    void Give(uint32_t host, uint32_t n);

  private:
    std::vector<std::vector<uint32_t>> m_racks; ///< per rack, host indices
    std::vector<uint32_t> m_rackOf;             ///< per host, its rack
    std::vector<uint32_t> m_free;               ///< per host, free GPUs
    uint32_t m_gpusPerHost;                     ///< GPUs of every host
    uint32_t m_totalFree;                       ///< sum of m_free
};

/// Where the workers of one job run.
struct Placement
{
    uint32_t jobId{0};                ///< JobSpec::id
    std::vector<uint32_t> workerHost; ///< host index per rank, in ring order
};

/**
 * \ingroup collective-scheduling
 * \brief Choose hosts for the workers of a job and allocate their GPUs.
 *
 * A job puts at most spec.gpusPerHost workers on one host. The hosts are
 * chosen by the PlacementPolicy of the spec's placement name (PackedPlacement
 * "packed", SpreadPlacement "spread", RandomPlacement "random", and any
 * other policy registered), except for two names Place handles itself:
 * - explicit: rank i on spec.hosts[i];
 * - scheduler: the scheduler picks one of CandidatePlacements; Place itself
 *   places as packed.
 *
 * Ring order (rank order): except for explicit placement, which keeps the
 * order given, ranks are sorted by (rack, host), so workers of one host are
 * consecutive and hosts of one rack are consecutive: a ring crosses racks
 * only as many times as it has racks (none when it has one).
 *
 * \param spec the job; validated with ModelCatalog::Validate
 * \param slots the cluster; the chosen GPUs are marked used
 * \param seed for random placement: mixed with spec.id, so jobs that share a
 *        run seed still differ; the same (seed, id, free slots) always gives
 *        the same placement, on every platform
 * \return the placement
 * \throw std::invalid_argument for an invalid spec, a job that would not fit
 *        even in the empty cluster, or an explicit host that does not exist
 *        or is listed more often than it has GPUs: errors waiting cannot cure
 * \throw std::runtime_error "not enough free GPUs for job N: needs W, F free
 *        ..." (for explicit placement, naming the host that is too full):
 *        the job may fit once other jobs release their GPUs
 * On any failure \p slots is unchanged.
 */
Placement Place(const JobSpec& spec, ClusterSlots& slots, uint64_t seed = 1);

/**
 * Where a job whose spec leaves placement to the scheduler (placement
 * "scheduler") may run: the packed placement, the spread one, then
 * \p randomCandidates random ones (run seeds \p seed, \p seed + 1, ...), each
 * as Place makes it, duplicates (same hosts in the same ring order) dropped.
 * Place itself, with no scheduler to choose, takes the first (packed).
 * \param spec the job (its placement field is not read)
 * \param slots the cluster, unchanged: nothing is allocated
 * \param seed run seed of the random candidates
 * \param randomCandidates how many random placements to try
 * \return at least one placement, packed first
 * \throw as Place
 */
std::vector<Placement> CandidatePlacements(const JobSpec& spec,
                                           const ClusterSlots& slots,
                                           uint64_t seed = 1,
                                           uint32_t randomCandidates = 4);

/**
 * Free the GPUs of a placement.
 * \throw std::runtime_error if a host would get more free GPUs than it has
 *        (a double release); \p slots is then unchanged
 */
void Release(const Placement& placement, ClusterSlots& slots);

/**
 * \param placement a placement
 * \param rackOf rack of a host index
 * \return the number of ring edges (rank i to rank (i+1) mod N) whose ends
 *         are in different racks; 0 for a single worker
 */
uint32_t CountCrossRackHops(const Placement& placement,
                            const std::function<uint32_t(uint32_t)>& rackOf);

} // namespace ns3

#endif /* JOB_PLACEMENT_H */
