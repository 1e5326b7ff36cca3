/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CSV_FIELDS_H
#define CSV_FIELDS_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Throw std::runtime_error "source:line: field: what", the form every input
 * file reader of the module reports errors in.
 */
[[noreturn]] void ThrowInputError(const std::string& source,
                                  uint32_t line,
                                  const std::string& field,
                                  const std::string& what);

/// \p s without leading and trailing white space.
std::string TrimSpace(const std::string& s);

/// The comma-separated fields of \p line (no quoting), each trimmed.
std::vector<std::string> SplitCsvLine(const std::string& line);

} // namespace ns3

#endif /* CSV_FIELDS_H */
