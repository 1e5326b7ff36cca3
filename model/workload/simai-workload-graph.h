/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SIMAI_WORKLOAD_GRAPH_H
#define SIMAI_WORKLOAD_GRAPH_H

#include "simai-workload-reader.h"

#include <cstdint>
#include <string>
#include <utility>

namespace ns3
{

/// What the SimAI reader and the graph it builds share (not an interface of the module).
namespace simai_detail
{

/// The groups of SimAI's MockNcclGroup.
enum class Group : uint8_t
{
    Tensor,     ///< TP: tp consecutive ranks
    Data,       ///< DP: the dp replicas of a tensor rank and stage
    Expert,     ///< EP: ep consecutive replicas
    DataExpert, ///< DP_EP: the dp / ep replicas that hold the same experts
};

/// A collective column, decoded.
struct Comm
{
    bool sends{false};     ///< false for NONE and BROADCAST
    std::string algorithm; ///< a Collective's short name; "" for SimAI's ALLREDUCE
    Group group{Group::Tensor};
};

/**
 * Decode a collective column as SimAI's reader does: the type, then the
 * group from the suffix. No suffix is the tensor-parallel group in the
 * forward and input-gradient columns and the data-parallel group in the
 * weight-gradient column.
 * \return false for a name SimAI's reader does not map to a collective on a group
 */
bool DecodeComm(const std::string& text, bool weightGradient, Comm& comm);

/**
 * The ops the graph of \p w will have (the same walk, nothing built), and
 * the bytes they and the per-rank state of the build and of a run take.
 */
std::pair<double, double> EstimateSimaiGraph(const SimaiWorkload& w);

/// The iteration of \p w, in the order SimAI's workload layer runs it.
JobGraph BuildSimaiGraph(const SimaiWorkload& w, const SimaiGraphSettings& s);

} // namespace simai_detail
} // namespace ns3

#endif /* SIMAI_WORKLOAD_GRAPH_H */
