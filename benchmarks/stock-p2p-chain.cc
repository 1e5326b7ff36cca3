/*
 * Speed reference: the per-hop cost of ns-3's stock PointToPointNetDevice.
 *
 * A chain of hops+1 nodes joined by bare point-to-point links, no IP stack.
 * The first node keeps its device queue topped up so the first link is never
 * idle; every intermediate node sends each received packet out of its other
 * device; the last node drops it. Every link crossing is one packet-hop.
 *
 * Prints one line:
 *   PERF name=stock-p2p-chain packet_hops=N events=N wall_s=X sim_s=X peak_rss_kb=N
 *        data_hops=N ack_hops=0 link_bytes=N
 */

#include "stock-benchmark.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("StockP2pChain");

namespace
{

// PPP accepts only IPv4/IPv6 protocol numbers; the payload is never parsed.
constexpr uint16_t kIpv4Protocol = 0x0800;

/// Feeds the first device and forwards along the chain.
class Chain
{
  public:
    Chain(uint64_t packets, uint32_t packetSize)
        : m_toSend(packets),
          m_packetSize(packetSize)
    {
    }

    /// Adds one packet to the source device's queue, if any are left.
    void SendOne()
    {
        if (m_toSend == 0)
        {
            return;
        }
        --m_toSend;
        m_source->Send(Create<Packet>(m_packetSize), m_source->GetBroadcast(), kIpv4Protocol);
    }

    /// PhyTxBegin of the source: one packet left the queue, put one back.
    /// The device is BUSY while this trace runs, so Send only enqueues.
    void Refill(Ptr<const Packet>)
    {
        SendOne();
    }

    /// Receive callback of an intermediate node: out of the other device.
    bool Forward(Ptr<NetDevice> next,
                 Ptr<NetDevice>,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address&)
    {
        ++m_hops;
        next->Send(packet->Copy(), next->GetBroadcast(), protocol);
        return true;
    }

    /// Receive callback of the last node.
    bool Sink(Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&)
    {
        ++m_hops;
        return true;
    }

    /// The same two steps as Node protocol handlers (the path every ns-3
    /// protocol takes: device -> Node -> handler).
    void ForwardFromNode(Ptr<NetDevice> next,
                         Ptr<NetDevice> device,
                         Ptr<const Packet> packet,
                         uint16_t protocol,
                         const Address& from,
                         const Address&,
                         NetDevice::PacketType)
    {
        Forward(next, device, packet, protocol, from);
    }

    void SinkFromNode(Ptr<NetDevice> device,
                      Ptr<const Packet> packet,
                      uint16_t protocol,
                      const Address& from,
                      const Address&,
                      NetDevice::PacketType)
    {
        Sink(device, packet, protocol, from);
    }

    Ptr<NetDevice> m_source;
    uint64_t m_hops{0};

  private:
    uint64_t m_toSend;
    uint32_t m_packetSize;
};

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t hops = 8;
    uint64_t packets = 1000000;
    std::string rate = "100Gbps";
    std::string delay = "1us";
    uint32_t packetSize = 1000;
    uint32_t queuePackets = 100;
    bool nodeDispatch = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("hops", "number of links in the chain", hops);
    cmd.AddValue("packets", "packets injected at the first node", packets);
    cmd.AddValue("rate", "link data rate", rate);
    cmd.AddValue("delay", "link propagation delay", delay);
    cmd.AddValue("packetSize", "bytes per packet on the wire (PPP header included)", packetSize);
    cmd.AddValue("queuePackets", "device queue size in packets", queuePackets);
    cmd.AddValue("nodeDispatch",
                 "deliver through Node protocol handlers instead of device receive callbacks",
                 nodeDispatch);
    cmd.Parse(argc, argv);

    if (hops < 1)
    {
        NS_FATAL_ERROR("stock-p2p-chain: --hops must be at least 1");
    }
    const uint32_t pppHeaderBytes = 2;
    if (packetSize <= pppHeaderBytes)
    {
        NS_FATAL_ERROR("stock-p2p-chain: --packetSize must exceed the 2-byte PPP header");
    }
    if (queuePackets < 2)
    {
        NS_FATAL_ERROR("stock-p2p-chain: --queuePackets must be at least 2");
    }

    NodeContainer nodes;
    nodes.Create(hops + 1);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(packetSize));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePackets)));

    // links[i] joins node i (device 0 of the pair) to node i+1 (device 1).
    std::vector<NetDeviceContainer> links;
    links.reserve(hops);
    for (uint32_t i = 0; i < hops; ++i)
    {
        links.push_back(p2p.Install(nodes.Get(i), nodes.Get(i + 1)));
    }

    Chain chain(packets, packetSize - pppHeaderBytes);
    chain.m_source = links[0].Get(0);
    for (uint32_t i = 0; i < hops; ++i)
    {
        Ptr<NetDevice> rx = links[i].Get(1);
        bool last = i + 1 == hops;
        if (nodeDispatch && last)
        {
            rx->GetNode()->RegisterProtocolHandler(MakeCallback(&Chain::SinkFromNode, &chain),
                                                   kIpv4Protocol,
                                                   rx);
        }
        else if (nodeDispatch)
        {
            rx->GetNode()->RegisterProtocolHandler(
                MakeCallback(&Chain::ForwardFromNode, &chain).Bind(links[i + 1].Get(0)),
                kIpv4Protocol,
                rx);
        }
        else if (last)
        {
            rx->SetReceiveCallback(MakeCallback(&Chain::Sink, &chain));
        }
        else
        {
            rx->SetReceiveCallback(MakeCallback(&Chain::Forward, &chain).Bind(links[i + 1].Get(0)));
        }
    }
    chain.m_source->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Chain::Refill, &chain));

    // Fill the source queue (the first packet goes straight onto the wire and
    // its refill takes its queue slot); from then on each transmission start
    // enqueues one more, so the queue never runs dry.
    Simulator::ScheduleWithContext(nodes.Get(0)->GetId(), Seconds(0), [&chain, queuePackets]() {
        for (uint32_t i = 0; i < queuePackets; ++i)
        {
            chain.SendOne();
        }
    });

    const stock_benchmark::TimedRun run = stock_benchmark::RunTimed();
    if (chain.m_hops != packets * hops)
    {
        NS_FATAL_ERROR("stock-p2p-chain: expected " << packets * hops << " packet-hops, counted "
                                                    << chain.m_hops);
    }
    // Every frame is a data frame of packetSize bytes (PPP header included).
    stock_benchmark::PrintPerf("stock-p2p-chain", run, chain.m_hops, chain.m_hops * packetSize);
    return 0;
}
