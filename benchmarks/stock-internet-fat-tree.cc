/*
 * Speed reference: a k-ary fat-tree as an ns-3 user would build it from stock
 * parts. PointToPointNetDevice links, the Internet stack on every node (with
 * the traffic-control layer's default queue disc), Ipv4GlobalRouting with
 * per-packet random ECMP, and a random permutation of host pairs, each source
 * sending UDP at line rate with OnOffApplication.
 *
 * A packet-hop is one packet finishing transmission onto one link (PhyTxEnd of
 * the sending device), so every link crossing is counted exactly once.
 *
 * Prints one line:
 *   PERF name=stock-internet-fat-tree packet_hops=N events=N wall_s=X sim_s=X peak_rss_kb=N
 *        data_hops=N ack_hops=0 link_bytes=N
 */

#include "stock-benchmark.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <numeric>
#include <random>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("StockInternetFatTree");

namespace
{

uint64_t g_packetHops = 0;
uint64_t g_linkBytes = 0;

void
CountHop(Ptr<const Packet> p)
{
    ++g_packetHops;
    g_linkBytes += p->GetSize();
}

/// A random permutation of 0..n-1 with no fixed point, from a seeded engine.
std::vector<uint32_t>
RandomDerangement(uint32_t n, uint32_t seed)
{
    std::vector<uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::mt19937 engine(seed);
    bool fixedPoint = true;
    while (fixedPoint)
    {
        std::shuffle(perm.begin(), perm.end(), engine);
        fixedPoint = false;
        for (uint32_t i = 0; i < n; ++i)
        {
            fixedPoint = fixedPoint || perm[i] == i;
        }
    }
    return perm;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    std::string rate = "100Gbps";
    std::string delay = "1us";
    uint32_t packetSize = 1000;
    double simTimeMs = 2.0;
    uint32_t seed = 1;
    bool queueDisc = true;

    CommandLine cmd(__FILE__);
    cmd.AddValue("k", "fat-tree arity (even, >= 2)", k);
    cmd.AddValue("rate", "link data rate", rate);
    cmd.AddValue("delay", "link propagation delay", delay);
    cmd.AddValue("packetSize",
                 "bytes per packet on the wire (PPP + IPv4 + UDP included)",
                 packetSize);
    cmd.AddValue("simTime", "simulated time in milliseconds", simTimeMs);
    cmd.AddValue("seed", "seed of the permutation and of the ECMP choices", seed);
    cmd.AddValue("queueDisc", "keep the default root queue disc on every device", queueDisc);
    cmd.Parse(argc, argv);

    if (k < 2 || k % 2 != 0)
    {
        NS_FATAL_ERROR("stock-internet-fat-tree: --k must be even and at least 2, got " << k);
    }
    const uint32_t headerBytes = 2 + 20 + 8; // PPP + IPv4 + UDP
    if (packetSize <= headerBytes)
    {
        NS_FATAL_ERROR("stock-internet-fat-tree: --packetSize must exceed " << headerBytes);
    }
    if (simTimeMs <= 0)
    {
        NS_FATAL_ERROR("stock-internet-fat-tree: --simTime must be positive");
    }

    RngSeedManager::SetSeed(seed);
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(true));

    const uint32_t half = k / 2;
    const uint32_t numHosts = k * half * half;
    NodeContainer hosts;
    NodeContainer edges;
    NodeContainer aggs;
    NodeContainer cores;
    hosts.Create(numHosts);
    edges.Create(k * half);
    aggs.Create(k * half);
    cores.Create(half * half);

    InternetStackHelper internet;
    internet.Install(hosts);
    internet.Install(edges);
    internet.Install(aggs);
    internet.Install(cores);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(packetSize - 2));
    p2p.SetChannelAttribute("Delay", StringValue(delay));

    // One /30 per link; Assign also installs the default root queue disc.
    Ipv4AddressHelper address("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4Address> hostAddress(numHosts);
    NetDeviceContainer allDevices;
    auto connect = [&](Ptr<Node> a, Ptr<Node> b) {
        NetDeviceContainer devices = p2p.Install(a, b);
        Ipv4InterfaceContainer interfaces = address.Assign(devices);
        address.NewNetwork();
        allDevices.Add(devices);
        return interfaces;
    };

    // Pod p has edge and aggregation switches p*half..p*half+half-1; edge e
    // serves hosts e*half..e*half+half-1; aggregation switch a of every pod
    // goes to core switches a*half..a*half+half-1.
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            Ptr<Node> edge = edges.Get(p * half + e);
            for (uint32_t h = 0; h < half; ++h)
            {
                uint32_t host = (p * half + e) * half + h;
                hostAddress[host] = connect(hosts.Get(host), edge).GetAddress(0);
            }
            for (uint32_t a = 0; a < half; ++a)
            {
                connect(edge, aggs.Get(p * half + a));
            }
        }
        for (uint32_t a = 0; a < half; ++a)
        {
            for (uint32_t c = 0; c < half; ++c)
            {
                connect(aggs.Get(p * half + a), cores.Get(a * half + c));
            }
        }
    }
    if (!queueDisc)
    {
        TrafficControlHelper().Uninstall(allDevices);
    }

    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Permutation traffic: host i sends to host dst[i] at line rate. OnOff
    // counts payload bits only, so scale its rate to fill the wire exactly.
    const uint16_t port = 9;
    const uint32_t payload = packetSize - headerBytes;
    const DataRate lineRate(rate);
    const DataRate appRate(lineRate.GetBitRate() * payload / packetSize);
    const Time simTime = MicroSeconds(simTimeMs * 1000.0);

    PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinks = sink.Install(hosts);
    sinks.Start(Seconds(0));

    std::vector<uint32_t> dst = RandomDerangement(numHosts, seed);
    ApplicationContainer sources;
    for (uint32_t i = 0; i < numHosts; ++i)
    {
        OnOffHelper onOff("ns3::UdpSocketFactory", InetSocketAddress(hostAddress[dst[i]], port));
        onOff.SetConstantRate(appRate, payload);
        sources.Add(onOff.Install(hosts.Get(i)));
    }
    sources.Start(Seconds(0));
    sources.Stop(simTime);

    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxEnd",
                                  MakeCallback(&CountHop));

    Simulator::Stop(simTime);
    const stock_benchmark::TimedRun run = stock_benchmark::RunTimed();
    // Every frame is a UDP data frame: no acknowledgements cross the links.
    stock_benchmark::PrintPerf("stock-internet-fat-tree", run, g_packetHops, g_linkBytes);
    return 0;
}
