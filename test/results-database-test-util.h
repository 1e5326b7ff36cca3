/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RESULTS_DATABASE_TEST_UTIL_H
#define RESULTS_DATABASE_TEST_UTIL_H

// The fixture and readers shared by the results database's tests: every
// check reads the file back through a separate SQLite connection, so it sees
// only what was committed to disk.

#include "ns3/nstime.h"
#include "ns3/results-database.h"
#include "ns3/uinteger.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <optional>
#include <set>
#include <sqlite3.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace results_test
{

/// Buffer the jobs row that flows and iterations of job \p job refer to.
inline void
AddJob(ResultsDatabase& db, int64_t runId, int64_t job)
{
    db.AddRow(runId, "INSERT INTO jobs (run_id, job_id) VALUES (?1, ?2)", {runId, job});
}

/// An independent read-only connection to the file under test.
class Reader
{
  public:
    explicit Reader(const std::string& path)
    {
        if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        {
            throw std::runtime_error("cannot open " + path);
        }
    }

    ~Reader()
    {
        sqlite3_close(m_db);
    }

    /// \return the first column of the first row (nullopt if NULL or no row)
    std::optional<int64_t> Int(const std::string& sql)
    {
        return Query<int64_t>(sql, [](sqlite3_stmt* s) { return sqlite3_column_int64(s, 0); });
    }

    std::optional<double> Real(const std::string& sql)
    {
        return Query<double>(sql, [](sqlite3_stmt* s) { return sqlite3_column_double(s, 0); });
    }

    std::optional<std::string> Text(const std::string& sql)
    {
        return Query<std::string>(sql, [](sqlite3_stmt* s) {
            return std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
        });
    }

    /// \return the first column of every row, as text
    std::vector<std::string> Column(const std::string& sql)
    {
        sqlite3_stmt* s = Prepare(sql);
        std::vector<std::string> values;
        while (sqlite3_step(s) == SQLITE_ROW)
        {
            values.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
        }
        sqlite3_finalize(s);
        return values;
    }

  private:
    sqlite3_stmt* Prepare(const std::string& sql)
    {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
        {
            throw std::runtime_error(sql + ": " + sqlite3_errmsg(m_db));
        }
        return s;
    }

    template <typename T, typename F>
    std::optional<T> Query(const std::string& sql, F get)
    {
        sqlite3_stmt* s = Prepare(sql);
        std::optional<T> value;
        if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
        {
            value = get(s);
        }
        sqlite3_finalize(s);
        return value;
    }

    sqlite3* m_db{nullptr};
};

inline FlowRecord
MakeFlow(int64_t runId, uint64_t flowId, uint64_t bytes)
{
    FlowRecord f;
    f.runId = runId;
    f.flowId = flowId;
    f.jobId = -1; // flows.job_id references jobs: a job's flows need its row
    f.srcNode = 2;
    f.dstNode = 3;
    f.bytes = bytes;
    f.startNs = 1000;
    f.endNs = 2000;
    f.ackNs = 3000;
    return f;
}

class ResultsDatabaseTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "results-database-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        m_dir = pattern;
        m_path = m_dir + "/results.db";
    }

    void TearDown() override
    {
        std::filesystem::remove_all(m_dir);
    }

    Ptr<ResultsDatabase> OpenDb(uint32_t flushThreshold = 10000)
    {
        auto db = CreateObject<ResultsDatabase>();
        db->SetAttribute("FlushThreshold", UintegerValue(flushThreshold));
        db->Open(m_path);
        return db;
    }

    std::string RunSql(int64_t runId, const std::string& column)
    {
        return "SELECT " + column + " FROM runs WHERE run_id = " + std::to_string(runId);
    }

    /**
     * Run \p body(p) in \p processes forked children, p = 0, 1, ...; each
     * exits non-zero if its body throws. Expects every child to succeed.
     */
    void InProcesses(int processes, const std::function<void(int)>& body)
    {
        std::vector<pid_t> children;
        for (int p = 0; p < processes; ++p)
        {
            const pid_t pid = fork();
            ASSERT_GE(pid, 0);
            if (pid == 0)
            {
                int status = 0;
                try
                {
                    body(p);
                }
                catch (const std::exception& e)
                {
                    fprintf(stderr, "child %d: %s\n", p, e.what());
                    status = 1;
                }
                _exit(status);
            }
            children.push_back(pid);
        }
        for (pid_t pid : children)
        {
            int status = 0;
            ASSERT_EQ(waitpid(pid, &status, 0), pid);
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
    }

    std::string m_dir;
    std::string m_path;
};

} // namespace results_test
} // namespace ns3

#endif /* RESULTS_DATABASE_TEST_UTIL_H */
