/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_OUTPUT_WRITERS_H
#define HPCC_OUTPUT_WRITERS_H

#include "hpcc-scenario.h"
#include "roce-fabric-helper.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * The IPv4 address (host byte order) HPCC's third.cc gives node \p nodeId
 * (node_id_to_ip): 0x0b000001 + (id / 256) x 0x10000 + (id % 256) x 0x100,
 * i.e. 11.(id/256).(id%256).1, which fct.txt prints in hexadecimal.
 */
uint32_t HpccNodeAddress(uint32_t nodeId);

/// Open (truncate) output file \p path, or throw "path: file: cannot open for writing".
void OpenHpccOutput(std::ofstream& out, const std::string& path);

/// Flush and close \p out, or throw "path: file: write error".
void CloseHpccOutput(std::ofstream& out, const std::string& path);

/**
 * One line of fct.txt as third.cc prints it ("%08x %08x %u %u %lu %lu %lu
 * %lu\n"): source and destination address (HpccNodeAddress of the file's
 * node ids) in hexadecimal, source and destination UDP port, size in
 * bytes, start time, flow completion time and standalone FCT, in ns.
 */
inline std::string
FormatHpccFctLine(uint32_t srcNode,
                  uint32_t dstNode,
                  uint16_t srcPort,
                  uint16_t dstPort,
                  uint64_t bytes,
                  int64_t startNs,
                  int64_t fctNs,
                  uint64_t standaloneFctNs)
{
    char line[160];
    std::snprintf(line,
                  sizeof(line),
                  "%08" PRIx32 " %08" PRIx32 " %u %u %" PRIu64 " %" PRId64 " %" PRId64 " %" PRIu64
                  "\n",
                  HpccNodeAddress(srcNode),
                  HpccNodeAddress(dstNode),
                  static_cast<unsigned>(srcPort),
                  static_cast<unsigned>(dstPort),
                  bytes,
                  startNs,
                  fctNs,
                  standaloneFctNs);
    return line;
}

/**
 * \ingroup collective-scheduling
 * \brief Writes fct.txt as the HPCC-lineage simulators do: a line per flow
 * when the sender has every byte acknowledged (their QP completion), in
 * completion order. fct = that time - the flow's start, whole nanoseconds
 * (truncated); standalone_fct = HpccPostedFlow::standaloneFctNs. A flow
 * NVLink carries completes at its start + its standalone FCT.
 *
 * Listens to the NICs' SendComplete trace; must outlive the simulation run.
 */
class HpccFctWriter
{
  public:
    /**
     * Create (truncate) \p path and follow the completions of \p flows on \p fabric.
     * \throw std::runtime_error if the file cannot be opened
     */
    HpccFctWriter(const std::string& path, Ptr<RoceFabric> fabric, HpccPostedFlows flows);

    /// Lines written so far.
    uint64_t GetLines() const
    {
        return m_lines;
    }

    /// Flush the file. \throw std::runtime_error on a write error
    void Close();

  private:
    void OnComplete(const RdmaMessageInfo& info, Time ackTime, uint64_t retransmittedBytes);
    void Write(const HpccPostedFlow& p, int64_t startNs, int64_t fctNs);

    std::string m_path;
    std::ofstream m_out;
    std::map<uint64_t, HpccPostedFlow> m_flows;
    uint64_t m_lines{0};
};

/**
 * \ingroup collective-scheduling
 * \brief Writes pfc.txt as the HPCC-lineage simulators do: a line
 * `time node node_type ifindex type` whenever a port receives a PFC frame,
 * for every port of every node: time in ns, the file's node id, the node
 * type (0 host, 1 switch; HpccNodeType), the interface index the
 * simulators give the port (HpccScenario::GetSimulatorIfIndex, from 1),
 * and 1 for a PAUSE, 0 for a RESUME. A frame pausing or resuming several
 * classes gives a line per class; the switch refreshes a PAUSE that is
 * still needed, and each refresh is another type-1 line.
 *
 * Listens to the ports' PfcReceived trace; must outlive the simulation run.
 */
class HpccPfcWriter
{
  public:
    /**
     * Create (truncate) \p path and follow every port of \p fabric, built by
     * \p scenario (which gives the file's node ids and interface indices).
     * \throw std::runtime_error if the file cannot be opened
     */
    HpccPfcWriter(const std::string& path, Ptr<RoceFabric> fabric, const HpccScenario& scenario);

    /// Lines written so far.
    uint64_t GetLines() const
    {
        return m_lines;
    }

    /// Flush the file. \throw std::runtime_error on a write error
    void Close();

  private:
    void OnPfc(uint32_t fileNode, uint32_t nodeType, uint32_t ifIndex, Ptr<const Packet> frame);

    std::string m_path;
    std::ofstream m_out;
    uint64_t m_lines{0};
};

} // namespace ns3

#endif /* HPCC_OUTPUT_WRITERS_H */
