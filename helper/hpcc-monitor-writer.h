/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_MONITOR_WRITER_H
#define HPCC_MONITOR_WRITER_H

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
 * \brief Writes the monitor files of the HPCC-lineage simulators from a run
 * of HpccScenario, so that scripts reading them keep working.
 *
 * **HPCC's queue-length monitor** (its third.cc monitor_buffer), when the
 * config gives QLEN_MON_START or QLEN_MON_END: from QLEN_MON_START (ns; 2 s
 * if absent) to QLEN_MON_END (ns; 2.1 s if absent) every 100 ns, each switch
 * port's total queue is counted in a histogram of 1000-byte bins; at every
 * multiple of 100 ms the file gets `time: T` and, per switch and port (the
 * simulators' interface index), `sw port n0 n1 ...`: the samples so far in
 * each bin (from 0 to the largest seen).
 *
 * **SimAI's four monitors** (its ns-3 front end's schedule_monitor)
 * otherwise: the config's QLEN_MON_FILE, BW_MON_FILE, RATE_MON_FILE and
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
class HpccMonitorWriter
{
  public:
    /**
     * Open the files the config of \p scenario names and start sampling \p fabric.
     * \param flows the posted flows (each queue pair's dport)
     * \throw std::runtime_error naming the config's line for an interval of 0,
     *        or a file that cannot be opened
     */
    HpccMonitorWriter(const HpccScenario& scenario,
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
        void (HpccMonitorWriter::*sample)(Monitor& m);
        EventId event;
    };

    void Open(const std::optional<std::string>& path,
              const char* header,
              std::optional<int64_t> intervalNs,
              int64_t defaultIntervalNs,
              void (HpccMonitorWriter::*sample)(Monitor& m));
    void Tick(Monitor* m);
    bool Busy() const;
    void SampleQueues(Monitor& m);
    void SampleBandwidth(Monitor& m);
    void SampleRates(Monitor& m);
    void SampleCnps(Monitor& m);
    /// A row per sending queue pair whose \p value changed since \p last held it.
    void SampleQueuePairs(Monitor& m,
                          std::map<std::pair<uint32_t, uint32_t>, uint64_t>& last,
                          uint64_t (*value)(const RdmaNic::SendingRate& r));
    void SampleHistogram(Monitor& m);

    const HpccScenario& m_scenario;
    Ptr<RoceFabric> m_fabric;
    std::function<bool()> m_workRemains;
    std::map<uint64_t, uint32_t> m_dportOf;      ///< flow id -> the flow file's dport
    std::map<uint32_t, uint32_t> m_fileNodeOfIp; ///< NIC address -> file node id
    std::vector<std::unique_ptr<Monitor>> m_monitors;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_lastQueue; ///< (node, port) -> bytes
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_lastTx;    ///< (link, direction) -> bytes
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_lastRate;  ///< (host, qpn) -> bit/s
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_lastCnps;  ///< (host, qpn) -> CNPs
    /// HPCC's histogram: (file node, interface) -> samples per 1000-byte bin.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> m_histogram;
    int64_t m_histogramEndNs{0};
    uint64_t m_lines{0};
    uint64_t m_samples{0}; ///< ports and queue pairs sampled: with m_lines, against MaxMonitorRows
};

} // namespace ns3

#endif /* HPCC_MONITOR_WRITER_H */
