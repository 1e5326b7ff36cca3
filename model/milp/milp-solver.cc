/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "milp-solver.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

const char*
ToString(MilpStatus status)
{
    switch (status)
    {
    case MilpStatus::OPTIMAL:
        return "optimal";
    case MilpStatus::FEASIBLE:
        return "feasible";
    case MilpStatus::INFEASIBLE:
        return "infeasible";
    case MilpStatus::UNBOUNDED:
        return "unbounded";
    case MilpStatus::NO_SOLUTION:
        return "no-solution";
    case MilpStatus::ERROR:
        return "error";
    }
    return "?";
}

void
MilpSolveOptions::Validate(std::size_t numVariables) const
{
    auto fail = [](const std::string& what) {
        throw std::invalid_argument("MilpSolveOptions: " + what);
    };
    if (!(timeLimitSeconds >= 0.0) || std::isinf(timeLimitSeconds))
    {
        std::ostringstream s;
        s << "field timeLimitSeconds must be finite and >= 0 (0 = none), got " << timeLimitSeconds;
        fail(s.str());
    }
    if (!(relativeGap >= 0.0) || std::isinf(relativeGap))
    {
        std::ostringstream s;
        s << "field relativeGap must be finite and >= 0, got " << relativeGap;
        fail(s.str());
    }
    if (threads < 1)
    {
        fail("field threads must be >= 1");
    }
    if (seed < 1)
    {
        fail("field seed must be >= 1");
    }
    if (!warmStart.empty() && warmStart.size() != numVariables)
    {
        fail("field warmStart has " + std::to_string(warmStart.size()) + " values for " +
             std::to_string(numVariables) + " variables");
    }
}

bool
MilpResult::HasSolution() const
{
    return status == MilpStatus::OPTIMAL || status == MilpStatus::FEASIBLE;
}

double
MilpRelativeGap(double objective, double bound)
{
    if (!std::isfinite(objective) || !std::isfinite(bound))
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    const double scale = std::max(std::fabs(objective), std::fabs(bound));
    return scale == 0.0 ? 0.0 : std::fabs(objective - bound) / scale;
}

} // namespace ns3
