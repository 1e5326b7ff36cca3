/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "mltcp-scheduler.h"

#include "ns3/double.h"
#include "ns3/mltcp-dcqcn.h"
#include "ns3/short-name-registry.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MltcpScheduler);
NS_OBJECT_SHORT_NAME(MltcpScheduler, "mltcp");

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
MltcpScheduler::GetCongestionControl(const std::string& fabricCc) const
{
    MltcpDcqcn::CheckAggressiveness(m_slope, m_intercept, "MltcpScheduler");
    const std::size_t open = fabricCc.find('[');
    TypeId type;
    if (!ShortNameRegistry::LookupFailSafe(RdmaCongestionOps::GetTypeId(),
                                           fabricCc.substr(0, open),
                                           &type) ||
        (type != Dcqcn::GetTypeId() && type != MltcpDcqcn::GetTypeId()))
    {
        throw std::invalid_argument("MLTCP runs on DCQCN: the fabric's congestion control '" +
                                    fabricCc + "' is not " +
                                    ShortNameRegistry::Get(Dcqcn::GetTypeId()) + " or " +
                                    ShortNameRegistry::Get(MltcpDcqcn::GetTypeId()));
    }
    // The fabric's profile and overrides first, so that MLTCP differs from the
    // DCQCN it is compared with only by its scaling.
    std::string items;
    if (open != std::string::npos)
    {
        if (fabricCc.back() != ']')
        {
            throw std::invalid_argument("congestion control '" + fabricCc +
                                        "': attribute values must end with ']'");
        }
        items = fabricCc.substr(open + 1, fabricCc.size() - open - 2);
        items += items.empty() ? "" : "|";
    }
    return "ns3::MltcpDcqcn[" + items + "Slope=" + Exact(m_slope) +
           "|Intercept=" + Exact(m_intercept) + "]";
}

void
MltcpScheduler::DoJobArrived(const SchedulerJob& /* job */)
{
    // Nothing to decide: the NICs' congestion control does the scheduling.
    Note("slope", Exact(m_slope));
    Note("intercept", Exact(m_intercept));
}

} // namespace ns3
