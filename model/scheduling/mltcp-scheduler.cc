/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "mltcp-scheduler.h"

#include "ns3/double.h"
#include "ns3/mltcp-dcqcn.h"

#include <nlohmann/json.hpp>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MltcpScheduler);

namespace
{

/// \p v in the fewest digits that read back as the same double (JSON number syntax).
std::string
Exact(double v)
{
    return nlohmann::json(v).dump();
}

} // namespace

TypeId
MltcpScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MltcpScheduler")
            .SetParent<CollectiveScheduler>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<MltcpScheduler>()
            .AddAttribute("Slope",
                          "Slope of the aggressiveness F = Slope x progress + Intercept of "
                          "every NIC's MltcpDcqcn.",
                          DoubleValue(MltcpDcqcn::kDefaultSlope),
                          MakeDoubleAccessor(&MltcpScheduler::m_slope),
                          MakeDoubleChecker<double>())
            .AddAttribute("Intercept",
                          "Intercept of F (its value at progress 0).",
                          DoubleValue(MltcpDcqcn::kDefaultIntercept),
                          MakeDoubleAccessor(&MltcpScheduler::m_intercept),
                          MakeDoubleChecker<double>());
    return tid;
}

std::string
MltcpScheduler::GetName() const
{
    return "mltcp";
}

std::string
MltcpScheduler::GetCongestionControl() const
{
    MltcpDcqcn::CheckAggressiveness(m_slope, m_intercept, "MltcpScheduler");
    return "ns3::MltcpDcqcn[Slope=" + Exact(m_slope) + "|Intercept=" + Exact(m_intercept) + "]";
}

void
MltcpScheduler::DoJobArrived(const SchedulerJob& /* job */)
{
    // Nothing to decide: the NICs' congestion control does the scheduling.
    Note("slope", Exact(m_slope));
    Note("intercept", Exact(m_intercept));
}

} // namespace ns3
