/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-job.h"

#include "collective-factory.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingJob");
NS_OBJECT_ENSURE_REGISTERED(TrainingJob);

TypeId
TrainingJob::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingJob")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<TrainingJob>()
            .AddTraceSource("CollectiveReady",
                            "A bucket's gradients are ready to be reduced (args: job, "
                            "iteration, bucket).",
                            MakeTraceSourceAccessor(&TrainingJob::m_readyTrace),
                            "ns3::TrainingJob::CollectiveCallback")
            .AddTraceSource("CollectiveStarted",
                            "A bucket's collective was started.",
                            MakeTraceSourceAccessor(&TrainingJob::m_startedTrace),
                            "ns3::TrainingJob::CollectiveCallback")
            .AddTraceSource("CollectiveDone",
                            "A bucket's collective finished on every rank.",
                            MakeTraceSourceAccessor(&TrainingJob::m_doneTrace),
                            "ns3::TrainingJob::CollectiveCallback")
            .AddTraceSource("IterationDone",
                            "An iteration finished.",
                            MakeTraceSourceAccessor(&TrainingJob::m_iterationTrace),
                            "ns3::TrainingJob::IterationCallback")
            .AddTraceSource("JobDone",
                            "The last iteration finished.",
                            MakeTraceSourceAccessor(&TrainingJob::m_jobDoneTrace),
                            "ns3::TrainingJob::JobCallback")
            .AddTraceSource("JobFailed",
                            "A collective failed (the transport gave up on one of its "
                            "messages); the job stopped (args: job, failure).",
                            MakeTraceSourceAccessor(&TrainingJob::m_jobFailedTrace),
                            "ns3::TrainingJob::FailureCallback");
    return tid;
}

TrainingJob::TrainingJob() = default;

void
TrainingJob::DoDispose()
{
    for (EventId& e : m_readyEvents)
    {
        e.Cancel();
    }
    m_collectives.clear();
    m_transport = nullptr;
    Object::DoDispose();
}

void
TrainingJob::Setup(const JobSpec& spec,
                   Time computeTime,
                   uint64_t gradientBytes,
                   CollectiveTransport* transport)
{
    NS_ABORT_MSG_IF(spec.buckets == 0 || spec.iterations == 0 || spec.workers == 0,
                    "job " << spec.id << ": buckets, iterations and workers must be >= 1");
    m_spec = spec;
    m_computeTime = computeTime;
    m_gradientBytes = gradientBytes;
    m_transport = transport;
    const uint32_t b = spec.buckets;
    m_bucketBytes.assign(b, gradientBytes / b);
    for (uint64_t i = 0; i < gradientBytes % b; ++i)
    {
        ++m_bucketBytes[i];
    }
    m_collectives.clear();
    for (uint32_t i = 0; i < b; ++i)
    {
        m_collectives.push_back(CreateCollective(spec.collective, spec.channels));
    }
}

void
TrainingJob::Start()
{
    m_startTime = Simulator::Now();
    m_started = true;
    m_iteration = 0;
    StartIteration();
}

void
TrainingJob::StartIteration()
{
    const Time now = Simulator::Now();
    m_current = IterationRecord{};
    m_current.iteration = m_iteration;
    m_current.computeStart = now;
    m_nextBucket = 0;
    m_streamBusy = false;
    m_bucketReady.assign(m_spec.buckets, false);
    m_readyEvents.clear();
    const uint32_t b = m_spec.buckets;
    for (uint32_t i = 0; i < b; ++i)
    {
        // Backward runs last-layer first; bucket i holds the i-th slice of it.
        Time ready =
            b == 1 ? m_computeTime : m_computeTime / 3 + (m_computeTime * 2 / 3) * (i + 1) / b;
        if (i + 1 == b)
        {
            ready = m_computeTime; // compute ends with the last bucket
        }
        m_readyEvents.push_back(Simulator::Schedule(ready, &TrainingJob::BucketReady, this, i));
    }
}

void
TrainingJob::BucketReady(uint32_t bucket)
{
    m_bucketReady[bucket] = true;
    if (bucket == 0)
    {
        m_current.commReady = Simulator::Now();
    }
    m_readyTrace(m_spec.id, m_iteration, bucket);
    if (!m_streamBusy && bucket == m_nextBucket)
    {
        StartBucket(bucket);
    }
}

void
TrainingJob::StartBucket(uint32_t bucket)
{
    m_streamBusy = true;
    if (bucket == 0)
    {
        m_current.commStart = Simulator::Now();
    }
    m_startedTrace(m_spec.id, m_iteration, bucket);
    Ptr<Collective> c = m_collectives[bucket];
    m_transport->BeginCollective(m_iteration, bucket);
    c->Configure(m_spec.workers, m_bucketBytes[bucket], m_transport);
    // A message may fail after its collective finished (its sender gave up
    // waiting for the last ACK), so the failure names its own iteration.
    c->Start([this, bucket]() { BucketDone(bucket); },
             [this, iteration = m_iteration, bucket](const CollectiveMessage& m,
                                                     const std::string& reason) {
                 BucketFailed(iteration, bucket, m, reason);
             });
}

void
TrainingJob::BucketFailed(uint32_t iteration,
                          uint32_t bucket,
                          const CollectiveMessage& m,
                          const std::string& reason)
{
    if (m_failed)
    {
        NS_LOG_INFO("job " << m_spec.id << ", already failed: iteration " << iteration
                           << ", bucket " << bucket << " failed too: " << reason);
        return;
    }
    NS_LOG_INFO("job " << m_spec.id << " failed in iteration " << iteration << ", bucket " << bucket
                       << ": " << reason);
    m_failed = true;
    m_streamBusy = false;
    m_failure.iteration = iteration;
    m_failure.bucket = bucket;
    m_failure.message = m;
    m_failure.reason = reason;
    m_failure.when = Simulator::Now();
    // No more work: the buckets still computing never start a collective,
    // and one running (a later one, if this failure came late) stops.
    for (EventId& e : m_readyEvents)
    {
        e.Cancel();
    }
    for (const Ptr<Collective>& c : m_collectives)
    {
        if (c->IsRunning())
        {
            c->Abort();
        }
    }
    m_jobFailedTrace(m_spec.id, m_failure);
}

void
TrainingJob::BucketDone(uint32_t bucket)
{
    m_streamBusy = false;
    m_doneTrace(m_spec.id, m_iteration, bucket);
    m_nextBucket = bucket + 1;
    if (m_nextBucket < m_spec.buckets)
    {
        if (m_bucketReady[m_nextBucket])
        {
            StartBucket(m_nextBucket);
        }
        return;
    }
    m_current.commEnd = Simulator::Now();
    m_records.push_back(m_current);
    m_iterationTrace(m_spec.id, m_current);
    if (++m_iteration < m_spec.iterations)
    {
        StartIteration();
        return;
    }
    m_done = true;
    m_endTime = Simulator::Now();
    m_jobDoneTrace(m_spec.id);
}

} // namespace ns3
