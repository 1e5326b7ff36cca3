/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "parallel-layout.h"

#include "transformer-catalog.h"

#include "ns3/unit-strings.h"

#include <stdexcept>

namespace ns3
{

bool
ParallelLayout::IsDefault() const
{
    const ParallelLayout d;
    return tp == d.tp && pp == d.pp && dp == d.dp && ep == d.ep && vpp == d.vpp &&
           microBatches == d.microBatches && microBatchSize == d.microBatchSize &&
           sequenceParallel == d.sequenceParallel && zero == d.zero && bucketBytes == d.bucketBytes;
}

std::vector<uint32_t>
ParallelLayout::TensorGroup(uint32_t d, uint32_t p) const
{
    std::vector<uint32_t> g;
    for (uint32_t t = 0; t < tp; ++t)
    {
        g.push_back(Rank(t, d, p));
    }
    return g;
}

std::vector<uint32_t>
ParallelLayout::DataGroup(uint32_t t, uint32_t p) const
{
    std::vector<uint32_t> g;
    for (uint32_t d = 0; d < dp; ++d)
    {
        g.push_back(Rank(t, d, p));
    }
    return g;
}

std::vector<uint32_t>
ParallelLayout::ExpertGroup(uint32_t t, uint32_t d, uint32_t p) const
{
    std::vector<uint32_t> g;
    const uint32_t first = d / ep * ep;
    for (uint32_t e = 0; e < ep; ++e)
    {
        g.push_back(Rank(t, first + e, p));
    }
    return g;
}

std::vector<uint32_t>
ParallelLayout::ExpertDataGroup(uint32_t t, uint32_t d, uint32_t p) const
{
    std::vector<uint32_t> g;
    for (uint32_t k = d % ep; k < dp; k += ep)
    {
        g.push_back(Rank(t, k, p));
    }
    return g;
}

void
ParallelLayout::Validate(const TransformerConfig& model,
                         uint32_t workers,
                         uint32_t gpusPerServer) const
{
    auto fail = [](const std::string& field, const std::string& problem) {
        throw std::invalid_argument(field + ": " + problem);
    };
    auto atLeastOne = [&](const char* field, uint64_t v) {
        if (v == 0)
        {
            fail(field, "must be at least 1");
        }
    };
    atLeastOne("tp", tp);
    atLeastOne("pp", pp);
    atLeastOne("dp", dp);
    atLeastOne("ep", ep);
    atLeastOne("vpp", vpp);
    atLeastOne("microBatches", microBatches);
    atLeastOne("microBatchSize", microBatchSize);
    atLeastOne("bucketBytes", bucketBytes);
    // In a double: a product of three 32-bit counts can pass 2^64, and one
    // past 2^53 (where doubles stop being exact) is far from any job's workers.
    const double ranks = static_cast<double>(tp) * pp * dp;
    if (ranks != workers)
    {
        fail("workers",
             "tp x pp x dp = " + std::to_string(tp) + " x " + std::to_string(pp) + " x " +
                 std::to_string(dp) + " = " + FormatReal(ranks) + " GPUs, but the job has " +
                 std::to_string(workers));
    }
    if (tp > gpusPerServer)
    {
        fail("tp",
             std::to_string(tp) + " is larger than a server (" + std::to_string(gpusPerServer) +
                 " GPUs): tensor parallelism stays on NVLink");
    }
    if (model.heads % tp != 0)
    {
        fail("tp",
             std::to_string(tp) + " does not divide " + model.name + "'s " +
                 std::to_string(model.heads) + " attention heads");
    }
    if (model.layers % (pp * vpp) != 0)
    {
        fail(vpp > 1 ? "vpp" : "pp",
             "pp x vpp = " + std::to_string(pp * vpp) + " does not divide " + model.name + "'s " +
                 std::to_string(model.layers) + " layers");
    }
    if (pp > 1 && microBatches < pp)
    {
        fail("microBatches",
             std::to_string(microBatches) + " is fewer than the " + std::to_string(pp) +
                 " pipeline stages");
    }
    if (vpp > 1 && (pp == 1 || microBatches % pp != 0))
    {
        fail("vpp",
             "an interleaved schedule needs pp > 1 and microBatches a multiple of pp (" +
                 std::to_string(microBatches) + " micro-batches, " + std::to_string(pp) +
                 " stages)");
    }
    if (ep > 1 && !model.IsMoe())
    {
        fail("ep",
             std::to_string(ep) + " needs a mixture-of-experts model; " + model.name + " is dense");
    }
    if (model.IsMoe() && model.experts % ep != 0)
    {
        fail("ep",
             std::to_string(ep) + " does not divide " + model.name + "'s " +
                 std::to_string(model.experts) + " experts");
    }
    if (dp % ep != 0)
    {
        fail("ep",
             std::to_string(ep) + " does not divide dp = " + std::to_string(dp) +
                 " (expert parallelism is carved out of data parallelism)");
    }
    if (sequenceParallel && tp == 1)
    {
        fail("sequenceParallel", "needs tp > 1");
    }
    if (zero > 3)
    {
        fail("zero", std::to_string(zero) + " is not a ZeRO stage (0-3)");
    }
    if (zero == 3 && model.IsMoe())
    {
        fail("zero", "stage 3 with a mixture of experts is not modelled");
    }
    if (zero >= 2 && pp > 1)
    {
        fail("zero",
             "stage " + std::to_string(zero) +
                 " shards gradients across micro-batches, which pipeline parallelism does not "
                 "allow (DeepSpeed refuses it too); use 0 or 1 with pp > 1");
    }
}

} // namespace ns3
