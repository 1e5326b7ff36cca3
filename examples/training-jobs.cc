/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Data-parallel training jobs sharing a RoCE fat-tree: each iteration
 * computes, then all-reduces its gradients as RDMA messages over the
 * fabric (NVLink between GPUs of one host). Jobs come from a scenario
 * file (--scenario), a CSV job trace (--trace) or the flags below.
 * Prints per-job training and communication times; --db writes runs,
 * jobs, iterations, flows and links to SQLite.
 *
 *   ./training-jobs --jobs=2 --workers=4 --placement=spread --scale=0.01
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

void
PrintJobs(const TrainingCluster& cluster, std::ostream& os)
{
    os << std::fixed << std::setprecision(1);
    os << " job  model          workers  iters   JCT (us)  iter (us)  comm (us)  transfer (us)\n";
    for (const auto& e : cluster.GetJobs())
    {
        const JobSpec& s = e->spec;
        os << std::setw(4) << s.id << "  " << std::left << std::setw(14) << s.model << std::right
           << std::setw(8) << s.workers;
        if (!e->job || e->job->GetIterations().empty())
        {
            os << "  (not run)\n";
            continue;
        }
        const auto& its = e->job->GetIterations();
        double iter = 0;
        double comm = 0;
        double transfer = 0;
        for (const auto& r : its)
        {
            iter += (r.commEnd - r.computeStart).GetSeconds();
            comm += (r.commEnd - r.commReady).GetSeconds();
            transfer += (r.commEnd - r.commStart).GetSeconds();
        }
        const double n = static_cast<double>(its.size());
        const Time end = e->job->IsDone() ? e->job->GetEndTime() : Simulator::Now();
        os << std::setw(7) << its.size() << std::setw(11)
           << (end - NanoSeconds(s.arrivalNs)).GetSeconds() * 1e6 << std::setw(11) << iter / n * 1e6
           << std::setw(11) << comm / n * 1e6 << std::setw(15) << transfer / n * 1e6 << "\n";
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    RoceUsePicoseconds();
    // The priority-queue event scheduler is the fastest of ns-3's for the
    // deep event queues of a busy fabric; --SchedulerType overrides it.
    GlobalValue::Bind("SchedulerType", StringValue("ns3::PriorityQueueScheduler"));
    uint32_t k = 4;
    uint32_t gpusPerHost = 1;
    uint32_t jobs = 2;
    std::string model = "gpt2-124m";
    uint32_t workers = 4;
    uint32_t iterations = 5;
    std::string placement = "spread";
    std::string collective = "ring-all-reduce";
    uint32_t buckets = 1;
    uint32_t channels = 1;
    double scale = 0.01;
    std::string linkRate = "100Gbps";
    std::string cc = "dcqcn";
    uint32_t mtu = 1000;
    uint32_t seed = 1;
    std::string db;
    bool flowRows = true;
    std::string trace;
    std::string stopTime = "100s";

    CommandLine cmd(__FILE__);
    cmd.AddValue("k", "Fat-tree radix (even, >= 2)", k);
    cmd.AddValue("gpusPerHost", "GPUs per host in the cluster", gpusPerHost);
    cmd.AddValue("jobs", "Number of identical jobs (without --trace)", jobs);
    cmd.AddValue("model", "Model of every job (gpt2-124m, pythia-1b, ...)", model);
    cmd.AddValue("workers", "Workers (GPUs) per job", workers);
    cmd.AddValue("iterations", "Iterations per job", iterations);
    cmd.AddValue("placement", "packed, spread or random", placement);
    cmd.AddValue("collective",
                 "ring-all-reduce, halving-doubling-all-reduce, reduce-scatter, all-gather or "
                 "all-to-all",
                 collective);
    cmd.AddValue("buckets", "Gradient buckets (overlap with backward when > 1)", buckets);
    cmd.AddValue("channels", "Parallel rings (NCCL channels)", channels);
    cmd.AddValue("scale",
                 "Scales gradient bytes and compute time alike (keeps their ratio)",
                 scale);
    cmd.AddValue("linkRate", "Rate of every link", linkRate);
    cmd.AddValue("cc", "Congestion control: none or dcqcn", cc);
    cmd.AddValue("mtu", "RDMA payload bytes per data packet", mtu);
    cmd.AddValue("seed", "Random seed", seed);
    cmd.AddValue("db", "SQLite file to append the run to (empty: none)", db);
    cmd.AddValue("flowRows", "Write one row per RDMA message to the flows table", flowRows);
    cmd.AddValue("trace", "CSV job trace (arrival,model,workers,iterations,...)", trace);
    cmd.AddValue("stopTime", "Simulated time limit", stopTime);
    cmd.Parse(argc, argv);

    return RunExampleMain("training-jobs", [&](std::unique_ptr<SimulationRun>& run) {
        RequireFlag(k >= 2 && k % 2 == 0, "k", std::to_string(k), "must be even and >= 2");
        RequireFlag(gpusPerHost >= 1, "gpusPerHost", std::to_string(gpusPerHost), "must be >= 1");
        RequireFlag(mtu >= 1 && mtu <= 9000, "mtu", std::to_string(mtu), "must be 1-9000");
        RequireFlag(scale > 0, "scale", std::to_string(scale), "must be positive");
        RequireFlag(seed > 0, "seed", std::to_string(seed), "must be positive");
        const DataRate rate = ParseRateFlag("linkRate", linkRate);
        const Time stop = ParseTimeFlag("stopTime", stopTime);

        RngSeedManager::SetSeed(seed);
        RoceFabricHelper helper;
        ApplyFlag("cc", cc, [&]() { helper.SetCongestionControl(cc); });
        helper.SetNicAttribute("PayloadPerPacket", UintegerValue(mtu));
        helper.SetEcmpSeed(seed);
        FatTreeParams ft;
        ft.k = k;
        ft.hostRateBps = ft.edgeAggRateBps = ft.aggCoreRateBps = rate.GetBitRate();
        Ptr<RoceFabric> fabric = helper.Install(MakeFatTree(ft));

        JobSpec defaults;
        defaults.model = model;
        defaults.workers = workers;
        defaults.gpusPerHost = gpusPerHost;
        defaults.iterations = iterations;
        defaults.placement = placement;
        defaults.collective = collective;
        defaults.buckets = buckets;
        defaults.channels = channels;
        defaults.scale = scale;
        std::vector<JobSpec> specs;
        if (!trace.empty())
        {
            specs = ReadJobTrace(trace, defaults);
        }
        else
        {
            for (uint32_t j = 0; j < jobs; ++j)
            {
                JobSpec s = defaults;
                s.id = j;
                specs.push_back(s);
            }
        }

        nlohmann::json params = {{"k", k},
                                 {"gpusPerHost", gpusPerHost},
                                 {"jobs", specs.size()},
                                 {"model", model},
                                 {"workers", workers},
                                 {"iterations", iterations},
                                 {"placement", placement},
                                 {"collective", collective},
                                 {"buckets", buckets},
                                 {"channels", channels},
                                 {"scale", scale},
                                 {"linkRate", linkRate},
                                 {"cc", cc},
                                 {"mtu", mtu},
                                 {"trace", trace}};
        run = std::make_unique<SimulationRun>("training-jobs", "fair", seed, params.dump(), db);

        Ptr<TrainingCluster> cluster = CreateObject<TrainingCluster>();
        cluster->SetAttribute("PlacementSeed", UintegerValue(seed));
        cluster->Setup(fabric, gpusPerHost);
        for (const JobSpec& s : specs)
        {
            try
            {
                cluster->AddJob(s);
            }
            catch (const std::invalid_argument& e)
            {
                // A job built from the flags: name the flags in the error.
                if (trace.empty())
                {
                    throw std::invalid_argument(std::string("job flags: ") + e.what());
                }
                throw;
            }
        }
        RoceFlowMonitor monitor(fabric);
        std::cout << "fat-tree k=" << k << ": " << fabric->GetNHosts() << " hosts x " << gpusPerHost
                  << " GPUs, " << linkRate << ", " << cc << "; " << specs.size() << " jobs, scale "
                  << scale << "\n";
        Simulator::Stop(stop);
        Simulator::Run();
        PrintJobs(*cluster, std::cout);
        monitor.PrintSummary(std::cout);
        if (cluster->GetFinishedJobs() != specs.size())
        {
            throw IncompleteRunError(std::to_string(specs.size() - cluster->GetFinishedJobs()) +
                                     " jobs did not finish before --stopTime=" + stopTime);
        }
        run->Finish(monitor, flowRows, [&cluster](ResultsDatabase& d, int64_t id) {
            WriteTrainingResults(d, id, *cluster);
        });
    });
}
