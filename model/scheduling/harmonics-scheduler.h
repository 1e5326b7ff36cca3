/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HARMONICS_SCHEDULER_H
#define HARMONICS_SCHEDULER_H

#include "epoch-scheduler.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Harmonics (CoNEXT 2025): a light Global Coordinator and one Local
 * Scheduler per rack.
 *
 * At each epoch (and job arrival and departure) the instance is split: a
 * job whose ranks all sit in one rack belongs to that rack's Local
 * Scheduler; the others (crossing racks) to the Global Coordinator. The
 * coordinator places its collectives greedily (Smith's rule, earliest
 * feasible slot on a capacity ledger of the links they use, GreedyPlan) and
 * hands the capacity they take to the local schedulers as reservations;
 * each local scheduler then solves the time-indexed MILP for its rack's
 * jobs over its rack's links (with CBC, TimeLimit, RelativeGap). Local
 * schedulers are independent (parallel in a deployment), so the scheduling
 * time of an epoch is the coordinator's time plus the slowest local solve;
 * each part is recorded ("coordinator", "local", "scheduling").
 *
 * When every job stays inside a rack there is nothing to coordinate and the
 * local MILPs together are Symphony's MILP (racks share no links).
 */
class HarmonicsScheduler : public EpochScheduler
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;

  protected:
    Plan PlanEpoch(const PlanInstance& instance) override;
};

} // namespace ns3

#endif /* HARMONICS_SCHEDULER_H */
