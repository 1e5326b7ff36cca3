/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "job-graph.h"

#include "ns3/unit-strings.h"

#include <algorithm>
#include <cmath>
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

OpName
JobGraph::Intern(const std::string& text)
{
    OpName name;
    if (text.empty())
    {
        return name;
    }
    auto it = m_names.find(text);
    if (it == m_names.end())
    {
        auto owned = std::make_shared<const std::string>(text);
        it = m_names.emplace(std::string_view(*owned), owned).first;
        m_nameBytes += text.size();
    }
    name.m_text = it->second;
    return name;
}

GraphOp
JobGraph::MakeOp(GraphOp::Kind kind,
                 std::vector<uint32_t> ranks,
                 std::vector<uint32_t> deps,
                 uint32_t stream,
                 const std::string& name)
{
    GraphOp op;
    op.kind = kind;
    op.ranks = std::move(ranks);
    op.deps = std::move(deps);
    op.stream = stream;
    op.name = Intern(name);
    return op;
}

uint32_t
JobGraph::Add(GraphOp op)
{
    const uint32_t index = static_cast<uint32_t>(m_ops.size());
    const std::string what = "job graph op " + std::to_string(index) +
                             (op.name.empty() ? "" : " (" + op.name.Get() + ")");
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
    if (op.kind == GraphOp::Kind::Compute && op.duration.IsStrictlyNegative())
    {
        throw std::invalid_argument(what + ": negative duration");
    }
    if (op.kind != GraphOp::Kind::Compute)
    {
        // A collective's members, and a transfer's two ends, are distinct ranks.
        std::vector<uint32_t> sorted = op.ranks;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        {
            throw std::invalid_argument(what + ": a rank twice");
        }
        if (op.channels == 0)
        {
            throw std::invalid_argument(what + ": no channel");
        }
        op.commIndex = m_commOps++;
    }
    op.planned = op.kind == GraphOp::Kind::Collective && op.group == CommGroup::Data;
    m_plannedOps += op.planned ? 1 : 0;
    m_streams = std::max(m_streams, op.stream + 1);
    m_ops.push_back(std::move(op));
    return index;
}

JobGraph
JobGraph::Scaled(double scale) const
{
    JobGraph g = *this;
    for (std::size_t i = 0; i < g.m_ops.size(); ++i)
    {
        GraphOp& op = g.m_ops[i];
        // Checked in doubles before they are rounded: a product out of
        // range would wrap (or be undefined) as an integer.
        const double ns = static_cast<double>(op.duration.GetNanoSeconds()) * scale;
        const double bytes = static_cast<double>(op.bytes) * scale;
        const std::string what = "scale " + FormatReal(scale) + " makes op " + std::to_string(i) +
                                 (op.name.empty() ? "" : " (" + op.name.Get() + ")");
        if (!(ns <= static_cast<double>(kMaxSimulatedTimeNs)))
        {
            throw std::range_error(what + " compute for " + FormatReal(ns * 1e-9) + " s, " +
                                   kTimeRangeError);
        }
        if (!(bytes <= static_cast<double>(kMaxByteCount)))
        {
            throw std::range_error(what + " " + FormatReal(bytes) + " bytes, more than 10^18");
        }
        op.duration = NanoSeconds(std::llround(ns));
        if (op.bytes > 0)
        {
            op.bytes = std::max<uint64_t>(1, std::llround(bytes));
        }
    }
    return g;
}

void
JobGraph::SetPlanned(const std::function<bool(const GraphOp&)>& planned)
{
    m_plannedOps = 0;
    for (GraphOp& op : m_ops)
    {
        op.planned = op.kind == GraphOp::Kind::Collective && planned(op);
        m_plannedOps += op.planned ? 1 : 0;
    }
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
