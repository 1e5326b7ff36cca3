/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_HELPER_H
#define SCENARIO_HELPER_H

#include "checked-attributes.h"
#include "hpcc-network-config.h"
#include "roce-fabric-helper.h"

#include "ns3/flow-network.h"
#include "ns3/scenario-spec.h"
#include "ns3/training-cluster.h"

#include <map>
#include <optional>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Turns a ScenarioSpec (read from a scenario file, or filled from an
 * example's flags) into the pieces of a run. Every error names the
 * scenario file, line and field where the spec came from a file.
 */
class ScenarioHelper
{
  public:
    /**
     * \throw std::runtime_error naming fabric.hpccConfig and the config's
     *        line when that file is wrong, or naming a fabric key the file
     *        gives beside it
     */
    explicit ScenarioHelper(const ScenarioSpec& spec);

    /// The network settings of fabric.hpccConfig; null without one.
    const HpccNetworkConfig* GetHpccConfig() const
    {
        return m_hpcc ? &*m_hpcc : nullptr;
    }

    /**
     * What of fabric.hpccConfig does not apply: keys the module does not
     * model, and keys that name a flow-file run's files, stop time or
     * failures, for which the scenario has its own; empty if none.
     */
    std::string DescribeHpccConfigLeftOut() const;

    /// The fabric's congestion control: fabric.cc, or fabric.hpccConfig's DCQCN.
    std::string GetFabricCc() const;

    /**
     * Set the default of every "attributes" entry (checked: an error names
     * the file, line and field), and the run's seed.
     * \return the defaults set, restored when it is destroyed: keep it for the run
     */
    ScopedConfigDefaults ApplyGlobals() const;
    /// The topology the spec names.
    FabricTopology BuildTopology() const;
    /**
     * A fabric helper configured with the spec's fabric parameters, each
     * checked against its attribute. A fabric key and an "attributes" entry
     * for the same attribute are an error; an entry alone takes the place
     * of the key's default.
     */
    RoceFabricHelper MakeFabricHelper() const;
    /**
     * The flow-level model of \p topology with the spec's fabric parameters
     * that apply to it (MTU, ACK interval, ECMP seed; one record per message
     * if output.flowRows).
     */
    Ptr<FlowNetwork> MakeFlowNetwork(const FabricTopology& topology) const;
    /**
     * Every job of the run: the listed jobs, then the job trace's, then the
     * synthetic ones (numbered after the largest listed id), each with the
     * run's scale applied and validated against the model catalog.
     */
    std::vector<JobSpec> CollectJobs() const;

    /**
     * Add \p jobs (from CollectJobs, or some of them) to \p cluster; a job
     * the cluster refuses (it can never fit, a duplicate id) is reported at
     * its place.
     */
    void AddJobs(TrainingCluster& cluster, const std::vector<JobSpec>& jobs) const;

  private:
    /**
     * Whether fabric key \p key steps aside for a default of \p attribute
     * set elsewhere: in the scenario's "attributes" or on the command line
     * (CommandLineAttributes). \throw std::runtime_error naming both places
     * when the file gives the key too.
     */
    bool KeyStepsAside(const std::string& key, const std::string& attribute) const;

    /// Fabric key \p key's value for unsigned \p attribute: \p own, or the
    /// attribute's current default where the key steps aside.
    uint32_t FabricUint(const std::string& key, const std::string& attribute, uint32_t own) const;

    /// Where job \p index of CollectJobs() came from, for error messages.
    std::string JobLocation(std::size_t index, uint32_t id) const;

    const ScenarioSpec& m_spec;
    std::optional<HpccNetworkConfig> m_hpcc;
    mutable std::size_t m_listed{0};                     ///< jobs listed in the spec
    mutable std::size_t m_listedOrTraced{0};             ///< ... plus those of the job trace
    mutable std::map<uint32_t, std::size_t> m_indexOfId; ///< job id -> index in CollectJobs()
};

} // namespace ns3

#endif /* SCENARIO_HELPER_H */
