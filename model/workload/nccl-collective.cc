/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-collective.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/short-name-registry.h"

#include <algorithm>

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
    const NcclRankLayout layout = NcclRankLayout::Read(*GetTransport(), n);
    const bool even = layout.IsEven();
    m_servers = static_cast<uint32_t>(layout.serverSizes.size());
    m_local = even && n > 0 ? layout.serverSizes.front() : 1;
    m_rotated = even && m_servers > 1 && m_local > 1;
    m_positionOf.assign(n, 0);
    m_rankAt.assign(n, 0);
    for (uint32_t r = 0; r < n; ++r)
    {
        // Servers in order of first appearance, local ranks in rank order;
        // without a common server size, rank order.
        m_positionOf[r] = even ? layout.serverOf[r] * m_local + layout.localOf[r] : r;
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
            .AddAttribute("Algorithm",
                          "NCCL algorithm: Auto (NCCL's tuning model chooses), Ring or Tree (an "
                          "all-reduce only; the others run the rings). Takes effect at the next "
                          "Configure or Start.",
                          EnumValue(ALGORITHM_AUTO),
                          MakeEnumAccessor(&NcclCollective::m_forcedAlgorithm),
                          MakeEnumChecker(ALGORITHM_AUTO,
                                          "Auto",
                                          ALGORITHM_RING,
                                          "Ring",
                                          ALGORITHM_TREE,
                                          "Tree"))
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
    in.channels = NcclRingCollective::GetChannels(); // the graph's, the rings'
    in.bytes = GetBytes();
    in.netBandwidth = m_netBandwidth;
    in.nvlinkBandwidth = m_nvlinkBandwidth;
    return in;
}

NcclProtocol
NcclCollective::BestProtocol(NcclAlgorithm algorithm) const
{
    NcclProtocol best = NcclProtocol::SIMPLE;
    double bestTime = 0;
    bool first = true;
    for (NcclProtocol protocol : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE})
    {
        const NcclProtocolCost& cost = m_choice.Cost(algorithm, protocol);
        if (cost.enabled && (first || cost.timeUs < bestTime))
        {
            first = false;
            best = protocol;
            bestTime = cost.timeUs;
        }
    }
    return best;
}

void
NcclCollective::Tune()
{
    const NcclTuningInput input = GetTuningInput();
    m_choice = NcclChoose(input);
    m_algorithm = m_choice.algorithm;
    if (m_forcedAlgorithm != ALGORITHM_AUTO)
    {
        // NCCL's tree runs all-reduces only: a forced tree leaves the others on the rings.
        const bool tree =
            m_forcedAlgorithm == ALGORITHM_TREE && GetFunction() == NcclFunction::ALL_REDUCE;
        m_algorithm = tree ? NcclAlgorithm::TREE : NcclAlgorithm::RING;
    }
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
        m_protocol =
            m_algorithm == m_choice.algorithm ? m_choice.protocol : BestProtocol(m_algorithm);
        break;
    }
    const double latency = m_choice.Cost(m_algorithm, m_protocol).latencyUs;
    if (m_algorithm == NcclAlgorithm::TREE)
    {
        m_tree.Build(m_layout, input.channels);
        m_treeRun.Configure(&m_tree,
                            GetBytes(),
                            NcclTreeChunkBytes(m_protocol, input, m_tree.GetChannels()),
                            m_protocol,
                            latency);
        m_stepDelay = Time(0);
    }
    else
    {
        // The model's latency, spread evenly over the steps of the ring.
        const uint32_t steps = GetStepCount();
        m_stepDelay = steps == 0 ? Time(0) : Time::FromDouble(latency / steps, Time::US);
    }
    NS_LOG_INFO(GetName() << ": N " << GetRankCount() << " servers " << GetServerCount() << " S "
                          << GetBytes() << " C " << input.channels << ": Tree/LL "
                          << m_choice.tree[0].timeUs << " us, Tree/LL128 "
                          << m_choice.tree[1].timeUs << " us, Tree/Simple "
                          << m_choice.tree[2].timeUs << " us, Ring/LL " << m_choice.ring[0].timeUs
                          << " us, Ring/LL128 " << m_choice.ring[1].timeUs << " us, Ring/Simple "
                          << m_choice.ring[2].timeUs << " us; chose "
                          << ToString(m_choice.algorithm) << "/" << ToString(m_choice.protocol)
                          << ", running " << ToString(m_algorithm) << "/" << ToString(m_protocol));
}

void
NcclCollective::DoConfigure()
{
    NcclRingCollective::DoConfigure();
    m_layout = NcclRankLayout::Read(*GetTransport(), GetRankCount());
    Tune();
}

void
NcclCollective::DoStart()
{
    Tune(); // the Channels, Algorithm or Protocol attribute may have changed since Configure
    if (m_algorithm != NcclAlgorithm::TREE)
    {
        NcclRingCollective::DoStart();
        return;
    }
    ++m_treeRuns;
    if (m_treeRun.Start(TreeSender()))
    {
        Finish();
    }
}

NcclTreePipeline::SendFunction
NcclCollective::TreeSender()
{
    return [this, run = m_treeRuns](const CollectiveMessage& m) {
        SendMessage(m);
        return IsRunning() && m_treeRuns == run;
    };
}

void
NcclCollective::HandleDelivery(const CollectiveMessage& m)
{
    if (m_algorithm != NcclAlgorithm::TREE)
    {
        NcclRingCollective::HandleDelivery(m);
        return;
    }
    if (m_treeRun.Deliver(m, TreeSender()))
    {
        Finish();
    }
}

uint32_t
NcclCollective::GetChannels() const
{
    return m_algorithm == NcclAlgorithm::TREE ? m_tree.GetChannels()
                                              : NcclRingCollective::GetChannels();
}

uint64_t
NcclCollective::BytesPerRank() const
{
    return m_algorithm == NcclAlgorithm::TREE ? m_treeRun.BytesPerRank()
                                              : NcclRingCollective::BytesPerRank();
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
