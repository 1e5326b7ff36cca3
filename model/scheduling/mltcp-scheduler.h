/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MLTCP_SCHEDULER_H
#define MLTCP_SCHEDULER_H

#include "collective-scheduler.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief MLTCP (Rajasekaran et al., HotNets 2024): no central decisions at
 * all. Every NIC runs MltcpDcqcn, whose additive increase grows with the
 * job's progress through its iteration, and jobs interleave their
 * communication phases by themselves over a few iterations. The policy only
 * asks for that congestion control, with its Slope and Intercept, and
 * records them with each job it hears of.
 */
class MltcpScheduler : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    /**
     * \return "ns3::MltcpDcqcn[Slope=...|Intercept=...]" with this policy's values
     * \throw std::runtime_error if they do not keep the aggressiveness positive
     */
    std::string GetCongestionControl() const override;

  protected:
    void DoJobArrived(const SchedulerJob& job) override;

  private:
    double m_slope;
    double m_intercept;
};

} // namespace ns3

#endif /* MLTCP_SCHEDULER_H */
