/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The epoch planners choose routes at packet level: two jobs whose default
 * ECMP paths collide are moved apart instead of serialised; source ports
 * change only while a job's gate is closed, and every message takes the
 * source port last set before it was posted; a plan takes effect only after
 * its modelled solve time.
 */

#include "scenario-run-test.h"

#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <tuple>

using namespace ns3;

namespace
{

/// Rows of \p sql (each column as text) from the database at \p path.
std::vector<std::vector<std::string>>
Rows(const std::string& path, const std::string& sql)
{
    std::vector<std::vector<std::string>> out;
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
    while (sqlite3_step(st) == SQLITE_ROW)
    {
        std::vector<std::string> row;
        for (int c = 0; c < sqlite3_column_count(st); ++c)
        {
            const auto* text = sqlite3_column_text(st, c);
            row.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
        }
        out.push_back(std::move(row));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

class EpochSchedulerRoutesTest : public test::ScenarioRunTest
{
  protected:
    /// Two leaves of two hosts under two spines; jobs 0 and 1 cross from
    /// leaf 0 to leaf 1, and their default ports hash both onto one spine
    /// (each direction). They communicate longer than they compute, so no
    /// choice of start times lets them take turns without waiting.
    ScenarioSpec TwoSpines()
    {
        ScenarioSpec spec = ScenarioRunTest::TwoLeaves(2);
        spec.name = "routes-test";
        spec.topology.Set("spines", UintegerValue(2));
        spec.jobs = {Job(0, {0, 2}, 4000000, MicroSeconds(100), 8),
                     Job(1, {1, 3}, 4000000, MicroSeconds(100), 8)};
        spec.output.db = (m_dir / "routes.db").string();
        return spec;
    }

    /// TwoSpines with a third job arriving later, random candidates and short
    /// epochs: plans are made while jobs communicate, and routes change often.
    ScenarioSpec RoutesChangingOften()
    {
        ScenarioSpec spec = TwoSpines();
        spec.jobs.push_back(Job(2, {0, 3}, 4000000, MicroSeconds(100), 6));
        spec.jobs.back().arrivalNs = 700000;
        spec.schedulerParams =
            R"({"RandomRoutes": "4", "EpochLength": "200us", "SolveTime": "none"})";
        return spec;
    }
};

TEST_F(EpochSchedulerRoutesTest, RoutesRemoveACollisionThatTimeAloneSerialises)
{
    ScenarioSpec spec = TwoSpines();
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    spec.scheduler = "symphony";
    // Plans take effect at once here: this is about what they decide.
    spec.schedulerParams = R"({"RouteChoice": "false", "SolveTime": "none"})";
    const RunOutcome timeOnly = ScenarioRunner(spec, "test").Run();
    spec.schedulerParams = R"({"SolveTime": "none"})";
    const RunOutcome routed = ScenarioRunner(spec, "test").Run();

    // Precondition: on their default paths the jobs collide, so a plan of
    // start times alone must serialise them.
    double worst = 0;
    for (std::size_t j = 0; j < 2; ++j)
    {
        worst =
            std::max(worst, Ratio(timeOnly.jobs[j].meanIteration, isolated.jobs[j].meanIteration));
    }
    EXPECT_GT(worst, 1.1);
    for (std::size_t j = 0; j < 2; ++j)
    {
        ASSERT_TRUE(routed.jobs[j].done);
        EXPECT_LT(Ratio(routed.jobs[j].meanIteration, isolated.jobs[j].meanIteration), 1.03)
            << "job " << j;
    }

    // The plans chose a route other than the default, and ports were set.
    bool rerouted = false;
    uint32_t portActions = 0;
    for (const auto& row : Rows(spec.output.db,
                                "SELECT detail_json FROM scheduler_decisions WHERE run_id=" +
                                    std::to_string(routed.runIds.at(0))))
    {
        const auto d = nlohmann::json::parse(row[0]);
        for (const auto& a : d["actions"])
        {
            portActions += a.contains("source_port") ? 1 : 0;
        }
        if (d.contains("planned_routes"))
        {
            for (const auto& [job, routes] : d["planned_routes"].items())
            {
                for (const auto& r : routes)
                {
                    rerouted = rerouted || r.get<int>() != 0;
                }
            }
        }
    }
    EXPECT_TRUE(rerouted);
    EXPECT_GT(portActions, 0u);
}

TEST_F(EpochSchedulerRoutesTest, HarmonicsCoordinatorRoutesCrossRackRingsApart)
{
    // Both jobs cross racks, so Harmonics' coordinator places them; its
    // candidates include the joint least-loaded assignment, which puts them
    // on different spines, so neither waits for the other. Each job's
    // candidates mark one routing as the joint one (what the coordinator
    // prefers among equal choices; that preference is tested on the planner
    // alone: CoordinatorTakesTheJointRouteAmongEqualChoices).
    ScenarioSpec spec = TwoSpines();
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    spec.scheduler = "harmonics";
    spec.schedulerParams = R"({"SolveTime": "none"})";
    const RunOutcome o = ScenarioRunner(spec, "test").Run();
    for (std::size_t j = 0; j < 2; ++j)
    {
        ASSERT_TRUE(o.jobs[j].done);
        EXPECT_LT(Ratio(o.jobs[j].meanIteration, isolated.jobs[j].meanIteration), 1.03)
            << "job " << j;
    }
    // Every job has exactly one routing of the joint assignment.
    uint32_t notes = 0;
    for (const auto& row : Rows(spec.output.db,
                                "SELECT detail_json FROM scheduler_decisions WHERE run_id=" +
                                    std::to_string(o.runIds.at(0))))
    {
        const auto d = nlohmann::json::parse(row[0]);
        if (!d.contains("routings"))
        {
            continue;
        }
        for (const auto& [job, list] : d["routings"].items())
        {
            uint32_t joint = 0;
            for (const auto& r : list)
            {
                joint += r["joint"].get<bool>() ? 1 : 0;
            }
            EXPECT_EQ(joint, 1u) << "job " << job << ": " << list.dump();
            ++notes;
        }
    }
    EXPECT_GT(notes, 0u);
}

TEST_F(EpochSchedulerRoutesTest, ArrivalsMoveEveryJobToItsJointRouting)
{
    // The plans take 5 ms to solve, longer than the whole run, so no plan
    // routes anything: what moves the jobs apart is the joint routing they
    // follow as each arrives (each connection on the path least loaded by
    // the jobs ranked above it). Without it both stay on their default ports,
    // which hash onto one spine, and the job ranked below takes about twice its
    // time alone.
    ScenarioSpec spec = TwoSpines();
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    spec.scheduler = "symphony";
    for (const bool follow : {true, false})
    {
        spec.schedulerParams = std::string(R"({"SolveTimeBase": "5ms", "FollowJointRoutes": )") +
                               (follow ? "true" : "false") + "}";
        const RunOutcome o = ScenarioRunner(spec, "test").Run();
        double worst = 0;
        for (std::size_t j = 0; j < 2; ++j)
        {
            ASSERT_TRUE(o.jobs[j].done);
            worst =
                std::max(worst,
                         Ratio(o.jobs[j].meanCommunication, isolated.jobs[j].meanCommunication));
        }
        // Colliding, the job ranked below waits for the other's bytes.
        if (follow)
        {
            EXPECT_LT(worst, 1.05);
        }
        else
        {
            EXPECT_GT(worst, 1.5);
        }
    }
}

TEST_F(EpochSchedulerRoutesTest, ADepartureMovesNoJobWhoseJointPathsStillTie)
{
    // Jobs 0 and 1 join the same two hosts across the leaves: job 0, placed
    // first, takes the path of the smallest port, job 1 the other spine.
    // When job 0 leaves, both paths are free: the joint routing keeps job 1
    // where it is, as Crux does (it reads the current ports). Computed
    // afresh, the tie would go to the smallest port, and groups would move
    // back and forth between equal paths on every arrival and departure.
    ScenarioSpec spec = TwoSpines();
    spec.jobs.at(0) = Job(0, {1, 3}, 4000000, MicroSeconds(100), 2);
    for (const char* policy : {"crux", "symphony", "harmonics"})
    {
        spec.scheduler = policy;
        spec.schedulerParams = std::string(policy) == "crux" ? "{}" : R"({"SolveTimeBase": "5ms"})";
        const RunOutcome o = ScenarioRunner(spec, "test").Run();
        const std::string run = std::to_string(o.runIds.at(0));
        const auto done = Rows(spec.output.db,
                               "SELECT MIN(t_ns) FROM scheduler_decisions WHERE run_id=" + run +
                                   " AND kind='job-done' AND job_id=0");
        ASSERT_EQ(done.size(), 1u);
        ASSERT_FALSE(done[0][0].empty()) << policy << ": job 0 never left";
        uint32_t moves = 0;
        for (const auto& row : Rows(spec.output.db,
                                    "SELECT detail_json FROM scheduler_decisions WHERE run_id=" +
                                        run + " AND t_ns=" + done[0][0]))
        {
            const auto d = nlohmann::json::parse(row[0]);
            for (const auto& a : d["actions"])
            {
                moves += a.contains("source_port") ? 1 : 0;
            }
        }
        EXPECT_EQ(moves, 0u) << policy;
        for (const JobOutcome& j : o.jobs)
        {
            EXPECT_TRUE(j.done) << policy;
        }
    }
}

TEST_F(EpochSchedulerRoutesTest, ClassesRankOnlyJobsWhoseRoutesShareALink)
{
    // Once the jobs follow their joint routings they cross different spines:
    // their candidate routings still share links (neither is uncontended),
    // but the routes they use do not, so neither is ranked below the other.
    // Ranked over their candidates, the job of the lower GPU intensity (here
    // the later id of two equal jobs) would sit a class below and be starved
    // wherever a plan put them on one link.
    ScenarioSpec spec = TwoSpines();
    spec.scheduler = "symphony";
    const RunOutcome o = ScenarioRunner(spec, "test").Run();
    uint32_t ranked = 0;
    for (const auto& row : Rows(spec.output.db,
                                "SELECT detail_json FROM scheduler_decisions WHERE run_id=" +
                                    std::to_string(o.runIds.at(0))))
    {
        const auto d = nlohmann::json::parse(row[0]);
        if (d.contains("uncontended"))
        {
            EXPECT_NE(d["uncontended"].dump(), "[0,1]");
        }
        if (d.contains("classes") && d["classes"].contains("0") && d["classes"].contains("1"))
        {
            EXPECT_EQ(d["classes"]["0"], d["classes"]["1"]) << d["classes"].dump();
            ++ranked;
        }
    }
    EXPECT_GT(ranked, 0u);
}

TEST_F(EpochSchedulerRoutesTest, PlannedPortsChangeOnlyWhileTheGateIsClosed)
{
    // The plans' own route changes (a job following its joint routing as
    // others arrive may move while it communicates: the messages already
    // posted keep their ports, EveryMessageTakesThePortLastSetBeforeItWasPosted).
    ScenarioSpec spec = RoutesChangingOften();
    spec.schedulerParams =
        R"({"RandomRoutes": "4", "EpochLength": "200us", "SolveTime": "none",
            "FollowJointRoutes": false})";
    for (const char* policy : {"symphony", "harmonics"})
    {
        spec.scheduler = policy;
        const RunOutcome o = ScenarioRunner(spec, "test").Run();
        const std::string run = std::to_string(o.runIds.at(0));
        // Gate state per job over time, as it took effect at the NICs.
        std::map<int64_t, std::vector<std::pair<int64_t, bool>>> gates;
        for (const auto& row :
             Rows(spec.output.db,
                  "SELECT job_id, t_ns, open FROM gates WHERE run_id=" + run + " ORDER BY t_ns"))
        {
            gates[std::stoll(row[0])].emplace_back(std::stoll(row[1]), row[2] == "1");
        }
        auto openAt = [&gates](int64_t job, int64_t t) {
            bool open = false;
            for (const auto& [when, state] : gates[job])
            {
                if (when <= t)
                {
                    open = state;
                }
            }
            return open;
        };
        uint32_t changes = 0;
        for (const auto& row :
             Rows(spec.output.db,
                  "SELECT t_ns, detail_json FROM scheduler_decisions WHERE run_id=" + run))
        {
            const int64_t t = std::stoll(row[0]);
            const auto d = nlohmann::json::parse(row[1]);
            for (const auto& a : d["actions"])
            {
                if (a.contains("source_port"))
                {
                    // It reaches the NICs one control delay (2 us) later. A
                    // change made as a collective ends goes out with the gate's
                    // closing, which the NICs take first: the gate may still be
                    // open at t, never at t + 2 us.
                    const int64_t job = a["job"].get<int64_t>();
                    EXPECT_FALSE(openAt(job, t + 2000)) << policy << " job " << job << " at " << t;
                    ++changes;
                }
            }
        }
        EXPECT_GT(changes, 0u) << policy;
        for (const JobOutcome& j : o.jobs)
        {
            EXPECT_TRUE(j.done) << policy;
        }
    }
}

TEST_F(EpochSchedulerRoutesTest, EveryMessageTakesThePortLastSetBeforeItWasPosted)
{
    // Routes change often here, a ready collective's included (its later
    // steps take the new route).
    ScenarioSpec spec = RoutesChangingOften();
    for (const char* policy : {"symphony", "harmonics"})
    {
        spec.scheduler = policy;
        const RunOutcome o = ScenarioRunner(spec, "test").Run();
        const std::string run = std::to_string(o.runIds.at(0));
        // (job, src host, dst host) -> (when it reaches the NICs, port), in order.
        std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>>
            set;
        for (const auto& row :
             Rows(spec.output.db,
                  "SELECT t_ns, detail_json FROM scheduler_decisions WHERE run_id=" + run +
                      " ORDER BY rowid"))
        {
            const int64_t t = std::stoll(row[0]);
            const auto d = nlohmann::json::parse(row[1]);
            for (const auto& a : d["actions"])
            {
                if (a.contains("source_port"))
                {
                    // It reaches the NICs one control delay (2 us) later.
                    set[{a["job"].get<int64_t>(), a["src"].get<int64_t>(), a["dst"].get<int64_t>()}]
                        .emplace_back(t + 2000, a["source_port"].get<int64_t>());
                }
            }
        }
        ASSERT_FALSE(set.empty()) << policy;
        // Hosts are the topology's first nodes: a flow's nodes are its hosts.
        uint32_t checked = 0;
        for (const auto& row : Rows(spec.output.db,
                                    "SELECT job_id, src_node, dst_node, start_ns, src_port FROM "
                                    "flows WHERE job_id IS NOT NULL AND run_id=" +
                                        run))
        {
            auto it = set.find({std::stoll(row[0]), std::stoll(row[1]), std::stoll(row[2])});
            if (it == set.end())
            {
                continue;
            }
            const int64_t posted = std::stoll(row[3]);
            int64_t port = -1; // the last set before the message was posted
            bool tie = false;
            for (const auto& [when, p] : it->second)
            {
                tie = tie || when == posted;
                if (when < posted)
                {
                    port = p;
                }
            }
            if (port <= 0 || tie)
            {
                continue; // none yet, its own port back, or set as it was posted
            }
            ++checked;
            EXPECT_EQ(std::stoll(row[4]), port) << policy << " flow posted at " << posted;
        }
        EXPECT_GT(checked, 10u) << policy;
        for (const JobOutcome& j : o.jobs)
        {
            EXPECT_TRUE(j.done) << policy;
        }
    }
}

TEST_F(EpochSchedulerRoutesTest, PlansTakeEffectAfterTheirModelledSolveTime)
{
    ScenarioSpec spec = TwoSpines();
    spec.scheduler = "symphony";
    // 1 ms per plan, whatever its size: longer than a collective, shorter
    // than the compute, so that the plans made on completions come in time;
    // on their colliding default routes the jobs must take turns.
    spec.schedulerParams = R"({"SolveTimeBase": "1ms", "SolveTimePerVariable": "0s",
                               "SolveTimePerRow": "0s", "RouteChoice": false,
                               "Priorities": "plan"})";
    spec.jobs = {Job(0, {0, 2}, 4000000, MicroSeconds(1500), 8),
                 Job(1, {1, 3}, 4000000, MicroSeconds(1500), 8)};
    const RunOutcome o = ScenarioRunner(spec, "test").Run();
    const auto rows = Rows(spec.output.db,
                           "SELECT t_ns, kind, detail_json FROM scheduler_decisions WHERE run_id=" +
                               std::to_string(o.runIds.at(0)) + " ORDER BY rowid");
    std::vector<int64_t> solved; // when a plan was started
    std::vector<int64_t> ready;  // when a plan took effect
    int64_t firstOpen = -1;
    std::map<uint32_t, int> cls; // job -> class last set
    for (const auto& row : rows)
    {
        const int64_t t = std::stoll(row[0]);
        const auto d = nlohmann::json::parse(row[2]);
        if (d.contains("solve_time_ns"))
        {
            EXPECT_EQ(d["solve_time_ns"].get<int64_t>(), 1000000);
            solved.push_back(t);
        }
        if (row[1] == "plan-ready")
        {
            ready.push_back(t);
            EXPECT_TRUE(d.contains("planned_start_slots")) << row[2];
        }
        for (const auto& a : d["actions"])
        {
            if (a.contains("priority_class"))
            {
                cls[a["job"].get<uint32_t>()] = a["priority_class"].get<int>();
            }
            if (a.contains("gate") && a["gate"] == "open" && row[1] == "planned-start")
            {
                firstOpen = firstOpen < 0 ? t : firstOpen;
                EXPECT_EQ(cls[a["job"].get<uint32_t>()], 3) << row[2]; // PlannedClass
            }
        }
    }
    ASSERT_FALSE(solved.empty());
    // The last solve may still run when the jobs are done.
    ASSERT_GE(ready.size() + 1, solved.size());
    ASSERT_LE(ready.size(), solved.size());
    for (std::size_t i = 0; i < ready.size(); ++i)
    {
        EXPECT_EQ(ready[i] - solved[i], 1000000) << "plan " << i; // one solve at a time
    }
    // No planned start can come before the first plan exists.
    ASSERT_GE(firstOpen, 0);
    EXPECT_GE(firstOpen, ready.front());
    for (const JobOutcome& j : o.jobs)
    {
        EXPECT_TRUE(j.done);
    }
}

TEST_F(EpochSchedulerRoutesTest, UnplannedCollectivesRunAtOnceBelowPlannedOnes)
{
    ScenarioSpec spec = TwoSpines();
    spec.scheduler = "symphony";
    // 1 ms per plan: the first collectives are ready long before any plan.
    // The jobs stay on their colliding default ports until a plan moves them.
    spec.schedulerParams =
        R"({"SolveTimeBase": "1ms", "SolveTimePerVariable": "0s", "SolveTimePerRow": "0s",
            "Priorities": "plan", "FollowJointRoutes": false})";
    const RunOutcome o = ScenarioRunner(spec, "test").Run();
    const auto rows = Rows(spec.output.db,
                           "SELECT t_ns, kind, detail_json FROM scheduler_decisions WHERE run_id=" +
                               std::to_string(o.runIds.at(0)) + " ORDER BY rowid");
    int64_t firstPlan = -1;
    std::map<int, uint32_t> earlyOpens; // class -> gates opened before the first plan
    std::map<uint32_t, int> cls;        // job -> class last set
    for (const auto& row : rows)
    {
        const int64_t t = std::stoll(row[0]);
        const auto d = nlohmann::json::parse(row[2]);
        if (row[1] == "plan-ready" && firstPlan < 0)
        {
            firstPlan = t;
        }
        for (const auto& a : d["actions"])
        {
            if (a.contains("priority_class"))
            {
                cls[a["job"].get<uint32_t>()] = a["priority_class"].get<int>();
            }
            if (a.contains("gate") && a["gate"] == "open")
            {
                const uint32_t job = a["job"].get<uint32_t>();
                ASSERT_EQ(cls.count(job), 1u) << "a gate opened before its class was set";
                if (firstPlan < 0)
                {
                    ++earlyOpens[cls[job]];
                }
            }
        }
    }
    ASSERT_GT(firstPlan, 0);
    // Both jobs' first collectives ran without waiting for the plan: the
    // first on idle links in the planned class (PlannedClass 3), the other,
    // whose links were taken, below it (LateClass 2).
    EXPECT_GE(earlyOpens[3], 1u);
    EXPECT_GE(earlyOpens[2], 1u);
    EXPECT_EQ(earlyOpens.size(), 2u);
    for (const JobOutcome& j : o.jobs)
    {
        EXPECT_TRUE(j.done);
    }
    // The packets went in the classes set: both data classes carried bytes.
    const auto classes =
        Rows(spec.output.db,
             "SELECT DISTINCT priority FROM flows WHERE run_id=" + std::to_string(o.runIds.at(0)) +
                 " ORDER BY priority");
    ASSERT_EQ(classes.size(), 2u);
    EXPECT_EQ(classes[0][0], "2");
    EXPECT_EQ(classes[1][0], "3");
}

} // namespace
