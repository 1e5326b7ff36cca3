/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "results-database.h"

#include "results-schema.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <exception>
#include <limits>
#include <sqlite3.h>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ResultsDatabase");
NS_OBJECT_ENSURE_REGISTERED(ResultsDatabase);

namespace
{

const char* const kInsertFlow =
    "INSERT INTO flows (run_id, flow_id, job_id, src_node, dst_node, bytes, start_ns, end_ns,"
    " ack_ns, retransmitted_bytes, priority, src_port, iteration, collective, step,"
    " lost_bytes_buffer, lost_bytes_error, lost_bytes_link_down)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";

const char* const kInsertLink =
    "INSERT INTO links (run_id, link_id, node_a, node_b, rate_bps, delay_ns, tx_bytes_ab,"
    " tx_bytes_ba, drops, pfc_pauses_sent, ecn_marked, max_queue_bytes, lost_bytes_buffer,"
    " lost_bytes_error, lost_bytes_link_down, pfc_paused_ns)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";

const char* const kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// SQLite integers are signed 64-bit; refuse what would wrap.
int64_t
ToInt64(uint64_t value, const std::string& row, const char* field)
{
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    {
        throw std::runtime_error("ResultsDatabase: " + row + ": " + field + " " +
                                 std::to_string(value) + " exceeds the SQLite integer range");
    }
    return static_cast<int64_t>(value);
}

/// -1 means "none" (stored as NULL); other negative values are a bug of the caller.
void
CheckOptional(int64_t value, const std::string& row, const char* field)
{
    if (value < -1)
    {
        throw std::runtime_error("ResultsDatabase: " + row + ": " + field + " " +
                                 std::to_string(value) + " is negative (use -1 for none)");
    }
}

SqlValue
Optional(int64_t value)
{
    return value == -1 ? SqlValue() : SqlValue(value);
}

/// The host name, for telling a live run from one whose process is gone.
std::string
HostName()
{
    char name[256] = {};
    if (gethostname(name, sizeof(name) - 1) != 0)
    {
        return "";
    }
    return name;
}

} // namespace

// ------------------------------------------------------------ ResultsDatabase

std::string
ResultsDatabase::Where(const std::string& path)
{
    return "ResultsDatabase '" + path + "': ";
}

TypeId
ResultsDatabase::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ResultsDatabase")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<ResultsDatabase>()
            .AddAttribute("BusyTimeout",
                          "How long a write waits for another process holding the file's lock",
                          TimeValue(Seconds(60)),
                          MakeTimeAccessor(&ResultsDatabase::m_busyTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("FlushThreshold",
                          "Buffered rows that trigger a write (0: no bound by rows)",
                          UintegerValue(10000),
                          MakeUintegerAccessor(&ResultsDatabase::m_flushThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("FlushInterval",
                          "Wall-clock time after which a buffered row is written when the next "
                          "row is added (0: no bound by time)",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&ResultsDatabase::m_flushInterval),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("UseWal",
                          "Open the file in write-ahead-log mode (readers never block writers)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&ResultsDatabase::m_useWal),
                          MakeBooleanChecker());
    return tid;
}

int64_t
ResultsDatabase::GetSchemaVersion()
{
    return ResultsSchemaVersion();
}

ResultsDatabase::ResultsDatabase()
{
    NS_LOG_FUNCTION(this);
}

ResultsDatabase::~ResultsDatabase()
{
    CloseNoThrow();
}

void
ResultsDatabase::DoDispose()
{
    NS_LOG_FUNCTION(this);
    CloseNoThrow();
    Object::DoDispose();
}

void
ResultsDatabase::Open(const std::string& path)
{
    NS_LOG_FUNCTION(this << path);
    if (m_db != nullptr)
    {
        throw std::runtime_error("ResultsDatabase: cannot open '" + path + "': '" + m_path +
                                 "' is already open");
    }
    sqlite3* db = nullptr;
    const int rc =
        sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK)
    {
        const std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close_v2(db);
        throw std::runtime_error("ResultsDatabase: cannot open '" + path + "': " + message);
    }
    m_db = db;
    m_path = path;
    try
    {
        const int64_t ms = std::clamp<int64_t>(m_busyTimeout.GetMilliSeconds(), 0, INT_MAX);
        sqlite3_busy_timeout(m_db, static_cast<int>(ms));
        RequireResultsFile(*this);
        if (m_useWal)
        {
            SetWalMode();
            // Safe with WAL: a crash of the process loses no committed transaction.
            Exec("PRAGMA synchronous = NORMAL");
        }
        CreateOrMigrateResultsSchema(*this);
        Exec("PRAGMA foreign_keys = ON");
        m_lastWrite = std::chrono::steady_clock::now();
    }
    catch (...)
    {
        m_statements.clear();
        m_statementIds.clear();
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw;
    }
}

void
ResultsDatabase::SetWalMode()
{
    // Switching a new file to WAL needs an exclusive lock, and SQLite answers
    // SQLITE_BUSY at once, without its busy handler, when processes opening
    // the same new file collide here; so wait out the busy timeout ourselves.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(m_busyTimeout.GetMilliSeconds());
    while (true)
    {
        std::string mode;
        char* error = nullptr;
        const int rc = sqlite3_exec(
            m_db,
            "PRAGMA journal_mode = WAL",
            [](void* out, int, char** values, char**) {
                *static_cast<std::string*>(out) = values[0] != nullptr ? values[0] : "";
                return 0;
            },
            &mode,
            &error);
        const std::string message = error != nullptr ? error : sqlite3_errmsg(m_db);
        sqlite3_free(error);
        if (rc == SQLITE_OK)
        {
            if (mode != "wal") // e.g. "memory" for an in-memory database
            {
                NS_LOG_WARN("journal mode of " << m_path << " is " << mode);
            }
            return;
        }
        if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline)
        {
            throw std::runtime_error(Where(m_path) + "PRAGMA journal_mode = WAL: " + message);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

bool
ResultsDatabase::IsOpen() const
{
    return m_db != nullptr;
}

const std::string&
ResultsDatabase::GetPath() const
{
    return m_path;
}

void
ResultsDatabase::Close()
{
    NS_LOG_FUNCTION(this);
    if (m_db == nullptr)
    {
        return;
    }
    if (m_txDepth > 0)
    {
        throw std::runtime_error(Where(m_path) + "Close() inside Transaction()");
    }
    std::exception_ptr error;
    try
    {
        Flush();
    }
    catch (...)
    {
        error = std::current_exception();
    }
    m_statements.clear();
    m_statementIds.clear();
    // _v2: statements handed out by Prepare() may still be alive; the file closes after them.
    sqlite3_close_v2(m_db);
    m_db = nullptr;
    m_pending.clear();
    m_pendingWritten = 0;
    m_openRuns.clear();
    if (error)
    {
        std::rethrow_exception(error);
    }
}

void
ResultsDatabase::CloseNoThrow()
{
    try
    {
        Close();
    }
    catch (const std::exception& e)
    {
        NS_LOG_WARN("closing " << m_path << ": " << e.what());
        if (m_db != nullptr) // Close() refused inside a transaction; closing rolls it back
        {
            m_statements.clear();
            m_statementIds.clear();
            sqlite3_close_v2(m_db);
            m_db = nullptr;
        }
    }
}

void
ResultsDatabase::RequireOpen() const
{
    if (m_db == nullptr)
    {
        throw std::runtime_error("ResultsDatabase: no file is open");
    }
}

void
ResultsDatabase::RequireOpenRun(int64_t runId, const char* what) const
{
    RequireOpen();
    if (m_openRuns.count(runId) == 0)
    {
        throw std::runtime_error(Where(m_path) + what + ": run " + std::to_string(runId) +
                                 " was not begun here or is already finished");
    }
}

void
ResultsDatabase::Exec(const std::string& sql)
{
    RequireOpen();
    char* error = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK)
    {
        const std::string message = error != nullptr ? error : sqlite3_errmsg(m_db);
        sqlite3_free(error);
        throw std::runtime_error(Where(m_path) + "exec (" + sql + "): " + message);
    }
}

ResultsDatabase::Statement
ResultsDatabase::Prepare(const std::string& sql)
{
    RequireOpen();
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, &tail) != SQLITE_OK)
    {
        throw std::runtime_error(Where(m_path) + "prepare (" + sql + "): " + sqlite3_errmsg(m_db));
    }
    Statement statement(stmt, m_path);
    if (stmt == nullptr || tail == nullptr ||
        std::string(tail).find_first_not_of(" \t\r\n;") != std::string::npos)
    {
        throw std::runtime_error(Where(m_path) + "prepare (" + sql +
                                 "): expected exactly one statement");
    }
    return statement;
}

int64_t
ResultsDatabase::GetLastInsertRowId() const
{
    RequireOpen();
    return sqlite3_last_insert_rowid(m_db);
}

void
ResultsDatabase::BeginImmediate()
{
    // The busy handler waits for a lock held by another writer, but some
    // states answer SQLITE_BUSY at once (e.g. another process recovering the
    // write-ahead log): retry those until the busy timeout.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(m_busyTimeout.GetMilliSeconds());
    while (true)
    {
        const int rc = sqlite3_exec(m_db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
        if (rc == SQLITE_OK)
        {
            return;
        }
        if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline)
        {
            throw std::runtime_error(Where(m_path) + "BEGIN IMMEDIATE: " + sqlite3_errmsg(m_db));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

void
ResultsDatabase::Transaction(const std::function<void()>& body)
{
    RequireOpen();
    const bool outermost = m_txDepth == 0;
    if (outermost && sqlite3_get_autocommit(m_db) == 0)
    {
        // Our bookkeeping of written rows follows Transaction() only.
        throw std::runtime_error(
            Where(m_path) + "a transaction begun with Exec() is still open; use Transaction()");
    }
    const size_t written = m_pendingWritten;
    const size_t queued = m_pending.size();
    const std::set<int64_t> openRuns = m_openRuns;
    // IMMEDIATE takes the write lock up front, so a busy file is waited for
    // (busy timeout) rather than failing when a read turns into a write.
    if (outermost)
    {
        BeginImmediate();
    }
    else
    {
        Exec("SAVEPOINT results_tx");
    }
    ++m_txDepth;
    try
    {
        body();
        Exec(outermost ? "COMMIT" : "RELEASE results_tx");
    }
    catch (...)
    {
        --m_txDepth;
        // Best effort: SQLite may already have rolled back (e.g. disk full).
        sqlite3_exec(m_db,
                     outermost ? "ROLLBACK" : "ROLLBACK TO results_tx; RELEASE results_tx",
                     nullptr,
                     nullptr,
                     nullptr);
        // Rows queued before stay pending; those queued inside belonged to
        // the body and go with it.
        m_pendingWritten = std::min(written, queued);
        m_pending.resize(std::min(m_pending.size(), queued));
        m_openRuns = openRuns;
        throw;
    }
    --m_txDepth;
    if (outermost)
    {
        m_pending.erase(m_pending.begin(), m_pending.begin() + m_pendingWritten);
        m_pendingWritten = 0;
        m_lastWrite = std::chrono::steady_clock::now();
    }
}

int64_t
ResultsDatabase::BeginRun(const std::string& example,
                          const std::string& scheduler,
                          uint64_t seed,
                          const std::string& paramsJson)
{
    NS_LOG_FUNCTION(this << example << scheduler << seed);
    RequireOpen();
    Statement insert =
        Prepare(std::string("INSERT INTO runs (example, scheduler, seed, params_json, status,"
                            " started_at, pid, host) VALUES (?1, ?2, ?3, ?4, 'running', ") +
                kNow + ", ?5, ?6)");
    BindRunFields(insert, example, scheduler, seed, paramsJson).Step();
    const int64_t runId = sqlite3_last_insert_rowid(m_db);
    m_openRuns.insert(runId);
    return runId;
}

ResultsDatabase::Statement&
ResultsDatabase::BindRunFields(Statement& statement,
                               const std::string& example,
                               const std::string& scheduler,
                               uint64_t seed,
                               const std::string& paramsJson)
{
    return statement.BindText(1, example)
        .BindText(2, scheduler)
        .BindInt64(3, ToInt64(seed, "run of " + example, "seed"))
        .BindText(4, paramsJson)
        .BindInt64(5, static_cast<int64_t>(getpid()))
        .BindText(6, HostName());
}

std::vector<int64_t>
ResultsDatabase::ReserveRuns(const std::string& example,
                             const std::string& scheduler,
                             uint64_t seed,
                             size_t count)
{
    NS_LOG_FUNCTION(this << example << scheduler << seed << count);
    std::vector<int64_t> ids;
    Transaction([&]() {
        for (size_t i = 0; i < count; ++i)
        {
            ids.push_back(BeginRun(example, scheduler, seed, "{}"));
            m_openRuns.erase(ids.back()); // begun by whoever makes it
        }
    });
    return ids;
}

void
ResultsDatabase::BeginReservedRun(int64_t runId,
                                  const std::string& example,
                                  const std::string& scheduler,
                                  uint64_t seed,
                                  const std::string& paramsJson)
{
    NS_LOG_FUNCTION(this << runId << example << scheduler << seed);
    RequireOpen();
    Statement update =
        Prepare(std::string("UPDATE runs SET example = ?1, scheduler = ?2, seed = ?3, "
                            "params_json = ?4, started_at = ") +
                kNow + ", pid = ?5, host = ?6 WHERE run_id = ?7 AND status = 'running'");
    BindRunFields(update, example, scheduler, seed, paramsJson).BindInt64(7, runId).Step();
    if (sqlite3_changes(m_db) != 1)
    {
        throw std::runtime_error(Where(m_path) + "BeginReservedRun: run " + std::to_string(runId) +
                                 " is not a reserved run still 'running'");
    }
    m_openRuns.insert(runId);
}

void
ResultsDatabase::SetRunParameters(int64_t runId, const std::string& paramsJson)
{
    NS_LOG_FUNCTION(this << runId);
    RequireOpen();
    Statement update =
        Prepare("UPDATE runs SET params_json = ?1 WHERE run_id = ?2 AND status = 'running'");
    update.BindText(1, paramsJson).BindInt64(2, runId).Step();
    if (sqlite3_changes(m_db) != 1 || m_openRuns.count(runId) == 0)
    {
        throw std::runtime_error(Where(m_path) + "SetRunParameters: run " + std::to_string(runId) +
                                 " is not a run begun here and still 'running'");
    }
}

size_t
ResultsDatabase::FailRunsStillRunning(const std::vector<int64_t>& runIds,
                                      const std::string& message)
{
    NS_LOG_FUNCTION(this << message);
    RequireOpen();
    size_t marked = 0;
    Transaction([&]() {
        Statement update =
            Prepare(std::string("UPDATE runs SET status = 'failed', finished_at = ") + kNow +
                    ", error = ?2 WHERE run_id = ?1 AND status = 'running'");
        for (int64_t id : runIds)
        {
            update.BindInt64(1, id).BindText(2, message);
            update.Step();
            marked += static_cast<size_t>(sqlite3_changes(m_db));
            update.Reset();
        }
    });
    for (int64_t id : runIds)
    {
        m_openRuns.erase(id);
    }
    return marked;
}

void
ResultsDatabase::AddFlow(const FlowRecord& flow)
{
    const std::string row =
        "flow " + std::to_string(flow.flowId) + " of run " + std::to_string(flow.runId);
    RequireOpenRun(flow.runId, "AddFlow");
    ToInt64(flow.flowId, row, "flow_id");
    ToInt64(flow.bytes, row, "bytes");
    ToInt64(flow.retransmittedBytes, row, "retransmitted_bytes");
    ToInt64(flow.lostBytesBuffer, row, "lost_bytes_buffer");
    ToInt64(flow.lostBytesError, row, "lost_bytes_error");
    ToInt64(flow.lostBytesLinkDown, row, "lost_bytes_link_down");
    CheckOptional(flow.jobId, row, "job_id");
    CheckOptional(flow.endNs, row, "end_ns");
    CheckOptional(flow.ackNs, row, "ack_ns");
    if (flow.startNs < 0 || (flow.endNs != -1 && flow.endNs < flow.startNs) ||
        (flow.ackNs != -1 && flow.ackNs < flow.startNs))
    {
        throw std::runtime_error("ResultsDatabase: " + row + ": start_ns " +
                                 std::to_string(flow.startNs) + " is negative or after end_ns " +
                                 std::to_string(flow.endNs) + " / ack_ns " +
                                 std::to_string(flow.ackNs));
    }
    Queue(kInsertFlow,
          {flow.runId,
           static_cast<int64_t>(flow.flowId),
           Optional(flow.jobId),
           static_cast<int64_t>(flow.srcNode),
           static_cast<int64_t>(flow.dstNode),
           static_cast<int64_t>(flow.bytes),
           flow.startNs,
           Optional(flow.endNs),
           Optional(flow.ackNs),
           static_cast<int64_t>(flow.retransmittedBytes),
           static_cast<int64_t>(flow.priority),
           static_cast<int64_t>(flow.srcPort),
           Optional(flow.iteration),
           Optional(flow.collective),
           Optional(flow.step),
           static_cast<int64_t>(flow.lostBytesBuffer),
           static_cast<int64_t>(flow.lostBytesError),
           static_cast<int64_t>(flow.lostBytesLinkDown)});
}

void
ResultsDatabase::AddLink(const LinkRecord& link)
{
    const std::string row =
        "link " + std::to_string(link.linkId) + " of run " + std::to_string(link.runId);
    RequireOpenRun(link.runId, "AddLink");
    ToInt64(link.rateBps, row, "rate_bps");
    ToInt64(link.txBytesAb, row, "tx_bytes_ab");
    ToInt64(link.txBytesBa, row, "tx_bytes_ba");
    ToInt64(link.drops, row, "drops");
    ToInt64(link.pfcPausesSent, row, "pfc_pauses_sent");
    ToInt64(link.ecnMarked, row, "ecn_marked");
    ToInt64(link.maxQueueBytes, row, "max_queue_bytes");
    ToInt64(link.lostBytesBuffer, row, "lost_bytes_buffer");
    ToInt64(link.lostBytesError, row, "lost_bytes_error");
    ToInt64(link.lostBytesLinkDown, row, "lost_bytes_link_down");
    ToInt64(link.pfcPausedNs, row, "pfc_paused_ns");
    if (link.delayNs < 0)
    {
        throw std::runtime_error("ResultsDatabase: " + row + ": delay_ns " +
                                 std::to_string(link.delayNs) + " is negative");
    }
    Queue(kInsertLink,
          {link.runId,
           static_cast<int64_t>(link.linkId),
           static_cast<int64_t>(link.nodeA),
           static_cast<int64_t>(link.nodeB),
           static_cast<int64_t>(link.rateBps),
           link.delayNs,
           static_cast<int64_t>(link.txBytesAb),
           static_cast<int64_t>(link.txBytesBa),
           static_cast<int64_t>(link.drops),
           static_cast<int64_t>(link.pfcPausesSent),
           static_cast<int64_t>(link.ecnMarked),
           static_cast<int64_t>(link.maxQueueBytes),
           static_cast<int64_t>(link.lostBytesBuffer),
           static_cast<int64_t>(link.lostBytesError),
           static_cast<int64_t>(link.lostBytesLinkDown),
           static_cast<int64_t>(link.pfcPausedNs)});
}

void
ResultsDatabase::AddRow(int64_t runId, const std::string& sql, std::vector<SqlValue> values)
{
    RequireOpenRun(runId, "AddRow");
    Queue(sql, std::move(values));
}

void
ResultsDatabase::Queue(const std::string& sql, std::vector<SqlValue> values)
{
    auto it = m_statementIds.find(sql);
    if (it == m_statementIds.end())
    {
        // Prepared once per file: an error in the statement shows at the first row.
        m_statements.push_back(Prepare(sql));
        it = m_statementIds.emplace(sql, m_statements.size() - 1).first;
    }
    m_pending.push_back({it->second, std::move(values)});
    MaybeFlush();
}

size_t
ResultsDatabase::GetPendingRows() const
{
    return m_pending.size();
}

void
ResultsDatabase::MaybeFlush()
{
    const size_t unwritten = m_pending.size() - m_pendingWritten;
    if (unwritten == 0)
    {
        return;
    }
    const bool byRows = m_flushThreshold > 0 && unwritten >= m_flushThreshold;
    const bool byTime = m_flushInterval.IsStrictlyPositive() &&
                        std::chrono::steady_clock::now() - m_lastWrite >=
                            std::chrono::nanoseconds(m_flushInterval.GetNanoSeconds());
    if (byRows || byTime)
    {
        Flush();
    }
}

void
ResultsDatabase::Flush()
{
    NS_LOG_FUNCTION(this);
    RequireOpen();
    if (m_pendingWritten == m_pending.size())
    {
        return;
    }
    Transaction([this]() { WritePending(); });
}

void
ResultsDatabase::WritePending()
{
    for (; m_pendingWritten < m_pending.size(); ++m_pendingWritten)
    {
        const PendingRow& row = m_pending[m_pendingWritten];
        Statement& s = m_statements[row.statement];
        for (size_t i = 0; i < row.values.size(); ++i)
        {
            const int index = static_cast<int>(i + 1);
            const SqlValue& v = row.values[i];
            if (const auto* n = std::get_if<int64_t>(&v))
            {
                s.BindInt64(index, *n);
            }
            else if (const auto* d = std::get_if<double>(&v))
            {
                s.BindDouble(index, *d);
            }
            else if (const auto* t = std::get_if<std::string>(&v))
            {
                s.BindText(index, *t);
            }
            else
            {
                s.BindNull(index);
            }
        }
        s.Step();
        s.Reset();
    }
}

void
ResultsDatabase::FinishRun(int64_t runId,
                           int64_t simEndNs,
                           double wallS,
                           uint64_t events,
                           uint64_t packetHops)
{
    NS_LOG_FUNCTION(this << runId << simEndNs << wallS << events << packetHops);
    RequireOpenRun(runId, "FinishRun");
    const std::string row = "run " + std::to_string(runId);
    const int64_t eventsValue = ToInt64(events, row, "events");
    const int64_t hopsValue = ToInt64(packetHops, row, "packet_hops");
    // Rows and status commit together: 'complete' implies every row is there.
    Transaction([&]() {
        WritePending();
        Statement update = Prepare(std::string("UPDATE runs SET status = 'complete', "
                                               "finished_at = ") +
                                   kNow +
                                   ", sim_end_ns = ?2, wall_s = ?3, events = ?4,"
                                   " packet_hops = ?5, error = NULL"
                                   " WHERE run_id = ?1 AND status = 'running'");
        update.BindInt64(1, runId)
            .BindInt64(2, simEndNs)
            .BindDouble(3, wallS)
            .BindInt64(4, eventsValue)
            .BindInt64(5, hopsValue);
        update.Step();
        if (sqlite3_changes(m_db) != 1)
        {
            throw std::runtime_error(Where(m_path) + "FinishRun: " + row +
                                     " is no longer 'running' in the file");
        }
        m_openRuns.erase(runId);
    });
}

void
ResultsDatabase::FailRun(int64_t runId, const std::string& message)
{
    NS_LOG_FUNCTION(this << runId << message);
    EndRun(runId, "failed", message, "FailRun");
}

void
ResultsDatabase::InterruptRun(int64_t runId, const std::string& message)
{
    NS_LOG_FUNCTION(this << runId << message);
    EndRun(runId, "interrupted", message, "InterruptRun");
}

void
ResultsDatabase::EndRun(int64_t runId,
                        const std::string& status,
                        const std::string& message,
                        const char* what)
{
    RequireOpenRun(runId, what);
    std::string error = message;
    Transaction([&]() {
        // The status must be recorded even if the pending rows cannot be
        // (the error that ended the run may be theirs): they are dropped, and
        // the message says so.
        try
        {
            Transaction([this]() { WritePending(); });
        }
        catch (const std::exception& e)
        {
            error += " (and " + std::to_string(m_pending.size() - m_pendingWritten) +
                     " pending rows could not be written: " + e.what() + ")";
            m_pending.erase(m_pending.begin() + m_pendingWritten, m_pending.end());
        }
        Statement update = Prepare(std::string("UPDATE runs SET status = ?3, finished_at = ") +
                                   kNow + ", error = ?2 WHERE run_id = ?1 AND status = 'running'");
        update.BindInt64(1, runId).BindText(2, error).BindText(3, status);
        update.Step();
        if (sqlite3_changes(m_db) != 1)
        {
            throw std::runtime_error(Where(m_path) + what + ": run " + std::to_string(runId) +
                                     " is no longer 'running' in the file");
        }
        m_openRuns.erase(runId);
    });
}

} // namespace ns3
