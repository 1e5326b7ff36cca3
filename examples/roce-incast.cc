/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Incast: --senders hosts each write --bytes to one receiver through one
 * RoCE switch, all at time 0. The receiver's link is the bottleneck; the
 * report compares the makespan with the bound (all wire bytes at line
 * rate), shows what PFC, ECN/DCQCN and go-back-N did, and each sender's
 * rate while every sender was sending (up to the first delivery): how the
 * congestion control shares the port. --senderCc gives senders congestion
 * controls of their own, to compare them on one port.
 *
 *   ./roce-incast --senders=16 --bytes=2000000 --cc=none --pfc=1
 *   ./roce-incast --senders=2 --bytes=400000000 \
 *       --senderCc='mltcp-dcqcn[Slope=0|Intercept=1.5],mltcp-dcqcn[Slope=0|Intercept=1]'
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <iostream>
#include <nlohmann/json.hpp>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RoceExampleDefaults();
    uint32_t senders = 8;
    uint64_t bytes = 2000000;
    FabricFlags fabricFlags;
    uint64_t bufferBytes = 32 * 1024 * 1024;
    std::string pcap;
    std::string senderCc;

    CommandLine cmd(__FILE__);
    AddFlag(cmd, "senders", "Number of senders", senders);
    AddFlag(cmd, "bytes", "Bytes each sender writes", bytes);
    fabricFlags.AddTo(cmd);
    AddFlag(cmd, "bufferBytes", "Shared buffer of the switch, bytes", bufferBytes);
    AddFlag(cmd, "pcap", "Write a pcap trace of the receiver's port with this prefix", pcap);
    AddFlag(cmd,
            "senderCc",
            "Comma-separated congestion controls (each as --cc) given to senders 1, 2, "
            "... in turn, the list repeated; empty: every sender runs --cc",
            senderCc);
    ParseExampleCommandLine(cmd, argc, argv, "roce-incast");

    return RunExampleMain("roce-incast", [&](std::unique_ptr<SimulationRun>& run) {
        RequireFlag(senders >= 1 && senders <= 4096,
                    "senders",
                    std::to_string(senders),
                    "must be 1-4096");
        RequireFlag(bytes > 0 && bytes <= kMaxByteCount,
                    "bytes",
                    std::to_string(bytes),
                    "must be from 1 to 10^18");
        RequireFlag(bufferBytes > 0 && bufferBytes <= kMaxByteCount,
                    "bufferBytes",
                    std::to_string(bufferBytes),
                    "must be from 1 to 10^18");
        RoceFabricHelper helper;
        fabricFlags.Apply(helper);
        const DataRate rate = fabricFlags.rate;
        const Time delay = fabricFlags.delay;
        const uint32_t mtu = fabricFlags.mtu;
        helper.SetMmuAttribute("BufferSize", UintegerValue(bufferBytes));

        FabricTopology topo;
        const uint32_t sw = topo.AddSwitch("switch", 1);
        for (uint32_t h = 0; h <= senders; ++h)
        {
            const uint32_t host = topo.AddHost("host-" + std::to_string(h), -1, 0);
            topo.AddLink(host, sw, rate.GetBitRate(), delay.GetNanoSeconds());
        }
        nlohmann::json params = fabricFlags.ToJson();
        params["senders"] = senders;
        params["bytes"] = bytes;
        params["bufferBytes"] = bufferBytes;
        params["senderCc"] = senderCc;
        run = std::make_unique<SimulationRun>("roce-incast",
                                              "none",
                                              fabricFlags.seed,
                                              params.dump(),
                                              fabricFlags.db);
        Ptr<RoceFabric> fabric;
        try
        {
            fabric = helper.Install(topo);
        }
        catch (const std::exception& e)
        {
            // The MMU rejects a buffer too small for the ports' reserves and headroom.
            if (std::string(e.what()).find("BufferSize") == std::string::npos)
            {
                throw;
            }
            throw FlagError("bufferBytes", std::to_string(bufferBytes), e.what());
        }
        run->Built();

        const std::vector<std::string> ccs =
            senderCc.empty() ? std::vector<std::string>{} : SplitCsvLine(senderCc);
        std::vector<ObjectFactory> factories;
        for (std::size_t i = 0; i < ccs.size(); ++i)
        {
            RequireFlag(!ccs[i].empty(), "senderCc", senderCc, "has an empty entry");
            try
            {
                factories.push_back(RoceFabricHelper::ParseCongestionControl(ccs[i]));
            }
            catch (const std::exception& e)
            {
                throw FlagError("senderCc",
                                senderCc,
                                "entry " + std::to_string(i + 1) + ": " + e.what());
            }
        }
        for (uint32_t s = 1; s <= senders && !factories.empty(); ++s)
        {
            fabric->GetNic(s)->SetCongestionControlFactory(factories[(s - 1) % factories.size()]);
        }

        RoceFlowMonitor monitor(fabric);
        run->StreamFlows(monitor);
        if (!pcap.empty())
        {
            fabric->EnablePcap(pcap, 0);
        }
        // Each sender's link bytes when the first message is delivered: the
        // rates while every sender was sending. Link s joins host s and the switch.
        Time firstDelivery = Time::Max();
        std::vector<uint64_t> bytesAtFirst(senders + 1, 0);
        for (uint32_t s = 1; s <= senders; ++s)
        {
            RdmaMessageInfo info;
            info.bytes = bytes;
            fabric->SendMessage(s, 0, info, Seconds(0), [&]() {
                if (firstDelivery == Time::Max())
                {
                    firstDelivery = Simulator::Now();
                    for (uint32_t t = 1; t <= senders; ++t)
                    {
                        bytesAtFirst[t] = fabric->GetChannel(t)->GetTxBytes(0);
                    }
                }
            });
        }

        Simulator::Stop(fabricFlags.stop);
        Simulator::Run();
        run->EndIfInterrupted(monitor);

        const double bound =
            senders * RoceWire::MessageWireBytes(bytes, mtu) * 8.0 / rate.GetBitRate();
        const double makespan = monitor.GetLastDelivery().GetSeconds();
        std::cout << "incast: " << senders << " x " << bytes << " B -> 1 receiver, "
                  << fabricFlags.linkRate << ", " << fabricFlags.cc << ", PFC "
                  << (fabricFlags.pfc ? "on" : "off") << ", buffer " << bufferBytes << " B\n";
        monitor.PrintSummary(std::cout);
        std::cout << "makespan:         " << makespan * 1e6 << " us = " << makespan / bound
                  << " x the bottleneck bound (" << bound * 1e6 << " us)\n";
        if (firstDelivery != Time::Max() && firstDelivery.IsStrictlyPositive())
        {
            std::cout << "rates until the first delivery (" << firstDelivery.GetMicroSeconds()
                      << " us), link bytes per second:\n";
            for (uint32_t s = 1; s <= senders; ++s)
            {
                std::cout << "  sender " << s << ": "
                          << bytesAtFirst[s] * 8.0 / firstDelivery.GetSeconds() / 1e9 << " Gb/s"
                          << (ccs.empty() ? "" : "  " + ccs[(s - 1) % ccs.size()]) << "\n";
            }
        }
        if (monitor.GetCompletedFlows() != senders)
        {
            throw IncompleteRunError(
                std::to_string(senders - monitor.GetCompletedFlows()) +
                " flows did not complete before --stopTime=" + fabricFlags.stopTime);
        }
        run->Finish(monitor);
    });
}
