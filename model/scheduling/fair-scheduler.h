/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FAIR_SCHEDULER_H
#define FAIR_SCHEDULER_H

#include "collective-scheduler.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Fair sharing: never gates, never prioritizes; congestion control
 * (DCQCN) alone shares the links. The baseline every figure normalizes to.
 */
class FairScheduler : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId();
};

/**
 * \ingroup collective-scheduling
 * \brief The policy of an isolated run: each job runs alone on the fabric
 * (ScenarioRunner makes one simulation per job), so nothing is shared and
 * nothing needs scheduling. Its times are the lower bound of every policy.
 */
class IsolatedScheduler : public FairScheduler
{
  public:
    static TypeId GetTypeId();
};

} // namespace ns3

#endif /* FAIR_SCHEDULER_H */
