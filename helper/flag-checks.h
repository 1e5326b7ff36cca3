/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLAG_CHECKS_H
#define FLAG_CHECKS_H

#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/strict-flags.h"

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/// Parse an ns-3 rate string ("100Gbps") given to --\p flag; throws FlagError.
DataRate ParseRateFlag(const std::string& flag, const std::string& value);
/// Parse an ns-3 time string ("1us") given to --\p flag; throws FlagError.
Time ParseTimeFlag(const std::string& flag, const std::string& value);
/// Throw FlagError(flag, value, why) unless \p ok.
void RequireFlag(bool ok,
                 const std::string& flag,
                 const std::string& value,
                 const std::string& why);

/**
 * Throw FlagError unless the count given to --\p flag is an integer from
 * \p min to 2^32 - 1. Counts are read signed, so that a negative value is
 * reported instead of wrapping to a huge unsigned one.
 */
void RequireCountFlag(const std::string& flag, int64_t value, int64_t min);

/// The schedulers named in --\p flag, a comma-separated list, or every one
/// the module has for "all"; throws FlagError naming an unknown one.
std::vector<std::string> ParseSchedulerListFlag(const std::string& flag, const std::string& value);

/// Throw FlagError for --mtu unless \p mtu is a RoCE path MTU (256-4096, powers of two).
void RequireMtuFlag(uint32_t mtu);

/**
 * Run \p f, which configures something from --\p flag; an invalid_argument
 * it throws becomes a FlagError naming the flag and \p value.
 */
template <typename F>
void
ApplyFlag(const std::string& flag, const std::string& value, F f)
{
    try
    {
        f();
    }
    catch (const FlagError&)
    {
        throw;
    }
    catch (const std::invalid_argument& e)
    {
        throw FlagError(flag, value, e.what());
    }
}

/**
 * \ingroup collective-scheduling
 * Parse the example's command line. Every argument must be a flag added
 * with AddFlag, an attribute or global value of ns-3, or one of ns-3's own
 * (--help, --PrintAttributes=...): anything else, a value a flag does not
 * read as a whole, or an empty value, prints "<example>: error: --flag=value:
 * why" and exits with status 2 (bad input), where ns-3 would exit with 1. Attribute flags
 * (--ns3::Type::Attribute=value) are first checked as Config::SetDefault
 * would take them: a value the attribute rejects, or a type or attribute
 * that does not exist, prints "<example>: error: --ns3::Type::Attribute:
 * ..." and exits with status 2, where ns-3 would end the process (134) or
 * print its help (1).
 */
void ParseExampleCommandLine(CommandLine& cmd, int argc, char* argv[], const std::string& example);

/**
 * \ingroup collective-scheduling
 * \return the attributes ("ns3::Type::Attribute") whose defaults the
 * command line set through ParseExampleCommandLine. A scenario's fabric key
 * that sets the same attribute steps aside for them (ScenarioHelper), so
 * that such a flag is never silently overridden.
 */
const std::set<std::string>& CommandLineAttributes();

} // namespace ns3

#endif /* FLAG_CHECKS_H */
