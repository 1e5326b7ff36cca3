/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "simulation-run.h"

#include "ns3/distributed-simulation.h"
#include "ns3/simulator.h"

#include <iomanip>
#include <iostream>
#include <new>
#include <sys/resource.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace ns3
{

SimulationRun::SimulationRun(const std::string& example,
                             const std::string& scheduler,
                             uint64_t seed,
                             const std::string& paramsJson,
                             const std::string& dbPath,
                             int64_t reservedRunId)
    : m_example(example)
{
    StartClocks();
    InstallInterruptHandlers();
    if (InterruptSignal() != 0)
    {
        throw RunInterruptedError(InterruptSignal());
    }
    m_interruptible = std::make_unique<InterruptibleSimulation>();
    // In a distributed run rank 0 writes the database (see Finish).
    if (!dbPath.empty() && DistributedRank() == 0)
    {
        m_db = CreateObject<ResultsDatabase>();
        m_db->Open(dbPath);
        if (reservedRunId >= 0)
        {
            m_db->BeginReservedRun(reservedRunId, example, scheduler, seed, paramsJson);
            m_runId = reservedRunId;
        }
        else
        {
            m_runId = m_db->BeginRun(example, scheduler, seed, paramsJson);
        }
    }
}

SimulationRun::~SimulationRun() = default;

void
SimulationRun::Built(const std::string& paramsJson)
{
    if (InterruptSignal() != 0)
    {
        Fail(RunInterruptedError(InterruptSignal()).what());
        throw RunInterruptedError(InterruptSignal());
    }
    if (m_db && !paramsJson.empty())
    {
        m_db->SetRunParameters(m_runId, paramsJson);
    }
    StartClocks();
}

void
SimulationRun::StartClocks()
{
    m_hopsAtStart = RoceChannel::GetTotalPacketHops();
    m_dataHopsAtStart = RoceChannel::GetTotalDataHops();
    m_linkBytesAtStart = RoceChannel::GetTotalLinkBytes();
    m_eventsAtStart = Simulator::GetEventCount();
    m_wallStart = std::chrono::steady_clock::now();
}

void
SimulationRun::StreamFlows(RoceFlowMonitor& monitor, bool flowRows)
{
    if (!m_db || !flowRows || DistributedSize() > 1)
    {
        return;
    }
    Ptr<ResultsDatabase> db = m_db;
    monitor.SetCompletedFlowSink(m_runId, [db](const FlowRecord& f) {
        if (db->IsOpen())
        {
            db->AddFlow(f);
        }
    });
}

void
SimulationRun::StreamFlows(FlowNetworkRecords& records, bool flowRows)
{
    if (!m_db || !flowRows || DistributedSize() > 1)
    {
        return;
    }
    Ptr<ResultsDatabase> db = m_db;
    records.SetCompletedFlowSink(m_runId, [db](const FlowRecord& f) {
        if (db->IsOpen())
        {
            db->AddFlow(f);
        }
    });
}

void
SimulationRun::EndIfInterrupted(const RunRecords& monitor,
                                bool flowRows,
                                const std::function<void(ResultsDatabase&, int64_t)>& extra)
{
    const int signal = InterruptSignal();
    if (signal == 0)
    {
        return;
    }
    if (m_db && !m_ended)
    {
        m_db->Transaction([&]() {
            WriteRows(monitor, flowRows, extra);
            m_db->InterruptRun(m_runId, RunInterruptedError(signal).what());
        });
        m_ended = true;
    }
    throw RunInterruptedError(signal);
}

void
SimulationRun::FinishWithoutFabric(const std::function<void(ResultsDatabase&, int64_t)>& extra)
{
    if (InterruptSignal() != 0)
    {
        throw RunInterruptedError(InterruptSignal());
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
    if (m_db)
    {
        m_db->Transaction([&]() {
            if (extra)
            {
                extra(*m_db, m_runId);
            }
            m_db->FinishRun(m_runId, 0, wall, 0, 0);
        });
        m_ended = true;
        std::cout << "results:          run " << m_runId << " in " << m_db->GetPath() << "\n";
    }
}

uint64_t
SimulationRun::PeakRssKb()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<uint64_t>(usage.ru_maxrss);
}

void
SimulationRun::Finish(const RunRecords& monitor, bool flowRows)
{
    Finish(monitor, flowRows, nullptr);
}

void
SimulationRun::Finish(const RunRecords& monitor,
                      bool flowRows,
                      const std::function<void(ResultsDatabase&, int64_t)>& extra)
{
    EndIfInterrupted(monitor, flowRows, extra);
    // Totals over all ranks of a distributed run (each counts its own nodes'
    // events and the frames it sent); its wall time is the slowest rank's.
    const double wall = AllReduce(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::steady_clock::now() - m_wallStart)
                                      .count(),
                                  ReduceOp::Max) *
                        1e-9;
    const uint64_t hops =
        AllReduce(RoceChannel::GetTotalPacketHops() - m_hopsAtStart, ReduceOp::Sum);
    const uint64_t dataHops =
        AllReduce(RoceChannel::GetTotalDataHops() - m_dataHopsAtStart, ReduceOp::Sum);
    const uint64_t linkBytes =
        AllReduce(RoceChannel::GetTotalLinkBytes() - m_linkBytesAtStart, ReduceOp::Sum);
    const uint64_t events = AllReduce(Simulator::GetEventCount() - m_eventsAtStart, ReduceOp::Sum);
    // The last activity, not the stop time a run may have been given: the
    // network's, or a job's end after compute.
    const Time simEnd = std::max(monitor.GetLastActivity(), m_workloadEnd);
    if (m_db)
    {
        m_db->Transaction([&]() {
            WriteRows(monitor, flowRows, extra);
            m_db->FinishRun(m_runId, simEnd.GetNanoSeconds(), wall, events, hops);
        });
        m_ended = true;
        std::cout << "results:          run " << m_runId << " in " << m_db->GetPath() << "\n";
    }
    if (DistributedRank() != 0)
    {
        return;
    }
    std::cout << std::defaultfloat << std::setprecision(6) << "PERF name=" << m_example
              << " packet_hops=" << hops << " events=" << events << " wall_s=" << wall
              << " sim_s=" << simEnd.GetSeconds() << " peak_rss_kb=" << PeakRssKb()
              << " data_hops=" << dataHops << " ack_hops=" << hops - dataHops
              << " link_bytes=" << linkBytes << std::endl;
}

void
SimulationRun::WriteRows(const RunRecords& monitor,
                         bool flowRows,
                         const std::function<void(ResultsDatabase&, int64_t)>& extra)
{
    if (extra)
    {
        extra(*m_db, m_runId);
    }
    if (flowRows)
    {
        for (const FlowRecord& f : monitor.GetFlowRecords(m_runId, false))
        {
            m_db->AddFlow(f);
        }
    }
    for (const LinkRecord& l : monitor.GetLinkRecords(m_runId))
    {
        m_db->AddLink(l);
    }
}

void
SimulationRun::Fail(const std::string& message,
                    const RunRecords& monitor,
                    bool flowRows,
                    const std::function<void(ResultsDatabase&, int64_t)>& extra)
{
    if (!m_db || m_ended)
    {
        return;
    }
    m_db->Transaction([&]() {
        WriteRows(monitor, flowRows, extra);
        if (InterruptSignal() != 0)
        {
            m_db->InterruptRun(m_runId, RunInterruptedError(InterruptSignal()).what());
        }
        else
        {
            m_db->FailRun(m_runId, message);
        }
    });
    m_ended = true;
}

void
SimulationRun::Fail(const std::string& message)
{
    if (m_db && !m_ended)
    {
        if (InterruptSignal() != 0)
        {
            m_db->InterruptRun(m_runId, RunInterruptedError(InterruptSignal()).what());
        }
        else
        {
            m_db->FailRun(m_runId, message);
        }
        m_ended = true;
    }
}

int
RunExampleMain(const std::string& name,
               const std::function<void(std::unique_ptr<SimulationRun>& run)>& body,
               bool distributed)
{
    std::unique_ptr<SimulationRun> run;
    int code = 0;
#ifdef __GLIBC__
    // The planners' CBC solves allocate and free large factorization arrays
    // many times a second; with glibc's default each free trims the heap and
    // the next solve grows it again, and those system calls and page faults
    // took 40% of a Harmonics run. Keeping 64 MB of slack at the heap's top
    // removes them (doc/design-notes.md, "Memory allocation").
    mallopt(M_TOP_PAD, 64 << 20);
#endif
    try
    {
        if (LaunchedRanks() > 1 && !distributed)
        {
            throw std::runtime_error("this example does not run on several MPI ranks; launch it "
                                     "without mpirun");
        }
        EnableDistributedSimulation();
        body(run);
    }
    catch (const std::exception& e)
    {
        code = dynamic_cast<const IncompleteRunError*>(&e) ? 1 : 2;
        if (InterruptSignal() != 0)
        {
            // Whatever the signal made fail, the run was stopped on request.
            code = 128 + InterruptSignal();
            const std::string cause = RunInterruptedError(InterruptSignal()).what();
            std::cerr << name << ": error: " << cause
                      << (cause == e.what() ? "" : " (" + std::string(e.what()) + ")") << std::endl;
        }
        else if (dynamic_cast<const std::bad_alloc*>(&e))
        {
            // Every input is budgeted before it is allocated; what is left
            // is a count the budgets do not foresee: say what to lower.
            std::cerr << name << ": error: out of memory (" << e.what()
                      << ") building or running the simulation; the inputs' sizes passed "
                         "ns3::InputLimits (MaxFabricElements, MaxJobMemory, MaxMonitorRows): "
                         "lower the counts of the scenario or flags, or the limits if they "
                         "were raised"
                      << std::endl;
        }
        else
        {
            std::cerr << name << ": error: " << e.what() << std::endl;
        }
        if (run)
        {
            try
            {
                run->Fail(e.what());
            }
            catch (const std::exception& dbError)
            {
                std::cerr << name << ": error: cannot record the failure: " << dbError.what()
                          << std::endl;
            }
        }
    }
    run.reset();
    Simulator::Destroy();
    DisableDistributedSimulation();
    return code;
}

int
RunMpiExampleMain(const std::string& name,
                  const std::function<void(std::unique_ptr<SimulationRun>& run)>& body)
{
    return RunExampleMain(name, body, true);
}

} // namespace ns3
