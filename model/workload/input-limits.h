/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef INPUT_LIMITS_H
#define INPUT_LIMITS_H

#include "job-graph.h"
#include "job-spec.h"
#include "scenario-spec.h"

#include <string>
#include <utility>
#include <vector>

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

/**
 * \throw std::invalid_argument saying that \p rows, the samples monitors
 * would write (ports or queue pairs x samples), are over MaxMonitorRows
 */
void CheckMonitorRows(double rows);

/// MaxMonitorRows: what a monitor that cannot be budgeted before the run counts against.
uint64_t MaxMonitorRows();

/**
 * \brief The limits a scenario's own "attributes" set (for example
 * "ns3::InputLimits::MaxJobMemory"), in force while an object of this class
 * lives: the reader checks the scenario's counts against them as it reads
 * it, before the run's attribute defaults are set, so a scenario's limit
 * and the same flag act alike. Entries for other types are not looked at.
 */
class Scope
{
  public:
    /**
     * \param attributes a scenario's (name, value) pairs, in file order
     * \throw std::invalid_argument naming the attribute for an InputLimits
     *        value that is not a positive integer, or an unknown one
     */
    explicit Scope(const std::vector<std::pair<std::string, std::string>>& attributes);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

  private:
    std::vector<std::pair<std::string, uint64_t>> m_previous; ///< overrides before this one
};

} // namespace InputLimits

/**
 * \brief Checks of a job's graph once it is built and scaled, before it runs:
 * every time counted in the clock's unit after everything that multiplies
 * it (per op, per iteration, per run of \p iterations), every byte count
 * against kMaxByteCount.
 * \throw std::range_error naming the op and what is out of range
 */
void CheckGraphRange(const JobGraph& graph, uint32_t iterations);

} // namespace ns3

#endif /* INPUT_LIMITS_H */
