/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_RUN_TEST_H
#define SCENARIO_RUN_TEST_H

// A GoogleTest fixture for tests that run whole scenarios: a private
// directory for result files, picosecond time, the simulator destroyed after
// each test, and scenarios on a two-leaf, one-spine fabric.

#include "temp-dir-test.h"

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <cmath>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <string>
#include <vector>

namespace ns3
{
namespace test
{

/// The integer in the first column of the first row \p sql gives on the
/// results database \p db (a COUNT or a SUM); -1 if it gives no row.
inline int64_t
Count(sqlite3* db, const std::string& sql)
{
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
    int64_t n = -1;
    if (sqlite3_step(st) == SQLITE_ROW)
    {
        n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

class ScenarioRunTest : public TempDirTest
{
  protected:
    void SetUp() override
    {
        TempDirTest::SetUp();
        RoceUsePicoseconds();
    }

    void TearDown() override
    {
        Simulator::Destroy();
        TempDirTest::TearDown();
    }

    /**
     * Two leaves of two hosts (\p gpusPerHost GPUs each) under one spine, no
     * jobs yet. Host h hangs off leaf h / 2.
     */
    static ScenarioSpec TwoLeaves(uint32_t gpusPerHost)
    {
        ScenarioSpec spec;
        spec.source = "test";
        spec.name = "scenario-run-test";
        spec.topology.kind = "leaf-spine";
        spec.topology.gpusPerHost = gpusPerHost;
        spec.topology.Set("leaves", UintegerValue(2))
            .Set("spines", UintegerValue(1))
            .Set("hostsPerLeaf", UintegerValue(2));
        spec.fabric.cc = "dcqcn";
        return spec;
    }

    /// \p job alone on \p spec's fabric under fair sharing, run to its end.
    static JobOutcome RunAlone(ScenarioSpec spec, const JobSpec& job)
    {
        spec.jobs = {job};
        const RunOutcome o = ScenarioRunner(spec, "test").Run("fair");
        EXPECT_EQ(o.jobs.size(), 1u);
        EXPECT_TRUE(o.jobs.at(0).done);
        return o.jobs.at(0);
    }

    /// A job with one rank on each of \p hosts, all-reducing \p bytes after \p compute.
    static JobSpec Job(uint32_t id,
                       std::vector<uint32_t> hosts,
                       uint64_t bytes,
                       Time compute,
                       uint32_t iterations)
    {
        JobSpec s;
        s.id = id;
        s.model = "gpt2-124m";
        s.dtype = "bf16";
        s.workers = static_cast<uint32_t>(hosts.size());
        s.placement = "explicit";
        s.hosts = std::move(hosts);
        s.gpusPerHost = 2;
        s.iterations = iterations;
        // Gradient bytes = 124e6 parameters x 2 bytes x scale; scale multiplies compute too.
        s.scale = static_cast<double>(bytes) / 248e6;
        s.computeTimeNs = std::llround(compute.GetNanoSeconds() / s.scale);
        return s;
    }

    /// Runs \p spec under the fair scheduler, which must end it with a job's
    /// failure (a fatal failure of the test if it does not): \p message gets
    /// the failure's message. Call it in ASSERT_NO_FATAL_FAILURE.
    static void RunUntilAJobFails(const ScenarioSpec& spec, std::string& message)
    {
        try
        {
            ScenarioRunner(spec, "test").Run("fair");
            FAIL() << "the run did not fail";
        }
        catch (const JobFailedError& e)
        {
            message = e.what();
        }
    }

    /**
     * What a scheduler is told of \p job alone on \p spec's fabric
     * (MakeSchedulerJob on a packet-level fabric of the spec's topology).
     */
    static SchedulerJob SchedulerView(const ScenarioSpec& spec, const JobSpec& job)
    {
        const ScenarioHelper scenario(spec);
        Ptr<RoceFabric> fabric = scenario.MakeFabricHelper().Install(scenario.BuildTopology());
        TrainingCluster::JobEntry entry;
        entry.spec = job;
        entry.placement.workerHost = job.hosts;
        entry.graph = ModelCatalog::Graph(job);
        const SchedulerJob seen = MakeSchedulerJob(entry, *fabric);
        Simulator::Destroy();
        return seen;
    }

    /**
     * Runs \p job alone on \p spec's fabric at either level, as collective
     * \p plain and as \p tuned, and expects \p tuned's communication to
     * take \p latencyUs longer (to the microsecond): a protocol's latency.
     */
    static void ExpectAddedLatency(ScenarioSpec spec,
                                   JobSpec job,
                                   const std::string& plain,
                                   const std::string& tuned,
                                   double latencyUs)
    {
        for (const std::string backend : {"packet", "flow"})
        {
            spec.backend = backend;
            job.collective = plain;
            const JobOutcome before = RunAlone(spec, job);
            job.collective = tuned;
            const JobOutcome after = RunAlone(spec, job);
            EXPECT_NEAR((after.meanCommunication - before.meanCommunication).GetSeconds() * 1e6,
                        latencyUs,
                        1.0)
                << backend << ": " << before.meanCommunication.As(Time::US) << " -> "
                << after.meanCommunication.As(Time::US);
        }
    }

    static double Ratio(Time a, Time b)
    {
        return a.GetSeconds() / b.GetSeconds();
    }
};

} // namespace test
} // namespace ns3

#endif /* SCENARIO_RUN_TEST_H */
