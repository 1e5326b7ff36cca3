/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-limits.h"

#include "model-catalog.h"

#include "ns3/object.h"
#include "ns3/strict-numbers.h"
#include "ns3/uinteger.h"
#include "ns3/unit-strings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The attributes that hold the limits; the functions read their defaults.
class InputLimitsAttributes : public Object
{
  public:
    static TypeId GetTypeId();

    uint64_t m_maxFabricElements; ///< MaxFabricElements
    uint64_t m_maxJobMemory;      ///< MaxJobMemory, bytes
    uint64_t m_maxMonitorRows;    ///< MaxMonitorRows
};

/// The limits a Scope sets, by attribute name; they win over the defaults.
std::map<std::string, uint64_t>&
Overrides()
{
    static std::map<std::string, uint64_t> overrides;
    return overrides;
}

/// Limit \p name: a Scope's, else the attribute's default in \p current.
uint64_t
Limit(const std::string& name, uint64_t current)
{
    auto it = Overrides().find(name);
    return it == Overrides().end() ? current : it->second;
}

// Peak resident memory of packet-level runs over the counts, rounded up
// (doc/design-notes.md, "Input limits are estimates checked before allocation").
constexpr double kQueuePairBytes = 4096; ///< a channel of one worker (2.9 KiB measured)
constexpr double kBucketBytes = 64;      ///< a gradient bucket of one worker (50 B measured)
constexpr double kJobBytes = 4096;       ///< a job's own state
constexpr double kGraphOpBytes = 1024;   ///< an op of an LLM job's graph, its collective included

Ptr<InputLimitsAttributes>
Current()
{
    return CreateObject<InputLimitsAttributes>();
}

TypeId
InputLimitsAttributes::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::InputLimits")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<InputLimitsAttributes>()
            .AddAttribute("MaxFabricElements",
                          "Hosts, switches and links a topology given by its parameters may "
                          "have (a k=64 fat-tree has 267,264)",
                          UintegerValue(1000000),
                          MakeUintegerAccessor(&InputLimitsAttributes::m_maxFabricElements),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("MaxJobMemory",
                          "Bytes the jobs of a run may take, estimated from workers x "
                          "(channels + buckets), and LLM jobs' graph ops, before they are built",
                          UintegerValue(2ull << 30),
                          MakeUintegerAccessor(&InputLimitsAttributes::m_maxJobMemory),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("MaxMonitorRows",
                          "Rows the monitors of a run may write (ports or queue pairs x "
                          "samples): checked before the run where its end is known, and "
                          "as the rows are written otherwise",
                          UintegerValue(20000000),
                          MakeUintegerAccessor(&InputLimitsAttributes::m_maxMonitorRows),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

NS_OBJECT_ENSURE_REGISTERED(InputLimitsAttributes);

} // namespace

double
InputLimits::FabricElements(const ScenarioSpec::Topology& t)
{
    const std::optional<TopologySize> size = t.MakeBuilder()->Estimate();
    return size ? size->Elements() : 0;
}

double
InputLimits::JobBytes(const JobSpec& spec)
{
    double bytes = kJobBytes + static_cast<double>(spec.workers) *
                                   (static_cast<double>(spec.channels) * kQueuePairBytes +
                                    static_cast<double>(spec.buckets) * kBucketBytes);
    if (ModelCatalog::IsLlm(spec))
    {
        // Its graph: per replica, layer and micro-batch, four compute ops and
        // the tensor-parallel and expert collectives between them.
        const ParallelLayout& l = spec.parallelism;
        const TransformerConfig& m = ModelCatalog::Transformer(spec);
        // With tpCommOverlap each block's compute and collectives come in tp chunks.
        const double tp = l.tp;
        const double perLayer =
            (spec.tpCommOverlap ? 4.0 * (2.0 * tp + 1.0) + 8.0 * tp
                                : 4.0 + (l.tp > 1 ? (l.sequenceParallel ? 8.0 : 4.0) : 0.0)) +
            (m.IsMoe() && l.ep > 1 ? 4.0 * l.tp / l.ep : 0.0) +
            (l.zero == 3 ? 3.0 * l.tp / l.dp : 0.0);
        bytes += static_cast<double>(l.dp) * m.layers * l.microBatches * perLayer * kGraphOpBytes;
    }
    return bytes;
}

void
InputLimits::CheckFabric(double elements)
{
    const uint64_t limit = Limit("MaxFabricElements", Current()->m_maxFabricElements);
    if (elements > static_cast<double>(limit))
    {
        throw std::invalid_argument("makes a fabric of about " + FormatReal(elements) +
                                    " hosts, switches and links, over the limit of " +
                                    std::to_string(limit) +
                                    " (ns3::InputLimits::MaxFabricElements)");
    }
}

void
InputLimits::CheckJobs(double bytes)
{
    const uint64_t limit = Limit("MaxJobMemory", Current()->m_maxJobMemory);
    if (bytes > static_cast<double>(limit))
    {
        throw std::invalid_argument("needs about " + FormatReal(std::ceil(bytes / 1e6)) +
                                    " MB for its jobs (workers x channels and buckets, LLM graphs' "
                                    "ops), over the limit of " +
                                    std::to_string(limit / 1000000) +
                                    " MB (ns3::InputLimits::MaxJobMemory)");
    }
}

uint64_t
InputLimits::MaxMonitorRows()
{
    return Limit("MaxMonitorRows", Current()->m_maxMonitorRows);
}

void
InputLimits::CheckMonitorRows(double rows)
{
    const uint64_t limit = MaxMonitorRows();
    if (rows > static_cast<double>(limit))
    {
        throw std::invalid_argument("makes about " + FormatReal(std::ceil(rows)) +
                                    " monitor rows (ports or queue pairs x samples), over the "
                                    "limit of " +
                                    std::to_string(limit) + " (ns3::InputLimits::MaxMonitorRows)");
    }
}

InputLimits::Scope::Scope(const std::vector<std::pair<std::string, std::string>>& attributes)
{
    static const std::string prefix = "ns3::InputLimits::";
    std::map<std::string, uint64_t> set;
    for (const auto& [name, text] : attributes)
    {
        if (name.compare(0, prefix.size(), prefix) != 0)
        {
            continue;
        }
        const std::string attribute = name.substr(prefix.size());
        TypeId::AttributeInformation info;
        if (!InputLimitsAttributes::GetTypeId().LookupAttributeByName(attribute, &info))
        {
            throw std::invalid_argument("ns3::InputLimits has no attribute '" + attribute + "'");
        }
        try
        {
            set[attribute] = ParseUnsignedText(text, 1, std::numeric_limits<uint64_t>::max());
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(std::string(e.what()) + ", got \"" + text + "\"");
        }
    }
    for (const auto& [attribute, value] : set)
    {
        auto it = Overrides().find(attribute);
        m_previous.emplace_back(attribute, it == Overrides().end() ? 0 : it->second);
        Overrides()[attribute] = value;
    }
}

InputLimits::Scope::~Scope()
{
    for (auto it = m_previous.rbegin(); it != m_previous.rend(); ++it)
    {
        if (it->second == 0)
        {
            Overrides().erase(it->first);
        }
        else
        {
            Overrides()[it->first] = it->second;
        }
    }
}

void
CheckGraphRange(const JobGraph& graph, uint32_t iterations)
{
    // The busiest rank's compute of one iteration, then of the run; in
    // doubles, so that the sums cannot wrap before they are compared.
    std::vector<double> perRank(graph.GetRankCount(), 0.0);
    const double clock = Time::Max().GetSeconds();
    const std::vector<GraphOp>& ops = graph.GetOps();
    for (std::size_t i = 0; i < ops.size(); ++i)
    {
        const GraphOp& op = ops[i];
        const std::string what =
            "op " + std::to_string(i) + (op.name.empty() ? "" : " (" + op.name.Get() + ")");
        if (op.bytes > kMaxByteCount)
        {
            throw std::range_error(what + ": " + std::to_string(op.bytes) +
                                   " bytes, more than 10^18");
        }
        if (op.kind != GraphOp::Kind::Compute)
        {
            continue;
        }
        for (uint32_t r : op.ranks)
        {
            perRank[r] += op.duration.GetSeconds();
        }
    }
    const double busiest = perRank.empty() ? 0 : *std::max_element(perRank.begin(), perRank.end());
    if (busiest > clock)
    {
        throw std::range_error("an iteration computes for " + FormatReal(busiest) +
                               " s on one rank, " + kTimeRangeError);
    }
    if (busiest * iterations > clock)
    {
        throw std::range_error(std::to_string(iterations) + " iterations compute for " +
                               FormatReal(busiest * iterations) + " s on one rank, " +
                               kTimeRangeError);
    }
}

} // namespace ns3
