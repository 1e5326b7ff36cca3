/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Scheduling time versus cluster size: the same epoch instances planned by
 * Symphony (one MILP over every job and link) and by Harmonics (a greedy
 * Global Coordinator for the jobs that cross racks, one MILP per rack for
 * the others), with the objective each reaches. No packets: the instances
 * are built directly, as the epoch planners build them from a cluster.
 *
 * Cluster: R racks of 8 hosts with 2 GPUs each; every rack has three jobs of
 * 4 hosts that overlap pairwise (so they contend for host links), and R/2
 * jobs cross two racks (2 hosts in each, through the racks' uplinks, which
 * carry 4 hosts' worth). Each job has two collectives in the horizon (its
 * next and one predicted), durations 2-6 slots, compute 2-8 slots.
 *
 * With --db the rows also go to an SQLite file (table scheduling_bench, one
 * run of example "figure2"), which utils/plot-figures.py draws.
 *
 *   ./scheduling-time --maxRacks=64 --timeLimit=20 --db=figures.db
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <chrono>
#include <iomanip>
#include <iostream>
#include <random>

using namespace ns3;

namespace
{

struct Instance
{
    PlanInstance plan;
    std::map<uint32_t, int32_t> jobRack;
    uint32_t gpus{0};
};

Instance
MakeInstance(uint32_t racks, int64_t horizon, uint32_t seed)
{
    std::mt19937 rng(seed);
    auto uniform = [&rng](int64_t lo, int64_t hi) {
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    constexpr uint32_t kHosts = 8;
    const uint32_t uplinkBase = 2 * racks * kHosts;
    Instance in;
    in.plan.horizon = horizon;
    in.gpus = racks * kHosts * 2;
    uint32_t id = 0;
    auto addJob = [&](const std::map<uint32_t, double>& usage, int32_t rack, uint32_t workers) {
        PlanJob j;
        j.id = id++;
        j.computeSlots = uniform(2, 8);
        const int64_t duration = uniform(2, 6);
        for (int k = 0; k < 2; ++k)
        {
            PlanCollective c;
            c.readySlot = k == 0 ? uniform(0, 5) : 0;
            c.duration = duration;
            c.weight = workers;
            c.usage = usage;
            j.collectives.push_back(c);
        }
        in.plan.jobs.push_back(j);
        in.jobRack[j.id] = rack;
    };
    for (uint32_t r = 0; r < racks; ++r)
    {
        for (uint32_t first : {0u, 2u, 4u})
        {
            std::map<uint32_t, double> usage;
            for (uint32_t h = first; h < first + 4; ++h)
            {
                const uint32_t host = r * kHosts + h;
                usage[2 * host] = 1.0;     // host to ToR
                usage[2 * host + 1] = 1.0; // ToR to host
            }
            addJob(usage, static_cast<int32_t>(r), 4);
        }
    }
    for (uint32_t r = 0; r + 1 < racks; r += 2)
    {
        std::map<uint32_t, double> usage;
        for (uint32_t rack : {r, r + 1})
        {
            const uint32_t h = static_cast<uint32_t>(uniform(0, kHosts - 2));
            for (uint32_t host : {rack * kHosts + h, rack * kHosts + h + 1})
            {
                usage[2 * host] = 1.0;
                usage[2 * host + 1] = 1.0;
            }
            usage[uplinkBase + 2 * rack] = 0.5; // two hosts of four on the uplink
            usage[uplinkBase + 2 * rack + 1] = 0.5;
        }
        addJob(usage, -1, 4);
    }
    return in;
}

double
MillisecondsSince(std::chrono::steady_clock::time_point begin)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
        .count();
}

} // namespace

void Measure(std::unique_ptr<SimulationRun>& run,
             uint32_t minRacks,
             uint32_t maxRacks,
             double timeLimit,
             uint32_t horizon,
             uint32_t seed,
             const std::string& dbPath);

int
main(int argc, char* argv[])
{
    uint32_t minRacks = 4;
    uint32_t maxRacks = 64;
    double timeLimit = 20;
    uint32_t horizon = 40;
    uint32_t seed = 1;
    std::string dbPath;
    CommandLine cmd(__FILE__);
    cmd.AddValue("minRacks", "Smallest cluster, in racks (doubled up to maxRacks)", minRacks);
    cmd.AddValue("maxRacks", "Largest cluster, in racks", maxRacks);
    cmd.AddValue("timeLimit", "Wall-clock limit of each MILP solve, seconds", timeLimit);
    cmd.AddValue("horizon", "Slots in the plan", horizon);
    cmd.AddValue("seed", "Seed of the job sets", seed);
    cmd.AddValue("db", "SQLite file to append the results to (empty: none)", dbPath);
    ParseExampleCommandLine(cmd, argc, argv, "scheduling-time");
    return RunExampleMain("scheduling-time", [&](std::unique_ptr<SimulationRun>& run) {
        RequireFlag(minRacks >= 2, "minRacks", std::to_string(minRacks), "must be >= 2");
        RequireFlag(maxRacks >= minRacks,
                    "maxRacks",
                    std::to_string(maxRacks),
                    "must be >= minRacks (" + std::to_string(minRacks) + ")");
        RequireFlag(timeLimit > 0, "timeLimit", std::to_string(timeLimit), "must be positive");
        RequireFlag(horizon >= 8, "horizon", std::to_string(horizon), "must be >= 8");
        Measure(run, minRacks, maxRacks, timeLimit, horizon, seed, dbPath);
    });
}

void
Measure(std::unique_ptr<SimulationRun>& run,
        uint32_t minRacks,
        uint32_t maxRacks,
        double timeLimit,
        uint32_t horizon,
        uint32_t seed,
        const std::string& dbPath)
{
    // Inside the run wrapper: a failure or a signal marks the run, never leaves it 'running'.
    run = std::make_unique<SimulationRun>("figure2",
                                          "symphony,harmonics",
                                          seed,
                                          "{\"timeLimit_s\":" + std::to_string(timeLimit) +
                                              ",\"horizon\":" + std::to_string(horizon) + "}",
                                          dbPath);

    struct Row
    {
        uint32_t racks, jobs, gpus;
        std::string planner;
        double wallMs, objective;
        bool proven;
    };

    std::vector<Row> rows;
    MilpSolveOptions options;
    options.timeLimitSeconds = timeLimit;
    options.relativeGap = 1e-3;
    const CbcMilpSolver cbc;
    std::cout << "racks  jobs  GPUs  variables  symphony_ms  symphony_obj  proven  "
                 "harmonics_ms  coordinator_ms  slowest_local_ms  harmonics_obj  speedup  "
                 "obj_ratio\n"
              << std::fixed;
    for (uint32_t racks = minRacks; racks <= maxRacks; racks *= 2)
    {
        if (InterruptSignal() != 0)
        {
            throw RunInterruptedError(InterruptSignal());
        }
        const Instance in = MakeInstance(racks, horizon, seed);
        auto begin = std::chrono::steady_clock::now();
        const Plan central = SolvePlan(in.plan, cbc, options);
        const double symphonyMs = MillisecondsSince(begin);
        const HarmonicsPlan h = PlanHarmonics(in.plan, in.jobRack, cbc, options);
        double slowest = 0;
        for (const auto& l : h.locals)
        {
            slowest = std::max(slowest, l.wallUs);
        }
        const double harmonicsMs = h.schedulingUs / 1e3;
        std::cout << std::setw(5) << racks << std::setw(6) << in.plan.jobs.size() << std::setw(6)
                  << in.gpus << std::setw(11) << central.solve.variables << std::setprecision(1)
                  << std::setw(13) << symphonyMs << std::setw(14) << central.objective
                  << std::setw(8) << (central.proven ? "yes" : "no") << std::setw(14) << harmonicsMs
                  << std::setw(16) << h.coordinatorUs / 1e3 << std::setw(18) << slowest / 1e3
                  << std::setw(15) << h.plan.objective << std::setprecision(2) << std::setw(9)
                  << symphonyMs / harmonicsMs << std::setw(11)
                  << h.plan.objective / central.objective << std::endl;
        const auto jobs = static_cast<uint32_t>(in.plan.jobs.size());
        rows.push_back(
            {racks, jobs, in.gpus, "symphony", symphonyMs, central.objective, central.proven});
        rows.push_back(
            {racks, jobs, in.gpus, "harmonics", harmonicsMs, h.plan.objective, h.plan.proven});
    }
    // The rows and the run's completion in one transaction: all or nothing.
    run->FinishWithoutFabric([&](ResultsDatabase& db, int64_t runId) {
        for (const Row& r : rows)
        {
            db.AddRow(runId,
                      "INSERT INTO scheduling_bench (run_id, racks, jobs, gpus, planner, wall_ms,"
                      " objective, proven) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                      {runId,
                       static_cast<int64_t>(r.racks),
                       static_cast<int64_t>(r.jobs),
                       static_cast<int64_t>(r.gpus),
                       r.planner,
                       r.wallMs,
                       r.objective,
                       static_cast<int64_t>(r.proven ? 1 : 0)});
        }
    });
}
