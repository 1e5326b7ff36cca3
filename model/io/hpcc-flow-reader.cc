/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-flow-reader.h"

#include "csv-fields.h"
#include "hpcc-topology-reader.h"
#include "input-file.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Field \p i of \p fields as an integer no larger than \p max, or an error naming \p field.
uint64_t
FieldUint(const std::string& path,
          uint32_t line,
          const std::vector<std::string>& fields,
          size_t i,
          const char* field,
          uint64_t max)
{
    try
    {
        return ParseHpccUint(fields[i], max);
    }
    catch (const std::invalid_argument& e)
    {
        ThrowInputError(path, line, field, e.what());
    }
}

} // namespace

std::vector<HpccFlow>
ReadHpccFlows(const std::string& path, uint32_t nNodes)
{
    std::istringstream in(ReadInputFile(path, InputFileKinds::kHpccFlows));
    std::vector<HpccFlow> flows;
    bool haveCount = false;
    uint64_t count = 0;
    uint32_t countLine = 0;
    std::string text;
    uint32_t line = 0;
    while (std::getline(in, text))
    {
        if (++line == 1)
        {
            StripByteOrderMark(text);
        }
        const std::vector<std::string> fields = SplitHpccFields(text);
        if (fields.empty())
        {
            continue;
        }
        if (fields[0][0] == '#')
        {
            ThrowInputError(path,
                            line,
                            "line",
                            "'#' comments are not part of the HPCC flow format");
        }
        if (!haveCount)
        {
            if (fields.size() != 1)
            {
                ThrowInputError(path,
                                line,
                                "count",
                                "expected 1 field (the number of flows), got " +
                                    std::to_string(fields.size()));
            }
            count = FieldUint(path, line, fields, 0, "count", UINT32_MAX);
            haveCount = true;
            countLine = line;
            continue;
        }
        if (flows.size() == count)
        {
            ThrowInputError(path,
                            line,
                            "count",
                            "more flow lines than the " + std::to_string(count) +
                                " announced on line " + std::to_string(countLine));
        }
        if (fields.size() != 6)
        {
            ThrowInputError(path,
                            line,
                            "flow",
                            "expected 6 fields 'src dst pg dport size start_time', got " +
                                std::to_string(fields.size()));
        }
        HpccFlow flow;
        flow.line = line;
        flow.src = static_cast<uint32_t>(FieldUint(path, line, fields, 0, "src", UINT32_MAX));
        flow.dst = static_cast<uint32_t>(FieldUint(path, line, fields, 1, "dst", UINT32_MAX));
        flow.pg = static_cast<uint32_t>(FieldUint(path, line, fields, 2, "pg", UINT32_MAX));
        flow.dport = static_cast<uint16_t>(FieldUint(path, line, fields, 3, "dport", 65535));
        flow.bytes = FieldUint(path, line, fields, 4, "size", UINT64_MAX);
        try
        {
            flow.startNs = ParseHpccSecondsNs(fields[5]);
        }
        catch (const std::invalid_argument& e)
        {
            ThrowInputError(path, line, "start_time", e.what());
        }
        if (flow.src >= nNodes)
        {
            ThrowInputError(path,
                            line,
                            "src",
                            "node id " + std::to_string(flow.src) + " is out of range [0, " +
                                std::to_string(nNodes) + ")");
        }
        if (flow.dst >= nNodes)
        {
            ThrowInputError(path,
                            line,
                            "dst",
                            "node id " + std::to_string(flow.dst) + " is out of range [0, " +
                                std::to_string(nNodes) + ")");
        }
        if (flow.src == flow.dst)
        {
            ThrowInputError(path,
                            line,
                            "dst",
                            "flow from node " + std::to_string(flow.src) + " to itself");
        }
        if (flow.pg > 7)
        {
            ThrowInputError(path,
                            line,
                            "pg",
                            "priority group " + std::to_string(flow.pg) + " is outside 0-7");
        }
        if (flow.bytes == 0)
        {
            ThrowInputError(path, line, "size", "must be at least 1 byte");
        }
        if (!flows.empty() && flow.startNs < flows.back().startNs)
        {
            ThrowInputError(path,
                            line,
                            "start_time",
                            "flows must be sorted by start time: " + fields[5] +
                                " s here is earlier than the start time on line " +
                                std::to_string(flows.back().line) + " (" +
                                std::to_string(flows.back().startNs) + " ns)");
        }
        flows.push_back(flow);
    }
    if (in.bad())
    {
        throw std::runtime_error(path + ": file: read error");
    }
    if (!haveCount)
    {
        ThrowInputError(path,
                        std::max<uint32_t>(line, 1),
                        "count",
                        "missing line with the number of flows");
    }
    if (flows.size() < count)
    {
        ThrowInputError(path,
                        line,
                        "count",
                        "line " + std::to_string(countLine) + " announces " +
                            std::to_string(count) + " flows but the file has " +
                            std::to_string(flows.size()));
    }
    return flows;
}

} // namespace ns3
