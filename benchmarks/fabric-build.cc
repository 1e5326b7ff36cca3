/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * How long building a k-ary fat-tree takes and how much memory it holds:
 * the topology, then (--level) its ECMP routes alone, the packet-level
 * fabric (RoceFabricHelper::Install: routes, nodes, NICs, switches, ports
 * and links) or the flow-level network (FlowNetwork::Build). Prints one
 * line, read by run-build-benchmark.sh:
 *
 *   BUILD k=64 level=packet keying=prefix hosts=65536 switches=5120 links=196608
 *         topology_s=X build_s=X total_s=X routes_mb=X peak_rss_kb=N
 *
 *   build-release/fabric-build --k=64 --level=routes --keying=host
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>

using namespace ns3;

namespace
{

double
SecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 16;
    std::string level = "packet";
    std::string keying = "prefix";
    CommandLine cmd(__FILE__);
    cmd.AddValue("k", "Fat-tree radix (even, 2 to 64)", k);
    cmd.AddValue("level", "What to build: topology, routes, packet or flow", level);
    cmd.AddValue("keying", "Routes per prefix (edge switch) or per host", keying);
    cmd.Parse(argc, argv);
    if (k < 2 || k % 2 != 0 || k > 64)
    {
        std::cerr << "fabric-build: --k=" << k << ": must be even, from 2 to 64\n";
        return 2;
    }
    if (level != "topology" && level != "routes" && level != "packet" && level != "flow")
    {
        std::cerr << "fabric-build: --level=" << level
                  << ": must be topology, routes, packet or flow\n";
        return 2;
    }
    if (keying != "prefix" && keying != "host")
    {
        std::cerr << "fabric-build: --keying=" << keying << ": must be prefix or host\n";
        return 2;
    }
    const EcmpRoutes::Keying routeKeying =
        keying == "prefix" ? EcmpRoutes::Keying::PerPrefix : EcmpRoutes::Keying::PerHost;
    RoceUsePicoseconds();

    const auto start = std::chrono::steady_clock::now();
    FatTreeParams params;
    params.k = k;
    const FabricTopology topology = MakeFatTree(params);
    const double topologySeconds = SecondsSince(start);

    const auto buildStart = std::chrono::steady_clock::now();
    double routesMb = -1;
    std::unique_ptr<EcmpRoutes> routes;
    Ptr<RoceFabric> fabric;
    Ptr<FlowNetwork> network;
    if (level == "routes")
    {
        routes = std::make_unique<EcmpRoutes>(topology, routeKeying);
        routesMb = routes->MemoryBytes() / 1e6;
    }
    else if (level == "packet")
    {
        RoceFabricHelper helper;
        helper.SetRouteKeying(routeKeying);
        fabric = helper.Install(topology);
        routesMb = fabric->GetRoutes()->MemoryBytes() / 1e6;
    }
    else if (level == "flow")
    {
        if (routeKeying != EcmpRoutes::Keying::PerPrefix)
        {
            std::cerr << "fabric-build: the flow level routes per prefix only\n";
            return 2;
        }
        network = CreateObject<FlowNetwork>();
        network->Build(topology);
    }
    const double buildSeconds = SecondsSince(buildStart);

    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    std::printf("BUILD k=%u level=%s keying=%s hosts=%u switches=%u links=%u topology_s=%.3f "
                "build_s=%.3f total_s=%.3f routes_mb=%.1f peak_rss_kb=%ld\n",
                k,
                level.c_str(),
                keying.c_str(),
                topology.GetNHosts(),
                topology.GetNSwitches(),
                topology.GetNLinks(),
                topologySeconds,
                buildSeconds,
                topologySeconds + buildSeconds,
                routesMb,
                usage.ru_maxrss);
    Simulator::Destroy();
    return 0;
}
