/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A random permutation of RDMA WRITEs on a k-ary fat-tree of RoCE
 * switches: every host sends --bytes to another host, all at time 0, over
 * ECMP paths. Prints per-flow statistics, a PERF line with the simulator's
 * speed and, with --db, writes the run to SQLite.
 *
 *   ./fat-tree-permutation --k=4 --bytes=1000000 --cc=dcqcn --db=results.db
 *
 * --backend=flow runs the same flows as max-min fair fluid flows on the same
 * topology and ECMP paths (FlowNetwork). Its random streams are not those
 * of the packet-level NICs, so it draws a different derangement from the
 * same seed.
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <iostream>
#include <nlohmann/json.hpp>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FatTreePermutation");

namespace
{

/// A random derangement of \p n hosts (Sattolo: one n-cycle), nobody sending to itself.
std::vector<uint32_t>
Derangement(uint32_t n)
{
    std::vector<uint32_t> dst(n);
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    for (uint32_t i = 0; i < n; ++i)
    {
        dst[i] = i;
    }
    for (uint32_t i = n - 1; i > 0; --i)
    {
        std::swap(dst[i], dst[rng->GetInteger(0, i - 1)]);
    }
    return dst;
}

/// The permutation on the flow-level model of \p topology.
void
RunFlowLevel(const FabricTopology& topology,
             const FabricFlags& flags,
             uint64_t bytes,
             SimulationRun& run)
{
    Ptr<FlowNetwork> network = CreateObject<FlowNetwork>();
    network->SetAttribute("PayloadPerPacket", UintegerValue(flags.mtu));
    network->SetAttribute("EcmpSeed", UintegerValue(flags.seed));
    network->Build(topology);
    run.Built();
    const uint32_t n = network->GetNHosts();
    const std::vector<uint32_t> dst = Derangement(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        RdmaMessageInfo info;
        info.bytes = bytes;
        network->SendMessage(i, dst[i], info, nullptr);
    }
    std::cout << "flow level: " << n << " hosts, " << topology.GetNSwitches() << " switches, "
              << flags.linkRate << "\n";
    Simulator::Stop(flags.stop);
    Simulator::Run();
    Time sum(0);
    Time last(0);
    for (const FlowNetwork::MessageRecord& m : network->GetMessages())
    {
        if (m.delivered.IsPositive())
        {
            sum += m.delivered - m.info.start;
            last = std::max(last, m.delivered);
        }
    }
    const uint64_t done = network->GetMessagesDelivered();
    std::cout << "flows completed:  " << done << " of " << n << "\n";
    if (done > 0)
    {
        std::cout << "mean FCT:         " << sum.GetSeconds() * 1e6 / static_cast<double>(done)
                  << " us\nlast delivery:    " << last.GetSeconds() * 1e6 << " us\n"
                  << "rate solves:      " << network->GetRecomputations() << "\n";
    }
    if (done != n)
    {
        throw IncompleteRunError(std::to_string(n - done) +
                                 " flows did not complete before --stopTime=" + flags.stopTime);
    }
    run.Finish(FlowNetworkRecords(network));
}

} // namespace

int
main(int argc, char* argv[])
{
    RoceExampleDefaults();
    uint32_t k = 4;
    uint64_t bytes = 1000000;
    FabricFlags fabricFlags;
    std::string pcap;
    std::string lingjun;
    std::string backend = "packet";
    std::string faults;

    CommandLine cmd(__FILE__);
    AddFlag(cmd, "k", "Fat-tree radix (even, >= 2): k^3/4 hosts", k);
    AddFlag(cmd, "bytes", "Bytes each host sends", bytes);
    fabricFlags.AddTo(cmd);
    AddFlag(cmd, "pcap", "Write pcap traces of host 0's port with this prefix", pcap);
    AddFlag(cmd,
            "lingjun",
            "Instead of the fat-tree, use the Lingjun production topology read from this "
            "topo.csv (Alibaba GPU cluster dataset 2023)",
            lingjun);
    AddFlag(cmd,
            "backend",
            "Network model: packet (RoCE, packet by packet) or flow (max-min fair fluid "
            "flows on the same topology and routes)",
            backend);
    AddFlag(cmd,
            "faults",
            "Links, switches or hosts to take down: KIND:ID@DOWN[-UP],... with KIND "
            "link (link id), switch (node id) or host (host index), e.g. "
            "link:12@10us-50us,switch:20@20us (ns3::FabricFaults::DetectionDelay: time "
            "to route around)",
            faults);
    ParseExampleCommandLine(cmd, argc, argv, "fat-tree-permutation");

    return RunMpiExampleMain("fat-tree-permutation", [&](std::unique_ptr<SimulationRun>& run) {
        RequireFlag(k >= 2 && k % 2 == 0, "k", std::to_string(k), "must be even and >= 2");
        RequireFlag(k <= 64, "k", std::to_string(k), "at most 64");
        RequireFlag(bytes > 0 && bytes <= kMaxByteCount,
                    "bytes",
                    std::to_string(bytes),
                    "must be from 1 to 10^18");
        RequireFlag(backend == "packet" || backend == "flow",
                    "backend",
                    backend,
                    "must be packet or flow");
        std::vector<FabricFault> faultList;
        ApplyFlag("faults", faults, [&]() { faultList = ParseFaultList(faults, "faults"); });
        RoceFabricHelper helper;
        fabricFlags.Apply(helper);
        const DataRate rate = fabricFlags.rate;
        const Time delay = fabricFlags.delay;

        nlohmann::json params = fabricFlags.ToJson();
        params["k"] = k;
        params["bytes"] = bytes;
        params["lingjun"] = lingjun;
        params["backend"] = backend;
        params["faults"] = faults;
        const std::string name =
            lingjun.empty() ? "fat-tree-permutation-k" + std::to_string(k) : "lingjun-permutation";
        run = std::make_unique<SimulationRun>(name,
                                              "none",
                                              fabricFlags.seed,
                                              params.dump(),
                                              fabricFlags.db);

        FatTreeParams ft;
        ft.k = k;
        ft.hostRateBps = ft.edgeAggRateBps = ft.aggCoreRateBps = rate.GetBitRate();
        ft.hostDelayNs = ft.edgeAggDelayNs = ft.aggCoreDelayNs = delay.GetNanoSeconds();
        FabricTopology topology;
        if (lingjun.empty())
        {
            topology = MakeFatTree(ft);
        }
        else
        {
            LingjunParams lp;
            lp.hostRateBps = lp.torAggRateBps = lp.aggCoreRateBps = rate.GetBitRate();
            lp.hostDelayNs = lp.torAggDelayNs = lp.aggCoreDelayNs = delay.GetNanoSeconds();
            topology = ReadLingjunTopology(lingjun, lp);
            // Every host sends to another: one host has no one to send to.
            if (topology.GetNHosts() < 2)
            {
                throw std::runtime_error(lingjun + ": " + std::to_string(topology.GetNHosts()) +
                                         " host; a permutation needs at least 2");
            }
        }
        if (backend == "flow")
        {
            RequireFlag(faults.empty(), "faults", faults, "needs the packet backend");
            RunFlowLevel(topology, fabricFlags, bytes, *run);
            return;
        }
        Ptr<RoceFabric> fabric = helper.Install(topology);
        run->Built();
        RoceFlowMonitor monitor(fabric);
        run->StreamFlows(monitor);
        Ptr<FabricFaults> injector = CreateObject<FabricFaults>();
        ApplyFlag("faults", faults, [&]() { injector->Install(fabric, faultList); });
        if (!pcap.empty())
        {
            fabric->EnablePcap(pcap, 0);
        }

        const uint32_t n = fabric->GetNHosts();
        const std::vector<uint32_t> dst = Derangement(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            RdmaMessageInfo info;
            info.bytes = bytes;
            fabric->SendMessage(i, dst[i], info, Seconds(0));
        }

        if (DistributedRank() == 0)
        {
            std::cout << (lingjun.empty() ? "fat-tree k=" + std::to_string(k) : "Lingjun topology")
                      << ": " << n << " hosts, " << fabric->GetTopology().GetNSwitches()
                      << " switches, " << fabricFlags.linkRate << ", " << fabricFlags.cc << ", PFC "
                      << (fabricFlags.pfc ? "on" : "off") << " (" << DistributedSize()
                      << (DistributedSize() == 1 ? " process" : " MPI ranks") << ")\n";
        }
        // The null-message engine never runs out of events; every flow starts at 0.
        StopWhenFabricIdle(fabric, nullptr);
        Simulator::Stop(fabricFlags.stop);
        Simulator::Run();
        monitor.Combine();
        run->EndIfInterrupted(monitor);
        if (DistributedRank() == 0)
        {
            monitor.PrintSummary(std::cout);
            injector->PrintSummary(std::cout);
        }
        auto writeFaults = [&](ResultsDatabase& db, int64_t id) { injector->Write(db, id); };
        if (monitor.GetCompletedFlows() != n)
        {
            // Flows that failed (retry count exceeded) or were still running.
            const std::string message =
                std::to_string(n - monitor.GetCompletedFlows()) +
                " flows did not complete before --stopTime=" + fabricFlags.stopTime;
            run->Fail(message, monitor, true, writeFaults);
            throw IncompleteRunError(message);
        }
        run->Finish(monitor, true, writeFaults);
    });
}
