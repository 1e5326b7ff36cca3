/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-collective.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/short-name-registry.h"

#include <algorithm>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NcclCollective");
NS_OBJECT_ENSURE_REGISTERED(NcclRingCollective);
NS_OBJECT_ENSURE_REGISTERED(NcclRingAllReduce);
NS_OBJECT_ENSURE_REGISTERED(NcclRingReduceScatter);
NS_OBJECT_ENSURE_REGISTERED(NcclRingAllGather);
NS_OBJECT_ENSURE_REGISTERED(NcclCollective);
NS_OBJECT_ENSURE_REGISTERED(NcclAllReduce);
NS_OBJECT_ENSURE_REGISTERED(NcclReduceScatter);
NS_OBJECT_ENSURE_REGISTERED(NcclAllGather);
NS_OBJECT_SHORT_NAME(NcclRingAllReduce, "nccl-ring-all-reduce");
NS_OBJECT_SHORT_NAME(NcclRingReduceScatter, "nccl-ring-reduce-scatter");
NS_OBJECT_SHORT_NAME(NcclRingAllGather, "nccl-ring-all-gather");
NS_OBJECT_SHORT_NAME(NcclAllReduce, "nccl-all-reduce");
NS_OBJECT_SHORT_NAME(NcclReduceScatter, "nccl-reduce-scatter");
NS_OBJECT_SHORT_NAME(NcclAllGather, "nccl-all-gather");

// ----------------------------------------------------------- NcclRingCollective

TypeId
NcclRingCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NcclRingCollective")
                            .SetParent<SteppedCollective>()
                            .SetGroupName("CollectiveScheduling");
    return tid;
}

NcclRingCollective::NcclRingCollective(uint32_t passes, NcclFunction function)
    : m_passes(passes),
      m_function(function)
{
}

void
NcclRingCollective::DoConfigure()
{
    const uint32_t n = GetRankCount();
    std::map<int64_t, uint32_t> serverIndex;
    std::vector<uint32_t> count;
    std::vector<uint32_t> serverOf(n, 0);
    std::vector<uint32_t> localOf(n, 0);
    for (uint32_t r = 0; r < n; ++r)
    {
        auto [it, added] =
            serverIndex.emplace(GetTransport()->GetServer(r), static_cast<uint32_t>(count.size()));
        if (added)
        {
            count.push_back(0);
        }
        serverOf[r] = it->second;
        localOf[r] = count[it->second]++;
    }
    const bool even =
        std::all_of(count.begin(), count.end(), [&count](uint32_t c) { return c == count[0]; });
    m_servers = static_cast<uint32_t>(count.size());
    m_local = even && n > 0 ? count.front() : 1;
    m_rotated = even && m_servers > 1 && m_local > 1;
    m_positionOf.assign(n, 0);
    m_rankAt.assign(n, 0);
    for (uint32_t r = 0; r < n; ++r)
    {
        // Servers in order of first appearance, local ranks in rank order;
        // without a common server size, rank order.
        m_positionOf[r] = even ? serverOf[r] * m_local + localOf[r] : r;
        m_rankAt[m_positionOf[r]] = r;
    }
    NS_LOG_INFO(GetName() << ": " << n << " ranks on " << m_servers << " servers"
                          << (even ? "" : " of unequal sizes (rank-order ring)")
                          << (m_rotated ? ", rings rotated by channel" : "") << ", "
                          << GetChannels() << " channels");
}

uint32_t
NcclRingCollective::GetChannels() const
{
    const uint32_t channels = Collective::GetChannels();
    // NCCL runs at least one channel per NIC of a server.
    return m_rotated ? std::max(channels, m_local) : channels;
}

uint32_t
NcclRingCollective::GetStepCount() const
{
    const uint32_t n = GetRankCount();
    return n < 2 ? 0 : m_passes * (n - 1);
}

uint32_t
NcclRingCollective::GetPosition(uint32_t rank, uint32_t channel) const
{
    const uint32_t base = m_positionOf[rank];
    if (!m_rotated)
    {
        return base;
    }
    const uint32_t k = m_local;
    const uint32_t server = base / k;
    const uint32_t local = base % k;
    const uint32_t c = channel % k;
    // Even servers: local rank l is the (l - c) mod k-th; odd ones walk back.
    const uint32_t within = server % 2 == 0 ? (local + k - c) % k : (c + k - 1 - local) % k;
    return server * k + within;
}

uint32_t
NcclRingCollective::GetRankAt(uint32_t position, uint32_t channel) const
{
    if (!m_rotated)
    {
        return m_rankAt[position];
    }
    const uint32_t k = m_local;
    const uint32_t server = position / k;
    const uint32_t within = position % k;
    const uint32_t c = channel % k;
    // Even servers: c, c+1, ..., c+k-1; odd ones: c+k-1, ..., c (mod k).
    const uint32_t local = server % 2 == 0 ? (c + within) % k : (c + k - 1 - within) % k;
    return m_rankAt[server * k + local];
}

uint32_t
NcclRingCollective::GetSendPeer(uint32_t rank, uint32_t channel, uint32_t /* step */) const
{
    return GetRankAt((GetPosition(rank, channel) + 1) % GetRankCount(), channel);
}

uint32_t
NcclRingCollective::GetStepChunk(uint32_t rank, uint32_t channel, uint32_t step) const
{
    const uint32_t n = GetRankCount();
    return (GetPosition(rank, channel) + n - step % n) % n;
}

uint64_t
NcclRingCollective::GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const
{
    return ChunkBytes(channel, GetStepChunk(rank, channel, step));
}

TypeId
NcclRingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NcclRingAllReduce")
                            .SetParent<NcclRingCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<NcclRingAllReduce>();
    return tid;
}

NcclRingAllReduce::NcclRingAllReduce()
    : NcclRingCollective(2, NcclFunction::ALL_REDUCE)
{
}

TypeId
NcclRingReduceScatter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NcclRingReduceScatter")
                            .SetParent<NcclRingCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<NcclRingReduceScatter>();
    return tid;
}

NcclRingReduceScatter::NcclRingReduceScatter()
    : NcclRingCollective(1, NcclFunction::REDUCE_SCATTER)
{
}

TypeId
NcclRingAllGather::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NcclRingAllGather")
                            .SetParent<NcclRingCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<NcclRingAllGather>();
    return tid;
}

NcclRingAllGather::NcclRingAllGather()
    : NcclRingCollective(1, NcclFunction::ALL_GATHER)
{
}

// ----------------------------------------------------------- NcclCollective

TypeId
NcclCollective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NcclCollective")
            .SetParent<NcclRingCollective>()
            .SetGroupName("CollectiveScheduling")
            .AddAttribute("Protocol",
                          "NCCL protocol: Auto (NCCL's tuning model chooses), LL, LL128 or "
                          "Simple. Takes effect at the next Configure or Start.",
                          EnumValue(PROTOCOL_AUTO),
                          MakeEnumAccessor(&NcclCollective::m_forced),
                          MakeEnumChecker(PROTOCOL_AUTO,
                                          "Auto",
                                          PROTOCOL_LL,
                                          "LL",
                                          PROTOCOL_LL128,
                                          "LL128",
                                          PROTOCOL_SIMPLE,
                                          "Simple"))
            .AddAttribute("NetBandwidth",
                          "GB/s of one NIC (one a GPU), for the tuning model (12.5 = 100 Gb/s).",
                          DoubleValue(12.5),
                          MakeDoubleAccessor(&NcclCollective::m_netBandwidth),
                          MakeDoubleChecker<double>(1e-9))
            .AddAttribute("NvlinkBandwidth",
                          "GB/s of one channel between GPUs of a server, for the tuning model "
                          "of a group on one server.",
                          DoubleValue(20.0),
                          MakeDoubleAccessor(&NcclCollective::m_nvlinkBandwidth),
                          MakeDoubleChecker<double>(1e-9));
    return tid;
}

NcclCollective::NcclCollective(uint32_t passes, NcclFunction function)
    : NcclRingCollective(passes, function)
{
}

NcclTuningInput
NcclCollective::GetTuningInput() const
{
    NcclTuningInput in;
    in.function = GetFunction();
    in.ranks = GetRankCount();
    in.nodes = GetServerCount();
    // Unequal servers run the rank-order ring, which leaves a server by one NIC.
    in.nicsPerNode = GetRanksPerServer();
    in.channels = GetChannels();
    in.bytes = GetBytes();
    in.netBandwidth = m_netBandwidth;
    in.nvlinkBandwidth = m_nvlinkBandwidth;
    return in;
}

void
NcclCollective::Tune()
{
    m_choice = NcclChoose(GetTuningInput());
    switch (m_forced)
    {
    case PROTOCOL_LL:
        m_protocol = NcclProtocol::LL;
        break;
    case PROTOCOL_LL128:
        m_protocol = NcclProtocol::LL128;
        break;
    case PROTOCOL_SIMPLE:
        m_protocol = NcclProtocol::SIMPLE;
        break;
    default:
        m_protocol = m_choice.protocol;
        break;
    }
    const uint32_t steps = GetStepCount();
    const double latency = m_choice.ring[static_cast<std::size_t>(m_protocol)].latencyUs;
    // The model's latency, spread evenly over the steps of the ring.
    m_stepDelay = steps == 0 ? Time(0) : Time::FromDouble(latency / steps, Time::US);
    NS_LOG_INFO(
        GetName() << ": N " << GetRankCount() << " servers " << GetServerCount() << " S "
                  << GetBytes() << " C " << GetChannels() << ": Ring/LL " << m_choice.ring[0].timeUs
                  << " us, Ring/LL128 " << m_choice.ring[1].timeUs << " us, Ring/Simple "
                  << m_choice.ring[2].timeUs << " us; chose " << ToString(m_choice.algorithm) << "/"
                  << ToString(m_choice.protocol) << ", running " << ToString(m_protocol)
                  << ", step delay " << m_stepDelay.As(Time::US));
}

void
NcclCollective::DoConfigure()
{
    NcclRingCollective::DoConfigure();
    Tune();
}

void
NcclCollective::DoStart()
{
    Tune(); // the Channels or Protocol attribute may have changed since Configure
    NcclRingCollective::DoStart();
}

Time
NcclCollective::GetStepDelay() const
{
    return m_stepDelay;
}

uint64_t
NcclCollective::GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const
{
    return NcclWireBytes(m_protocol, NcclRingCollective::GetStepBytes(rank, channel, step));
}

TypeId
NcclAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NcclAllReduce")
                            .SetParent<NcclCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<NcclAllReduce>();
    return tid;
}

NcclAllReduce::NcclAllReduce()
    : NcclCollective(2, NcclFunction::ALL_REDUCE)
{
}

TypeId
NcclReduceScatter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NcclReduceScatter")
                            .SetParent<NcclCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<NcclReduceScatter>();
    return tid;
}

NcclReduceScatter::NcclReduceScatter()
    : NcclCollective(1, NcclFunction::REDUCE_SCATTER)
{
}

TypeId
NcclAllGather::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NcclAllGather")
                            .SetParent<NcclCollective>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<NcclAllGather>();
    return tid;
}

NcclAllGather::NcclAllGather()
    : NcclCollective(1, NcclFunction::ALL_GATHER)
{
}

} // namespace ns3
