/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-config-reader.h"

#include "csv-fields.h"
#include "hpcc-topology-reader.h"
#include "input-file.h"
#include "unit-strings.h"

#include <functional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

HpccConfigFile
ReadHpccConfig(const std::string& path)
{
    std::istringstream in(ReadInputFile(path, InputFileKinds::kHpccConfig));
    HpccConfigFile file;
    file.path = path;
    std::unordered_map<std::string, uint32_t> firstLine;
    std::string text;
    uint32_t line = 0;
    while (std::getline(in, text))
    {
        if (++line == 1)
        {
            StripByteOrderMark(text);
        }
        std::vector<std::string> fields = SplitHpccFields(text);
        if (fields.empty() || fields[0][0] == '#')
        {
            continue;
        }
        const std::string key = fields[0];
        if (fields.size() < 2)
        {
            ThrowInputError(path, line, key, "missing value");
        }
        auto [it, added] = firstLine.emplace(key, line);
        if (!added)
        {
            ThrowInputError(path,
                            line,
                            key,
                            "given twice (first on line " + std::to_string(it->second) + ")");
        }
        fields.erase(fields.begin());
        file.entries.push_back(HpccConfigEntry{key, std::move(fields), line});
    }
    if (in.bad())
    {
        throw std::runtime_error(path + ": file: read error");
    }
    return file;
}

namespace
{

/// Known keys this module does not model, with what they mean (the header's table).
const std::map<std::string, std::string>&
KnownUnmodelled()
{
    static const std::map<std::string, std::string> keys = {
        {"PAUSE_TIME", "PFC pause time"},
        {"DATA_RATE", "unused default link rate"},
        {"LINK_DELAY", "unused default link delay"},
        {"L2_CHUNK_SIZE", "go-back-N chunk size"},
        {"HAS_WIN", "window-based sending"},
        {"GLOBAL_T", "window from the global maximum RTT"},
        {"VAR_WIN", "variable window"},
        {"FAST_REACT", "HPCC per-ACK reaction"},
        {"U_TARGET", "HPCC target utilisation"},
        {"MI_THRESH", "HPCC multiplicative-increase threshold"},
        {"INT_MULTI", "INT counter multiplier"},
        {"MULTI_RATE", "HPCC per-hop rates"},
        {"SAMPLE_FEEDBACK", "HPCC sampled feedback"},
        {"RATE_BOUND", "pacing at the current rate"},
        {"DCTCP_RATE_AI", "DCTCP additive increase"},
        {"PINT_LOG_BASE", "HPCC-PINT log base"},
        {"PINT_PROB", "HPCC-PINT sampling probability"},
        {"ACK_HIGH_PRIO", "ACKs in the highest priority"},
        {"ENABLE_TRACE", "packet tracing on/off"},
        {"MON_END", "SimAI's monitors do not read it: they sample to the end of the run"},
        {"TRACE_FILE", "nodes whose packets are traced"},
        {"TRACE_OUTPUT_FILE", "packet trace in the simulators' binary format"},
    };
    return keys;
}

/// Applies one entry's values to an HpccConfig, reporting errors against the entry.
class EntryMapper
{
  public:
    EntryMapper(const std::string& path, const HpccConfigEntry& entry)
        : m_path(path),
          m_entry(entry)
    {
    }

    [[noreturn]] void Fail(const std::string& what) const
    {
        ThrowInputError(m_path, m_entry.line, m_entry.key, what);
    }

    const std::vector<std::string>& Values() const
    {
        return m_entry.values;
    }

    /// The only value; the key must have exactly one.
    const std::string& Single() const
    {
        if (m_entry.values.size() != 1)
        {
            Fail("expected 1 value, got " + std::to_string(m_entry.values.size()));
        }
        return m_entry.values[0];
    }

    uint64_t Uint(const std::string& text, uint64_t max) const
    {
        try
        {
            return ParseHpccUint(text, max);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(e.what());
        }
    }

    double Real(const std::string& text) const
    {
        try
        {
            return ParseHpccReal(text);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(e.what());
        }
    }

    uint32_t Uint32() const
    {
        return static_cast<uint32_t>(Uint(Single(), UINT32_MAX));
    }

    bool Flag() const
    {
        const std::string& v = Single();
        if (v != "0" && v != "1")
        {
            Fail("expected 0 or 1, got '" + v + "'");
        }
        return v == "1";
    }

    uint64_t Rate() const
    {
        const std::string& v = Single();
        try
        {
            return ParseRateBps(v);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(std::string(e.what()) + " in '" + v + "'");
        }
    }

    /// A plain number in \p unit ("us", "s"), as nanoseconds.
    int64_t Time(const char* unit) const
    {
        const std::string& v = Single();
        if (v.find_first_not_of("0123456789.eE+-") != std::string::npos)
        {
            Fail("expected a plain number of " + std::string(unit) + ", got '" + v + "'");
        }
        try
        {
            return ParseTimeNs(v + unit);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(std::string(e.what()) + " in '" + v + "' " + unit);
        }
    }

    /// As Time, but a time beyond the simulator's range is none (no value), not an error.
    std::optional<int64_t> TimeOrBeyondRange(const char* unit) const
    {
        const std::string& v = Single();
        if (v.find_first_not_of("0123456789.eE+-") == std::string::npos)
        {
            try
            {
                ParseTimeNs(v + unit);
            }
            catch (const std::invalid_argument& e)
            {
                if (std::string(e.what()) == kTimeRangeError)
                {
                    return std::nullopt;
                }
            }
        }
        return Time(unit);
    }

    /// A `n rate1 value1 ... raten valuen` map; \p value parses one value.
    template <typename T>
    std::map<uint64_t, T> RateMap(const std::function<T(const std::string&)>& value) const
    {
        const std::vector<std::string>& v = m_entry.values;
        const uint64_t n = Uint(v[0], UINT32_MAX);
        if (v.size() != 1 + 2 * n)
        {
            Fail("announces " + std::to_string(n) + " rate/value pairs (" +
                 std::to_string(1 + 2 * n) + " values), got " + std::to_string(v.size()) +
                 " values");
        }
        std::map<uint64_t, T> map;
        for (uint64_t i = 0; i < n; ++i)
        {
            const uint64_t rate = Uint(v[1 + 2 * i], UINT64_MAX);
            if (rate == 0)
            {
                Fail("rate must be positive (bit/s)");
            }
            if (!map.emplace(rate, value(v[2 + 2 * i])).second)
            {
                Fail("rate " + v[1 + 2 * i] + " given twice");
            }
        }
        return map;
    }

  private:
    const std::string& m_path;
    const HpccConfigEntry& m_entry;
};

using Apply = std::function<void(const EntryMapper&, HpccConfig&)>;

const std::map<std::string, Apply>&
Modelled()
{
    static const std::map<std::string, Apply> keys = {
        {"PACKET_PAYLOAD_SIZE",
         [](const EntryMapper& m, HpccConfig& c) {
             c.payloadBytes = m.Uint32();
             if (*c.payloadBytes == 0)
             {
                 m.Fail("must be at least 1 byte");
             }
         }},
        {"BUFFER_SIZE",
         [](const EntryMapper& m, HpccConfig& c) {
             // MB in the file: third.cc configures the MMU with BUFFER_SIZE * 1024 * 1024.
             c.bufferBytes = m.Uint(m.Single(), UINT32_MAX) * 1024 * 1024;
         }},
        {"CC_MODE", [](const EntryMapper& m, HpccConfig& c) { c.ccMode = m.Uint32(); }},
        {"ENABLE_QCN", [](const EntryMapper& m, HpccConfig& c) { c.enableQcn = m.Flag(); }},
        {"KMIN_MAP",
         [](const EntryMapper& m, HpccConfig& c) {
             // KB in the file: the simulators' SwitchMmu::ConfigEcn multiplies by 1000.
             c.kminBytes = m.RateMap<uint64_t>(
                 [&m](const std::string& v) { return m.Uint(v, UINT32_MAX) * 1000; });
         }},
        {"KMAX_MAP",
         [](const EntryMapper& m, HpccConfig& c) {
             c.kmaxBytes = m.RateMap<uint64_t>(
                 [&m](const std::string& v) { return m.Uint(v, UINT32_MAX) * 1000; });
         }},
        {"PMAX_MAP",
         [](const EntryMapper& m, HpccConfig& c) {
             c.pmax = m.RateMap<double>([&m](const std::string& v) {
                 const double p = m.Real(v);
                 if (p > 1.0)
                 {
                     m.Fail("probability " + v + " is outside [0,1]");
                 }
                 return p;
             });
         }},
        {"RATE_AI", [](const EntryMapper& m, HpccConfig& c) { c.rateAiBps = m.Rate(); }},
        {"RATE_HAI", [](const EntryMapper& m, HpccConfig& c) { c.rateHaiBps = m.Rate(); }},
        {"MIN_RATE", [](const EntryMapper& m, HpccConfig& c) { c.minRateBps = m.Rate(); }},
        {"ALPHA_RESUME_INTERVAL",
         [](const EntryMapper& m, HpccConfig& c) { c.alphaResumeIntervalNs = m.Time("us"); }},
        {"RATE_DECREASE_INTERVAL",
         [](const EntryMapper& m, HpccConfig& c) { c.rateDecreaseIntervalNs = m.Time("us"); }},
        {"RP_TIMER", [](const EntryMapper& m, HpccConfig& c) { c.rpTimerNs = m.Time("us"); }},
        {"FAST_RECOVERY_TIMES",
         [](const EntryMapper& m, HpccConfig& c) { c.fastRecoveryTimes = m.Uint32(); }},
        {"EWMA_GAIN",
         [](const EntryMapper& m, HpccConfig& c) {
             const double g = m.Real(m.Single());
             if (g <= 0.0 || g > 1.0)
             {
                 m.Fail("gain " + m.Single() + " is outside (0,1]");
             }
             c.ewmaGain = g;
         }},
        {"CLAMP_TARGET_RATE",
         [](const EntryMapper& m, HpccConfig& c) { c.clampTargetRate = m.Flag(); }},
        {"L2_ACK_INTERVAL",
         [](const EntryMapper& m, HpccConfig& c) { c.l2AckInterval = m.Uint32(); }},
        {"L2_BACK_TO_ZERO", [](const EntryMapper& m, HpccConfig& c) { c.l2BackToZero = m.Flag(); }},
        {"USE_DYNAMIC_PFC_THRESHOLD",
         [](const EntryMapper& m, HpccConfig& c) { c.useDynamicPfcThreshold = m.Flag(); }},
        {"ERROR_RATE_PER_LINK",
         [](const EntryMapper& m, HpccConfig& c) {
             const double p = m.Real(m.Single());
             if (p > 1.0)
             {
                 m.Fail("probability " + m.Single() + " is outside [0,1]");
             }
             c.errorRatePerLink = p;
         }},
        {"LINK_DOWN",
         [](const EntryMapper& m, HpccConfig& c) {
             const std::vector<std::string>& v = m.Values();
             if (v.size() != 3)
             {
                 m.Fail("expected 3 values (time in us, node, node), got " +
                        std::to_string(v.size()));
             }
             HpccConfig::LinkDown d;
             d.timeNs = static_cast<int64_t>(m.Uint(v[0], UINT32_MAX)) * 1000;
             d.a = static_cast<uint32_t>(m.Uint(v[1], UINT32_MAX));
             d.b = static_cast<uint32_t>(m.Uint(v[2], UINT32_MAX));
             c.linkDown = d;
         }},
        {"SIMULATOR_STOP_TIME",
         [](const EntryMapper& m, HpccConfig& c) {
             // SimAI's SimAI.conf sets 40000000000000.00 s to mean "no limit".
             c.stopTimeNs = m.TimeOrBeyondRange("s");
             c.stopTimeBeyondRange = !c.stopTimeNs.has_value();
         }},
        {"TOPOLOGY_FILE", [](const EntryMapper& m, HpccConfig& c) { c.topologyFile = m.Single(); }},
        {"FLOW_FILE", [](const EntryMapper& m, HpccConfig& c) { c.flowFile = m.Single(); }},
        {"FCT_OUTPUT_FILE",
         [](const EntryMapper& m, HpccConfig& c) { c.fctOutputFile = m.Single(); }},
        {"PFC_OUTPUT_FILE",
         [](const EntryMapper& m, HpccConfig& c) { c.pfcOutputFile = m.Single(); }},
        {"QLEN_MON_FILE", [](const EntryMapper& m, HpccConfig& c) { c.qlenMonFile = m.Single(); }},
        {"BW_MON_FILE", [](const EntryMapper& m, HpccConfig& c) { c.bwMonFile = m.Single(); }},
        {"RATE_MON_FILE", [](const EntryMapper& m, HpccConfig& c) { c.rateMonFile = m.Single(); }},
        {"CNP_MON_FILE", [](const EntryMapper& m, HpccConfig& c) { c.cnpMonFile = m.Single(); }},
        {"MON_START", [](const EntryMapper& m, HpccConfig& c) { c.monStartNs = m.Time("us"); }},
        {"QLEN_MON_INTERVAL",
         [](const EntryMapper& m, HpccConfig& c) { c.qlenMonIntervalNs = m.Time("us"); }},
        {"BW_MON_INTERVAL",
         [](const EntryMapper& m, HpccConfig& c) { c.bwMonIntervalNs = m.Time("us"); }},
        {"QP_MON_INTERVAL",
         [](const EntryMapper& m, HpccConfig& c) { c.qpMonIntervalNs = m.Time("us"); }},
        {"QLEN_MON_START",
         [](const EntryMapper& m, HpccConfig& c) { c.qlenMonStartNs = m.Time("ns"); }},
        {"QLEN_MON_END",
         [](const EntryMapper& m, HpccConfig& c) { c.qlenMonEndNs = m.Time("ns"); }},
    };
    return keys;
}

std::string
CcModeName(uint32_t mode)
{
    switch (mode)
    {
    case 3:
        return "HPCC";
    case 7:
        return "TIMELY";
    case 8:
        return "DCTCP";
    case 10:
        return "HPCC-PINT";
    default:
        return "unknown";
    }
}

/**
 * Why the value just applied for \p key asks for behaviour this module does
 * not model; empty if it does not.
 */
std::string
UnmodelledValue(const std::string& key, const HpccConfig& c)
{
    if (key == "CC_MODE" && *c.ccMode != 1)
    {
        return "CC_MODE " + std::to_string(*c.ccMode) + " (" + CcModeName(*c.ccMode) +
               ") not modelled; only 1 (DCQCN) is";
    }
    if (key == "L2_BACK_TO_ZERO" && *c.l2BackToZero)
    {
        return "L2_BACK_TO_ZERO 1 (go-back-0) not modelled; the NIC recovers with go-back-N";
    }
    if (key == "USE_DYNAMIC_PFC_THRESHOLD" && !*c.useDynamicPfcThreshold)
    {
        return "USE_DYNAMIC_PFC_THRESHOLD 0 (static PFC threshold) not modelled; the switch "
               "buffer uses the dynamic threshold";
    }
    return "";
}

} // namespace

HpccConfigMapping
MapHpccConfig(const HpccConfigFile& file, bool strict)
{
    HpccConfigMapping result;
    for (const HpccConfigEntry& entry : file.entries)
    {
        auto it = Modelled().find(entry.key);
        if (it == Modelled().end())
        {
            auto known = KnownUnmodelled().find(entry.key);
            result.unmodelled.push_back(HpccUnmodelledKey{
                entry.key,
                entry.line,
                known == KnownUnmodelled().end() ? "unknown key, not modelled"
                                                 : "not modelled (" + known->second + ")"});
            continue;
        }
        it->second(EntryMapper(file.path, entry), result.config);
        const std::string unmodelledValue = UnmodelledValue(entry.key, result.config);
        if (!unmodelledValue.empty())
        {
            result.unmodelled.push_back(HpccUnmodelledKey{entry.key, entry.line, unmodelledValue});
        }
    }
    if (strict && !result.unmodelled.empty())
    {
        std::string list;
        for (const HpccUnmodelledKey& k : result.unmodelled)
        {
            list += (list.empty() ? "" : ", ") + k.key + " (line " + std::to_string(k.line) + ")";
        }
        const HpccUnmodelledKey& first = result.unmodelled.front();
        ThrowInputError(file.path,
                        first.line,
                        first.key,
                        first.reason + "; unmodelled keys: " + list);
    }
    return result;
}

} // namespace ns3
