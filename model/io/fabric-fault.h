/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_FAULT_H
#define FABRIC_FAULT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One scheduled failure, as plain data: a link, a switch (all its
 * links) or a host (all its links) goes down at one time and, optionally,
 * back up at a later one. FabricFaults applies it to a RoceFabric.
 */
struct FabricFault
{
    enum class Target : uint8_t
    {
        LINK,   ///< id: link id (the links table's link_id)
        SWITCH, ///< id: node id of a switch (the links table's node_a / node_b)
        HOST,   ///< id: host index (as jobs' hosts)
    };

    Target target{Target::LINK};
    uint32_t id{0};
    int64_t downNs{0}; ///< when it goes down
    int64_t upNs{-1};  ///< when it comes back up, after downNs; -1: never
    std::string where; ///< where it was given ("file:line: faults[0]"), for errors
};

/// \return "link", "switch" or "host"
const char* ToString(FabricFault::Target target);

/**
 * Read the fault list of a command-line flag: comma-separated items
 * KIND:ID@DOWN[-UP], KIND one of link, switch, host and the times ns-3 time
 * strings, as in "link:12@1ms-3ms,switch:20@2ms".
 * \param text the flag's value; empty for none
 * \param flag the flag's name, for the faults' `where`
 * \throw std::invalid_argument naming the item and what is wrong
 */
std::vector<FabricFault> ParseFaultList(const std::string& text, const std::string& flag);

} // namespace ns3

#endif /* FABRIC_FAULT_H */
