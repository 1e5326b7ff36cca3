/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "simai-workload-graph.h"

#include "collective-factory.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace ns3
{
namespace simai_detail
{

bool
DecodeComm(const std::string& text, bool weightGradient, Comm& comm)
{
    comm = Comm{};
    if (text == "NONE" || text == "BROADCAST")
    {
        return true;
    }
    static const std::array<std::pair<const char*, const char*>, 4> types = {
        std::pair<const char*, const char*>{"ALLREDUCE", ""},
        {"ALLGATHER", "all-gather"},
        {"REDUCESCATTER", "reduce-scatter"},
        {"ALLTOALL", "all-to-all"}};
    for (const auto& [type, algorithm] : types)
    {
        const std::string prefix = type;
        if (text.compare(0, prefix.size(), prefix) != 0)
        {
            continue;
        }
        const std::string suffix = text.substr(prefix.size());
        if (suffix.empty())
        {
            comm.group = weightGradient ? Group::Data : Group::Tensor;
        }
        else if (suffix == "_EP")
        {
            comm.group = Group::Expert;
        }
        else if (suffix == "_DP_EP")
        {
            comm.group = Group::DataExpert;
        }
        else
        {
            return false;
        }
        comm.sends = true;
        comm.algorithm = algorithm;
        return true;
    }
    return false;
}

namespace
{

/// Memory of one graph op and what a run keeps for it, as InputLimits counts an LLM job's.
constexpr double kGraphOpBytes = 1024;

/// Builds the iteration, in the order SimAI's workload layer runs it.
class Builder
{
  public:
    Builder(const SimaiWorkload& w, const SimaiGraphSettings& s)
        : m_w(w),
          m_s(s),
          m_units(w.ranks / w.tp),
          m_g(w.ranks),
          m_cur(m_units),
          m_lastWeightGradient(w.ranks, kNone)
    {
    }

    /**
     * The ops the graph will have (the same walk, nothing built), and the
     * bytes they and the per-rank state of the build and of a run take.
     */
    static std::pair<double, double> Estimate(const SimaiWorkload& w);

    JobGraph Build();

  private:
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
    using Ops = std::vector<uint32_t>;

    static uint32_t Size(const SimaiWorkload& w, Group g);

    static uint32_t Instances(const SimaiWorkload& w, Group g)
    {
        return w.ranks / Size(w, g);
    }

    /// Whether \p phase sends anything: a collective of bytes on a group of several ranks.
    static bool Issued(const SimaiWorkload& w, const SimaiLayer::Phase& phase, bool weightGradient);
    /// The members of instance \p i of group \p g, in ring order (ascending, as SimAI's rings).
    std::vector<uint32_t> Members(Group g, uint32_t i) const;
    std::vector<uint32_t> UnitRanks(uint32_t unit) const;

    /// The algorithm of \p comm: its kind of the all-reduce's family.
    std::string Algorithm(const Comm& comm) const
    {
        return comm.algorithm.empty()           ? m_s.allReduce
               : comm.algorithm == "all-to-all" ? comm.algorithm
                                                : CollectiveOfFamily(m_s.allReduce, comm.algorithm);
    }

    uint32_t Stream(int role, Group g, uint32_t instance);

    /**
     * What a collective over \p members waits for: each member's current
     * ops, and with \p weightGradient its last weight-gradient collective
     * (SimAI runs one stream per rank on the data-parallel dimension, so
     * they go one at a time). Sorted, without repeats.
     */
    Ops MembersDeps(const std::vector<uint32_t>& members, bool weightGradient) const
    {
        Ops deps;
        for (uint32_t m : members)
        {
            const Ops& c = m_cur[m / m_w.tp];
            deps.insert(deps.end(), c.begin(), c.end());
            if (weightGradient && m_lastWeightGradient[m] != kNone)
            {
                deps.push_back(m_lastWeightGradient[m]);
            }
        }
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        return deps;
    }

    void Compute(Time duration, const std::string& name);
    void Blocking(const SimaiLayer& row, const SimaiLayer::Phase& phase, const std::string& name);
    void WeightGradient(const SimaiLayer& row, const std::string& name);

    const SimaiWorkload& m_w;
    const SimaiGraphSettings& m_s;
    uint32_t m_units; ///< tensor-parallel groups: the compute ops of a phase
    JobGraph m_g;
    std::vector<Ops> m_cur;   ///< by unit: what its next op waits for
    Ops m_lastWeightGradient; ///< by rank: its last weight-gradient collective
    std::map<std::tuple<int, int, uint32_t>, uint32_t> m_streams; ///< beyond the units' own
};

uint32_t
Builder::Size(const SimaiWorkload& w, Group g)
{
    switch (g)
    {
    case Group::Tensor:
        return w.tp;
    case Group::Data:
        return w.dp;
    case Group::Expert:
        return w.ep;
    case Group::DataExpert:
        return w.dp / w.ep;
    }
    return 1;
}

bool
Builder::Issued(const SimaiWorkload& w, const SimaiLayer::Phase& phase, bool weightGradient)
{
    Comm comm;
    DecodeComm(phase.comm, weightGradient, comm);
    return comm.sends && phase.bytes > 0 && Size(w, comm.group) > 1;
}

std::vector<uint32_t>
Builder::Members(Group g, uint32_t i) const
{
    // rank = t + tp x (p + pp x d); an instance index fixes everything but
    // what varies within the group.
    const uint64_t tp = m_w.tp;
    const uint64_t pp = m_w.pp;
    const uint32_t size = Size(m_w, g);
    std::vector<uint32_t> members(size);
    const uint64_t t = i % tp;
    const uint64_t p = (i / tp) % pp;
    const uint64_t rest = i / tp / pp; // TP: the replica; EP: its block; DP_EP: its position
    for (uint64_t k = 0; k < size; ++k)
    {
        uint64_t rank = 0;
        switch (g)
        {
        case Group::Tensor:
            rank = static_cast<uint64_t>(i) * tp + k;
            break;
        case Group::Data:
            rank = i + k * tp * pp;
            break;
        case Group::Expert:
            rank = t + tp * (p + pp * (rest * m_w.ep + k));
            break;
        case Group::DataExpert:
            rank = t + tp * (p + pp * (rest + k * m_w.ep));
            break;
        }
        members[k] = static_cast<uint32_t>(rank);
    }
    return members;
}

std::vector<uint32_t>
Builder::UnitRanks(uint32_t unit) const
{
    return Members(Group::Tensor, unit);
}

uint32_t
Builder::Stream(int role, Group g, uint32_t instance)
{
    const auto key = std::make_tuple(role, static_cast<int>(g), instance);
    auto [it, inserted] = m_streams.emplace(key, m_units + static_cast<uint32_t>(m_streams.size()));
    return it->second;
}

void
Builder::Compute(Time duration, const std::string& name)
{
    if (duration.IsZero())
    {
        return;
    }
    for (uint32_t u = 0; u < m_units; ++u)
    {
        m_cur[u] = {m_g.AddCompute(UnitRanks(u), duration, m_cur[u], u, name)};
    }
}

void
Builder::Blocking(const SimaiLayer& row, const SimaiLayer::Phase& phase, const std::string& name)
{
    if (!Issued(m_w, phase, false))
    {
        return;
    }
    Comm comm;
    DecodeComm(phase.comm, false, comm);
    const CommGroup group = comm.group == Group::Tensor   ? CommGroup::Tensor
                            : comm.group == Group::Expert ? CommGroup::Expert
                                                          : CommGroup::Data;
    std::vector<Ops> next(m_units);
    for (uint32_t i = 0; i < Instances(m_w, comm.group); ++i)
    {
        const std::vector<uint32_t> members = Members(comm.group, i);
        const Ops deps = MembersDeps(members, false);
        // A tensor-parallel collective runs in its group's compute stream,
        // as NCCL kernels on the compute stream the layer waits for.
        const uint32_t stream = comm.group == Group::Tensor ? i : Stream(0, comm.group, i);
        const uint32_t op = m_g.AddCollective(Algorithm(comm),
                                              members,
                                              phase.bytes,
                                              m_s.channels,
                                              group,
                                              deps,
                                              stream,
                                              name + " " + phase.comm);
        for (uint32_t m : members)
        {
            Ops& n = next[m / m_w.tp];
            if (n.empty() || n.back() != op)
            {
                n.push_back(op);
            }
        }
    }
    m_cur = std::move(next);
    // SimAI waits the row's update time after the collective before the
    // next compute (Layer::call, Fwd/Input_Grad_Comm_Finished).
    Compute(row.update, name + " update");
}

void
Builder::WeightGradient(const SimaiLayer& row, const std::string& name)
{
    const SimaiLayer::Phase& phase = row.weightGradient;
    if (!Issued(m_w, phase, true))
    {
        return;
    }
    Comm comm;
    DecodeComm(phase.comm, true, comm);
    const CommGroup group = comm.group == Group::Expert ? CommGroup::Expert : CommGroup::Data;
    for (uint32_t i = 0; i < Instances(m_w, comm.group); ++i)
    {
        const std::vector<uint32_t> members = Members(comm.group, i);
        const Ops deps = MembersDeps(members, true);
        const uint32_t op = m_g.AddCollective(Algorithm(comm),
                                              members,
                                              phase.bytes,
                                              m_s.channels,
                                              group,
                                              deps,
                                              Stream(1, comm.group, i),
                                              name + " " + phase.comm);
        for (uint32_t m : members)
        {
            m_lastWeightGradient[m] = op;
        }
        // The update delay ends the collective for SimAI (the iteration
        // waits for it), but does not hold back the next one.
        if (!row.update.IsZero())
        {
            m_g.AddCompute(members, row.update, {op}, Stream(2, comm.group, i), name + " update");
        }
    }
}

std::pair<double, double>
Builder::Estimate(const SimaiWorkload& w)
{
    const double units = static_cast<double>(w.ranks) / w.tp;
    const double ranks = w.ranks;
    double ops = 0;
    double entries = 0; // ranks and dependencies of the ops
    auto compute = [&](const Time& t) {
        if (!t.IsZero())
        {
            ops += units;
            entries += ranks;
        }
    };
    double names = 0; // the graph keeps one copy of each label: a row's few
    for (const SimaiLayer& row : w.layers)
    {
        names += 6.0 * (row.name.size() + 24);
        compute(row.forward.compute);
        compute(row.inputGradient.compute);
        compute(row.weightGradient.compute);
        for (const SimaiLayer::Phase* phase : {&row.forward, &row.inputGradient})
        {
            if (Issued(w, *phase, false))
            {
                Comm comm;
                DecodeComm(phase->comm, false, comm);
                ops += Instances(w, comm.group);
                entries += 2 * ranks;
                compute(row.update);
            }
        }
        if (Issued(w, row.weightGradient, true))
        {
            Comm comm;
            DecodeComm(row.weightGradient.comm, true, comm);
            ops += Instances(w, comm.group) * (row.update.IsZero() ? 1.0 : 2.0);
            entries += 3 * ranks;
        }
    }
    // Per rank: the build's last weight gradient, a run's compute time.
    const double perRank = ranks * (sizeof(uint32_t) + sizeof(Time)) + units * sizeof(Ops);
    return {ops, ops * kGraphOpBytes + entries * sizeof(uint32_t) + perRank + names};
}

JobGraph
Builder::Build()
{
    // Workload::iterate_hybrid_parallel_Transformer_fwd_in_bckwd: forward
    // through the rows, then from the last row back: input gradient, then
    // weight gradient.
    const std::vector<SimaiLayer>& rows = m_w.layers;
    for (size_t i = 0; i < rows.size(); ++i)
    {
        const std::string name = rows[i].name + "[" + std::to_string(i) + "] fwd";
        Compute(rows[i].forward.compute, name);
        Blocking(rows[i], rows[i].forward, name);
    }
    for (size_t i = rows.size(); i-- > 0;)
    {
        const std::string row = rows[i].name + "[" + std::to_string(i) + "]";
        Compute(rows[i].inputGradient.compute, row + " ig");
        Blocking(rows[i], rows[i].inputGradient, row + " ig");
        Compute(rows[i].weightGradient.compute, row + " wg");
        WeightGradient(rows[i], row + " wg");
    }
    return std::move(m_g);
}

} // namespace

std::pair<double, double>
EstimateSimaiGraph(const SimaiWorkload& w)
{
    return Builder::Estimate(w);
}

JobGraph
BuildSimaiGraph(const SimaiWorkload& w, const SimaiGraphSettings& s)
{
    return Builder(w, s).Build();
}

} // namespace simai_detail
} // namespace ns3
