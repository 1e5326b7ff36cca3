/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_CLUSTER_H
#define TRAINING_CLUSTER_H

#include "ns3/cluster-network.h"
#include "ns3/collective-transport.h"
#include "ns3/data-rate.h"
#include "ns3/job-placement.h"
#include "ns3/training-job.h"

#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * NVLink between two GPUs of one server: each message takes the latency plus
 * its bytes at the rate, without contention (TrainingCluster's NvlinkRate
 * and NvlinkLatency, whose defaults these are).
 */
struct NvlinkSpeed
{
    DataRate rate{DataRate("2400Gbps")}; ///< one direction; A100 NVLink3: 300 GB/s
    Time latency{MicroSeconds(1)};
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

    /// The NVLink model its jobs' messages inside a server use.
    NvlinkSpeed GetNvlink() const
    {
        return NvlinkSpeed{m_nvlinkRate, m_nvlinkLatency};
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
    DataRate m_nvlinkRate;
    Time m_nvlinkLatency;
    uint64_t m_placementSeed{1};
    PlacementChooser m_chooser;

    TracedCallback<uint32_t> m_arrivedTrace;
    TracedCallback<uint32_t> m_startedTrace;
    TracedCallback<uint32_t> m_doneTrace;
    TracedCallback<uint32_t, const TrainingJob::Failure&> m_failedTrace;
};

} // namespace ns3

#endif /* TRAINING_CLUSTER_H */
