/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PLACEMENT_POLICY_H
#define PLACEMENT_POLICY_H

#include "job-spec.h"

#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class ClusterSlots;

/// What a PlacementPolicy places: one job on the cluster as it is now.
struct PlacementRequest
{
    const JobSpec& spec;       ///< the job: its spec.workers workers are placed
    const ClusterSlots& slots; ///< the cluster (racks, hosts)
    /// Per host, the GPUs the job may take there (free, and at most
    /// spec.gpusPerHost); they add up to at least spec.workers.
    std::vector<uint32_t> room;
    uint64_t seed; ///< the run's placement seed, for a policy that draws
};

/**
 * \ingroup collective-scheduling
 * \brief How a job's workers are laid on the cluster's free GPUs: a family
 * of classes found by short name ("packed", "spread", "random"), as
 * collectives and schedulers are (ShortNameRegistry). A new policy is one
 * class with NS_OBJECT_SHORT_NAME; its name is then valid in scenario
 * files, traces and flags.
 *
 * Place checks the job against the cluster and sorts the chosen hosts into
 * ring order; a policy only picks hosts. Two placement names are Place's
 * own, not policies: "explicit" (the hosts the spec lists) and "scheduler"
 * (the scheduler picks one of CandidatePlacements; with no scheduler to
 * ask, "packed").
 */
class PlacementPolicy : public Object
{
  public:
    static TypeId GetTypeId();

    /// The host of each of the request's workers, within its room.
    virtual std::vector<uint32_t> Choose(PlacementRequest request) const = 0;

    /// The policy of short name or TypeId name \p name. \throw std::invalid_argument
    static Ptr<PlacementPolicy> Create(const std::string& name);

    /// Every placement name a job may give: the policies' and Place's own, sorted.
    static std::vector<std::string> GetNames();

  protected:
    /// Hosts in order, each given up to its room, until \p need workers are placed.
    static void FillInOrder(const std::vector<uint32_t>& hosts,
                            std::vector<uint32_t>& room,
                            uint32_t& need,
                            std::vector<uint32_t>& out);
};

} // namespace ns3

#endif /* PLACEMENT_POLICY_H */
