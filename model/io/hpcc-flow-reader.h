/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_FLOW_READER_H
#define HPCC_FLOW_READER_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// One flow of an HPCC-format flow file.
struct HpccFlow
{
    uint32_t src;    ///< source node id
    uint32_t dst;    ///< destination node id
    uint32_t pg;     ///< priority group 0-7
    uint16_t dport;  ///< destination UDP port
    uint64_t bytes;  ///< message size, bytes, > 0
    int64_t startNs; ///< start time, ns
    uint32_t line;   ///< line of the file it came from
};

/**
 * \ingroup collective-scheduling
 * Read the flow file of the HPCC-lineage ns-3 simulators (HPCC's
 * simulation/scratch/third.cc).
 *
 * Format: a line with the number of flows, then one flow per line:
 * `src dst pg dport size start_time`, where src and dst are node ids
 * (distinct, below \p nNodes), pg the priority group 0-7, dport a UDP port
 * (0-65535), size the bytes to send (> 0) and start_time the start in
 * seconds as a plain decimal number ("2.000001"; no unit; it must be a
 * whole number of nanoseconds). The simulators read flows one at a time
 * and schedule each at its start time, so flows must be sorted by start
 * time (equal times are fine). Fields are separated by white space; blank
 * lines, trailing white space and CRLF line ends are tolerated; '#'
 * comments are not part of the format, and a line starting with '#' is an
 * error saying so.
 *
 * Whether src and dst are hosts is not checked here (the file does not
 * say); callers holding the topology check it.
 *
 * \param path the flow file
 * \param nNodes the number of nodes of the topology the flows run on
 * \return the flows in file order
 * \throw std::runtime_error "path:line: field: message" for a missing or
 *        bad count, fewer or more flow lines than the count, a wrong field
 *        count, a non-numeric or negative field, pg above 7, a port above
 *        65535, size 0, src == dst, a node id >= nNodes, or a start time
 *        earlier than the line above (naming both lines); "path: file: ..."
 *        for a file that cannot be opened
 */
std::vector<HpccFlow> ReadHpccFlows(const std::string& path, uint32_t nNodes);

} // namespace ns3

#endif /* HPCC_FLOW_READER_H */
