/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "mltcp-dcqcn.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/short-name-registry.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MltcpDcqcn");
NS_OBJECT_ENSURE_REGISTERED(MltcpDcqcn);
NS_OBJECT_SHORT_NAME(MltcpDcqcn, "mltcp-dcqcn");

TypeId
MltcpDcqcn::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MltcpDcqcn")
            .SetParent<Dcqcn>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<MltcpDcqcn>()
            .AddAttribute("Slope",
                          "Slope of the aggressiveness F = Slope x progress + Intercept that "
                          "scales every increase step and divides the decrease.",
                          DoubleValue(kDefaultSlope),
                          MakeDoubleAccessor(&MltcpDcqcn::m_slope),
                          MakeDoubleChecker<double>())
            .AddAttribute("Intercept",
                          "Intercept of F (its value at progress 0); F must stay positive "
                          "over progress in [0,1]. While the progress is unknown (a job's "
                          "first iteration) F is Intercept + Slope / 2.",
                          DoubleValue(kDefaultIntercept),
                          MakeDoubleAccessor(&MltcpDcqcn::m_intercept),
                          MakeDoubleChecker<double>());
    return tid;
}

MltcpDcqcn::MltcpDcqcn()
{
    NS_LOG_FUNCTION(this);
}

MltcpDcqcn::MltcpDcqcn(const MltcpDcqcn& other)
    : Dcqcn(other),
      m_slope(other.m_slope),
      m_intercept(other.m_intercept)
{
    NS_LOG_FUNCTION(this);
}

MltcpDcqcn::~MltcpDcqcn()
{
    NS_LOG_FUNCTION(this);
}

std::string
MltcpDcqcn::GetName() const
{
    return "MltcpDcqcn";
}

Ptr<RdmaCongestionOps>
MltcpDcqcn::Fork() const
{
    return CopyObject<MltcpDcqcn>(this);
}

void
MltcpDcqcn::CheckAggressiveness(double slope, double intercept, const std::string& where)
{
    // F is linear in progress, so it is positive on [0,1] iff it is at both ends.
    if (!(std::isfinite(slope) && std::isfinite(intercept) && intercept > 0 &&
          slope + intercept > 0))
    {
        std::ostringstream msg;
        msg << where << ": attributes Slope (" << slope << ") and Intercept (" << intercept
            << ") must keep F = Slope x progress + Intercept positive for progress in [0,1] "
               "(Intercept > 0 and Slope + Intercept > 0)";
        throw std::runtime_error(msg.str());
    }
}

void
MltcpDcqcn::Init(DataRate lineRate, Time now)
{
    NS_LOG_FUNCTION(this << lineRate << now);
    CheckAggressiveness(m_slope, m_intercept, "MltcpDcqcn");
    Dcqcn::Init(lineRate, now);
}

void
MltcpDcqcn::SetProgress(double fraction)
{
    NS_ABORT_MSG_UNLESS((fraction >= 0.0 && fraction <= 1.0) || fraction == kUnknownProgress,
                        "MltcpDcqcn: progress " << fraction
                                                << " is outside [0,1] and not kUnknownProgress");
    m_progress = fraction;
}

bool
MltcpDcqcn::UsesProgress() const
{
    return true;
}

DataRate
MltcpDcqcn::GetAdditiveIncrease() const
{
    const double step = static_cast<double>(Dcqcn::GetAdditiveIncrease().GetBitRate());
    return DataRate(static_cast<uint64_t>(std::llround(step * GetAggressiveness())));
}

double
MltcpDcqcn::GetStepScale() const
{
    return GetAggressiveness();
}

} // namespace ns3
