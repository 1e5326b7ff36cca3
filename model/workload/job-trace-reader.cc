/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "job-trace-reader.h"

#include "scenario-reader.h"

#include "ns3/csv-fields.h"
#include "ns3/input-file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{

/// Where a cell is, for messages.
struct Cell
{
    const std::string& source;
    uint32_t line;
    const std::string& column;
    const std::string& text;

    [[noreturn]] void ThrowInputError(const std::string& what) const
    {
        ns3::ThrowInputError(source, line, column, what + ", got \"" + text + "\"");
    }
};

uint32_t
CountOf(const Cell& c, uint32_t min)
{
    static const std::regex digits("^[0-9]+$");
    if (!std::regex_match(c.text, digits))
    {
        c.ThrowInputError("expected an integer >= " + std::to_string(min));
    }
    errno = 0;
    unsigned long long v = std::strtoull(c.text.c_str(), nullptr, 10);
    if (errno == ERANGE || v > std::numeric_limits<uint32_t>::max())
    {
        c.ThrowInputError("too large");
    }
    if (v < min)
    {
        c.ThrowInputError("must be at least " + std::to_string(min));
    }
    return static_cast<uint32_t>(v);
}

double
RealOf(const Cell& c)
{
    const char* begin = c.text.c_str();
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(begin, &end);
    if (c.text.empty() || end != begin + c.text.size() || errno == ERANGE || !std::isfinite(v))
    {
        c.ThrowInputError("expected a number");
    }
    return v;
}

/// Seconds as a bare decimal number, or a time string with a unit.
int64_t
TimeOf(const Cell& c)
{
    static const std::regex bare(R"(^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$)");
    try
    {
        return ParseTimeNs(std::regex_match(c.text, bare) ? c.text + "s" : c.text);
    }
    catch (const std::invalid_argument& e)
    {
        c.ThrowInputError(
            std::string("bad time (seconds, or a value with a unit such as 1500ms): ") + e.what());
    }
}

using Setter = std::function<void(const Cell&, JobSpec&)>;

/// Every column: whether a row must fill it, and how it sets the job.
const std::vector<std::tuple<std::string, bool, Setter>>&
Columns()
{
    static const std::vector<std::tuple<std::string, bool, Setter>> columns{
        {"arrival", true, [](const Cell& c, JobSpec& j) { j.arrivalNs = TimeOf(c); }},
        {"model", true, [](const Cell& c, JobSpec& j) { j.model = c.text; }},
        {"workers", true, [](const Cell& c, JobSpec& j) { j.workers = CountOf(c, 1); }},
        {"iterations", true, [](const Cell& c, JobSpec& j) { j.iterations = CountOf(c, 1); }},
        {"gpus_per_host", false, [](const Cell& c, JobSpec& j) { j.gpusPerHost = CountOf(c, 1); }},
        {"placement", false, [](const Cell& c, JobSpec& j) { j.placement = c.text; }},
        {"weight",
         false,
         [](const Cell& c, JobSpec& j) {
             j.weight = RealOf(c);
             if (j.weight < 0)
             {
                 c.ThrowInputError("must not be negative");
             }
         }},
        {"collective", false, [](const Cell& c, JobSpec& j) { j.collective = c.text; }},
        {"buckets", false, [](const Cell& c, JobSpec& j) { j.buckets = CountOf(c, 1); }},
        {"channels", false, [](const Cell& c, JobSpec& j) { j.channels = CountOf(c, 1); }},
        {"compute_time", false, [](const Cell& c, JobSpec& j) { j.computeTimeNs = TimeOf(c); }},
        {"dtype", false, [](const Cell& c, JobSpec& j) { j.dtype = c.text; }},
        {"gpu", false, [](const Cell& c, JobSpec& j) { j.gpu = c.text; }},
        {"compute_efficiency",
         false,
         [](const Cell& c, JobSpec& j) {
             j.computeEfficiency = RealOf(c);
             if (!(j.computeEfficiency > 0 && j.computeEfficiency <= 1))
             {
                 c.ThrowInputError("must be in (0, 1]");
             }
         }},
        {"mfu",
         false,
         [](const Cell& c, JobSpec&) {
             c.ThrowInputError("renamed compute_efficiency: the fraction of the GPU's peak the "
                               "job's compute reaches");
         }},
        {"batch_per_gpu", false, [](const Cell& c, JobSpec& j) { j.batchPerGpu = CountOf(c, 1); }},
        {"sequence_length",
         false,
         [](const Cell& c, JobSpec& j) { j.sequenceLength = CountOf(c, 1); }},
        {"scale",
         false,
         [](const Cell& c, JobSpec& j) {
             j.scale = RealOf(c);
             if (!(j.scale > 0))
             {
                 c.ThrowInputError("must be positive");
             }
         }},
    };
    return columns;
}

} // namespace

std::vector<JobSpec>
ReadJobTrace(const std::string& path, const JobSpec& defaults, uint32_t firstId)
{
    return ReadJobTraceText(ReadInputFile(path, InputFileKinds::kJobTrace),
                            path,
                            defaults,
                            firstId);
}

std::vector<JobSpec>
ReadJobTraceText(const std::string& text,
                 const std::string& sourceName,
                 const JobSpec& defaults,
                 uint32_t firstId)
{
    const auto& columns = Columns();
    std::vector<size_t> layout; // field index -> index in columns
    uint32_t headerLine = 0;
    std::vector<JobSpec> jobs;
    uint32_t previousLine = 0;
    std::string previousArrival;

    std::istringstream in(text);
    std::string raw;
    uint32_t lineNo = 0;
    while (std::getline(in, raw))
    {
        if (++lineNo == 1)
        {
            StripByteOrderMark(raw);
        }
        const std::string line = TrimSpace(raw);
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        const std::vector<std::string> fields = SplitCsvLine(line);
        if (headerLine == 0)
        {
            headerLine = lineNo;
            std::string known;
            for (const auto& col : columns)
            {
                known += (known.empty() ? "" : ", ") + std::get<0>(col);
            }
            for (const std::string& name : fields)
            {
                auto it = std::find_if(columns.begin(), columns.end(), [&](const auto& col) {
                    return std::get<0>(col) == name;
                });
                if (it == columns.end())
                {
                    ThrowInputError(sourceName,
                                    lineNo,
                                    name.empty() ? "header" : name,
                                    name.empty() ? "empty column name"
                                                 : "unknown column (known: " + known + ")");
                }
                const size_t index = static_cast<size_t>(it - columns.begin());
                if (std::find(layout.begin(), layout.end(), index) != layout.end())
                {
                    ThrowInputError(sourceName, lineNo, name, "duplicate column");
                }
                layout.push_back(index);
            }
            for (size_t i = 0; i < columns.size(); ++i)
            {
                if (std::get<1>(columns[i]) &&
                    std::find(layout.begin(), layout.end(), i) == layout.end())
                {
                    ThrowInputError(sourceName,
                                    lineNo,
                                    std::get<0>(columns[i]),
                                    "missing required column");
                }
            }
            continue;
        }

        if (in.eof())
        {
            // A whole row ends with a newline; without one, a value may have
            // been cut ("10" of "100"), and it would read as a valid row.
            ThrowInputError(sourceName,
                            lineNo,
                            fields.size() <= layout.size() && !fields.empty()
                                ? std::get<0>(columns[layout[fields.size() - 1]])
                                : "row",
                            "the last row has no newline: the file may be cut inside its last "
                            "value (end the row with a newline if it is whole)");
        }
        if (fields.size() != layout.size())
        {
            ThrowInputError(sourceName,
                            lineNo,
                            "row",
                            "expected " + std::to_string(layout.size()) +
                                " fields as in the header, got " + std::to_string(fields.size()));
        }
        JobSpec job = defaults;
        job.id = firstId + static_cast<uint32_t>(jobs.size());
        job.hosts.clear();
        for (size_t f = 0; f < fields.size(); ++f)
        {
            const auto& [name, required, set] = columns[layout[f]];
            if (fields[f].empty())
            {
                if (required)
                {
                    ThrowInputError(sourceName, lineNo, name, "empty value in a required column");
                }
                continue;
            }
            set(Cell{sourceName, lineNo, name, fields[f]}, job);
        }
        if (job.placement == "explicit")
        {
            ThrowInputError(sourceName,
                            lineNo,
                            "placement",
                            "explicit placement needs host lists, which a trace cannot give");
        }
        const std::string& arrivalText =
            fields[std::find(layout.begin(), layout.end(), 0) - layout.begin()];
        if (!jobs.empty() && job.arrivalNs < jobs.back().arrivalNs)
        {
            ThrowInputError(sourceName,
                            lineNo,
                            "arrival",
                            "rows must be sorted by arrival: \"" + arrivalText +
                                "\" is earlier than \"" + previousArrival + "\" on line " +
                                std::to_string(previousLine));
        }
        previousLine = lineNo;
        previousArrival = arrivalText;
        jobs.push_back(job);
    }
    if (headerLine == 0)
    {
        ThrowInputError(sourceName, std::max<uint32_t>(lineNo, 1), "header", "no header row");
    }
    if (jobs.empty())
    {
        ThrowInputError(sourceName, headerLine, "row", "the trace has no job rows");
    }
    return jobs;
}

} // namespace ns3
