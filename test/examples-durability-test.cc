/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What a results database keeps when an example's process is killed,
 * stopped by a signal (also with a comparison's runs side by side), or
 * fails at its last write: each test runs the real
 * multi-tenant-fat-tree example as a child process and reads its file back.
 */
#include "examples-test-util.h"

#include "ns3/results-database.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace ns3
{
namespace test
{
namespace
{

class ExamplesDurabilityTest : public ExamplesTest
{
  protected:
    /// Start \p program with \p args in the test's directory, output to files; \return its pid.
    pid_t Spawn(const std::string& program, const std::vector<std::string>& args)
    {
        const std::string binary = kBinaryDir + "/" + program;
        std::vector<std::string> argv = {binary};
        argv.insert(argv.end(), args.begin(), args.end());
        const pid_t pid = fork();
        if (pid == 0)
        {
            if (chdir(m_dir.c_str()) != 0)
            {
                _exit(127);
            }
            const int out = open("child.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
            const int err = open("child.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(out, 1);
            dup2(err, 2);
            std::vector<char*> raw;
            for (std::string& a : argv)
            {
                raw.push_back(a.data());
            }
            raw.push_back(nullptr);
            execv(binary.c_str(), raw.data());
            _exit(127);
        }
        return pid;
    }

    /**
     * Wait until \p sql on the child's database gives at least \p atLeast,
     * while the child runs. \return the value seen; -1 if the child ended
     * first (then \p status holds its wait status) or nothing came in two
     * minutes (a limit against hangs only).
     */
    int64_t WaitForRows(pid_t pid,
                        const fs::path& db,
                        const std::string& sql,
                        int64_t atLeast,
                        int& status)
    {
        const auto limit = std::chrono::steady_clock::now() + std::chrono::minutes(2);
        while (std::chrono::steady_clock::now() < limit)
        {
            if (waitpid(pid, &status, WNOHANG) == pid)
            {
                return -1;
            }
            try
            {
                if (fs::exists(db))
                {
                    const int64_t n = QueryInt(db, sql);
                    if (n >= atLeast)
                    {
                        return n;
                    }
                }
            }
            catch (const std::exception&)
            {
                // The file may not have its tables yet.
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return -1;
    }

    /// A run that lasts until it is stopped: many iterations of small jobs.
    std::vector<std::string> LongRun(const fs::path& db) const
    {
        return {"--db=" + db.string(), "--scale=0.001", "--iterations=1000000", "--seed=3"};
    }

    std::string ChildError() const
    {
        return ReadText(m_dir / "child.err");
    }
};

TEST_F(ExamplesDurabilityTest, KilledRunKeepsTheRowsWrittenSoFarAndIsNotComplete)
{
    const fs::path db = Path("killed.db");
    const pid_t pid = Spawn("multi-tenant-fat-tree", LongRun(db));
    ASSERT_GT(pid, 0);
    int status = 0;
    const int64_t seen = WaitForRows(pid, db, "SELECT count(*) FROM iterations", 3, status);
    ASSERT_GE(seen, 3) << "the run ended or wrote no iterations: " << ChildError();
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    const std::string run = "(SELECT max(run_id) FROM runs)";
    EXPECT_EQ(*Query(db, "SELECT status FROM runs WHERE run_id = " + run)[0][0], "running");
    EXPECT_EQ(QueryInt(db, "SELECT pid FROM runs WHERE run_id = " + run), pid);
    // Nothing committed was lost, and what is there is whole: both jobs'
    // rows, iterations of started jobs, and flows that completed.
    EXPECT_GE(QueryInt(db, "SELECT count(*) FROM iterations"), seen);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM jobs WHERE run_id = " + run), 2);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM jobs WHERE end_ns IS NOT NULL"), 0);
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM flows"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM flows WHERE end_ns IS NULL OR ack_ns IS NULL"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    EXPECT_EQ(*Query(db, "PRAGMA integrity_check")[0][0], "ok");
}

TEST_F(ExamplesDurabilityTest, SigtermWritesWhatTheRunHasAndMarksItInterrupted)
{
    const fs::path db = Path("terminated.db");
    const pid_t pid = Spawn("multi-tenant-fat-tree", LongRun(db));
    ASSERT_GT(pid, 0);
    int status = 0;
    const int64_t seen = WaitForRows(pid, db, "SELECT count(*) FROM iterations", 3, status);
    ASSERT_GE(seen, 3) << "the run ended or wrote no iterations: " << ChildError();
    ASSERT_EQ(kill(pid, SIGTERM), 0);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping";
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << ChildError();
    EXPECT_NE(ChildError().find("interrupted by SIGTERM"), std::string::npos) << ChildError();

    const std::string run = "(SELECT max(run_id) FROM runs)";
    EXPECT_EQ(*Query(db, "SELECT status FROM runs WHERE run_id = " + run)[0][0], "interrupted");
    EXPECT_EQ(*Query(db, "SELECT error FROM runs WHERE run_id = " + run)[0][0],
              "interrupted by SIGTERM");
    // The rows of the end of a run, up to the stop: links, the scheduler's
    // summary, every iteration and the flows that had completed.
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM links WHERE run_id = " + run), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM scheduler_runs WHERE run_id = " + run), 1);
    EXPECT_GE(QueryInt(db, "SELECT count(*) FROM iterations"), seen);
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM flows"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM jobs WHERE end_ns IS NOT NULL"), 0);
}

TEST_F(ExamplesDurabilityTest, SigtermWhileTheFabricIsBuiltStopsTheBuildAndMarksTheRun)
{
    // A k=64 fat-tree (65,536 hosts) takes about 100 s of CPU to build here,
    // nearly all of it its routes; its run is in the database from before
    // the build starts.
    const fs::path db = Path("building.db");
    const pid_t pid = Spawn("multi-tenant-fat-tree",
                            {"--db=" + db.string(), "--k=64", "--scale=0.001", "--iterations=1"});
    ASSERT_GT(pid, 0);
    int status = 0;
    ASSERT_EQ(WaitForRows(pid, db, "SELECT count(*) FROM runs WHERE status = 'running'", 1, status),
              1)
        << "the run was not recorded before its build: " << ChildError();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(kill(pid, SIGTERM), 0);
    struct rusage usage;
    ASSERT_EQ(wait4(pid, &status, 0, &usage), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping";
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << ChildError();
    EXPECT_NE(ChildError().find("interrupted by SIGTERM"), std::string::npos) << ChildError();
    EXPECT_EQ(*Query(db, "SELECT status FROM runs")[0][0], "interrupted");
    EXPECT_EQ(*Query(db, "SELECT error FROM runs")[0][0], "interrupted by SIGTERM");
    // Stopped inside the build, not after it: nothing of a built fabric
    // (its host count, links, jobs) is recorded, and the process used a
    // small part of the build's CPU time.
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM runs WHERE params_json LIKE '%\"hosts\"%'"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM links"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM jobs"), 0);
    EXPECT_LT(usage.ru_utime.tv_sec, 30) << "the build ran on after the signal";
}

TEST_F(ExamplesDurabilityTest, SigtermStopsAComparisonsRunsSideBySideAndLeavesNoneRunning)
{
    // fair and isolated start side by side, crux waits for a free slot.
    const fs::path db = Path("compare.db");
    std::vector<std::string> args = LongRun(db);
    args.push_back("--compare=crux");
    args.push_back("--parallel=2");
    const pid_t pid = Spawn("multi-tenant-fat-tree", args);
    ASSERT_GT(pid, 0);
    int status = 0;
    const int64_t seen = WaitForRows(pid, db, "SELECT count(*) FROM iterations", 6, status);
    ASSERT_GE(seen, 6) << "the runs ended or wrote no iterations: " << ChildError();
    ASSERT_EQ(kill(pid, SIGTERM), 0);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping";
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << ChildError();

    // Reserved in order: fair, isolated's four (its two jobs alone under
    // ECMP, then on their best routes), crux. The two running (fair,
    // isolated's first job under ECMP) are interrupted with their rows; the
    // others never ran and say so.
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM runs"), 6);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM runs WHERE status = 'running'"), 0);
    EXPECT_EQ(*Query(db, "SELECT status FROM runs WHERE run_id = 1")[0][0], "interrupted");
    EXPECT_EQ(*Query(db, "SELECT status FROM runs WHERE run_id = 2")[0][0], "interrupted");
    EXPECT_EQ(*Query(db, "SELECT scheduler FROM runs WHERE run_id = 6")[0][0], "crux");
    for (const char* run : {"3", "4", "5", "6"})
    {
        EXPECT_EQ(*Query(db, std::string("SELECT status FROM runs WHERE run_id = ") + run)[0][0],
                  "failed");
        EXPECT_EQ(*Query(db, std::string("SELECT error FROM runs WHERE run_id = ") + run)[0][0],
                  "did not run to its end: the comparison was stopped by SIGTERM");
    }
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM links WHERE run_id = 1"), 0);
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM links WHERE run_id = 2"), 0);
    EXPECT_EQ(*Query(db, "PRAGMA integrity_check")[0][0], "ok");
}

TEST_F(ExamplesDurabilityTest, RunWhoseLastWriteFailsIsFailedNotComplete)
{
    const fs::path db = Path("failing.db");
    {
        // The file as any run leaves it, and its last write made to fail as a full disk would.
        Ptr<ResultsDatabase> results = CreateObject<ResultsDatabase>();
        results->Open(db.string());
        results->Exec("CREATE TRIGGER full_disk BEFORE INSERT ON links"
                      " BEGIN SELECT RAISE(ABORT, 'disk full'); END");
        results->Dispose();
    }
    const Outcome o = Example("multi-tenant-fat-tree",
                              {"--db=" + db.string(), "--scale=0.001", "--iterations=3"});
    EXPECT_EQ(o.exitCode, 2) << o.Describe();
    EXPECT_NE(o.err.find("disk full"), std::string::npos) << o.Describe();
    ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(*Query(db, "SELECT status FROM runs")[0][0], "failed");
    EXPECT_NE(Query(db, "SELECT error FROM runs")[0][0]->find("disk full"), std::string::npos);
    // Nothing of the failed last transaction, everything written before it.
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM links"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM scheduler_runs"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM jobs"), 2);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM iterations"), 6);
}

/// The scheduler's rows at each network level: they are streamed the same at both.
class SchedulerRowsDurabilityTest : public ExamplesDurabilityTest,
                                    public ::testing::WithParamInterface<std::string>
{
  protected:
    /// A gating scheduler (its decisions, gates and collectives) at the level under test.
    std::vector<std::string> SchedulerArgs(const fs::path& db, const std::string& iterations)
    {
        return {"--db=" + db.string(),
                "--scale=0.001",
                "--iterations=" + iterations,
                "--seed=3",
                "--scheduler=cassini",
                "--backend=" + GetParam()};
    }

    /// Rows of \p sql as text, one line per row.
    std::vector<std::string> Lines(const fs::path& db, const std::string& sql)
    {
        std::vector<std::string> lines;
        for (const Row& row : Query(db, sql))
        {
            std::string line;
            for (const auto& v : row)
            {
                line += (v ? *v : "NULL") + ",";
            }
            lines.push_back(line);
        }
        return lines;
    }
};

// A run killed with SIGKILL after its scheduler has acted keeps the
// decisions, gate changes and finished collectives committed so far: every
// one names a job of the run, a kept iteration's collective is kept with it,
// and what is kept is the beginning of what the same run writes when it
// completes.
TEST_P(SchedulerRowsDurabilityTest, KilledRunKeepsTheSchedulerRowsSoFar)
{
    const fs::path db = Path("killed-scheduler.db");
    const pid_t pid = Spawn("multi-tenant-fat-tree", SchedulerArgs(db, "1000000"));
    ASSERT_GT(pid, 0);
    int status = 0;
    const int64_t seen = WaitForRows(pid,
                                     db,
                                     "SELECT min((SELECT count(*) FROM scheduler_decisions),"
                                     " (SELECT count(*) FROM gates),"
                                     " (SELECT count(*) FROM collectives))",
                                     3,
                                     status);
    if (seen < 3 && waitpid(pid, &status, WNOHANG) == 0)
    {
        kill(pid, SIGKILL); // it ran two minutes without its rows: leave nothing running
        waitpid(pid, &status, 0);
    }
    ASSERT_GE(seen, 3) << "the run ended or its scheduler wrote nothing: " << ChildError();
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    EXPECT_EQ(*Query(db, "SELECT status FROM runs")[0][0], "running");
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM scheduler_runs"), 0); // an end-of-run row
    for (const char* table : {"scheduler_decisions", "gates", "collectives"})
    {
        EXPECT_GE(QueryInt(db, std::string("SELECT count(*) FROM ") + table), seen) << table;
        // Each names a job of the run.
        EXPECT_EQ(QueryInt(db,
                           std::string("SELECT count(*) FROM ") + table +
                               " t WHERE t.job_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM jobs j"
                               " WHERE j.run_id = t.run_id AND j.job_id = t.job_id)"),
                  0)
            << table;
    }
    // Flows are kept as they complete at either level.
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM flows"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM flows WHERE end_ns IS NULL OR ack_ns IS NULL"), 0);
    // Collectives are kept as they finish, whole.
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM collectives WHERE start_ns IS NULL OR finish_ns IS "
                       "NULL OR NOT (ready_ns <= start_ns AND start_ns <= finish_ns)"),
              0);
    // Rows are committed in the order they happen: an iteration ends after
    // its collective, so a kept iteration has its collective kept.
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM iterations"), 0);
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM iterations i WHERE NOT EXISTS (SELECT 1 FROM "
                       "collectives c WHERE c.run_id = i.run_id AND c.job_id = i.job_id AND "
                       "c.iteration = i.iter AND c.ready_ns = i.comm_ready_ns AND c.finish_ns <= "
                       "i.comm_end_ns)"),
              0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    EXPECT_EQ(*Query(db, "PRAGMA integrity_check")[0][0], "ok");

    // The same run, as long as the killed one got, to its end: what the
    // killed run kept is the beginning of its rows, and its own rows are
    // whole (each collective once, as many decisions as the summary counts).
    const int64_t iterations = QueryInt(db, "SELECT max(iteration) + 2 FROM collectives");
    const fs::path full = Path("complete-scheduler.db");
    const Outcome o =
        Example("multi-tenant-fat-tree", SchedulerArgs(full, std::to_string(iterations)));
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    EXPECT_EQ(*Query(full, "SELECT status FROM runs")[0][0], "complete");
    EXPECT_EQ(QueryInt(full, "SELECT count(*) FROM collectives WHERE finish_ns IS NOT NULL"),
              2 * iterations);
    EXPECT_EQ(QueryInt(full, "SELECT count(*) FROM scheduler_decisions"),
              QueryInt(full, "SELECT decisions FROM scheduler_runs"));
    for (const auto& [table, columns] : std::vector<std::pair<std::string, std::string>>{
             {"scheduler_decisions", "t_ns, kind, job_id"},
             {"gates", "t_ns, job_id, open"}})
    {
        const std::string sql = "SELECT " + columns + " FROM " + table + " ORDER BY rowid";
        const std::vector<std::string> kept = Lines(db, sql);
        const std::vector<std::string> all = Lines(full, sql);
        ASSERT_LE(kept.size(), all.size()) << table;
        EXPECT_TRUE(std::equal(kept.begin(), kept.end(), all.begin()))
            << table << ": the killed run's rows are not the beginning of the complete run's";
    }
    const std::string collectives = "SELECT job_id, iteration, ready_ns, start_ns, finish_ns,"
                                    " route FROM collectives";
    const std::vector<std::string> all = Lines(full, collectives);
    for (const std::string& c : Lines(db, collectives))
    {
        EXPECT_NE(std::find(all.begin(), all.end(), c), all.end())
            << c << ": a kept collective the complete run does not have";
    }
}

INSTANTIATE_TEST_SUITE_P(Levels,
                         SchedulerRowsDurabilityTest,
                         ::testing::Values("packet", "flow"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return info.param;
                         });

} // namespace
} // namespace test
} // namespace ns3
