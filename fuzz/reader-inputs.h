/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef READER_INPUTS_H
#define READER_INPUTS_H

// One entry point per input reader, shared by the fuzz targets and the
// regression test that replays their corpora: read one input, and tell a
// success from an error the reader reported. Anything else (a crash, an
// abort, an exception of another kind) is a bug the caller sees.

#include "ns3/chakra-trace-decode.h"
#include "ns3/hpcc-config-reader.h"
#include "ns3/hpcc-flow-reader.h"
#include "ns3/hpcc-topology-reader.h"
#include "ns3/input-limits.h"
#include "ns3/job-trace-reader.h"
#include "ns3/lingjun-topology-reader.h"
#include "ns3/results-database.h"
#include "ns3/scenario-reader.h"
#include "ns3/simai-workload-reader.h"
#include "ns3/strict-flags.h"

#include <cstdio>
#include <fstream>
#include <sstream>
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
                                                   "lingjun-topology",
                                                   "flags",
                                                   "results-db",
                                                   "simai-workload",
                                                   "chakra-comm-groups"};
    return names;
}

/// Ranks of the job a chakra-comm-groups input is read for.
constexpr uint32_t kCommGroupsRanks = 16;

/// The readers that take a path get the input in this file (one per process).
inline std::string
InputPath()
{
    return "/tmp/cs-fuzz-input-" + std::to_string(getpid()) + ".txt";
}

/**
 * Read each line of \p text as a command-line argument "--LINE" of a
 * command line with a flag of every type, as the examples read theirs.
 * \throw std::invalid_argument naming the argument ("--...")
 */
inline void
ReadFlags(const std::string& text)
{
    uint32_t count = 0;
    uint64_t bytes = 0;
    int64_t signedCount = 0;
    double scale = 0;
    bool pfc = false;
    std::string cc;
    std::string db;
    CommandLine cmd;
    AddFlag(cmd, "count", "", count);
    AddFlag(cmd, "bytes", "", bytes);
    AddFlag(cmd, "k", "", signedCount);
    AddFlag(cmd, "scale", "", scale);
    AddFlag(cmd, "pfc", "", pfc);
    AddFlag(cmd, "cc", "", cc);
    AddFlag(cmd, "db", "", db, EmptyFlag::MeansNone);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
    {
        std::string name;
        std::string value;
        if (!CheckFlagArgument(cmd, "--" + line, name, value))
        {
            throw std::invalid_argument("--" + line + ": unknown flag");
        }
    }
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
    if (reader == "simai-workload")
    {
        source = "input.txt";
        // As the examples read it: at picosecond resolution (set first in
        // their main()), and here under a lower memory budget, so that a
        // graph that is slow or large within it is a finding.
        if (Time::GetResolution() != Time::PS)
        {
            Time::SetResolution(Time::PS);
        }
        InputLimits::Scope limits({{"ns3::InputLimits::MaxJobMemory", std::to_string(64u << 20)}});
        ReadSimaiWorkloadText(text, source);
        return true;
    }
    if (reader == "chakra-comm-groups")
    {
        // The communicator-group JSON of a Chakra trace (a scenario's
        // workload.commGroups), read for a job of kCommGroupsRanks ranks.
        source = "groups.json";
        chakra::ReadCommGroups(text, source, kCommGroupsRanks);
        return true;
    }
    if (reader == "flags")
    {
        source = "--";
        ReadFlags(text);
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
    else if (reader == "results-db")
    {
        // The opener must take a results file (or an empty one) and refuse
        // anything else with an error, whatever the bytes.
        Ptr<ResultsDatabase> db = CreateObject<ResultsDatabase>();
        const std::string path = source;
        source = "ResultsDatabase";
        db->Open(path);
        db->Close();
        std::remove((path + "-wal").c_str());
        std::remove((path + "-shm").c_str());
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
