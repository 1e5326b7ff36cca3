/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flag-checks.h"

#include "checked-attributes.h"
#include "collective-scheduler-helper.h"

#include "ns3/collective-scheduler.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/roce-header.h"
#include "ns3/short-name-registry.h"
#include "ns3/string.h"
#include "ns3/unit-strings.h"

#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>

namespace ns3
{

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
    std::smatch m;
    if (!std::regex_match(value, m, form))
    {
        throw FlagError(flag, value, "expected a non-negative time such as 1us");
    }
    // Checked before ns-3 converts it: a later time would wrap negative.
    static const std::map<std::string, double> seconds{{"", 1},
                                                       {"s", 1},
                                                       {"ms", 1e-3},
                                                       {"us", 1e-6},
                                                       {"ns", 1e-9},
                                                       {"ps", 1e-12},
                                                       {"fs", 1e-15},
                                                       {"min", 60},
                                                       {"h", 3600},
                                                       {"d", 86400}};
    const double number = std::strtod(value.c_str(), nullptr);
    RequireFlag(number * seconds.at(m[2].str()) <= kMaxSimulatedTimeNs * 1e-9,
                flag,
                value,
                kTimeRangeError);
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
        try
        {
            std::string name;
            std::string value;
            if (CheckFlagArgument(cmd, argv[i], name, value))
            {
                continue;
            }
            if (name.find("::") != std::string::npos)
            {
                // An attribute: set and restored at once, only the check is wanted here.
                ScopedConfigDefaults probe;
                probe.Set(name, value, "--" + name);
                if (name.rfind("ns3::", 0) == 0 &&
                    std::string(argv[i]).find('=') != std::string::npos)
                {
                    MutableCommandLineAttributes().insert(name);
                }
                continue;
            }
            StringValue global;
            if (GlobalValue::GetValueByNameFailSafe(name, global))
            {
                RequireFlag(Config::SetGlobalFailSafe(name, StringValue(value)),
                            name,
                            value,
                            "is not a valid value of ns-3's global value " + name);
                continue;
            }
            throw std::invalid_argument(std::string(argv[i]) + ": unknown flag (see --help)");
        }
        catch (const std::invalid_argument& e)
        {
            std::cerr << example << ": error: " << e.what() << std::endl;
            std::exit(2);
        }
    }
    // Only ns-3's own options (help) and attributes are left for it to act on.
    cmd.Parse(argc, argv);
}

} // namespace ns3
