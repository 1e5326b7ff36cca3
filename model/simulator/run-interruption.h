/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RUN_INTERRUPTION_H
#define RUN_INTERRUPTION_H

#include "ns3/ptr.h"
#include "ns3/simulator-impl.h"

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Handle SIGINT and SIGTERM from now on (once per process; later calls do
 * nothing): the first one is recorded and stops the simulation that an
 * InterruptibleSimulation watches, so that the run can write what it has
 * and be marked 'interrupted'; a second one ends the process at once (the
 * signal's default action). Not installed in a process launched on several
 * MPI ranks, whose ranks must stop together.
 */
void InstallInterruptHandlers();

/**
 * \ingroup collective-scheduling
 * In a child process just made by fork(): forget any signal the parent
 * recorded and handle this process's own SIGINT and SIGTERM as
 * InstallInterruptHandlers does, with a pipe and a watching thread of its
 * own (fork copies neither the thread nor, usefully, the pipe, which the
 * parent's thread reads). Call it first thing in the child.
 */
void RestartInterruptHandlersAfterFork();

/// \return the signal that asked this process to stop (SIGINT, SIGTERM), or 0
int InterruptSignal();

/**
 * \ingroup collective-scheduling
 * Throw RunInterruptedError if a SIGINT or SIGTERM asked this process to
 * stop. Long loops outside the simulator's events (building a fabric's
 * routes, its nodes) call it, so that a signal stops a run promptly while
 * it is being built too; it costs one atomic load.
 */
void ThrowIfInterrupted();

/// \return "SIGINT", "SIGTERM" or the number of \p signal
std::string SignalName(int signal);

/**
 * \ingroup collective-scheduling
 * \brief While alive, a recorded SIGINT or SIGTERM stops the current
 * simulator (its next event is a stop, scheduled from the thread that
 * watches for signals). Only ns-3's default simulator accepts events from
 * another thread; with any other, the signal is only recorded.
 */
class InterruptibleSimulation
{
  public:
    InterruptibleSimulation();
    ~InterruptibleSimulation();
    InterruptibleSimulation(const InterruptibleSimulation&) = delete;
    InterruptibleSimulation& operator=(const InterruptibleSimulation&) = delete;

  private:
    Ptr<SimulatorImpl> m_impl; ///< kept alive while it may receive the stop
};

/**
 * \ingroup collective-scheduling
 * \brief A run stopped by SIGINT or SIGTERM: the example exits with 128 plus
 * the signal number.
 */
class RunInterruptedError : public std::runtime_error
{
  public:
    explicit RunInterruptedError(int signal);

    int GetSignal() const
    {
        return m_signal;
    }

  private:
    int m_signal;
};

} // namespace ns3

#endif /* RUN_INTERRUPTION_H */
