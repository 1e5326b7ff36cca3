/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_TOPOLOGY_READER_H
#define SCENARIO_TOPOLOGY_READER_H

#include "located-json.h"
#include "scenario-spec.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Read a scenario's topology section \p n into \p t: its kind, gpusPerHost,
 * path and the kinds' blocks, each key as its TopologyBuilder declares it
 * (ScenarioTopologyKeysDoc documents them from the same declarations).
 * \throw std::runtime_error naming the line and field of a bad value
 */
void ReadScenarioTopology(const LocatedJson& w,
                          const LocatedJson::Node& n,
                          ScenarioSpec::Topology& t);

} // namespace ns3

#endif /* SCENARIO_TOPOLOGY_READER_H */
