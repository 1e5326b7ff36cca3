/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_FLAGS_H
#define FABRIC_FLAGS_H

#include "roce-fabric-helper.h"

#include "ns3/command-line.h"
#include "ns3/roce-header.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The command-line flags every RoCE fabric example shares (links,
 * payload size, congestion control, PFC, seed, database, stop time): one
 * place to declare them, check them and apply them.
 */
struct FabricFlags
{
    std::string linkRate{"100Gbps"};
    std::string linkDelay{"1us"};
    uint32_t mtu{RoceWire::kDefaultMtu};
    std::string cc{"dcqcn"};
    bool pfc{true};
    uint32_t seed{1};
    std::string db;
    std::string stopTime{"10s"};

    // Filled by Apply().
    DataRate rate;
    Time delay;
    Time stop;

    /// Declare the flags on \p cmd.
    void AddTo(CommandLine& cmd);

    /**
     * Check every flag (FlagError naming the bad one), seed ns-3's random
     * numbers and configure \p helper (congestion control, payload size,
     * PFC, ECMP seed).
     */
    void Apply(RoceFabricHelper& helper);

    /// The flags as a JSON object, for the run's parameters.
    nlohmann::json ToJson() const;
};

/**
 * Call first in an example's main(): picosecond time resolution and the
 * priority-queue event scheduler (the fastest of ns-3's for the deep event
 * queues of a busy fabric; --SchedulerType overrides it).
 */
void RoceExampleDefaults();

} // namespace ns3

#endif /* FABRIC_FLAGS_H */
