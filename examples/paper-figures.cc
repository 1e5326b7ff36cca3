/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The packet-level runs behind the figures of the Symphony and Harmonics
 * papers, written to one SQLite file that utils/plot-figures.py draws:
 *
 *  1. training and communication time per scheduler: a GPT-2 / Pythia mix
 *     on a k=4 fat-tree under every policy (example "figure1");
 *  3. a large cluster: a k=8 fat-tree with jobs arriving over time from the
 *     synthetic generator, under the main policies ("figure3");
 *  4. interleaving: two jobs sharing a spine, fair sharing versus Harmonics,
 *     with per-link throughput sampled ("figure4").
 * (Figure 2, scheduling time against cluster size, needs no packets: see
 * examples/scheduling-time.)
 *
 * --scale multiplies gradient bytes and compute time alike (keeping their
 * ratio); --mtu sets the RoCE path MTU (payload per packet, 4096 by default). Both
 * trade fidelity to full-size models for run time; doc/figures.md gives the
 * defaults' cost and what full scale costs.
 *
 *   ./paper-figures --figure=all --db=figures.db
 *   ./paper-figures --figure=4 --scale=0.02 --db=figures.db
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <iostream>
#include <memory>
#include <sstream>

using namespace ns3;

namespace
{

/// Flags shared by every figure.
struct FigureFlags
{
    double scale{0}; ///< 0: the figure's default
    uint32_t mtu{RoceWire::kDefaultMtu};
    uint32_t iterations{0}; ///< 0: the figure's default
    uint32_t seed{1};
    std::string db;
    double progress{10};           ///< seconds of wall-clock time between progress lines, 0: none
    std::string backend{"packet"}; ///< packet or flow
};

/// A runner for \p spec that reports progress as the flags ask.
std::unique_ptr<ScenarioRunner>
RunnerFor(const ScenarioSpec& spec, const FigureFlags& f)
{
    auto runner = std::make_unique<ScenarioRunner>(spec, "paper-figures");
    runner->SetShowProgress(Seconds(f.progress), &std::cerr);
    return runner;
}

JobSpec
JobOf(const std::string& model, uint32_t workers, uint32_t iterations, double scale)
{
    JobSpec j;
    j.model = model;
    j.workers = workers;
    j.gpusPerHost = 1;
    j.placement = "spread";
    j.iterations = iterations;
    j.scale = scale;
    return j;
}

ScenarioSpec
BaseSpec(const std::string& name, const FigureFlags& f)
{
    ScenarioSpec spec;
    spec.source = "paper-figures";
    spec.name = name;
    spec.seed = f.seed;
    spec.fabric.mtu = f.mtu;
    spec.output.db = f.db;
    spec.output.flowRows = false;
    spec.topology.gpusPerHost = 1;
    spec.backend = f.backend;
    return spec;
}

/// Figure 1: a GPT-2 / Pythia mix of 4-worker jobs spread over a k=4 fat-tree.
void
Figure1(const FigureFlags& f)
{
    ScenarioSpec spec = BaseSpec("figure1", f);
    spec.description = "GPT-2 and Pythia jobs of 4 workers spread over a k=4 fat-tree";
    spec.topology.fatTree.k = 4;
    const double scale = f.scale > 0 ? f.scale : 0.01;
    const uint32_t iterations = f.iterations > 0 ? f.iterations : 5;
    uint32_t id = 0;
    for (const char* model : {"gpt2-124m", "gpt2-355m", "pythia-160m", "pythia-410m"})
    {
        spec.jobs.push_back(JobOf(model, 4, iterations, scale));
        spec.jobs.back().id = id++;
    }
    ScenarioRunner(spec, "paper-figures")
        .Compare(CollectiveSchedulerHelper::GetSchedulerNames(), std::cout);
}

/// Figure 3: jobs arriving over time on a k=8 fat-tree (128 GPUs).
void
Figure3(const FigureFlags& f)
{
    ScenarioSpec spec = BaseSpec("figure3", f);
    spec.description = "synthetic GPT-2 / Pythia jobs arriving on a k=8 fat-tree";
    spec.topology.fatTree.k = 8;
    spec.jobDefaults = JobOf("gpt2-124m", 4, f.iterations > 0 ? f.iterations : 4, 1.0);
    spec.scale = f.scale > 0 ? f.scale : 0.005;
    spec.synthetic.enabled = true;
    spec.synthetic.jobs = 16;
    spec.synthetic.arrivalRatePerS = 4000; // a job every 250 us on average
    spec.synthetic.modelMix = {{"gpt2-124m", 2},
                               {"gpt2-355m", 1},
                               {"pythia-160m", 2},
                               {"pythia-410m", 1}};
    spec.synthetic.workerSizes = {{4, 2}, {8, 1}};
    spec.synthetic.seed = f.seed;
    // A central MILP over 16 jobs on 128 hosts takes seconds per solve; cap
    // it (its decisions still take no simulated time) and plan every 5 ms.
    spec.attributes = {{"ns3::EpochScheduler::TimeLimit", "1s"},
                       {"ns3::EpochScheduler::EpochLength", "5ms"}};
    RunnerFor(spec, f)->Compare({"fair", "crux", "cassini", "symphony", "harmonics"}, std::cout);
}

/// Figure 4: two jobs sharing a spine, with the links sampled every 20 us.
void
Figure4(const FigureFlags& f)
{
    ScenarioSpec spec = BaseSpec("figure4", f);
    spec.description = "two jobs sharing a spine: fair sharing versus Harmonics";
    spec.topology.kind = "leaf-spine";
    spec.topology.leafSpine.leaves = 2;
    spec.topology.leafSpine.spines = 1;
    spec.topology.leafSpine.hostsPerLeaf = 2;
    if (f.backend == "packet")
    {
        spec.attributes = {{"ns3::LinkSampler::Interval", "20us"}};
    }
    else
    {
        std::cout << "figure 4 at the flow level: no link samples (they count packets)\n";
    }
    const double scale = f.scale > 0 ? f.scale : 0.016;
    for (uint32_t j = 0; j < 2; ++j)
    {
        JobSpec job = JobOf("gpt2-124m", 2, f.iterations > 0 ? f.iterations : 8, scale);
        job.id = j;
        job.placement = "explicit";
        job.hosts = {j, j + 2};
        // Compute a bit longer than communication alone, so the two can take turns.
        job.computeTimeNs = 31000000;
        spec.jobs.push_back(job);
    }
    for (const char* policy : {"fair", "harmonics"})
    {
        RunnerFor(spec, f)->Run(policy, &std::cout);
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    RoceExampleDefaults();
    std::string figure = "all";
    FigureFlags f;
    f.db = "figures.db";
    CommandLine cmd(__FILE__);
    cmd.AddValue("figure", "1, 3, 4 or all (figure 2: examples/scheduling-time)", figure);
    cmd.AddValue("scale",
                 "Gradient bytes and compute time factor (0: each figure's default)",
                 f.scale);
    cmd.AddValue("mtu", "RoCE path MTU: RDMA payload bytes per packet (256-4096)", f.mtu);
    cmd.AddValue("iterations", "Iterations per job (0: each figure's default)", f.iterations);
    cmd.AddValue("seed", "Random seed", f.seed);
    cmd.AddValue("db", "SQLite file the runs are appended to", f.db);
    cmd.AddValue("progress",
                 "Seconds of wall-clock time between progress lines on stderr (0: none)",
                 f.progress);
    cmd.AddValue("backend",
                 "Network model: packet (RoCE, packet by packet) or flow (max-min fair fluid "
                 "flows on the same topology and routes)",
                 f.backend);
    ParseExampleCommandLine(cmd, argc, argv, "paper-figures");

    return RunExampleMain("paper-figures", [&](std::unique_ptr<SimulationRun>& /* run */) {
        RequireFlag(f.scale >= 0, "scale", std::to_string(f.scale), "must not be negative");
        RequireMtuFlag(f.mtu);
        RequireFlag(!f.db.empty(), "db", f.db, "must name a file");
        RequireFlag(f.backend == "packet" || f.backend == "flow",
                    "backend",
                    f.backend,
                    "must be packet or flow");
        RequireFlag(f.seed > 0, "seed", std::to_string(f.seed), "must be positive");
        RequireFlag(f.progress >= 0,
                    "progress",
                    std::to_string(f.progress),
                    "must not be negative");
        std::vector<std::string> figures;
        if (figure == "all")
        {
            figures = {"1", "3", "4"};
        }
        else
        {
            std::stringstream list(figure);
            for (std::string n; std::getline(list, n, ',');)
            {
                RequireFlag(n == "1" || n == "3" || n == "4",
                            "figure",
                            figure,
                            "must list 1, 3 or 4 (figure 2 is examples/scheduling-time)");
                figures.push_back(n);
            }
        }
        for (const std::string& n : figures)
        {
            std::cout << "=== figure " << n << std::endl;
            if (n == "1")
            {
                Figure1(f);
            }
            else if (n == "3")
            {
                Figure3(f);
            }
            else
            {
                Figure4(f);
            }
        }
    });
}
