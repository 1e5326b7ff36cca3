/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STOCK_BENCHMARK_H
#define STOCK_BENCHMARK_H

// The timed run and the PERF line the stock reference programs share, so that
// run-speed-benchmark.sh measures and reads them the same way.

#include "ns3/simulator.h"

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <sys/resource.h>

namespace ns3
{
namespace stock_benchmark
{

/// What one run of the simulation measured.
struct TimedRun
{
    double wallSeconds; ///< wall-clock time of Simulator::Run alone
    double simSeconds;  ///< simulated time reached
    uint64_t events;    ///< events executed
    long peakRssKb;     ///< peak resident set size of the process
};

/// Runs the simulation to its end, then destroys it; only Run is timed.
inline TimedRun
RunTimed()
{
    TimedRun r;
    auto start = std::chrono::steady_clock::now();
    Simulator::Run();
    auto stop = std::chrono::steady_clock::now();
    r.wallSeconds = std::chrono::duration<double>(stop - start).count();
    r.simSeconds = Simulator::Now().GetSeconds();
    r.events = Simulator::GetEventCount();
    Simulator::Destroy();

    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    r.peakRssKb = usage.ru_maxrss;
    return r;
}

/// Prints the PERF line of program \p name; every frame is a data frame, none an ACK.
inline void
PrintPerf(const char* name, const TimedRun& r, uint64_t packetHops, uint64_t linkBytes)
{
    std::printf("PERF name=%s packet_hops=%" PRIu64 " events=%" PRIu64
                " wall_s=%.6f sim_s=%.9f peak_rss_kb=%ld data_hops=%" PRIu64
                " ack_hops=0 link_bytes=%" PRIu64 "\n",
                name,
                packetHops,
                r.events,
                r.wallSeconds,
                r.simSeconds,
                r.peakRssKb,
                packetHops,
                linkBytes);
}

} // namespace stock_benchmark
} // namespace ns3

#endif /* STOCK_BENCHMARK_H */
