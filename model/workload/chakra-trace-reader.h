/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CHAKRA_TRACE_READER_H
#define CHAKRA_TRACE_READER_H

#include "job-graph.h"

#include "ns3/input-file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Which dependencies of a Chakra node hold it back. The two feeders that
 * read Chakra traces disagree: ASTRA-sim's own feeder waits for both lists,
 * the Chakra repository's feeder for data_deps only, and PyTorch traces
 * converted for the latter record the call stack in ctrl_deps (parents that
 * were dropped, even a node its own parent).
 */
enum class ChakraDeps : uint8_t
{
    DataAndControl, ///< data_deps and ctrl_deps (ASTRA-sim's feeder): "data+ctrl"
    Data,           ///< data_deps only (the Chakra repository's feeder): "data"
};

/// "data+ctrl" or "data".
std::string ChakraDepsName(ChakraDeps deps);

/// The ChakraDeps named \p name. \throw std::invalid_argument for another name
ChakraDeps ParseChakraDeps(const std::string& name);

/**
 * \ingroup collective-scheduling
 * How a Chakra trace becomes a JobGraph (the keys of a scenario's
 * `workload: {format: "chakra", ...}`).
 */
struct ChakraTraceOptions
{
    /// The job's ranks: 0 for as many as there are rank files.
    uint32_t ranks{0};
    /// A communicator-group JSON file, `{"<group id>": [rank, ...]}`, or empty.
    std::string commGroups;
    ChakraDeps deps{ChakraDeps::DataAndControl};
    /// The module's collective for ALL_REDUCE.
    std::string allReduce{"ring-all-reduce"};
    uint32_t channels{1}; ///< of every collective
    /// The group of the collectives: Data, so that schedulers plan them.
    CommGroup collectiveGroup{CommGroup::Data};
    /// The group of the point-to-point transfers, which a trace does not name.
    CommGroup transferGroup{CommGroup::None};
    /// A rank file larger than this (on disk, and after decompression) is refused.
    uint64_t maxFileBytes{InputFileKinds::kChakraTrace.maxBytes};
};

/**
 * \ingroup collective-scheduling
 * One rank's Chakra execution trace, as bytes.
 */
struct ChakraRankBytes
{
    std::string source; ///< the name errors give it (normally the file's path)
    std::string bytes;  ///< the .et file: plain, or compressed with gzip
};

/**
 * \ingroup collective-scheduling
 * The rank files of the trace \p prefix, named as ASTRA-sim names them:
 * `<prefix>.<rank>.et`, or `<prefix>.<rank>.et.gz` when only that exists.
 *
 * \param prefix the path of the files without ".<rank>.et"
 * \param ranks the job's ranks, or 0 for rank 0 up to the first one missing
 * \return one path per rank, rank 0 first
 * \throw std::runtime_error naming the first missing file: with \p ranks,
 *        a rank below it without a file; without, no file for rank 0, or a
 *        gap (a file for a higher rank than one that is missing)
 */
std::vector<std::string> FindChakraRankFiles(const std::string& prefix, uint32_t ranks);

/**
 * \ingroup collective-scheduling
 * Read a Chakra execution trace (one .et file per rank, as ASTRA-sim runs
 * them) as one job's iteration graph. doc/workloads-chakra.md gives the
 * mapping; in short:
 * - each rank's nodes are ordered by their dependencies, ready nodes lowest
 *   id first, as ASTRA-sim's feeder issues them; GPU compute runs on a
 *   stream per rank, CPU ops (is_cpu_op) on another, as ASTRA-sim runs one
 *   of each at a time per NPU;
 * - a compute node becomes a Compute op of its duration_micros on its rank
 *   (1 ns when 0, as ASTRA-sim replays it);
 * - the k-th collective of a communicator group on each of its members is
 *   one Collective op over the group, of comm_size bytes per rank (N x
 *   comm_size for an all-gather, whose comm_size is each rank's share);
 * - the k-th send from rank s to rank d with tag t and the k-th receive of
 *   it on d are one Transfer op, which waits for the send's dependencies;
 *   what depends on the receive waits for the transfer and the receive's
 *   own dependencies.
 *
 * Errors name the rank file, the node's id as the record and the field:
 * "file:id: field: what"; an error about the file as a whole (framing,
 * gzip, an empty file) has record 0 and names the message and its byte.
 *
 * \param prefix the rank files' path without ".<rank>.et" (FindChakraRankFiles)
 * \param options what to read and how; options.commGroups is read here
 * \throw std::runtime_error for a missing or bad file, a node that cannot be
 *        read or mapped (see the doc for what is refused), a dependency on a
 *        node the file lacks, a dependency cycle (within a rank, or across
 *        ranks through collectives and transfers), a collective or send
 *        without its match on the other ranks, a group naming ranks the job
 *        lacks, a size or time that overflows
 * \throw std::invalid_argument for options that do not make a job (no
 *        channel, no all-reduce algorithm)
 */
JobGraph ReadChakraTrace(const std::string& prefix, const ChakraTraceOptions& options = {});

/**
 * \ingroup collective-scheduling
 * As ReadChakraTrace, from the rank files' bytes: rank r is \p ranks[r]
 * (options.ranks and options.commGroups are not used).
 *
 * \param ranks one trace per rank, at least one
 * \param commGroupsText the communicator-group JSON, or empty for none
 * \param commGroupsSource its name in errors
 * \param options how to map the trace
 * \throw as ReadChakraTrace
 */
JobGraph ReadChakraTraceBytes(const std::vector<ChakraRankBytes>& ranks,
                              const std::string& commGroupsText,
                              const std::string& commGroupsSource,
                              const ChakraTraceOptions& options);

} // namespace ns3

#endif /* CHAKRA_TRACE_READER_H */
