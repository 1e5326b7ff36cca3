/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STRICT_FLAGS_H
#define STRICT_FLAGS_H

#include "ns3/command-line.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief A command-line flag with an impossible value; what() names the
 * flag, its value (as the command line gave it, when it did) and why.
 */
class FlagError : public std::invalid_argument
{
  public:
    FlagError(const std::string& flag, const std::string& value, const std::string& why);
};

/// Whether a string flag given as --name= (nothing after '=') is accepted.
enum class EmptyFlag
{
    Refused,  ///< an empty value is an error (the flag needs a value)
    MeansNone ///< an empty value is documented ("empty: none") and accepted
};

/**
 * \ingroup collective-scheduling
 * Add flag --\p name to \p cmd, read strictly by CheckFlagArgument: the
 * whole value must parse (ParseUnsignedText, ParseSignedText,
 * ParseRealText, ParseBoolText), a negative value is an error for an
 * unsigned variable, and a bad value is a FlagError naming the flag and the
 * value as given, never a prefix read or a wrapped number. A boolean flag
 * given alone (--pfc) is true.
 */
void AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, uint32_t& value);
/// \copydoc AddFlag(CommandLine&,const std::string&,const std::string&,uint32_t&)
void AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, uint64_t& value);
/// \copydoc AddFlag(CommandLine&,const std::string&,const std::string&,uint32_t&)
void AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, int64_t& value);
/// \copydoc AddFlag(CommandLine&,const std::string&,const std::string&,uint32_t&)
void AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, double& value);
/// \copydoc AddFlag(CommandLine&,const std::string&,const std::string&,uint32_t&)
void AddFlag(CommandLine& cmd, const std::string& name, const std::string& help, bool& value);
/// A string flag; an empty value is an error unless \p empty is MeansNone.
void AddFlag(CommandLine& cmd,
             const std::string& name,
             const std::string& help,
             std::string& value,
             EmptyFlag empty = EmptyFlag::Refused);

/**
 * Read one command-line argument \p arg of \p cmd: a flag added with
 * AddFlag is parsed into its variable, and one of ns-3's own options
 * (--help, --PrintAttributes=...) is left for CommandLine::Parse.
 * \param name out: the argument's name (without dashes)
 * \param value out: its value (empty without '=')
 * \return false if \p arg is neither (an attribute, a global value, or unknown)
 * \throw std::invalid_argument naming the argument as given: not a flag
 *        (no leading dash), or a value its flag does not read as a whole
 */
bool CheckFlagArgument(const CommandLine& cmd,
                       const std::string& arg,
                       std::string& name,
                       std::string& value);

/**
 * \return whether flag --\p name was on the command line read by
 * CheckFlagArgument, even with an empty value: "--db=" says "no database",
 * which a default left alone does not.
 */
bool FlagWasGiven(const std::string& name);

} // namespace ns3

#endif /* STRICT_FLAGS_H */
