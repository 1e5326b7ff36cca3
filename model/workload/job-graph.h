/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef JOB_GRAPH_H
#define JOB_GRAPH_H

#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The parallelism a communication op serves: what the scheduler and
 * the results call its group.
 */
enum class CommGroup : uint8_t
{
    None,     ///< not a communication op, or no parallel dimension
    Data,     ///< data parallelism (gradient all-reduce, ZeRO shards)
    Tensor,   ///< tensor (and sequence) parallelism
    Pipeline, ///< pipeline parallelism (activations and their gradients)
    Expert,   ///< expert parallelism (all-to-all dispatch and combine)
};

/// "dp", "tp", "pp", "ep" or "none".
std::string CommGroupName(CommGroup group);

/**
 * \ingroup collective-scheduling
 * \brief An op's label, for traces and errors. The graph keeps one copy of
 * each distinct label, shared by the ops that carry it: a job of many ranks
 * repeats few labels, and a long one (a layer name in a workload file)
 * costs its bytes once, not once per op.
 */
class OpName
{
  public:
    OpName() = default;

    /// The label; empty for none.
    const std::string& Get() const
    {
        static const std::string none;
        return m_text ? *m_text : none;
    }

    bool empty() const
    {
        return Get().empty();
    }

  private:
    friend class JobGraph;
    std::shared_ptr<const std::string> m_text;
};

/// Writes the label.
inline std::ostream&
operator<<(std::ostream& os, const OpName& name)
{
    return os << name.Get();
}

/**
 * \ingroup collective-scheduling
 * \brief One op of a job's iteration graph.
 */
struct GraphOp
{
    /// What the op does.
    enum class Kind : uint8_t
    {
        Compute,    ///< the ranks compute for duration
        Collective, ///< a collective (algorithm) over the ranks, in that order
        Transfer,   ///< ranks[0] sends bytes to ranks[1] (a matched send and receive)
    };

    Kind kind{Kind::Compute};
    /// Compute: the ranks that compute (each its share, at once). Collective:
    /// the group's members, as its ranks 0..N-1. Transfer: {sender, receiver}.
    std::vector<uint32_t> ranks;
    Time duration;         ///< compute time
    uint64_t bytes{0};     ///< collective: its per-rank buffer; transfer: the message
    std::string algorithm; ///< collective: a Collective's short name
    uint32_t channels{1};  ///< collective: parallel rings / queue pairs per peer
    CommGroup group{CommGroup::None};
    /// Ops (earlier in the graph) that must be done before this one is ready.
    std::vector<uint32_t> deps;
    /**
     * Ops of one stream run one at a time, in graph order, as kernels of one
     * CUDA stream do: an op starts when it is ready and every earlier op of
     * its stream is done.
     */
    uint32_t stream{0};
    uint32_t commIndex{0}; ///< communication ops: their order in the graph, from 0
    /**
     * What collective schedulers plan and gate: the data-parallel
     * collectives (a data-parallel job's buckets). The rest passes a closed
     * gate in the job's class.
     */
    bool planned{false};
    OpName name; ///< a label for traces and errors, shared with the graph's other ops
};

/**
 * \ingroup collective-scheduling
 * \brief A job's iteration as a dependency graph of compute, collectives on
 * groups of ranks, and point-to-point transfers; TrainingJob runs it once
 * per iteration. Ops may only depend on earlier ops, so graph order is a
 * topological order and a graph cannot have a cycle.
 *
 * A rank is one GPU of the job (0..GetRankCount()-1); where it runs (host,
 * server) is the placement's business, and whether a message crosses the
 * network or NVLink is the transport's.
 */
class JobGraph
{
  public:
    /// \param ranks the job's GPUs, >= 1
    explicit JobGraph(uint32_t ranks = 1);

    /**
     * Add \p op; its commIndex and planned are set here.
     * \return its index
     * \throw std::invalid_argument on no rank or a rank out of range, a
     *        dependency not on an earlier op, a negative compute time, a rank
     *        twice in a collective or transfer, or no channel
     */
    uint32_t Add(GraphOp op);

    /**
     * Mark which collectives the schedulers plan and gate: those for which
     * \p planned holds (transfers and compute never are). Add marks the
     * data-parallel collectives; a job that plans others (expert all-to-alls
     * across racks) re-marks its graph once placed.
     */
    void SetPlanned(const std::function<bool(const GraphOp&)>& planned);

    /**
     * This graph with every compute time and every byte count multiplied by
     * \p scale (a byte count that was not 0 stays at least 1): a job's
     * scale, for a graph read from a file.
     * \throw std::range_error naming the op whose time or bytes \p scale
     *        takes past the clock or 10^18
     */
    JobGraph Scaled(double scale) const;

    /// Add an op \p ranks compute for \p duration, on \p stream, after \p deps.
    uint32_t AddCompute(std::vector<uint32_t> ranks,
                        Time duration,
                        std::vector<uint32_t> deps,
                        uint32_t stream,
                        const std::string& name = "")
    {
        GraphOp op = MakeOp(GraphOp::Kind::Compute, ranks, std::move(deps), stream, name);
        op.duration = duration;
        return Add(std::move(op));
    }

    /// Add a collective \p algorithm over \p members (its ranks 0..N-1, in
    /// that order) of \p bytes per rank.
    uint32_t AddCollective(const std::string& algorithm,
                           std::vector<uint32_t> members,
                           uint64_t bytes,
                           uint32_t channels,
                           CommGroup group,
                           std::vector<uint32_t> deps,
                           uint32_t stream,
                           const std::string& name = "")
    {
        GraphOp op = MakeOp(GraphOp::Kind::Collective, members, std::move(deps), stream, name);
        op.bytes = bytes;
        op.algorithm = algorithm;
        op.channels = channels;
        op.group = group;
        return Add(std::move(op));
    }

    /// Add a transfer of \p bytes from rank \p src to rank \p dst.
    uint32_t AddTransfer(uint32_t src,
                         uint32_t dst,
                         uint64_t bytes,
                         CommGroup group,
                         std::vector<uint32_t> deps,
                         uint32_t stream,
                         const std::string& name = "")
    {
        GraphOp op = MakeOp(GraphOp::Kind::Transfer, {src, dst}, std::move(deps), stream, name);
        op.bytes = bytes;
        op.group = group;
        return Add(std::move(op));
    }

    uint32_t GetRankCount() const
    {
        return m_ranks;
    }

    const std::vector<GraphOp>& GetOps() const
    {
        return m_ops;
    }

    const GraphOp& GetOp(uint32_t index) const
    {
        return m_ops.at(index);
    }

    /// Communication ops (collectives and transfers).
    uint32_t GetCommOpCount() const
    {
        return m_commOps;
    }

    /// Planned ops (GraphOp::planned): the scheduler's collectives of an iteration.
    uint32_t GetPlannedOpCount() const
    {
        return m_plannedOps;
    }

    /// Streams used: one more than the largest stream id.
    uint32_t GetStreamCount() const
    {
        return m_streams;
    }

    /// Bytes of the collectives (their per-rank buffers) and transfers of \p group.
    uint64_t GetBytes(CommGroup group) const;

    /// Compute time of one iteration on the busiest rank: the sum of its compute ops.
    Time GetComputeTimePerRank() const;

    /**
     * Today's data-parallel job: every rank computes forward (C/3) then
     * backward (2C/3) in \p buckets slices; bucket b's gradients are ready
     * after slice b, at C/3 + (b+1)/B x 2C/3 (C exactly for the last), and
     * its collective \p algorithm of bytes/B (the first bytes mod B buckets
     * one byte more) over all ranks runs on one communication stream, as
     * PyTorch DDP over NCCL. With one bucket, compute is one op of C.
     */
    static JobGraph DataParallel(uint32_t ranks,
                                 Time computeTime,
                                 uint64_t gradientBytes,
                                 uint32_t buckets,
                                 const std::string& algorithm,
                                 uint32_t channels);

    /// Bytes of the graph's distinct labels.
    uint64_t GetNameBytes() const
    {
        return m_nameBytes;
    }

  private:
    GraphOp MakeOp(GraphOp::Kind kind,
                   std::vector<uint32_t> ranks,
                   std::vector<uint32_t> deps,
                   uint32_t stream,
                   const std::string& name);

    /// The one copy of label \p text.
    OpName Intern(const std::string& text);

    uint32_t m_ranks;
    /// Distinct labels, keyed by views of the strings they own.
    std::unordered_map<std::string_view, std::shared_ptr<const std::string>> m_names;
    uint64_t m_nameBytes{0};
    std::vector<GraphOp> m_ops;
    uint32_t m_commOps{0};
    uint32_t m_plannedOps{0};
    uint32_t m_streams{0};
};

} // namespace ns3

#endif /* JOB_GRAPH_H */
