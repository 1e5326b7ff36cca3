/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_TUNING_H
#define NCCL_TUNING_H

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief NCCL's protocols: how a channel's data travels on the wire.
 *
 * LL packs 8 bytes of data with an 8-byte flag (50% of the wire is data),
 * LL128 120 bytes of data in 128, Simple sends the data alone but waits on
 * memory fences (the largest per-step latency).
 */
enum class NcclProtocol : uint8_t
{
    LL = 0,
    LL128 = 1,
    SIMPLE = 2,
};

/// NCCL's algorithms this module models, in the order NCCL evaluates them
/// (NVLS and CollNet are not modelled).
enum class NcclAlgorithm : uint8_t
{
    TREE = 0,
    RING = 1,
};

/// The collectives NCCL's tuning model distinguishes.
enum class NcclFunction : uint8_t
{
    ALL_REDUCE,
    REDUCE_SCATTER,
    ALL_GATHER,
};

/// \return "LL", "LL128" or "Simple", as NCCL names them
std::string ToString(NcclProtocol protocol);
/// \return "Tree" or "Ring"
std::string ToString(NcclAlgorithm algorithm);

/// \return the wire bytes a message of \p data bytes takes in \p protocol
/// (LL 2x, LL128 128/120 rounded up, Simple 1x)
uint64_t NcclWireBytes(NcclProtocol protocol, uint64_t data);

/**
 * \ingroup collective-scheduling
 * \brief What NCCL's tuning model is fed: the communicator and the buffer.
 */
struct NcclTuningInput
{
    NcclFunction function{NcclFunction::ALL_REDUCE};
    uint32_t ranks{1};            ///< N
    uint32_t nodes{1};            ///< servers n
    uint32_t nicsPerNode{1};      ///< k: one NIC a GPU, so the ranks a server
    uint32_t channels{1};         ///< C, the channels of the ring graph
    uint64_t bytes{0};            ///< S, NCCL's nBytes (the full buffer)
    double netBandwidth{12.5};    ///< GB/s of one NIC
    double nvlinkBandwidth{20.0}; ///< GB/s of one channel inside a server
};

/// One (algorithm, protocol)'s terms in NCCL's model.
struct NcclProtocolCost
{
    double latencyUs{0};    ///< the latency term, plateau factor included
    double busBandwidth{0}; ///< GB/s, after the protocol's refinements
    double algBandwidth{0}; ///< GB/s: busBandwidth x N / steps
    double timeUs{0};       ///< latencyUs + S / (1000 algBandwidth x correction)
    bool enabled{true};     ///< false: NCCL does not run this (algorithm, function)
};

/**
 * \ingroup collective-scheduling
 * \brief NCCL's choice: the fastest predicted (algorithm, protocol).
 */
struct NcclChoice
{
    NcclAlgorithm algorithm{NcclAlgorithm::RING};
    NcclProtocol protocol{NcclProtocol::SIMPLE};
    double timeUs{0};    ///< predicted time of the choice
    double latencyUs{0}; ///< its latency term
    /// The ring's terms by protocol (indexed by NcclProtocol).
    std::array<NcclProtocolCost, 3> ring;
    /// The tree's terms by protocol; not enabled but for an all-reduce.
    std::array<NcclProtocolCost, 3> tree;

    /// \return the terms of \p algorithm with \p protocol
    const NcclProtocolCost& Cost(NcclAlgorithm algorithm, NcclProtocol protocol) const
    {
        const auto p = static_cast<std::size_t>(protocol);
        return algorithm == NcclAlgorithm::TREE ? tree[p] : ring[p];
    }
};

/**
 * \ingroup collective-scheduling
 * \return the ring's terms for \p protocol in NCCL's tuning model
 * (ncclTopoTuneModel and ncclTopoGetAlgoTime of NCCL 2.20.3,
 * src/graph/tuning.cc), for an Ampere GPU, an x86 Intel host, NVLink inside
 * each server and InfiniBand/RoCE between servers; see doc/design-notes.md.
 */
NcclProtocolCost NcclRingCost(const NcclTuningInput& input, NcclProtocol protocol);

/**
 * \ingroup collective-scheduling
 * \return the tree's terms for \p protocol in the same model: NCCL's double
 * binary tree across servers with a chain through each server's GPUs, an
 * all-reduce of two ranks or more (disabled otherwise). Its time includes
 * NCCL's treeCorrectionFactor for the size.
 */
NcclProtocolCost NcclTreeCost(const NcclTuningInput& input, NcclProtocol protocol);

/**
 * \return the (algorithm, protocol) of the least predicted time, as NCCL's
 * getAlgoInfo picks it: the first of equal times in the order Tree, Ring
 * and, within each, LL, LL128, Simple. The tree is a candidate for an
 * all-reduce only, as in NCCL.
 */
NcclChoice NcclChoose(const NcclTuningInput& input);

/// \return floor(log2(\p n)) (0 for n < 2), NCCL's log2i
uint32_t NcclLog2i(uint64_t n);

/**
 * \return NCCL's tree depth for \p ranks ranks on \p nodes nodes:
 * ranks/nodes - 1 + log2i(nodes) (connectTrees' approximation, which sizes
 * the tree's chunks)
 */
uint32_t NcclTreeDepth(uint32_t ranks, uint32_t nodes);

/**
 * \return the data bytes of one chunk of NCCL's tree all-reduce on a
 * channel, as NCCL's enqueue sizes it: a step of the protocol's buffer
 * (Simple 512 KiB, LL128 614400 wire bytes, LL 32 KiB of data), halved for
 * Simple while the buffer gives fewer than 8, 4, 1 x depth chunks a channel
 * (down to 128, 64, 32 KiB), for LL128 while fewer than 64 or 16 x
 * (1 + log2i(n) + ppn/10) / ppn (down to 128, 32 KiB)
 * \param treeChannels the channels the tree runs (both trees)
 */
uint64_t NcclTreeChunkBytes(NcclProtocol protocol,
                            const NcclTuningInput& input,
                            uint32_t treeChannels);

} // namespace ns3

#endif /* NCCL_TUNING_H */
