/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "link-sampler.h"

#include "ns3/input-limits.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LinkSampler);

TypeId
LinkSampler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LinkSampler")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<LinkSampler>()
            .AddAttribute("Interval",
                          "Sampling interval of the bytes on every link and NVSwitch port; 0 "
                          "turns sampling off.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&LinkSampler::m_interval),
                          MakeTimeChecker(Time(0)));
    return tid;
}

LinkSampler::LinkSampler() = default;

void
LinkSampler::Install(Ptr<RoceFabric> fabric)
{
    if (!IsEnabled())
    {
        return;
    }
    m_maxRows = InputLimits::MaxMonitorRows();
    for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
    {
        Ptr<RdmaNic> nic = fabric->GetNic(h);
        nic->TraceConnectWithoutContext(
            "SendStarted",
            MakeCallback(&LinkSampler::OnSendStarted, this).Bind(nic->GetAddress()));
    }
    for (uint32_t l = 0; l < fabric->GetTopology().GetNLinks(); ++l)
    {
        Ptr<RoceChannel> ch = fabric->GetChannel(l);
        for (uint8_t end = 0; end < 2; ++end)
        {
            // End 0 is the link's node_a: its frames go from a to b (direction 0).
            ch->GetRoceDevice(end)->TraceConnectWithoutContext(
                "TransmitFrame",
                MakeCallback(&LinkSampler::OnTransmit, this).Bind(l, end));
        }
    }
}

void
LinkSampler::InstallNvSwitch(Ptr<NvSwitch> nvswitch)
{
    if (!IsEnabled())
    {
        return;
    }
    m_maxRows = InputLimits::MaxMonitorRows();
    nvswitch->TraceConnectWithoutContext("Moved",
                                         MakeCallback(&LinkSampler::OnNvSwitchMoved, this));
}

void
LinkSampler::OnSendStarted(uint32_t address, const RdmaMessageInfo& info)
{
    m_jobOf[static_cast<uint64_t>(address) << 16 | info.srcPort] = info.jobId;
}

void
LinkSampler::OnTransmit(uint32_t link, uint8_t direction, const RoceForwardingInfo& info)
{
    int64_t job = -1;
    if (info.etherType == RoceWire::kEtherTypeIpv4)
    {
        // Data carries its sender's port; ACK, NAK and CNP echo it back.
        auto it = m_jobOf.find(static_cast<uint64_t>(info.srcIp) << 16 | info.srcPort);
        if (it == m_jobOf.end())
        {
            it = m_jobOf.find(static_cast<uint64_t>(info.dstIp) << 16 | info.srcPort);
        }
        if (it != m_jobOf.end())
        {
            job = it->second;
        }
    }
    const int64_t bin = Simulator::Now().GetTimeStep() / m_interval.GetTimeStep();
    auto [it, added] = m_bytes.try_emplace({link, direction, job, bin}, 0);
    it->second += info.bytes;
    if (added)
    {
        CheckRows();
    }
}

void
LinkSampler::OnNvSwitchMoved(uint32_t job,
                             uint32_t src,
                             uint32_t dst,
                             double bytes,
                             Time from,
                             Time to)
{
    // The bytes moved at one rate over [from, to]: each interval gets its
    // overlap's share. A span of no length (a transfer's last rounding) goes
    // to the interval it ends.
    const int64_t step = m_interval.GetTimeStep();
    const int64_t a = from.GetTimeStep();
    const int64_t b = to.GetTimeStep();
    const int64_t first = a / step;
    const int64_t last = b > a ? (b - 1) / step : std::max<int64_t>(b - 1, 0) / step;
    for (int64_t bin = std::min(first, last); bin <= last; ++bin)
    {
        const double share =
            b > a ? static_cast<double>(std::min(b, (bin + 1) * step) - std::max(a, bin * step)) /
                        static_cast<double>(b - a)
                  : 1.0;
        AddNvSwitchBytes(src, 0, job, bin, bytes * share);
        AddNvSwitchBytes(dst, 1, job, bin, bytes * share);
    }
}

void
LinkSampler::AddNvSwitchBytes(uint32_t gpu,
                              uint8_t direction,
                              int64_t job,
                              int64_t bin,
                              double bytes)
{
    auto [it, added] = m_nvBytes.try_emplace({gpu, direction, job, bin}, 0.0);
    it->second += bytes;
    if (added)
    {
        CheckRows();
    }
}

void
LinkSampler::CheckRows() const
{
    if (m_bytes.size() + m_nvBytes.size() > m_maxRows)
    {
        throw std::runtime_error("ns3::LinkSampler: sampling every " +
                                 std::to_string(m_interval.GetNanoSeconds()) +
                                 " ns makes more than " + std::to_string(m_maxRows) +
                                 " rows (links and NVSwitch ports x jobs x intervals), over "
                                 "ns3::InputLimits::MaxMonitorRows");
    }
}

void
LinkSampler::Write(ResultsDatabase& db, int64_t runId) const
{
    if (!IsEnabled())
    {
        return;
    }
    const char* const insert =
        "INSERT INTO link_samples (run_id, link_id, direction, job_id, t_ns, tx_bytes, kind)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
    for (const auto& [key, bytes] : m_bytes)
    {
        const auto& [link, direction, job, bin] = key;
        db.AddRow(runId,
                  insert,
                  {runId,
                   static_cast<int64_t>(link),
                   static_cast<int64_t>(direction),
                   job >= 0 ? SqlValue(static_cast<int64_t>(job)) : SqlValue(),
                   (m_interval * bin).GetNanoSeconds(),
                   static_cast<int64_t>(bytes),
                   SqlValue(std::string("fabric"))});
    }
    for (const auto& [key, bytes] : m_nvBytes)
    {
        const auto& [gpu, direction, job, bin] = key;
        const auto whole = static_cast<int64_t>(std::llround(bytes));
        if (whole == 0)
        {
            continue; // a rounding remainder alone
        }
        db.AddRow(runId,
                  insert,
                  {runId,
                   static_cast<int64_t>(gpu),
                   static_cast<int64_t>(direction),
                   SqlValue(static_cast<int64_t>(job)),
                   (m_interval * bin).GetNanoSeconds(),
                   whole,
                   SqlValue(std::string("nvswitch"))});
    }
}

} // namespace ns3
