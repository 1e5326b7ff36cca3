/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_TOPOLOGY_READER_H
#define HPCC_TOPOLOGY_READER_H

#include "ns3/fabric-topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// Node types of the HPCC-lineage simulators, with their Node::GetNodeType() values.
enum class HpccNodeType : uint8_t
{
    Host = 0,     ///< a server (a GPU in SimAI's files)
    Switch = 1,   ///< a switch
    NvSwitch = 2, ///< an NVSwitch (SimAI's files only)
};

/// A fabric read from an HPCC-format topology file.
struct HpccTopology
{
    FabricTopology topology;            ///< nodes with the file's ids, links in file order
    std::vector<double> linkErrorRate;  ///< by link id: packet error probability in [0,1]
    std::vector<uint32_t> linkLine;     ///< by link id: its line in the file
    std::vector<HpccNodeType> nodeType; ///< by node id
    bool simai{false};                  ///< the file has SimAI's six-field header
    uint32_t gpusPerServer{0};          ///< SimAI header field; 0 for the HPCC header
    std::string gpuType;                ///< SimAI header field ("A100", "H800"); empty for HPCC
};

/**
 * \ingroup collective-scheduling
 * Read the topology file of the HPCC-lineage ns-3 simulators (HPCC's
 * simulation/scratch/third.cc, astra-network-ns3).
 *
 * Format, line by line:
 * - `nodes switches links`, three non-negative integers;
 * - the ids of the switches, exactly `switches` integers in [0, nodes), no
 *   duplicates (the line is omitted or blank when `switches` is 0);
 * - `links` lines `a b rate delay error_rate`: two node ids, an ns-3 rate
 *   string ("100Gbps"), an ns-3 time string ("0.001ms", whole nanoseconds)
 *   and a packet error probability in [0,1].
 * Fields are separated by white space. Blank lines, trailing white space and
 * CRLF line ends are tolerated. '#' comments are not part of the format (the
 * simulators read the file with operator>>): a line starting with '#' is an
 * error naming it as an unsupported comment, and a trailing '# ...' adds
 * fields, so the line fails its field count.
 *
 * SimAI's variant (ns-3-alibabacloud, astra-sim-alibabacloud's topology
 * generators) has a six-field header `nodes gpus_per_server nvswitches
 * switches links gpu_type`, where `switches` does not count the NVSwitches,
 * followed by the ids of the NVSwitches and then of the switches: on one
 * line (NVSwitches first, nvswitches + switches ids, as SimAI's generators
 * write it) or on two lines (the NVSwitches, then the switches). The link
 * lines are the same. gpu_type is any token (SimAI knows A100, A800, H100,
 * H800 and treats others as none).
 *
 * Unlike the simulators, which read tokens and ignore line breaks, the
 * reader requires the line structure above, so it can name the line of each
 * error.
 *
 * Result: node i of the file is node i of the topology (hosts: AddHost with
 * name "host-<i>", pod and rack -1; switches: AddSwitch tier 1, name
 * "switch-<i>", pod and rack -1; NVSwitches are switches too, AddSwitch tier
 * 1 named "nvswitch-<i>", told apart by HpccTopology::nodeType). Links are
 * added in file order with the first id as FabricLink::a, so parallel links
 * stay distinct links and ports follow the file's link order, as the
 * simulators' device indices do. The topology is not validated (a file may
 * leave a host unconnected); callers run FabricTopology::Validate().
 *
 * \param path the topology file
 * \return the topology and the per-link error rates
 * \throw std::runtime_error "path:line: field: message" for a wrong field
 *        count, a non-numeric or negative number, a node id out of range, a
 *        switch id given twice (NVSwitches included), more switches and
 *        NVSwitches than nodes, a self-loop, a bad rate or delay, a zero rate,
 *        an error rate outside [0,1], or fewer or more link lines than the
 *        header announces; "path: file: ..." for a file that cannot be opened
 */
HpccTopology ReadHpccTopology(const std::string& path);

/**
 * Write \p topo in the format ReadHpccTopology reads: nodes in id order,
 * the switches' ids, then the links in id order with FabricLink::a first.
 * Rates are written in the largest of Gbps, Mbps, Kbps, bps that keeps them
 * exact; delays in the largest of s, ms, us, ns.
 *
 * \param path the file to write
 * \param topo the topology
 * \param linkErrorRate per link id error probability; empty means 0 for all
 * \throw std::runtime_error if the file cannot be written or
 *        \p linkErrorRate has neither 0 nor GetNLinks() entries
 */
void WriteHpccTopology(const std::string& path,
                       const FabricTopology& topo,
                       const std::vector<double>& linkErrorRate = {});

/**
 * \name Token parsers shared by the HPCC readers
 * Each throws std::invalid_argument whose what() says what is wrong, for
 * the caller to wrap with ThrowInputError.
 * \{
 */

/// The white-space separated fields of \p line.
std::vector<std::string> SplitHpccFields(const std::string& line);

/// A non-negative decimal integer no larger than \p max.
uint64_t ParseHpccUint(const std::string& text, uint64_t max = UINT64_MAX);

/// A finite non-negative real number ("0.2", "1e-3").
double ParseHpccReal(const std::string& text);

/// A plain decimal number of seconds ("2.000001", no unit), whole nanoseconds.
int64_t ParseHpccSecondsNs(const std::string& text);

/** \} */

} // namespace ns3

#endif /* HPCC_TOPOLOGY_READER_H */
