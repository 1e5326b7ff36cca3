/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The epoch planners in whole runs: Symphony and Harmonics interleave two
 * jobs that collide under fair sharing, each within 10% of its isolated
 * iteration time; Harmonics plans exactly as Symphony when every job stays
 * in its rack; a solver stopped by its time limit still gives a feasible
 * plan and the run goes on; scheduling time is recorded by part.
 */

#include "example-process-test-util.h"
#include "scenario-run-test.h"

#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

using namespace ns3;

namespace
{

/// (kind, detail) of every decision of run \p runId, in order.
std::vector<std::pair<std::string, nlohmann::json>>
Decisions(const std::string& dbPath, int64_t runId)
{
    std::vector<std::pair<std::string, nlohmann::json>> out;
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(dbPath.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    const std::string sql =
        "SELECT kind, detail_json FROM scheduler_decisions WHERE run_id=" + std::to_string(runId) +
        " ORDER BY rowid";
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW)
    {
        out.emplace_back(
            reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
            nlohmann::json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 1))));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

class EpochSchedulerTest : public test::ScenarioRunTest
{
  protected:
    /// Two leaves of two hosts with 2 GPUs each under one spine.
    static ScenarioSpec TwoLeaves()
    {
        ScenarioSpec spec = ScenarioRunTest::TwoLeaves(2);
        spec.name = "epoch-test";
        return spec;
    }
};

TEST_F(EpochSchedulerTest, SymphonyAndHarmonicsInterleaveWhatFairSharingSlowsDown)
{
    // Jobs 0 and 1 cross the spine in the same directions; alone, each
    // communicates about 380 us after 500 us of compute, so they can take turns. The
    // thresholds were set with the HPCC simulator's DCQCN (the ConnectX defaults slow fair
    // sharing less).
    ScenarioSpec spec = TwoLeaves();
    spec.fabric.cc = "dcqcn[profile=hpcc]";
    spec.jobs = {Job(0, {0, 2}, 4000000, MicroSeconds(500), 10),
                 Job(1, {1, 3}, 4000000, MicroSeconds(500), 10)};
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    const RunOutcome fair = ScenarioRunner(spec, "test").Run("fair");
    for (std::size_t j = 0; j < 2; ++j)
    {
        EXPECT_GT(Ratio(fair.jobs[j].meanIteration, isolated.jobs[j].meanIteration), 1.2);
    }
    // Plans take effect at once: this is about what they decide (a solve
    // takes longer than these scaled-down iterations).
    Config::SetDefault("ns3::EpochScheduler::SolveTime",
                       EnumValue(EpochScheduler::SOLVE_TIME_NONE));
    for (const char* policy : {"symphony", "harmonics"})
    {
        const RunOutcome o = ScenarioRunner(spec, "test").Run(policy);
        for (std::size_t j = 0; j < 2; ++j)
        {
            EXPECT_TRUE(o.jobs[j].done) << policy;
            EXPECT_LT(Ratio(o.jobs[j].meanIteration, isolated.jobs[j].meanIteration), 1.10)
                << policy << " job " << j;
        }
    }
    Config::SetDefault("ns3::EpochScheduler::SolveTime",
                       EnumValue(EpochScheduler::SOLVE_TIME_MODELLED));
}

TEST_F(EpochSchedulerTest, HarmonicsPlansAsSymphonyWhenJobsStayInTheirRacks)
{
    // Jobs 0 and 1 share hosts 0 and 1 (rack 0), job 2 is alone in rack 1:
    // nothing crosses racks, so the local plans together are the central one.
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 1}, 2000000, MicroSeconds(300), 3),
                 Job(1, {0, 1}, 2000000, MicroSeconds(300), 3),
                 Job(2, {2, 3}, 2000000, MicroSeconds(300), 3)};
    spec.output.db = (m_dir / "racks.db").string();
    Config::SetDefault("ns3::EpochScheduler::SolveTime",
                       EnumValue(EpochScheduler::SOLVE_TIME_NONE));
    Config::SetDefault("ns3::EpochScheduler::RelativeGap", DoubleValue(0.0));
    const RunOutcome symphony = ScenarioRunner(spec, "test").Run("symphony");
    const RunOutcome harmonics = ScenarioRunner(spec, "test").Run("harmonics");
    Config::SetDefault("ns3::EpochScheduler::RelativeGap", DoubleValue(1e-3));
    Config::SetDefault("ns3::EpochScheduler::SolveTime",
                       EnumValue(EpochScheduler::SOLVE_TIME_MODELLED));
    const auto s = Decisions(spec.output.db, symphony.runIds.at(0));
    const auto h = Decisions(spec.output.db, harmonics.runIds.at(0));
    // The three arrivals see the same instance in both runs.
    uint32_t compared = 0;
    for (std::size_t i = 0; i < std::min(s.size(), h.size()) && s[i].first == "job-arrived"; ++i)
    {
        ASSERT_EQ(h[i].first, "job-arrived");
        EXPECT_TRUE(s[i].second["plan"]["proven"].get<bool>()) << s[i].second.dump();
        EXPECT_NEAR(s[i].second["plan"]["objective"].get<double>(),
                    h[i].second["objective"].get<double>(),
                    1e-6);
        EXPECT_EQ(h[i].second["coordinator"]["jobs"].get<int>(), 0);
        ++compared;
    }
    EXPECT_EQ(compared, 3u);
}

TEST_F(EpochSchedulerTest, SymphonyByPartsPlansAsTheWholeSolve)
{
    // Rack 0's jobs and rack 1's share no link: solved apart, each arrival's
    // plan is as good as the one MILP over all three jobs, and the third
    // arrival's plan is made of two parts.
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 1}, 2000000, MicroSeconds(300), 3),
                 Job(1, {0, 1}, 2000000, MicroSeconds(300), 3),
                 Job(2, {2, 3}, 2000000, MicroSeconds(300), 3)};
    spec.output.db = (m_dir / "parts.db").string();
    Config::SetDefault("ns3::EpochScheduler::SolveTime",
                       EnumValue(EpochScheduler::SOLVE_TIME_NONE));
    Config::SetDefault("ns3::EpochScheduler::RelativeGap", DoubleValue(0.0));
    const RunOutcome whole = ScenarioRunner(spec, "test").Run("symphony");
    Config::SetDefault("ns3::SymphonyScheduler::SolveByParts", BooleanValue(true));
    const RunOutcome parts = ScenarioRunner(spec, "test").Run("symphony");
    Config::SetDefault("ns3::SymphonyScheduler::SolveByParts", BooleanValue(false));
    Config::SetDefault("ns3::EpochScheduler::RelativeGap", DoubleValue(1e-3));
    Config::SetDefault("ns3::EpochScheduler::SolveTime",
                       EnumValue(EpochScheduler::SOLVE_TIME_MODELLED));
    const auto w = Decisions(spec.output.db, whole.runIds.at(0));
    const auto p = Decisions(spec.output.db, parts.runIds.at(0));
    std::vector<int> partCounts;
    for (std::size_t i = 0; i < std::min(w.size(), p.size()) && w[i].first == "job-arrived"; ++i)
    {
        ASSERT_EQ(p[i].first, "job-arrived");
        EXPECT_FALSE(w[i].second.contains("parts"));
        EXPECT_TRUE(p[i].second["plan"]["proven"].get<bool>()) << p[i].second.dump();
        EXPECT_NEAR(p[i].second["plan"]["objective"].get<double>(),
                    w[i].second["plan"]["objective"].get<double>(),
                    1e-6);
        partCounts.push_back(p[i].second["parts"].get<int>());
    }
    EXPECT_EQ(partCounts, (std::vector<int>{1, 1, 2}));
    for (const JobOutcome& j : parts.jobs)
    {
        EXPECT_TRUE(j.done);
    }
}

TEST_F(EpochSchedulerTest, TimeLimitedSolverStillPlansAndTheRunGoesOn)
{
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 2}, 2000000, MicroSeconds(300), 12),
                 Job(1, {1, 3}, 2000000, MicroSeconds(300), 12),
                 Job(2, {0, 3}, 2000000, MicroSeconds(300), 12)};
    spec.scheduler = "symphony";
    spec.schedulerParams = R"({"TimeLimit": "1ns", "SlotLength": "10us"})";
    spec.output.db = (m_dir / "limit.db").string();
    const RunOutcome o = ScenarioRunner(spec, "test").Run();
    for (const JobOutcome& j : o.jobs)
    {
        EXPECT_TRUE(j.done);
    }
    uint32_t unproven = 0;
    for (const auto& [kind, d] : Decisions(spec.output.db, o.runIds.at(0)))
    {
        if (d.contains("plan"))
        {
            unproven += d["plan"]["proven"].get<bool>() ? 0 : 1;
        }
    }
    EXPECT_GT(unproven, 0u);
}

TEST_F(EpochSchedulerTest, APlanOverMaxNonzerosIsMadeOnLongerSlots)
{
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 2}, 2000000, MicroSeconds(300), 4),
                 Job(1, {1, 3}, 2000000, MicroSeconds(300), 4),
                 Job(2, {0, 3}, 2000000, MicroSeconds(300), 4)};
    spec.scheduler = "symphony";
    spec.schedulerParams = R"({"SlotLength": "10us", "SolveTime": "none"})";
    spec.output.db = (m_dir / "coarse.db").string();
    // Per MaxNonzeros, the largest slot factor of the run's plans.
    std::map<uint64_t, int64_t> largest;
    for (const uint64_t limit : {uint64_t{0}, uint64_t{200}})
    {
        Config::SetDefault("ns3::SymphonyScheduler::MaxNonzeros", UintegerValue(limit));
        const RunOutcome o = ScenarioRunner(spec, "test").Run();
        for (const JobOutcome& j : o.jobs)
        {
            EXPECT_TRUE(j.done);
        }
        largest[limit] = 0;
        for (const auto& [kind, d] : Decisions(spec.output.db, o.runIds.at(0)))
        {
            if (d.contains("plan") && d["plan"].contains("slot_factor"))
            {
                const int64_t f = d["plan"]["slot_factor"].get<int64_t>();
                largest[limit] = std::max(largest[limit], f);
                EXPECT_TRUE(f == 1 || !d["plan"]["proven"].get<bool>()) << d.dump();
            }
        }
    }
    Config::SetDefault("ns3::SymphonyScheduler::MaxNonzeros", UintegerValue(0));
    // Without a limit every plan is on the plan's own slots; with one of 200
    // terms the plans of three contending jobs over 20 slots are not.
    EXPECT_EQ(largest[0], 1);
    EXPECT_GT(largest[200], 1);
}

TEST_F(EpochSchedulerTest, SchedulingTimeIsRecordedByPart)
{
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 2}, 1000000, MicroSeconds(200), 2),
                 Job(1, {1, 3}, 1000000, MicroSeconds(200), 2),
                 Job(2, {0, 1}, 1000000, MicroSeconds(200), 2)};
    spec.output.db = (m_dir / "timing.db").string();
    const RunOutcome o = ScenarioRunner(spec, "test").Run("harmonics");
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db,
                                 "SELECT part, count, total_us, max_us FROM scheduler_timing",
                                 -1,
                                 &st,
                                 nullptr),
              SQLITE_OK);
    std::map<std::string, std::tuple<int64_t, double, double>> parts;
    while (sqlite3_step(st) == SQLITE_ROW)
    {
        parts[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] = {
            sqlite3_column_int64(st, 1),
            sqlite3_column_double(st, 2),
            sqlite3_column_double(st, 3)};
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    ASSERT_EQ(parts.count("coordinator"), 1u);
    ASSERT_EQ(parts.count("local"), 1u);
    ASSERT_EQ(parts.count("scheduling"), 1u);
    // One coordinator and one scheduling time per plan; scheduling = coordinator + slowest local.
    EXPECT_EQ(std::get<0>(parts["coordinator"]), std::get<0>(parts["scheduling"]));
    EXPECT_GE(std::get<1>(parts["scheduling"]), std::get<1>(parts["coordinator"]));
    EXPECT_LE(std::get<1>(parts["scheduling"]),
              std::get<1>(parts["coordinator"]) + std::get<1>(parts["local"]) + 1e-6);
    EXPECT_GT(o.decisions, 0u);
}

} // namespace

namespace
{

TEST_F(EpochSchedulerTest, ReadyCollectiveOnIdleLinksStartsAtOnce)
{
    // Slots of 300 us round every planned start up by as much, and epochs of
    // 5 ms rarely re-plan; a job alone still starts each collective as soon as
    // it is ready (its links are idle), so it runs at its isolated speed.
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 2}, 2000000, MicroSeconds(230), 6)};
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    for (const char* policy : {"symphony", "harmonics"})
    {
        spec.scheduler = policy;
        spec.schedulerParams = R"({"SlotLength": "300us", "EpochLength": "5ms"})";
        const RunOutcome o = ScenarioRunner(spec, "test").Run();
        ASSERT_TRUE(o.jobs[0].done) << policy;
        EXPECT_LT(Ratio(o.jobs[0].meanIteration, isolated.jobs[0].meanIteration), 1.01) << policy;
    }
}

} // namespace

namespace
{

/// Per job of run \p runId: its gate's open intervals [open, close), in order.
std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>>
OpenIntervals(const std::string& dbPath, int64_t runId)
{
    std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> out;
    for (const test::Row& row : test::Query(dbPath,
                                            "SELECT t_ns, job_id, open FROM gates WHERE run_id=" +
                                                std::to_string(runId) + " ORDER BY t_ns, rowid"))
    {
        const int64_t t = std::stoll(*row[0]);
        auto& list = out[static_cast<uint32_t>(std::stoul(*row[1]))];
        if (*row[2] != "0")
        {
            list.emplace_back(t, -1);
        }
        else if (!list.empty() && list.back().second < 0)
        {
            list.back().second = t;
        }
    }
    return out;
}

TEST_F(EpochSchedulerTest, ReadyCollectiveRunsBelowThePlanUntilItsSlot)
{
    // Both jobs cross the spine in the same directions and are ready
    // together, so every plan serialises them. With StartEarly the one that
    // waits opens its gate when it is ready, in LateClass, and takes what
    // the planned one leaves; strict priority keeps the planned one as fast
    // as under the closed gate (the early one pays: DCQCN cuts its starved
    // flows' rates). Without it the gates never overlap.
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 2}, 4000000, MicroSeconds(500), 8),
                 Job(1, {1, 3}, 4000000, MicroSeconds(500), 8)};
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    Config::SetDefault("ns3::EpochScheduler::SolveTime",
                       EnumValue(EpochScheduler::SOLVE_TIME_NONE));
    Config::SetDefault("ns3::EpochScheduler::Priorities",
                       EnumValue(EpochScheduler::PRIORITIES_PLAN));
    for (bool early : {true, false})
    {
        Config::SetDefault("ns3::EpochScheduler::StartEarly", BooleanValue(early));
        spec.output.db = (m_dir / (early ? "early.db" : "gated.db")).string();
        const RunOutcome o = ScenarioRunner(spec, "test").Run("symphony");
        ASSERT_TRUE(o.jobs[0].done && o.jobs[1].done);
        auto open = OpenIntervals(spec.output.db, o.runIds.at(0));
        // Time both gates were open at once.
        int64_t together = 0;
        for (const auto& [a0, a1] : open[0])
        {
            for (const auto& [b0, b1] : open[1])
            {
                together += std::max<int64_t>(0, std::min(a1, b1) - std::max(a0, b0));
            }
        }
        const int64_t iteration = isolated.jobs[0].meanIteration.GetNanoSeconds();
        if (early)
        {
            // Until they fall into turns, the one that waits runs beside the other.
            EXPECT_GT(together, iteration / 2) << "gates open together " << together << " ns";
        }
        else
        {
            EXPECT_LT(together, iteration / 20) << "gates open together " << together << " ns";
        }
        const double r0 = Ratio(o.jobs[0].meanIteration, isolated.jobs[0].meanIteration);
        const double r1 = Ratio(o.jobs[1].meanIteration, isolated.jobs[1].meanIteration);
        EXPECT_LT(std::min(r0, r1), 1.10) << (early ? "early" : "gated");
        if (!early)
        {
            EXPECT_LT(std::max(r0, r1), 1.10) << "gated";
        }
    }
    Config::SetDefault("ns3::EpochScheduler::StartEarly", BooleanValue(false));
    Config::SetDefault("ns3::EpochScheduler::Priorities",
                       EnumValue(EpochScheduler::PRIORITIES_INTENSITY));
    Config::SetDefault("ns3::EpochScheduler::SolveTime",
                       EnumValue(EpochScheduler::SOLVE_TIME_MODELLED));
}

} // namespace
