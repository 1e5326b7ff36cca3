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
        RequireNotDirectory(m_path);
        std::ifstream in(m_path);
        if (!in)
        {
            throw std::runtime_error(m_path + ": file: cannot open for reading");
        }
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
        const uint32_t lastLine = std::max<uint32_t>(number, 1);

        if (lines.empty())
        {
            ThrowInputError(m_path, lastLine, "header", "missing 'nodes switches links' line");
        }
        const Line& header = lines[0];
        HpccTopology result;
        uint32_t nNodes = 0;
        uint32_t nNvSwitches = 0;
        uint32_t nSwitches = 0;
        uint32_t nLinks = 0;
        if (header.fields.size() == 6)
        {
            // SimAI: nodes gpus_per_server nvswitches switches links gpu_type.
            result.simai = true;
            nNodes = Uint(header, 0, "nodes", UINT32_MAX);
            result.gpusPerServer = Uint(header, 1, "gpus_per_server", UINT32_MAX);
            nNvSwitches = Uint(header, 2, "nvswitches", UINT32_MAX);
            nSwitches = Uint(header, 3, "switches", UINT32_MAX);
            nLinks = Uint(header, 4, "links", UINT32_MAX);
            result.gpuType = header.fields[5];
        }
        else if (header.fields.size() == 3)
        {
            nNodes = Uint(header, 0, "nodes", UINT32_MAX);
            nSwitches = Uint(header, 1, "switches", UINT32_MAX);
            nLinks = Uint(header, 2, "links", UINT32_MAX);
        }
        else
        {
            ThrowInputError(m_path,
                            header.number,
                            "header",
                            "expected 3 fields 'nodes switches links' (HPCC) or 6 fields 'nodes "
                            "gpus_per_server nvswitches switches links gpu_type' (SimAI), got " +
                                std::to_string(header.fields.size()));
        }
        if (nNodes == 0)
        {
            ThrowInputError(m_path, header.number, "nodes", "must be at least 1");
        }
        // Counts the file cannot back are errors before anything is sized by
        // them (a header announcing 3e9 nodes would exhaust memory).
        if (nLinks > lines.size())
        {
            ThrowInputError(m_path,
                            header.number,
                            "links",
                            "the header announces " + std::to_string(nLinks) +
                                " links but the file has only " + std::to_string(lines.size()) +
                                " lines");
        }
        // Every node must be an end of a link line, two per line.
        if (nNodes > 2 * static_cast<uint64_t>(lines.size()))
        {
            ThrowInputError(m_path,
                            header.number,
                            "nodes",
                            std::to_string(nNodes) + " nodes, but the file's " +
                                std::to_string(lines.size()) + " lines cannot link that many");
        }
        const uint64_t nAllSwitches = static_cast<uint64_t>(nNvSwitches) + nSwitches;
        if (nAllSwitches > nNodes)
        {
            ThrowInputError(m_path,
                            header.number,
                            "switches",
                            (result.simai ? std::to_string(nNvSwitches) + " NVSwitches and " : "") +
                                std::to_string(nSwitches) + " switches but only " +
                                std::to_string(nNodes) + " nodes");
        }

        // The switch ids, unless there are none (then the line is blank or absent):
        // NVSwitches first, on the same line as the switches or on a line of their own.
        size_t next = 1;
        result.nodeType.assign(nNodes, HpccNodeType::Host);
        if (nAllSwitches > 0)
        {
            if (next >= lines.size())
            {
                ThrowInputError(m_path, lastLine, "switch ids", "missing line of switch ids");
            }
            const Line& first = lines[next++];
            std::vector<const Line*> idLines{&first};
            if (result.simai && nNvSwitches > 0 && nSwitches > 0 &&
                first.fields.size() == nNvSwitches)
            {
                if (next >= lines.size())
                {
                    ThrowInputError(m_path,
                                    lastLine,
                                    "switch ids",
                                    "missing line of switch ids after the NVSwitch ids");
                }
                const Line& second = lines[next++];
                if (second.fields.size() != nSwitches)
                {
                    ThrowInputError(m_path,
                                    second.number,
                                    "switch ids",
                                    "expected " + std::to_string(nSwitches) +
                                        " switch ids after the line of NVSwitch ids, got " +
                                        std::to_string(second.fields.size()));
                }
                idLines.push_back(&second);
            }
            else
            {
                if (first.fields.size() != nAllSwitches)
                {
                    ThrowInputError(m_path,
                                    first.number,
                                    "switch ids",
                                    "expected " + std::to_string(nAllSwitches) + " switch ids" +
                                        (result.simai ? " (" + std::to_string(nNvSwitches) +
                                                            " NVSwitches first, then " +
                                                            std::to_string(nSwitches) + " switches)"
                                                      : std::string()) +
                                        ", got " + std::to_string(first.fields.size()));
                }
            }
            std::vector<bool> seen(nNodes, false);
            uint64_t k = 0; // position among all the ids: the first nNvSwitches are NVSwitches
            for (const Line* line : idLines)
            {
                for (size_t i = 0; i < line->fields.size(); ++i, ++k)
                {
                    const bool nv = k < nNvSwitches;
                    const char* field = nv ? "nvswitch id" : "switch id";
                    const uint32_t id = NodeId(*line, i, field, nNodes);
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

        for (uint32_t i = 0; i < nNodes; ++i)
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

        const size_t nLinkLines = lines.size() - next;
        if (nLinkLines > nLinks)
        {
            ThrowInputError(m_path,
                            lines[next + nLinks].number,
                            "links",
                            "more link lines than the " + std::to_string(nLinks) +
                                " the header announces");
        }
        for (; next < lines.size(); ++next)
        {
            const Line& line = lines[next];
            if (line.fields.size() != 5)
            {
                ThrowInputError(m_path,
                                line.number,
                                "link",
                                "expected 5 fields 'a b rate delay error_rate', got " +
                                    std::to_string(line.fields.size()));
            }
            const uint32_t a = NodeId(line, 0, "a", nNodes);
            const uint32_t b = NodeId(line, 1, "b", nNodes);
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
        if (nLinkLines < nLinks)
        {
            ThrowInputError(m_path,
                            lastLine,
                            "links",
                            "the header announces " + std::to_string(nLinks) +
                                " links but the file has " + std::to_string(nLinkLines) +
                                " link lines");
        }
        return result;
    }

  private:
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
