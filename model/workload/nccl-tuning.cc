/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-tuning.h"

#include <algorithm>

namespace ns3
{

namespace
{

// NCCL's tuning model, NCCL 2.20.3 (NVIDIA/nccl, src/graph/tuning.cc,
// commit b6475625): latencies in microseconds, bandwidths in GB/s. Indexed
// by NcclProtocol (LL, LL128, Simple). The ring's and the tree's rows.

/// baseLat, ring row: the fixed cost of a ring collective.
constexpr double kRingBaseLatency[3] = {6.6, 14.0, 8.4};
/// hwLat[NVLINK], ring row: the cost of a step between two GPUs of a server.
constexpr double kRingNvlinkLatency[3] = {0.6, 1.9, 3.4};
/// hwLat[NET], ring row: the cost of a step that crosses the network.
constexpr double kRingNetLatency[3] = {2.7, 4.0, 14.0};
/// getNetOverhead on an x86 Intel host: 1 us a network post (x3 for Simple).
constexpr double kNetOverhead = 1.0;
/// llMaxBws, Intel rows (multi-node looks at the CPU): 2 nodes, more nodes;
/// Ampere on one node.
constexpr double kLlMaxBwOneNode = 87.7;
constexpr double kLlMaxBwTwoNodes = 39.0;
constexpr double kLlMaxBwMoreNodes = 20.4;
/// perChMaxRingLL128Bws, Ampere: LL128's ceiling per channel.
constexpr double kLl128MaxBwPerChannel = 20.0;
/// LL128's efficiency: 0.92 (~120/128) with two or more GPUs a node, 0.7 with one.
constexpr double kLl128Efficiency = 0.92;
constexpr double kLl128EfficiencyOneGpu = 0.7;
/// Ring Simple all-reduce on several nodes: latency x 1.4 (Ampere and newer)
/// once every rank's share of a channel reaches 64 bytes ("plateau effect").
constexpr double kSimplePlateau = 1.4;
constexpr double kSimplePlateauBytes = 64;

/// baseLat, tree row.
constexpr double kTreeBaseLatency[3] = {6.8, 14.0, 0.0};
/// hwLat[NVLINK], tree row: a hop of the chain through a server's GPUs.
constexpr double kTreeNvlinkLatency[3] = {0.6, 1.25, 28.0};
/// hwLat[NET], tree row: a hop of the tree between servers.
constexpr double kTreeNetLatency[3] = {5.0, 8.5, 28.0};
/// The tree's bus bandwidth is 92% of the graph's.
constexpr double kTreeEfficiency = 0.92;
/// perChMaxTreeBws, Ampere: one node, two nodes, more nodes.
constexpr double kTreeMaxBwPerChannel[3] = {24.0, 23.6, 17.8};
/// Tree LL: the bus bandwidth / 3.8 (capped at llMaxBw).
constexpr double kTreeLlShare = 1.0 / 3.8;
/// Tree LL128: 7/9 on one node, 120/128 across nodes, capped per channel
/// (perChMaxTreeLL128Bws, Ampere: 20 GB/s).
constexpr double kTreeLl128OneNode = 7.0 / 9.0;
constexpr double kTreeLl128Nodes = 120.0 / 128.0;
constexpr double kTreeLl128MaxBwPerChannel = 20.0;
/// A tree all-reduce moves its bytes twice (up, then down): algBw = busBw / 2.
constexpr double kTreeAlgRatio = 0.5;
/// treeCorrectionFactor: the tree's bandwidth at sizes 64 B x 2^i (i = log2i(S / 64)).
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
/// A step of each protocol's buffer (buffSizes / NCCL_STEPS), in the bytes
/// NCCL's chunk rule compares: Simple 4 MiB / 8; LL128 120 x 640 x 8 x 8 B / 8
/// (wire); LL's 64 KiB of lines carry 32 KiB of data.
constexpr uint64_t kTreeChunkStep[3] = {32768, 614400, 524288};

/// The bus bandwidth of one channel of NCCL's graph: across servers a NIC
/// shared by the channels leaving through it (the graph's channels leave
/// through min(k, C) NICs); inside one server, an NVLink channel.
double
PerChannelBandwidth(const NcclTuningInput& in)
{
    const double channels = std::max(in.channels, 1u);
    if (std::max(in.nodes, 1u) > 1)
    {
        return in.netBandwidth * std::min<double>(in.nicsPerNode, channels) / channels;
    }
    return in.nvlinkBandwidth;
}

/// llMaxBws, Intel rows on several nodes, Ampere on one.
double
LlMaxBandwidth(uint32_t nodes)
{
    return nodes <= 1 ? kLlMaxBwOneNode : (nodes == 2 ? kLlMaxBwTwoNodes : kLlMaxBwMoreNodes);
}

} // namespace

uint32_t
NcclLog2i(uint64_t n)
{
    uint32_t l = 0;
    while (n >>= 1)
    {
        ++l;
    }
    return l;
}

uint32_t
NcclTreeDepth(uint32_t ranks, uint32_t nodes)
{
    nodes = std::max(nodes, 1u);
    return ranks / nodes - 1 + NcclLog2i(nodes);
}

std::string
ToString(NcclProtocol protocol)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return "LL";
    case NcclProtocol::LL128:
        return "LL128";
    default:
        return "Simple";
    }
}

std::string
ToString(NcclAlgorithm algorithm)
{
    return algorithm == NcclAlgorithm::TREE ? "Tree" : "Ring";
}

uint64_t
NcclWireBytes(NcclProtocol protocol, uint64_t data)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return 2 * data; // an 8-byte flag with every 8 bytes of data
    case NcclProtocol::LL128:
        return (data * 128 + 119) / 120; // 8 flag bytes in every 128-byte line
    default:
        return data;
    }
}

NcclProtocolCost
NcclRingCost(const NcclTuningInput& in, NcclProtocol protocol)
{
    const auto p = static_cast<std::size_t>(protocol);
    const double n = in.ranks;
    const uint32_t nodes = std::max(in.nodes, 1u);
    const bool allReduce = in.function == NcclFunction::ALL_REDUCE;
    const double steps = allReduce ? 2.0 * (n - 1) : n - 1;
    // Steps that cross the network, as NCCL counts them.
    const double interSteps = allReduce ? (nodes > 1 ? 2.0 * nodes : 0.0) : nodes - 1.0;
    const double channels = std::max(in.channels, 1u);

    // Bus bandwidth of the ring graph: NCCL's topology search gives each
    // channel the bandwidth of the narrowest link it crosses.
    double bus = channels * PerChannelBandwidth(in);
    const double ppn = n / nodes;
    if (protocol == NcclProtocol::LL)
    {
        bus = std::min(LlMaxBandwidth(nodes),
                       bus * ((nodes > 1 || allReduce) ? 1.0 / 4.0 : 1.0 / 3.0));
    }
    else if (protocol == NcclProtocol::LL128)
    {
        bus = std::min(bus * (ppn < 2 ? kLl128EfficiencyOneGpu : kLl128Efficiency),
                       channels * kLl128MaxBwPerChannel);
    }

    NcclProtocolCost cost;
    cost.busBandwidth = bus;
    cost.algBandwidth = steps > 0 ? bus * n / steps : bus;

    double intra = kRingNvlinkLatency[p];
    if (nodes > 1)
    {
        // Every step of a multi-node ring launches a network post.
        intra = std::max(intra, kNetOverhead * (protocol == NcclProtocol::SIMPLE ? 3.0 : 1.0));
    }
    double latency =
        kRingBaseLatency[p] + (steps - interSteps) * intra + interSteps * kRingNetLatency[p];
    if (protocol == NcclProtocol::SIMPLE && allReduce && nodes > 1 &&
        static_cast<double>(in.bytes) / (channels * n) >= kSimplePlateauBytes)
    {
        latency *= kSimplePlateau;
    }
    cost.latencyUs = latency;
    cost.timeUs = latency + static_cast<double>(in.bytes) / (1000.0 * cost.algBandwidth);
    return cost;
}

NcclProtocolCost
NcclTreeCost(const NcclTuningInput& in, NcclProtocol protocol)
{
    NcclProtocolCost cost;
    if (in.function != NcclFunction::ALL_REDUCE || in.ranks < 2)
    {
        // NCCL's tree runs all-reduces only, and NCCL tunes nothing for one rank.
        cost.enabled = false;
        return cost;
    }
    const auto p = static_cast<std::size_t>(protocol);
    const uint32_t nodes = std::max(in.nodes, 1u);
    const double channels = std::max(in.channels, 1u);
    const std::size_t nodeIndex = nodes <= 2 ? nodes - 1 : 2;

    double bus = channels * PerChannelBandwidth(in);
    bus = std::min(bus * kTreeEfficiency, channels * kTreeMaxBwPerChannel[nodeIndex]);
    if (protocol == NcclProtocol::LL)
    {
        bus = std::min(bus * kTreeLlShare, LlMaxBandwidth(nodes));
    }
    else if (protocol == NcclProtocol::LL128)
    {
        bus = std::min(bus * (nodes == 1 ? kTreeLl128OneNode : kTreeLl128Nodes),
                       channels * kTreeLl128MaxBwPerChannel);
    }
    cost.busBandwidth = bus;
    cost.algBandwidth = bus * kTreeAlgRatio;
    // Up the chain and the tree, then down again.
    cost.latencyUs = kTreeBaseLatency[p] + 2.0 * ((in.ranks / nodes - 1.0) * kTreeNvlinkLatency[p] +
                                                  NcclLog2i(nodes) * kTreeNetLatency[p]);
    const uint32_t logSize = NcclLog2i(in.bytes >> 6);
    const double correction = logSize < 23 ? kTreeCorrection[p][logSize] : 1.0;
    cost.timeUs =
        cost.latencyUs + static_cast<double>(in.bytes) / (1000.0 * cost.algBandwidth * correction);
    return cost;
}

NcclChoice
NcclChoose(const NcclTuningInput& input)
{
    NcclChoice choice;
    bool first = true;
    for (NcclProtocol protocol : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE})
    {
        const auto p = static_cast<std::size_t>(protocol);
        choice.tree[p] = NcclTreeCost(input, protocol);
        choice.ring[p] = NcclRingCost(input, protocol);
    }
    // NCCL's order: Tree before Ring, LL before LL128 before Simple; a later
    // candidate wins only if strictly faster.
    for (NcclAlgorithm algorithm : {NcclAlgorithm::TREE, NcclAlgorithm::RING})
    {
        for (NcclProtocol protocol : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE})
        {
            const NcclProtocolCost& cost = choice.Cost(algorithm, protocol);
            if (cost.enabled && (first || cost.timeUs < choice.timeUs))
            {
                first = false;
                choice.algorithm = algorithm;
                choice.protocol = protocol;
                choice.timeUs = cost.timeUs;
                choice.latencyUs = cost.latencyUs;
            }
        }
    }
    return choice;
}

uint64_t
NcclTreeChunkBytes(NcclProtocol protocol, const NcclTuningInput& in, uint32_t treeChannels)
{
    const auto p = static_cast<std::size_t>(protocol);
    uint64_t chunk = kTreeChunkStep[p];
    const uint64_t channels = std::max(treeChannels, 1u);
    const uint32_t nodes = std::max(in.nodes, 1u);
    // NCCL compares whole chunks: nBytes / (nChannels x chunkSize), in integers.
    const auto chunksPerChannel = [&]() { return in.bytes / (channels * chunk); };
    if (protocol == NcclProtocol::SIMPLE)
    {
        const uint64_t depth = NcclTreeDepth(in.ranks, nodes);
        while (chunksPerChannel() < depth * 8 && chunk > 131072)
        {
            chunk /= 2;
        }
        while (chunksPerChannel() < depth * 4 && chunk > 65536)
        {
            chunk /= 2;
        }
        while (chunksPerChannel() < depth && chunk > 32768)
        {
            chunk /= 2;
        }
        return chunk;
    }
    if (protocol == NcclProtocol::LL128)
    {
        const double ppn = static_cast<double>(in.ranks) / nodes;
        const double steps = 1 + NcclLog2i(nodes) + 0.1 * ppn;
        while (chunksPerChannel() < steps * 64 / ppn && chunk > 131072)
        {
            chunk /= 2;
        }
        while (chunksPerChannel() < steps * 16 / ppn && chunk > 32768)
        {
            chunk /= 2;
        }
        return chunk * 120 / 128; // the data of a chunk of 128-byte lines
    }
    return chunk;
}

} // namespace ns3
