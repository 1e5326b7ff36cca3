/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-cluster.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/model-catalog.h"
#include "ns3/network-collective-transport.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingCluster");
NS_OBJECT_ENSURE_REGISTERED(TrainingCluster);

TypeId
TrainingCluster::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingCluster")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<TrainingCluster>()
            .AddAttribute("NvlinkGeneration",
                          "The GPUs' NVLink, which gives each GPU's NVSwitch ports their rate "
                          "(one direction): a100 (NVLink3, 300 GB/s), h100 and h200 (NVLink4, "
                          "450 GB/s), b200 (NVLink5, 900 GB/s). NvlinkRate overrides it.",
                          EnumValue(static_cast<int>(NvlinkGeneration::A100)),
                          MakeEnumAccessor(&TrainingCluster::m_nvlinkGeneration),
                          MakeEnumChecker(static_cast<int>(NvlinkGeneration::A100),
                                          "a100",
                                          static_cast<int>(NvlinkGeneration::H100),
                                          "h100",
                                          static_cast<int>(NvlinkGeneration::H200),
                                          "h200",
                                          static_cast<int>(NvlinkGeneration::B200),
                                          "b200"))
            .AddAttribute("NvlinkRate",
                          "Rate of each GPU's NVSwitch port, one direction, in place of "
                          "NvlinkGeneration's; 0: NvlinkGeneration's.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&TrainingCluster::m_nvlinkRate),
                          MakeDataRateChecker())
            .AddAttribute("NvlinkLatency",
                          "Latency of a message between two GPUs of one server (two hops, GPU "
                          "-> NVSwitch -> GPU). -1ns, the default: the topology's NVLink "
                          "latency where it gives one (a SimAI topology file), else 1us (500 "
                          "ns a hop). Any value from 0 up is used as given, 1us included.",
                          TimeValue(NanoSeconds(-1)),
                          MakeTimeAccessor(&TrainingCluster::m_nvlinkLatency),
                          MakeTimeChecker(NanoSeconds(-1)))
            .AddAttribute("PlacementSeed",
                          "Seed of random placement.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingCluster::m_placementSeed),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("JobArrived",
                            "A job arrived (args: job id).",
                            MakeTraceSourceAccessor(&TrainingCluster::m_arrivedTrace),
                            "ns3::TrainingCluster::JobCallback")
            .AddTraceSource("JobStarted",
                            "A job was placed and started (its TrainingJob now exists).",
                            MakeTraceSourceAccessor(&TrainingCluster::m_startedTrace),
                            "ns3::TrainingCluster::JobCallback")
            .AddTraceSource("JobDone",
                            "A job finished its last iteration and freed its GPUs.",
                            MakeTraceSourceAccessor(&TrainingCluster::m_doneTrace),
                            "ns3::TrainingCluster::JobCallback")
            .AddTraceSource("JobFailed",
                            "A job's collective failed; the job stopped and freed its GPUs "
                            "(args: job id, failure).",
                            MakeTraceSourceAccessor(&TrainingCluster::m_failedTrace),
                            "ns3::TrainingCluster::JobFailureCallback");
    return tid;
}

TrainingCluster::TrainingCluster() = default;

TrainingCluster::~TrainingCluster() = default;

void
TrainingCluster::DoDispose()
{
    for (auto& e : m_jobs)
    {
        if (e->job)
        {
            e->job->Dispose();
        }
    }
    m_jobs.clear();
    m_network = nullptr;
    if (m_nvswitch)
    {
        m_nvswitch->Dispose();
        m_nvswitch = nullptr;
    }
    Object::DoDispose();
}

void
TrainingCluster::Setup(Ptr<ClusterNetwork> network, uint32_t gpusPerHost)
{
    m_network = network;
    m_gpusPerHost = gpusPerHost;
    m_slots = std::make_unique<ClusterSlots>(network->GetTopology(), gpusPerHost);
    // The largest NVLink domain: hosts of one server (a rail-optimized
    // server's GPUs each have a host) or one host's GPUs.
    const FabricTopology& topo = network->GetTopology();
    std::map<int64_t, uint32_t> hostsOf;
    m_gpusPerServer = gpusPerHost;
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        m_gpusPerServer = std::max(m_gpusPerServer, ++hostsOf[topo.GetServerKey(h)] * gpusPerHost);
    }
    m_nvswitch = CreateObject<NvSwitch>();
    m_nvswitch->Setup(topo, gpusPerHost);
    m_gpuUsed.assign(static_cast<std::size_t>(topo.GetNHosts()) * gpusPerHost, 0);
}

NvlinkSpeed
TrainingCluster::GetNvlink() const
{
    NvlinkSpeed s;
    s.rate = m_nvlinkRate.GetBitRate() > 0
                 ? m_nvlinkRate
                 : NvlinkGenerationRate(static_cast<NvlinkGeneration>(m_nvlinkGeneration));
    // Set (0 or more) wins; unset (negative) takes the topology's, else the default.
    if (!m_nvlinkLatency.IsStrictlyNegative())
    {
        s.latency = m_nvlinkLatency;
    }
    else if (!m_topologyNvlinkLatency.IsStrictlyNegative())
    {
        s.latency = m_topologyNvlinkLatency;
    }
    if (m_nvswitch)
    {
        BooleanValue contention;
        m_nvswitch->GetAttribute("Contention", contention);
        s.contention = contention.Get();
    }
    return s;
}

void
TrainingCluster::SetTopologyNvlinkLatency(Time latency)
{
    NS_ABORT_MSG_IF(latency.IsStrictlyNegative(), "a negative NVLink latency");
    m_topologyNvlinkLatency = latency;
}

std::vector<uint32_t>
TrainingCluster::TakeGpus(const JobEntry& e)
{
    std::vector<uint32_t> gpus;
    gpus.reserve(e.placement.workerHost.size());
    for (uint32_t h : e.placement.workerHost)
    {
        uint32_t g = h * m_gpusPerHost;
        const uint32_t end = g + m_gpusPerHost;
        while (g < end && m_gpuUsed.at(g))
        {
            ++g;
        }
        NS_ABORT_MSG_IF(g == end, "job " << e.spec.id << ": host " << h << " has no free GPU left");
        m_gpuUsed[g] = 1;
        gpus.push_back(g);
    }
    return gpus;
}

void
TrainingCluster::GiveGpus(JobEntry& e)
{
    for (uint32_t g : e.rankGpus)
    {
        m_gpuUsed.at(g) = 0;
    }
    e.rankGpus.clear();
}

void
TrainingCluster::AddJob(const JobSpec& spec)
{
    NS_ABORT_MSG_UNLESS(m_slots, "TrainingCluster::Setup first");
    ModelCatalog::Validate(spec);
    const uint64_t perHost = std::min(spec.gpusPerHost, m_gpusPerHost);
    if (spec.workers > perHost * m_slots->GetNHosts())
    {
        throw std::invalid_argument(
            "job " + std::to_string(spec.id) + ": " + std::to_string(spec.workers) +
            " workers can never fit: the cluster has " + std::to_string(m_slots->GetNHosts()) +
            " hosts x " + std::to_string(perHost) + " GPUs usable");
    }
    if (ModelCatalog::IsLlm(spec) && spec.parallelism.tp > m_gpusPerServer)
    {
        throw std::invalid_argument("job " + std::to_string(spec.id) +
                                    ": parallelism.tp: " + std::to_string(spec.parallelism.tp) +
                                    " is larger than a server of this cluster (" +
                                    std::to_string(m_gpusPerServer) +
                                    " GPUs): tensor parallelism stays on NVLink");
    }
    for (const auto& e : m_jobs)
    {
        if (e->spec.id == spec.id)
        {
            throw std::invalid_argument("job id " + std::to_string(spec.id) + " used twice");
        }
    }
    // Here, not when the job arrives, so that the error can name the input.
    for (uint32_t h : spec.placement == "explicit" ? spec.hosts : std::vector<uint32_t>{})
    {
        if (h >= m_slots->GetNHosts())
        {
            throw std::invalid_argument("job " + std::to_string(spec.id) + ": hosts: host " +
                                        std::to_string(h) + " does not exist (the cluster has " +
                                        std::to_string(m_slots->GetNHosts()) + " hosts)");
        }
    }
    auto entry = std::make_unique<JobEntry>();
    entry->spec = spec;
    entry->graph = ModelCatalog::Graph(spec);
    entry->computeTime = entry->graph.GetComputeTimePerRank();
    entry->gradientBytes = entry->graph.GetBytes(CommGroup::Data);
    m_jobs.push_back(std::move(entry));
    const std::size_t index = m_jobs.size() - 1;
    Simulator::Schedule(NanoSeconds(spec.arrivalNs) - Simulator::Now(),
                        &TrainingCluster::Arrive,
                        this,
                        index);
}

void
TrainingCluster::SetPlacementChooser(PlacementChooser chooser)
{
    m_chooser = std::move(chooser);
}

void
TrainingCluster::Arrive(std::size_t index)
{
    m_arrivedTrace(m_jobs[index]->spec.id);
    m_waiting.push_back(index);
    TryStartWaiting();
}

void
TrainingCluster::TryStartWaiting()
{
    // First come, first served: the head waits until it fits.
    while (!m_waiting.empty())
    {
        JobEntry& e = *m_jobs[m_waiting.front()];
        try
        {
            if (e.spec.placement == "scheduler" && m_chooser)
            {
                std::vector<Placement> candidates =
                    CandidatePlacements(e.spec, *m_slots, m_placementSeed);
                for (Placement& c : candidates)
                {
                    AlignRanksWithRails(e.spec, c.workerHost);
                }
                const std::size_t pick = m_chooser(e, candidates);
                NS_ABORT_MSG_IF(pick >= candidates.size(),
                                "the placement chooser picked candidate " << pick << " of "
                                                                          << candidates.size());
                JobSpec chosen = e.spec;
                chosen.placement = "explicit";
                chosen.hosts = candidates[pick].workerHost;
                e.placement = Place(chosen, *m_slots, m_placementSeed);
            }
            else
            {
                e.placement = Place(e.spec, *m_slots, m_placementSeed);
                AlignRanksWithRails(e.spec, e.placement.workerHost);
            }
        }
        catch (const std::runtime_error& err)
        {
            NS_LOG_INFO("job " << e.spec.id << " waits: " << err.what());
            return;
        }
        std::size_t index = m_waiting.front();
        m_waiting.pop_front();
        StartJob(index);
    }
}

void
TrainingCluster::AlignRanksWithRails(const JobSpec& spec, std::vector<uint32_t>& hosts) const
{
    if (!(ModelCatalog::IsLlm(spec) || spec.workload.IsSet()) || spec.placement == "explicit")
    {
        return;
    }
    // Within each server's run of ranks, its NICs in the order of the switch
    // each hangs off: tensor rank t then sits on the same rail in every
    // server, where Megatron's rank order puts its data-parallel peers.
    const FabricTopology& topo = m_network->GetTopology();
    auto rail = [&topo](uint32_t host) {
        const uint32_t node = topo.GetHosts().at(host);
        return topo.GetPeer(node, topo.AdjacentLinks(node).at(0));
    };
    for (std::size_t first = 0; first < hosts.size();)
    {
        std::size_t end = first + 1;
        while (end < hosts.size() && topo.SameServer(hosts[first], hosts[end]))
        {
            ++end;
        }
        std::stable_sort(hosts.begin() + first,
                         hosts.begin() + end,
                         [&rail](uint32_t a, uint32_t b) { return rail(a) < rail(b); });
        first = end;
    }
}

void
TrainingCluster::MarkPlanned(JobEntry& entry) const
{
    const std::vector<CommGroup>& groups = entry.spec.planned;
    if (groups.size() == 1 && groups[0] == CommGroup::Data)
    {
        return; // as the graph was built
    }
    const FabricTopology& topo = m_network->GetTopology();
    const std::vector<uint32_t>& hosts = entry.placement.workerHost;
    entry.graph.SetPlanned([&](const GraphOp& op) {
        if (std::find(groups.begin(), groups.end(), op.group) == groups.end())
        {
            return false;
        }
        if (op.group == CommGroup::Data)
        {
            return true;
        }
        const int32_t rack = topo.GetSchedulingRack(hosts.at(op.ranks[0]));
        for (uint32_t r : op.ranks)
        {
            if (rack < 0 || topo.GetSchedulingRack(hosts.at(r)) != rack)
            {
                return true;
            }
        }
        return false;
    });
}

void
TrainingCluster::StartJob(std::size_t index)
{
    JobEntry& e = *m_jobs[index];
    MarkPlanned(e);
    m_network->AddJob(e.spec.id, e.placement.workerHost);
    e.rankGpus = TakeGpus(e);
    // Attributes are final once a job runs; every job sees the same switch.
    const NvlinkSpeed nvlink = GetNvlink();
    m_nvswitch->SetPortRate(nvlink.rate);
    m_nvswitch->SetLatency(nvlink.latency);
    auto transport = std::make_unique<NetworkCollectiveTransport>(m_network,
                                                                  e.placement.workerHost,
                                                                  e.spec.id,
                                                                  3,
                                                                  m_nvswitch,
                                                                  e.rankGpus);
    // A scenario run at a fraction of its size scales its jobs' own latencies too.
    transport->SetLatencyScale(e.spec.latencyScale);
    e.transport = std::move(transport);
    e.job = CreateObject<TrainingJob>();
    e.job->Setup(e.spec, e.graph, e.transport.get());
    e.job->TraceConnectWithoutContext(
        "JobDone",
        MakeBoundCallback(&TrainingCluster::JobDoneThunk, this, index));
    e.job->TraceConnectWithoutContext(
        "JobFailed",
        MakeBoundCallback(&TrainingCluster::JobFailedThunk, this, index));
    m_startedTrace(e.spec.id);
    e.job->Start();
}

void
TrainingCluster::JobDoneThunk(TrainingCluster* self, std::size_t index, uint32_t /* job */)
{
    self->JobFinished(index);
}

void
TrainingCluster::JobFailedThunk(TrainingCluster* self,
                                std::size_t index,
                                uint32_t /* job */,
                                const TrainingJob::Failure& /* failure */)
{
    self->JobFailed(index);
}

void
TrainingCluster::JobFailed(std::size_t index)
{
    JobEntry& e = *m_jobs[index];
    ++m_failed;
    NS_LOG_INFO("job " << e.spec.id << " failed: " << e.job->GetFailure().reason);
    m_failedTrace(e.spec.id, e.job->GetFailure());
    if (e.job->IsDone())
    {
        return; // it failed after its last iteration: its GPUs are already free
    }
    Release(e.placement, *m_slots);
    GiveGpus(e);
    TryStartWaiting();
}

void
TrainingCluster::JobFinished(std::size_t index)
{
    Release(m_jobs[index]->placement, *m_slots);
    GiveGpus(*m_jobs[index]);
    ++m_finished;
    m_doneTrace(m_jobs[index]->spec.id);
    TryStartWaiting();
}

} // namespace ns3
