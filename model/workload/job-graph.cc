/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "job-graph.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

std::string
CommGroupName(CommGroup group)
{
    switch (group)
    {
    case CommGroup::Data:
        return "dp";
    case CommGroup::Tensor:
        return "tp";
    case CommGroup::Pipeline:
        return "pp";
    case CommGroup::Expert:
        return "ep";
    case CommGroup::None:
        break;
    }
    return "none";
}

JobGraph::JobGraph(uint32_t ranks)
    : m_ranks(ranks)
{
    if (ranks == 0)
    {
        throw std::invalid_argument("a job graph needs at least one rank");
    }
}

uint32_t
JobGraph::Add(GraphOp op)
{
    const uint32_t index = static_cast<uint32_t>(m_ops.size());
    const std::string what =
        "job graph op " + std::to_string(index) + (op.name.empty() ? "" : " (" + op.name + ")");
    if (op.ranks.empty())
    {
        throw std::invalid_argument(what + ": no rank");
    }
    for (uint32_t r : op.ranks)
    {
        if (r >= m_ranks)
        {
            throw std::invalid_argument(what + ": rank " + std::to_string(r) + " of a job of " +
                                        std::to_string(m_ranks));
        }
    }
    for (uint32_t d : op.deps)
    {
        if (d >= index)
        {
            throw std::invalid_argument(what + ": depends on op " + std::to_string(d) +
                                        ", not an earlier one");
        }
    }
    if (op.kind != GraphOp::Kind::Compute)
    {
        op.commIndex = m_commOps++;
    }
    op.planned = op.kind == GraphOp::Kind::Collective && op.group == CommGroup::Data;
    m_plannedOps += op.planned ? 1 : 0;
    m_streams = std::max(m_streams, op.stream + 1);
    m_ops.push_back(std::move(op));
    return index;
}

uint32_t
JobGraph::AddCompute(std::vector<uint32_t> ranks,
                     Time duration,
                     std::vector<uint32_t> deps,
                     uint32_t stream,
                     std::string name)
{
    if (duration.IsStrictlyNegative())
    {
        throw std::invalid_argument("job graph compute op " + name + ": negative duration");
    }
    GraphOp op;
    op.kind = GraphOp::Kind::Compute;
    op.ranks = std::move(ranks);
    op.duration = duration;
    op.deps = std::move(deps);
    op.stream = stream;
    op.name = std::move(name);
    return Add(std::move(op));
}

uint32_t
JobGraph::AddCollective(const std::string& algorithm,
                        std::vector<uint32_t> members,
                        uint64_t bytes,
                        uint32_t channels,
                        CommGroup group,
                        std::vector<uint32_t> deps,
                        uint32_t stream,
                        std::string name)
{
    std::vector<uint32_t> sorted = members;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    {
        throw std::invalid_argument("job graph collective " + name + ": a member twice");
    }
    if (channels == 0)
    {
        throw std::invalid_argument("job graph collective " + name + ": no channel");
    }
    GraphOp op;
    op.kind = GraphOp::Kind::Collective;
    op.ranks = std::move(members);
    op.bytes = bytes;
    op.algorithm = algorithm;
    op.channels = channels;
    op.group = group;
    op.deps = std::move(deps);
    op.stream = stream;
    op.name = std::move(name);
    return Add(std::move(op));
}

uint32_t
JobGraph::AddTransfer(uint32_t src,
                      uint32_t dst,
                      uint64_t bytes,
                      CommGroup group,
                      std::vector<uint32_t> deps,
                      uint32_t stream,
                      std::string name)
{
    if (src == dst)
    {
        throw std::invalid_argument("job graph transfer " + name + ": from rank " +
                                    std::to_string(src) + " to itself");
    }
    GraphOp op;
    op.kind = GraphOp::Kind::Transfer;
    op.ranks = {src, dst};
    op.bytes = bytes;
    op.group = group;
    op.deps = std::move(deps);
    op.stream = stream;
    op.name = std::move(name);
    return Add(std::move(op));
}

uint64_t
JobGraph::GetBytes(CommGroup group) const
{
    uint64_t bytes = 0;
    for (const GraphOp& op : m_ops)
    {
        if (op.kind != GraphOp::Kind::Compute && op.group == group)
        {
            bytes += op.bytes;
        }
    }
    return bytes;
}

Time
JobGraph::GetComputeTimePerRank() const
{
    std::vector<Time> perRank(m_ranks);
    for (const GraphOp& op : m_ops)
    {
        if (op.kind == GraphOp::Kind::Compute)
        {
            for (uint32_t r : op.ranks)
            {
                perRank[r] += op.duration;
            }
        }
    }
    return *std::max_element(perRank.begin(), perRank.end());
}

JobGraph
JobGraph::DataParallel(uint32_t ranks,
                       Time computeTime,
                       uint64_t gradientBytes,
                       uint32_t buckets,
                       const std::string& algorithm,
                       uint32_t channels)
{
    if (buckets == 0)
    {
        throw std::invalid_argument("a data-parallel job needs at least one bucket");
    }
    JobGraph g(ranks);
    std::vector<uint32_t> all(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        all[r] = r;
    }
    const uint32_t computeStream = 0;
    const uint32_t commStream = 1;
    std::vector<uint32_t> ready; // the compute op after which each bucket is ready
    if (buckets == 1)
    {
        ready.push_back(g.AddCompute(all, computeTime, {}, computeStream, "compute"));
    }
    else
    {
        // Backward runs last layer first; bucket b holds its b-th slice.
        Time done = computeTime / 3;
        g.AddCompute(all, done, {}, computeStream, "forward");
        for (uint32_t b = 0; b < buckets; ++b)
        {
            const Time end = b + 1 == buckets
                                 ? computeTime
                                 : computeTime / 3 + (computeTime * 2 / 3) * (b + 1) / buckets;
            ready.push_back(
                g.AddCompute(all, end - done, {}, computeStream, "backward " + std::to_string(b)));
            done = end;
        }
    }
    for (uint32_t b = 0; b < buckets; ++b)
    {
        const uint64_t bytes = gradientBytes / buckets + (b < gradientBytes % buckets ? 1 : 0);
        g.AddCollective(algorithm,
                        all,
                        bytes,
                        channels,
                        CommGroup::Data,
                        {ready[b]},
                        commStream,
                        "bucket " + std::to_string(b));
    }
    return g;
}

} // namespace ns3
