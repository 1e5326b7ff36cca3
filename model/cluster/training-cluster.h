/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_CLUSTER_H
#define TRAINING_CLUSTER_H

#include "ns3/cluster-network.h"
#include "ns3/collective-transport.h"
#include "ns3/data-rate.h"
#include "ns3/job-placement.h"
#include "ns3/nvswitch.h"
#include "ns3/training-job.h"

#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * NVLink between two GPUs of one server, through its NVSwitch (NvSwitch): a
 * message alone takes the latency plus its bytes at the rate; messages that
 * share a GPU's port share its rate. TrainingCluster's NvlinkGeneration,
 * NvlinkRate and NvlinkLatency give it; the defaults here are theirs.
 */
struct NvlinkSpeed
{
    /**
     * One hop's latency, GPU -> NVSwitch or NVSwitch -> GPU, by default: a
     * message crosses two. 500 ns a hop keeps the 1 us a message this
     * module has always used (NCCL's intra-node step is microseconds; the
     * wire alone is tens of nanoseconds, as SimAI's topology files give).
     */
    static constexpr int64_t kHopLatencyNs = 500;
    /// Hops of an NVLink message: GPU -> NVSwitch -> GPU.
    static constexpr int64_t kHops = 2;

    DataRate rate{DataRate("2400Gbps")};              ///< one direction; A100 NVLink3: 300 GB/s
    Time latency{NanoSeconds(kHops * kHopLatencyNs)}; ///< of a message, both hops
    /// Messages share the GPUs' ports (NvSwitch's Contention).
    bool contention{true};
};

/**
 * \ingroup collective-scheduling
 * \brief A multi-tenant GPU cluster on a network (ClusterNetwork: the
 * packet-level RoCE fabric or the flow level): jobs arrive, are
 * placed on free GPUs (first come, first served; a job that does not fit
 * waits for GPUs to free up), run their iterations and leave.
 *
 * A job whose collective fails (TrainingJob's JobFailed) leaves too, as a
 * crashed job does: its GPUs are freed and JobFailed fires. Whoever runs the
 * simulation decides whether the run goes on (ScenarioRunner stops it).
 */
class TrainingCluster : public Object
{
  public:
    /// One job's life in the cluster.
    struct JobEntry
    {
        JobSpec spec;
        Ptr<TrainingJob> job; ///< null until the job starts
        Placement placement;
        JobGraph graph;            ///< one iteration (ModelCatalog::Graph)
        Time computeTime;          ///< per iteration, on the busiest rank
        uint64_t gradientBytes{0}; ///< per rank, reduced among data-parallel replicas
        /// a NetworkCollectiveTransport over the cluster's network
        std::unique_ptr<CollectiveTransport> transport;
        /// per rank, its GPU in the cluster's NvSwitch numbering (empty until it starts)
        std::vector<uint32_t> rankGpus;
    };

    static TypeId GetTypeId();
    TrainingCluster();
    ~TrainingCluster() override;

    /**
     * \param network the network the jobs share, at either level
     * \param gpusPerHost GPUs of every host
     */
    void Setup(Ptr<ClusterNetwork> network, uint32_t gpusPerHost);

    /**
     * Add a job; it arrives at spec.arrivalNs.
     * \throw std::invalid_argument if the spec is invalid or the job can never fit
     */
    void AddJob(const JobSpec& spec);

    const std::vector<std::unique_ptr<JobEntry>>& GetJobs() const
    {
        return m_jobs;
    }

    std::size_t GetFinishedJobs() const
    {
        return m_finished;
    }

    /// Jobs that failed (TrainingJob::IsFailed); each has its failure in its TrainingJob.
    std::size_t GetFailedJobs() const
    {
        return m_failed;
    }

    /// The network the jobs share.
    Ptr<ClusterNetwork> GetNetwork() const
    {
        return m_network;
    }

    uint32_t GetGpusPerHost() const
    {
        return m_gpusPerHost;
    }

    /**
     * The NVLink its jobs' messages inside a server use: NvlinkRate if set,
     * else NvlinkGeneration's rate; NvlinkLatency if set (0 or more, its
     * default value of 1 us included), else the topology's
     * (SetTopologyNvlinkLatency) if given, else NvlinkSpeed's 1 us.
     */
    NvlinkSpeed GetNvlink() const;

    /**
     * The latency of an NVLink message that the cluster's topology gives
     * (e.g. a SimAI file's GPU -> NVSwitch and NVSwitch -> GPU links): used
     * unless NvlinkLatency is set. Before the first job starts.
     */
    void SetTopologyNvlinkLatency(Time latency);

    /// The servers' NVSwitches, which carry every job's messages inside a server.
    Ptr<NvSwitch> GetNvSwitch() const
    {
        return m_nvswitch;
    }

    /**
     * Picks one of a job's candidate placements: an index into them. Asked
     * for jobs whose spec leaves placement to the scheduler ("scheduler").
     */
    using PlacementChooser =
        std::function<std::size_t(const JobEntry& entry, const std::vector<Placement>& candidates)>;

    /// Who picks placements for jobs of placement "scheduler" (none: they are packed).
    void SetPlacementChooser(PlacementChooser chooser);

    /// Trace signature: job id.
    typedef void (*JobCallback)(uint32_t job);
    /// Trace signature: job id, where and why it failed.
    typedef void (*JobFailureCallback)(uint32_t job, const TrainingJob::Failure& failure);

  protected:
    void DoDispose() override;

  private:
    void Arrive(std::size_t index);
    void TryStartWaiting();
    void StartJob(std::size_t index);
    /**
     * An LLM job placed by a policy: order each server's GPUs among its ranks
     * by the switch their NIC hangs off (its rail), so that tensor rank t is
     * on the same rail in every server. Explicit hosts are kept as given.
     */
    void AlignRanksWithRails(const JobSpec& spec, std::vector<uint32_t>& hosts) const;
    /**
     * Mark the collectives of a placed job's graph that its scheduler plans
     * (JobSpec::planned): data-parallel ones if listed, tensor and expert
     * ones if listed and their members span more than one scheduling rack.
     */
    void MarkPlanned(JobEntry& entry) const;
    void JobFinished(std::size_t index);
    static void JobDoneThunk(TrainingCluster* self, std::size_t index, uint32_t job);
    void JobFailed(std::size_t index);
    static void JobFailedThunk(TrainingCluster* self,
                               std::size_t index,
                               uint32_t job,
                               const TrainingJob::Failure& failure);

    Ptr<ClusterNetwork> m_network;
    uint32_t m_gpusPerHost{1};
    uint32_t m_gpusPerServer{1}; ///< GPUs of the largest server (NVLink domain)
    std::unique_ptr<ClusterSlots> m_slots;
    std::vector<std::unique_ptr<JobEntry>> m_jobs;
    std::deque<std::size_t> m_waiting;
    std::size_t m_finished{0};
    std::size_t m_failed{0};
    /// GPUs of job \p e's ranks, each a free one of its host; marked used.
    std::vector<uint32_t> TakeGpus(const JobEntry& e);
    /// Mark job \p e's GPUs free again.
    void GiveGpus(JobEntry& e);

    int m_nvlinkGeneration{0};        ///< a NvlinkGeneration (an int for EnumValue)
    DataRate m_nvlinkRate;            ///< 0: the generation's
    Time m_nvlinkLatency;             ///< of a message; negative: not set
    Time m_topologyNvlinkLatency{-1}; ///< negative: none given
    Ptr<NvSwitch> m_nvswitch;
    std::vector<uint8_t> m_gpuUsed; ///< per GPU (host x gpusPerHost + GPU of the host)
    uint64_t m_placementSeed{1};
    PlacementChooser m_chooser;

    TracedCallback<uint32_t> m_arrivedTrace;
    TracedCallback<uint32_t> m_startedTrace;
    TracedCallback<uint32_t> m_doneTrace;
    TracedCallback<uint32_t, const TrainingJob::Failure&> m_failedTrace;
};

} // namespace ns3

#endif /* TRAINING_CLUSTER_H */
