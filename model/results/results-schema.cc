/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "results-schema.h"

#include "results-database.h"

#include "ns3/log.h"

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ResultsSchema");

namespace
{

// The schema of this build. Statements end with ';' so the whole string runs
// through one sqlite3_exec. Every table is created when a file is opened, so
// a run's rows can be streamed from its start and no writer depends on
// another having created a table. Version history (doc/results-schema.md):
//   1  runs, flows, links created on open; the other tables by their writers;
//      no schema_version table.
//   2  every table on open; schema_version; runs.pid and runs.host; status
//      'interrupted'; iterations and flows.job_id reference jobs.
//   3  flows and links count lost bytes by cause (lost_bytes_buffer,
//      lost_bytes_error, lost_bytes_link_down); a faults table;
//      scheduling_bench records seed, hit_limit and parts.
//   4  a collectives table: each collective as planned and as executed.
//   5  an iteration_times table: where each iteration's time went.
//   6  an op_spans table: when each op of a job's iteration graph ran; the
//      port monitors' port_samples, nic_samples and qp_samples tables;
//      links.pfc_paused_ns.
//   7  link_samples.kind and port_samples.kind ('fabric', or 'nvswitch' for
//      a GPU's NVSwitch port) and port_samples.tx_bytes.
constexpr int64_t kSchemaVersion = 7;

/// Columns added since version 2, added in place by the migration (tables
/// added since are created by the CREATE TABLE IF NOT EXISTS below).
struct AddedColumn
{
    const char* table;
    const char* column;
    const char* declaration;
};

const AddedColumn kAddedSinceVersion2[] = {
    {"flows", "lost_bytes_buffer", "INTEGER NOT NULL DEFAULT 0"},
    {"flows", "lost_bytes_error", "INTEGER NOT NULL DEFAULT 0"},
    {"flows", "lost_bytes_link_down", "INTEGER NOT NULL DEFAULT 0"},
    {"links", "lost_bytes_buffer", "INTEGER NOT NULL DEFAULT 0"},
    {"links", "lost_bytes_error", "INTEGER NOT NULL DEFAULT 0"},
    {"links", "lost_bytes_link_down", "INTEGER NOT NULL DEFAULT 0"},
    {"scheduling_bench", "seed", "INTEGER"},
    {"scheduling_bench", "hit_limit", "INTEGER"},
    {"scheduling_bench", "parts", "INTEGER"},
    {"links", "pfc_paused_ns", "INTEGER NOT NULL DEFAULT 0"},
    {"link_samples", "kind", "TEXT NOT NULL DEFAULT 'fabric'"},
    {"port_samples", "kind", "TEXT NOT NULL DEFAULT 'fabric'"},
    {"port_samples", "tx_bytes", "INTEGER"},
};

const char* const kRunsTable = R"sql(
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    example TEXT NOT NULL,
    scheduler TEXT NOT NULL,
    seed INTEGER NOT NULL,
    params_json TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),
    started_at TEXT NOT NULL,
    finished_at TEXT,
    sim_end_ns INTEGER,
    wall_s REAL,
    events INTEGER,
    packet_hops INTEGER,
    error TEXT,
    pid INTEGER,
    host TEXT
);
)sql";

const char* const kFlowsTable = R"sql(
CREATE TABLE IF NOT EXISTS flows (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    flow_id INTEGER NOT NULL,
    job_id INTEGER,
    src_node INTEGER NOT NULL,
    dst_node INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER,
    ack_ns INTEGER,
    retransmitted_bytes INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    src_port INTEGER NOT NULL,
    iteration INTEGER,
    collective INTEGER,
    step INTEGER,
    lost_bytes_buffer INTEGER NOT NULL DEFAULT 0,
    lost_bytes_error INTEGER NOT NULL DEFAULT 0,
    lost_bytes_link_down INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (run_id, job_id) REFERENCES jobs (run_id, job_id)
);
)sql";

const char* const kIterationsTable = R"sql(
CREATE TABLE IF NOT EXISTS iterations (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    job_id INTEGER NOT NULL,
    iter INTEGER NOT NULL,
    compute_start_ns INTEGER,
    comm_ready_ns INTEGER,
    comm_start_ns INTEGER,
    comm_end_ns INTEGER,
    PRIMARY KEY (run_id, job_id, iter),
    FOREIGN KEY (run_id, job_id) REFERENCES jobs (run_id, job_id)
);
)sql";

// The tables whose definitions did not change since version 1 (jobs and the
// later ones were then created by their writers with these definitions).
const char* const kOtherTables = R"sql(
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS flows_run_id ON flows (run_id, flow_id);
CREATE TABLE IF NOT EXISTS links (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    link_id INTEGER NOT NULL,
    node_a INTEGER NOT NULL,
    node_b INTEGER NOT NULL,
    rate_bps INTEGER NOT NULL,
    delay_ns INTEGER NOT NULL,
    tx_bytes_ab INTEGER NOT NULL,
    tx_bytes_ba INTEGER NOT NULL,
    drops INTEGER NOT NULL,
    pfc_pauses_sent INTEGER NOT NULL,
    ecn_marked INTEGER NOT NULL,
    max_queue_bytes INTEGER NOT NULL,
    lost_bytes_buffer INTEGER NOT NULL DEFAULT 0,
    lost_bytes_error INTEGER NOT NULL DEFAULT 0,
    lost_bytes_link_down INTEGER NOT NULL DEFAULT 0,
    pfc_paused_ns INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS links_run_id ON links (run_id, link_id);
CREATE TABLE IF NOT EXISTS jobs (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    job_id INTEGER NOT NULL,
    model TEXT,
    workers INTEGER,
    gpus_per_host INTEGER,
    placement_json TEXT,
    arrival_ns INTEGER,
    start_ns INTEGER,
    end_ns INTEGER,
    iterations INTEGER,
    weight REAL,
    PRIMARY KEY (run_id, job_id)
);
CREATE TABLE IF NOT EXISTS scheduler_decisions (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    t_ns INTEGER NOT NULL,
    scheduler TEXT NOT NULL,
    kind TEXT NOT NULL,
    job_id INTEGER,
    detail_json TEXT NOT NULL,
    wall_us REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS scheduler_decisions_run ON scheduler_decisions (run_id);
CREATE TABLE IF NOT EXISTS gates (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    t_ns INTEGER NOT NULL,
    job_id INTEGER NOT NULL,
    open INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS gates_run ON gates (run_id, job_id);
CREATE TABLE IF NOT EXISTS scheduler_runs (
    run_id INTEGER PRIMARY KEY REFERENCES runs (run_id),
    scheduler TEXT NOT NULL,
    params_json TEXT NOT NULL,
    decisions INTEGER NOT NULL,
    total_wall_us REAL NOT NULL,
    max_wall_us REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS scheduler_timing (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    part TEXT NOT NULL,
    count INTEGER NOT NULL,
    total_us REAL NOT NULL,
    mean_us REAL NOT NULL,
    max_us REAL NOT NULL,
    PRIMARY KEY (run_id, part)
);
CREATE TABLE IF NOT EXISTS link_samples (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    link_id INTEGER NOT NULL,
    direction INTEGER NOT NULL,
    job_id INTEGER,
    t_ns INTEGER NOT NULL,
    tx_bytes INTEGER NOT NULL,
    kind TEXT NOT NULL DEFAULT 'fabric'
);
CREATE INDEX IF NOT EXISTS link_samples_run ON link_samples (run_id, link_id);
CREATE TABLE IF NOT EXISTS scheduling_bench (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    racks INTEGER,
    jobs INTEGER,
    gpus INTEGER,
    planner TEXT,
    wall_ms REAL,
    objective REAL,
    proven INTEGER,
    seed INTEGER,
    hit_limit INTEGER,
    parts INTEGER
);
CREATE TABLE IF NOT EXISTS faults (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    fault_id INTEGER NOT NULL,
    time_ns INTEGER NOT NULL,
    event TEXT NOT NULL
        CHECK (event IN ('down', 'routes-withdrawn', 'up', 'routes-restored')),
    target TEXT NOT NULL CHECK (target IN ('link', 'switch', 'host')),
    target_id INTEGER NOT NULL,
    links INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS faults_run_id ON faults (run_id, time_ns);
CREATE TABLE IF NOT EXISTS iteration_times (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    job_id INTEGER NOT NULL,
    iter INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    compute_ns REAL NOT NULL,
    overlapped_ns REAL NOT NULL,
    exposed_dp_ns REAL NOT NULL,
    exposed_tp_ns REAL NOT NULL,
    exposed_pp_ns REAL NOT NULL,
    exposed_ep_ns REAL NOT NULL,
    exposed_other_ns REAL NOT NULL,
    gate_wait_ns REAL NOT NULL,
    bubble_ns REAL NOT NULL,
    PRIMARY KEY (run_id, job_id, iter),
    FOREIGN KEY (run_id, job_id) REFERENCES jobs (run_id, job_id)
);
CREATE TABLE IF NOT EXISTS op_spans (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    job_id INTEGER NOT NULL,
    iteration INTEGER NOT NULL,
    op INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('compute', 'collective', 'transfer')),
    name TEXT NOT NULL,
    grp TEXT NOT NULL,
    algorithm TEXT,
    bytes INTEGER NOT NULL,
    ranks TEXT NOT NULL,
    planned INTEGER NOT NULL,
    ready_ns INTEGER NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    PRIMARY KEY (run_id, job_id, iteration, op),
    FOREIGN KEY (run_id, job_id) REFERENCES jobs (run_id, job_id)
);
CREATE TABLE IF NOT EXISTS port_samples (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    node_id INTEGER NOT NULL,
    port INTEGER NOT NULL,
    link_id INTEGER NOT NULL,
    t_ns INTEGER NOT NULL,
    class INTEGER NOT NULL,
    queue_bytes INTEGER NOT NULL,
    paused_ns INTEGER NOT NULL,
    ecn_marks INTEGER NOT NULL,
    kind TEXT NOT NULL DEFAULT 'fabric',
    tx_bytes INTEGER
);
CREATE INDEX IF NOT EXISTS port_samples_run ON port_samples (run_id, node_id, port);
CREATE TABLE IF NOT EXISTS nic_samples (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    node_id INTEGER NOT NULL,
    t_ns INTEGER NOT NULL,
    cnps_sent INTEGER NOT NULL,
    cnps_received INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS nic_samples_run ON nic_samples (run_id, node_id);
CREATE TABLE IF NOT EXISTS qp_samples (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    node_id INTEGER NOT NULL,
    job_id INTEGER,
    dst_node INTEGER NOT NULL,
    src_port INTEGER NOT NULL,
    t_ns INTEGER NOT NULL,
    rate_bps INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS qp_samples_run ON qp_samples (run_id, node_id);
CREATE TABLE IF NOT EXISTS collectives (
    run_id INTEGER NOT NULL REFERENCES runs (run_id),
    job_id INTEGER NOT NULL,
    iteration INTEGER NOT NULL,
    ready_ns INTEGER NOT NULL,
    start_ns INTEGER,
    finish_ns INTEGER,
    route INTEGER,
    planned_start_ns INTEGER,
    planned_finish_ns INTEGER,
    planned_route INTEGER,
    estimate_ns INTEGER,
    PRIMARY KEY (run_id, job_id, iteration),
    FOREIGN KEY (run_id, job_id) REFERENCES jobs (run_id, job_id)
);
)sql";

/// Tables whose definition changed in version 2, rebuilt by the migration from 1.
struct RebuiltTable
{
    const char* name;
    const char* sql;
};

const RebuiltTable kRebuiltInVersion2[] = {{"runs", kRunsTable},
                                           {"iterations", kIterationsTable},
                                           {"flows", kFlowsTable}};

std::string
Where(const ResultsDatabase& db)
{
    return "ResultsDatabase '" + db.GetPath() + "': ";
}

/// \return the file's schema version: 0 for a new file, 1 for one without schema_version
int64_t
ReadSchemaVersion(ResultsDatabase& db)
{
    ResultsDatabase::Statement tables =
        db.Prepare("SELECT name FROM sqlite_master WHERE type = 'table'"
                   " AND name IN ('schema_version', 'runs')");
    bool versioned = false;
    bool runs = false;
    while (tables.Step())
    {
        versioned = versioned || tables.GetText(0) == "schema_version";
        runs = runs || tables.GetText(0) == "runs";
    }
    if (versioned)
    {
        ResultsDatabase::Statement version = db.Prepare("SELECT max(version) FROM schema_version");
        if (version.Step() && !version.IsNull(0))
        {
            return version.GetInt64(0);
        }
        return runs ? 1 : 0;
    }
    // Version 1 had no schema_version table; a file without runs is new.
    return runs ? 1 : 0;
}

/// \return name and declared type of each column of \p table (none if no such table)
std::vector<std::pair<std::string, std::string>>
TableColumns(ResultsDatabase& db, const std::string& table)
{
    ResultsDatabase::Statement info = db.Prepare("SELECT name, type FROM pragma_table_info(?1)");
    info.BindText(1, table);
    std::vector<std::pair<std::string, std::string>> columns;
    while (info.Step())
    {
        columns.emplace_back(info.GetText(0), info.GetText(1));
    }
    return columns;
}

/// Rebuild the tables whose definitions changed in version 2, keeping every row.
void
MigrateFromVersion1(ResultsDatabase& db)
{
    NS_LOG_FUNCTION(&db);
    // Version 1 let flows and iterations name a job without a jobs row (the
    // jobs table appeared with the first training run): give each such job a
    // row of its ids alone, so that the new foreign keys hold and nothing is lost.
    db.Exec(std::string(kRunsTable) + kOtherTables);
    for (const char* table : {"iterations", "flows"})
    {
        if (TableColumns(db, table).empty())
        {
            continue;
        }
        db.Exec(std::string("INSERT OR IGNORE INTO jobs (run_id, job_id) SELECT DISTINCT run_id, "
                            "job_id FROM ") +
                table + " WHERE job_id IS NOT NULL");
    }
    // SQLite cannot change a constraint in place: build the new table, copy
    // the rows by column name (keeping columns added since, e.g. by a merge),
    // and put it in the old one's place. Indexes go with the old table.
    for (const RebuiltTable& t : kRebuiltInVersion2)
    {
        const auto old = TableColumns(db, t.name);
        if (old.empty())
        {
            continue;
        }
        const std::string name = t.name;
        const std::string staging = name + "_v2";
        std::string sql = t.sql;
        sql.replace(sql.find(name), name.size(), staging);
        db.Exec(sql);
        std::set<std::string> present;
        for (const auto& [column, type] : TableColumns(db, staging))
        {
            present.insert(column);
        }
        std::string columns;
        for (const auto& [column, type] : old)
        {
            const std::string quotedName = "\"" + column + "\"";
            if (present.count(column) == 0)
            {
                db.Exec("ALTER TABLE " + staging + " ADD COLUMN " + quotedName + " " + type);
            }
            columns += (columns.empty() ? "" : ", ") + quotedName;
        }
        db.Exec("INSERT INTO " + staging + " (" + columns + ") SELECT " + columns + " FROM " +
                name);
        db.Exec("DROP TABLE " + name);
        db.Exec("ALTER TABLE " + staging + " RENAME TO " + name);
    }
}

} // namespace

void
RequireResultsFile(ResultsDatabase& db)
{
    // Only reads: a file that is not ours must be left exactly as it was.
    ResultsDatabase::Statement tables =
        db.Prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
    bool any = false;
    bool versioned = false;
    bool runs = false;
    while (tables.Step())
    {
        any = true;
        versioned = versioned || tables.GetText(0) == "schema_version";
        runs = runs || tables.GetText(0) == "runs";
    }
    if (!any || versioned)
    {
        return;
    }
    std::set<std::string> columns;
    for (const auto& [name, type] : TableColumns(db, "runs"))
    {
        columns.insert(name);
    }
    std::string missing;
    for (const char* c : {"run_id", "example", "scheduler", "seed", "params_json", "status"})
    {
        if (columns.count(c) == 0)
        {
            missing += (missing.empty() ? "" : ", ") + std::string(c);
        }
    }
    if (missing.empty())
    {
        return; // version 1, which had no schema_version table
    }
    throw std::runtime_error(Where(db) + "not a results database of this module (" +
                             (runs ? "its runs table has no column " + missing
                                   : std::string("it has tables, but no runs table")) +
                             "); left unchanged");
}

int64_t
ResultsSchemaVersion()
{
    return kSchemaVersion;
}

void
CreateOrMigrateResultsSchema(ResultsDatabase& db)
{
    // A first look outside any transaction; decided again under the write lock,
    // since another process may be creating or migrating the same file.
    if (ReadSchemaVersion(db) == kSchemaVersion)
    {
        return;
    }
    // Rebuilding a referenced table needs foreign keys off, which SQLite
    // accepts only outside a transaction; they are checked before the commit.
    db.Exec("PRAGMA foreign_keys = OFF");
    db.Transaction([&db]() {
        const int64_t version = ReadSchemaVersion(db);
        if (version > kSchemaVersion)
        {
            throw std::runtime_error(Where(db) + "schema version " + std::to_string(version) +
                                     " is newer than this build's (" +
                                     std::to_string(kSchemaVersion) + "); use a newer build");
        }
        if (version == kSchemaVersion)
        {
            return;
        }
        if (version == 1)
        {
            MigrateFromVersion1(db);
        }
        db.Exec(kRunsTable);
        db.Exec(kFlowsTable);
        db.Exec(kIterationsTable);
        db.Exec(kOtherTables);
        // Tables kept from an earlier version get the columns added since.
        for (const AddedColumn& a : kAddedSinceVersion2)
        {
            bool present = false;
            for (const auto& [name, type] : TableColumns(db, a.table))
            {
                present = present || name == a.column;
            }
            if (!present)
            {
                db.Exec(std::string("ALTER TABLE ") + a.table + " ADD COLUMN " + a.column + " " +
                        a.declaration);
            }
        }
        db.Exec("DELETE FROM schema_version");
        db.Exec("INSERT INTO schema_version (version) VALUES (" + std::to_string(kSchemaVersion) +
                ")");
        ResultsDatabase::Statement check = db.Prepare("PRAGMA foreign_key_check");
        if (check.Step())
        {
            throw std::runtime_error(
                Where(db) + "migration from schema " + std::to_string(version) + ": table " +
                check.GetText(0) + " has rows that reference missing rows of " + check.GetText(2));
        }
    });
}

} // namespace ns3
