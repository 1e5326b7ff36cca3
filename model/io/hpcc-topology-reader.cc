/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-topology-reader.h"

#include "csv-fields.h"
#include "input-file.h"
#include "unit-strings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

std::vector<std::string>
SplitHpccFields(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> fields;
    std::string field;
    while (in >> field)
    {
        fields.push_back(field);
    }
    return fields;
}

uint64_t
ParseHpccUint(const std::string& text, uint64_t max)
{
    if (!text.empty() && text[0] == '-')
    {
        throw std::invalid_argument("must not be negative, got '" + text + "'");
    }
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    {
        throw std::invalid_argument("expected a non-negative integer, got '" + text + "'");
    }
    uint64_t v = 0;
    for (char c : text)
    {
        const uint64_t digit = static_cast<uint64_t>(c - '0');
        if (v > (max - digit) / 10)
        {
            throw std::invalid_argument("'" + text + "' is larger than " + std::to_string(max));
        }
        v = v * 10 + digit;
    }
    return v;
}

double
ParseHpccReal(const std::string& text)
{
    if (!text.empty() && text[0] == '-')
    {
        throw std::invalid_argument("must not be negative, got '" + text + "'");
    }
    // strtod alone would also take "inf", "nan" and hexadecimal numbers.
    if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos)
    {
        throw std::invalid_argument("expected a non-negative number, got '" + text + "'");
    }
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v))
    {
        throw std::invalid_argument("expected a non-negative number, got '" + text + "'");
    }
    return v;
}

int64_t
ParseHpccSecondsNs(const std::string& text)
{
    if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos)
    {
        throw std::invalid_argument("expected a decimal number of seconds, got '" + text + "'");
    }
    try
    {
        return ParseTimeNs(text + "s");
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string(e.what()) + " in '" + text + "' seconds");
    }
}

namespace
{

/// One non-blank line of the file, split into fields.
struct Line
{
    uint32_t number;
    std::vector<std::string> fields;
};

class TopologyParser
{
  public:
    explicit TopologyParser(const std::string& path)
        : m_path(path)
    {
    }

    HpccTopology Parse()
    {
        const std::vector<Line> lines = ReadLines();
        HpccTopology result;
        const Header header = ReadHeader(lines, result);
        std::size_t next = ReadSwitchIds(lines, header, result);
        for (uint32_t i = 0; i < header.nodes; ++i)
        {
            switch (result.nodeType[i])
            {
            case HpccNodeType::Host:
                result.topology.AddHost("host-" + std::to_string(i));
                break;
            case HpccNodeType::Switch:
                result.topology.AddSwitch("switch-" + std::to_string(i), 1);
                break;
            case HpccNodeType::NvSwitch:
                result.topology.AddSwitch("nvswitch-" + std::to_string(i), 1);
                break;
            }
        }
        const std::size_t nLinkLines = lines.size() - next;
        if (nLinkLines > header.links)
        {
            ThrowInputError(m_path,
                            lines[next + header.links].number,
                            "links",
                            "more link lines than the " + std::to_string(header.links) +
                                " the header announces");
        }
        for (; next < lines.size(); ++next)
        {
            ReadLink(lines[next], header.nodes, result);
        }
        if (nLinkLines < header.links)
        {
            ThrowInputError(m_path,
                            m_lastLine,
                            "links",
                            "the header announces " + std::to_string(header.links) +
                                " links but the file has " + std::to_string(nLinkLines) +
                                " link lines");
        }
        return result;
    }

  private:
    /// The counts of the header line.
    struct Header
    {
        uint32_t number{0}; ///< its line
        uint32_t nodes{0};
        uint32_t nvSwitches{0}; ///< SimAI's only
        uint32_t switches{0};
        uint32_t links{0};
    };

    /// The file's non-blank lines, split into fields; sets m_lastLine.
    std::vector<Line> ReadLines()
    {
        std::istringstream in(ReadInputFile(m_path, InputFileKinds::kHpccTopology));
        std::vector<Line> lines;
        std::string text;
        uint32_t number = 0;
        while (std::getline(in, text))
        {
            if (++number == 1)
            {
                StripByteOrderMark(text);
            }
            std::vector<std::string> fields = SplitHpccFields(text);
            if (fields.empty())
            {
                continue;
            }
            if (fields[0][0] == '#')
            {
                ThrowInputError(m_path,
                                number,
                                "line",
                                "'#' comments are not part of the HPCC topology format");
            }
            lines.push_back(Line{number, std::move(fields)});
        }
        if (in.bad())
        {
            throw std::runtime_error(m_path + ": file: read error");
        }
        m_lastLine = std::max<uint32_t>(number, 1);
        return lines;
    }

    /// The header (HPCC's or SimAI's, which also fills \p result's SimAI fields), checked
    /// against what the file's \p lines can back.
    Header ReadHeader(const std::vector<Line>& lines, HpccTopology& result) const
    {
        if (lines.empty())
        {
            ThrowInputError(m_path, m_lastLine, "header", "missing 'nodes switches links' line");
        }
        const Line& line = lines[0];
        Header h;
        h.number = line.number;
        if (line.fields.size() == 6)
        {
            // SimAI: nodes gpus_per_server nvswitches switches links gpu_type.
            result.simai = true;
            h.nodes = Uint(line, 0, "nodes", UINT32_MAX);
            result.gpusPerServer = Uint(line, 1, "gpus_per_server", UINT32_MAX);
            h.nvSwitches = Uint(line, 2, "nvswitches", UINT32_MAX);
            h.switches = Uint(line, 3, "switches", UINT32_MAX);
            h.links = Uint(line, 4, "links", UINT32_MAX);
            result.gpuType = line.fields[5];
        }
        else if (line.fields.size() == 3)
        {
            h.nodes = Uint(line, 0, "nodes", UINT32_MAX);
            h.switches = Uint(line, 1, "switches", UINT32_MAX);
            h.links = Uint(line, 2, "links", UINT32_MAX);
        }
        else
        {
            ThrowInputError(m_path,
                            line.number,
                            "header",
                            "expected 3 fields 'nodes switches links' (HPCC) or 6 fields 'nodes "
                            "gpus_per_server nvswitches switches links gpu_type' (SimAI), got " +
                                std::to_string(line.fields.size()));
        }
        CheckCounts(h, lines.size(), result.simai);
        return h;
    }

    /// Counts the file cannot back are errors before anything is sized by
    /// them (a header announcing 3e9 nodes would exhaust memory).
    void CheckCounts(const Header& h, std::size_t lines, bool simai) const
    {
        if (h.nodes == 0)
        {
            ThrowInputError(m_path, h.number, "nodes", "must be at least 1");
        }
        if (h.links > lines)
        {
            ThrowInputError(m_path,
                            h.number,
                            "links",
                            "the header announces " + std::to_string(h.links) +
                                " links but the file has only " + std::to_string(lines) + " lines");
        }
        // Every node must be an end of a link line, two per line.
        if (h.nodes > 2 * static_cast<uint64_t>(lines))
        {
            ThrowInputError(m_path,
                            h.number,
                            "nodes",
                            std::to_string(h.nodes) + " nodes, but the file's " +
                                std::to_string(lines) + " lines cannot link that many");
        }
        if (static_cast<uint64_t>(h.nvSwitches) + h.switches > h.nodes)
        {
            ThrowInputError(m_path,
                            h.number,
                            "switches",
                            (simai ? std::to_string(h.nvSwitches) + " NVSwitches and " : "") +
                                std::to_string(h.switches) + " switches but only " +
                                std::to_string(h.nodes) + " nodes");
        }
    }

    /**
     * The switch ids, unless there are none (then the line is blank or
     * absent): NVSwitches first, on the same line as the switches or on a
     * line of their own. Fills \p result's node types.
     * \return the index of the first link line
     */
    std::size_t ReadSwitchIds(const std::vector<Line>& lines,
                              const Header& h,
                              HpccTopology& result) const
    {
        std::size_t next = 1;
        result.nodeType.assign(h.nodes, HpccNodeType::Host);
        const uint64_t all = static_cast<uint64_t>(h.nvSwitches) + h.switches;
        if (all == 0)
        {
            return next;
        }
        if (next >= lines.size())
        {
            ThrowInputError(m_path, m_lastLine, "switch ids", "missing line of switch ids");
        }
        const Line& first = lines[next++];
        std::vector<const Line*> idLines{&first};
        if (result.simai && h.nvSwitches > 0 && h.switches > 0 &&
            first.fields.size() == h.nvSwitches)
        {
            if (next >= lines.size())
            {
                ThrowInputError(m_path,
                                m_lastLine,
                                "switch ids",
                                "missing line of switch ids after the NVSwitch ids");
            }
            const Line& second = lines[next++];
            if (second.fields.size() != h.switches)
            {
                ThrowInputError(m_path,
                                second.number,
                                "switch ids",
                                "expected " + std::to_string(h.switches) +
                                    " switch ids after the line of NVSwitch ids, got " +
                                    std::to_string(second.fields.size()));
            }
            idLines.push_back(&second);
        }
        else if (first.fields.size() != all)
        {
            ThrowInputError(m_path,
                            first.number,
                            "switch ids",
                            "expected " + std::to_string(all) + " switch ids" +
                                (result.simai ? " (" + std::to_string(h.nvSwitches) +
                                                    " NVSwitches first, then " +
                                                    std::to_string(h.switches) + " switches)"
                                              : std::string()) +
                                ", got " + std::to_string(first.fields.size()));
        }
        MarkSwitches(idLines, h, result);
        return next;
    }

    /// The node types named by the switch id lines \p idLines.
    void MarkSwitches(const std::vector<const Line*>& idLines,
                      const Header& h,
                      HpccTopology& result) const
    {
        std::vector<bool> seen(h.nodes, false);
        uint64_t k = 0; // position among all the ids: the first nvSwitches are NVSwitches
        for (const Line* line : idLines)
        {
            for (std::size_t i = 0; i < line->fields.size(); ++i, ++k)
            {
                const bool nv = k < h.nvSwitches;
                const char* field = nv ? "nvswitch id" : "switch id";
                const uint32_t id = NodeId(*line, i, field, h.nodes);
                if (seen[id])
                {
                    ThrowInputError(m_path,
                                    line->number,
                                    field,
                                    "duplicate switch id " + std::to_string(id));
                }
                seen[id] = true;
                result.nodeType[id] = nv ? HpccNodeType::NvSwitch : HpccNodeType::Switch;
            }
        }
    }

    /// One link line 'a b rate delay error_rate', added to \p result.
    void ReadLink(const Line& line, uint32_t nodes, HpccTopology& result) const
    {
        if (line.fields.size() != 5)
        {
            ThrowInputError(m_path,
                            line.number,
                            "link",
                            "expected 5 fields 'a b rate delay error_rate', got " +
                                std::to_string(line.fields.size()));
        }
        const uint32_t a = NodeId(line, 0, "a", nodes);
        const uint32_t b = NodeId(line, 1, "b", nodes);
        if (a == b)
        {
            ThrowInputError(m_path, line.number, "b", "self-loop at node " + std::to_string(a));
        }
        uint64_t rateBps = 0;
        int64_t delayNs = 0;
        double errorRate = 0;
        try
        {
            rateBps = ParseRateBps(line.fields[2]);
        }
        catch (const std::invalid_argument& e)
        {
            ThrowInputError(m_path,
                            line.number,
                            "rate",
                            std::string(e.what()) + " in '" + line.fields[2] + "'");
        }
        if (rateBps == 0)
        {
            ThrowInputError(m_path, line.number, "rate", "must be positive");
        }
        try
        {
            delayNs = ParseTimeNs(line.fields[3]);
        }
        catch (const std::invalid_argument& e)
        {
            ThrowInputError(m_path,
                            line.number,
                            "delay",
                            std::string(e.what()) + " in '" + line.fields[3] + "'");
        }
        try
        {
            errorRate = ParseHpccReal(line.fields[4]);
        }
        catch (const std::invalid_argument& e)
        {
            ThrowInputError(m_path, line.number, "error_rate", e.what());
        }
        if (errorRate > 1.0)
        {
            ThrowInputError(m_path,
                            line.number,
                            "error_rate",
                            "probability " + line.fields[4] + " is outside [0,1]");
        }
        result.topology.AddLink(a, b, rateBps, delayNs);
        result.linkErrorRate.push_back(errorRate);
        result.linkLine.push_back(line.number);
    }

    uint32_t Uint(const Line& line, size_t i, const std::string& field, uint64_t max) const
    {
        try
        {
            return static_cast<uint32_t>(ParseHpccUint(line.fields[i], max));
        }
        catch (const std::invalid_argument& e)
        {
            ThrowInputError(m_path, line.number, field, e.what());
        }
    }

    uint32_t NodeId(const Line& line, size_t i, const std::string& field, uint32_t nNodes) const
    {
        const uint32_t id = Uint(line, i, field, UINT32_MAX);
        if (id >= nNodes)
        {
            ThrowInputError(m_path,
                            line.number,
                            field,
                            "node id " + std::to_string(id) + " is out of range [0, " +
                                std::to_string(nNodes) + ")");
        }
        return id;
    }

    std::string m_path;
    uint32_t m_lastLine{1}; ///< the file's last line (at least 1), for errors at its end
};

/// \p v / 10^exp10 with \p unit, if exact.
bool
FormatExact(uint64_t v, int exp10, const char* unit, std::string& out)
{
    uint64_t divisor = 1;
    for (int i = 0; i < exp10; ++i)
    {
        divisor *= 10;
    }
    if (v % divisor != 0)
    {
        return false;
    }
    out = std::to_string(v / divisor) + unit;
    return true;
}

std::string
FormatRate(uint64_t bps)
{
    std::string out;
    if (bps != 0 && (FormatExact(bps, 9, "Gbps", out) || FormatExact(bps, 6, "Mbps", out) ||
                     FormatExact(bps, 3, "Kbps", out)))
    {
        return out;
    }
    return std::to_string(bps) + "bps";
}

std::string
FormatDelay(int64_t ns)
{
    if (ns < 0)
    {
        throw std::runtime_error("WriteHpccTopology: negative delay " + std::to_string(ns) + "ns");
    }
    std::string out;
    const auto v = static_cast<uint64_t>(ns);
    if (v != 0 && (FormatExact(v, 9, "s", out) || FormatExact(v, 6, "ms", out) ||
                   FormatExact(v, 3, "us", out)))
    {
        return out;
    }
    return std::to_string(v) + "ns";
}

} // namespace

HpccTopology
ReadHpccTopology(const std::string& path)
{
    return TopologyParser(path).Parse();
}

void
WriteHpccTopology(const std::string& path,
                  const FabricTopology& topo,
                  const std::vector<double>& linkErrorRate)
{
    if (!linkErrorRate.empty() && linkErrorRate.size() != topo.GetNLinks())
    {
        throw std::runtime_error("WriteHpccTopology: " + std::to_string(linkErrorRate.size()) +
                                 " error rates for " + std::to_string(topo.GetNLinks()) + " links");
    }
    std::ofstream out(path);
    if (!out)
    {
        throw std::runtime_error(path + ": file: cannot open for writing");
    }
    out << topo.GetNNodes() << ' ' << topo.GetNSwitches() << ' ' << topo.GetNLinks() << '\n';
    bool first = true;
    for (uint32_t i = 0; i < topo.GetNNodes(); ++i)
    {
        if (!topo.IsHost(i))
        {
            out << (first ? "" : " ") << i;
            first = false;
        }
    }
    out << '\n';
    out << std::setprecision(std::numeric_limits<double>::max_digits10);
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const FabricLink& link = topo.GetLink(l);
        out << link.a << ' ' << link.b << ' ' << FormatRate(link.rateBps) << ' '
            << FormatDelay(link.delayNs) << ' ' << (linkErrorRate.empty() ? 0.0 : linkErrorRate[l])
            << '\n';
    }
    out.flush();
    if (!out)
    {
        throw std::runtime_error(path + ": file: write error");
    }
}

} // namespace ns3
