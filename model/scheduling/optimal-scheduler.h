/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef OPTIMAL_SCHEDULER_H
#define OPTIMAL_SCHEDULER_H

#include "symphony-scheduler.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The quality reference: the whole run planned at once.
 *
 * On every job arrival (once for jobs arriving at the same time) and
 * departure (not at epochs or completions) it
 * plans every remaining collective of every job (all iterations, compute
 * times from the job model, every candidate routing, which include the
 * least-loaded assignment Crux uses) for the sum of the jobs' completion
 * times, the figures' metric: a job's last collective weighs 1, the others
 * 1e-3 (to start them early where that costs nothing). Slots are
 * SlotLength, or longer so that the horizon (every remaining collective one
 * after the other: always enough) stays within MaxSlots. CBC solves it with
 * a zero gap within OfflineTimeLimit; the plan notes say whether it is proven.
 * Its solve is not charged in simulated time (a reference computed offline).
 *
 * Beside the plan it notes a lower bound on the jobs' mean completion time
 * that holds for any policy on the model's estimates (PlanLowerBound: the LP
 * of a preemptive, rate-sharing relaxation, unrounded times, the slots cut
 * into up to BoundResolution steps while the LP stays within
 * BoundMaxVariables). If the LP cannot be solved, the bound is each job's
 * remaining collectives on its fastest route alone, with the compute
 * between them (noted as such).
 */
class OptimalScheduler : public SymphonyScheduler
{
  public:
    static TypeId GetTypeId();

    /// The planned and bound mean completion times of the last plan, seconds from job start.
    struct Reference
    {
        double plannedMeanSeconds{0}; ///< mean over jobs of the planned completion
        double boundMeanSeconds{0};   ///< lower bound, any policy
        bool proven{false};           ///< the plan is proven optimal
        bool boundFromLp{false};      ///< the bound is the LP's (else the chains alone)
    };

    /// The last plan's reference values.
    const Reference& GetReference() const
    {
        return m_reference;
    }

  protected:
    Coverage Cover(const std::map<uint32_t, ChainNeed>& needs) override;
    double CollectiveWeight(double jobWeight, uint32_t k, uint32_t n) const override;
    bool ReplansOnEvents() const override;
    Plan PlanEpoch(const PlanInstance& instance) override;

  private:
    uint32_t m_maxSlots;
    Time m_offlineTimeLimit;
    uint32_t m_boundResolution;
    uint32_t m_boundMaxVariables;
    std::map<uint32_t, ChainNeed> m_needs; ///< of the instance being planned
    Coverage m_cover;                      ///< of the instance being planned
    Reference m_reference;
};

} // namespace ns3

#endif /* OPTIMAL_SCHEDULER_H */
