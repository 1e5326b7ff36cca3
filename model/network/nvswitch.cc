/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nvswitch.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvSwitch");
NS_OBJECT_ENSURE_REGISTERED(NvSwitch);

DataRate
NvlinkGenerationRate(NvlinkGeneration generation)
{
    // GB/s per direction x 8 = Gb/s.
    switch (generation)
    {
    case NvlinkGeneration::A100:
        return DataRate("2400Gbps"); // 300 GB/s
    case NvlinkGeneration::H100:
    case NvlinkGeneration::H200:
        return DataRate("3600Gbps"); // 450 GB/s
    case NvlinkGeneration::B200:
        return DataRate("7200Gbps"); // 900 GB/s
    }
    throw std::invalid_argument("unknown NVLink generation");
}

std::string
NvlinkGenerationName(NvlinkGeneration generation)
{
    switch (generation)
    {
    case NvlinkGeneration::A100:
        return "a100";
    case NvlinkGeneration::H100:
        return "h100";
    case NvlinkGeneration::H200:
        return "h200";
    case NvlinkGeneration::B200:
        return "b200";
    }
    throw std::invalid_argument("unknown NVLink generation");
}

TypeId
NvSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NvSwitch")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<NvSwitch>()
            .AddAttribute("Contention",
                          "Whether messages in flight share the GPUs' NVSwitch ports max-min "
                          "fairly (true) or each gets a port's full rate (false: no NVSwitch).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NvSwitch::m_contention),
                          MakeBooleanChecker())
            .AddAttribute("Capacity",
                          "Total rate the switch carries, over all its messages; 0: "
                          "non-blocking (only the GPUs' ports limit), as NVIDIA's NVSwitch "
                          "systems are.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&NvSwitch::m_capacity),
                          MakeDataRateChecker())
            .AddTraceSource("TransferDone",
                            "A message's transfer through the switch ended; its last byte "
                            "arrives the latency later (args: job, source GPU, destination "
                            "GPU, bytes, when it was sent).",
                            MakeTraceSourceAccessor(&NvSwitch::m_transferTrace),
                            "ns3::NvSwitch::MessageCallback")
            .AddTraceSource("Moved",
                            "Bytes of a message moved through the switch, at one rate over "
                            "an interval: every byte of every message is reported once, in "
                            "time order per server (args: job, source GPU, destination GPU, "
                            "bytes, from, to).",
                            MakeTraceSourceAccessor(&NvSwitch::m_movedTrace),
                            "ns3::NvSwitch::MovedCallback");
    return tid;
}

NvSwitch::NvSwitch() = default;

NvSwitch::~NvSwitch() = default;

void
NvSwitch::DoDispose()
{
    for (Server& s : m_servers)
    {
        Simulator::Cancel(s.next);
        s.active.clear();
    }
    Object::DoDispose();
}

void
NvSwitch::Setup(const FabricTopology& topo, uint32_t gpusPerHost)
{
    NS_ABORT_MSG_IF(gpusPerHost == 0, "NvSwitch: a host has at least one GPU");
    NS_ABORT_MSG_IF(m_sent > 0, "NvSwitch::Setup after a message");
    m_servers.clear();
    m_serverOf.clear();
    m_localOf.clear();
    std::map<int64_t, uint32_t> indexOf; // server key -> server index
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        auto [it, added] =
            indexOf.emplace(topo.GetServerKey(h), static_cast<uint32_t>(m_servers.size()));
        if (added)
        {
            m_servers.emplace_back();
        }
        Server& s = m_servers[it->second];
        for (uint32_t g = 0; g < gpusPerHost; ++g)
        {
            const auto gpu = static_cast<uint32_t>(m_serverOf.size());
            m_serverOf.push_back(it->second);
            m_localOf.push_back(static_cast<uint32_t>(s.gpus.size()));
            s.gpus.push_back(gpu);
        }
    }
    m_txBytes.assign(m_serverOf.size(), 0.0);
    m_rxBytes.assign(m_serverOf.size(), 0.0);
}

void
NvSwitch::SetPortRate(DataRate rate)
{
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "NvSwitch: a port's rate must be positive");
    m_rate = rate;
}

DataRate
NvSwitch::GetPortRate() const
{
    return m_rate;
}

void
NvSwitch::SetLatency(Time latency)
{
    m_latency = latency;
}

Time
NvSwitch::GetLatency() const
{
    return m_latency;
}

void
NvSwitch::CheckGpu(uint32_t gpu) const
{
    if (gpu >= m_serverOf.size())
    {
        throw std::invalid_argument("NvSwitch: GPU " + std::to_string(gpu) +
                                    " does not exist (the cluster has " +
                                    std::to_string(m_serverOf.size()) + ")");
    }
}

uint32_t
NvSwitch::GetServer(uint32_t gpu) const
{
    CheckGpu(gpu);
    return m_serverOf[gpu];
}

std::size_t
NvSwitch::GetActiveMessages(uint32_t server) const
{
    return m_servers.at(server).active.size();
}

NvSwitch::PortState
NvSwitch::GetPort(uint32_t gpu, PortDirection direction)
{
    CheckGpu(gpu);
    Server& s = m_servers[m_serverOf[gpu]];
    Advance(s);
    const bool in = direction == PortDirection::In;
    PortState p;
    p.bytes = in ? m_txBytes[gpu] : m_rxBytes[gpu];
    for (const Message& m : s.active)
    {
        if ((in ? m.src : m.dst) == gpu)
        {
            p.backlog += m.remaining;
            ++p.messages;
        }
    }
    return p;
}

double
NvSwitch::GetTxBytes(uint32_t gpu)
{
    CheckGpu(gpu);
    Advance(m_servers[m_serverOf[gpu]]);
    return m_txBytes[gpu];
}

double
NvSwitch::GetRxBytes(uint32_t gpu)
{
    CheckGpu(gpu);
    Advance(m_servers[m_serverOf[gpu]]);
    return m_rxBytes[gpu];
}

void
NvSwitch::Send(uint32_t src,
               uint32_t dst,
               uint64_t bytes,
               uint32_t job,
               std::function<void()> onDelivered,
               double latencyScale)
{
    CheckGpu(src);
    CheckGpu(dst);
    if (m_serverOf[src] != m_serverOf[dst])
    {
        throw std::invalid_argument("NvSwitch: GPUs " + std::to_string(src) + " and " +
                                    std::to_string(dst) + " are on different servers");
    }
    ++m_sent;
    Server& s = m_servers[m_serverOf[src]];
    Advance(s);
    Message m;
    m.src = src;
    m.dst = dst;
    m.job = job;
    m.bytes = bytes;
    m.remaining = static_cast<double>(bytes);
    m.sent = Simulator::Now();
    m.latency = latencyScale == 1.0 ? m_latency : m_latency * int64x64_t(latencyScale);
    m.onDelivered = std::move(onDelivered);
    s.active.push_back(std::move(m));
    Reallocate(s);
}

void
NvSwitch::Advance(Server& s)
{
    const Time now = Simulator::Now();
    const Time from = s.updated;
    const double dt = (now - from).GetSeconds();
    s.updated = now;
    if (dt <= 0)
    {
        return;
    }
    for (Message& m : s.active)
    {
        const double moved = std::min(m.remaining, m.rate * dt);
        m.remaining -= moved;
        m_txBytes[m.src] += moved;
        m_rxBytes[m.dst] += moved;
        if (moved > 0)
        {
            m_movedTrace(m.job, m.src, m.dst, moved, from, now);
        }
    }
}

void
NvSwitch::Reallocate(Server& s)
{
    Simulator::Cancel(s.next);
    if (s.active.empty())
    {
        return;
    }
    const double capacity = static_cast<double>(m_rate.GetBitRate()) / 8.0; // bytes/s
    const std::size_t n = s.active.size();
    if (!m_contention)
    {
        for (Message& m : s.active)
        {
            m.rate = capacity;
        }
    }
    else
    {
        // Progressive filling: every message not yet limited rises by the
        // same amount until a port it crosses is full. Local port 2i is GPU
        // i's port in (GPU -> switch), 2i + 1 its port out; a blocking
        // switch's total is one more port that every message crosses.
        const bool blocking = m_capacity.GetBitRate() > 0;
        const std::size_t total = 2 * s.gpus.size();
        const std::size_t ports = total + (blocking ? 1 : 0);
        m_left.assign(ports, capacity);
        if (blocking)
        {
            m_left[total] = static_cast<double>(m_capacity.GetBitRate()) / 8.0;
        }
        m_frozen.assign(n, 0);
        for (Message& m : s.active)
        {
            m.rate = 0;
        }
        std::size_t rising = n;
        while (rising > 0)
        {
            m_unfrozen.assign(ports, 0);
            for (std::size_t i = 0; i < n; ++i)
            {
                if (!m_frozen[i])
                {
                    ++m_unfrozen[2 * m_localOf[s.active[i].src]];
                    ++m_unfrozen[2 * m_localOf[s.active[i].dst] + 1];
                    if (blocking)
                    {
                        ++m_unfrozen[total];
                    }
                }
            }
            double step = std::numeric_limits<double>::infinity();
            for (std::size_t p = 0; p < ports; ++p)
            {
                if (m_unfrozen[p] > 0)
                {
                    step = std::min(step, m_left[p] / m_unfrozen[p]);
                }
            }
            for (std::size_t p = 0; p < ports; ++p)
            {
                m_left[p] -= step * m_unfrozen[p];
            }
            // A port left with less than a billionth of its rate is full.
            const double full = capacity * 1e-9;
            for (std::size_t i = 0; i < n; ++i)
            {
                if (m_frozen[i])
                {
                    continue;
                }
                Message& m = s.active[i];
                m.rate += step;
                if (m_left[2 * m_localOf[m.src]] <= full ||
                    m_left[2 * m_localOf[m.dst] + 1] <= full || (blocking && m_left[total] <= full))
                {
                    m_frozen[i] = 1;
                    --rising;
                }
            }
        }
    }
    double first = std::numeric_limits<double>::infinity();
    for (const Message& m : s.active)
    {
        first = std::min(first, m.remaining / m.rate);
    }
    s.next =
        Simulator::Schedule(Seconds(first), &NvSwitch::TransferEnd, this, m_serverOf[s.gpus[0]]);
}

void
NvSwitch::TransferEnd(uint32_t server)
{
    Server& s = m_servers[server];
    Advance(s);
    // Transfers that end within a time step of now end now: the event was
    // scheduled at the earliest end, rounded to the time resolution.
    const double tick = TimeStep(1).GetSeconds();
    for (std::size_t i = 0; i < s.active.size();)
    {
        Message& m = s.active[i];
        if (m.remaining > m.rate * tick * 1.5 + 1e-6)
        {
            ++i;
            continue;
        }
        m_txBytes[m.src] += m.remaining;
        m_rxBytes[m.dst] += m.remaining;
        if (m.remaining > 0)
        {
            m_movedTrace(m.job, m.src, m.dst, m.remaining, Simulator::Now(), Simulator::Now());
        }
        ++m_delivered;
        NS_LOG_LOGIC("job " << m.job << " GPU " << m.src << " -> " << m.dst << ": " << m.bytes
                            << " bytes transferred");
        m_transferTrace(m.job, m.src, m.dst, m.bytes, m.sent);
        Simulator::Schedule(m.latency, std::move(m.onDelivered));
        if (i + 1 != s.active.size())
        {
            m = std::move(s.active.back());
        }
        s.active.pop_back();
    }
    Reallocate(s);
}

} // namespace ns3
