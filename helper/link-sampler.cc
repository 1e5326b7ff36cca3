/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "link-sampler.h"

#include "ns3/input-limits.h"
#include "ns3/simulator.h"

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
                                          "Sampling interval of the bytes on every link; on "
                                          "by default (1 ms, where the run has packets on one "
                                          "process); 0 turns sampling off.",
                                          TimeValue(DefaultInterval()),
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
    m_intervalSteps = m_interval.GetTimeStep();
    for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
    {
        Ptr<RdmaNic> nic = fabric->GetNic(h);
        nic->TraceConnectWithoutContext(
            "SendStarted",
            MakeCallback(&LinkSampler::OnSendStarted, this).Bind(nic->GetAddress()));
    }
    m_current.assign(2 * fabric->GetTopology().GetNLinks(), {});
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
    const int64_t bin = Simulator::Now().GetTimeStep() / m_intervalSteps;
    const uint32_t slot = 2 * link + direction;
    // A link carries few jobs: a scan of its intervals under way is cheaper
    // than a lookup in the samples for every frame.
    for (Current& c : m_current[slot])
    {
        if (c.job != job)
        {
            continue;
        }
        if (c.bin != bin)
        {
            Close(slot, c);
            c.bin = bin;
            c.bytes = 0;
        }
        c.bytes += info.bytes;
        return;
    }
    m_current[slot].push_back({job, bin, info.bytes});
}

void
LinkSampler::Close(uint32_t slot, const Current& c)
{
    auto [it, added] =
        m_bytes.try_emplace({slot / 2, static_cast<uint8_t>(slot % 2), c.job, c.bin}, 0);
    it->second += c.bytes;
    if (added && m_bytes.size() > m_maxRows)
    {
        throw std::runtime_error("ns3::LinkSampler: sampling every " +
                                 std::to_string(m_interval.GetNanoSeconds()) +
                                 " ns makes more than " + std::to_string(m_maxRows) +
                                 " rows (links x jobs x intervals), over "
                                 "ns3::InputLimits::MaxMonitorRows");
    }
}

void
LinkSampler::CloseAll()
{
    for (uint32_t slot = 0; slot < m_current.size(); ++slot)
    {
        for (const Current& c : m_current[slot])
        {
            Close(slot, c);
        }
        m_current[slot].clear();
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
    for (const auto& [key, bytes] : m_bytes)
    {
        const auto& [link, direction, job, bin] = key;
        db.AddRow(runId,
                  "INSERT INTO link_samples (run_id, link_id, direction, job_id, t_ns, tx_bytes)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                  {runId,
                   static_cast<int64_t>(link),
                   static_cast<int64_t>(direction),
                   job >= 0 ? SqlValue(static_cast<int64_t>(job)) : SqlValue(),
                   (m_interval * bin).GetNanoSeconds(),
                   static_cast<int64_t>(bytes)});
    }
}

} // namespace ns3
