/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "strict-flags.h"

#include "strict-numbers.h"

#include "ns3/callback.h"

#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

/// The values of the flags given on the command line, as given.
std::map<std::string, std::string>&
GivenFlagValues()
{
    static std::map<std::string, std::string> values;
    return values;
}

/// A flag added with AddFlag: how its value is read.
struct StrictFlag
{
    bool isBool{false};
    bool emptyMeansNone{false};
    std::function<void(const std::string&)> parse; ///< throws std::invalid_argument
};

/// The flags added with AddFlag, per command line.
std::map<const CommandLine*, std::map<std::string, StrictFlag>>&
StrictFlags()
{
    static std::map<const CommandLine*, std::map<std::string, StrictFlag>> flags;
    return flags;
}

/// CheckFlagArgument has read the value already; ns-3 only lists the flag in --help.
bool
AlreadyParsed(std::string /* value */)
{
    return true;
}

void
Register(CommandLine& cmd,
         const std::string& name,
         const std::string& help,
         const std::string& defaultText,
         StrictFlag flag)
{
    cmd.AddValue(name, help, MakeCallback(&AlreadyParsed), defaultText);
    StrictFlags()[&cmd][name] = std::move(flag);
}

/// ns-3's own options, which CommandLine::Parse acts on (and exits).
bool
IsNs3Option(const std::string& name)
{
    static const std::set<std::string> names{"help",
                                             "PrintHelp",
                                             "version",
                                             "PrintVersion",
                                             "PrintGroups",
                                             "PrintTypeIds",
                                             "PrintGlobals",
                                             "PrintGroup",
                                             "PrintAttributes"};
    return names.count(name) > 0;
}

} // namespace

FlagError::FlagError(const std::string& flag, const std::string& value, const std::string& why)
    // A number checked after it was read (--senders=-3, --bytes=1e6) is shown as given.
    : std::invalid_argument(
          "--" + flag + "=" +
          (GivenFlagValues().count(flag) > 0 ? GivenFlagValues().at(flag) : value) + ": " + why)
{
}

void
AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, uint32_t& value)
{
    uint32_t* v = &value;
    Register(cmd,
             name,
             help,
             std::to_string(value),
             {false, false, [v](const std::string& t) {
                  *v = static_cast<uint32_t>(
                      ParseUnsignedText(t, 0, std::numeric_limits<uint32_t>::max()));
              }});
}

void
AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, uint64_t& value)
{
    uint64_t* v = &value;
    Register(cmd, name, help, std::to_string(value), {false, false, [v](const std::string& t) {
                                                          *v = ParseUnsignedText(
                                                              t,
                                                              0,
                                                              std::numeric_limits<uint64_t>::max());
                                                      }});
}

void
AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, int64_t& value)
{
    int64_t* v = &value;
    Register(cmd, name, help, std::to_string(value), {false, false, [v](const std::string& t) {
                                                          *v = ParseSignedText(
                                                              t,
                                                              std::numeric_limits<int64_t>::min(),
                                                              std::numeric_limits<int64_t>::max());
                                                      }});
}

void
AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, double& value)
{
    double* v = &value;
    std::ostringstream text;
    text << value;
    Register(cmd, name, help, text.str(), {false, false, [v](const std::string& t) {
                                               *v = ParseRealText(t);
                                           }});
}

void
AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, bool& value)
{
    bool* v = &value;
    Register(cmd, name, help, value ? "true" : "false", {true, false, [v](const std::string& t) {
                                                             *v = ParseBoolText(t);
                                                         }});
}

void
AddFlag(CommandLine& cmd,
        const std::string& name,
        const std::string& help,
        std::string& value,
        EmptyFlag empty)
{
    std::string* v = &value;
    Register(cmd,
             name,
             help,
             value,
             {false, empty == EmptyFlag::MeansNone, [v](const std::string& t) { *v = t; }});
}

bool
FlagWasGiven(const std::string& name)
{
    return GivenFlagValues().count(name) > 0;
}

bool
CheckFlagArgument(const CommandLine& cmd,
                  const std::string& arg,
                  std::string& name,
                  std::string& value)
{
    std::string body;
    if (arg.rfind("--", 0) == 0)
    {
        body = arg.substr(2);
    }
    else if (arg.rfind('-', 0) == 0)
    {
        body = arg.substr(1);
    }
    else
    {
        throw std::invalid_argument("'" + arg + "': unexpected argument (flags are --name=value)");
    }
    const std::string::size_type eq = body.find('=');
    const bool hasValue = eq != std::string::npos;
    name = body.substr(0, eq);
    value = hasValue ? body.substr(eq + 1) : "";
    if (IsNs3Option(name))
    {
        return true;
    }
    const std::map<std::string, StrictFlag>& flags = StrictFlags()[&cmd];
    auto it = flags.find(name);
    if (it == flags.end())
    {
        return false;
    }
    const StrictFlag& flag = it->second;
    GivenFlagValues()[name] = value;
    if (!hasValue && flag.isBool)
    {
        flag.parse("true"); // a boolean flag alone sets it
        return true;
    }
    if (value.empty() && !flag.emptyMeansNone)
    {
        throw FlagError(name, value, "needs a value");
    }
    try
    {
        flag.parse(value);
    }
    catch (const std::invalid_argument& e)
    {
        throw FlagError(name, value, e.what());
    }
    return true;
}

} // namespace ns3
