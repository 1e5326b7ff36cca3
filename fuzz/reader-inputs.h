/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef READER_INPUTS_H
#define READER_INPUTS_H

// One entry point per input reader, shared by the fuzz targets and the
// regression test that replays their corpora: read one input, and tell a
// success from an error the reader reported. Anything else (a crash, an
// abort, an exception of another kind) is a bug the caller sees.

#include "ns3/hpcc-config-reader.h"
#include "ns3/hpcc-flow-reader.h"
#include "ns3/hpcc-topology-reader.h"
#include "ns3/job-trace-reader.h"
#include "ns3/lingjun-topology-reader.h"
#include "ns3/scenario-reader.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace fuzz
{

/// The readers, by the name of their corpus folder.
inline const std::vector<std::string>&
ReaderNames()
{
    static const std::vector<std::string> names = {"scenario-json",
                                                   "job-trace-csv",
                                                   "hpcc-topology",
                                                   "hpcc-flows",
                                                   "hpcc-config",
                                                   "lingjun-topology"};
    return names;
}

/// The readers that take a path get the input in this file (one per process).
inline std::string
InputPath()
{
    return "/tmp/cs-fuzz-input-" + std::to_string(getpid()) + ".txt";
}

/**
 * Read \p text with reader \p reader.
 * \param source out: the name the reader was given for the input, which its
 *        errors must name
 * \return true on success
 * \throw std::runtime_error or std::invalid_argument: the reader's error
 */
inline bool
ReadInput(const std::string& reader, const std::string& text, std::string& source)
{
    if (reader == "scenario-json")
    {
        source = "input.json";
        ReadScenarioText(text, source);
        return true;
    }
    if (reader == "job-trace-csv")
    {
        source = "input.csv";
        ReadJobTraceText(text, source, JobSpec{});
        return true;
    }
    source = InputPath();
    {
        std::ofstream out(source, std::ios::binary | std::ios::trunc);
        out << text;
    }
    if (reader == "hpcc-topology")
    {
        ReadHpccTopology(source);
    }
    else if (reader == "hpcc-flows")
    {
        ReadHpccFlows(source, 64);
    }
    else if (reader == "hpcc-config")
    {
        MapHpccConfig(ReadHpccConfig(source), false);
    }
    else if (reader == "lingjun-topology")
    {
        ReadLingjunTopology(source, LingjunParams{});
    }
    else
    {
        throw std::logic_error("no reader " + reader);
    }
    return true;
}

/// For a fuzz target: read the input; the reader's own errors are fine.
inline void
FuzzOne(const std::string& reader, const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string source;
    try
    {
        ReadInput(reader, text, source);
    }
    catch (const std::runtime_error&)
    {
    }
    catch (const std::invalid_argument&)
    {
    }
}

} // namespace fuzz
} // namespace ns3

#endif /* READER_INPUTS_H */
