/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The isolated baseline runs each job alone twice, under ECMP and on its
 * best routes (IsolatedScheduler's Routes), and reports per job the faster:
 * a job whose own rings collide under ECMP is faster alone on its best
 * routes, and its isolated time is that one; a job that ECMP cannot hurt
 * (one path) takes the same time both ways. Both runs are in the database.
 */

#include "scenario-run-test.h"

#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::Count;

namespace
{

class IsolatedRoutesTest : public test::ScenarioRunTest
{
  protected:
    /**
     * Two leaves of two hosts under two spines, one GPU per host, and one
     * job \p id with a rank on each host in the order 0, 2, 1, 3: its ring
     * crosses from leaf 0 to leaf 1 twice (0 -> 2, 1 -> 3) and back twice
     * (2 -> 1, 3 -> 0), each crossing a connection group of its own whose
     * spine ECMP picks by the connection's port (which the job id decides).
     */
    static ScenarioSpec RingOverTwoSpines(uint32_t id)
    {
        ScenarioSpec spec = TwoLeaves(1);
        spec.name = "isolated-routes-test";
        spec.topology.Set("spines", UintegerValue(2));
        spec.jobs.push_back(Job(id, {0, 2, 1, 3}, 4000000, MicroSeconds(100), 3));
        spec.jobs.back().gpusPerHost = 1;
        spec.jobs.back().channels = 1;
        return spec;
    }

    /// Directed switch-to-switch links (leaf-spine, either way) that carried bytes in run \p run.
    static int64_t SwitchLinksUsed(const ScenarioSpec& spec, sqlite3* db, int64_t run)
    {
        const FabricTopology topo = ScenarioHelper(spec).BuildTopology();
        int64_t used = 0;
        for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
        {
            const FabricLink& link = topo.GetLink(l);
            if (topo.IsHost(link.a) || topo.IsHost(link.b))
            {
                continue;
            }
            const std::string where = " FROM links WHERE run_id=" + std::to_string(run) +
                                      " AND link_id=" + std::to_string(l);
            used += Count(db, "SELECT tx_bytes_ab > 0" + where) > 0 ? 1 : 0;
            used += Count(db, "SELECT tx_bytes_ba > 0" + where) > 0 ? 1 : 0;
        }
        return used;
    }

    /// The value of \p key in run \p run's scheduler parameters (runs.params_json).
    static std::string SchedulerParam(sqlite3* db, int64_t run, const std::string& key)
    {
        sqlite3_stmt* st = nullptr;
        const std::string sql = "SELECT params_json FROM runs WHERE run_id=" + std::to_string(run);
        EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK);
        std::string value;
        if (sqlite3_step(st) == SQLITE_ROW)
        {
            const auto params =
                nlohmann::json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
            value = params.at("scheduler_params").at(key).get<std::string>();
        }
        sqlite3_finalize(st);
        return value;
    }

    /// The job whose ring collides with itself under ECMP (found by trying ids 0, 1, ...).
    static constexpr uint32_t kCollidingJob = 0;
};

TEST(IsolatedSchedulerType, RoutesDefaultToEcmpAndAreAParameter)
{
    Ptr<IsolatedScheduler> s = CreateObject<IsolatedScheduler>();
    EXPECT_EQ(s->GetName(), "isolated");
    const auto params = nlohmann::json::parse(s->GetParametersJson());
    EXPECT_EQ(params.at("Routes"), "ecmp");
    s->SetAttribute("Routes", StringValue("best"));
    EXPECT_EQ(nlohmann::json::parse(s->GetParametersJson()).at("Routes"), "best");
    EXPECT_EQ(s->GetName(), "isolated");
}

TEST_F(IsolatedRoutesTest, AJobCollidingWithItselfIsFasterAloneOnItsBestRoutes)
{
    ScenarioSpec spec = RingOverTwoSpines(kCollidingJob);
    spec.output.db = (m_dir / "isolated.db").string();
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    EXPECT_EQ(isolated.scheduler, "isolated");
    ASSERT_EQ(isolated.jobs.size(), 1u);
    ASSERT_EQ(isolated.aloneEcmp.size(), 1u);
    ASSERT_EQ(isolated.aloneBest.size(), 1u);
    const JobOutcome& ecmp = isolated.aloneEcmp[0];
    const JobOutcome& best = isolated.aloneBest[0];
    ASSERT_TRUE(ecmp.done);
    ASSERT_TRUE(best.done);

    // Alone under ECMP is the job's single-job run under fair sharing, bit for bit.
    const JobOutcome fair = RunAlone(RingOverTwoSpines(kCollidingJob), spec.jobs[0]);
    EXPECT_EQ(ecmp.iterationTimes, fair.iterationTimes);
    EXPECT_EQ(ecmp.trainingTime, fair.trainingTime);

    // The premise, from the links the runs used: under ECMP two of the ring's
    // crossings share a spine (fewer than all 8 directed leaf-spine links
    // carry bytes); on its best routes every crossing has a spine of its own.
    ASSERT_EQ(isolated.runIds.size(), 2u);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    const int64_t ecmpRun = isolated.runIds[0];
    const int64_t bestRun = isolated.runIds[1];
    EXPECT_LT(SwitchLinksUsed(spec, db, ecmpRun), 8);
    EXPECT_EQ(SwitchLinksUsed(spec, db, bestRun), 8);

    // So the best routes train strictly faster (a shared uplink halves the
    // rate of two of the ring's hops), and the isolated time is theirs.
    EXPECT_LT(Ratio(best.trainingTime, ecmp.trainingTime), 0.9);
    EXPECT_LT(Ratio(best.meanCommunication, ecmp.meanCommunication), 0.8);
    EXPECT_EQ(isolated.jobs[0].routes, "best");
    EXPECT_EQ(isolated.jobs[0].trainingTime, best.trainingTime);
    EXPECT_EQ(isolated.jobs[0].iterationTimes, best.iterationTimes);
    EXPECT_EQ(isolated.MeanTrainingTime(), best.trainingTime);

    // Both runs are in the database as runs of isolated, told apart by Routes and their tag;
    // the per-job minimum over them is the reported time.
    EXPECT_EQ(Count(db,
                    "SELECT COUNT(*) FROM runs WHERE scheduler='isolated' AND "
                    "status='complete'"),
              2);
    EXPECT_EQ(SchedulerParam(db, ecmpRun, "Routes"), "ecmp");
    EXPECT_EQ(SchedulerParam(db, bestRun, "Routes"), "best");
    EXPECT_EQ(Count(db,
                    "SELECT COUNT(*) FROM scheduler_runs WHERE run_id=" + std::to_string(bestRun) +
                        " AND params_json LIKE '%\"best\"%'"),
              1);
    EXPECT_EQ(Count(db,
                    "SELECT MIN(end_ns - arrival_ns) FROM jobs JOIN runs USING (run_id) "
                    "WHERE scheduler='isolated' GROUP BY job_id"),
              best.trainingTime.GetNanoSeconds());
    EXPECT_EQ(
        Count(db, "SELECT end_ns - arrival_ns FROM jobs WHERE run_id=" + std::to_string(ecmpRun)),
        ecmp.trainingTime.GetNanoSeconds());
    // The best run's one decision moved at least one group; the ECMP run decided nothing.
    EXPECT_EQ(
        Count(db,
              "SELECT COUNT(*) FROM scheduler_decisions WHERE run_id=" + std::to_string(ecmpRun)),
        0);
    EXPECT_EQ(Count(db,
                    "SELECT COUNT(*) FROM scheduler_decisions WHERE run_id=" +
                        std::to_string(bestRun) + " AND detail_json LIKE '%\"moved\":true%'"),
              1);
    sqlite3_close(db);

    // The comparison normalizes to the faster run: fair (the job alone, under ECMP) is
    // slower than isolated by the ratio of the two runs.
    RunOutcome fairRun;
    fairRun.scheduler = "fair";
    fairRun.jobs = {fair};
    std::ostringstream table;
    ScenarioRunner::PrintComparison({fairRun, isolated}, table);
    std::map<std::string, std::vector<std::string>> rows;
    std::istringstream lines(table.str());
    for (std::string line; std::getline(lines, line);)
    {
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string word; words >> word;)
        {
            w.push_back(word);
        }
        if (!w.empty())
        {
            rows[w[0]] = w;
        }
    }
    ASSERT_GE(rows["fair"].size(), 4u) << table.str();
    ASSERT_GE(rows["isolated"].size(), 4u) << table.str();
    std::ostringstream expected;
    expected.setf(std::ios::fixed);
    expected.precision(2);
    expected << Ratio(ecmp.trainingTime, best.trainingTime);
    EXPECT_EQ(rows["fair"][3], expected.str()) << table.str(); // fair's train /iso
    EXPECT_EQ(rows["isolated"][3], "1.00") << table.str();
    EXPECT_NE(table.str().find("1 of 1 jobs faster on their best routes"), std::string::npos)
        << table.str();
}

TEST_F(IsolatedRoutesTest, AJobOnOnePathTakesTheSameTimeBothWays)
{
    // One spine: each crossing has one path, so best routes are ECMP's.
    ScenarioSpec spec = TwoLeaves(1);
    spec.name = "isolated-routes-test";
    spec.output.db = (m_dir / "one-path.db").string();
    for (uint32_t j = 0; j < 2; ++j)
    {
        spec.jobs.push_back(Job(j, {j, j + 2}, 2000000, MicroSeconds(100), 3));
        spec.jobs.back().gpusPerHost = 1;
    }
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    ASSERT_EQ(isolated.jobs.size(), 2u);
    ASSERT_EQ(isolated.aloneEcmp.size(), 2u);
    ASSERT_EQ(isolated.aloneBest.size(), 2u);
    for (uint32_t j = 0; j < 2; ++j)
    {
        EXPECT_TRUE(isolated.aloneBest[j].done);
        EXPECT_EQ(isolated.aloneBest[j].iterationTimes, isolated.aloneEcmp[j].iterationTimes);
        EXPECT_EQ(isolated.aloneBest[j].trainingTime, isolated.aloneEcmp[j].trainingTime);
        // A tie keeps ECMP's run.
        EXPECT_EQ(isolated.jobs[j].routes, "ecmp");
        EXPECT_EQ(isolated.jobs[j].trainingTime, isolated.aloneEcmp[j].trainingTime);
    }
    // Four runs: both jobs under ECMP, then both on their best routes, none moving a group.
    ASSERT_EQ(isolated.runIds.size(), 4u);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    const std::vector<std::string> expected{"ecmp", "ecmp", "best", "best"};
    for (std::size_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(SchedulerParam(db, isolated.runIds[i], "Routes"), expected[i]) << i;
    }
    EXPECT_EQ(Count(db,
                    "SELECT COUNT(*) FROM scheduler_decisions WHERE detail_json LIKE "
                    "'%\"moved\":true%'"),
              0);
    EXPECT_EQ(Count(db,
                    "SELECT COUNT(*) FROM scheduler_decisions WHERE detail_json LIKE "
                    "'%\"moved\":false%'"),
              2);
    sqlite3_close(db);
}

TEST_F(IsolatedRoutesTest, RunsSideBySideKeepBothRunsOfEachJob)
{
    // The comparison's isolated simulation in a child process: its outcome
    // comes back with both runs of the job and the per-job choice.
    ScenarioSpec spec = RingOverTwoSpines(kCollidingJob);
    spec.output.db = (m_dir / "side.db").string();
    ScenarioRunner runner(spec, "test");
    runner.SetParallelRuns(2);
    std::ostringstream out;
    const std::vector<RunOutcome> outcomes = runner.Compare({}, out);
    ASSERT_EQ(outcomes.size(), 2u);
    const RunOutcome& isolated = outcomes[1];
    ASSERT_EQ(isolated.aloneEcmp.size(), 1u);
    ASSERT_EQ(isolated.aloneBest.size(), 1u);
    EXPECT_EQ(isolated.runIds.size(), 2u);
    EXPECT_LT(isolated.aloneBest[0].trainingTime, isolated.aloneEcmp[0].trainingTime);
    EXPECT_EQ(isolated.jobs[0].routes, "best");
    EXPECT_EQ(isolated.jobs[0].trainingTime, isolated.aloneBest[0].trainingTime);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM runs WHERE status='complete'"), 3);
    sqlite3_close(db);
}

} // namespace
