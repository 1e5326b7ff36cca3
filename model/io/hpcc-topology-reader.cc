/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-topology-reader.h"

#include "csv-fields.h"
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
            ++number;
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
        if (header.fields.size() == 6)
        {
            ThrowInputError(m_path,
                            header.number,
                            "header",
                            "six fields look like the SimAI header (nodes gpus_per_server "
                            "nvswitches switches links gpu_type), which is not supported; "
                            "expected 'nodes switches links'");
        }
        if (header.fields.size() != 3)
        {
            ThrowInputError(m_path,
                            header.number,
                            "header",
                            "expected 3 fields 'nodes switches links', got " +
                                std::to_string(header.fields.size()));
        }
        const uint32_t nNodes = Uint(header, 0, "nodes", UINT32_MAX);
        const uint32_t nSwitches = Uint(header, 1, "switches", UINT32_MAX);
        const uint32_t nLinks = Uint(header, 2, "links", UINT32_MAX);
        if (nNodes == 0)
        {
            ThrowInputError(m_path, header.number, "nodes", "must be at least 1");
        }
        if (nSwitches > nNodes)
        {
            ThrowInputError(m_path,
                            header.number,
                            "switches",
                            std::to_string(nSwitches) + " switches but only " +
                                std::to_string(nNodes) + " nodes");
        }

        // The switch line, unless there are no switches (then it is blank or absent).
        size_t next = 1;
        std::vector<bool> isSwitch(nNodes, false);
        if (nSwitches > 0)
        {
            if (next >= lines.size())
            {
                ThrowInputError(m_path, lastLine, "switch ids", "missing line of switch ids");
            }
            const Line& line = lines[next++];
            if (line.fields.size() != nSwitches)
            {
                ThrowInputError(m_path,
                                line.number,
                                "switch ids",
                                "expected " + std::to_string(nSwitches) + " switch ids, got " +
                                    std::to_string(line.fields.size()));
            }
            for (size_t i = 0; i < line.fields.size(); ++i)
            {
                const uint32_t id = NodeId(line, i, "switch id", nNodes);
                if (isSwitch[id])
                {
                    ThrowInputError(m_path,
                                    line.number,
                                    "switch id",
                                    "duplicate switch id " + std::to_string(id));
                }
                isSwitch[id] = true;
            }
        }

        HpccTopology result;
        for (uint32_t i = 0; i < nNodes; ++i)
        {
            if (isSwitch[i])
            {
                result.topology.AddSwitch("switch-" + std::to_string(i), 1);
            }
            else
            {
                result.topology.AddHost("host-" + std::to_string(i));
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
