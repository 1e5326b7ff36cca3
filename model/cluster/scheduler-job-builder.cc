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

    std::vector<CollectiveMessage> messages;
};

/**
 * Adds a job's collectives, one at a time, to its connections (job.flows)
 * and estimates each one's time alone on the network.
 */
class TrafficEstimate
{
  public:
    TrafficEstimate(const ClusterNetwork& network, SchedulerJob& job)
        : m_network(network),
          m_topo(network.GetTopology()),
          m_job(job),
          m_payload(network.GetPayloadPerPacket()),
          m_ackInterval(network.GetAckInterval()),
          m_packetBits(8.0 *
                       RoceWire::WireBytes(m_payload + RoceWire::kEthernet + RoceWire::kIpv4 +
                                           RoceWire::kUdp + RoceWire::kBth + RoceWire::kIcrc)),
          m_ackWire(RoceWire::WireBytes(RoceWire::kEthernet + RoceWire::kIpv4 + RoceWire::kUdp +
                                        RoceWire::kBth + RoceWire::kAeth + RoceWire::kIcrc))
    {
    }

    /// Run collective \p op once, add its messages and its time alone to
    /// \p seconds, step by step.
    void AddCollective(const GraphOp& op, double& seconds)
    {
        Ptr<Collective> c = CreateCollective(op.algorithm, op.channels);
        RecordingTransport rec;
        c->Configure(static_cast<uint32_t>(op.ranks.size()), op.bytes, &rec);
        c->Start([]() {});
        for (CollectiveMessage& m : rec.messages)
        {
            m.srcRank = op.ranks[m.srcRank]; // the job's ranks
            m.dstRank = op.ranks[m.dstRank];
        }
        m_stepLinkBytes.clear();
        m_stepLatency.clear();
        for (const CollectiveMessage& m : rec.messages)
        {
            AddMessage(m);
        }
        for (const auto& [step, links] : m_stepLinkBytes)
        {
            double busiest = 0;
            for (const auto& [link, wire] : links)
            {
                busiest =
                    std::max(busiest,
                             8.0 * wire / static_cast<double>(m_topo.GetLink(link / 2).rateBps));
            }
            seconds += busiest + m_stepLatency[step];
        }
    }

  private:
    /// The job's connection from host \p src to host \p dst on UDP source port \p port.
    SchedulerFlow& FlowOf(uint32_t src, uint32_t dst, uint16_t port)
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
        return m_job.flows[it->second];
    }

    /// A message's wire bytes on each link of its step, its ACKs' on the way back.
    void AddMessage(const CollectiveMessage& m)
    {
        const uint32_t src = m_job.rankHosts.at(m.srcRank);
        const uint32_t dst = m_job.rankHosts.at(m.dstRank);
        if (m_topo.SameServer(src, dst))
        {
            return; // NVLink
        }
        const uint16_t port =
            NetworkCollectiveTransport::ConnectionPort(m_job.id, m.srcRank, m.dstRank, m.channel);
        SchedulerFlow& f = FlowOf(src, dst, port);
        f.bytes += m.bytes;
        const uint64_t wire = RoceWire::MessageWireBytes(m.bytes, m_payload);
        // Propagation on every link, and one frame stored and forwarded at
        // every switch: the first link's serialization is in the wire time.
        double latency = 0;
        bool first = true;
        for (uint32_t link : f.path)
        {
            m_stepLinkBytes[m.step][link] += wire;
            const FabricLink& l = m_topo.GetLink(link / 2);
            latency +=
                l.delayNs * 1e-9 + (first ? 0.0 : m_packetBits / static_cast<double>(l.rateBps));
            first = false;
        }
        m_stepLatency[m.step] = std::max(m_stepLatency[m.step], latency);
        // ACKs come back on the reverse path (same UDP source port), where
        // they share links with data going the other way.
        const uint64_t packets = std::max<uint64_t>(1, (m.bytes + m_payload - 1) / m_payload);
        const uint64_t acks = (packets + m_ackInterval - 1) / m_ackInterval;
        for (uint32_t link : m_network.GetDirectedPath(dst, src, port))
        {
            m_stepLinkBytes[m.step][link] += acks * m_ackWire;
        }
    }

    const ClusterNetwork& m_network;
    const FabricTopology& m_topo;
    SchedulerJob& m_job;
    uint32_t m_payload;
    uint64_t m_ackInterval;
    double m_packetBits; ///< bits of a full data frame on the wire
    uint64_t m_ackWire;  ///< wire bytes of an ACK
    /// Connection (src host, dst host, port) -> index in job.flows.
    std::map<std::tuple<uint32_t, uint32_t, uint16_t>, std::size_t> m_flowIndex;
    /// Of the collective being added: step -> link -> wire bytes.
    std::map<uint32_t, std::map<uint32_t, uint64_t>> m_stepLinkBytes;
    /// Of the collective being added: step -> its slowest path's latency, s.
    std::map<uint32_t, double> m_stepLatency;
};

} // namespace

SchedulerJob
MakeSchedulerJob(const TrainingCluster::JobEntry& entry, const ClusterNetwork& network)
{
    SchedulerJob job;
    job.id = entry.spec.id;
    job.spec = entry.spec;
    job.computeTime = entry.computeTime;
    job.gradientBytes = entry.gradientBytes;
    job.rankHosts = entry.placement.workerHost;
    // Schedulers learn of a job as the cluster starts it, just before its
    // TrainingJob::Start: until then its own start time is not set.
    job.startTime =
        entry.job && entry.job->HasStarted() ? entry.job->GetStartTime() : Simulator::Now();
    // The communication schedulers plan (GraphOp::planned): the
    // data-parallel collectives, a data-parallel job's buckets.
    TrafficEstimate traffic(network, job);
    double commSeconds = 0;
    for (const GraphOp& op : entry.graph.GetOps())
    {
        if (op.planned)
        {
            traffic.AddCollective(op, commSeconds);
        }
    }
    job.spec.buckets = std::max<uint32_t>(1, entry.graph.GetPlannedOpCount());
    job.commTime = Seconds(commSeconds);
    return job;
}

} // namespace ns3
