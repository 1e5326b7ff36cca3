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
 * asks for that congestion control, with the fabric's DCQCN parameters and
 * its own Slope and Intercept, and records them with each job it hears of.
 */
class MltcpScheduler : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId();
    /**
     * \param fabricCc the fabric's congestion control: DCQCN ("dcqcn",
     *        "ns3::Dcqcn") or MLTCP's ("mltcp-dcqcn", "ns3::MltcpDcqcn"), with
     *        or without attribute values
     * \return "ns3::MltcpDcqcn[<fabricCc's values>|Slope=...|Intercept=...]":
     *         the fabric's DCQCN profile and overrides, then this policy's
     *         Slope and Intercept (which win)
     * \throw std::runtime_error if Slope and Intercept do not keep the
     *        aggressiveness positive
     * \throw std::invalid_argument if \p fabricCc is not DCQCN
     */
    std::string GetCongestionControl(const std::string& fabricCc) const override;

  protected:
    void DoJobArrived(const SchedulerJob& job) override;

  private:
    double m_slope;
    double m_intercept;
};

} // namespace ns3

#endif /* MLTCP_SCHEDULER_H */
