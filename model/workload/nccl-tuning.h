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

/// NCCL's algorithms this module models (NCCL's tree is not modelled yet).
enum class NcclAlgorithm : uint8_t
{
    RING = 0,
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
/// \return "Ring"
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
    uint32_t channels{1};         ///< C, the channels the collective runs
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
    double timeUs{0};       ///< latencyUs + S / (1000 algBandwidth)
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
 * \return the (algorithm, protocol) of the least predicted time, as NCCL's
 * getAlgoInfo picks it (the first of equal times, in the order LL, LL128,
 * Simple). Only the ring is a candidate: NCCL's tree is not modelled.
 */
NcclChoice NcclChoose(const NcclTuningInput& input);

} // namespace ns3

#endif /* NCCL_TUNING_H */
