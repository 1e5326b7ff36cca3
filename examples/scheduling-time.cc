/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Scheduling time versus cluster size: the same epoch instances planned by
 * Symphony (one MILP over every job and link), by the same MILP solved
 * component by component (the instance split into its independent parts:
 * jobs that share no link, directly or through other jobs, are solved
 * apart, one after the other) and by Harmonics (a Global Coordinator on the
 * racks' aggregate uplink capacity for the jobs that cross racks, one MILP
 * per rack for the others, every rack solved), with the
 * objective each reaches. No packets: the instances are built directly, as
 * the epoch planners build them from a cluster.
 *
 * Cluster: R racks of 8 hosts with 2 GPUs each; every rack has three jobs of
 * 4 hosts that overlap pairwise (so they contend for host links), and R/2
 * jobs cross two racks (2 hosts in each, through the racks' uplinks, which
 * carry 4 hosts' worth). Each job has two collectives in the horizon (its
 * next and one predicted), durations 2-6 slots, compute 2-8 slots.
 *
 * Every size is measured on --seeds instances (seeds seed, seed+1, ...); the
 * table gives per size the median and the range over them. A solve that
 * stopped at its time limit without closing the gap is marked: its time is
 * a lower bound. No speed-up is counted from a central solve that did not
 * prove its optimum, at the limit or before it (the speed-up and gap columns
 * are medians over the seeds whose central solve proved its optimum).
 *
 * A fourth planner, symphony-coarse, solves the central MILP on slots
 * --slotFactor times as long (CoarsenPlanInstance) and maps its plan back:
 * what planning on fewer, longer slots costs against the central optimum
 * and what it saves in time.
 *
 * With --db the rows also go to an SQLite file (table scheduling_bench, one
 * row per size, seed and planner of one run of example "figure2"), which
 * utils/plot-figures.py draws.
 *
 *   ./scheduling-time --maxRacks=64 --timeLimit=20 --seeds=5 --db=figures.db
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace ns3;

namespace
{

struct Instance
{
    PlanInstance plan;
    std::map<uint32_t, int32_t> jobRack;
    RackUplinks uplinks; ///< each rack's one uplink per direction
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
    for (uint32_t r = 0; r < racks; ++r)
    {
        in.uplinks[uplinkBase + 2 * r] = {static_cast<int32_t>(r), true, 1.0};
        in.uplinks[uplinkBase + 2 * r + 1] = {static_cast<int32_t>(r), false, 1.0};
    }
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

/// One planner on one instance.
struct Row
{
    uint32_t racks, jobs, gpus, seed;
    std::string planner;
    double wallMs, objective;
    bool proven;
    bool hitLimit; ///< stopped by its time limit: wallMs is a lower bound
    uint32_t parts;
};

/**
 * Whether a plan's MILP stopped at its time limit: no solution in time, or a
 * solution whose gap is still open when the limit ran out. CBC also stops
 * short of the limit with a gap above the requested one (its own optimality
 * test on integral objectives), which is not a limit.
 */
bool
HitLimit(const Plan& p, const MilpSolveOptions& options)
{
    const MilpResult& r = p.solve;
    switch (r.status)
    {
    case MilpStatus::NO_SOLUTION:
        return true;
    case MilpStatus::FEASIBLE:
        return !(r.gap <= options.relativeGap) && r.wallSeconds >= 0.99 * options.timeLimitSeconds;
    default:
        return false;
    }
}

/// Median of \p v (mean of the middle two for an even count); NaN if empty.
double
Median(std::vector<double> v)
{
    if (v.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void
Measure(std::unique_ptr<SimulationRun>& run,
        uint32_t minRacks,
        uint32_t maxRacks,
        double timeLimit,
        uint32_t horizon,
        uint32_t seed,
        uint32_t seeds,
        uint32_t slotFactor,
        const std::string& dbPath)
{
    // Inside the run wrapper: a failure or a signal marks the run, never leaves it 'running'.
    run = std::make_unique<SimulationRun>("figure2",
                                          "symphony,symphony-split,harmonics,symphony-coarse",
                                          seed,
                                          "{\"timeLimit_s\":" + std::to_string(timeLimit) +
                                              ",\"horizon\":" + std::to_string(horizon) +
                                              ",\"seeds\":" + std::to_string(seeds) +
                                              ",\"slotFactor\":" + std::to_string(slotFactor) + "}",
                                          dbPath);

    std::vector<Row> rows;
    MilpSolveOptions options;
    options.timeLimitSeconds = timeLimit;
    options.relativeGap = 1e-3;
    const CbcMilpSolver cbc;
    std::cout << "Per size: median [min-max] over " << seeds
              << " seeds; '>' marks a median over solves that hit the time limit.\n"
              << "racks  jobs  GPUs  symphony_ms (limit hits)  split_ms (parts)  harmonics_ms  "
                 "speedup (proven seeds)  split_speedup  obj_gap_%  coarse_ms  coarse_gap_%\n"
              << std::fixed;
    for (uint32_t racks = minRacks; racks <= maxRacks; racks *= 2)
    {
        if (InterruptSignal() != 0)
        {
            throw RunInterruptedError(InterruptSignal());
        }
        std::vector<double> symphony, split, harmonics, speedup, splitSpeedup, gap;
        std::vector<double> coarse, coarseGap;
        uint32_t hits = 0;
        uint32_t parts = 0;
        uint32_t jobs = 0;
        uint32_t gpus = 0;
        for (uint32_t k = 0; k < seeds; ++k)
        {
            const uint32_t s = seed + k;
            const Instance in = MakeInstance(racks, horizon, s);
            jobs = static_cast<uint32_t>(in.plan.jobs.size());
            gpus = in.gpus;

            auto begin = std::chrono::steady_clock::now();
            const Plan central = SolvePlan(in.plan, cbc, options);
            const double symphonyMs = MillisecondsSince(begin);
            const bool centralHit = HitLimit(central, options);

            // The same MILP on each independent part, one after the other.
            const std::vector<PlanInstance> pieces = SplitPlanInstance(in.plan);
            double splitMs = 0;
            double splitObjective = 0;
            bool splitProven = true;
            bool splitHit = false;
            for (const PlanInstance& piece : pieces)
            {
                begin = std::chrono::steady_clock::now();
                const Plan p = SolvePlan(piece, cbc, options);
                splitMs += MillisecondsSince(begin);
                splitObjective += p.objective;
                splitProven = splitProven && p.proven;
                splitHit = splitHit || HitLimit(p, options);
            }

            const HarmonicsPlan h = PlanHarmonics(in.plan, in.jobRack, in.uplinks, cbc, options);
            const double harmonicsMs = h.schedulingUs / 1e3;
            bool harmonicsHit = false;
            for (const auto& l : h.locals)
            {
                harmonicsHit = harmonicsHit || HitLimit(l.plan, options);
            }

            // The central MILP on longer slots, its plan mapped back.
            begin = std::chrono::steady_clock::now();
            const Plan c =
                RefinePlan(in.plan,
                           SolvePlan(CoarsenPlanInstance(in.plan, slotFactor), cbc, options),
                           slotFactor);
            const double coarseMs = MillisecondsSince(begin);
            if (!CheckPlan(in.plan, c))
            {
                throw std::logic_error("the coarse plan does not fit the instance");
            }

            const auto n = static_cast<uint32_t>(pieces.size());
            rows.push_back({racks,
                            jobs,
                            gpus,
                            s,
                            "symphony",
                            symphonyMs,
                            central.objective,
                            central.proven,
                            centralHit,
                            1});
            rows.push_back({racks,
                            jobs,
                            gpus,
                            s,
                            "symphony-split",
                            splitMs,
                            splitObjective,
                            splitProven,
                            splitHit,
                            n});
            rows.push_back({racks,
                            jobs,
                            gpus,
                            s,
                            "harmonics",
                            harmonicsMs,
                            h.plan.objective,
                            h.plan.proven,
                            harmonicsHit,
                            static_cast<uint32_t>(h.locals.size())});
            rows.push_back({racks,
                            jobs,
                            gpus,
                            s,
                            "symphony-coarse",
                            coarseMs,
                            c.objective,
                            false,
                            HitLimit(c, options),
                            1});
            coarse.push_back(coarseMs);
            symphony.push_back(symphonyMs);
            split.push_back(splitMs);
            harmonics.push_back(harmonicsMs);
            hits += centralHit;
            parts = n;
            // A solve that did not prove its optimum (cut short by the limit,
            // or stopped early) is no time to compare against.
            if (central.proven)
            {
                speedup.push_back(symphonyMs / harmonicsMs);
                gap.push_back(100.0 * (h.plan.objective / central.objective - 1));
                coarseGap.push_back(100.0 * (c.objective / central.objective - 1));
            }
            if (splitProven)
            {
                splitSpeedup.push_back(splitMs / harmonicsMs);
            }
        }
        auto range = [](const std::vector<double>& v) {
            std::ostringstream o;
            o << std::fixed << std::setprecision(1) << Median(v) << " ["
              << *std::min_element(v.begin(), v.end()) << "-"
              << *std::max_element(v.begin(), v.end()) << "]";
            return o.str();
        };
        auto medianOrNa = [](const std::vector<double>& v, int precision) {
            if (v.empty())
            {
                return std::string("n/a");
            }
            std::ostringstream o;
            o << std::fixed << std::setprecision(precision) << Median(v) << " (" << v.size() << ")";
            return o.str();
        };
        std::cout << std::setw(5) << racks << std::setw(6) << jobs << std::setw(6) << gpus << "  "
                  << (2 * hits > seeds ? ">" : "") << range(symphony) << " (" << hits << ")  "
                  << range(split) << " (" << parts << ")  " << range(harmonics) << "  "
                  << medianOrNa(speedup, 2) << "  " << medianOrNa(splitSpeedup, 2) << "  "
                  << medianOrNa(gap, 2) << "  " << range(coarse) << "  " << medianOrNa(coarseGap, 2)
                  << std::endl;
    }
    // The rows and the run's completion in one transaction: all or nothing.
    run->FinishWithoutFabric([&](ResultsDatabase& db, int64_t runId) {
        for (const Row& r : rows)
        {
            db.AddRow(runId,
                      "INSERT INTO scheduling_bench (run_id, racks, jobs, gpus, planner, wall_ms,"
                      " objective, proven, seed, hit_limit, parts) VALUES (?1, ?2, ?3, ?4, ?5,"
                      " ?6, ?7, ?8, ?9, ?10, ?11)",
                      {runId,
                       static_cast<int64_t>(r.racks),
                       static_cast<int64_t>(r.jobs),
                       static_cast<int64_t>(r.gpus),
                       r.planner,
                       r.wallMs,
                       r.objective,
                       static_cast<int64_t>(r.proven ? 1 : 0),
                       static_cast<int64_t>(r.seed),
                       static_cast<int64_t>(r.hitLimit ? 1 : 0),
                       static_cast<int64_t>(r.parts)});
        }
    });
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t minRacks = 4;
    uint32_t maxRacks = 64;
    double timeLimit = 20;
    uint32_t horizon = 40;
    uint32_t seed = 1;
    uint32_t seeds = 5;
    uint32_t slotFactor = 2;
    std::string dbPath;
    CommandLine cmd(__FILE__);
    AddFlag(cmd, "minRacks", "Smallest cluster, in racks (doubled up to maxRacks)", minRacks);
    AddFlag(cmd, "maxRacks", "Largest cluster, in racks", maxRacks);
    AddFlag(cmd, "timeLimit", "Wall-clock limit of each MILP solve, seconds", timeLimit);
    AddFlag(cmd, "horizon", "Slots in the plan", horizon);
    AddFlag(cmd, "seed", "Seed of the first job set", seed);
    AddFlag(cmd, "seeds", "Job sets per size (seeds seed, seed+1, ...)", seeds);
    AddFlag(cmd,
            "slotFactor",
            "Slots joined into one by symphony-coarse (the central MILP on longer slots)",
            slotFactor);
    AddFlag(cmd,
            "db",
            "SQLite file to append the results to (empty: none)",
            dbPath,
            EmptyFlag::MeansNone);
    ParseExampleCommandLine(cmd, argc, argv, "scheduling-time");
    return RunExampleMain("scheduling-time", [&](std::unique_ptr<SimulationRun>& run) {
        RequireFlag(minRacks >= 2, "minRacks", std::to_string(minRacks), "must be >= 2");
        RequireFlag(maxRacks >= minRacks,
                    "maxRacks",
                    std::to_string(maxRacks),
                    "must be >= minRacks (" + std::to_string(minRacks) + ")");
        RequireFlag(timeLimit > 0, "timeLimit", std::to_string(timeLimit), "must be positive");
        RequireFlag(horizon >= 8, "horizon", std::to_string(horizon), "must be >= 8");
        RequireFlag(seeds >= 1, "seeds", std::to_string(seeds), "must be >= 1");
        RequireFlag(slotFactor >= 1, "slotFactor", std::to_string(slotFactor), "must be >= 1");
        Measure(run, minRacks, maxRacks, timeLimit, horizon, seed, seeds, slotFactor, dbPath);
    });
}
