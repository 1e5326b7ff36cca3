/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of ResultsDatabase: runs, rows, batching, durability and errors.
 */

#include "results-database-test-util.h"

#include "ns3/collective-scheduler.h"
#include "ns3/scheduler-results.h"
#include "ns3/simulator.h"

#include <algorithm>

using namespace ns3;
using namespace ns3::results_test;

namespace
{

TEST_F(ResultsDatabaseTest, CreatesSchemaWithRunIdIndexes)
{
    OpenDb();
    Reader r(m_path);
    const std::vector<std::pair<std::string, std::set<std::string>>> expected = {
        {"runs",
         {"run_id",
          "example",
          "scheduler",
          "seed",
          "params_json",
          "status",
          "started_at",
          "sim_end_ns",
          "wall_s",
          "events",
          "packet_hops",
          "error"}},
        {"flows",
         {"run_id",
          "flow_id",
          "job_id",
          "src_node",
          "dst_node",
          "bytes",
          "start_ns",
          "end_ns",
          "ack_ns",
          "retransmitted_bytes",
          "priority",
          "src_port"}},
        {"links",
         {"run_id",
          "link_id",
          "node_a",
          "node_b",
          "rate_bps",
          "delay_ns",
          "tx_bytes_ab",
          "tx_bytes_ba",
          "drops",
          "pfc_pauses_sent",
          "ecn_marked",
          "max_queue_bytes"}},
    };
    for (const auto& [table, columns] : expected)
    {
        const auto actual = r.Column("SELECT name FROM pragma_table_info('" + table + "')");
        const std::set<std::string> present(actual.begin(), actual.end());
        for (const auto& column : columns)
        {
            EXPECT_EQ(present.count(column), 1U) << table << "." << column;
        }
    }
    for (const std::string table : {"flows", "links"})
    {
        // An index whose leading column is run_id serves "WHERE run_id = ?".
        EXPECT_EQ(r.Int("SELECT count(*) FROM sqlite_master m, pragma_index_info(m.name) i"
                        " WHERE m.type = 'index' AND m.tbl_name = '" +
                        table + "' AND i.seqno = 0 AND i.name = 'run_id'"),
                  1)
            << table;
    }
    EXPECT_EQ(r.Text("PRAGMA journal_mode"), "wal");
}

TEST_F(ResultsDatabaseTest, ReopeningKeepsExistingRuns)
{
    int64_t first = 0;
    {
        auto db = OpenDb();
        first = db->BeginRun("a", "fair", 1, "{}");
        db->FinishRun(first, 10, 0.5, 1, 1);
        db->Dispose();
    }
    auto db = OpenDb();
    const int64_t second = db->BeginRun("b", "fair", 2, "{}");
    EXPECT_NE(first, second);
    Reader r(m_path);
    EXPECT_EQ(r.Int("SELECT count(*) FROM runs"), 2);
    EXPECT_EQ(r.Text(RunSql(first, "status")), "complete");
}

TEST_F(ResultsDatabaseTest, BeginRunInsertsRunningRow)
{
    auto db = OpenDb();
    const int64_t id = db->BeginRun("ring-all-reduce", "cassini", 42, R"({"k":4})");
    EXPECT_GT(id, 0);
    Reader r(m_path);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "running");
    EXPECT_EQ(r.Text(RunSql(id, "example")), "ring-all-reduce");
    EXPECT_EQ(r.Text(RunSql(id, "scheduler")), "cassini");
    EXPECT_EQ(r.Int(RunSql(id, "seed")), 42);
    EXPECT_EQ(r.Text(RunSql(id, "params_json")), R"({"k":4})");
    EXPECT_TRUE(r.Text(RunSql(id, "started_at")).has_value());
    EXPECT_FALSE(r.Int(RunSql(id, "sim_end_ns")).has_value());
    EXPECT_FALSE(r.Text(RunSql(id, "error")).has_value());
}

TEST_F(ResultsDatabaseTest, ReservedRunsKeepTheirOrderWhoeverBeginsThem)
{
    auto parent = OpenDb();
    const std::vector<int64_t> ids = parent->ReserveRuns("figure", "fair", 3, 3);
    ASSERT_EQ(ids.size(), 3u);
    EXPECT_EQ(ids[1], ids[0] + 1);
    EXPECT_EQ(ids[2], ids[0] + 2);
    // Reserved, a run is 'running' and no connection may write to it until begun.
    EXPECT_THROW(parent->FinishRun(ids[0], 1, 0.1, 1, 1), std::runtime_error);
    {
        // Another process's connection begins and finishes the last one first.
        auto child = CreateObject<ResultsDatabase>();
        child->Open(m_path);
        child->BeginReservedRun(ids[2], "figure", "crux", 3, R"({"k":4})");
        child->FinishRun(ids[2], 10, 0.5, 1, 1);
        // A finished run, or one that was never reserved, cannot be begun again.
        EXPECT_THROW(child->BeginReservedRun(ids[2], "figure", "crux", 3, "{}"),
                     std::runtime_error);
        EXPECT_THROW(child->BeginReservedRun(ids[2] + 1, "figure", "crux", 3, "{}"),
                     std::runtime_error);
        child->Dispose();
    }
    Reader r(m_path);
    EXPECT_EQ(r.Text(RunSql(ids[2], "status")), "complete");
    EXPECT_EQ(r.Text(RunSql(ids[2], "scheduler")), "crux");
    EXPECT_EQ(r.Text(RunSql(ids[2], "params_json")), R"({"k":4})");
    EXPECT_EQ(r.Text(RunSql(ids[0], "status")), "running");
    // The runs never made are failed, the finished one is left as it is.
    EXPECT_EQ(parent->FailRunsStillRunning(ids, "not run"), 2u);
    EXPECT_EQ(r.Text(RunSql(ids[0], "status")), "failed");
    EXPECT_EQ(r.Text(RunSql(ids[1], "error")), "not run");
    EXPECT_EQ(r.Text(RunSql(ids[2], "status")), "complete");
    EXPECT_EQ(r.Int("SELECT count(*) FROM runs"), 3);
}

TEST_F(ResultsDatabaseTest, FinishRunRecordsCompletionAndNumbers)
{
    auto db = OpenDb();
    const int64_t id = db->BeginRun("x", "fair", 7, "{}");
    db->FinishRun(id, 123456789012LL, 2.5, 1000000, 2000000);
    Reader r(m_path);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "complete");
    EXPECT_EQ(r.Int(RunSql(id, "sim_end_ns")), 123456789012LL);
    EXPECT_DOUBLE_EQ(r.Real(RunSql(id, "wall_s")).value(), 2.5);
    EXPECT_EQ(r.Int(RunSql(id, "events")), 1000000);
    EXPECT_EQ(r.Int(RunSql(id, "packet_hops")), 2000000);
    EXPECT_FALSE(r.Text(RunSql(id, "error")).has_value());
}

TEST_F(ResultsDatabaseTest, TwoRunsGetDistinctIdsAndSeparateRows)
{
    auto db = OpenDb();
    const int64_t a = db->BeginRun("x", "fair", 1, "{}");
    const int64_t b = db->BeginRun("x", "isolated", 1, "{}");
    EXPECT_NE(a, b);
    // Interleaved, as two recorders sharing one database would add them.
    for (uint64_t i = 0; i < 5; ++i)
    {
        db->AddFlow(MakeFlow(a, i, 100));
        if (i < 3)
        {
            db->AddFlow(MakeFlow(b, i, 7));
        }
    }
    LinkRecord link;
    link.runId = b;
    db->AddLink(link);
    db->FinishRun(a, 1, 1.0, 1, 1);
    db->FinishRun(b, 2, 2.0, 2, 2);
    Reader r(m_path);
    const auto where = [](int64_t id) { return " WHERE run_id = " + std::to_string(id); };
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows" + where(a)), 5);
    EXPECT_EQ(r.Int("SELECT sum(bytes) FROM flows" + where(a)), 500);
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows" + where(b)), 3);
    EXPECT_EQ(r.Int("SELECT sum(bytes) FROM flows" + where(b)), 21);
    EXPECT_EQ(r.Int("SELECT count(*) FROM links" + where(a)), 0);
    EXPECT_EQ(r.Int("SELECT count(*) FROM links" + where(b)), 1);
    EXPECT_EQ(r.Int(RunSql(b, "sim_end_ns")), 2);
}

TEST_F(ResultsDatabaseTest, TenThousandFlowsRoundTrip)
{
    const uint64_t n = 10000;
    auto db = OpenDb(1000);
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    for (uint64_t i = 0; i < n; ++i)
    {
        db->AddFlow(MakeFlow(id, i, 1000 + i));
    }
    db->FinishRun(id, 1, 1.0, 1, 1);
    EXPECT_EQ(db->GetPendingRows(), 0U);
    Reader r(m_path);
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows WHERE run_id = " + std::to_string(id)),
              static_cast<int64_t>(n));
    // sum of (1000 + i) for i < n, and of i: closed forms
    EXPECT_EQ(r.Int("SELECT sum(bytes) FROM flows"),
              static_cast<int64_t>(1000 * n + n * (n - 1) / 2));
    EXPECT_EQ(r.Int("SELECT sum(flow_id) FROM flows"), static_cast<int64_t>(n * (n - 1) / 2));
    EXPECT_EQ(r.Int("SELECT count(DISTINCT flow_id) FROM flows"), static_cast<int64_t>(n));
}

TEST_F(ResultsDatabaseTest, FlowAndLinkFieldsRoundTrip)
{
    auto db = OpenDb();
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    FlowRecord f;
    AddJob(*db, id, 4);
    f.runId = id;
    f.flowId = 11;
    f.jobId = 4;
    f.srcNode = 12;
    f.dstNode = 13;
    f.bytes = 1ULL << 40;
    f.startNs = 14;
    f.endNs = 15;
    f.ackNs = 16;
    f.retransmittedBytes = 17;
    f.priority = 3;
    f.srcPort = 65535;
    db->AddFlow(f);
    LinkRecord l;
    l.runId = id;
    l.linkId = 21;
    l.nodeA = 22;
    l.nodeB = 23;
    l.rateBps = 400000000000ULL;
    l.delayNs = 1000;
    l.txBytesAb = 24;
    l.txBytesBa = 25;
    l.drops = 26;
    l.pfcPausesSent = 27;
    l.ecnMarked = 28;
    l.maxQueueBytes = 29;
    db->AddLink(l);
    db->FinishRun(id, 1, 1.0, 1, 1);
    Reader r(m_path);
    EXPECT_EQ(r.Text("SELECT group_concat(v, ',') FROM (SELECT flow_id AS v FROM flows UNION ALL "
                     "SELECT job_id FROM flows UNION ALL SELECT src_node FROM flows UNION ALL "
                     "SELECT dst_node FROM flows UNION ALL SELECT bytes FROM flows UNION ALL "
                     "SELECT start_ns FROM flows UNION ALL SELECT end_ns FROM flows UNION ALL "
                     "SELECT ack_ns FROM flows UNION ALL SELECT retransmitted_bytes FROM flows "
                     "UNION ALL SELECT priority FROM flows UNION ALL SELECT src_port FROM flows)"),
              "11,4,12,13,1099511627776,14,15,16,17,3,65535");
    EXPECT_EQ(r.Text("SELECT link_id || ',' || node_a || ',' || node_b || ',' || rate_bps || ',' "
                     "|| delay_ns || ',' || tx_bytes_ab || ',' || tx_bytes_ba || ',' || drops "
                     "|| ',' || pfc_pauses_sent || ',' || ecn_marked || ',' || max_queue_bytes "
                     "FROM links"),
              "21,22,23,400000000000,1000,24,25,26,27,28,29");
}

TEST_F(ResultsDatabaseTest, MinusOneIsStoredAsNull)
{
    auto db = OpenDb();
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    FlowRecord background = MakeFlow(id, 1, 10);
    background.jobId = -1;
    FlowRecord undelivered = MakeFlow(id, 2, 10);
    AddJob(*db, id, 0);
    undelivered.jobId = 0;
    undelivered.endNs = -1;
    undelivered.ackNs = -1;
    db->AddFlow(background);
    db->AddFlow(undelivered);
    db->FinishRun(id, 1, 1.0, 1, 1);
    Reader r(m_path);
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows WHERE job_id IS NULL"), 1);
    EXPECT_EQ(r.Int("SELECT flow_id FROM flows WHERE job_id IS NULL"), 1);
    EXPECT_EQ(r.Int("SELECT job_id FROM flows WHERE flow_id = 2"), 0);
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows WHERE end_ns IS NULL AND ack_ns IS NULL"), 1);
    EXPECT_EQ(r.Int("SELECT flow_id FROM flows WHERE end_ns IS NULL"), 2);
}

TEST_F(ResultsDatabaseTest, UnfinishedRunStaysRunning)
{
    int64_t id = 0;
    {
        auto db = OpenDb();
        id = db->BeginRun("x", "fair", 1, "{}");
        db->AddFlow(MakeFlow(id, 1, 10));
        // Dropped without FinishRun, as when a simulation aborts.
    }
    Reader r(m_path);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "running");
    EXPECT_FALSE(r.Int(RunSql(id, "sim_end_ns")).has_value());
}

TEST_F(ResultsDatabaseTest, DisposeClosesAndKeepsRunRunning)
{
    auto db = OpenDb();
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    db->AddFlow(MakeFlow(id, 1, 10));
    db->Dispose();
    EXPECT_FALSE(db->IsOpen());
    EXPECT_THROW(db->AddFlow(MakeFlow(id, 2, 10)), std::runtime_error);
    Reader r(m_path);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "running");
    // Buffered rows are written on close; the run still says they may be partial.
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 1);
}

TEST_F(ResultsDatabaseTest, FailRunRecordsMessage)
{
    auto db = OpenDb();
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    db->FailRun(id, "MILP solver: infeasible at iteration 3");
    Reader r(m_path);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "failed");
    EXPECT_EQ(r.Text(RunSql(id, "error")), "MILP solver: infeasible at iteration 3");
    // A failed run is closed: no more rows, no completion.
    EXPECT_THROW(db->AddFlow(MakeFlow(id, 1, 10)), std::runtime_error);
    EXPECT_THROW(db->FinishRun(id, 1, 1.0, 1, 1), std::runtime_error);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "failed");
}

TEST_F(ResultsDatabaseTest, OpenInMissingDirectoryThrowsNamingPath)
{
    const std::string path = m_dir + "/no-such-dir/results.db";
    auto db = CreateObject<ResultsDatabase>();
    try
    {
        db->Open(path);
        FAIL() << "Open succeeded";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    EXPECT_FALSE(db->IsOpen());
}

TEST_F(ResultsDatabaseTest, OpenOfNonDatabaseFileThrowsNamingPath)
{
    std::ofstream(m_path) << "this is not an SQLite database, but it is long enough to look like "
                             "a header of one to the library\n";
    auto db = CreateObject<ResultsDatabase>();
    try
    {
        db->Open(m_path);
        FAIL() << "Open succeeded";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find(m_path), std::string::npos) << e.what();
    }
    EXPECT_FALSE(db->IsOpen());
}

TEST_F(ResultsDatabaseTest, RowsAreWrittenWhenThresholdIsReached)
{
    auto db = OpenDb(100);
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    for (uint64_t i = 0; i < 250; ++i)
    {
        db->AddFlow(MakeFlow(id, i, 1));
    }
    Reader r(m_path);
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 200);
    EXPECT_EQ(db->GetPendingRows(), 50U);
    db->Flush();
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 250);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "running");
}

TEST_F(ResultsDatabaseTest, FinishRunCommitsRowsAndStatusTogether)
{
    auto db = OpenDb(0);
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    // Make the last row of the run fail to insert, as a full disk would.
    db->Exec("CREATE TEMP TRIGGER reject BEFORE INSERT ON flows WHEN NEW.flow_id = 999"
             " BEGIN SELECT RAISE(ABORT, 'rejected'); END;");
    for (uint64_t i = 0; i < 5; ++i)
    {
        db->AddFlow(MakeFlow(id, i, 1));
    }
    db->AddFlow(MakeFlow(id, 999, 1));
    EXPECT_THROW(db->FinishRun(id, 1, 1.0, 1, 1), std::runtime_error);
    Reader r(m_path);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "running");
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 0);
    // Nothing was lost: once the cause is gone the same rows go in.
    EXPECT_EQ(db->GetPendingRows(), 6U);
    db->Exec("DROP TRIGGER temp.reject");
    // If the status update fails instead, the rows written before it in the
    // same call are rolled back with it: one transaction, not two.
    db->Exec("CREATE TEMP TRIGGER reject_status BEFORE UPDATE OF status ON runs"
             " BEGIN SELECT RAISE(ABORT, 'rejected'); END;");
    EXPECT_THROW(db->FinishRun(id, 1, 1.0, 1, 1), std::runtime_error);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "running");
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 0);
    EXPECT_EQ(db->GetPendingRows(), 6U);
    db->Exec("DROP TRIGGER temp.reject_status");
    db->FinishRun(id, 1, 1.0, 1, 1);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "complete");
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 6);
}

TEST_F(ResultsDatabaseTest, LaterTablesUsePrepareAndTransaction)
{
    auto db = OpenDb();
    db->Exec("CREATE TABLE IF NOT EXISTS shares (run_id INTEGER NOT NULL, job_id INTEGER NOT NULL,"
             " model TEXT NOT NULL, share REAL)");
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    auto insert =
        db->Prepare("INSERT INTO shares (run_id, job_id, model, share) VALUES (?, ?, ?, ?)");
    for (int64_t job = 0; job < 3; ++job)
    {
        insert.BindInt64(1, id).BindInt64(2, job).BindText(3, "gpt-" + std::to_string(job));
        if (job == 2)
        {
            insert.BindNull(4);
        }
        else
        {
            insert.BindDouble(4, 0.25 * (job + 1));
        }
        EXPECT_FALSE(insert.Step());
        insert.Reset();
    }
    auto select = db->Prepare("SELECT job_id, model, share FROM shares ORDER BY job_id");
    ASSERT_EQ(select.ColumnCount(), 3);
    std::vector<std::string> rows;
    while (select.Step())
    {
        rows.push_back(std::to_string(select.GetInt64(0)) + " " + select.GetText(1) + " " +
                       (select.IsNull(2) ? "NULL" : std::to_string(select.GetDouble(2))));
    }
    EXPECT_EQ(rows,
              (std::vector<std::string>{"0 gpt-0 0.250000", "1 gpt-1 0.500000", "2 gpt-2 NULL"}));
    EXPECT_THROW(db->Prepare("SELECT 1; SELECT 2"), std::runtime_error);
    EXPECT_THROW(db->Exec("INSERT INTO no_such_table VALUES (1)"), std::runtime_error);

    // A throwing body undoes its rows, the run's completion and the flows with it.
    db->AddFlow(MakeFlow(id, 1, 10));
    EXPECT_THROW(db->Transaction([&]() {
        db->Exec("INSERT INTO shares VALUES (" + std::to_string(id) + ", 9, 'late', NULL)");
        db->FinishRun(id, 1, 1.0, 1, 1);
        throw std::runtime_error("job table check failed");
    }),
                 std::runtime_error);
    Reader r(m_path);
    EXPECT_EQ(r.Int("SELECT count(*) FROM shares"), 3);
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 0);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "running");

    // The same run can still be completed atomically with a later table's rows.
    db->Transaction([&]() {
        db->Exec("INSERT INTO shares VALUES (" + std::to_string(id) + ", 9, 'late', NULL)");
        db->FinishRun(id, 1, 1.0, 1, 1);
    });
    EXPECT_EQ(r.Int("SELECT count(*) FROM shares"), 4);
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 1);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "complete");
}

TEST_F(ResultsDatabaseTest, RejectsRowsThatWouldBeWrong)
{
    auto db = OpenDb();
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    EXPECT_THROW(db->AddFlow(MakeFlow(id + 1, 1, 10)), std::runtime_error); // unknown run
    EXPECT_THROW(db->AddFlow(MakeFlow(id, 1, std::numeric_limits<uint64_t>::max())),
                 std::runtime_error);
    FlowRecord early = MakeFlow(id, 2, 10);
    early.endNs = early.startNs - 1;
    EXPECT_THROW(db->AddFlow(early), std::runtime_error);
    FlowRecord badJob = MakeFlow(id, 3, 10);
    badJob.jobId = -2;
    EXPECT_THROW(db->AddFlow(badJob), std::runtime_error);
    LinkRecord link;
    link.runId = id;
    link.delayNs = -1;
    EXPECT_THROW(db->AddLink(link), std::runtime_error);
    EXPECT_EQ(db->GetPendingRows(), 0U);
    db->FinishRun(id, 1, 1.0, 1, 1);
    EXPECT_THROW(db->AddFlow(MakeFlow(id, 4, 10)), std::runtime_error); // finished run
    EXPECT_THROW(db->FinishRun(id, 1, 1.0, 1, 1), std::runtime_error);
}

TEST_F(ResultsDatabaseTest, SeveralProcessesShareOneFile)
{
    const int processes = 4;
    const uint64_t flows = 3000;
    InProcesses(processes, [this, flows](int p) {
        auto db = OpenDb(250); // small batches: many interleaved transactions
        const int64_t id = db->BeginRun("x", "fair", p, "{}");
        for (uint64_t i = 0; i < flows; ++i)
        {
            db->AddFlow(MakeFlow(id, i, p + 1));
        }
        db->FinishRun(id, 1, 1.0, 1, 1);
        db->Dispose();
    });
    Reader r(m_path);
    EXPECT_EQ(r.Int("SELECT count(*) FROM runs WHERE status = 'complete'"), processes);
    EXPECT_EQ(r.Int("SELECT count(DISTINCT run_id) FROM runs"), processes);
    // Each process p wrote `flows` rows of p + 1 bytes under its own run.
    for (int p = 0; p < processes; ++p)
    {
        const std::string run = "(SELECT run_id FROM runs WHERE seed = " + std::to_string(p) + ")";
        EXPECT_EQ(r.Int("SELECT count(*) FROM flows WHERE run_id = " + run),
                  static_cast<int64_t>(flows));
        EXPECT_EQ(r.Int("SELECT sum(bytes) FROM flows WHERE run_id = " + run),
                  static_cast<int64_t>(flows * (p + 1)));
    }
}

TEST_F(ResultsDatabaseTest, JobRowsAreRequiredByIterationsAndFlows)
{
    auto db = OpenDb(0);
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    db->AddRow(id,
               "INSERT INTO iterations (run_id, job_id, iter) VALUES (?1, ?2, ?3)",
               {id, int64_t{3}, int64_t{0}});
    EXPECT_THROW(db->Flush(), std::runtime_error);
    FlowRecord f = MakeFlow(id, 1, 10);
    f.jobId = 3;
    db->AddFlow(f);
    EXPECT_THROW(db->Flush(), std::runtime_error);
}

TEST_F(ResultsDatabaseTest, BeginRunRecordsProcessAndHost)
{
    auto db = OpenDb();
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    Reader r(m_path);
    EXPECT_EQ(r.Int(RunSql(id, "pid")), static_cast<int64_t>(getpid()));
    char host[256] = {};
    ASSERT_EQ(gethostname(host, sizeof(host) - 1), 0);
    EXPECT_EQ(r.Text(RunSql(id, "host")), std::string(host));
}

TEST_F(ResultsDatabaseTest, InterruptRunWritesPendingRowsAndMarksInterrupted)
{
    auto db = OpenDb(0);
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    db->AddFlow(MakeFlow(id, 1, 10));
    db->InterruptRun(id, "interrupted by SIGTERM");
    Reader r(m_path);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "interrupted");
    EXPECT_EQ(r.Text(RunSql(id, "error")), "interrupted by SIGTERM");
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 1);
    EXPECT_THROW(db->FinishRun(id, 1, 1.0, 1, 1), std::runtime_error);
}

TEST_F(ResultsDatabaseTest, RowsWaitingLongerThanTheIntervalAreWrittenAtTheNextRow)
{
    Ptr<ResultsDatabase> db = CreateObject<ResultsDatabase>();
    db->SetAttribute("FlushThreshold", UintegerValue(0)); // no bound by rows
    db->SetAttribute("FlushInterval", TimeValue(MilliSeconds(1)));
    db->Open(m_path);
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    Reader r(m_path);
    db->AddFlow(MakeFlow(id, 1, 10));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    db->AddFlow(MakeFlow(id, 2, 10));
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 2);
    EXPECT_EQ(db->GetPendingRows(), 0U);
    // Without a time bound the same rows wait for Flush.
    db->SetAttribute("FlushInterval", TimeValue(Seconds(0)));
    db->AddFlow(MakeFlow(id, 3, 10));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    db->AddFlow(MakeFlow(id, 4, 10));
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 2);
}

TEST_F(ResultsDatabaseTest, FailureIsRecordedEvenWhenPendingRowsCannotBeWritten)
{
    auto db = OpenDb(0);
    const int64_t id = db->BeginRun("x", "fair", 1, "{}");
    db->AddFlow(MakeFlow(id, 1, 10));
    db->Flush();
    db->Exec("CREATE TEMP TRIGGER reject BEFORE INSERT ON links"
             " BEGIN SELECT RAISE(ABORT, 'disk full'); END;");
    LinkRecord link;
    link.runId = id;
    EXPECT_THROW(db->Transaction([&]() {
        db->AddLink(link);
        db->FinishRun(id, 1, 1.0, 1, 1);
    }),
                 std::runtime_error);
    // The rows of the failed transaction went with it; the run is not complete.
    EXPECT_EQ(db->GetPendingRows(), 0U);
    db->AddLink(link); // a row that still cannot be written
    db->FailRun(id, "the last write failed");
    Reader r(m_path);
    EXPECT_EQ(r.Text(RunSql(id, "status")), "failed");
    EXPECT_NE(r.Text(RunSql(id, "error"))->find("disk full"), std::string::npos);
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 1);
    EXPECT_EQ(r.Int("SELECT count(*) FROM links"), 0);
}

/// A policy that notes each collective it hears of, and times it (part "even" or "odd").
class NotingPolicy : public CollectiveScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::results_test::NotingPolicy")
                                .SetParent<CollectiveScheduler>()
                                .SetGroupName("CollectiveScheduling")
                                .AddConstructor<NotingPolicy>();
        return tid;
    }

  protected:
    void DoCollectiveReady(uint32_t /* job */, uint32_t iteration, uint32_t /* bucket */) override
    {
        Note("iteration", std::to_string(iteration));
        RecordTiming(iteration % 2 ? "odd" : "even", 1.0 + iteration);
    }
};

/// Every row of \p table of run \p runId, its columns \p columns joined by ',' (NULL as "-").
std::vector<std::string>
Rows(Reader& r, const std::string& table, const std::string& columns, int64_t runId)
{
    std::string joined;
    std::size_t start = 0;
    while (start <= columns.size())
    {
        const std::size_t end = std::min(columns.find(',', start), columns.size());
        joined += (joined.empty() ? "" : " || ',' || ") + std::string("ifnull(") +
                  columns.substr(start, end - start) + ", '-')";
        start = end + 1;
    }
    return r.Column("SELECT " + joined + " FROM " + table +
                    " WHERE run_id = " + std::to_string(runId) + " ORDER BY rowid");
}

std::vector<std::string>
Sorted(std::vector<std::string> rows)
{
    std::sort(rows.begin(), rows.end());
    return rows;
}

/// \return whether \p prefix is a prefix of \p rows
bool
IsPrefix(const std::vector<std::string>& prefix, const std::vector<std::string>& rows)
{
    return prefix.size() <= rows.size() && std::equal(prefix.begin(), prefix.end(), rows.begin());
}

// A scheduler's decisions, gates, collectives and timing are buffered as they
// happen and committed with the run's other rows in batches (here of 4 rows):
// before the run ends, the file holds a prefix of each, as a killed run would
// leave it; at the end the rest is written once, and the run's rows are those
// the end-of-run writer alone writes.
TEST_F(ResultsDatabaseTest, SchedulerRowsAreStreamedInBatchesAndWrittenOnceAtTheEnd)
{
    auto db = OpenDb(4);
    db->SetAttribute("FlushInterval", TimeValue(Seconds(0))); // batches by rows only
    const int64_t id = db->BeginRun("x", "noting", 1, "{}");
    AddJob(*db, id, 0);
    AddJob(*db, id, 1);
    Ptr<NotingPolicy> policy = CreateObject<NotingPolicy>();
    const Time delay = policy->GetControlDelay();
    std::shared_ptr<const StreamedSchedulerRows> streamed = StreamSchedulerResults(db, id, policy);
    // Job 0: five collectives 10 us apart, each ready with the gate closed,
    // started when it opens 3 us later, done 5 us after it was ready. Job 1:
    // one collective that never finishes.
    const uint32_t kIterations = 5;
    std::vector<std::string> gates;
    std::vector<std::string> collectives;
    std::vector<std::string> decisions;
    for (uint32_t i = 0; i < kIterations; ++i)
    {
        const int64_t t = 10000 * i;
        Simulator::Schedule(NanoSeconds(t), [policy, i]() {
            policy->RecordGateChange(0, false);
            policy->NotifyCollectiveReady(0, i, 0);
        });
        Simulator::Schedule(NanoSeconds(t + 3000),
                            [policy]() { policy->RecordGateChange(0, true); });
        Simulator::Schedule(NanoSeconds(t + 5000),
                            [policy, i]() { policy->NotifyCollectiveDone(0, i, 0); });
        gates.push_back(std::to_string(t) + ",0,0");
        gates.push_back(std::to_string(t + 3000) + ",0,1");
        collectives.push_back("0," + std::to_string(i) + "," + std::to_string(t) + "," +
                              std::to_string(t + 3000) + "," + std::to_string(t + 5000));
        decisions.push_back(
            std::to_string(t + delay.GetNanoSeconds()) +
            ",collective-ready,0,{\"actions\":[],\"iteration\":" + std::to_string(i) + "}");
    }
    Simulator::Schedule(MicroSeconds(1), [policy]() { policy->NotifyCollectiveReady(1, 0, 0); });
    collectives.push_back("1,0,1000,1000,-");
    decisions.insert(decisions.begin() + 1,
                     std::to_string(1000 + delay.GetNanoSeconds()) +
                         ",collective-ready,1,{\"actions\":[],\"iteration\":0}");
    Simulator::Run();

    // As a kill would leave the file: all but the last batch's rows, in order.
    Reader r(m_path);
    const char* const kDecision = "t_ns,kind,job_id,detail_json";
    const char* const kGate = "t_ns,job_id,open";
    const char* const kCollective = "job_id,iteration,ready_ns,start_ns,finish_ns";
    EXPECT_LT(db->GetPendingRows(), 4u);
    const std::vector<std::string> keptDecisions = Rows(r, "scheduler_decisions", kDecision, id);
    const std::vector<std::string> keptGates = Rows(r, "gates", kGate, id);
    const std::vector<std::string> keptCollectives = Rows(r, "collectives", kCollective, id);
    EXPECT_GT(keptDecisions.size(), 0u);
    EXPECT_GT(keptGates.size(), 0u);
    EXPECT_GT(keptCollectives.size(), 0u);
    EXPECT_GT(r.Int("SELECT count(*) FROM scheduler_timing").value_or(0), 0);
    EXPECT_TRUE(IsPrefix(keptDecisions, decisions));
    EXPECT_TRUE(IsPrefix(keptGates, gates));
    // Collectives as they finish: only job 0's.
    EXPECT_TRUE(IsPrefix(keptCollectives, collectives));
    EXPECT_EQ(r.Int("SELECT count(*) FROM scheduler_runs"), 0);

    db->Transaction([&]() {
        WriteSchedulerResults(*db, id, *policy, streamed.get());
        db->FinishRun(id, 50000, 1.0, 1, 1);
    });
    EXPECT_EQ(Rows(r, "scheduler_decisions", kDecision, id), decisions);
    EXPECT_EQ(Rows(r, "gates", kGate, id), gates);
    EXPECT_EQ(Sorted(Rows(r, "collectives", kCollective, id)), Sorted(collectives));
    // even: job 0's iterations 0, 2, 4 and job 1's 0; odd: 1 and 3.
    EXPECT_EQ(Rows(r, "scheduler_timing", "part,count,total_us,max_us", id),
              (std::vector<std::string>{"even,4,10.0,5.0", "odd,2,6.0,4.0"}));
    EXPECT_EQ(r.Int("SELECT decisions FROM scheduler_runs"), 6);

    // The same rows as the end-of-run writer alone writes for the run.
    const std::string alonePath = m_dir + "/alone.db";
    Ptr<ResultsDatabase> alone = CreateObject<ResultsDatabase>();
    alone->Open(alonePath);
    const int64_t aloneId = alone->BeginRun("x", "noting", 1, "{}");
    alone->Transaction([&]() {
        AddJob(*alone, aloneId, 0);
        AddJob(*alone, aloneId, 1);
        WriteSchedulerResults(*alone, aloneId, *policy);
        alone->FinishRun(aloneId, 50000, 1.0, 1, 1);
    });
    Reader a(alonePath);
    for (const auto& [table, columns] : std::vector<std::pair<std::string, std::string>>{
             {"scheduler_decisions", "t_ns,scheduler,kind,job_id,detail_json,wall_us"},
             {"gates", kGate},
             {"collectives",
              "job_id,iteration,ready_ns,start_ns,finish_ns,route,planned_start_ns,"
              "planned_finish_ns,planned_route,estimate_ns"},
             {"scheduler_runs", "scheduler,params_json,decisions,total_wall_us,max_wall_us"},
             {"scheduler_timing", "part,count,total_us,mean_us,max_us"}})
    {
        EXPECT_EQ(Sorted(Rows(r, table, columns, id)), Sorted(Rows(a, table, columns, aloneId)))
            << table;
    }
    Simulator::Destroy();
}

} // namespace
