/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scheduler-job-builder.h"

#include "ns3/collective-factory.h"
#include "ns3/flow-scheduler-control.h"
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

} // namespace

std::vector<uint32_t>
DirectedPath(const RoceFabric& fabric, uint32_t src, uint32_t dst, uint16_t port)
{
    return fabric.GetTopology().DirectedLinks(src, fabric.GetPath(src, dst, port));
}

namespace
{

/// Directed path from host src to host dst for a UDP source port.
using PathOf = std::function<std::vector<uint32_t>(uint32_t src, uint32_t dst, uint16_t port)>;

SchedulerJob MakeJob(const TrainingCluster::JobEntry& entry,
                     const FabricTopology& topo,
                     uint32_t payload,
                     uint64_t ackInterval,
                     const PathOf& directedPath);

} // namespace

SchedulerJob
MakeSchedulerJob(const TrainingCluster::JobEntry& entry, const RoceFabric& fabric)
{
    UintegerValue mtu;
    fabric.GetNic(0)->GetAttribute("PayloadPerPacket", mtu);
    UintegerValue ackInterval;
    fabric.GetNic(0)->GetAttribute("AckInterval", ackInterval);
    return MakeJob(entry,
                   fabric.GetTopology(),
                   static_cast<uint32_t>(mtu.Get()),
                   ackInterval.Get(),
                   [&fabric](uint32_t src, uint32_t dst, uint16_t port) {
                       return DirectedPath(fabric, src, dst, port);
                   });
}

SchedulerJob
MakeSchedulerJob(const TrainingCluster::JobEntry& entry, const FlowNetwork& network)
{
    return MakeJob(entry,
                   network.GetTopology(),
                   network.GetPayloadPerPacket(),
                   network.GetAckInterval(),
                   [&network](uint32_t src, uint32_t dst, uint16_t port) {
                       return DirectedPath(network, src, dst, port);
                   });
}

namespace
{

SchedulerJob
MakeJob(const TrainingCluster::JobEntry& entry,
        const FabricTopology& topo,
        uint32_t payload,
        uint64_t ackIntervalPackets,
        const PathOf& directedPath)
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

    const uint64_t ackWire =
        RoceWire::WireBytes(RoceWire::kEthernet + RoceWire::kIpv4 + RoceWire::kUdp +
                            RoceWire::kBth + RoceWire::kAeth + RoceWire::kIcrc);

    // Connection (src host, dst host, port) -> index in job.flows.
    std::map<std::tuple<uint32_t, uint32_t, uint16_t>, std::size_t> flowIndex;
    const uint32_t buckets = std::max<uint32_t>(1, entry.spec.buckets);
    double commSeconds = 0;
    for (uint32_t b = 0; b < buckets; ++b)
    {
        const uint64_t bytes = Collective::SplitEvenly(entry.gradientBytes, buckets, b);
        Ptr<Collective> c = CreateCollective(entry.spec.collective, entry.spec.channels);
        RecordingTransport rec;
        c->Configure(entry.spec.workers, bytes, &rec);
        c->Start([]() {});
        // step -> link -> wire bytes, and the step's slowest path latency.
        std::map<uint32_t, std::map<uint32_t, uint64_t>> stepLinkBytes;
        std::map<uint32_t, double> stepLatency;
        for (const CollectiveMessage& m : rec.messages)
        {
            const uint32_t src = job.rankHosts.at(m.srcRank);
            const uint32_t dst = job.rankHosts.at(m.dstRank);
            if (topo.SameServer(src, dst))
            {
                continue; // NVLink
            }
            const uint16_t port =
                FabricCollectiveTransport::ConnectionPort(job.id, m.srcRank, m.dstRank, m.channel);
            auto key = std::make_tuple(src, dst, port);
            auto it = flowIndex.find(key);
            if (it == flowIndex.end())
            {
                SchedulerFlow f;
                f.srcHost = src;
                f.dstHost = dst;
                f.srcPort = port;
                f.path = directedPath(src, dst, port);
                job.flows.push_back(std::move(f));
                it = flowIndex.emplace(key, job.flows.size() - 1).first;
            }
            SchedulerFlow& f = job.flows[it->second];
            f.bytes += m.bytes;
            const uint64_t wire = RoceWire::MessageWireBytes(m.bytes, payload);
            double latency = 0;
            const double packetBits =
                8.0 * RoceWire::WireBytes(payload + RoceWire::kEthernet + RoceWire::kIpv4 +
                                          RoceWire::kUdp + RoceWire::kBth + RoceWire::kIcrc);
            for (uint32_t link : f.path)
            {
                stepLinkBytes[m.step][link] += wire;
                const FabricLink& l = topo.GetLink(link / 2);
                latency += l.delayNs * 1e-9 + packetBits / static_cast<double>(l.rateBps);
            }
            stepLatency[m.step] = std::max(stepLatency[m.step], latency);
            // ACKs come back on the reverse path (same UDP source port), where
            // they share links with data going the other way.
            const uint64_t packets = std::max<uint64_t>(1, (m.bytes + payload - 1) / payload);
            const uint64_t acks = (packets + ackIntervalPackets - 1) / ackIntervalPackets;
            for (uint32_t link : directedPath(dst, src, port))
            {
                stepLinkBytes[m.step][link] += acks * ackWire;
            }
        }
        for (const auto& [step, links] : stepLinkBytes)
        {
            double busiest = 0;
            for (const auto& [link, wire] : links)
            {
                busiest =
                    std::max(busiest,
                             8.0 * wire / static_cast<double>(topo.GetLink(link / 2).rateBps));
            }
            commSeconds += busiest + stepLatency[step];
        }
    }
    job.commTime = Seconds(commSeconds);
    return job;
}

} // namespace

} // namespace ns3
