/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "run-network.h"

#include "fabric-idle-stop.h"
#include "flow-network-records.h"
#include "roce-flow-monitor.h"

#include "ns3/distributed-simulation.h"
#include "ns3/double.h"
#include "ns3/flow-network.h"
#include "ns3/mltcp-dcqcn.h"
#include "ns3/nstime.h"

#include <stdexcept>

namespace ns3
{

namespace
{

/// Where the run cannot sample packets: the samplers' default intervals are
/// dropped (sampling is on by default only where it can be); with \p refuse,
/// an interval asked for is refused with that message.
void
DropDefaultSampling(LinkSampler& sampler, PortMonitor& monitor, const char* refuse = nullptr)
{
    if (refuse != nullptr && ((sampler.IsEnabled() && !sampler.IsDefault()) ||
                              (monitor.IsEnabled() && !monitor.IsDefault())))
    {
        throw std::runtime_error(refuse);
    }
    if (sampler.IsDefault())
    {
        sampler.SetAttribute("Interval", TimeValue(Time(0)));
    }
    if (monitor.IsDefault())
    {
        monitor.SetAttribute("Interval", TimeValue(Time(0)));
    }
}

/// The packet level: NICs, queue pairs and switches (RoceFabric).
class PacketRunNetwork : public RunNetwork
{
  public:
    PacketRunNetwork(const ScenarioSpec& spec, Ptr<RoceFabric> fabric)
        : m_spec(spec),
          m_fabric(fabric)
    {
    }

    Ptr<ClusterNetwork> GetNetwork() const override
    {
        return m_fabric;
    }

    void Instrument(SimulationRun& run,
                    FabricFaults& faults,
                    LinkSampler& sampler,
                    PortMonitor& monitor,
                    std::function<bool()> workRemains) override
    {
        m_monitor = std::make_unique<RoceFlowMonitor>(m_fabric);
        run.StreamFlows(*m_monitor, m_spec.output.flowRows);
        faults.Install(m_fabric, m_spec.faults);
        if (DistributedSize() > 1)
        {
            DropDefaultSampling(sampler,
                                monitor,
                                "link sampling (ns3::LinkSampler::Interval) and port "
                                "monitors (ns3::PortMonitor::Interval) are not combined "
                                "across MPI ranks: turn them off for a distributed run");
        }
        sampler.Install(m_fabric);
        monitor.Install(m_fabric, run.GetDatabase(), run.GetRunId(), workRemains);
        // The null-message engine never runs out of events.
        StopWhenFabricIdle(m_fabric, std::move(workRemains));
    }

    const RunRecords& GetRecords() const override
    {
        return *m_monitor;
    }

    void AfterRun() override
    {
        m_monitor->Combine();
    }

    void PrintSummary(std::ostream& out, const FabricFaults& faults) const override
    {
        m_monitor->PrintSummary(out);
        faults.PrintSummary(out);
    }

  private:
    const ScenarioSpec& m_spec;
    Ptr<RoceFabric> m_fabric;
    std::unique_ptr<RoceFlowMonitor> m_monitor;
};

/// The flow level: fluid flows on the same topology and routes (FlowNetwork).
class FlowRunNetwork : public RunNetwork
{
  public:
    FlowRunNetwork(const ScenarioSpec& spec, Ptr<FlowNetwork> network)
        : m_spec(spec),
          m_network(network),
          m_records(network)
    {
    }

    Ptr<ClusterNetwork> GetNetwork() const override
    {
        return m_network;
    }

    void Instrument(SimulationRun& run,
                    FabricFaults& /* faults */,
                    LinkSampler& sampler,
                    PortMonitor& monitor,
                    std::function<bool()> workRemains) override
    {
        if (!m_spec.faults.empty())
        {
            throw std::runtime_error(m_spec.Where("faults") + ": faults need the packet backend");
        }
        run.StreamFlows(m_records, m_spec.output.flowRows);
        // The fabric has no frames, queues or pauses here: the monitors see
        // the NVSwitches' ports only (given to them by the run), and only
        // when asked for. The default sampling is for packets: on a cluster
        // of thousands of GPUs, every port every millisecond would outgrow
        // InputLimits::MaxMonitorRows.
        DropDefaultSampling(sampler, monitor);
        monitor.Install(nullptr, run.GetDatabase(), run.GetRunId(), std::move(workRemains));
    }

    const RunRecords& GetRecords() const override
    {
        return m_records;
    }

    void PrintSummary(std::ostream& out, const FabricFaults& /* faults */) const override
    {
        out << "flow level: " << m_network->GetMessagesDelivered() << " of "
            << m_network->GetMessagesPosted() << " messages delivered, "
            << m_network->GetRecomputations() << " rate recomputations over "
            << m_network->GetFlowsSolved() << " flows\n";
    }

  private:
    const ScenarioSpec& m_spec;
    Ptr<FlowNetwork> m_network;
    FlowNetworkRecords m_records;
};

/// MLTCP's lever is its congestion control: the flow level weighs flows by its F instead.
void
WeighAsCongestionControl(FlowNetwork& network, const std::string& cc)
{
    const ObjectFactory factory = RoceFabricHelper::ParseCongestionControl(cc);
    if (factory.GetTypeId() != MltcpDcqcn::GetTypeId())
    {
        return;
    }
    Ptr<MltcpDcqcn> mltcp = factory.Create<MltcpDcqcn>();
    DoubleValue slope;
    DoubleValue intercept;
    mltcp->GetAttribute("Slope", slope);
    mltcp->GetAttribute("Intercept", intercept);
    network.SetMltcp(slope.Get(), intercept.Get());
}

} // namespace

bool
SamplesPacketsByDefault(const ScenarioSpec& spec)
{
    return spec.backend == "packet" && DistributedSize() == 1;
}

std::unique_ptr<RunNetwork>
MakeRunNetwork(const ScenarioSpec& spec,
               const ScenarioHelper& scenario,
               const FabricTopology& topology,
               const RoceFabricHelper& fabricHelper,
               const std::string& cc)
{
    if (spec.backend == "flow")
    {
        if (DistributedSize() > 1)
        {
            throw std::runtime_error(
                spec.Where("backend") +
                ": the flow backend runs in one process: launch it without mpirun");
        }
        Ptr<FlowNetwork> network = scenario.MakeFlowNetwork(topology);
        WeighAsCongestionControl(*network, cc);
        return std::make_unique<FlowRunNetwork>(spec, network);
    }
    Ptr<RoceFabric> fabric;
    if (const HpccNetworkConfig* hpcc = scenario.GetHpccConfig())
    {
        // Its ECN thresholds by port rate, and its loss rate on every link.
        try
        {
            hpcc->CheckEcnMaps(topology, [](uint32_t l) { return "link " + std::to_string(l); });
            const double lossRate = hpcc->GetMapping().config.errorRatePerLink.value_or(0.0);
            fabric =
                hpcc->Install(fabricHelper, topology, [lossRate](uint32_t) { return lossRate; });
        }
        catch (const std::runtime_error& e)
        {
            throw std::runtime_error(spec.Where("fabric.hpccConfig") + ": " + e.what());
        }
    }
    else
    {
        fabric = fabricHelper.Install(topology);
        fabric->AssignStreams(0);
    }
    return std::make_unique<PacketRunNetwork>(spec, fabric);
}

} // namespace ns3
