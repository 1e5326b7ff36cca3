/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DISTRIBUTED_SIMULATION_H
#define DISTRIBUTED_SIMULATION_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One fabric over several processes with ns-3's distributed simulator.
 *
 * Every rank builds the same topology, jobs and flows; RoceFabricHelper gives
 * each node to one rank (PartitionFabric) and only the owner of a node runs
 * its events. Frames between ranks cross RoceRemoteChannels. After the run,
 * the per-rank results are combined with AllReduce so that every rank holds
 * the whole run and rank 0 alone prints and writes the database.
 *
 * Without ns-3's mpi module (Debian's libns3-dev) these functions describe a
 * single process; launching such a build with more than one rank is an error.
 */

/// Ranks the MPI launcher started (mpirun's -np), 1 when not launched by one.
uint32_t LaunchedRanks();

/**
 * Start ns-3's distributed simulator when the process was launched by an MPI
 * launcher with more than one rank, and turn RoceCanonicalArrivals on (see
 * RoceArrivalBatch); otherwise do nothing. The engine is the global value
 * SimulatorImplementationType (--SimulatorImplementationType on the command
 * line, read before this call): ns3::NullMessageSimulatorImpl chooses the
 * null-message engine; anything else that names no other engine
 * (ns3::DefaultSimulatorImpl, ns3::DistributedSimulatorImpl) the
 * granted-time-window one. In a single process the two distributed engines
 * fall back to ns3::DefaultSimulatorImpl, so that one command line serves any
 * number of ranks. A single-process run gives the same results as a
 * distributed one with --RoceCanonicalArrivals=true. Call before the
 * simulator runs its first event (RunExampleMain does).
 * \throw std::runtime_error when launched on several ranks without MPI
 * support, or with an engine that is not a distributed one
 * \return the number of ranks
 */
uint32_t EnableDistributedSimulation();

/**
 * Whether this run is distributed over several ranks with the null-message
 * engine (ns3::NullMessageSimulatorImpl). That engine never runs out of
 * events (each rank keeps a null message scheduled per neighbour), so such a
 * run needs StopWhenFabricIdle to end.
 */
bool IsNullMessageEngine();

/// Shut MPI down if EnableDistributedSimulation started it.
void DisableDistributedSimulation();

/// This process's rank (0 when not distributed).
uint32_t DistributedRank();

/// Number of ranks (1 when not distributed).
uint32_t DistributedSize();

/// How AllReduce combines the ranks' values.
enum class ReduceOp
{
    Sum,
    Max
};

/// Combine \p values element-wise over all ranks; every rank gets the result.
void AllReduce(std::vector<int64_t>& values, ReduceOp op);

/// The ranks' \p value combined with \p op.
int64_t AllReduce(int64_t value, ReduceOp op);

} // namespace ns3

#endif /* DISTRIBUTED_SIMULATION_H */
