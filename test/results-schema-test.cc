/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The results schema: every table on open, migrations from older versions
 * (also by several processes at once), and files of a newer version refused.
 */

#include "results-database-test-util.h"

using namespace ns3;
using namespace ns3::results_test;

namespace
{

// Version 1 of the schema, as files written before schema versions hold it:
// runs, flows and links created on open, jobs and iterations by the training
// writer, no schema_version, no pid or host, no 'interrupted'.
const char* const kVersion1Schema = R"sql(
CREATE TABLE runs (run_id INTEGER PRIMARY KEY AUTOINCREMENT, example TEXT NOT NULL,
    scheduler TEXT NOT NULL, seed INTEGER NOT NULL, params_json TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed')),
    started_at TEXT NOT NULL, finished_at TEXT, sim_end_ns INTEGER, wall_s REAL,
    events INTEGER, packet_hops INTEGER, error TEXT);
CREATE TABLE flows (run_id INTEGER NOT NULL REFERENCES runs (run_id), flow_id INTEGER NOT NULL,
    job_id INTEGER, src_node INTEGER NOT NULL, dst_node INTEGER NOT NULL, bytes INTEGER NOT NULL,
    start_ns INTEGER NOT NULL, end_ns INTEGER, ack_ns INTEGER,
    retransmitted_bytes INTEGER NOT NULL, priority INTEGER NOT NULL, src_port INTEGER NOT NULL,
    iteration INTEGER, collective INTEGER, step INTEGER);
CREATE INDEX flows_run_id ON flows (run_id, flow_id);
CREATE TABLE links (run_id INTEGER NOT NULL REFERENCES runs (run_id), link_id INTEGER NOT NULL,
    node_a INTEGER NOT NULL, node_b INTEGER NOT NULL, rate_bps INTEGER NOT NULL,
    delay_ns INTEGER NOT NULL, tx_bytes_ab INTEGER NOT NULL, tx_bytes_ba INTEGER NOT NULL,
    drops INTEGER NOT NULL, pfc_pauses_sent INTEGER NOT NULL, ecn_marked INTEGER NOT NULL,
    max_queue_bytes INTEGER NOT NULL);
CREATE INDEX links_run_id ON links (run_id, link_id);
CREATE TABLE jobs( run_id INTEGER NOT NULL REFERENCES runs(run_id), job_id INTEGER NOT NULL,
    model TEXT, workers INTEGER, gpus_per_host INTEGER, placement_json TEXT, arrival_ns INTEGER,
    start_ns INTEGER, end_ns INTEGER, iterations INTEGER, weight REAL,
    PRIMARY KEY (run_id, job_id));
CREATE TABLE iterations( run_id INTEGER NOT NULL REFERENCES runs(run_id),
    job_id INTEGER NOT NULL, iter INTEGER NOT NULL, compute_start_ns INTEGER,
    comm_ready_ns INTEGER, comm_start_ns INTEGER, comm_end_ns INTEGER,
    PRIMARY KEY (run_id, job_id, iter));
INSERT INTO runs VALUES (1, 'old', 'fair', 7, '{}', 'complete', '2025-01-01', '2025-01-01',
    100, 0.5, 10, 20, NULL);
INSERT INTO runs VALUES (2, 'old', 'crux', 8, '{}', 'failed', '2025-01-01', NULL,
    NULL, NULL, NULL, NULL, 'boom');
INSERT INTO jobs VALUES (1, 0, 'gpt2', 4, 1, '{}', 0, 0, 90, 2, 4.0);
INSERT INTO iterations VALUES (1, 0, 0, 0, 10, 10, 40), (1, 0, 1, 40, 50, 50, 90);
INSERT INTO flows VALUES (1, 0, 0, 1, 2, 1000, 10, 20, 30, 0, 3, 49152, 0, 0, 0),
    (2, 0, 5, 1, 2, 1000, 10, NULL, NULL, 0, 3, 49152, NULL, NULL, NULL);
INSERT INTO links VALUES (1, 0, 1, 2, 100000000000, 1000, 5, 6, 0, 0, 0, 0);
ALTER TABLE runs ADD COLUMN sweep_note TEXT;
UPDATE runs SET sweep_note = 'kept' WHERE run_id = 1;
)sql";

void
WriteVersion1File(const std::string& path)
{
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, kVersion1Schema, nullptr, nullptr, &error);
    const std::string message = error ? error : "";
    sqlite3_free(error);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << message;
}

TEST_F(ResultsDatabaseTest, CreatesEveryTableAndTheSchemaVersionOnOpen)
{
    OpenDb();
    Reader r(m_path);
    for (const std::string table : {"runs",
                                    "flows",
                                    "links",
                                    "jobs",
                                    "iterations",
                                    "scheduler_decisions",
                                    "gates",
                                    "scheduler_runs",
                                    "scheduler_timing",
                                    "link_samples",
                                    "scheduling_bench",
                                    "faults",
                                    "collectives",
                                    "iteration_times",
                                    "schema_version"})
    {
        EXPECT_EQ(r.Int("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" +
                        table + "'"),
                  1)
            << table;
    }
    EXPECT_EQ(r.Int("SELECT version FROM schema_version"), ResultsDatabase::GetSchemaVersion());
    EXPECT_EQ(r.Int("SELECT count(*) FROM schema_version"), 1);
    // Iterations, a job's flows and its collectives reference its jobs row.
    for (const std::string table : {"iterations", "flows", "collectives", "iteration_times"})
    {
        EXPECT_EQ(r.Int("SELECT count(*) FROM pragma_foreign_key_list('" + table +
                        "') WHERE \"table\" = 'jobs' AND \"from\" = 'job_id'"),
                  1)
            << table;
    }
}

TEST_F(ResultsDatabaseTest, MigratesAVersion1FileKeepingEveryRow)
{
    WriteVersion1File(m_path);
    auto db = OpenDb();
    Reader r(m_path);
    EXPECT_EQ(r.Int("SELECT version FROM schema_version"), ResultsDatabase::GetSchemaVersion());
    // Every row and value, and a column added to the file since, are kept.
    EXPECT_EQ(r.Text("SELECT group_concat(run_id || ':' || status || ':' || coalesce(error, '')"
                     " || ':' || coalesce(sweep_note, ''), ',') FROM runs"),
              "1:complete::kept,2:failed:boom:");
    EXPECT_EQ(r.Int("SELECT count(*) FROM iterations"), 2);
    EXPECT_EQ(r.Int("SELECT sum(comm_end_ns) FROM iterations"), 130);
    EXPECT_EQ(r.Int("SELECT count(*) FROM flows"), 2);
    EXPECT_EQ(r.Int("SELECT count(*) FROM links"), 1);
    // The failed run's flow named job 5, which had no row: it got one of its ids alone.
    EXPECT_EQ(r.Int("SELECT count(*) FROM jobs WHERE run_id = 2 AND job_id = 5 AND model IS NULL"),
              1);
    EXPECT_EQ(r.Text("SELECT model FROM jobs WHERE run_id = 1 AND job_id = 0"), "gpt2");
    EXPECT_EQ(r.Int("SELECT count(*) FROM pragma_foreign_key_check"), 0);
    EXPECT_EQ(r.Int("SELECT count(*) FROM pragma_foreign_key_list('iterations')"
                    " WHERE \"table\" = 'jobs' AND \"from\" = 'job_id'"),
              1);
    // The indexes came back with the rebuilt tables.
    EXPECT_EQ(r.Int("SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                    " AND name = 'flows_run_id'"),
              1);
    // The new schema works: a run with pid, new ids, and the 'interrupted' status.
    const int64_t id = db->BeginRun("new", "fair", 1, "{}");
    EXPECT_EQ(id, 3);
    EXPECT_EQ(r.Int(RunSql(id, "pid")), static_cast<int64_t>(getpid()));
    db->InterruptRun(id, "interrupted by SIGINT");
    EXPECT_EQ(r.Text(RunSql(id, "status")), "interrupted");
    db->Dispose();
    // Opening again changes nothing.
    auto again = OpenDb();
    EXPECT_EQ(r.Int("SELECT count(*) FROM runs"), 3);
    EXPECT_EQ(r.Int("SELECT count(*) FROM schema_version"), 1);
}

TEST_F(ResultsDatabaseTest, MigratesAVersion3FileAddingTheTablesAndColumnsSince)
{
    // A version 3 file is this schema without the collectives,
    // iteration_times, op_spans and monitor tables (added in versions 4 to 6),
    // without links.pfc_paused_ns (6) and without link_samples.kind (7).
    {
        auto db = OpenDb();
        const int64_t id = db->BeginRun("old", "symphony", 1, "{}");
        AddJob(*db, id, 0);
        db->AddRow(id,
                   "INSERT INTO gates (run_id, t_ns, job_id, open) VALUES (?1, ?2, ?3, ?4)",
                   {id, int64_t{100}, int64_t{0}, int64_t{1}});
        db->FinishRun(id, 1000, 0.1, 10, 20);
        for (const char* table : {"collectives",
                                  "iteration_times",
                                  "op_spans",
                                  "port_samples",
                                  "nic_samples",
                                  "qp_samples"})
        {
            db->Exec(std::string("DROP TABLE ") + table);
        }
        db->Exec("ALTER TABLE links DROP COLUMN pfc_paused_ns");
        db->Exec("ALTER TABLE link_samples DROP COLUMN kind");
        db->Exec("INSERT INTO link_samples (run_id, link_id, direction, t_ns, tx_bytes)"
                 " VALUES (1, 3, 0, 0, 1000)");
        db->Exec("UPDATE schema_version SET version = 3");
        db->Dispose();
    }
    {
        Reader r(m_path);
        ASSERT_EQ(r.Int("SELECT version FROM schema_version"), 3);
        ASSERT_EQ(r.Int("SELECT count(*) FROM sqlite_master WHERE name = 'collectives'"), 0);
    }
    auto db = OpenDb(0);
    Reader r(m_path);
    EXPECT_EQ(ResultsDatabase::GetSchemaVersion(), 7);
    EXPECT_EQ(r.Int("SELECT version FROM schema_version"), 7);
    // A link sample of before is a fabric link's; port samples gain a kind and tx_bytes.
    EXPECT_EQ(r.Text("SELECT kind FROM link_samples WHERE link_id = 3"), "fabric");
    EXPECT_EQ(r.Int("SELECT count(*) FROM pragma_table_info('port_samples') WHERE name IN "
                    "('kind', 'tx_bytes')"),
              2);
    for (const char* table :
         {"iteration_times", "op_spans", "port_samples", "nic_samples", "qp_samples"})
    {
        EXPECT_EQ(
            r.Int(std::string("SELECT count(*) FROM sqlite_master WHERE name = '") + table + "'"),
            1)
            << table;
    }
    EXPECT_EQ(r.Int("SELECT count(*) FROM pragma_table_info('links') WHERE name = "
                    "'pfc_paused_ns'"),
              1);
    EXPECT_EQ(r.Int("SELECT count(*) FROM schema_version"), 1);
    // The version 3 rows are kept.
    EXPECT_EQ(r.Text("SELECT status FROM runs WHERE run_id = 1"), "complete");
    EXPECT_EQ(r.Int("SELECT t_ns FROM gates WHERE run_id = 1"), 100);
    EXPECT_EQ(r.Text("SELECT group_concat(name, ',') FROM pragma_table_info('collectives')"),
              "run_id,job_id,iteration,ready_ns,start_ns,finish_ns,route,planned_start_ns,"
              "planned_finish_ns,planned_route,estimate_ns");
    // The new table takes rows of a job that has a jobs row, and only those.
    const std::string insert =
        "INSERT INTO collectives (run_id, job_id, iteration, ready_ns, start_ns, finish_ns,"
        " planned_start_ns, planned_finish_ns, estimate_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
        " ?8, ?9)";
    const int64_t id = db->BeginRun("new", "symphony", 1, "{}");
    AddJob(*db, id, 0);
    db->AddRow(id,
               insert,
               {id,
                int64_t{0},
                int64_t{0},
                int64_t{10},
                int64_t{20},
                int64_t{90},
                int64_t{20},
                int64_t{80},
                int64_t{55}});
    db->Flush();
    EXPECT_EQ(r.Int("SELECT planned_finish_ns - planned_start_ns - estimate_ns FROM collectives"),
              5);
    db->AddRow(id, insert, {id, int64_t{7}, int64_t{0}, int64_t{10}, {}, {}, {}, {}, {}});
    EXPECT_THROW(db->Flush(), std::runtime_error);
    EXPECT_EQ(r.Int("SELECT count(*) FROM pragma_foreign_key_check"), 0);
}

TEST_F(ResultsDatabaseTest, RefusesAFileOfANewerSchema)
{
    {
        auto db = OpenDb();
        db->Exec("UPDATE schema_version SET version = 99");
        db->Dispose();
    }
    Ptr<ResultsDatabase> db = CreateObject<ResultsDatabase>();
    try
    {
        db->Open(m_path);
        FAIL() << "opened a file of schema version 99";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(m_path), std::string::npos) << e.what();
    }
}

TEST_F(ResultsDatabaseTest, ProcessesOpeningOneVersion1FileMigrateItOnceAndLoseNoRow)
{
    WriteVersion1File(m_path);
    const int processes = 4;
    const uint64_t flows = 2000;
    InProcesses(processes, [this, flows](int p) {
        auto db = OpenDb(100);
        const int64_t id = db->BeginRun("x", "fair", 100 + p, "{}");
        AddJob(*db, id, 0);
        for (uint64_t i = 0; i < flows; ++i)
        {
            FlowRecord f = MakeFlow(id, i, p + 1);
            f.jobId = 0;
            db->AddFlow(f);
        }
        db->FinishRun(id, 1, 1.0, 1, 1);
        db->Dispose();
    });
    Reader r(m_path);
    EXPECT_EQ(r.Int("SELECT count(*) FROM schema_version"), 1);
    EXPECT_EQ(r.Int("SELECT version FROM schema_version"), ResultsDatabase::GetSchemaVersion());
    EXPECT_EQ(r.Int("SELECT count(*) FROM runs WHERE seed >= 100 AND status = 'complete'"),
              processes);
    for (int p = 0; p < processes; ++p)
    {
        const std::string run =
            "(SELECT run_id FROM runs WHERE seed = " + std::to_string(100 + p) + ")";
        EXPECT_EQ(r.Int("SELECT count(*) FROM flows WHERE run_id = " + run),
                  static_cast<int64_t>(flows));
        EXPECT_EQ(r.Int("SELECT sum(bytes) FROM flows WHERE run_id = " + run),
                  static_cast<int64_t>(flows * (p + 1)));
    }
    // The version 1 rows are still there, once.
    EXPECT_EQ(r.Int("SELECT count(*) FROM runs WHERE example = 'old'"), 2);
    EXPECT_EQ(r.Text("PRAGMA integrity_check"), "ok");
}

} // namespace
