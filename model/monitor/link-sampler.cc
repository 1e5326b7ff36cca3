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

Time
LinkSampler::DefaultInterval()
{
    return MilliSeconds(1);
}

TypeId
LinkSampler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LinkSampler")
                            .SetParent<Object>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<LinkSampler>()
                            .AddAttribute("Interval",
                                          "Sampling interval of the bytes on every link and "
                                          "NVSwitch port; on by default (1 ms, on one "
                                          "process); 0 turns sampling off.",
                                          TimeValue(DefaultInterval()),
                                          MakeTimeAccessor(&LinkSampler::m_interval),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

LinkSampler::LinkSampler() = default;

void
LinkSampler::DoDispose()
{
    m_tick.Cancel();
    Object::DoDispose();
}

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
    m_slots.assign(2 * fabric->GetTopology().GetNLinks(), {});
    for (uint32_t l = 0; l < fabric->GetTopology().GetNLinks(); ++l)
    {
        Ptr<RoceChannel> ch = fabric->GetChannel(l);
        for (uint8_t end = 0; end < 2; ++end)
        {
            // End 0 is the link's node_a: its frames go from a to b (direction 0).
            // A lambda, not a bound member: one call less per frame and hop.
            ch->GetRoceDevice(end)->TraceConnectWithoutContext(
                "TransmitFrame",
                Callback<void, const RoceForwardingInfo&>(
                    [this, l, end](const RoceForwardingInfo& info) { OnTransmit(l, end, info); }));
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

int64_t
LinkSampler::JobOf(const RoceForwardingInfo& info) const
{
    if (info.etherType != RoceWire::kEtherTypeIpv4)
    {
        return -1;
    }
    // Data carries its sender's port; ACK, NAK and CNP echo it back.
    auto it = m_jobOf.find(static_cast<uint64_t>(info.srcIp) << 16 | info.srcPort);
    if (it == m_jobOf.end())
    {
        it = m_jobOf.find(static_cast<uint64_t>(info.dstIp) << 16 | info.srcPort);
    }
    return it != m_jobOf.end() ? it->second : -1;
}

void
LinkSampler::Restart()
{
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t step = m_interval.GetTimeStep();
    m_bin = now / step;
    m_ticking = true;
    m_tick = Simulator::Schedule(TimeStep((m_bin + 1) * step - now), &LinkSampler::Tick, this);
}

void
LinkSampler::Tick()
{
    ++m_bin;
    if (!m_active)
    {
        m_ticking = false; // the next frame reads the clock
        return;
    }
    m_active = false;
    m_tick = Simulator::Schedule(m_interval, &LinkSampler::Tick, this);
}

void
LinkSampler::OnTransmit(uint32_t link, uint8_t direction, const RoceForwardingInfo& info)
{
    if (!m_ticking)
    {
        Restart();
    }
    m_active = true;
    const uint32_t slot = 2 * link + direction;
    Slot& s = m_slots[slot];
    // Frames of one queue pair follow each other on a link: its job and
    // interval are the previous frame's.
    if (!s.seen || info.srcIp != s.srcIp || info.dstIp != s.dstIp || info.srcPort != s.srcPort ||
        info.etherType != s.etherType)
    {
        const int64_t job = JobOf(info);
        s.seen = true;
        s.srcIp = info.srcIp;
        s.dstIp = info.dstIp;
        s.srcPort = info.srcPort;
        s.etherType = info.etherType;
        // A link carries few jobs: a scan of its intervals under way.
        s.last = 0;
        while (s.last < s.current.size() && s.current[s.last].job != job)
        {
            ++s.last;
        }
        if (s.last == s.current.size())
        {
            s.current.push_back({job, m_bin, 0});
        }
    }
    Current& c = s.current[s.last];
    if (c.bin != m_bin)
    {
        Close(slot, c);
        c.bin = m_bin;
        c.bytes = 0;
    }
    c.bytes += info.bytes;
}

void
LinkSampler::Close(uint32_t slot, const Current& c)
{
    if (c.bytes == 0)
    {
        return;
    }
    auto [it, added] =
        m_bytes.try_emplace({slot / 2, static_cast<uint8_t>(slot % 2), c.job, c.bin}, 0);
    it->second += c.bytes;
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
    if (!IsEnabled())
    {
        return; // turned off after it was installed
    }
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
LinkSampler::CloseAll()
{
    for (uint32_t slot = 0; slot < m_slots.size(); ++slot)
    {
        for (Current& c : m_slots[slot].current)
        {
            Close(slot, c);
            c.bytes = 0;
        }
    }
}

const std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, uint64_t>&
LinkSampler::GetSamples()
{
    CloseAll();
    return m_bytes;
}

void
LinkSampler::Write(ResultsDatabase& db, int64_t runId)
{
    if (!IsEnabled())
    {
        return;
    }
    CloseAll();
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
