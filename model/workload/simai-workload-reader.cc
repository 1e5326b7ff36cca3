/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "simai-workload-reader.h"

#include "collective-factory.h"
#include "input-limits.h"

#include "ns3/csv-fields.h"
#include "ns3/input-file.h"
#include "ns3/strict-numbers.h"
#include "ns3/unit-strings.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{

/// The groups of SimAI's MockNcclGroup.
enum class Group : uint8_t
{
    Tensor,     ///< TP: tp consecutive ranks
    Data,       ///< DP: the dp replicas of a tensor rank and stage
    Expert,     ///< EP: ep consecutive replicas
    DataExpert, ///< DP_EP: the dp / ep replicas that hold the same experts
};

/// A collective column, decoded.
struct Comm
{
    bool sends{false};     ///< false for NONE and BROADCAST
    std::string algorithm; ///< a Collective's short name; "" for SimAI's ALLREDUCE
    Group group{Group::Tensor};
};

/// The 12 columns, named after the variables of SimAI's reader (Workload::initialize_workload).
const std::array<const char*, 12> kColumns = {"name",
                                              "reserved",
                                              "fwd_compute_time",
                                              "fwd_comm_type",
                                              "fwd_comm_size",
                                              "ig_compute_time",
                                              "ig_comm_type",
                                              "ig_comm_size",
                                              "wg_compute_time",
                                              "wg_comm_type",
                                              "wg_comm_size",
                                              "wg_update_time"};

/// Memory of one graph op and what a run keeps for it, as InputLimits counts an LLM job's.
constexpr double kGraphOpBytes = 1024;

const char* const kAcceptedComms =
    "ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL, each optionally with _EP or _DP_EP; "
    "NONE; BROADCAST";

/// The text split at white space (spaces, tabs).
std::vector<std::string>
Tokens(const std::string& line)
{
    std::vector<std::string> tokens;
    size_t i = 0;
    while (i < line.size())
    {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
        {
            ++i;
        }
        const size_t start = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
        {
            ++i;
        }
        if (i > start)
        {
            tokens.push_back(line.substr(start, i - start));
        }
    }
    return tokens;
}

/// Reads one file; every error names the source, the line and the field.
class Reader
{
  public:
    Reader(const std::string& text, const std::string& source)
        : m_source(source)
    {
        std::string body = text;
        StripByteOrderMark(body);
        size_t start = 0;
        while (start <= body.size())
        {
            size_t end = body.find('\n', start);
            if (end == std::string::npos)
            {
                end = body.size();
            }
            std::string line = body.substr(start, end - start);
            if (!line.empty() && line.back() == '\r')
            {
                line.pop_back();
            }
            m_lines.push_back(std::move(line));
            start = end + 1;
        }
    }

    SimaiWorkload Read(uint32_t ranks, const SimaiGraphSettings& settings);

    /// The header's all_gpus, read without the rows or a graph.
    uint32_t HeaderRanks()
    {
        SimaiWorkload w;
        ReadHeader(w);
        if (w.allGpus == 0)
        {
            Fail(1, "all_gpus", "missing, and no rank count given: the job's size is unknown");
        }
        return w.allGpus;
    }

  private:
    [[noreturn]] void Fail(uint32_t line, const std::string& field, const std::string& what) const
    {
        ThrowInputError(m_source, line, field, what);
    }

    uint64_t Unsigned(uint32_t line,
                      const std::string& field,
                      const std::string& text,
                      uint64_t min,
                      uint64_t max) const;
    void ReadHeader(SimaiWorkload& w);
    void ReadRows(SimaiWorkload& w, uint32_t count);
    SimaiLayer ReadRow(const std::vector<std::string>& t, uint32_t line, SimaiWorkload& w);
    SimaiLayer::Phase ReadPhase(const std::vector<std::string>& t,
                                size_t first,
                                uint32_t line,
                                bool weightGradient,
                                SimaiWorkload& w);
    void CountTime(uint32_t line, const std::string& field, int64_t ns);

    std::string m_source;
    std::vector<std::string> m_lines;
    int64_t m_totalNs{0}; ///< every time of the file, updates thrice: a bound of a rank's time
};

uint64_t
Reader::Unsigned(uint32_t line,
                 const std::string& field,
                 const std::string& text,
                 uint64_t min,
                 uint64_t max) const
{
    try
    {
        return ParseUnsignedText(text, min, max);
    }
    catch (const std::invalid_argument& e)
    {
        Fail(line, field, std::string(e.what()) + ", got \"" + text + "\"");
    }
}

/**
 * Decode a collective column as SimAI's reader does: the type, then the
 * group from the suffix. No suffix is the tensor-parallel group in the
 * forward and input-gradient columns and the data-parallel group in the
 * weight-gradient column.
 * \return false for a name SimAI's reader does not map to a collective on a group
 */
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

void
Reader::CountTime(uint32_t line, const std::string& field, int64_t ns)
{
    if (ns > kMaxSimulatedTimeNs - m_totalNs)
    {
        Fail(line,
             field,
             "the file's times add up to more than " + std::to_string(kMaxSimulatedTimeNs) +
                 " ns, the latest time the simulator can represent");
    }
    m_totalNs += ns;
}

SimaiLayer::Phase
Reader::ReadPhase(const std::vector<std::string>& t,
                  size_t first,
                  uint32_t line,
                  bool weightGradient,
                  SimaiWorkload& w)
{
    SimaiLayer::Phase phase;
    const int64_t ns = static_cast<int64_t>(
        Unsigned(line, kColumns[first], t[first], 0, static_cast<uint64_t>(kMaxSimulatedTimeNs)));
    CountTime(line, kColumns[first], ns);
    phase.compute = NanoSeconds(ns);
    phase.comm = t[first + 1];
    Comm comm;
    if (!DecodeComm(phase.comm, weightGradient, comm))
    {
        std::string why = "unknown collective \"" + phase.comm + "\"; expected " + kAcceptedComms;
        if (phase.comm.compare(0, 17, "ALLREDUCEALLTOALL") == 0)
        {
            // SimAI's reader tests the ALLREDUCE prefix first, so it takes
            // this for an all-reduce on no group, which its packet backend
            // has no communicator for.
            why += " (SimAI reads ALLREDUCEALLTOALL as an all-reduce on no group)";
        }
        Fail(line, kColumns[first + 1], why);
    }
    phase.bytes = Unsigned(line, kColumns[first + 2], t[first + 2], 0, kMaxByteCount);
    if (phase.comm == "BROADCAST")
    {
        w.broadcastBytes = phase.bytes > std::numeric_limits<uint64_t>::max() - w.broadcastBytes
                               ? std::numeric_limits<uint64_t>::max()
                               : w.broadcastBytes + phase.bytes;
    }
    return phase;
}

SimaiLayer
Reader::ReadRow(const std::vector<std::string>& t, uint32_t line, SimaiWorkload& w)
{
    if (t.size() < kColumns.size())
    {
        Fail(line,
             kColumns[t.size()],
             "missing: the row has " + std::to_string(t.size()) + " of " +
                 std::to_string(kColumns.size()) + " fields");
    }
    if (t.size() > kColumns.size())
    {
        Fail(line,
             "row",
             std::to_string(t.size()) + " fields, expected " + std::to_string(kColumns.size()) +
                 " (name, reserved, then compute time, collective and size of the forward, "
                 "input-gradient and weight-gradient phases, then the update time)");
    }
    SimaiLayer row;
    row.line = line;
    row.name = t[0];
    try
    {
        row.reserved = static_cast<int32_t>(ParseSignedText(t[1],
                                                            std::numeric_limits<int32_t>::min(),
                                                            std::numeric_limits<int32_t>::max()));
    }
    catch (const std::invalid_argument& e)
    {
        Fail(line, kColumns[1], std::string(e.what()) + ", got \"" + t[1] + "\"");
    }
    row.forward = ReadPhase(t, 2, line, false, w);
    row.inputGradient = ReadPhase(t, 5, line, false, w);
    row.weightGradient = ReadPhase(t, 8, line, true, w);
    const int64_t update = static_cast<int64_t>(
        Unsigned(line, kColumns[11], t[11], 0, static_cast<uint64_t>(kMaxSimulatedTimeNs)));
    // A row's delay follows each of its (up to three) collectives.
    for (int i = 0; i < 3; ++i)
    {
        CountTime(line, kColumns[11], update);
    }
    row.update = NanoSeconds(update);
    return row;
}

void
Reader::ReadHeader(SimaiWorkload& w)
{
    const std::vector<std::string> t = Tokens(m_lines[0]);
    if (t.empty())
    {
        Fail(1,
             "policy",
             "missing: expected HYBRID_TRANSFORMER_FWD_IN_BCKWD and the header fields");
    }
    w.policy = t[0];
    if (w.policy == "MICRO")
    {
        // AICB's micro-benchmarks: SimAI reads no header field and no group
        // size; its collectives run on all ranks.
        if (t.size() > 1)
        {
            Fail(1, "policy", "MICRO takes no header fields, got \"" + t[1] + "\"");
        }
        return;
    }
    static const std::vector<std::string> others = {"DATA",
                                                    "HYBRID_DLRM",
                                                    "HYBRID_DLRM_ENHANCED",
                                                    "MODEL",
                                                    "HYBRID_DATA_MODEL",
                                                    "HYBRID_MODEL_DATA",
                                                    "HYBRID_CUSTOMIZED",
                                                    "DISTRIBUTED_INFERENCE"};
    if (std::find(others.begin(), others.end(), w.policy) != others.end())
    {
        Fail(1,
             "policy",
             w.policy + " is not read (only the transformer policies, which AICB writes): expected "
                        "HYBRID_TRANSFORMER_FWD_IN_BCKWD or HYBRID_TRANSFORMER");
    }
    if (w.policy != "HYBRID_TRANSFORMER_FWD_IN_BCKWD" && w.policy != "HYBRID_TRANSFORMER")
    {
        Fail(1,
             "policy",
             "expected HYBRID_TRANSFORMER_FWD_IN_BCKWD or HYBRID_TRANSFORMER, got \"" + w.policy +
                 "\"");
    }
    const uint64_t u32 = std::numeric_limits<uint32_t>::max();
    std::map<std::string, bool> seen;
    for (size_t i = 1; i < t.size(); ++i)
    {
        std::string key = t[i];
        if (key == "pp_comm")
        {
            key = "pp_comm:"; // SimAI takes it with or without the colon
        }
        if (key == "expert_parallel_npu_group:")
        {
            key = "ep:"; // AICB's micro-benchmark writer names ep so
        }
        const std::string field = key.back() == ':' ? key.substr(0, key.size() - 1) : key;
        static const std::vector<std::string> known = {"model_parallel_NPU_group:",
                                                       "ep:",
                                                       "pp:",
                                                       "vpp:",
                                                       "ga:",
                                                       "all_gpus:",
                                                       "pp_comm:",
                                                       "checkpoints:",
                                                       "checkpoint_initiates:"};
        if (std::find(known.begin(), known.end(), key) == known.end())
        {
            Fail(1,
                 field,
                 "unknown header field \"" + t[i] +
                     "\"; expected model_parallel_NPU_group:, ep:, pp:, vpp:, ga:, all_gpus:, "
                     "pp_comm:, checkpoints:, checkpoint_initiates:");
        }
        if (seen[key])
        {
            Fail(1, field, "given twice");
        }
        seen[key] = true;
        if (i + 1 >= t.size())
        {
            Fail(1, field, "missing value: the header ends after \"" + t[i] + "\"");
        }
        const std::string& value = t[++i];
        // The counts of at least one, each into its field.
        static const std::map<std::string, uint32_t SimaiWorkload::*> counts{
            {"model_parallel_NPU_group:", &SimaiWorkload::tp},
            {"ep:", &SimaiWorkload::ep},
            {"pp:", &SimaiWorkload::pp},
            {"vpp:", &SimaiWorkload::vpp},
            {"ga:", &SimaiWorkload::ga},
            {"all_gpus:", &SimaiWorkload::allGpus}};
        if (auto c = counts.find(key); c != counts.end())
        {
            w.*(c->second) = static_cast<uint32_t>(Unsigned(1, field, value, 1, u32));
        }
        else if (key == "pp_comm:")
        {
            w.ppComm = Unsigned(1, field, value, 0, kMaxByteCount);
        }
        else
        {
            // A count, then that many layer indices.
            const uint64_t count = Unsigned(1, field, value, 0, u32);
            if (count > t.size() - 1 - i)
            {
                Fail(1,
                     field,
                     "announces " + std::to_string(count) + " layers, the header lists " +
                         std::to_string(t.size() - 1 - i));
            }
            std::vector<uint32_t>& layers =
                key == "checkpoints:" ? w.checkpoints : w.checkpointInitiates;
            for (uint64_t k = 0; k < count; ++k)
            {
                layers.push_back(static_cast<uint32_t>(Unsigned(1, field, t[++i], 0, u32)));
            }
        }
    }
    if (!seen["model_parallel_NPU_group:"])
    {
        Fail(1, "model_parallel_NPU_group", "missing: the tensor-parallel group size");
    }
}

void
Reader::ReadRows(SimaiWorkload& w, uint32_t count)
{
    // The count is not trusted to size anything.
    for (size_t i = 2; i < m_lines.size(); ++i)
    {
        const uint32_t line = static_cast<uint32_t>(i + 1);
        const std::vector<std::string> t = Tokens(m_lines[i]);
        if (t.empty())
        {
            continue;
        }
        w.layers.push_back(ReadRow(t, line, w));
    }
    // SimAI's reader (Workload::initialize_workload) takes the count, then
    // reads rows until the file ends: it runs the rows present, and so does
    // this one. AICB has shipped files whose count disagrees (LLaMA-65B's 839).
    if (w.layers.empty())
    {
        Fail(2, "layers", "announces " + std::to_string(count) + " rows, the file has none");
    }
    if (w.layers.size() != count)
    {
        w.warnings.push_back(m_source + ":2: layers: announces " + std::to_string(count) +
                             " rows, the file has " + std::to_string(w.layers.size()) +
                             "; the rows present are read, as SimAI reads them");
    }
    for (const auto& [layers, field] :
         {std::pair<const std::vector<uint32_t>*, const char*>{&w.checkpoints, "checkpoints"},
          {&w.checkpointInitiates, "checkpoint_initiates"}})
    {
        for (uint32_t layer : *layers)
        {
            if (layer >= w.layers.size())
            {
                Fail(1,
                     field,
                     "layer " + std::to_string(layer) + " of a file of " +
                         std::to_string(w.layers.size()) + " rows");
            }
        }
    }
}

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

SimaiWorkload
Reader::Read(uint32_t ranks, const SimaiGraphSettings& settings)
{
    SimaiWorkload w;
    ReadHeader(w);
    if (m_lines.size() < 2 || Tokens(m_lines[1]).empty())
    {
        Fail(2, "layers", "missing: the number of rows, after the header");
    }
    const std::vector<std::string> countLine = Tokens(m_lines[1]);
    if (countLine.size() != 1)
    {
        Fail(2, "layers", "expected the number of rows alone, got \"" + m_lines[1] + "\"");
    }
    const uint32_t count = static_cast<uint32_t>(
        Unsigned(2, "layers", countLine[0], 1, std::numeric_limits<uint32_t>::max()));
    ReadRows(w, count);
    if (w.policy == "MICRO")
    {
        // As SimAI runs it (Workload::iterate_micro_benchmark): the first
        // row's weight-gradient collective on all ranks, nothing else.
        SimaiLayer first = w.layers.front();
        first.forward = SimaiLayer::Phase{};
        first.inputGradient = SimaiLayer::Phase{};
        first.forward.comm = first.inputGradient.comm = "NONE";
        first.weightGradient.compute = Time(0);
        first.update = Time(0);
        if (w.layers.size() > 1)
        {
            w.warnings.push_back(m_source + ":1: policy: MICRO: the first row's weight-gradient " +
                                 first.weightGradient.comm +
                                 " runs, as SimAI runs such a file; "
                                 "the other " +
                                 std::to_string(w.layers.size() - 1) + " rows are read, not run");
        }
        w.layers = {first};
    }

    // SimAI's packet backend takes the GPU count from its topology, not the
    // header; a caller's count stands for it.
    w.ranks = ranks != 0 ? ranks : w.allGpus;
    const std::string whose = ranks != 0 ? " ranks" : " ranks (all_gpus)";
    if (w.ranks == 0)
    {
        Fail(1, "all_gpus", "missing, and no rank count given: the job's size is unknown");
    }
    const uint64_t stage = static_cast<uint64_t>(w.tp) * w.pp;
    if (w.ranks % stage != 0)
    {
        Fail(1,
             "model_parallel_NPU_group",
             std::to_string(w.ranks) + whose +
                 " are not a multiple of model_parallel_NPU_group x pp = " + std::to_string(stage));
    }
    w.dp = static_cast<uint32_t>(w.ranks / stage);
    if (w.dp % w.ep != 0)
    {
        Fail(1,
             "ep",
             "dp = " + std::to_string(w.ranks) + whose + " / (model_parallel_NPU_group x pp) = " +
                 std::to_string(w.dp) + " is not a multiple of ep = " + std::to_string(w.ep));
    }
    if (settings.channels == 0)
    {
        throw std::invalid_argument("SimaiGraphSettings: channels must be at least 1");
    }
    const auto [ops, bytes] = Builder::Estimate(w);
    try
    {
        InputLimits::CheckJobs(bytes);
    }
    catch (const std::invalid_argument& e)
    {
        Fail(2,
             "layers",
             std::to_string(w.layers.size()) + " rows over " + std::to_string(w.ranks) +
                 " ranks make a graph of about " + FormatReal(ops) + " ops, which " + e.what());
    }
    w.graph = Builder(w, settings).Build();
    return w;
}

} // namespace

SimaiWorkload
ReadSimaiWorkloadText(const std::string& text,
                      const std::string& sourceName,
                      uint32_t ranks,
                      const SimaiGraphSettings& settings)
{
    return Reader(text, sourceName).Read(ranks, settings);
}

uint32_t
ReadSimaiWorkloadRanks(const std::string& path)
{
    return Reader(ReadInputFile(path, InputFileKinds::kSimaiWorkload), path).HeaderRanks();
}

SimaiWorkload
ReadSimaiWorkload(const std::string& path, uint32_t ranks, const SimaiGraphSettings& settings)
{
    return ReadSimaiWorkloadText(ReadInputFile(path, InputFileKinds::kSimaiWorkload),
                                 path,
                                 ranks,
                                 settings);
}

} // namespace ns3
