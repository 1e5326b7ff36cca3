/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Whole runs under each policy: isolated runs equal single-job runs, every
 * policy repeats itself bit for bit on the same seed, CASSINI interleaves
 * two jobs that fair sharing slows down, and the database holds each run's
 * decisions, gates and summary (and of a run that failed, which is marked
 * so, the rows written before it stopped), and a comparison whose runs go
 * side by side writes what it writes one run after the other. MLTCP's convergence is tested in
 * mltcp-convergence-test.
 */

#include "scenario-run-test.h"

#include "ns3/link-sampler.h"

#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sqlite3.h>
#include <sstream>
#include <unistd.h>

using namespace ns3;
using ns3::test::Count;

namespace
{

/// Every row of \p sql, its columns joined by ','.
std::vector<std::string>
Lines(sqlite3* db, const std::string& sql)
{
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
    std::vector<std::string> lines;
    while (sqlite3_step(st) == SQLITE_ROW)
    {
        std::string line;
        for (int c = 0; c < sqlite3_column_count(st); ++c)
        {
            const unsigned char* text = sqlite3_column_text(st, c);
            line += (text ? reinterpret_cast<const char*>(text) : "NULL") + std::string(",");
        }
        lines.push_back(line);
    }
    sqlite3_finalize(st);
    return lines;
}

/// Every row of every table of \p path, run by run, without the columns that
/// depend on the wall clock or the process (as utils/compare-results.py).
std::map<std::string, std::vector<std::string>>
Contents(const std::string& path)
{
    static const std::map<std::string, std::set<std::string>> ignored{
        {"runs", {"started_at", "finished_at", "wall_s", "pid", "host"}},
        {"scheduler_decisions", {"wall_us"}},
        {"scheduler_runs", {"total_wall_us", "max_wall_us"}},
        {"scheduler_timing", {"total_us", "mean_us", "max_us"}}};
    static const std::set<std::string> wallKeys{"wall_us",
                                                "scheduling_us",
                                                "solve_wall_us",
                                                "bound_wall_s"};
    std::function<void(nlohmann::json&)> strip = [&](nlohmann::json& j) {
        if (j.is_object())
        {
            for (const std::string& k : wallKeys)
            {
                j.erase(k);
            }
        }
        for (auto& v : j)
        {
            if (v.is_structured())
            {
                strip(v);
            }
        }
    };
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::map<std::string, std::vector<std::string>> contents;
    for (const std::string& table :
         Lines(db,
               "SELECT name FROM sqlite_master WHERE type = 'table' AND name != "
               "'sqlite_sequence' ORDER BY name"))
    {
        const std::string name = table.substr(0, table.size() - 1); // Lines ends each with ','
        sqlite3_stmt* st = nullptr;
        // Rows of runs made side by side interleave in the file: run by run.
        const bool perRun =
            Count(db,
                  "SELECT COUNT(*) FROM pragma_table_info('" + name + "') WHERE name = 'run_id'");
        const std::string sql =
            "SELECT * FROM " + name + (perRun ? " ORDER BY run_id, rowid" : " ORDER BY rowid");
        EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
        const auto skip = ignored.count(name) ? ignored.at(name) : std::set<std::string>{};
        while (sqlite3_step(st) == SQLITE_ROW)
        {
            std::string line;
            for (int c = 0; c < sqlite3_column_count(st); ++c)
            {
                if (skip.count(sqlite3_column_name(st, c)))
                {
                    continue;
                }
                const unsigned char* raw = sqlite3_column_text(st, c);
                std::string text = raw ? reinterpret_cast<const char*>(raw) : "NULL";
                if (!text.empty() && text[0] == '{')
                {
                    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
                    if (!j.is_discarded())
                    {
                        strip(j);
                        text = j.dump();
                    }
                }
                line += text + ",";
            }
            contents[name].push_back(line);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return contents;
}

class ScenarioRunnerTest : public test::ScenarioRunTest
{
  protected:
    /**
     * Job 0 on hosts {0, 2}, job 1 on {1, 3}: both rings cross the same
     * leaf-spine links in the same directions. Each all-reduces \p bytes per
     * iteration after \p compute of compute.
     */
    static ScenarioSpec TwoJobsOneSpine(uint64_t bytes, Time compute, uint32_t iterations)
    {
        ScenarioSpec spec = TwoLeaves(1);
        spec.name = "runner-test";
        for (uint32_t j = 0; j < 2; ++j)
        {
            spec.jobs.push_back(Job(j, {j, j + 2}, bytes, compute, iterations));
            spec.jobs.back().gpusPerHost = 1;
        }
        return spec;
    }
};

TEST_F(ScenarioRunnerTest, IsolatedTimesEqualEachJobsSingleJobRun)
{
    ScenarioSpec spec = TwoJobsOneSpine(2000000, MicroSeconds(150), 3);
    RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    ASSERT_EQ(isolated.jobs.size(), 2u);
    ASSERT_EQ(isolated.aloneEcmp.size(), 2u);
    EXPECT_EQ(isolated.scheduler, "isolated");
    for (uint32_t j = 0; j < 2; ++j)
    {
        ScenarioSpec alone = spec;
        alone.jobs = {spec.jobs[j]};
        RunOutcome single = ScenarioRunner(alone, "test").Run("fair");
        ASSERT_EQ(single.jobs.size(), 1u);
        EXPECT_EQ(single.jobs[0].iterationTimes, isolated.aloneEcmp[j].iterationTimes);
        EXPECT_EQ(single.jobs[0].trainingTime, isolated.aloneEcmp[j].trainingTime);
        // One spine: the best routes are ECMP's, and a tie keeps ECMP's run.
        EXPECT_EQ(single.jobs[0].iterationTimes, isolated.jobs[j].iterationTimes);
        EXPECT_EQ(isolated.jobs[j].routes, "ecmp");
    }
    // Alone, the two jobs are mirror images: the same times.
    EXPECT_EQ(isolated.jobs[0].iterationTimes, isolated.jobs[1].iterationTimes);
    // Sharing the spine links under fair sharing costs each job time.
    RunOutcome fair = ScenarioRunner(spec, "test").Run("fair");
    EXPECT_GT(Ratio(fair.MeanIterationTime(), isolated.MeanIterationTime()), 1.2);
}

TEST_F(ScenarioRunnerTest, EveryPolicyRepeatsItselfOnTheSameSeed)
{
    ScenarioSpec spec = TwoJobsOneSpine(1000000, MicroSeconds(80), 3);
    for (const std::string& policy : CollectiveSchedulerHelper::GetSchedulerNames())
    {
        RunOutcome a = ScenarioRunner(spec, "test").Run(policy);
        RunOutcome b = ScenarioRunner(spec, "test").Run(policy);
        ASSERT_EQ(a.jobs.size(), b.jobs.size()) << policy;
        for (std::size_t j = 0; j < a.jobs.size(); ++j)
        {
            EXPECT_TRUE(a.jobs[j].done) << policy;
            EXPECT_EQ(a.jobs[j].iterationTimes, b.jobs[j].iterationTimes) << policy;
            EXPECT_EQ(a.jobs[j].trainingTime, b.jobs[j].trainingTime) << policy;
        }
        EXPECT_EQ(a.decisions, b.decisions) << policy;
    }
}

TEST_F(ScenarioRunnerTest, UnknownSchedulerOrParameterNamesTheField)
{
    ScenarioSpec spec = TwoJobsOneSpine(1000000, MicroSeconds(80), 1);
    spec.lines["scheduler"] = 12;
    spec.lines["schedulerParams.Bogus"] = 13;
    try
    {
        ScenarioRunner(spec, "test").Run("no-such-policy");
        FAIL() << "an unknown scheduler was accepted";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("test:12: scheduler"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("fair"), std::string::npos) << e.what();
    }
    spec.scheduler = "fair";
    spec.schedulerParams = R"({"Bogus": 1})";
    try
    {
        ScenarioRunner(spec, "test").Run();
        FAIL() << "an unknown scheduler parameter was accepted";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("test:13: schedulerParams.Bogus"), std::string::npos)
            << e.what();
    }
    Simulator::Destroy();
}

TEST_F(ScenarioRunnerTest, DatabaseHoldsDecisionsGatesAndSummary)
{
    ScenarioSpec spec = TwoJobsOneSpine(1000000, MicroSeconds(80), 3);
    spec.output.db = (m_dir / "runs.db").string();
    RunOutcome cassini = ScenarioRunner(spec, "test").Run("cassini");
    ASSERT_EQ(cassini.runIds.size(), 1u);
    EXPECT_GT(cassini.decisions, 0u);

    // A run cut short by its stop time is marked failed and keeps the rows
    // streamed before the stop, not the end-of-run summary.
    spec.stopTimeNs = 100000;
    EXPECT_THROW(ScenarioRunner(spec, "test").Run("cassini"), IncompleteRunError);

    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    const std::string id = std::to_string(cassini.runIds[0]);
    EXPECT_EQ(
        Count(db, "SELECT COUNT(*) FROM runs WHERE status='complete' AND scheduler='cassini'"),
        1);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM runs WHERE status='failed'"), 1);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM scheduler_decisions WHERE run_id=" + id),
              static_cast<int64_t>(cassini.decisions));
    // The failed run's decisions and gate changes are those the complete run
    // made up to the stop time (same seed), in the same order.
    const std::string failedId = "(SELECT run_id FROM runs WHERE status='failed')";
    for (const std::string table : {"scheduler_decisions", "gates"})
    {
        const std::string columns = table == "gates" ? "t_ns, job_id, open" : "t_ns, kind, job_id";
        const std::vector<std::string> cut =
            Lines(db,
                  "SELECT " + columns + " FROM " + table + " WHERE run_id=" + failedId +
                      " ORDER BY rowid");
        const std::vector<std::string> whole =
            Lines(db,
                  "SELECT " + columns + " FROM " + table + " WHERE run_id=" + id +
                      " AND t_ns <= " + std::to_string(spec.stopTimeNs) + " ORDER BY rowid");
        EXPECT_EQ(cut, whole) << table;
        EXPECT_FALSE(cut.empty()) << table;
    }
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM scheduler_runs"), 1);
    EXPECT_EQ(Count(db, "SELECT decisions FROM scheduler_runs WHERE run_id=" + id),
              static_cast<int64_t>(cassini.decisions));
    // Gates: each job placed closed, then opened and closed once per iteration.
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM gates WHERE run_id=" + id + " AND open=0"), 2 * 4);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM gates WHERE run_id=" + id + " AND open=1"), 2 * 3);
    sqlite3_close(db);
}

TEST_F(ScenarioRunnerTest, ARunEndsWithItsLastJobNotItsLastPacket)
{
    // Job 0 talks only over NVLink (both ranks on host 0), so the network
    // never sees it; job 1 crosses the spine and ends first. The run ends
    // when job 0 does, after the network's last packet.
    ScenarioSpec spec = TwoLeaves(2);
    spec.name = "run-end-test";
    spec.jobs.push_back(Job(0, {0, 0}, 1000000, MicroSeconds(900), 4));
    spec.jobs.push_back(Job(1, {1, 3}, 1000000, MicroSeconds(80), 1));
    spec.output.db = (m_dir / "end.db").string();
    const RunOutcome o = ScenarioRunner(spec, "test").Run("fair");
    ASSERT_EQ(o.runIds.size(), 1u);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    const std::string id = std::to_string(o.runIds[0]);
    const int64_t end = Count(db, "SELECT sim_end_ns FROM runs WHERE run_id=" + id);
    const int64_t job0 = Count(db, "SELECT end_ns FROM jobs WHERE job_id=0 AND run_id=" + id);
    const int64_t lastFlow =
        Count(db, "SELECT MAX(MAX(end_ns), MAX(ack_ns)) FROM flows WHERE run_id=" + id);
    EXPECT_GT(lastFlow, 0);
    EXPECT_GT(job0, lastFlow);
    EXPECT_GE(job0, 4 * 900000);
    EXPECT_EQ(end, job0);
    sqlite3_close(db);
}

TEST_F(ScenarioRunnerTest, CassiniInterleavesWhatFairSharingSlowsDown)
{
    // Communication is about half of each iteration when alone. The thresholds below were
    // set with the HPCC simulator's DCQCN (the ConnectX defaults slow fair sharing less).
    ScenarioSpec spec = TwoJobsOneSpine(4000000, MicroSeconds(340), 12);
    spec.fabric.cc = "dcqcn[profile=hpcc]";
    RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    RunOutcome fair = ScenarioRunner(spec, "test").Run("fair");
    spec.output.db = (m_dir / "cassini.db").string();
    RunOutcome cassini = ScenarioRunner(spec, "test").Run("cassini");

    // The second job's shift is a best one: brute force over every shift of its
    // communication phase against the first job's, on the circle of their period.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    std::map<int64_t, nlohmann::json> notes;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db,
                       "SELECT job_id, detail_json FROM scheduler_decisions "
                       "WHERE kind='job-arrived'",
                       -1,
                       &st,
                       nullptr);
    while (sqlite3_step(st) == SQLITE_ROW)
    {
        notes[sqlite3_column_int64(st, 0)] =
            nlohmann::json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    ASSERT_EQ(notes.size(), 2u);
    const int64_t q = notes[1]["quantum_ns"].get<int64_t>();
    const int64_t period = notes[1]["period_ns"].get<int64_t>() / q;
    ASSERT_EQ(notes[0]["period_ns"].get<int64_t>() / q, period); // identical jobs
    const int64_t anchor0 = notes[0]["anchor_ns"].get<int64_t>() / q;
    const int64_t comm0 = notes[0]["comm_ns"].get<int64_t>() / q;
    const int64_t compute1 = notes[1]["compute_ns"].get<int64_t>() / q;
    const int64_t comm1 = notes[1]["comm_ns"].get<int64_t>() / q;
    // Total overlap of the two communication phases on the circle, per shift.
    auto overlap = [&](int64_t shift) {
        int64_t n = 0;
        for (int64_t t = 0; t < period; ++t)
        {
            const bool busy0 = ((t - anchor0) % period + period) % period < comm0;
            const bool busy1 = ((t - compute1 - shift) % period + period) % period < comm1;
            n += busy0 && busy1;
        }
        return n;
    };
    int64_t best = period;
    for (int64_t s = 0; s < period; ++s)
    {
        best = std::min(best, overlap(s));
    }
    const int64_t chosen = notes[1]["shift_ns"].get<int64_t>() / q;
    EXPECT_EQ(overlap(chosen), best) << "shift " << chosen << " of " << period;
    EXPECT_EQ(best, std::max<int64_t>(0, comm0 + comm1 - period));
    for (std::size_t j = 0; j < 2; ++j)
    {
        const Time alone = isolated.jobs[j].meanIteration;
        EXPECT_GT(Ratio(fair.jobs[j].meanIteration, alone), 1.15) << "job " << j;
        // Steady state: after the first iteration (which may wait for the grid).
        std::vector<Time> its = cassini.jobs[j].iterationTimes;
        its.erase(its.begin());
        Time sum(0);
        for (Time t : its)
        {
            sum += t;
        }
        EXPECT_LT(Ratio(sum / static_cast<int64_t>(its.size()), alone), 1.10) << "job " << j;
    }
}

} // namespace

namespace
{

TEST_F(ScenarioRunnerTest, LinkSamplesAddUpToTheLinkCountersPerJob)
{
    ScenarioSpec spec = TwoJobsOneSpine(1000000, MicroSeconds(100), 2);
    spec.attributes = {{"ns3::LinkSampler::Interval", "10us"}};
    spec.output.db = (m_dir / "samples.db").string();
    const RunOutcome o = ScenarioRunner(spec, "test").Run("fair");
    Config::SetDefault("ns3::LinkSampler::Interval", TimeValue(LinkSampler::DefaultInterval()));
    const std::string id = std::to_string(o.runIds.at(0));
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    // Conservation: per link and direction, the samples add up to the link's counter.
    EXPECT_EQ(Count(db,
                    "SELECT COUNT(*) FROM links l WHERE run_id=" + id +
                        " AND tx_bytes_ab <> (SELECT COALESCE(SUM(tx_bytes),0) FROM link_samples"
                        " s WHERE s.run_id=l.run_id AND s.link_id=l.link_id AND direction=0"
                        " AND kind='fabric') OR tx_bytes_ba <> (SELECT COALESCE(SUM(tx_bytes),0)"
                        " FROM link_samples s WHERE s.run_id=l.run_id AND s.link_id=l.link_id"
                        " AND direction=1 AND kind='fabric')"),
              0);
    EXPECT_GT(Count(db, "SELECT COUNT(*) FROM link_samples WHERE run_id=" + id), 0);
    // Every sample starts on a 10 us boundary.
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM link_samples WHERE t_ns % 10000 <> 0"), 0);
    // Host 0 carries job 0 only (job 1 is on hosts 1 and 3): on its link (link 0 in a
    // leaf-spine, host 0 to leaf 0) no byte of job 1, and job 0's data in both directions.
    EXPECT_EQ(Count(db,
                    "SELECT COUNT(*) FROM link_samples WHERE link_id=0 AND job_id=1 AND "
                    "kind='fabric'"),
              0);
    EXPECT_GT(Count(db,
                    "SELECT SUM(tx_bytes) FROM link_samples WHERE link_id=0 AND job_id=0 AND "
                    "direction=0 AND kind='fabric'"),
              2 * 1000000 / 2);
    sqlite3_close(db);
}

TEST_F(ScenarioRunnerTest, SamplingIsOnByDefaultWherePacketsAreAndDroppedElsewhere)
{
    // Packet level: links and ports sampled every 1 ms without asking. Flow
    // level: the default dropped (no rows, 0 in params_json); an interval
    // asked for samples the NVSwitches' ports only (none here: one GPU a
    // host), never a fabric link.
    ScenarioSpec spec = TwoJobsOneSpine(1000000, MicroSeconds(100), 2);
    spec.output.db = (m_dir / "default.db").string();
    const RunOutcome packet = ScenarioRunner(spec, "test").Run("fair");
    spec.backend = "flow";
    const RunOutcome flow = ScenarioRunner(spec, "test").Run("fair");
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    const std::string p = std::to_string(packet.runIds.at(0));
    const std::string f = std::to_string(flow.runIds.at(0));
    EXPECT_GT(Count(db, "SELECT COUNT(*) FROM link_samples WHERE run_id=" + p), 0);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM link_samples WHERE t_ns % 1000000 <> 0"), 0);
    EXPECT_EQ(Count(db,
                    "SELECT json_extract(params_json, '$.sample_interval_ns') +"
                    " json_extract(params_json, '$.monitorIntervalNs') FROM runs WHERE run_id=" +
                        p),
              2000000);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM link_samples WHERE run_id=" + f), 0);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM port_samples WHERE run_id=" + f), 0);
    EXPECT_EQ(Count(db,
                    "SELECT json_extract(params_json, '$.sample_interval_ns') +"
                    " json_extract(params_json, '$.monitorIntervalNs') FROM runs WHERE run_id=" +
                        f),
              0);
    sqlite3_close(db);
    spec.attributes = {{"ns3::LinkSampler::Interval", "100us"}};
    const RunOutcome asked = ScenarioRunner(spec, "test").Run("fair");
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    const std::string a = std::to_string(asked.runIds.at(0));
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM link_samples WHERE run_id=" + a), 0);
    EXPECT_EQ(
        Count(db,
              "SELECT json_extract(params_json, '$.sample_interval_ns') FROM runs WHERE run_id=" +
                  a),
        100000);
    sqlite3_close(db);
}

} // namespace

TEST_F(ScenarioRunnerTest, RunsSideBySideWriteWhatRunsOneAfterTheOtherWrite)
{
    ScenarioSpec spec = TwoJobsOneSpine(1000000, MicroSeconds(80), 3);
    const std::vector<std::string> policies{"crux", "harmonics", "cassini"};
    std::vector<RunOutcome> outcomes[2];
    std::string files[2];
    for (uint32_t parallel : {1U, 3U})
    {
        const int k = parallel == 1 ? 0 : 1;
        files[k] = (m_dir / ("parallel-" + std::to_string(parallel) + ".db")).string();
        spec.output.db = files[k];
        ScenarioRunner runner(spec, "test");
        runner.SetParallelRuns(parallel);
        std::ostringstream table;
        outcomes[k] = runner.Compare(policies, table);
    }
    // fair, isolated (two runs per job), then the policies in their order.
    ASSERT_EQ(outcomes[0].size(), 5u);
    ASSERT_EQ(outcomes[1].size(), outcomes[0].size());
    for (std::size_t i = 0; i < outcomes[0].size(); ++i)
    {
        const RunOutcome& a = outcomes[0][i];
        const RunOutcome& b = outcomes[1][i];
        EXPECT_EQ(a.scheduler, b.scheduler);
        EXPECT_EQ(a.runIds, b.runIds) << a.scheduler;
        EXPECT_EQ(a.decisions, b.decisions) << a.scheduler;
        ASSERT_EQ(a.jobs.size(), b.jobs.size()) << a.scheduler;
        for (std::size_t j = 0; j < a.jobs.size(); ++j)
        {
            EXPECT_TRUE(b.jobs[j].done) << a.scheduler;
            EXPECT_EQ(a.jobs[j].iterationTimes, b.jobs[j].iterationTimes) << a.scheduler;
            EXPECT_EQ(a.jobs[j].trainingTime, b.jobs[j].trainingTime) << a.scheduler;
            EXPECT_EQ(a.jobs[j].meanCommunication, b.jobs[j].meanCommunication) << a.scheduler;
            EXPECT_EQ(a.jobs[j].gpuUtilization, b.jobs[j].gpuUtilization) << a.scheduler;
        }
    }
    EXPECT_EQ(outcomes[1][1].runIds, (std::vector<int64_t>{2, 3, 4, 5}));
    const auto serial = Contents(files[0]);
    const auto parallel = Contents(files[1]);
    ASSERT_EQ(serial.at("runs").size(), 8u);
    EXPECT_GT(serial.at("iterations").size(), 0u);
    for (const auto& [table, rows] : serial)
    {
        ASSERT_EQ(parallel.count(table), 1u) << table;
        EXPECT_EQ(parallel.at(table), rows) << table;
    }
    // Each run was made by a process of its own.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(files[1].c_str(), &db), SQLITE_OK);
    EXPECT_EQ(Count(db, "SELECT COUNT(DISTINCT pid) FROM runs"), 5);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM runs WHERE pid = " + std::to_string(getpid())), 0);
    sqlite3_close(db);
}

TEST_F(ScenarioRunnerTest, ComparisonsTogetherWriteWhatTheyWriteOneAfterTheOther)
{
    // Two scenarios into one database: one after the other, each on its own;
    // their simulations in one pool of three processes; and together with one
    // process (one after the other, each table as its comparison ends).
    ScenarioSpec a = TwoJobsOneSpine(1000000, MicroSeconds(80), 3);
    a.name = "first";
    ScenarioSpec b = TwoJobsOneSpine(600000, MicroSeconds(50), 2);
    b.name = "second";
    const std::vector<std::string> policies{"crux", "harmonics"};
    std::vector<std::vector<RunOutcome>> outcomes[3];
    std::string files[3];
    std::string printed;
    for (int k : {0, 1, 2})
    {
        files[k] = (m_dir / ("together-" + std::to_string(k) + ".db")).string();
        a.output.db = files[k];
        b.output.db = files[k];
        ScenarioRunner first(a, "test");
        ScenarioRunner second(b, "test");
        std::ostringstream table;
        if (k == 0)
        {
            outcomes[k].push_back(first.Compare(policies, table));
            outcomes[k].push_back(second.Compare(policies, table));
        }
        else
        {
            outcomes[k] = ScenarioRunner::CompareTogether({{&first, policies}, {&second, policies}},
                                                          k == 1 ? 3 : 1,
                                                          table);
        }
        if (k == 1)
        {
            printed = table.str();
        }
        else if (k == 2)
        {
            // One process: each table under its name as its comparison ends.
            const std::string one = table.str();
            const std::size_t second = one.find("--- second\n");
            ASSERT_NE(second, std::string::npos) << one;
            EXPECT_EQ(one.find("--- first\n"), 0u) << one;
            EXPECT_NE(one.rfind("running crux ...", second), std::string::npos) << one;
            EXPECT_NE(one.find("running crux ...", second), std::string::npos) << one;
        }
    }
    for (int k : {1, 2})
    {
        ASSERT_EQ(outcomes[k].size(), 2u);
    }
    for (std::size_t c = 0; c < 2; ++c)
    {
        // fair, isolated (two runs per job), crux, harmonics.
        ASSERT_EQ(outcomes[0][c].size(), 4u);
        for (std::size_t i = 0; i < 4 * 2; ++i)
        {
            const int k = i < 4 ? 1 : 2;
            ASSERT_EQ(outcomes[k][c].size(), 4u);
            const RunOutcome& x = outcomes[0][c][i % 4];
            const RunOutcome& y = outcomes[k][c][i % 4];
            EXPECT_EQ(x.scheduler, y.scheduler);
            EXPECT_EQ(x.runIds, y.runIds) << x.scheduler;
            ASSERT_EQ(x.jobs.size(), y.jobs.size()) << x.scheduler;
            for (std::size_t j = 0; j < x.jobs.size(); ++j)
            {
                EXPECT_TRUE(y.jobs[j].done) << x.scheduler;
                EXPECT_EQ(x.jobs[j].iterationTimes, y.jobs[j].iterationTimes) << x.scheduler;
            }
        }
    }
    // The second scenario's runs follow the first's seven.
    EXPECT_EQ(outcomes[1][1][0].runIds, (std::vector<int64_t>{8}));
    const auto serial = Contents(files[0]);
    ASSERT_EQ(serial.at("runs").size(), 14u);
    for (int k : {1, 2})
    {
        const auto together = Contents(files[k]);
        for (const auto& [table, rows] : serial)
        {
            ASSERT_EQ(together.count(table), 1u) << table;
            EXPECT_EQ(together.at(table), rows) << table;
        }
    }
    // Each table under its scenario's name, in order, once all have run.
    const std::size_t first = printed.find("--- first\n");
    const std::size_t second = printed.find("--- second\n");
    ASSERT_NE(first, std::string::npos) << printed;
    ASSERT_NE(second, std::string::npos) << printed;
    EXPECT_LT(first, second);
    EXPECT_EQ(printed.find("running", first), std::string::npos) << printed;
    EXPECT_NE(printed.find("running second crux ..."), std::string::npos) << printed;
}

TEST_F(ScenarioRunnerTest, AFailedComparisonTogetherFailsAndLeavesNoRunRunning)
{
    ScenarioSpec a = TwoJobsOneSpine(1000000, MicroSeconds(80), 3);
    a.name = "first";
    a.output.db = (m_dir / "together-failed.db").string();
    // Cut short by the stop time: every run of the second scenario is incomplete.
    ScenarioSpec b = a;
    b.name = "second";
    b.stopTimeNs = 100000;
    ScenarioRunner first(a, "test");
    ScenarioRunner second(b, "test");
    std::ostringstream table;
    EXPECT_THROW(
        ScenarioRunner::CompareTogether({{&first, {"crux"}}, {&second, {"crux"}}}, 2, table),
        IncompleteRunError);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(a.output.db.c_str(), &db), SQLITE_OK);
    // Reserved in order: the first scenario's six (isolated: two per job),
    // the second's six. The first's ran to their end; the second's fair run
    // failed on the stop time (so may its isolated runs, started beside it);
    // none started later ran.
    auto count = [db](const std::string& where) {
        return Count(db, "SELECT COUNT(*) FROM runs WHERE " + where);
    };
    EXPECT_EQ(count("1"), 12);
    EXPECT_EQ(count("example = 'first' AND status = 'complete'"), 6);
    EXPECT_EQ(count("example = 'second' AND status = 'failed'"), 6);
    EXPECT_GE(count("example = 'second' AND error LIKE '%stop time%'"), 1);
    EXPECT_EQ(count("example = 'second' AND error NOT LIKE '%stop time%'"),
              count("error = 'did not run to its end: the comparison stopped when second fair did "
                    "not complete'"));
    sqlite3_close(db);
}

TEST_F(ScenarioRunnerTest, AFailedRunSideBySideFailsTheComparisonAndLeavesNoRunRunning)
{
    // Cut short by the stop time: every run is incomplete.
    ScenarioSpec spec = TwoJobsOneSpine(1000000, MicroSeconds(80), 3);
    spec.stopTimeNs = 100000;
    spec.output.db = (m_dir / "failed.db").string();
    ScenarioRunner runner(spec, "test");
    runner.SetParallelRuns(2);
    std::ostringstream table;
    EXPECT_THROW(runner.Compare({"crux", "harmonics"}, table), IncompleteRunError);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    // fair, four isolated (two jobs, each alone under ECMP and on its best
    // routes), crux, harmonics: reserved in order; the two first ones (fair
    // and the first isolated) ran and failed, the rest never ran.
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM runs"), 7);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM runs WHERE status != 'failed'"), 0);
    EXPECT_EQ(
        Count(db,
              "SELECT COUNT(*) FROM runs WHERE error LIKE 'did not run to its end: the comparison "
              "stopped when fair did not complete'"),
        5);
    EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM runs WHERE error LIKE '%stop time%'"), 2);
    sqlite3_close(db);
}
