/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RESULTS_DATABASE_H
#define RESULTS_DATABASE_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace ns3
{

/// A value of a buffered row (ResultsDatabase::AddRow): NULL, integer, real or text.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;

/**
 * \ingroup collective-scheduling
 * \brief One row of the `flows` table: a message sent by one queue pair.
 *
 * Times are simulation nanoseconds. A value of -1 in jobId, endNs or ackNs
 * is stored as NULL (not part of a job, never delivered, never acknowledged).
 */
struct FlowRecord
{
    int64_t runId{0};               ///< run, as returned by ResultsDatabase::BeginRun
    uint64_t flowId{0};             ///< flow id within the run
    int64_t jobId{-1};              ///< training job, or -1 for traffic outside any job
    uint32_t srcNode{0};            ///< sending node id
    uint32_t dstNode{0};            ///< receiving node id
    uint64_t bytes{0};              ///< payload bytes of the message
    int64_t startNs{0};             ///< the message was posted to the sender
    int64_t endNs{-1};              ///< its last byte was delivered at the receiver
    int64_t ackNs{-1};              ///< the sender saw the final ACK
    uint64_t retransmittedBytes{0}; ///< payload bytes sent more than once
    uint32_t priority{0};           ///< priority class the flow was sent in
    uint16_t srcPort{0};            ///< UDP source port (the ECMP entropy)
    int64_t iteration{-1};          ///< job iteration the message belongs to, -1 for none
    int64_t collective{-1};         ///< collective (bucket) within the iteration, -1 for none
    int64_t step{-1};               ///< step of the collective, -1 for none
    /// Frame bytes of the flow's data frames lost, by cause: refused by a
    /// switch buffer, dropped by an error model, sent over a link that was down.
    uint64_t lostBytesBuffer{0};
    uint64_t lostBytesError{0};
    uint64_t lostBytesLinkDown{0};
};

/**
 * \ingroup collective-scheduling
 * \brief One row of the `links` table: a full-duplex link between two nodes,
 * with counters over the whole run.
 *
 * "ab" is the direction from nodeA to nodeB; drops, pauses, marks and the
 * queue maximum cover both directions.
 */
struct LinkRecord
{
    int64_t runId{0};          ///< run, as returned by ResultsDatabase::BeginRun
    uint32_t linkId{0};        ///< link id within the run
    uint32_t nodeA{0};         ///< node at one end
    uint32_t nodeB{0};         ///< node at the other end
    uint64_t rateBps{0};       ///< line rate, bit/s
    int64_t delayNs{0};        ///< propagation delay
    uint64_t txBytesAb{0};     ///< bytes sent from nodeA to nodeB
    uint64_t txBytesBa{0};     ///< bytes sent from nodeB to nodeA
    uint64_t drops{0};         ///< packets dropped at either egress queue
    uint64_t pfcPausesSent{0}; ///< PFC PAUSE frames sent over the link
    uint64_t ecnMarked{0};     ///< packets ECN-marked at either egress queue
    uint64_t maxQueueBytes{0}; ///< largest egress queue seen at either end
    /// Frame bytes lost on the link (both directions, every kind of frame),
    /// by cause: switch buffer (charged to the ingress port), error model,
    /// link down.
    uint64_t lostBytesBuffer{0};
    uint64_t lostBytesError{0};
    uint64_t lostBytesLinkDown{0};
    /// Time the link's ports were held by PFC, summed over both ends and
    /// their classes (RoceNetDevice::GetPausedTime).
    uint64_t pfcPausedNs{0};
};

/**
 * \ingroup collective-scheduling
 * \brief Records runs and their results in an SQLite file.
 *
 * One file holds many runs, possibly written by several processes at once
 * (write-ahead logging, a busy timeout and retries let them take turns).
 * Open() creates every table of the current schema, or migrates an older
 * file forward (doc/results-schema.md lists the versions). A run is inserted
 * as 'running' with its process id and host by BeginRun(); FinishRun() marks
 * it 'complete' in the transaction that writes its last rows, FailRun()
 * 'failed' and InterruptRun() 'interrupted'. A run whose process died stays
 * 'running' (the tools that read the file call it abandoned), with the rows
 * written so far, and is never mistaken for a complete one.
 *
 * Rows (AddFlow, AddLink, AddRow) are buffered and written in order, in one
 * transaction with prepared statements, when FlushThreshold rows are pending,
 * when one has waited FlushInterval (wall clock) as the next is added, and on
 * Flush(), FinishRun(), FailRun(), InterruptRun() and Close(). Rows stay
 * buffered until the transaction that wrote them commits, so a rolled-back
 * write loses nothing. Statements name their columns, so a file with more
 * columns than this build knows (added by a merge) still takes its rows.
 *
 * Wrap writes and FinishRun() in Transaction() to make them atomic with the
 * run's status.
 *
 * Every error throws std::runtime_error naming the file and SQLite's message.
 */
class ResultsDatabase : public Object
{
  public:
    /**
     * \brief A prepared SQL statement (move-only). Parameters are numbered
     * from 1 as in SQL ("?1" or "?"), result columns from 0.
     *
     * A statement may outlive Close(); the file is released when the last
     * statement is destroyed.
     */
    class Statement
    {
      public:
        Statement() = default;
        ~Statement();
        Statement(Statement&& other) noexcept;
        Statement& operator=(Statement&& other) noexcept;
        Statement(const Statement&) = delete;
        Statement& operator=(const Statement&) = delete;

        /// \return whether the statement holds a prepared statement
        bool IsValid() const;

        Statement& BindInt64(int index, int64_t value);           ///< bind an integer
        Statement& BindDouble(int index, double value);           ///< bind a real
        Statement& BindText(int index, const std::string& value); ///< bind a text
        Statement& BindNull(int index);                           ///< bind NULL

        /**
         * Run the statement to its next result row.
         * \return true if a row is ready to read, false when done
         */
        bool Step();

        /// Rewind the statement and clear its bindings, to run it again.
        void Reset();

        int ColumnCount() const;               ///< \return number of result columns
        bool IsNull(int column) const;         ///< \return whether a column is NULL
        int64_t GetInt64(int column) const;    ///< \return a column as integer
        double GetDouble(int column) const;    ///< \return a column as real
        std::string GetText(int column) const; ///< \return a column as text ("" if NULL)

      private:
        friend class ResultsDatabase;
        Statement(sqlite3_stmt* stmt, std::string path);

        /// Throw for SQLite status `rc` if it is not SQLITE_OK.
        void Check(int rc, const char* what) const;

        sqlite3_stmt* m_stmt{nullptr}; ///< prepared statement, owned
        std::string m_path;            ///< database file, for error messages
    };

    static TypeId GetTypeId();

    /// \return the schema version this build creates and migrates to
    static int64_t GetSchemaVersion();

    ResultsDatabase();
    ~ResultsDatabase() override;

    /**
     * Open or create the database file, create every table missing and
     * migrate a file of an earlier schema version to the current one.
     * \param path file name; its directory must exist
     */
    void Open(const std::string& path);

    /// \return whether a file is open
    bool IsOpen() const;

    /// \return the path given to Open()
    const std::string& GetPath() const;

    /**
     * Write pending rows and close the file. Runs not finished stay
     * 'running'. Does nothing if not open.
     */
    void Close();

    /**
     * Insert a run with status 'running'.
     * \param example name of the example or scenario
     * \param scheduler name of the collective scheduler
     * \param seed random seed of the run
     * \param paramsJson the run's parameters as a JSON object
     * \return the new run_id
     */
    int64_t BeginRun(const std::string& example,
                     const std::string& scheduler,
                     uint64_t seed,
                     const std::string& paramsJson);

    /**
     * Insert \p count runs with status 'running', for runs that other
     * processes will make (each begins its own with BeginReservedRun), so
     * that runs made side by side keep the run_ids of the order they were
     * planned in.
     * \param example name of the example or scenario
     * \param scheduler name of the collective scheduler
     * \param seed random seed of the runs
     * \param count how many
     * \return the new run_ids, ascending
     */
    std::vector<int64_t> ReserveRuns(const std::string& example,
                                     const std::string& scheduler,
                                     uint64_t seed,
                                     size_t count);

    /**
     * Begin run \p runId, reserved by ReserveRuns here or in another
     * process and still 'running', as BeginRun begins a new one.
     * \throw std::runtime_error if \p runId is no such run
     */
    void BeginReservedRun(int64_t runId,
                          const std::string& example,
                          const std::string& scheduler,
                          uint64_t seed,
                          const std::string& paramsJson);

    /**
     * Replace the parameters of run \p runId, begun here and still
     * 'running': a run is begun before its fabric is built, so that a
     * failure or a signal while building is recorded against it, and
     * completes its parameters once the fabric exists.
     * \throw std::runtime_error if \p runId is no such run
     */
    void SetRunParameters(int64_t runId, const std::string& paramsJson);

    /**
     * Mark each run of \p runIds that is still 'running', in whichever
     * process it was begun, 'failed' with \p message: for reserved runs
     * that were never made, or whose process died.
     * \return how many runs it marked
     */
    size_t FailRunsStillRunning(const std::vector<int64_t>& runIds, const std::string& message);

    /// Buffer a flow row; its run must be begun here and not finished.
    void AddFlow(const FlowRecord& flow);

    /// Buffer a link row; its run must be begun here and not finished.
    void AddLink(const LinkRecord& link);

    /**
     * Buffer a row for \p sql, a statement that names its columns (an INSERT
     * or an upsert), with \p values bound to ?1, ?2, ... Written with the
     * flow and link rows, in the order added.
     * \param runId the run the row belongs to; begun here and not finished
     */
    void AddRow(int64_t runId, const std::string& sql, std::vector<SqlValue> values);

    /// Write all pending rows in one transaction.
    void Flush();

    /// \return rows buffered and not yet committed
    size_t GetPendingRows() const;

    /**
     * Write all pending rows and mark the run 'complete', in one transaction.
     * \param runId run from BeginRun()
     * \param simEndNs simulation time at the end of the run
     * \param wallS wall-clock seconds the run took
     * \param events simulator events executed
     * \param packetHops packets forwarded over links
     */
    void FinishRun(int64_t runId,
                   int64_t simEndNs,
                   double wallS,
                   uint64_t events,
                   uint64_t packetHops);

    /**
     * Write all pending rows and mark the run 'failed' with a message.
     * \param runId run from BeginRun()
     * \param message what went wrong
     */
    void FailRun(int64_t runId, const std::string& message);

    /**
     * Write all pending rows and mark the run 'interrupted' (a signal stopped
     * it) with a message, in one transaction.
     * \param runId run from BeginRun()
     * \param message what stopped it
     */
    void InterruptRun(int64_t runId, const std::string& message);

    /// Execute one or more SQL statements that return no rows.
    void Exec(const std::string& sql);

    /// \return a prepared statement for sql (one statement)
    Statement Prepare(const std::string& sql);

    /// \return the rowid of the last row this connection inserted
    int64_t GetLastInsertRowId() const;

    /**
     * Run body inside a transaction: committed if body returns, rolled back
     * (and the exception rethrown) if it throws. Nested calls become
     * savepoints of the enclosing transaction.
     */
    void Transaction(const std::function<void()>& body);

  protected:
    void DoDispose() override;

  private:
    /// A buffered row: which cached statement, and its values.
    struct PendingRow
    {
        size_t statement;
        std::vector<SqlValue> values;
    };

    /// Throw unless a file is open.
    void RequireOpen() const;

    /// Throw unless runId was begun here and is not yet finished.
    void RequireOpenRun(int64_t runId, const char* what) const;

    /// "ResultsDatabase '<path>': ", the start of every error message about \p path.
    static std::string Where(const std::string& path);

    /// Bind a run's example, scheduler, seed, parameters, pid and host to ?1-?6 of \p statement.
    static Statement& BindRunFields(Statement& statement,
                                    const std::string& example,
                                    const std::string& scheduler,
                                    uint64_t seed,
                                    const std::string& paramsJson);

    /// Buffer a row for \p sql (prepared once and cached).
    void Queue(const std::string& sql, std::vector<SqlValue> values);

    /// Insert the pending rows not yet written in the current transaction.
    void WritePending();

    /// Switch the open file to write-ahead logging, waiting out other processes.
    void SetWalMode();

    /// BEGIN IMMEDIATE, retried while the file answers busy, up to the busy timeout.
    void BeginImmediate();

    /// Write pending rows and set the run's final status and message.
    void EndRun(int64_t runId,
                const std::string& status,
                const std::string& message,
                const char* what);

    /// Write pending rows if FlushThreshold of them are waiting or the oldest waited FlushInterval.
    void MaybeFlush();

    /// Close without throwing (destructor, DoDispose).
    void CloseNoThrow();

    Time m_busyTimeout;        ///< wait for a locked file before failing
    uint32_t m_flushThreshold; ///< pending rows that trigger a write
    Time m_flushInterval;      ///< wall time after which pending rows are written
    bool m_useWal;             ///< write-ahead logging

    sqlite3* m_db{nullptr};                                 ///< connection, owned
    std::string m_path;                                     ///< file name given to Open()
    std::vector<Statement> m_statements;                    ///< cached row statements
    std::unordered_map<std::string, size_t> m_statementIds; ///< SQL text -> m_statements index
    std::vector<PendingRow> m_pending;                      ///< buffered rows, in order
    size_t m_pendingWritten{0};   ///< leading m_pending rows written in the open transaction
    std::set<int64_t> m_openRuns; ///< runs begun here and not yet finished or failed
    int m_txDepth{0};             ///< nesting depth of Transaction()
    std::chrono::steady_clock::time_point m_lastWrite; ///< last commit of buffered rows
};

} // namespace ns3

#endif /* RESULTS_DATABASE_H */
