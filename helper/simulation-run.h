/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SIMULATION_RUN_H
#define SIMULATION_RUN_H

#include "flow-network-records.h"
#include "roce-flow-monitor.h"
#include "run-records.h"

#include "ns3/results-database.h"
#include "ns3/run-interruption.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Book-keeping of one example run: a 'running' row in the results
 * database from the start, rows streamed as the run goes (StreamFlows, and
 * the caller's through the database), the rest at the end with the run
 * marked 'complete' in the same transaction (or 'failed'), and the speed
 * figures (events, packet-hops, wall time, peak memory).
 *
 * A SIGINT or SIGTERM stops the simulation (InstallInterruptHandlers); the
 * example then calls EndIfInterrupted, which writes what the run has and
 * marks it 'interrupted'. Finish and Fail do the same once a signal came.
 */
class SimulationRun
{
  public:
    /**
     * \param dbPath SQLite file; empty for no database
     * \param paramsJson the run's parameters as a JSON object
     * \param reservedRunId a run of \p dbPath reserved for this one
     *        (ResultsDatabase::ReserveRuns), or -1 for a new run
     */
    SimulationRun(const std::string& example,
                  const std::string& scheduler,
                  uint64_t seed,
                  const std::string& paramsJson,
                  const std::string& dbPath,
                  int64_t reservedRunId = -1);

    ~SimulationRun();

    /**
     * The fabric is built: stop here if a SIGINT or SIGTERM came while
     * building (the run is marked 'interrupted' and RunInterruptedError
     * thrown), record \p paramsJson as the run's parameters unless it is
     * empty, and start the speed figures (events, packet-hops, wall time)
     * from now, so that they measure the simulation alone. A run is made
     * before its fabric is built, so that whatever stops the build, a bad
     * input or a signal, is recorded against it.
     */
    void Built(const std::string& paramsJson = "");
    SimulationRun(const SimulationRun&) = delete;
    SimulationRun& operator=(const SimulationRun&) = delete;

    /**
     * Write each flow of \p monitor as it completes (if there is a database,
     * \p flowRows, and the run is in one process); Finish and Fail then
     * write only the others.
     */
    void StreamFlows(RoceFlowMonitor& monitor, bool flowRows = true);

    /// As above, for a run at the flow level: each message as it is delivered.
    void StreamFlows(FlowNetworkRecords& records, bool flowRows = true);

    /**
     * If a SIGINT or SIGTERM came: write the rows of \p monitor and \p extra
     * as Fail does, mark the run 'interrupted' and throw RunInterruptedError.
     * Call it right after Simulator::Run().
     */
    /// Writes more rows of a run (database, run id) in the run's last transaction.
    using RowWriter = std::function<void(ResultsDatabase&, int64_t)>;

    void EndIfInterrupted(const RunRecords& monitor,
                          bool flowRows = true,
                          const std::function<void(ResultsDatabase&, int64_t)>& extra = nullptr);

    /**
     * Write the rows of \p extra and mark a run without a fabric (no flows,
     * links or simulated time) complete, in one transaction.
     */
    void FinishWithoutFabric(const std::function<void(ResultsDatabase&, int64_t)>& extra);

    /**
     * Record the results of \p monitor (flow rows only if \p flowRows), mark
     * the run complete and print
     * one machine-readable line:
     * `PERF name=... packet_hops=N events=N wall_s=X sim_s=X peak_rss_kb=N data_hops=N
     * ack_hops=N link_bytes=N` (ack_hops: ACK, NAK, CNP and PFC frames).
     */
    void Finish(const RunRecords& monitor, bool flowRows = true);

    /**
     * The workload's last event (a job's end), when it may come after the
     * network's last activity: an iteration that ends in compute. The run's
     * end (runs.sim_end_ns, PERF sim_s) is the later of the two.
     */
    void SetWorkloadEnd(Time end)
    {
        m_workloadEnd = std::max(m_workloadEnd, end);
    }

    /**
     * As above, and write more rows with \p extra (database, run id) in the
     * same transaction, so the run is complete only with all of them.
     */
    void Finish(const RunRecords& monitor,
                bool flowRows,
                const std::function<void(ResultsDatabase&, int64_t)>& extra);
    /**
     * Record what a run did before it failed, the rows of \p monitor (flow
     * rows only if \p flowRows) and of \p extra, and mark it failed with
     * \p message, in one transaction. Prints no PERF line.
     */
    void Fail(const std::string& message,
              const RunRecords& monitor,
              bool flowRows,
              const std::function<void(ResultsDatabase&, int64_t)>& extra);
    /// Mark the run failed (or interrupted, after a signal) with \p message, unless it has ended.
    void Fail(const std::string& message);

    int64_t GetRunId() const
    {
        return m_runId;
    }

    Ptr<ResultsDatabase> GetDatabase() const
    {
        return m_db;
    }

    /// Peak resident memory of this process, in KiB.
    static uint64_t PeakRssKb();

  private:
    /// Speed figures count from now.
    void StartClocks();

    /// The run's rows (the caller's, flows unless \p flowRows is false, links), in its transaction.
    void WriteRows(const RunRecords& monitor,
                   bool flowRows,
                   const std::function<void(ResultsDatabase&, int64_t)>& extra);

    std::string m_example;
    Ptr<ResultsDatabase> m_db;
    int64_t m_runId{-1};
    bool m_ended{false}; ///< marked complete or failed in the database
    uint64_t m_hopsAtStart{0};
    uint64_t m_dataHopsAtStart{0};
    uint64_t m_linkBytesAtStart{0};
    uint64_t m_eventsAtStart{0};
    std::chrono::steady_clock::time_point m_wallStart;
    Time m_workloadEnd{0};                                    ///< SetWorkloadEnd
    std::unique_ptr<InterruptibleSimulation> m_interruptible; ///< a signal stops this run
};

/**
 * \ingroup collective-scheduling
 * \brief A run that ended with work left undone (flows or jobs unfinished
 * at the stop time): the example exits with code 1, not 2.
 */
class IncompleteRunError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/**
 * The body of an example's main(). Runs \p body with an empty run slot that
 * the body fills once its flags are valid. Any exception is reported as
 * "<name>: error: <what>" on stderr and marks the run failed if one was
 * begun; the exit code is 1 for IncompleteRunError, 128 + the signal number
 * after a SIGINT or SIGTERM (the run is marked interrupted), 2 for anything
 * else (bad flags, bad input files), 0 on success. Destroys the simulator.
 * With \p distributed, the example may be launched on several MPI ranks
 * (EnableDistributedSimulation); otherwise that is refused.
 */
int RunExampleMain(const std::string& name,
                   const std::function<void(std::unique_ptr<SimulationRun>& run)>& body,
                   bool distributed = false);

/// RunExampleMain for an example that may run on several MPI ranks.
int RunMpiExampleMain(const std::string& name,
                      const std::function<void(std::unique_ptr<SimulationRun>& run)>& body);

} // namespace ns3

#endif /* SIMULATION_RUN_H */
