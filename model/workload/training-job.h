/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_JOB_H
#define TRAINING_JOB_H

#include "collective-transport.h"
#include "collective.h"
#include "job-spec.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <string>
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
 *
 * If the transport gives up on a message of a collective (its queue pair
 * moved to the error state, as NCCL then aborts the communicator), the job
 * fails: it records where and why (GetFailure), fires JobFailed, and issues
 * no more work.
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

    /// Where and why the job failed.
    struct Failure
    {
        uint32_t iteration{0};     ///< the iteration of the collective that failed
        uint32_t bucket{0};        ///< the collective (gradient bucket) that failed
        CollectiveMessage message; ///< the message the transport gave up on
        std::string reason;        ///< the transport's reason
        Time when;                 ///< when the transport gave up
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

    /// When Start was called (0 before).
    Time GetStartTime() const
    {
        return m_startTime;
    }

    /// Whether Start has been called.
    bool HasStarted() const
    {
        return m_started;
    }

    Time GetEndTime() const
    {
        return m_endTime;
    }

    bool IsDone() const
    {
        return m_done;
    }

    /// Whether a collective failed; the job then stopped.
    bool IsFailed() const
    {
        return m_failed;
    }

    /// Where and why the job failed; meaningful only if IsFailed().
    const Failure& GetFailure() const
    {
        return m_failure;
    }

    /// Trace signature: job id, iteration, bucket.
    typedef void (*CollectiveCallback)(uint32_t job, uint32_t iteration, uint32_t bucket);
    /// Trace signature: job id, record.
    typedef void (*IterationCallback)(uint32_t job, const IterationRecord& record);
    /// Trace signature: job id.
    typedef void (*JobCallback)(uint32_t job);
    /// Trace signature: job id, where and why it failed.
    typedef void (*FailureCallback)(uint32_t job, const Failure& failure);

  protected:
    void DoDispose() override;

  private:
    void StartIteration();
    void BucketReady(uint32_t bucket);
    void StartBucket(uint32_t bucket);
    void BucketDone(uint32_t bucket);
    /// A message of bucket \p bucket's collective in iteration \p iteration failed.
    void BucketFailed(uint32_t iteration,
                      uint32_t bucket,
                      const CollectiveMessage& m,
                      const std::string& reason);

    JobSpec m_spec;
    Time m_computeTime;
    uint64_t m_gradientBytes{0};
    CollectiveTransport* m_transport{nullptr};
    std::vector<Ptr<Collective>> m_collectives; ///< one per bucket
    std::vector<uint64_t> m_bucketBytes;
    std::vector<bool> m_bucketReady;
    std::vector<EventId> m_readyEvents; ///< this iteration's BucketReady events
    uint32_t m_iteration{0};
    uint32_t m_nextBucket{0}; ///< next bucket to start
    bool m_streamBusy{false}; ///< a collective is running
    IterationRecord m_current;
    std::vector<IterationRecord> m_records;
    Time m_startTime;
    Time m_endTime;
    bool m_started{false};
    bool m_done{false};
    bool m_failed{false};
    Failure m_failure;

    TracedCallback<uint32_t, uint32_t, uint32_t> m_readyTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_startedTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_doneTrace;
    TracedCallback<uint32_t, const IterationRecord&> m_iterationTrace;
    TracedCallback<uint32_t> m_jobDoneTrace;
    TracedCallback<uint32_t, const Failure&> m_jobFailedTrace;
};

} // namespace ns3

#endif /* TRAINING_JOB_H */
