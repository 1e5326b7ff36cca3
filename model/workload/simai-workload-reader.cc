/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "simai-workload-reader.h"

#include "input-limits.h"
#include "simai-workload-graph.h"

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

using namespace simai_detail;

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
    const auto [ops, bytes] = EstimateSimaiGraph(w);
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
    w.graph = BuildSimaiGraph(w, settings);
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
