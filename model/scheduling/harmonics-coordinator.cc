/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "harmonics-coordinator.h"

#include "epoch-plan-internal.h"

#include "ns3/unit-strings.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace ns3
{

using namespace epoch_plan;

namespace
{

/// The coordinator's ledger: every link exactly, and the racks' uplinks as aggregates.
class AggregateLedger
{
  public:
    AggregateLedger(const PlanInstance& instance, const RackUplinks& uplinks)
        : m_horizon(instance.horizon),
          m_uplinks(uplinks),
          m_exact(instance)
    {
        for (const auto& [link, u] : uplinks)
        {
            if (!(u.rate > 0.0))
            {
                throw std::invalid_argument("harmonics-coordinator: uplink " +
                                            std::to_string(link) +
                                            ": field rate must be > 0, got " + FormatReal(u.rate));
            }
            m_capacity[{u.rack, u.up}] += u.rate;
        }
        for (const auto& [group, cap] : m_capacity)
        {
            m_load[group].assign(m_horizon, 0.0);
        }
        for (const auto& [link, r] : instance.reserved)
        {
            auto u = uplinks.find(link);
            if (u == uplinks.end())
            {
                continue;
            }
            const UplinkGroup g{u->second.rack, u->second.up};
            for (int64_t t = 0; t < m_horizon; ++t)
            {
                m_load[g][t] += r[t] * u->second.rate / m_capacity[g];
            }
        }
    }

    /// Link usage \p usage as loads of the aggregates it touches.
    std::map<UplinkGroup, double> Aggregate(const std::map<uint32_t, double>& usage) const
    {
        std::map<UplinkGroup, double> a;
        for (const auto& [link, share] : usage)
        {
            auto u = m_uplinks.find(link);
            if (u != m_uplinks.end())
            {
                const UplinkGroup g{u->second.rack, u->second.up};
                a[g] += share * u->second.rate / m_capacity.at(g);
            }
        }
        return a;
    }

    /// Route \p r of \p c as a collective of one route, on its uplinks if
    /// \p uplinks, else on its other links.
    PlanCollective OnLinks(const PlanCollective& c, uint32_t r, bool uplinks) const
    {
        PlanCollective part;
        part.duration = c.Duration(r);
        c.ForEachUse(r, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
            PlanSegment seg{b, e, {}};
            for (const auto& [link, share] : usage)
            {
                if ((m_uplinks.count(link) > 0) == uplinks)
                {
                    seg.usage[link] = share;
                }
            }
            if (!seg.usage.empty())
            {
                part.segments.push_back(std::move(seg));
            }
        });
        part.usage = PeakUsage(part.segments);
        return part;
    }

    /// Whether route \p r of \p c started at \p s fits the aggregates and the links that are
    /// not uplinks.
    bool FitsAggregates(const PlanCollective& c, uint32_t r, int64_t s) const
    {
        bool fits = true;
        c.ForEachUse(r, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
            const int64_t end = std::min(s + e, m_horizon);
            for (const auto& [g, a] : Aggregate(usage))
            {
                const std::vector<double>& load = m_load.at(g);
                for (int64_t t = s + b; fits && t < end; ++t)
                {
                    fits = load[t] + a <= 1.0 + kCapacityTolerance;
                }
            }
        });
        // and route r without its uplinks, link by link
        return fits && m_exact.Fits(OnLinks(c, r, false), 0, s);
    }

    /**
     * The spine assignment's test: whether route \p r of \p c started at \p s
     * leaves every uplink it crosses within its capacity, and if so (in
     * \p peak) the largest load it leaves on one of them.
     */
    bool FitsUplinks(const PlanCollective& c, uint32_t r, int64_t s, double* peak) const
    {
        const PlanCollective up = OnLinks(c, r, true);
        if (!m_exact.Fits(up, 0, s))
        {
            return false;
        }
        *peak = 0.0;
        up.ForEachUse(0, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
            const int64_t end = std::min(s + e, m_horizon);
            for (const auto& [link, share] : usage)
            {
                for (int64_t t = s + b; t < end; ++t)
                {
                    *peak = std::max(*peak, m_exact.Taken(link, t) + share);
                }
            }
        });
        return true;
    }

    void Take(const PlanCollective& c, uint32_t r, int64_t s)
    {
        m_exact.Take(c, r, s);
        c.ForEachUse(r, [&](int64_t b, int64_t e, const std::map<uint32_t, double>& usage) {
            const int64_t end = std::min(s + e, m_horizon);
            for (const auto& [g, a] : Aggregate(usage))
            {
                for (int64_t t = s + b; t < end; ++t)
                {
                    m_load[g][t] += a;
                }
            }
        });
    }

    const std::map<UplinkGroup, std::vector<double>>& Load() const
    {
        return m_load;
    }

  private:
    int64_t m_horizon;
    const RackUplinks& m_uplinks;
    Ledger m_exact;
    std::map<UplinkGroup, double> m_capacity;
    std::map<UplinkGroup, std::vector<double>> m_load;
};

} // namespace

CoordinatorPlan
PlanCoordinator(const PlanInstance& instance, const RackUplinks& uplinks)
{
    instance.Validate();
    const int64_t horizon = instance.horizon;
    AggregateLedger ledger(instance, uplinks);
    CoordinatorPlan out;
    out.plan.method = "coordinator";
    PlaceInSmithsOrder(instance, ledger, out.plan, [&](const PlanCollective& c, int64_t earliest) {
        out.choices += c.Routes() * static_cast<uint64_t>(horizon);
        // (finish, peak uplink load, not the joint route, route) of the best choice so far.
        std::tuple<int64_t, double, bool, uint32_t> best{std::numeric_limits<int64_t>::max(),
                                                         0.0,
                                                         true,
                                                         0};
        int64_t start = horizon;
        for (int64_t s = earliest; s < horizon && s + ShortestDuration(c) < std::get<0>(best); ++s)
        {
            for (uint32_t r = 0; r < c.Routes(); ++r)
            {
                double peak = 0;
                if (!ledger.FitsAggregates(c, r, s) || !ledger.FitsUplinks(c, r, s, &peak))
                {
                    continue;
                }
                const bool notJoint = static_cast<int32_t>(r) != c.jointRoute;
                const std::tuple<int64_t, double, bool, uint32_t> mine{s + c.Duration(r),
                                                                       peak,
                                                                       notJoint,
                                                                       r};
                if (mine < best)
                {
                    best = mine;
                    start = s;
                }
            }
        }
        const uint32_t route = start < horizon ? std::get<3>(best) : 0;
        return std::make_pair(start, route);
    });
    out.plan.objective = PlanObjective(instance, out.plan);
    out.aggregate = ledger.Load();
    return out;
}

} // namespace ns3
