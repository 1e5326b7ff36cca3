/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef INPUT_LIMITS_H
#define INPUT_LIMITS_H

#include "job-spec.h"
#include "scenario-spec.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Budgets an input is checked against before anything is allocated for
 * it, so that a huge count is an error naming the input, not a machine out
 * of memory. The limits are the attributes of ns3::InputLimits
 * (MaxFabricElements, MaxJobMemory), whose defaults fit a 24 GB machine;
 * set them with --ns3::InputLimits::MaxJobMemory=... (or
 * Config::SetDefault) to go further. Estimates are in doubles, so no
 * product of counts can wrap.
 */
namespace InputLimits
{

/**
 * Hosts, switches and links of \p topology, estimated by its builder from
 * its parameters (TopologyBuilder::Estimate; 0 for a topology read from a
 * file, which is bounded by the file's size).
 * \throw std::invalid_argument for an unknown kind
 */
double FabricElements(const ScenarioSpec::Topology& topology);

/**
 * Memory the job \p spec takes in a run, estimated: every worker's queue
 * pairs (one per channel) and per-bucket state, the job's own, and an LLM
 * job's graph (its ops, estimated from the layout before it is built).
 */
double JobBytes(const JobSpec& spec);

/// \throw std::invalid_argument saying that \p elements is over MaxFabricElements
void CheckFabric(double elements);

/// \throw std::invalid_argument saying that \p bytes (JobBytes summed) is over MaxJobMemory
void CheckJobs(double bytes);

} // namespace InputLimits

} // namespace ns3

#endif /* INPUT_LIMITS_H */
