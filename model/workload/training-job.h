/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_JOB_H
#define TRAINING_JOB_H

#include "collective-transport.h"
#include "collective.h"
#include "job-spec.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One data-parallel training job: iterations of compute then
 * gradient collectives, on ranks already placed on hosts.
 *
 * An iteration computes for C (forward C/3, backward 2C/3). Gradients are
 * split into B buckets; bucket b is ready when its share of the backward
 * pass is done, at start + C/3 + (b+1)/B x 2C/3, and its collective starts
 * when it is ready and the previous bucket's collective is done (one
 * communication stream, as PyTorch DDP over NCCL). With B = 1 the single
 * collective starts when compute ends. The next iteration starts when the
 * last collective is done.
 */
class TrainingJob : public Object
{
  public:
    /// What happened in one iteration.
    struct IterationRecord
    {
        uint32_t iteration{0};
        Time computeStart;
        Time commReady; ///< first bucket ready (compute done when B = 1)
        Time commStart; ///< first collective started
        Time commEnd;   ///< last collective done
    };

    static TypeId GetTypeId();
    TrainingJob();

    /**
     * \param spec the job
     * \param computeTime compute time of one iteration
     * \param gradientBytes bytes all-reduced per iteration
     * \param transport carries the collectives' messages between ranks
     */
    void Setup(const JobSpec& spec,
               Time computeTime,
               uint64_t gradientBytes,
               CollectiveTransport* transport);

    /// Start the first iteration now.
    void Start();

    uint32_t GetId() const
    {
        return m_spec.id;
    }

    const JobSpec& GetSpec() const
    {
        return m_spec;
    }

    Time GetComputeTime() const
    {
        return m_computeTime;
    }

    uint64_t GetGradientBytes() const
    {
        return m_gradientBytes;
    }

    const std::vector<IterationRecord>& GetIterations() const
    {
        return m_records;
    }

    Time GetStartTime() const
    {
        return m_startTime;
    }

    Time GetEndTime() const
    {
        return m_endTime;
    }

    bool IsDone() const
    {
        return m_done;
    }

    /// Trace signature: job id, iteration, bucket.
    typedef void (*CollectiveCallback)(uint32_t job, uint32_t iteration, uint32_t bucket);
    /// Trace signature: job id, record.
    typedef void (*IterationCallback)(uint32_t job, const IterationRecord& record);
    /// Trace signature: job id.
    typedef void (*JobCallback)(uint32_t job);

  protected:
    void DoDispose() override;

  private:
    void StartIteration();
    void BucketReady(uint32_t bucket);
    void StartBucket(uint32_t bucket);
    void BucketDone(uint32_t bucket);

    JobSpec m_spec;
    Time m_computeTime;
    uint64_t m_gradientBytes{0};
    CollectiveTransport* m_transport{nullptr};
    std::vector<Ptr<Collective>> m_collectives; ///< one per bucket
    std::vector<uint64_t> m_bucketBytes;
    std::vector<bool> m_bucketReady;
    uint32_t m_iteration{0};
    uint32_t m_nextBucket{0}; ///< next bucket to start
    bool m_streamBusy{false}; ///< a collective is running
    IterationRecord m_current;
    std::vector<IterationRecord> m_records;
    Time m_startTime;
    Time m_endTime;
    bool m_done{false};

    TracedCallback<uint32_t, uint32_t, uint32_t> m_readyTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_startedTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_doneTrace;
    TracedCallback<uint32_t, const IterationRecord&> m_iterationTrace;
    TracedCallback<uint32_t> m_jobDoneTrace;
};

} // namespace ns3

#endif /* TRAINING_JOB_H */
