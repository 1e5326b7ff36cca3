/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-job.h"

#include "collective-factory.h"
#include "model-catalog.h"

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
                            "A planned communication op's dependencies are done (a "
                            "bucket's gradients are ready to be reduced) (args: job, "
                            "iteration, planned op).",
                            MakeTraceSourceAccessor(&TrainingJob::m_readyTrace),
                            "ns3::TrainingJob::CollectiveCallback")
            .AddTraceSource("CollectiveStarted",
                            "A planned communication op was started.",
                            MakeTraceSourceAccessor(&TrainingJob::m_startedTrace),
                            "ns3::TrainingJob::CollectiveCallback")
            .AddTraceSource("CollectiveDone",
                            "A planned communication op finished on every rank.",
                            MakeTraceSourceAccessor(&TrainingJob::m_doneTrace),
                            "ns3::TrainingJob::CollectiveCallback")
            .AddTraceSource("OpDone",
                            "An op of the iteration's graph finished on every rank (args: "
                            "job, iteration, when it was ready, started and ended).",
                            MakeTraceSourceAccessor(&TrainingJob::m_opTrace),
                            "ns3::TrainingJob::OpCallback")
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
    for (EventId& e : m_computeEvents)
    {
        e.Cancel();
    }
    m_collectives.clear();
    m_opTransports.clear();
    m_transport = nullptr;
    Object::DoDispose();
}

void
TrainingJob::Setup(const JobSpec& spec,
                   Time computeTime,
                   uint64_t gradientBytes,
                   CollectiveTransport* transport)
{
    NS_ABORT_MSG_IF(spec.buckets == 0 || spec.workers == 0,
                    "job " << spec.id << ": buckets and workers must be >= 1");
    Setup(spec,
          JobGraph::DataParallel(spec.workers,
                                 computeTime,
                                 gradientBytes,
                                 spec.buckets,
                                 ModelCatalog::DataCollective(spec),
                                 spec.channels),
          transport);
}

void
TrainingJob::Setup(const JobSpec& spec, JobGraph graph, CollectiveTransport* transport)
{
    NS_ABORT_MSG_IF(spec.iterations == 0, "job " << spec.id << ": iterations must be >= 1");
    m_spec = spec;
    m_graph = std::move(graph);
    m_transport = transport;
    m_computeTime = m_graph.GetComputeTimePerRank();
    m_gradientBytes = m_graph.GetBytes(CommGroup::Data);
    const std::vector<GraphOp>& ops = m_graph.GetOps();
    const uint32_t n = static_cast<uint32_t>(ops.size());
    m_dependents.assign(n, {});
    m_streamOps.assign(m_graph.GetStreamCount(), {});
    m_collectives.assign(n, nullptr);
    m_opTransports.clear();
    m_opTransports.resize(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const GraphOp& op = ops[i];
        for (uint32_t d : op.deps)
        {
            m_dependents[d].push_back(i);
        }
        m_streamOps[op.stream].push_back(i);
        if (op.kind == GraphOp::Kind::Compute)
        {
            continue;
        }
        bool wholeJob = op.ranks.size() == m_graph.GetRankCount();
        for (uint32_t r = 0; wholeJob && r < op.ranks.size(); ++r)
        {
            wholeJob = op.ranks[r] == r;
        }
        m_opTransports[i] = std::make_unique<OpTransport>(transport, &ops[i], wholeJob);
        if (op.kind != GraphOp::Kind::Collective)
        {
            continue;
        }
        m_collectives[i] = CreateCollective(op.algorithm, op.channels);
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
TrainingJob::SetGateOpen(bool open)
{
    m_time.SetGateOpen(open, Simulator::Now());
}

void
TrainingJob::StartIteration()
{
    m_current = IterationRecord{};
    m_current.iteration = m_iteration;
    m_current.computeStart = Simulator::Now();
    m_time.Begin(m_graph.GetRankCount(), Simulator::Now());
    const std::vector<GraphOp>& ops = m_graph.GetOps();
    m_pendingDeps.resize(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
    {
        m_pendingDeps[i] = static_cast<uint32_t>(ops[i].deps.size());
    }
    m_streamNext.assign(m_streamOps.size(), 0);
    m_streamBusy.assign(m_streamOps.size(), false);
    m_computeEvents.assign(ops.size(), EventId());
    m_opReady.resize(ops.size());
    m_opStart.resize(ops.size());
    m_opsDone = 0;
    m_plannedReady = 0;
    m_plannedStarted = 0;
    m_plannedDone = 0;
    m_commSeen = false;
    m_commStarted = false;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (m_pendingDeps[i] == 0)
        {
            OpReady(i);
        }
    }
}

void
TrainingJob::OpReady(uint32_t op)
{
    const GraphOp& o = m_graph.GetOp(op);
    m_opReady[op] = Simulator::Now();
    if (o.kind != GraphOp::Kind::Compute)
    {
        if (!m_commSeen)
        {
            m_commSeen = true;
            m_current.commReady = Simulator::Now();
        }
        if (o.planned)
        {
            m_readyTrace(m_spec.id, m_iteration, m_plannedReady++);
        }
    }
    AdvanceStream(o.stream);
}

void
TrainingJob::AdvanceStream(uint32_t stream)
{
    const std::vector<uint32_t>& order = m_streamOps[stream];
    if (!m_streamBusy[stream] && m_streamNext[stream] < order.size() &&
        m_pendingDeps[order[m_streamNext[stream]]] == 0)
    {
        m_streamBusy[stream] = true;
        StartOp(order[m_streamNext[stream]]);
    }
}

void
TrainingJob::StartOp(uint32_t op)
{
    const GraphOp& o = m_graph.GetOp(op);
    m_opStart[op] = Simulator::Now();
    m_time.OpStarted(o, Simulator::Now());
    if (o.kind == GraphOp::Kind::Compute)
    {
        m_computeEvents[op] = Simulator::Schedule(o.duration, &TrainingJob::OpDone, this, op);
        return;
    }
    if (!m_commStarted)
    {
        m_commStarted = true;
        m_current.commStart = Simulator::Now();
    }
    if (o.planned)
    {
        m_startedTrace(m_spec.id, m_iteration, m_plannedStarted++);
    }
    OpTransport* transport = m_opTransports[op].get();
    CollectiveTag tag;
    tag.iteration = m_iteration;
    transport->BeginCollective(tag);
    // A message may fail after its op finished (its sender gave up waiting
    // for the last ACK), so the failure names its own iteration.
    const uint32_t iteration = m_iteration;
    if (o.kind == GraphOp::Kind::Transfer)
    {
        CollectiveMessage m; // from the op's rank 0 to its rank 1
        m.srcRank = 0;
        m.dstRank = 1;
        m.bytes = o.bytes;
        transport->Post(
            m,
            [this, op, iteration]() {
                if (!m_failed && iteration == m_iteration)
                {
                    OpDone(op);
                }
            },
            [this, op, iteration, m](const std::string& reason) {
                CommFailed(iteration, op, m, reason);
            });
        return;
    }
    Ptr<Collective> c = m_collectives[op];
    c->Configure(static_cast<uint32_t>(o.ranks.size()), o.bytes, transport);
    c->Start([this, op]() { OpDone(op); },
             [this, op, iteration](const CollectiveMessage& m, const std::string& reason) {
                 CommFailed(iteration, op, m, reason);
             });
}

void
TrainingJob::CommFailed(uint32_t iteration,
                        uint32_t op,
                        const CollectiveMessage& m,
                        const std::string& reason)
{
    const uint32_t commOp = m_graph.GetOp(op).commIndex;
    if (m_failed)
    {
        NS_LOG_INFO("job " << m_spec.id << ", already failed: iteration " << iteration
                           << ", communication op " << commOp << " failed too: " << reason);
        return;
    }
    NS_LOG_INFO("job " << m_spec.id << " failed in iteration " << iteration << ", communication op "
                       << commOp << ": " << reason);
    m_failed = true;
    m_failure.iteration = iteration;
    m_failure.commOp = commOp;
    m_failure.message = m; // in the job's ranks
    m_failure.message.srcRank = m_graph.GetOp(op).ranks.at(m.srcRank);
    m_failure.message.dstRank = m_graph.GetOp(op).ranks.at(m.dstRank);
    m_failure.reason = reason;
    m_failure.when = Simulator::Now();
    // No more work: compute still running never starts what follows it, and
    // the collectives running (a later one, if this failure came late) stop.
    for (EventId& e : m_computeEvents)
    {
        e.Cancel();
    }
    for (const Ptr<Collective>& c : m_collectives)
    {
        if (c && c->IsRunning())
        {
            c->Abort();
        }
    }
    m_jobFailedTrace(m_spec.id, m_failure);
}

void
TrainingJob::OpDone(uint32_t op)
{
    const GraphOp& o = m_graph.GetOp(op);
    m_time.OpDone(o, Simulator::Now());
    m_opTrace(m_spec.id, m_iteration, OpSpan{op, m_opReady[op], m_opStart[op], Simulator::Now()});
    m_streamBusy[o.stream] = false;
    ++m_streamNext[o.stream];
    ++m_opsDone;
    if (o.kind != GraphOp::Kind::Compute)
    {
        if (o.planned)
        {
            m_doneTrace(m_spec.id, m_iteration, m_plannedDone++);
        }
        m_current.commEnd = Simulator::Now();
    }
    for (uint32_t d : m_dependents[op])
    {
        if (--m_pendingDeps[d] == 0)
        {
            OpReady(d);
        }
    }
    AdvanceStream(o.stream);
    if (m_opsDone < m_graph.GetOps().size())
    {
        return;
    }
    m_current.end = Simulator::Now();
    m_current.time = m_time.End(m_current.end);
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

TrainingJob::OpTransport::OpTransport(CollectiveTransport* job, const GraphOp* op, bool wholeJob)
    : m_job(job),
      m_op(op),
      m_wholeJob(wholeJob)
{
    m_tag.index = op->commIndex;
    // The data-parallel communicator keeps the job's original connections.
    m_tag.communicator = op->group == CommGroup::Data ? 0 : static_cast<uint8_t>(op->group);
    m_tag.gated = op->planned;
}

CollectiveMessage
TrainingJob::OpTransport::ToJobRanks(const CollectiveMessage& m) const
{
    if (m_wholeJob)
    {
        return m;
    }
    CollectiveMessage j = m;
    j.srcRank = m_op->ranks[m.srcRank];
    j.dstRank = m_op->ranks[m.dstRank];
    return j;
}

void
TrainingJob::OpTransport::Send(const CollectiveMessage& m, std::function<void()> onDelivered)
{
    m_job->BeginCollective(m_tag);
    m_job->Send(ToJobRanks(m), std::move(onDelivered));
}

void
TrainingJob::OpTransport::Post(const CollectiveMessage& m,
                               std::function<void()> onDelivered,
                               FailedCallback onFailed)
{
    m_job->BeginCollective(m_tag);
    m_job->Post(ToJobRanks(m), std::move(onDelivered), std::move(onFailed));
}

int64_t
TrainingJob::OpTransport::GetServer(uint32_t rank) const
{
    return m_job->GetServer(m_wholeJob ? rank : m_op->ranks.at(rank));
}

void
TrainingJob::OpTransport::BeginCollective(const CollectiveTag& tag)
{
    m_tag.iteration = tag.iteration;
}

} // namespace ns3
