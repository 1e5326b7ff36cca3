/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STRICT_NUMBERS_H
#define STRICT_NUMBERS_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * The one way the module reads a number from text (command-line flags and
 * file fields). The whole text must be the number: no white space, no sign
 * where none is allowed, nothing after it. What is wrong goes into the
 * what() of a std::invalid_argument, without the text, which the caller
 * shows with the flag or field it came from.
 */

/**
 * An integer in [\p min, \p max]: decimal digits with an optional fraction
 * and exponent, as long as the value is whole ("1e6" is 1000000, "2.5e1" is
 * 25, "1.5" is an error). A minus sign is an error ("must not be negative").
 */
uint64_t ParseUnsignedText(const std::string& text, uint64_t min, uint64_t max);

/// As ParseUnsignedText, for a signed integer in [\p min, \p max].
int64_t ParseSignedText(const std::string& text, int64_t min, int64_t max);

/// A finite real number (no nan, no infinity, no hexadecimal form).
double ParseRealText(const std::string& text);

/// A boolean: true, t or 1; false, f or 0 (the forms ns-3 reads).
bool ParseBoolText(const std::string& text);

} // namespace ns3

#endif /* STRICT_NUMBERS_H */
