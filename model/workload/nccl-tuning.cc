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
// by NcclProtocol (LL, LL128, Simple). Only the ring's rows are used.

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

} // namespace

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
ToString(NcclAlgorithm /* algorithm */)
{
    return "Ring";
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
    // channel the bandwidth of the narrowest link it crosses. Across servers
    // that is a NIC, shared by the channels leaving through it (the rings
    // leave through min(k, C) NICs); inside one server, an NVLink channel.
    double perChannel = in.nvlinkBandwidth;
    if (nodes > 1)
    {
        perChannel = in.netBandwidth * std::min<double>(in.nicsPerNode, channels) / channels;
    }
    double bus = channels * perChannel;
    const double ppn = n / nodes;
    if (protocol == NcclProtocol::LL)
    {
        const double llMax =
            nodes == 1 ? kLlMaxBwOneNode : (nodes == 2 ? kLlMaxBwTwoNodes : kLlMaxBwMoreNodes);
        bus = std::min(llMax, bus * ((nodes > 1 || allReduce) ? 1.0 / 4.0 : 1.0 / 3.0));
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

NcclChoice
NcclChoose(const NcclTuningInput& input)
{
    NcclChoice choice;
    choice.algorithm = NcclAlgorithm::RING;
    bool first = true;
    for (NcclProtocol protocol : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE})
    {
        const NcclProtocolCost cost = NcclRingCost(input, protocol);
        choice.ring[static_cast<std::size_t>(protocol)] = cost;
        if (first || cost.timeUs < choice.timeUs)
        {
            first = false;
            choice.protocol = protocol;
            choice.timeUs = cost.timeUs;
            choice.latencyUs = cost.latencyUs;
        }
    }
    return choice;
}

} // namespace ns3
