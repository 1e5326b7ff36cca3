/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "run-interruption.h"

#include "ns3/distributed-simulation.h"
#include "ns3/make-event.h"
#include "ns3/simulator.h"

#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace ns3
{

namespace
{

std::atomic<int> g_signal{0};
int g_pipe[2] = {-1, -1};

std::mutex g_mutex;                // guards g_watched
SimulatorImpl* g_watched{nullptr}; // the simulator a signal stops
std::atomic<bool> g_installed{false};

void
StopNow()
{
    Simulator::Stop();
}

// Async-signal-safe: an atomic store, write() and sigaction() only.
extern "C" void
OnSignal(int signal)
{
    int expected = 0;
    if (g_signal.compare_exchange_strong(expected, signal))
    {
        const char byte = 1;
        [[maybe_unused]] ssize_t n = write(g_pipe[1], &byte, 1);
    }
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, &dfl, nullptr);
    sigaction(SIGTERM, &dfl, nullptr);
}

// The stop is scheduled from here, outside the signal handler, where taking
// a lock and allocating an event are allowed.
void
Watch()
{
    char byte = 0;
    while (read(g_pipe[0], &byte, 1) != 1)
    {
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_watched != nullptr)
    {
        g_watched->ScheduleWithContext(Simulator::NO_CONTEXT, Seconds(0), MakeEvent(&StopNow));
    }
}

} // namespace

void
InstallInterruptHandlers()
{
    if (LaunchedRanks() > 1 || g_installed.exchange(true))
    {
        return;
    }
    if (pipe(g_pipe) != 0)
    {
        throw std::runtime_error("cannot create the pipe that watches for signals");
    }
    std::thread(Watch).detach();
    struct sigaction action = {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

void
RestartInterruptHandlersAfterFork()
{
    g_signal = 0;
    g_watched = nullptr;
    if (g_installed.exchange(false))
    {
        close(g_pipe[0]);
        close(g_pipe[1]);
        g_pipe[0] = g_pipe[1] = -1;
    }
    InstallInterruptHandlers();
}

int
InterruptSignal()
{
    return g_signal.load();
}

void
ThrowIfInterrupted()
{
    const int signal = g_signal.load(std::memory_order_relaxed);
    if (signal != 0)
    {
        throw RunInterruptedError(signal);
    }
}

std::string
SignalName(int signal)
{
    switch (signal)
    {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    default:
        return "signal " + std::to_string(signal);
    }
}

InterruptibleSimulation::InterruptibleSimulation()
{
    Ptr<SimulatorImpl> impl = Simulator::GetImplementation();
    if (impl->GetInstanceTypeId().GetName() != "ns3::DefaultSimulatorImpl")
    {
        return;
    }
    m_impl = impl;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_watched = PeekPointer(m_impl);
}

InterruptibleSimulation::~InterruptibleSimulation()
{
    if (m_impl)
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_watched == PeekPointer(m_impl))
        {
            g_watched = nullptr;
        }
    }
}

RunInterruptedError::RunInterruptedError(int signal)
    : std::runtime_error("interrupted by " + SignalName(signal)),
      m_signal(signal)
{
}

} // namespace ns3
