/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Which jobs meet contention (MeasureContention, recorded per job in
 * jobs.placement_json): jobs whose traffic leaves the same racks while both
 * run, and not jobs within their racks or apart in time; and the Lingjun
 * scenario's placement process against the Crux paper's measurement.
 */

#include "scenario-run-test.h"

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ns3;

namespace
{

class PlacementContentionTest : public test::ScenarioRunTest
{
  protected:
    /// Per job of run \p runId in \p db: whether it met contention (absent: not recorded).
    static std::map<uint32_t, bool> Contended(const std::string& db, int64_t runId)
    {
        sqlite3* h = nullptr;
        EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
        sqlite3_stmt* st = nullptr;
        const std::string sql =
            "SELECT job_id, placement_json FROM jobs WHERE run_id=" + std::to_string(runId);
        EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr), SQLITE_OK);
        std::map<uint32_t, bool> out;
        while (sqlite3_step(st) == SQLITE_ROW)
        {
            const auto p =
                nlohmann::json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
            if (p.contains("contended"))
            {
                out[sqlite3_column_int(st, 0)] = p["contended"].get<bool>();
            }
        }
        sqlite3_finalize(st);
        sqlite3_close(h);
        return out;
    }

    /// Two leaves of two hosts; \p jobs placed explicitly.
    std::map<uint32_t, bool> Run(std::vector<JobSpec> jobs, const std::string& name)
    {
        ScenarioSpec spec = TwoLeaves(2);
        spec.backend = "flow";
        spec.jobs = std::move(jobs);
        spec.output.db = (m_dir / (name + ".db")).string();
        const RunOutcome o = ScenarioRunner(spec, "test").Run("fair");
        return Contended(spec.output.db, o.runIds.at(0));
    }
};

TEST_F(PlacementContentionTest, JobsLeavingOneRackTogetherContend)
{
    // Both rings cross from leaf 0 to leaf 1: they share both racks' uplinks.
    const auto c = Run({Job(0, {0, 2}, 1000000, MicroSeconds(100), 2),
                        Job(1, {1, 3}, 1000000, MicroSeconds(100), 2)},
                       "across");
    EXPECT_EQ(c, (std::map<uint32_t, bool>{{0, true}, {1, true}}));
}

TEST_F(PlacementContentionTest, JobsWithinTheirRacksDoNot)
{
    const auto c = Run({Job(0, {0, 1}, 1000000, MicroSeconds(100), 2),
                        Job(1, {2, 3}, 1000000, MicroSeconds(100), 2)},
                       "within");
    EXPECT_EQ(c, (std::map<uint32_t, bool>{{0, false}, {1, false}}));
}

TEST_F(PlacementContentionTest, JobsSharingAHostContend)
{
    // Job 1 stays in rack 0 but shares host 0's NIC with job 0; job 2 is on
    // one host (NVLink only) and meets no one.
    std::vector<JobSpec> jobs = {Job(0, {0, 2}, 1000000, MicroSeconds(100), 2),
                                 Job(1, {0, 1}, 1000000, MicroSeconds(100), 2),
                                 Job(2, {3, 3}, 1000000, MicroSeconds(100), 2)};
    jobs[0].gpusPerHost = 1;
    jobs[1].gpusPerHost = 1;
    const auto c = Run(jobs, "host");
    EXPECT_EQ(c, (std::map<uint32_t, bool>{{0, true}, {1, true}, {2, false}}));
}

TEST_F(PlacementContentionTest, JobsApartInTimeDoNot)
{
    std::vector<JobSpec> jobs = {Job(0, {0, 2}, 1000000, MicroSeconds(100), 2),
                                 Job(1, {1, 3}, 1000000, MicroSeconds(100), 2)};
    jobs[1].arrivalNs = 50000000; // 50 ms: job 0 is done long before
    const auto c = Run(jobs, "apart");
    EXPECT_EQ(c, (std::map<uint32_t, bool>{{0, false}, {1, false}}));
}

// Figure 5's scenario places each job packed, or at random with odds 7 in
// 16, to reproduce the Crux paper's Lingjun measurement: 36.3% of the jobs,
// holding 51% of the GPUs, meet contention. Run to 1.2 s, after the last
// of the 200 arrivals (200/s) and before any job ends, so every placement
// and overlap of the whole run is there.
TEST_F(PlacementContentionTest, LingjunScenarioMeetsContentionAsProductionDoes)
{
    ScenarioSpec spec = ReadScenarioFile(std::string(CS_SOURCE_DIR) +
                                         "/examples/scenarios/lingjun-200-jobs-mixed.json");
    spec.stopTimeNs = 1200000000;
    spec.output.db.clear();
    std::ostringstream out;
    try
    {
        ScenarioRunner(spec, "test").Run("fair", &out);
        FAIL() << "no job can finish in 1.2 s";
    }
    catch (const IncompleteRunError&)
    {
    }
    // "contention: C of N jobs (x%), holding G of T GPUs (y%), ..."
    const std::string text = out.str();
    const std::size_t at = text.find("contention: ");
    ASSERT_NE(at, std::string::npos) << text;
    std::istringstream line(text.substr(at + 12));
    uint32_t contended = 0;
    uint32_t jobs = 0;
    uint64_t contendedGpus = 0;
    uint64_t gpus = 0;
    std::string word;
    line >> contended >> word >> jobs >> word >> word >> word >> contendedGpus >> word >> gpus;
    ASSERT_EQ(jobs, 200u) << "every job started: " << text.substr(at, 120);
    uint64_t specGpus = 0;
    for (const JobSpec& j : ScenarioHelper(spec).CollectJobs())
    {
        specGpus += j.workers;
    }
    EXPECT_EQ(gpus, specGpus);
    EXPECT_NEAR(contended / 200.0, 0.363, 0.02);
    EXPECT_NEAR(static_cast<double>(contendedGpus) / gpus, 0.51, 0.03);
}

} // namespace
