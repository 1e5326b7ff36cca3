/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scheduler-job-builder.h"

#include "ns3/collective-factory.h"
#include "ns3/network-collective-transport.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

namespace ns3
{

namespace
{

/// Delivers every message at once and remembers it: one collective run, no simulation.
class RecordingTransport : public CollectiveTransport
{
  public:
    void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override
    {
        messages.push_back(m);
        onDelivered();
    }

    int64_t GetServer(uint32_t rank) const override
    {
        return server(rank);
    }

    std::vector<CollectiveMessage> messages;
    std::function<int64_t(uint32_t)> server; ///< of a rank of the collective
};

/**
 * Estimates each communication op of a job alone on the network, and adds
 * the planned ones' messages to the job's connections (job.flows).
 */
class TrafficEstimate
{
  public:
    TrafficEstimate(const ClusterNetwork& network, SchedulerJob& job, const NvlinkSpeed& nvlink)
        : m_network(network),
          m_topo(network.GetTopology()),
          m_job(job),
          m_nvlink(nvlink),
          m_payload(network.GetPayloadPerPacket()),
          m_ackInterval(network.GetAckInterval()),
          m_packetBits(8.0 *
                       RoceWire::WireBytes(m_payload + RoceWire::kEthernet + RoceWire::kIpv4 +
                                           RoceWire::kUdp + RoceWire::kBth + RoceWire::kIcrc)),
          m_ackWire(RoceWire::WireBytes(RoceWire::kEthernet + RoceWire::kIpv4 + RoceWire::kUdp +
                                        RoceWire::kBth + RoceWire::kAeth + RoceWire::kIcrc))
    {
    }

    /**
     * Seconds of communication op \p op alone, step by step: a step takes
     * its busiest link's wire time plus its slowest path's latency. A
     * planned op's messages are added to the job's connections and its
     * NVLink messages beside fabric ones taken as free (its time is the
     * fabric's), while its steps of NVLink alone (a hierarchical
     * collective's server rings) take their NVLink time; another
     * op's step takes at least its NVLink time (latency plus its busiest
     * NVSwitch port's bytes).
     */
    double Estimate(const GraphOp& op)
    {
        m_opFlows.clear();
        m_opLinks.clear();
        RecordingTransport rec;
        rec.server = [this, &op](uint32_t r) {
            return m_topo.GetServerKey(m_job.rankHosts.at(op.ranks.at(r)));
        };
        if (op.kind == GraphOp::Kind::Transfer)
        {
            CollectiveMessage m;
            m.srcRank = 0;
            m.dstRank = 1;
            m.bytes = op.bytes;
            rec.messages.push_back(m);
        }
        else
        {
            Ptr<Collective> c = CreateCollective(op.algorithm, op.channels);
            c->Configure(static_cast<uint32_t>(op.ranks.size()), op.bytes, &rec);
            c->Start([]() {});
        }
        m_steps.clear();
        const uint8_t communicator =
            op.group == CommGroup::Data ? 0 : static_cast<uint8_t>(op.group);
        for (CollectiveMessage& m : rec.messages)
        {
            m.srcRank = op.ranks[m.srcRank]; // the job's ranks
            m.dstRank = op.ranks[m.dstRank];
            AddMessage(m, op.planned, communicator);
        }
        bool fabric = false;
        for (const auto& [step, s] : m_steps)
        {
            fabric = fabric || !s.linkBytes.empty();
        }
        double seconds = 0;
        for (const auto& [step, s] : m_steps)
        {
            double busiest = 0;
            for (const auto& [link, wire] : s.linkBytes)
            {
                busiest =
                    std::max(busiest,
                             8.0 * wire / static_cast<double>(m_topo.GetLink(link / 2).rateBps));
            }
            // A planned op's time is the fabric's: its NVLink messages beside
            // fabric ones are free, but a step of NVLink alone between fabric
            // steps (a hierarchical collective's server rings) takes its time.
            const bool nvlinkCounts = !op.planned || (fabric && s.linkBytes.empty());
            seconds += std::max(busiest + s.latency, nvlinkCounts ? s.nvlink : 0.0);
        }
        return seconds;
    }

  private:
    /// Of the op being estimated, one step.
    struct Step
    {
        std::map<uint32_t, uint64_t> linkBytes; ///< directed link -> wire bytes
        double latency{0};                      ///< its slowest path's, s
        double nvlink{0};                       ///< its NVLink time, s
        std::map<uint32_t, double> nvlinkOut;   ///< rank -> bits into the NVSwitch
        std::map<uint32_t, double> nvlinkIn;    ///< rank -> bits out of the NVSwitch
    };

    /// The index in job.flows of the job's connection from host \p src to host
    /// \p dst on UDP source port \p port.
    std::size_t FlowIndex(uint32_t src, uint32_t dst, uint16_t port)
    {
        const auto key = std::make_tuple(src, dst, port);
        auto it = m_flowIndex.find(key);
        if (it == m_flowIndex.end())
        {
            SchedulerFlow f;
            f.srcHost = src;
            f.dstHost = dst;
            f.srcPort = port;
            f.path = m_network.GetDirectedPath(src, dst, port);
            m_job.flows.push_back(std::move(f));
            it = m_flowIndex.emplace(key, m_job.flows.size() - 1).first;
        }
        return it->second;
    }

    /// A message's wire bytes on each link of its step, its ACKs' on the way back.
    void AddMessage(const CollectiveMessage& m, bool planned, uint8_t communicator)
    {
        const uint32_t src = m_job.rankHosts.at(m.srcRank);
        const uint32_t dst = m_job.rankHosts.at(m.dstRank);
        Step& step = m_steps[m.step];
        if (m_topo.SameServer(src, dst))
        {
            // Each rank is a GPU with one NVSwitch port each way: a step's
            // messages that share a port share its rate (NvSwitch).
            const double bits = 8.0 * static_cast<double>(m.bytes);
            double busiest = bits;
            if (m_nvlink.contention)
            {
                busiest =
                    std::max(step.nvlinkOut[m.srcRank] += bits, step.nvlinkIn[m.dstRank] += bits);
            }
            step.nvlink = std::max(step.nvlink,
                                   (m.delay.GetSeconds() + m_nvlink.latency.GetSeconds()) *
                                           m_job.spec.latencyScale +
                                       busiest / static_cast<double>(m_nvlink.rate.GetBitRate()));
            return;
        }
        const uint16_t port = NetworkCollectiveTransport::ConnectionPort(m_job.id,
                                                                         m.srcRank,
                                                                         m.dstRank,
                                                                         m.channel,
                                                                         communicator);
        std::vector<uint32_t> unplannedPath;
        const std::vector<uint32_t>* path = &unplannedPath;
        if (planned)
        {
            const std::size_t index = FlowIndex(src, dst, port);
            SchedulerFlow& f = m_job.flows[index];
            f.bytes += m.bytes;
            m_opFlows[static_cast<uint32_t>(index)] += m.bytes;
            path = &f.path;
        }
        else
        {
            unplannedPath = m_network.GetDirectedPath(src, dst, port);
            for (uint32_t link : unplannedPath)
            {
                m_opLinks[link] += m.bytes;
            }
        }
        const uint64_t wire = RoceWire::MessageWireBytes(m.bytes, m_payload);
        // Propagation on every link, and one frame stored and forwarded at
        // every switch: the first link's serialization is in the wire time.
        // A protocol's, before the first byte leaves, scaled as the job's
        // transport scales it (NetworkCollectiveTransport::SetLatencyScale).
        double latency = m.delay.GetSeconds() * m_job.spec.latencyScale;
        bool first = true;
        for (uint32_t link : *path)
        {
            step.linkBytes[link] += wire;
            const FabricLink& l = m_topo.GetLink(link / 2);
            latency +=
                l.delayNs * 1e-9 + (first ? 0.0 : m_packetBits / static_cast<double>(l.rateBps));
            first = false;
        }
        step.latency = std::max(step.latency, latency);
        // ACKs come back on the reverse path (same UDP source port), where
        // they share links with data going the other way.
        const uint64_t packets = std::max<uint64_t>(1, (m.bytes + m_payload - 1) / m_payload);
        const uint64_t acks = (packets + m_ackInterval - 1) / m_ackInterval;
        for (uint32_t link : m_network.GetDirectedPath(dst, src, port))
        {
            step.linkBytes[link] += acks * m_ackWire;
        }
    }

    const ClusterNetwork& m_network;
    const FabricTopology& m_topo;
    SchedulerJob& m_job;
    NvlinkSpeed m_nvlink;
    uint32_t m_payload;
    uint64_t m_ackInterval;
    double m_packetBits; ///< bits of a full data frame on the wire
    uint64_t m_ackWire;  ///< wire bytes of an ACK
    /// Connection (src host, dst host, port) -> index in job.flows.
    std::map<std::tuple<uint32_t, uint32_t, uint16_t>, std::size_t> m_flowIndex;
    std::map<uint32_t, Step> m_steps; ///< of the op being estimated, by step

  public:
    /// Of the op last estimated: a planned op's bytes per connection (index in job.flows).
    std::map<uint32_t, uint64_t> m_opFlows;
    /// Of the op last estimated: another op's fabric bytes per directed link.
    std::map<uint32_t, uint64_t> m_opLinks;
};

} // namespace

SchedulerJob
MakeSchedulerJob(const TrainingCluster::JobEntry& entry,
                 const ClusterNetwork& network,
                 const NvlinkSpeed& nvlink)
{
    SchedulerJob job;
    job.id = entry.spec.id;
    job.spec = entry.spec;
    job.gradientBytes = entry.gradientBytes;
    job.rankHosts = entry.placement.workerHost;
    // Schedulers learn of a job as the cluster starts it, just before its
    // TrainingJob::Start: until then its own start time is not set.
    job.startTime =
        entry.job && entry.job->HasStarted() ? entry.job->GetStartTime() : Simulator::Now();
    // One iteration alone, op by op in graph order as TrainingJob runs it:
    // an op starts when its dependencies are done and the op before it on
    // its stream is. In integer time steps, so that a job with one planned
    // collective after its compute gets exactly that compute and estimate.
    TrafficEstimate traffic(network, job, nvlink);
    const std::vector<GraphOp>& ops = entry.graph.GetOps();
    std::vector<Time> finish(ops.size());
    std::vector<Time> streamFree(entry.graph.GetStreamCount());
    Time end;
    Time firstPlanned = Time::Max();
    for (std::size_t i = 0; i < ops.size(); ++i)
    {
        const GraphOp& op = ops[i];
        Time start = streamFree[op.stream];
        for (uint32_t d : op.deps)
        {
            start = std::max(start, finish[d]);
        }
        const Time duration =
            op.kind == GraphOp::Kind::Compute ? op.duration : Seconds(traffic.Estimate(op));
        if (op.kind == GraphOp::Kind::Compute)
        {
            job.gpuSeconds += op.duration.GetSeconds() * static_cast<double>(op.ranks.size());
        }
        else if (op.planned || !traffic.m_opLinks.empty())
        {
            SchedulerOp fabricOp;
            fabricOp.graphOp = static_cast<uint32_t>(i);
            fabricOp.start = start; // from the iteration's start until the loop ends
            fabricOp.duration = duration;
            fabricOp.planned = op.planned;
            fabricOp.flowBytes.assign(traffic.m_opFlows.begin(), traffic.m_opFlows.end());
            fabricOp.linkBytes = std::move(traffic.m_opLinks);
            job.ops.push_back(std::move(fabricOp));
        }
        finish[i] = start + duration;
        streamFree[op.stream] = finish[i];
        end = std::max(end, finish[i]);
        if (op.planned)
        {
            firstPlanned = std::min(firstPlanned, start);
        }
    }
    if (firstPlanned == Time::Max())
    {
        firstPlanned = end; // nothing planned: all of it is compute to a scheduler
    }
    job.computeTime = firstPlanned;
    job.commTime = end - firstPlanned;
    for (SchedulerOp& op : job.ops)
    {
        op.start -= firstPlanned;
    }
    std::stable_sort(job.ops.begin(),
                     job.ops.end(),
                     [](const SchedulerOp& a, const SchedulerOp& b) { return a.start < b.start; });
    job.spec.buckets = std::max<uint32_t>(1, entry.graph.GetPlannedOpCount());
    return job;
}

} // namespace ns3
