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
 * \brief The papers' "optimal scheduling" baseline: Symphony's planner
 * (the same planning points, instance, candidate routes and objective)
 * solved to proven optimality, its solve time not charged in simulated
 * time. Each plan is solved with a zero gap within ProofTimeLimit; a plan
 * the limit cut short is flagged (an "unproven" note beside the plan, and a
 * warning at the end of the run). So it differs from Symphony only where
 * Symphony's gap, time limit or solve time cost something: at or below it
 * wherever the model (communication estimated alone, rounded to slots) is
 * right. With ChargeSolveTime its plans take effect after Symphony's
 * modelled solve time, as Symphony's do: on a cluster where plans at every
 * event cannot all be proven in reasonable time, it then plans as often as
 * Symphony does and differs from it only by the solve.
 *
 * With Reference (default), once the jobs arriving at one time have all
 * arrived (or only once the ReferenceJobs-th job has), it also notes a
 * reference of the whole run, which it does not act on:
 * - planned: the mean completion time of the best schedule of every
 *   remaining collective of every job on the model (all iterations, compute
 *   times from the job model, every candidate routing; a job's last
 *   collective weighs 1, the others 1e-3, to start them early where that
 *   costs nothing), on a horizon that always fits them (their communication
 *   one after the other, plus the longest chain of compute) cut into
 *   MaxSlots slots of SlotLength or longer (plus two slots a collective for
 *   rounding), solved by CBC with a zero gap within ReferenceTimeLimit
 *   ("proven" says whether it finished);
 * - bound: a lower bound on the jobs' mean completion time that holds for
 *   any policy on the model's estimates (PlanLowerBound: the LP of a
 *   preemptive, rate-sharing relaxation, unrounded times, the slots cut
 *   into up to BoundResolution steps while the LP stays within
 *   BoundMaxVariables); if the LP cannot be solved, each job's remaining
 *   collectives on its fastest route alone, with the compute between them.
 * Executed against planned is the model's error; a policy against optimal
 * executed is what the policy leaves (doc/figures.md, the gap table).
 */
class OptimalScheduler : public SymphonyScheduler
{
  public:
    static TypeId GetTypeId();

    /// The whole-run reference, mean completion times in seconds from job start.
    struct Reference
    {
        double plannedMeanSeconds{0}; ///< mean over jobs of the planned completion
        double boundMeanSeconds{0};   ///< lower bound, any policy
        bool proven{false};           ///< the whole-run plan is proven optimal
        bool boundFromLp{false};      ///< the bound is the LP's (else the chains alone)
        uint32_t jobs{0};             ///< jobs it covers
    };

    /// The last reference noted.
    const Reference& GetReference() const
    {
        return m_reference;
    }

    /// Plans made so far that the proof limit cut short.
    uint32_t GetUnprovenPlans() const
    {
        return m_unproven;
    }

  protected:
    void DoDispose() override;
    void DoJobArrived(const SchedulerJob& job) override;
    Plan PlanEpoch(const PlanInstance& instance) override;

  private:
    /// Plan the whole run on the model and bound it (Reference); note both.
    void NoteReference();

    Time m_proofTimeLimit;
    bool m_chargeSolve;
    bool m_withReference;
    uint32_t m_referenceJobs;
    uint32_t m_arrived{0}; ///< jobs arrived so far
    uint32_t m_maxSlots;
    Time m_referenceTimeLimit;
    uint32_t m_boundResolution;
    uint32_t m_boundMaxVariables;
    uint32_t m_unproven{0};
    EventId m_referenceEvent; ///< the reference of the jobs arriving now
    Reference m_reference;
};

} // namespace ns3

#endif /* OPTIMAL_SCHEDULER_H */
