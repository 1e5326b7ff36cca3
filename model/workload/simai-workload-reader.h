/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SIMAI_WORKLOAD_READER_H
#define SIMAI_WORKLOAD_READER_H

#include "job-graph.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One row of a SimAI workload file: a layer's three phases and the
 * delay SimAI adds after each of its collectives.
 */
struct SimaiLayer
{
    /// A phase: compute, then a collective (or none).
    struct Phase
    {
        Time compute;      ///< the compute column (ticks, which SimAI counts in ns)
        std::string comm;  ///< the collective as written: ALLREDUCE_EP, NONE, ...
        uint64_t bytes{0}; ///< the size column: the collective's per-rank buffer
    };

    std::string name;
    int32_t reserved{-1}; ///< the second column (SimAI reads it and ignores it)
    Phase forward;
    Phase inputGradient;
    Phase weightGradient;
    Time update; ///< the last column: a delay after each of the row's collectives
    uint32_t line{0};
};

/**
 * \ingroup collective-scheduling
 * \brief A SimAI / AICB workload file read: its header, its rows and the
 * job graph of one iteration.
 */
struct SimaiWorkload
{
    std::string policy;  ///< HYBRID_TRANSFORMER_FWD_IN_BCKWD or HYBRID_TRANSFORMER
    uint32_t tp{1};      ///< model_parallel_NPU_group
    uint32_t ep{1};      ///< ep (1 when the header has none)
    uint32_t pp{1};      ///< pp (1 when the header has none)
    uint32_t vpp{1};     ///< vpp: recorded, not simulated (as in SimAI's packet backend)
    uint32_t ga{1};      ///< ga: recorded; AICB already writes each micro-batch as rows
    uint32_t allGpus{0}; ///< all_gpus (0 when the header has none)
    uint64_t ppComm{0};  ///< pp_comm bytes: recorded, not simulated
    std::vector<uint32_t> checkpoints;         ///< checkpoints: layers, without effect
    std::vector<uint32_t> checkpointInitiates; ///< checkpoint_initiates: layers, without effect
    uint32_t ranks{0};                         ///< the job's ranks
    uint32_t dp{1};                            ///< ranks / (tp x pp)
    std::vector<SimaiLayer> layers;
    /// Bytes of the BROADCAST entries, which SimAI does not simulate, nor does the graph.
    uint64_t broadcastBytes{0};
    JobGraph graph;
    /// What was read differently from how the file says it, as SimAI reads
    /// it ("path:line: field: ..."): a row count that disagrees with the rows.
    std::vector<std::string> warnings;
};

/**
 * \ingroup collective-scheduling
 * \brief How the graph's collectives run (what a SimAI file does not say).
 */
struct SimaiGraphSettings
{
    std::string allReduce{"ring-all-reduce"}; ///< the algorithm of ALLREDUCE
    uint32_t channels{1};                     ///< of every collective
};

/**
 * \ingroup collective-scheduling
 * Read a workload file in the text format of SimAI's workload layer
 * (astra-sim-alibabacloud/astra-sim/workload/Workload.cc), as AICB writes
 * it, and build the graph of one iteration as SimAI's ns-3 backend runs it.
 * doc/workloads-simai.md has the mapping and its sources.
 *
 * Format: line 1 is the policy (HYBRID_TRANSFORMER_FWD_IN_BCKWD or
 * HYBRID_TRANSFORMER) and "key: value" pairs: model_parallel_NPU_group
 * (required), ep, pp, vpp, ga, all_gpus, pp_comm (also without the colon),
 * checkpoints and checkpoint_initiates (a count, then that many layers);
 * expert_parallel_npu_group is read as ep. Line 2 is the number of rows.
 * Then one row per line, 12 fields separated by white space: name,
 * reserved, then for forward, input gradient and weight gradient each a
 * compute time, a collective and its bytes, then the update time. Times
 * are SimAI ticks, nanoseconds; sizes are bytes. Blank lines are skipped.
 *
 * Ranks: rank = t + tp x (p + pp x d) (t < tp, p < pp, d < dp), as SimAI's
 * MockNcclGroup numbers them. A collective without a suffix runs on the
 * tensor-parallel group (consecutive ranks) in the forward and
 * input-gradient columns and on the data-parallel group (stride tp x pp)
 * in the weight-gradient column; _EP runs on ep consecutive replicas,
 * _DP_EP on the dp / ep replicas that hold the same experts. A collective
 * on a group of one rank, of 0 bytes, NONE or BROADCAST sends nothing.
 *
 * Graph: every row's forward in file order, then, from the last row to the
 * first, its input gradient and its weight gradient. Compute ops cover a
 * tensor-parallel group. Forward and input-gradient collectives block the
 * compute after them; weight-gradient collectives do not, and run one at a
 * time per rank in issue order. The update time is a delay (a compute op)
 * after each collective. Groups: tensor-parallel collectives are
 * CommGroup::Tensor, _EP ones Expert, data-parallel and _DP_EP ones Data
 * (planned). There are no pipeline transfers: SimAI's packet backend does
 * not send pp_comm.
 *
 * \param path the file
 * \param ranks the job's GPUs; 0 takes all_gpus from the header
 * \param settings the collectives' algorithm and channels
 * \return the header, the rows and the graph
 * \throw std::runtime_error "path:line: field: message" for a missing or
 *        unknown policy or header field, a duplicate or missing value, a
 *        bad, negative or too large number, a row without 12 fields, an
 *        unknown collective, a file without rows, ranks that are not a
 *        multiple of tp x pp (or dp of ep), or a graph over
 *        ns3::InputLimits::MaxJobMemory; "path: cannot open" for a file that
 *        cannot be read. A row count on line 2 that the rows do not
 *        match is a warning (SimaiWorkload::warnings), as SimAI reads it.
 * \throw std::invalid_argument if \p settings has no channel
 */
SimaiWorkload ReadSimaiWorkload(const std::string& path,
                                uint32_t ranks = 0,
                                const SimaiGraphSettings& settings = SimaiGraphSettings{});

/**
 * The ranks a SimAI workload file's header gives (all_gpus), read without
 * its rows or a graph: what a scenario checks against its topology before
 * any graph is built.
 * \throw std::runtime_error naming the file as ReadSimaiWorkload
 */
uint32_t ReadSimaiWorkloadRanks(const std::string& path);

/**
 * Read a SimAI workload from text; as ReadSimaiWorkload, with \p sourceName
 * in error messages.
 */
SimaiWorkload ReadSimaiWorkloadText(const std::string& text,
                                    const std::string& sourceName,
                                    uint32_t ranks = 0,
                                    const SimaiGraphSettings& settings = SimaiGraphSettings{});

} // namespace ns3

#endif /* SIMAI_WORKLOAD_READER_H */
