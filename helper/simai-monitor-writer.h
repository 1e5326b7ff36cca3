/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SIMAI_MONITOR_WRITER_H
#define SIMAI_MONITOR_WRITER_H

#include "hpcc-scenario.h"

#include "ns3/event-id.h"

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Writes SimAI's four monitor files (its ns-3 front end's
 * schedule_monitor) from a run of HpccScenario, so that scripts reading them
 * keep working: the config's QLEN_MON_FILE, BW_MON_FILE, RATE_MON_FILE and
 * CNP_MON_FILE (each only if given), sampled from MON_START (0 if absent)
 * every QLEN_MON_INTERVAL, BW_MON_INTERVAL and QP_MON_INTERVAL (SimAI's
 * defaults 10000, 10000 and 100 us if absent). Each file starts with
 * SimAI's header line, and, as SimAI writes them, rows are
 * `time, ...` with the time in ns and ", " between fields:
 *
 * - queue: `time, sw_id, port_id, q_id, q_len, port_len`: for every switch
 *   port whose total queue changed since the port's last rows, one row per
 *   class (0-7) with the class's bytes and the port's total; port_id is the
 *   simulators' interface index (HpccScenario::GetSimulatorIfIndex);
 * - bandwidth: `time, node_id, port_id, bandwidth`: per switch port and NIC
 *   (a NIC's port is 0, as SimAI numbers its NICs) that sent since its last
 *   row, the Gb/s it sent in the interval (frame bytes, "%f");
 * - rate: `time, src, dst, sport, dport, size, curr_rate`: per sending queue
 *   pair whose rate changed since its last row, its rate in bit/s;
 * - CNP: `time, src, dst, sport, dport, size, cnp_number`: per sending
 *   queue pair whose CNP count changed, the CNPs it has received.
 *
 * Node ids are the file's. NVSwitches, which are not fabric nodes, have no
 * queue or bandwidth rows (their traffic is NVLink's, see HpccScenario).
 * Sampling stops once the fabric is idle and \p workRemains is false, so
 * that it does not keep an ended run alive (SimAI stops its simulator
 * explicitly instead).
 */
class SimAiMonitorWriter
{
  public:
    /**
     * Open the files the config of \p scenario names and start sampling \p fabric.
     * \param flows the posted flows (each queue pair's dport)
     * \throw std::runtime_error naming the config's line for an interval of 0,
     *        or a file that cannot be opened
     */
    SimAiMonitorWriter(const HpccScenario& scenario,
                       Ptr<RoceFabric> fabric,
                       const HpccPostedFlows& flows,
                       std::function<bool()> workRemains);

    /// Rows written so far, over the four files.
    uint64_t GetLines() const
    {
        return m_lines;
    }

    /// Flush and close the files. \throw std::runtime_error on a write error
    void Close();

  private:
    /// One of the monitors: its file, period and sampler.
    struct Monitor
    {
        std::string path;
        std::ofstream out;
        Time interval;
        void (SimAiMonitorWriter::*sample)(Monitor& m);
        EventId event;
    };

    void Open(const std::optional<std::string>& path,
              const char* header,
              std::optional<int64_t> intervalNs,
              int64_t defaultIntervalNs,
              void (SimAiMonitorWriter::*sample)(Monitor& m));
    void Tick(Monitor* m);
    bool Busy() const;
    void SampleQueues(Monitor& m);
    void SampleBandwidth(Monitor& m);
    void SampleRates(Monitor& m);
    void SampleCnps(Monitor& m);

    const HpccScenario& m_scenario;
    Ptr<RoceFabric> m_fabric;
    std::function<bool()> m_workRemains;
    std::map<uint64_t, uint32_t> m_dportOf;      ///< flow id -> the flow file's dport
    std::map<uint32_t, uint32_t> m_fileNodeOfIp; ///< NIC address -> file node id
    std::vector<std::unique_ptr<Monitor>> m_monitors;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_lastQueue; ///< (node, port) -> bytes
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_lastTx;    ///< (link, direction) -> bytes
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_lastRate;  ///< (host, qpn) -> bit/s
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_lastCnps;  ///< (host, qpn) -> CNPs
    uint64_t m_lines{0};
};

} // namespace ns3

#endif /* SIMAI_MONITOR_WRITER_H */
