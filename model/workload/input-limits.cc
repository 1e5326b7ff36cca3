/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-limits.h"

#include "transformer-catalog.h"

#include "ns3/object.h"
#include "ns3/uinteger.h"
#include "ns3/unit-strings.h"

#include <algorithm>
#include <cmath>
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
};

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
    if (TransformerCatalog::Has(spec.model))
    {
        // Its graph: per replica, layer and micro-batch, four compute ops and
        // the tensor-parallel and expert collectives between them.
        const ParallelLayout& l = spec.parallelism;
        const TransformerConfig& m = TransformerCatalog::Get(spec.model);
        const double perLayer = 4.0 + (l.tp > 1 ? (l.sequenceParallel ? 8.0 : 4.0) : 0.0) +
                                (m.IsMoe() && l.ep > 1 ? 4.0 * l.tp / l.ep : 0.0) +
                                (l.zero == 3 ? 3.0 * l.tp / l.dp : 0.0);
        bytes += static_cast<double>(l.dp) * m.layers * l.microBatches * perLayer * kGraphOpBytes;
    }
    return bytes;
}

void
InputLimits::CheckFabric(double elements)
{
    const uint64_t limit = Current()->m_maxFabricElements;
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
    const uint64_t limit = Current()->m_maxJobMemory;
    if (bytes > static_cast<double>(limit))
    {
        throw std::invalid_argument("needs about " + FormatReal(std::ceil(bytes / 1e6)) +
                                    " MB for its jobs (workers x channels and buckets, LLM graphs' "
                                    "ops), over the limit of " +
                                    std::to_string(limit / 1000000) +
                                    " MB (ns3::InputLimits::MaxJobMemory)");
    }
}

} // namespace ns3
