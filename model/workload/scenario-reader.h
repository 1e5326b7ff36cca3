/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_READER_H
#define SCENARIO_READER_H

#include "located-json.h" // ParseTimeNs, ParseRateBps: part of this API
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
 * The keys of a scenario's topology object as Markdown, generated from the
 * registered TopologyBuilder classes: a table of the topology object's own
 * keys and one of each kind's block (key, type, default, meaning). It is
 * the generated part of doc/scenario-format.md's "topology" section, which
 * test/topology-family-test.cc keeps equal to it.
 */
std::string ScenarioTopologyKeysDoc();

} // namespace ns3

#endif /* SCENARIO_READER_H */
