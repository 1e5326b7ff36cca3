/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Data-parallel training jobs sharing a RoCE fabric: each iteration
 * computes, then all-reduces its gradients as RDMA messages over the
 * fabric (NVLink between GPUs of one host). The run comes from a scenario
 * file (--scenario, see doc/scenario-format.md) or from the flags below
 * (a k-ary fat-tree with identical jobs, or jobs from a CSV trace).
 * --scheduler picks the collective scheduler (--help lists every one the
 * module has); --compare runs the same scenario under several and prints
 * one table normalized to fair sharing and to isolated runs.
 * Prints per-job training and communication times; --db writes runs,
 * jobs, iterations, flows, links, scheduler decisions and gates to SQLite.
 *
 *   ./multi-tenant-fat-tree --jobs=2 --workers=4 --placement=spread --scale=0.01
 *   ./multi-tenant-fat-tree --scheduler=cassini
 *   ./multi-tenant-fat-tree --compare=all
 *   ./multi-tenant-fat-tree --scenario=examples/scenarios/two-jobs-fat-tree.json
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RoceExampleDefaults();
    std::string scenario;
    std::string topology = "fat-tree";
    int64_t k = 4;             // a count: read signed, so that -1 is an error, not 4294967295
    int64_t servers = 4;       // a count: read signed, so that -1 is an error, not 4294967295
    int64_t gpusPerServer = 8; // a count: read signed, so that -1 is an error, not 4294967295
    int64_t spines = 2;        // a count: read signed, so that -1 is an error, not 4294967295
    int64_t gpusPerHost = 1;   // a count: read signed, so that -1 is an error, not 4294967295
    int64_t jobs = 2;          // a count: read signed, so that -1 is an error, not 4294967295
    std::string model = "gpt2-124m";
    int64_t workers = 4;    // a count: read signed, so that -1 is an error, not 4294967295
    int64_t iterations = 5; // a count: read signed, so that -1 is an error, not 4294967295
    std::string placement = "spread";
    std::string collective = "ring-all-reduce";
    int64_t buckets = 1;  // a count: read signed, so that -1 is an error, not 4294967295
    int64_t channels = 1; // a count: read signed, so that -1 is an error, not 4294967295
    double scale = 0.01;
    std::string gpu = "a100";
    double computeEfficiency = 0;  // 0: the model's default
    int64_t batchPerGpu = 8;       // a count: read signed, so that -1 is an error, not 4294967295
    int64_t sequenceLength = 1024; // a count: read signed, so that -1 is an error, not 4294967295
    std::string linkRate = "100Gbps";
    std::string linkDelay = "1us";
    std::string cc = "dcqcn";
    uint32_t mtu = RoceWire::kDefaultMtu;
    int64_t seed = 1; // a count: read signed, so that -1 is an error, not 4294967295
    std::string db;
    bool flowRows = true;
    std::string trace;
    std::string stopTime = "100s";
    std::string scheduler;
    std::string compare;
    uint32_t parallel = 0;
    std::string backend;
    std::string faults;

    CommandLine cmd(__FILE__);
    AddFlag(cmd,
            "scenario",
            "JSON scenario file; it replaces every flag below except --db, --scheduler, "
            "--backend, --compare and --parallel",
            scenario);
    AddFlag(cmd,
            "topology",
            "fat-tree (k-ary) or rail-optimized (servers of gpusPerServer GPUs, NIC i of "
            "every server on rail leaf i, rails joined by spines)",
            topology);
    AddFlag(cmd, "k", "Fat-tree radix (even, >= 2)", k);
    AddFlag(cmd, "servers", "Rail-optimized: multi-GPU servers", servers);
    AddFlag(cmd, "gpusPerServer", "Rail-optimized: GPUs, NICs and rails per server", gpusPerServer);
    AddFlag(cmd, "spines", "Rail-optimized: spine switches", spines);
    AddFlag(cmd, "gpusPerHost", "GPUs per host in the cluster", gpusPerHost);
    AddFlag(cmd, "jobs", "Number of identical jobs (without --trace)", jobs);
    AddFlag(cmd, "model", "Model of every job (gpt2-124m, pythia-1b, ...)", model);
    AddFlag(cmd, "workers", "Workers (GPUs) per job", workers);
    AddFlag(cmd, "iterations", "Iterations per job", iterations);
    AddFlag(cmd, "placement", "packed, spread or random", placement);
    AddFlag(cmd,
            "collective",
            "Collective of every job (" + ShortNameRegistry::ListNames(Collective::GetTypeId()) +
                ")",
            collective);
    AddFlag(cmd, "buckets", "Gradient buckets (overlap with backward when > 1)", buckets);
    AddFlag(cmd, "channels", "Parallel rings (NCCL channels)", channels);
    AddFlag(cmd,
            "scale",
            "Scales gradient bytes and compute time alike (keeps their ratio)",
            scale);
    AddFlag(cmd, "gpu", "GPU of the compute-time model (a100, a100-40gb, h100, h200, b200)", gpu);
    AddFlag(cmd,
            "computeEfficiency",
            "Fraction of the GPU's peak the compute of a job other than an LLM reaches (0: 0.4; "
            "an LLM job's compute is timed kernel by kernel)",
            computeEfficiency);
    AddFlag(cmd, "batchPerGpu", "Sequences (images) per GPU per iteration", batchPerGpu);
    AddFlag(cmd, "sequenceLength", "Tokens per sequence", sequenceLength);
    AddFlag(cmd, "linkRate", "Rate of every link", linkRate);
    AddFlag(cmd, "linkDelay", "Propagation delay of every link", linkDelay);
    AddFlag(cmd,
            "cc",
            "Congestion control (" + ShortNameRegistry::ListNames(RdmaCongestionOps::GetTypeId()) +
                ", or a TypeId name; attributes in brackets: dcqcn[profile=hpcc])",
            cc);
    AddFlag(cmd, "mtu", "RoCE path MTU: RDMA payload bytes per data packet (256-4096)", mtu);
    AddFlag(cmd, "seed", "Random seed", seed);
    AddFlag(cmd, "db", "SQLite file to append the run to (empty: none)", db, EmptyFlag::MeansNone);
    AddFlag(cmd, "flowRows", "Write one row per RDMA message to the flows table", flowRows);
    AddFlag(cmd, "trace", "CSV job trace (arrival,model,workers,iterations,...)", trace);
    AddFlag(cmd, "stopTime", "Simulated time limit", stopTime);
    // Every scheduler the module registers, so the help cannot miss one.
    std::string schedulerNames;
    for (const std::string& n : CollectiveSchedulerHelper::GetSchedulerNames())
    {
        schedulerNames += n + ", ";
    }
    AddFlag(cmd,
            "faults",
            "Links, switches or hosts to take down: KIND:ID@DOWN[-UP],... with KIND "
            "link (link id), switch (node id) or host (host index), e.g. "
            "link:12@1ms-3ms,host:2@5ms (ns3::FabricFaults::DetectionDelay: time to "
            "route around)",
            faults);
    AddFlag(cmd,
            "scheduler",
            "Collective scheduler (" + schedulerNames +
                "or a TypeId name); default fair, or the scenario's",
            scheduler);
    AddFlag(cmd,
            "backend",
            "Network model: packet (RoCE, packet by packet) or flow (max-min fair fluid "
            "flows on the same topology and routes); default packet, or the scenario's",
            backend);
    AddFlag(cmd,
            "compare",
            "Comma-separated schedulers to compare (fair and isolated are always "
            "included), or 'all'",
            compare);
    AddFlag(cmd,
            "parallel",
            "With --compare: simulations run at once, each in a process of its own (0: "
            "one per core; 1: one after the other); the results are the same",
            parallel);
    // Remember the defaults: with --scenario, a flag that was changed is an
    // error. One table of names and values, so that neither can drift from the other.
    auto flagValues = [&]() {
        return std::vector<std::pair<std::string, std::string>>{
            {"topology", topology},
            {"k", std::to_string(k)},
            {"servers", std::to_string(servers)},
            {"gpusPerServer", std::to_string(gpusPerServer)},
            {"spines", std::to_string(spines)},
            {"gpusPerHost", std::to_string(gpusPerHost)},
            {"jobs", std::to_string(jobs)},
            {"model", model},
            {"workers", std::to_string(workers)},
            {"iterations", std::to_string(iterations)},
            {"placement", placement},
            {"collective", collective},
            {"buckets", std::to_string(buckets)},
            {"channels", std::to_string(channels)},
            {"scale", std::to_string(scale)},
            {"gpu", gpu},
            {"computeEfficiency", std::to_string(computeEfficiency)},
            {"batchPerGpu", std::to_string(batchPerGpu)},
            {"sequenceLength", std::to_string(sequenceLength)},
            {"linkRate", linkRate},
            {"linkDelay", linkDelay},
            {"cc", cc},
            {"mtu", std::to_string(mtu)},
            {"seed", std::to_string(seed)},
            {"flowRows", std::to_string(flowRows)},
            {"trace", trace},
            {"stopTime", stopTime},
            {"faults", faults}};
    };
    const auto before = flagValues();
    ParseExampleCommandLine(cmd, argc, argv, "multi-tenant-fat-tree");
    const auto after = flagValues();

    return RunMpiExampleMain("multi-tenant-fat-tree", [&](std::unique_ptr<SimulationRun>&) {
        ScenarioSpec spec;
        if (!scenario.empty())
        {
            for (std::size_t i = 0; i < after.size(); ++i)
            {
                RequireFlag(before[i].second == after[i].second,
                            after[i].first,
                            after[i].second,
                            "cannot be combined with --scenario (set it in the file)");
            }
            spec = ReadScenarioFile(scenario);
            if (FlagWasGiven("db"))
            {
                spec.output.db = db; // "--db=" means none, over the scenario's output.db
            }
        }
        else
        {
            RequireFlag(k >= 2 && k % 2 == 0, "k", std::to_string(k), "must be even and >= 2");
            RequireCountFlag("k", k, 2);
            // Checked for either topology, so that a bad value is never silently unused.
            RequireCountFlag("servers", servers, 1);
            RequireCountFlag("gpusPerServer", gpusPerServer, 1);
            RequireCountFlag("spines", spines, 1);
            RequireCountFlag("gpusPerHost", gpusPerHost, 1);
            if (trace.empty())
            {
                RequireCountFlag("jobs", jobs, 1); // 0 would run nothing and be stored complete
            }
            RequireCountFlag("workers", workers, 1);
            RequireCountFlag("iterations", iterations, 1);
            RequireCountFlag("buckets", buckets, 1);
            RequireCountFlag("channels", channels, 1);
            RequireCountFlag("batchPerGpu", batchPerGpu, 1);
            RequireCountFlag("sequenceLength", sequenceLength, 1);
            RequireCountFlag("seed", seed, 1);
            RequireMtuFlag(mtu);
            RequireFlag(scale > 0, "scale", std::to_string(scale), "must be positive");
            const uint64_t rate = ParseRateFlag("linkRate", linkRate).GetBitRate();
            ApplyFlag("cc", cc, [&]() { RoceFabricHelper().SetCongestionControl(cc); });
            spec.source = "command line";
            spec.name = "multi-tenant-fat-tree";
            spec.seed = seed;
            spec.stopTimeNs = ParseTimeFlag("stopTime", stopTime).GetNanoSeconds();
            RequireFlag(topology == "fat-tree" || topology == "rail-optimized",
                        "topology",
                        topology,
                        "must be fat-tree or rail-optimized");
            spec.topology.kind = topology;
            spec.topology.gpusPerHost = gpusPerHost;
            const TimeValue delay(
                NanoSeconds(ParseTimeFlag("linkDelay", linkDelay).GetNanoSeconds()));
            if (topology == "rail-optimized")
            {
                // Every fabric host is one GPU's NIC; NVLink joins the NICs of a server.
                RequireFlag(gpusPerHost == 1,
                            "gpusPerHost",
                            std::to_string(gpusPerHost),
                            "must be 1 with --topology=rail-optimized (use --gpusPerServer)");
                spec.topology.Set("servers", UintegerValue(servers))
                    .Set("gpusPerServer", UintegerValue(gpusPerServer))
                    .Set("spines", UintegerValue(spines))
                    .Set("hostRate", DataRateValue(DataRate(rate)))
                    .Set("railSpineRate", DataRateValue(DataRate(rate)))
                    .Set("hostDelay", delay)
                    .Set("railSpineDelay", delay);
            }
            for (const char* key : {"hostRate", "edgeAggRate", "aggCoreRate"})
            {
                spec.topology.Set("fat-tree", key, DataRateValue(DataRate(rate)));
            }
            for (const char* key : {"hostDelay", "edgeAggDelay", "aggCoreDelay"})
            {
                spec.topology.Set("fat-tree", key, delay);
            }
            spec.topology.Set("fat-tree", "k", UintegerValue(k));
            spec.fabric.cc = cc;
            spec.fabric.mtu = mtu;
            JobSpec& d = spec.jobDefaults;
            d.model = model;
            d.workers = workers;
            d.gpusPerHost = gpusPerHost;
            d.iterations = iterations;
            d.placement = placement;
            d.collective = collective;
            d.buckets = buckets;
            d.channels = channels;
            d.scale = scale;
            d.gpu = gpu;
            d.computeEfficiency = computeEfficiency;
            d.batchPerGpu = batchPerGpu;
            d.sequenceLength = sequenceLength;
            spec.jobTrace = trace;
            ApplyFlag(
                topology == "fat-tree" ? "k" : "servers",
                std::to_string(topology == "fat-tree" ? k : servers),
                [&]() { InputLimits::CheckFabric(InputLimits::FabricElements(spec.topology)); });
            if (trace.empty())
            {
                // Checked before the jobs are listed: --jobs alone could exhaust memory.
                try
                {
                    InputLimits::CheckJobs(static_cast<double>(jobs) * InputLimits::JobBytes(d));
                }
                catch (const std::invalid_argument& e)
                {
                    throw std::invalid_argument(
                        "--jobs=" + std::to_string(jobs) + " --workers=" + std::to_string(workers) +
                        " --channels=" + std::to_string(channels) +
                        " --buckets=" + std::to_string(buckets) + ": " + e.what());
                }
            }
            for (uint32_t j = 0; trace.empty() && j < jobs; ++j)
            {
                spec.jobs.push_back(d);
                spec.jobs.back().id = j;
            }
            spec.output.db = db;
            spec.output.flowRows = flowRows;
            ApplyFlag("faults", faults, [&]() { spec.faults = ParseFaultList(faults, "faults"); });
        }
        if (!scheduler.empty())
        {
            if (CollectiveSchedulerHelper::FindScheduler(scheduler) !=
                CollectiveSchedulerHelper::FindScheduler(spec.scheduler))
            {
                spec.schedulerParams = "{}"; // the file's parameters belong to its own policy
            }
            spec.scheduler = scheduler;
            RequireFlag(!CollectiveSchedulerHelper::FindScheduler(scheduler).empty(),
                        "scheduler",
                        scheduler,
                        "is not a known scheduler (known: " +
                            ShortNameRegistry::ListNames(CollectiveScheduler::GetTypeId()) + ")");
        }
        if (!backend.empty())
        {
            RequireFlag(backend == "packet" || backend == "flow",
                        "backend",
                        backend,
                        "must be packet or flow");
            spec.backend = backend;
        }
        ScenarioRunner runner(spec, "multi-tenant-fat-tree");
        if (compare.empty())
        {
            runner.Run(spec.scheduler, &std::cout);
            return;
        }
        runner.SetParallelRuns(parallel);
        runner.Compare(ParseSchedulerListFlag("compare", compare), std::cout);
    });
}
