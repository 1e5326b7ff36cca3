/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RUN_NETWORK_H
#define RUN_NETWORK_H

#include "fabric-faults.h"
#include "run-records.h"
#include "scenario-helper.h"
#include "simulation-run.h"

#include "ns3/cluster-network.h"
#include "ns3/link-sampler.h"
#include "ns3/port-monitor.h"

#include <functional>
#include <memory>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief A run's network at the level its scenario chose ("backend"), with
 * what the run's bookkeeping needs of that level: its records, faults,
 * link sampling and summary. The level is chosen here, once
 * (MakeRunNetwork); everything that runs on the network sees only the
 * ClusterNetwork.
 */
class RunNetwork
{
  public:
    virtual ~RunNetwork() = default;

    /// The network the cluster runs on.
    virtual Ptr<ClusterNetwork> GetNetwork() const = 0;

    /**
     * Before the run: stream the flows rows into \p run, install \p faults
     * (the spec's), \p sampler and \p monitor (its rows streamed into \p run
     * too) on the level's fabric, and stop the run once \p workRemains says
     * no more where the engine would not stop by itself. The flow level's
     * fabric has no frames or queues to sample: there the two sample only
     * the NVSwitch ports the run gave them.
     * \throw std::runtime_error, naming the spec's field, for what the level
     *        cannot do
     */
    virtual void Instrument(SimulationRun& run,
                            FabricFaults& faults,
                            LinkSampler& sampler,
                            PortMonitor& monitor,
                            std::function<bool()> workRemains) = 0;

    /// The flows and links rows (after Instrument).
    virtual const RunRecords& GetRecords() const = 0;

    /// After Simulator::Run: combine what the level counted (over ranks).
    virtual void AfterRun()
    {
    }

    /// The level's lines of the run's report.
    virtual void PrintSummary(std::ostream& out, const FabricFaults& faults) const = 0;
};

/**
 * Whether a run of \p spec samples packets by default (ns3::LinkSampler and
 * ns3::PortMonitor at their default intervals): at the packet level, on one
 * process. Elsewhere the default is dropped and an interval asked for refused.
 */
bool SamplesPacketsByDefault(const ScenarioSpec& spec);

/**
 * The network of \p scenario's spec on \p topology, at the spec's level:
 * the packet-level RoCE fabric of \p fabricHelper (random streams fixed
 * from 0), or the flow-level model, with \p cc (what the NICs would run)
 * turned into the flow level's weights (MLTCP's F).
 * \throw std::runtime_error, naming the spec's field, for a level that
 *        cannot run as asked
 */
std::unique_ptr<RunNetwork> MakeRunNetwork(const ScenarioSpec& spec,
                                           const ScenarioHelper& scenario,
                                           const FabricTopology& topology,
                                           const RoceFabricHelper& fabricHelper,
                                           const std::string& cc);

} // namespace ns3

#endif /* RUN_NETWORK_H */
