/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Placement left to the scheduler, end to end: in a whole run, CASSINI's
 * choice among the cluster's candidate placements is the job's placement in
 * the results, the choice is the best-scoring candidate, and a policy that
 * does not choose places the job as the first (packed) candidate.
 */
#include "example-process-test-util.h"
#include "scenario-run-test.h"

#include <nlohmann/json.hpp>

namespace ns3
{
namespace test
{
namespace
{

class PlacementChoiceTest : public ScenarioRunTest
{
  protected:
    /// Job 0 on hosts 0 and 1 (leaf 0); job 1 of 2 workers left to the scheduler.
    ScenarioSpec Spec(const std::string& db) const
    {
        ScenarioSpec spec = TwoLeaves(2);
        spec.output.db = (m_dir / db).string();
        spec.jobs.push_back(Job(0, {0, 1}, 4000000, MicroSeconds(20), 3));
        JobSpec free = Job(1, {}, 4000000, MicroSeconds(20), 3);
        free.workers = 2;
        free.placement = "scheduler";
        free.arrivalNs = 50000; // after job 0 has started, so CASSINI knows its links
        spec.jobs.push_back(free);
        return spec;
    }

    /// Job 1's hosts in the run's jobs row.
    static std::vector<uint32_t> PlacedHosts(const std::string& db, int64_t runId)
    {
        const auto rows = Query(db,
                                "SELECT placement_json FROM jobs WHERE job_id = 1 AND run_id = " +
                                    std::to_string(runId));
        EXPECT_EQ(rows.size(), 1u);
        if (rows.size() != 1 || !rows[0][0])
        {
            return {};
        }
        return nlohmann::json::parse(*rows[0][0]).at("hosts").get<std::vector<uint32_t>>();
    }
};

TEST_F(PlacementChoiceTest, CassiniPlacesTheJobOnItsBestScoringCandidate)
{
    const ScenarioSpec spec = Spec("cassini.db");
    const RunOutcome run = ScenarioRunner(spec, "test").Run("cassini");
    ASSERT_EQ(run.runIds.size(), 1u);
    ASSERT_EQ(run.jobs.size(), 2u);
    EXPECT_TRUE(run.jobs[1].done);

    // The candidates and the choice, as CASSINI noted them when job 1 arrived.
    const auto rows =
        Query(spec.output.db,
              "SELECT detail_json FROM scheduler_decisions WHERE run_id = " +
                  std::to_string(run.runIds[0]) + " AND detail_json LIKE '%placement_candidates%'");
    ASSERT_EQ(rows.size(), 1u) << "one placement choice, for job 1";
    const nlohmann::json detail = nlohmann::json::parse(*rows[0][0]);
    const nlohmann::json& candidates = detail.at("placement_candidates");
    const auto choice = detail.at("placement_choice").get<std::size_t>();
    ASSERT_GE(candidates.size(), 2u) << "packed and spread differ here";
    // Packed puts job 1 on the free GPUs of hosts 0 and 1, on job 0's links;
    // elsewhere it shares none, so choosing matters.
    EXPECT_EQ(candidates[0].at("hosts").get<std::vector<uint32_t>>(),
              (std::vector<uint32_t>{0, 1}));
    ASSERT_LT(choice, candidates.size());

    // Brute force: the best (worst-link score, then mean score), the earliest on ties.
    std::size_t best = 0;
    for (std::size_t i = 1; i < candidates.size(); ++i)
    {
        const auto key = [&](std::size_t k) {
            return std::make_pair(candidates[k].at("score").get<double>(),
                                  candidates[k].at("mean_score").get<double>());
        };
        if (key(i) > key(best))
        {
            best = i;
        }
    }
    EXPECT_EQ(choice, best) << candidates.dump();
    EXPECT_NE(choice, 0u) << "a candidate off job 0's links scores better than packed: "
                          << candidates.dump();

    // The run placed the job where CASSINI chose.
    EXPECT_EQ(PlacedHosts(spec.output.db, run.runIds[0]),
              candidates[choice].at("hosts").get<std::vector<uint32_t>>());

    // Fair sharing does not choose: the job goes to the first candidate (packed).
    const RunOutcome fair = ScenarioRunner(Spec("fair.db"), "test").Run("fair");
    ASSERT_EQ(fair.runIds.size(), 1u);
    EXPECT_EQ(PlacedHosts((m_dir / "fair.db").string(), fair.runIds[0]),
              candidates[0].at("hosts").get<std::vector<uint32_t>>());
}

} // namespace
} // namespace test
} // namespace ns3
