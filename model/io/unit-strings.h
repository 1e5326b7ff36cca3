/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef UNIT_STRINGS_H
#define UNIT_STRINGS_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Read the digits of a decimal number at \p s[\p pos], with an optional
 * fraction ("12.50"; no sign, no exponent): append them to \p digits, lower
 * \p exp10 by one per fraction digit and move \p pos past them. The one
 * scanner of the number readers (ParseRateBps, ParseTimeNs, the strict
 * integer reader).
 * \return whether any digit was read
 */
bool ScanDecimalDigits(const std::string& s, size_t& pos, std::string& digits, int64_t& exp10);

/**
 * The latest time the simulator can represent, in nanoseconds: ns-3 keeps
 * a time as a signed 64-bit count of its resolution unit, picoseconds by
 * default, so 2^63 ps (about 106.75 days). A later time would wrap
 * negative.
 */
constexpr int64_t kMaxSimulatedTimeNs = INT64_MAX / 1000;

/// What ParseTimeNs says of a time beyond kMaxSimulatedTimeNs.
extern const char* const kTimeRangeError;

/**
 * The most bytes one message, collective buffer or job may count, wherever
 * the count comes from (a flag, a scenario key, a workload file, a job's
 * scale): far below 2^64, so that sums of them cannot wrap.
 */
constexpr uint64_t kMaxByteCount = 1000000000000000000ull;

/**
 * Parse a time string: a non-negative decimal number (optional fraction and
 * exponent) and one of ns-3's units s, ms, us, ns, ps, fs, min, h, d, as in
 * "1us", "2.5ms", "1e-3s". The value must be a whole number of nanoseconds,
 * no later than kMaxSimulatedTimeNs.
 *
 * \param text the time string
 * \return the time in nanoseconds
 * \throw std::invalid_argument whose what() says what is wrong (without the value)
 */
int64_t ParseTimeNs(const std::string& text);

/**
 * As ParseTimeNs, in picoseconds (ns-3's default resolution): a whole number
 * of them, up to 2^63 - 1. Every time attribute a flag, a scenario or a
 * configuration file sets is read by it, whatever its notation ("1e30s" is
 * out of range, not a wrapped value).
 */
int64_t ParseTimePs(const std::string& text);

/**
 * Parse a rate string as ns-3's DataRate does: a non-negative decimal
 * number and a unit made of an optional prefix (k or K = 10^3, M = 10^6,
 * G = 10^9, T = 10^12, Ki = 2^10, Mi = 2^20, Gi = 2^30, Ti = 2^40) and bps
 * or b/s (bits) or Bps or B/s (bytes), as in "100Gbps", "12.5GBps". The
 * value must be a whole number of bits per second.
 *
 * \param text the rate string
 * \return the rate in bits per second
 * \throw std::invalid_argument whose what() says what is wrong (without the value)
 */
uint64_t ParseRateBps(const std::string& text);

/**
 * \ingroup collective-scheduling
 * A real number as messages and LP files show it: 15 significant digits, so
 * that it reads back as the same double in all but the last bits.
 */
std::string FormatReal(double value);

} // namespace ns3

#endif /* UNIT_STRINGS_H */
