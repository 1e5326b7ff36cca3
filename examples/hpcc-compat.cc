/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs the input files of the HPCC-lineage ns-3 simulators (HPCC's
 * third.cc, SimAI, astra-network-ns3) on this module's RoCE fabric and
 * writes their outputs: fct.txt and pfc.txt in the simulators' formats, so
 * their analysis scripts keep working, and, with --db, the run in SQLite.
 *
 * The config names the other files, as the simulators read it
 * (TOPOLOGY_FILE, FLOW_FILE, FCT_OUTPUT_FILE, PFC_OUTPUT_FILE; paths
 * relative to the working directory); flags override them. Config keys
 * the module does not model are listed on stderr (an error with --strict).
 * doc/hpcc-compat.md maps every key onto the module's attributes.
 *
 *   ./hpcc-compat --config=mix/config.txt --db=results.db
 *   ./hpcc-compat --topology=topology.txt --flows=flow.txt --fctOutput=fct.txt
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
    HpccScenarioOptions options;
    std::string db;
    std::string stopTime;
    uint32_t seed = 1;

    CommandLine cmd(__FILE__);
    AddFlag(cmd,
            "config",
            "HPCC config file (KEY value lines) naming the other files",
            options.configFile);
    AddFlag(cmd,
            "topology",
            "Topology file; overrides the config's TOPOLOGY_FILE",
            options.topologyFile);
    AddFlag(cmd, "flows", "Flow file; overrides the config's FLOW_FILE", options.flowFile);
    AddFlag(cmd,
            "fctOutput",
            "fct.txt to write; overrides FCT_OUTPUT_FILE (default fct.txt)",
            options.fctOutputFile);
    AddFlag(cmd,
            "pfcOutput",
            "pfc.txt to write; overrides PFC_OUTPUT_FILE (default pfc.txt)",
            options.pfcOutputFile);
    AddFlag(cmd, "strict", "Refuse config keys the module does not model", options.strict);
    AddFlag(cmd, "db", "SQLite file to append the run to (empty: none)", db, EmptyFlag::MeansNone);
    AddFlag(cmd, "seed", "Random seed (ECMP hash, PSNs, ECN, link errors)", seed);
    AddFlag(cmd,
            "stopTime",
            "Simulated time limit; overrides SIMULATOR_STOP_TIME (default 3.01s)",
            stopTime);
    ParseExampleCommandLine(cmd, argc, argv, "hpcc-compat");

    return RunExampleMain("hpcc-compat", [&](std::unique_ptr<SimulationRun>& run) {
        RequireFlag(!options.configFile.empty() ||
                        (!options.topologyFile.empty() && !options.flowFile.empty()),
                    "config",
                    options.configFile,
                    "give --config, or --topology and --flows");
        RequireFlag(seed > 0, "seed", std::to_string(seed), "must be positive");
        Time stop;
        if (!stopTime.empty())
        {
            stop = ParseTimeFlag("stopTime", stopTime);
            RequireFlag(stop.IsStrictlyPositive(), "stopTime", stopTime, "must be positive");
        }

        const HpccScenario scenario(options);
        const HpccConfig& c = scenario.GetConfig().config;
        RequireDistinctOutputs({{"--config", options.configFile},
                                {"topology", scenario.GetTopologyFile()},
                                {"flows", scenario.GetFlowFile()}},
                               {{"FCT output", scenario.GetFctOutputFile()},
                                {"PFC output", scenario.GetPfcOutputFile()},
                                {"QLEN_MON_FILE", c.qlenMonFile.value_or("")},
                                {"BW_MON_FILE", c.bwMonFile.value_or("")},
                                {"RATE_MON_FILE", c.rateMonFile.value_or("")},
                                {"CNP_MON_FILE", c.cnpMonFile.value_or("")},
                                {"--db", db}});
        if (!scenario.GetUnmodelledKeys().empty())
        {
            std::cerr << "hpcc-compat: warning: " << scenario.DescribeUnmodelledKeys() << "\n";
        }
        if (scenario.GetNNvSwitches() > 0)
        {
            std::cerr << "hpcc-compat: note: " << scenario.GetTopologyFile() << ": "
                      << scenario.GetNNvSwitches() << " NVSwitches and "
                      << scenario.GetNNvlinkLinks()
                      << " NVLink links carry the flows between GPUs of one server, each at its "
                         "links' standalone time (no NVLink contention); the rest cross the "
                         "RoCE fabric\n";
        }
        const bool untilDone = stopTime.empty() && scenario.RunsUntilDone();
        if (untilDone)
        {
            std::cerr << "hpcc-compat: note: " << options.configFile
                      << ": SIMULATOR_STOP_TIME is beyond the simulator's range (about 106 "
                         "days), which means no limit: the run goes on until its flows are done\n";
        }
        else if (stopTime.empty())
        {
            stop = scenario.GetStopTime();
        }

        nlohmann::json unmodelled = nlohmann::json::array();
        for (const HpccUnmodelledKey& k : scenario.GetUnmodelledKeys())
        {
            unmodelled.push_back(k.key);
        }
        const nlohmann::json params = {{"config", options.configFile},
                                       {"topology", scenario.GetTopologyFile()},
                                       {"flows", scenario.GetFlowFile()},
                                       {"fctOutput", scenario.GetFctOutputFile()},
                                       {"pfcOutput", scenario.GetPfcOutputFile()},
                                       {"strict", options.strict},
                                       {"stopNs", stop.GetNanoSeconds()},
                                       {"payloadBytes", scenario.GetPayloadBytes()},
                                       {"unmodelledKeys", unmodelled}};
        run = std::make_unique<SimulationRun>("hpcc-compat", "none", seed, params.dump(), db);

        RngSeedManager::SetSeed(seed);
        RoceFabricHelper helper;
        scenario.Configure(helper);
        helper.SetEcmpSeed(seed);
        Ptr<RoceFabric> fabric = scenario.Install(helper);

        run->Built();

        RoceFlowMonitor monitor(fabric);
        run->StreamFlows(monitor);
        // LINK_DOWN: the simulators recompute routes the moment the link fails.
        Ptr<FabricFaults> faults =
            CreateObjectWithAttributes<FabricFaults>("DetectionDelay", TimeValue(Time(0)));
        faults->Install(fabric, scenario.GetFaults());
        const HpccPostedFlows posted = scenario.PostFlows(fabric);
        HpccFctWriter fct(scenario.GetFctOutputFile(), fabric, posted);
        HpccPfcWriter pfc(scenario.GetPfcOutputFile(), fabric, scenario);
        HpccMonitorWriter monitors(scenario, fabric, posted, [&fct, &scenario]() {
            return fct.GetLines() < scenario.GetFlows().size();
        });

        const FabricTopology& topo = fabric->GetTopology();
        std::cout << "hpcc-compat: " << scenario.GetTopologyFile() << ": " << topo.GetNHosts()
                  << " hosts, " << topo.GetNSwitches() << " switches, " << topo.GetNLinks()
                  << " links; " << scenario.GetFlowFile() << ": " << scenario.GetFlows().size()
                  << " flows; ";
        if (untilDone)
        {
            std::cout << "no stop time\n";
        }
        else
        {
            std::cout << "stop at " << stop.GetSeconds() << " s\n";
        }
        if (!untilDone)
        {
            Simulator::Stop(stop);
        }
        Simulator::Run();
        run->EndIfInterrupted(monitor);
        fct.Close();
        pfc.Close();
        monitors.Close();

        monitor.PrintSummary(std::cout);
        faults->PrintSummary(std::cout);
        std::cout << "fct lines:        " << fct.GetLines() << " in " << scenario.GetFctOutputFile()
                  << "\npfc lines:        " << pfc.GetLines() << " in "
                  << scenario.GetPfcOutputFile() << "\n";
        if (monitors.GetLines() > 0)
        {
            std::cout << "monitor lines:    " << monitors.GetLines()
                      << " (SimAI's QLEN/BW/RATE/CNP_MON_FILE)\n";
        }
        auto writeFaults = [&](ResultsDatabase& db, int64_t id) { faults->Write(db, id); };
        if (fct.GetLines() != scenario.GetFlows().size())
        {
            const std::string message =
                std::to_string(scenario.GetFlows().size() - fct.GetLines()) +
                " flows did not complete before the stop time " +
                std::to_string(stop.GetSeconds()) + " s";
            run->Fail(message, monitor, true, writeFaults);
            throw IncompleteRunError(message);
        }
        run->Finish(monitor, true, writeFaults);
    });
}
