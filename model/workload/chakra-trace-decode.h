/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CHAKRA_TRACE_DECODE_H
#define CHAKRA_TRACE_DECODE_H

// The first half of reading a Chakra trace (chakra-trace-reader.h): each
// rank file decoded into its nodes, their dependencies resolved and put in
// issue order, and the communicator groups read. The second half,
// chakra-trace-reader.cc, builds the job's graph from them.

#include "chakra-trace-reader.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{
namespace chakra
{

/// The group of a collective without pg_name (or with "0"): every rank.
constexpr int64_t kAllRanks = -1;

/// What a node becomes.
enum class Role : uint8_t
{
    Pass,       ///< INVALID or METADATA: done as soon as its dependencies are
    GpuCompute, ///< a Compute op on the rank's GPU stream
    CpuCompute, ///< a Compute op on the rank's CPU stream
    Replay,     ///< a GPU BROADCAST, replayed as its duration on the comm stream
    Collective, ///< part of a Collective op
    Send,       ///< the sending end of a Transfer op
    Recv,       ///< the receiving end: done when the transfer and its dependencies are
};

/// One node of a rank's trace, as the graph needs it.
struct TraceNode
{
    uint64_t id{0};
    std::string name;
    int type{0};
    Role role{Role::Pass};
    Time duration;                 ///< compute and replay
    std::vector<uint32_t> deps;    ///< indexes of the nodes it waits for
    std::vector<bool> depIsCtrl;   ///< per dep: from ctrl_deps (for errors)
    std::vector<uint64_t> dataIds; ///< as read, until resolved
    std::vector<uint64_t> ctrlIds;
    int64_t commType{-1};
    uint64_t commSize{0};
    uint32_t peer{0}; ///< send: comm_dst; receive: comm_src
    uint32_t tag{0};
    std::string pgName;
    int64_t group{kAllRanks}; ///< resolved from pg_name
};

/// A process group a METADATA node declares (ASTRA-sim reads them from PyTorch traces).
struct DeclaredGroup
{
    int64_t id;
    std::vector<uint32_t> ranks; ///< empty: every rank
    uint64_t node;               ///< the METADATA node's id
};

/// One rank's trace.
struct RankTrace
{
    std::string source;
    uint32_t rank{0};
    std::vector<TraceNode> nodes;
    std::vector<uint32_t> order;    ///< node indexes in issue order
    std::vector<uint32_t> position; ///< per node: its place in order
    std::vector<DeclaredGroup> declared;
};

/// A communicator group: its members, in the order a collective gives them ranks.
struct Group
{
    std::vector<uint32_t> members;
    std::string origin; ///< where it was defined, for errors
};

/**
 * Throw "source:id: field: what", the form of every reader's errors, with
 * the node's id as the record.
 */
[[noreturn]] void Fail(const std::string& source,
                       uint64_t id,
                       const std::string& field,
                       const std::string& what);

/// A node type's name, for errors.
std::string NodeTypeText(int type);

/**
 * Throw "source:id: field: what", the form of every reader's errors, with
 * the node's id as the record.
 */
[[noreturn]] void Fail(const std::string& source,
                       uint64_t id,
                       const std::string& field,
                       const std::string& what);

/// A comm_type's name, for errors.
std::string CommTypeText(int64_t type);

/// \p text as a decimal in [min, max], or nothing.
std::optional<int64_t> ParseDecimal(const std::string& text, int64_t min, int64_t max);

/// Rank \p rank's file (plain or gzip) decoded into its nodes; at most \p maxBytes inflated.
RankTrace DecodeRank(const ChakraRankBytes& in,
                     uint32_t rank,
                     uint32_t rankCount,
                     uint64_t maxBytes);

/// The nodes' dependency ids turned into node indexes, as \p deps says which to follow.
void ResolveDeps(RankTrace& t, ChakraDeps deps);

/// The rank's nodes in issue order (RankTrace::order), or a cycle as an error.
void OrderRank(RankTrace& t);

/// ASTRA-sim's communicator-group JSON \p text.
std::map<int64_t, Group> ReadCommGroups(const std::string& text,
                                        const std::string& source,
                                        uint32_t rankCount);

/// The process groups METADATA nodes declare, added to \p groups.
void AddDeclaredGroups(const std::vector<RankTrace>& ranks, std::map<int64_t, Group>& groups);

/// Each node's pg_name resolved to a group of \p groups.
void ResolveGroups(std::vector<RankTrace>& ranks,
                   const std::map<int64_t, Group>& groups,
                   const std::string& source);

} // namespace chakra
} // namespace ns3

#endif /* CHAKRA_TRACE_DECODE_H */
