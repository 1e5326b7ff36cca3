/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_READER_H
#define SCENARIO_READER_H

#include "scenario-spec.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Read a JSON scenario file (format: doc/scenario-format.md).
 *
 * Every key must be known; values must have the documented type (rates and
 * times as strings such as "100Gbps" and "1us", byte counts and counts as
 * integers) and lie in the documented range; a key may appear only once.
 * Relative input paths (topology.path, jobTrace) are resolved against the
 * directory of \p path.
 *
 * \param path the scenario file
 * \return the scenario, with source = path and lines filled
 * \throw std::runtime_error "path:line: field: message" for the first
 *        problem found, e.g. "s.json:14: jobs[2].modle: unknown key (known:
 *        id, model, ...)"; "path:line: syntax error ..." for malformed JSON;
 *        "path: cannot open" for a file that cannot be read
 */
ScenarioSpec ReadScenarioFile(const std::string& path);

/**
 * Read a scenario from JSON text; as ReadScenarioFile, with \p sourceName
 * in messages and as the base for relative paths and the default name.
 *
 * \param text the JSON text
 * \param sourceName the name used in error messages (normally a file path)
 * \return the scenario
 * \throw std::runtime_error as ReadScenarioFile
 */
ScenarioSpec ReadScenarioText(const std::string& text, const std::string& sourceName);

/**
 * Parse a time string: a non-negative decimal number (optional fraction and
 * exponent) and one of ns-3's units s, ms, us, ns, ps, fs, min, h, d, as in
 * "1us", "2.5ms", "1e-3s". The value must be a whole number of nanoseconds.
 *
 * \param text the time string
 * \return the time in nanoseconds
 * \throw std::invalid_argument whose what() says what is wrong (without the value)
 */
int64_t ParseTimeNs(const std::string& text);

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

} // namespace ns3

#endif /* SCENARIO_READER_H */
