/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "distributed-simulation.h"

#include "ns3/boolean.h"
#include "ns3/global-value.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

namespace ns3
{

namespace
{

/// ns-3's two distributed engines (the mpi module).
const std::string kTimeWindowEngine = "ns3::DistributedSimulatorImpl";
const std::string kNullMessageEngine = "ns3::NullMessageSimulatorImpl";

#ifdef NS3_MPI
bool g_started = false;
bool g_nullMessage = false;
#endif

} // namespace

uint32_t
LaunchedRanks()
{
    // Set by Open MPI, MPICH/Hydra (PMI) and PMIx launchers, Slurm's srun included.
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    {
        if (const char* value = std::getenv(var))
        {
            return static_cast<uint32_t>(std::max(1L, std::strtol(value, nullptr, 10)));
        }
    }
    return 1;
}

uint32_t
EnableDistributedSimulation()
{
    const uint32_t ranks = LaunchedRanks();
    StringValue engine;
    GlobalValue::GetValueByName("SimulatorImplementationType", engine);
    const bool nullMessage = engine.Get() == kNullMessageEngine;
    if (ranks == 1)
    {
        // One command line for any number of ranks: a distributed engine
        // named for a single process means the ordinary one.
        if (nullMessage || engine.Get() == kTimeWindowEngine)
        {
            GlobalValue::Bind("SimulatorImplementationType",
                              StringValue("ns3::DefaultSimulatorImpl"));
        }
        return DistributedSize();
    }
    if (!nullMessage && engine.Get() != kTimeWindowEngine &&
        engine.Get() != "ns3::DefaultSimulatorImpl")
    {
        throw std::runtime_error("--SimulatorImplementationType=" + engine.Get() +
                                 " cannot run on several MPI ranks: use " + kTimeWindowEngine +
                                 " (granted time window, the default) or " + kNullMessageEngine);
    }
#ifdef NS3_MPI
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(nullMessage ? kNullMessageEngine : kTimeWindowEngine));
    // Simultaneous arrivals in a fixed order, whichever rank sent them.
    GlobalValue::Bind("RoceCanonicalArrivals", BooleanValue(true));
    // MPI_Init accepts null arguments; ns-3 passes them straight on. The
    // engine named above chooses ns-3's matching MPI interface.
    MpiInterface::Enable(nullptr, nullptr);
    g_started = true;
    g_nullMessage = nullMessage;
#else
    throw std::runtime_error("launched with " + std::to_string(ranks) +
                             " MPI ranks, but ns-3 was built without MPI: build the module "
                             "in an ns-3 tree with utils/build-in-ns3-tree.sh --mpi");
#endif
    return DistributedSize();
}

bool
IsNullMessageEngine()
{
#ifdef NS3_MPI
    return g_nullMessage && DistributedSize() > 1;
#else
    return false;
#endif
}

void
DisableDistributedSimulation()
{
#ifdef NS3_MPI
    if (g_started)
    {
        MpiInterface::Disable();
        g_started = false;
        g_nullMessage = false;
    }
#endif
}

uint32_t
DistributedRank()
{
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        return MpiInterface::GetSystemId();
    }
#endif
    return 0;
}

uint32_t
DistributedSize()
{
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        return MpiInterface::GetSize();
    }
#endif
    return 1;
}

void
AllReduce(std::vector<int64_t>& values, ReduceOp op)
{
#ifdef NS3_MPI
    if (DistributedSize() > 1 && !values.empty())
    {
        MPI_Allreduce(MPI_IN_PLACE,
                      values.data(),
                      static_cast<int>(values.size()),
                      MPI_INT64_T,
                      op == ReduceOp::Sum ? MPI_SUM : MPI_MAX,
                      MpiInterface::GetCommunicator());
    }
#else
    (void)values;
    (void)op;
#endif
}

int64_t
AllReduce(int64_t value, ReduceOp op)
{
    std::vector<int64_t> v{value};
    AllReduce(v, op);
    return v[0];
}

} // namespace ns3
