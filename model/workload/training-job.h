/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_JOB_H
#define TRAINING_JOB_H

#include "collective-transport.h"
#include "collective.h"
#include "iteration-time-account.h"
#include "job-graph.h"
#include "job-spec.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One training job: iterations of a JobGraph (compute, collectives
 * on groups of ranks and point-to-point transfers, with their dependencies
 * and streams), on ranks already placed on hosts.
 * An op is ready when the ops it depends on are done, and starts when it is
 * ready and every earlier op of its stream is done. An iteration ends when
 * every op is done; the next starts then. A data-parallel job
 * (JobGraph::DataParallel) computes for C (forward C/3, backward 2C/3 in B
 * slices); bucket b's collective is ready when its slice is done and runs
 * on one communication stream, as PyTorch DDP over NCCL.
 * If the transport gives up on a message of a communication op (its queue
 * pair moved to the error state, as NCCL then aborts the communicator), the
 * job fails: it records where and why (GetFailure), fires JobFailed, and
 * issues no more work.
 */
class TrainingJob : public Object
{
  public:
    /// What happened in one iteration.
    struct IterationRecord
    {
        uint32_t iteration{0};
        Time computeStart;  ///< the iteration started
        Time commReady;     ///< first communication op ready
        Time commStart;     ///< first communication op started
        Time commEnd;       ///< last communication op done
        Time end;           ///< the iteration ended
        IterationTime time; ///< where its time went
    };

    /// Where and why the job failed.
    struct Failure
    {
        uint32_t iteration{0};     ///< the iteration of the op that failed
        uint32_t commOp{0};        ///< the communication op (GraphOp::commIndex; a DP bucket)
        CollectiveMessage message; ///< the message the transport gave up on
        std::string reason;        ///< the transport's reason
        Time when;                 ///< when the transport gave up
    };

    static TypeId GetTypeId();
    TrainingJob();

    /**
     * \param spec the job (its id and iterations)
     * \param graph one iteration; its ranks are the job's workers
     * \param transport carries the communication ops' messages between ranks
     */
    void Setup(const JobSpec& spec, JobGraph graph, CollectiveTransport* transport);

    /**
     * A data-parallel job (JobGraph::DataParallel of the spec's workers,
     * buckets, collective and channels).
     * \param computeTime compute time of one iteration
     * \param gradientBytes bytes all-reduced per iteration
     */
    void Setup(const JobSpec& spec,
               Time computeTime,
               uint64_t gradientBytes,
               CollectiveTransport* transport);

    /// Start the first iteration now.
    void Start();

    /**
     * The job's gate on its planned ops opened or closed at its NICs (the
     * scheduler's GateChange): time a rank then only waits for a planned op
     * is charged to waiting at the gate, not to communication. Open until
     * told otherwise.
     */
    void SetGateOpen(bool open);

    uint32_t GetId() const
    {
        return m_spec.id;
    }

    const JobSpec& GetSpec() const
    {
        return m_spec;
    }

    /// Compute time of one iteration on the busiest rank.
    Time GetComputeTime() const
    {
        return m_computeTime;
    }

    /// Bytes per rank of the data-parallel collectives of one iteration.
    uint64_t GetGradientBytes() const
    {
        return m_gradientBytes;
    }

    const JobGraph& GetGraph() const
    {
        return m_graph;
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

    /**
     * Trace signature: job id, iteration, and which of the iteration's
     * planned ops (GraphOp::planned) this is in the order they became
     * ready, started or finished: for a data-parallel job, its bucket. So
     * the first ready is 0, and the last done is the planned op count
     * minus one, whatever the graph's order.
     */
    typedef void (*CollectiveCallback)(uint32_t job, uint32_t iteration, uint32_t commOp);

    /// When one op of an iteration's graph ran.
    struct OpSpan
    {
        uint32_t op{0}; ///< its index in the graph
        Time ready;     ///< its dependencies were done
        Time start;     ///< it started (its stream free; a communication op posted)
        Time end;       ///< it finished on every rank
    };

    /// Trace signature: job id, record.
    typedef void (*IterationCallback)(uint32_t job, const IterationRecord& record);
    /// Trace signature: job id, iteration, the op's span.
    typedef void (*OpCallback)(uint32_t job, uint32_t iteration, const OpSpan& span);
    /// Trace signature: job id.
    typedef void (*JobCallback)(uint32_t job);
    /// Trace signature: job id, where and why it failed.
    typedef void (*FailureCallback)(uint32_t job, const Failure& failure);

  protected:
    void DoDispose() override;

  private:
    void StartIteration();
    /// Op \p op's dependencies are done.
    void OpReady(uint32_t op);
    /// Start the ops of \p stream that may start now.
    void AdvanceStream(uint32_t stream);
    void StartOp(uint32_t op);
    void OpDone(uint32_t op);
    /// A message of communication op \p op in iteration \p iteration failed.
    void CommFailed(uint32_t iteration,
                    uint32_t op,
                    const CollectiveMessage& m,
                    const std::string& reason);

    /**
     * What a communication op posts through: its ranks 0..N-1 are its
     * members' job ranks, and each message is tagged with the op (ops of a
     * graph run at once, so the tag goes with every message, not with the
     * op's start).
     */
    class OpTransport : public CollectiveTransport
    {
      public:
        OpTransport(CollectiveTransport* job, const GraphOp* op, bool wholeJob);
        void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override;
        void Post(const CollectiveMessage& m,
                  std::function<void()> onDelivered,
                  FailedCallback onFailed) override;
        void BeginCollective(const CollectiveTag& tag) override;
        int64_t GetServer(uint32_t rank) const override;

      private:
        CollectiveMessage ToJobRanks(const CollectiveMessage& m) const;

        CollectiveTransport* m_job;
        const GraphOp* m_op;
        bool m_wholeJob; ///< the op's ranks are the job's, in order
        CollectiveTag m_tag;
    };

    JobSpec m_spec;
    JobGraph m_graph;
    Time m_computeTime;
    uint64_t m_gradientBytes{0};
    CollectiveTransport* m_transport{nullptr};
    std::vector<std::vector<uint32_t>> m_dependents; ///< by op: the ops that depend on it
    std::vector<std::vector<uint32_t>> m_streamOps;  ///< by stream: its ops in graph order
    std::vector<Ptr<Collective>> m_collectives;      ///< by op: its collective (collectives only)
    std::vector<std::unique_ptr<OpTransport>> m_opTransports; ///< by op (communication ops)
    // The current iteration's state.
    std::vector<uint32_t> m_pendingDeps;  ///< by op: dependencies not yet done
    std::vector<uint32_t> m_streamNext;   ///< by stream: position of its next op to start
    std::vector<bool> m_streamBusy;       ///< by stream: an op of it is running
    std::vector<EventId> m_computeEvents; ///< by op: the end of a running compute op
    std::vector<Time> m_opReady;          ///< by op: when it became ready this iteration
    std::vector<Time> m_opStart;          ///< by op: when it started this iteration
    uint32_t m_opsDone{0};
    uint32_t m_plannedReady{0};   ///< planned ops ready this iteration
    uint32_t m_plannedStarted{0}; ///< planned ops started this iteration
    uint32_t m_plannedDone{0};    ///< planned ops done this iteration
    bool m_commSeen{false};       ///< a communication op was ready this iteration
    bool m_commStarted{false};    ///< a communication op started this iteration
    uint32_t m_iteration{0};
    IterationRecord m_current;
    IterationTimeAccount m_time;
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
    TracedCallback<uint32_t, uint32_t, const OpSpan&> m_opTrace;
    TracedCallback<uint32_t> m_jobDoneTrace;
    TracedCallback<uint32_t, const Failure&> m_jobFailedTrace;
};

} // namespace ns3

#endif /* TRAINING_JOB_H */
