/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RoceChannel's outages (link failures), in a file of their own: the
// schedule of when the link is down and the test each frame passes.

#include "roce-channel.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
RoceChannel::AddOutage(Time down, Time up)
{
    NS_ABORT_MSG_UNLESS(down < up, "an outage must end after it starts");
    m_outages.emplace_back(down, up);
    std::sort(m_outages.begin(), m_outages.end());
    std::vector<std::pair<Time, Time>> merged;
    for (const auto& o : m_outages)
    {
        if (!merged.empty() && o.first <= merged.back().second)
        {
            merged.back().second = std::max(merged.back().second, o.second);
        }
        else
        {
            merged.push_back(o);
        }
    }
    m_outages = std::move(merged);
}

bool
RoceChannel::MeetsOutage(Time onWire)
{
    const Time now = Simulator::Now();
    // Outages that ended are forgotten, so a healthy link pays one test per frame.
    auto over = std::find_if(m_outages.begin(), m_outages.end(), [now](const auto& o) {
        return o.second > now;
    });
    m_outages.erase(m_outages.begin(), over);
    // The frame is on the wire over [now, now + onWire]; it arrives intact
    // only if the link is up for all of it.
    return !m_outages.empty() && m_outages.front().first < now + onWire;
}

} // namespace ns3
