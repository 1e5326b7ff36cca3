/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flag-checks.h"

#include "checked-attributes.h"
#include "collective-scheduler-helper.h"

#include "ns3/collective-scheduler.h"
#include "ns3/roce-header.h"
#include "ns3/short-name-registry.h"

#include <cstdlib>
#include <iostream>
#include <limits>
#include <regex>
#include <sstream>

namespace ns3
{

FlagError::FlagError(const std::string& flag, const std::string& value, const std::string& why)
    : std::invalid_argument("--" + flag + "=" + value + ": " + why)
{
}

DataRate
ParseRateFlag(const std::string& flag, const std::string& value)
{
    std::istringstream is(value);
    DataRate rate;
    is >> rate;
    if (is.fail() || rate.GetBitRate() == 0)
    {
        throw FlagError(flag, value, "expected a positive rate such as 100Gbps");
    }
    return rate;
}

Time
ParseTimeFlag(const std::string& flag, const std::string& value)
{
    // ns-3's Time parser aborts on garbage, so check the form first.
    static const std::regex form(
        R"(^\s*[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?\s*(s|ms|us|ns|ps|fs|min|h|d)?\s*$)");
    if (!std::regex_match(value, form))
    {
        throw FlagError(flag, value, "expected a non-negative time such as 1us");
    }
    return Time(value);
}

void
RequireFlag(bool ok, const std::string& flag, const std::string& value, const std::string& why)
{
    if (!ok)
    {
        throw FlagError(flag, value, why);
    }
}

void
RequireMtuFlag(uint32_t mtu)
{
    RequireFlag(RoceWire::IsPathMtu(mtu), "mtu", std::to_string(mtu), RoceWire::kPathMtus);
}

std::vector<std::string>
ParseSchedulerListFlag(const std::string& flag, const std::string& value)
{
    if (value == "all")
    {
        return CollectiveSchedulerHelper::GetSchedulerNames();
    }
    std::vector<std::string> names;
    std::stringstream list(value);
    for (std::string name; std::getline(list, name, ',');)
    {
        RequireFlag(!CollectiveSchedulerHelper::FindScheduler(name).empty(),
                    flag,
                    value,
                    "names an unknown scheduler '" + name + "' (known: " +
                        ShortNameRegistry::ListNames(CollectiveScheduler::GetTypeId()) + ")");
        names.push_back(name);
    }
    RequireFlag(!names.empty(), flag, value, "must name at least one scheduler");
    return names;
}

void
RequireCountFlag(const std::string& flag, int64_t value, int64_t min)
{
    RequireFlag(value >= min && value <= std::numeric_limits<uint32_t>::max(),
                flag,
                std::to_string(value),
                "must be an integer from " + std::to_string(min) + " to " +
                    std::to_string(std::numeric_limits<uint32_t>::max()));
}

namespace
{
std::set<std::string>&
MutableCommandLineAttributes()
{
    static std::set<std::string> paths;
    return paths;
}
} // namespace

const std::set<std::string>&
CommandLineAttributes()
{
    return MutableCommandLineAttributes();
}

void
ParseExampleCommandLine(CommandLine& cmd, int argc, char* argv[], const std::string& example)
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const std::string::size_type eq = arg.find('=');
        if (arg.rfind("--ns3::", 0) != 0 || eq == std::string::npos)
        {
            continue; // ns-3 reads the rest (a flag alone is a boolean)
        }
        const std::string path = arg.substr(2, eq - 2);
        const std::string value = arg.substr(eq + 1);
        try
        {
            // Set and restored at once: only the check is wanted here.
            ScopedConfigDefaults probe;
            probe.Set(path, value, "--" + path);
        }
        catch (const std::invalid_argument& e)
        {
            std::cerr << example << ": error: " << e.what() << std::endl;
            std::exit(2);
        }
        MutableCommandLineAttributes().insert(path);
    }
    cmd.Parse(argc, argv);
}

} // namespace ns3
