/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PORT_MONITOR_H
#define PORT_MONITOR_H

#include "ns3/nstime.h"
#include "ns3/nvswitch.h"
#include "ns3/object.h"
#include "ns3/results-database.h"
#include "ns3/roce-fabric.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Samples the fabric's ports, NICs and queue pairs every Interval
 * (on by default, every DefaultInterval(), coarse; 0 turns it off: then it
 * schedules nothing and costs nothing), as HPCC's and SimAI's monitors do,
 * and hands each sample to the results database as it is taken.
 *
 * At the end of every interval, for every monitored port (each egress port
 * of a switch or a NIC; Ports selects them) and each traffic class:
 * - `queue_bytes`: the bytes queued in the class then;
 * - `paused_ns`: the time PFC held the class in the interval
 *   (RoceNetDevice::GetPausedTime), so the samples of a port add up to the
 *   `links` table's `pfc_paused_ns` of its link, from its end;
 * - `ecn_marks`: the packets of the class the switch marked at the port in
 *   the interval (none at a NIC).
 *
 * A (port, class) whose three values are all 0 writes no row, so a port that
 * never queues, pauses or marks costs no row: by default every port is
 * watched and only those with something to show appear. Per NIC, the CNPs
 * it sent and received in the interval (when either is not 0). Per queue
 * pair that is sending on a host of QueuePairHosts, its congestion
 * control's current rate.
 *
 * The servers' NVSwitches (AddNvSwitch) are sampled at the same instants,
 * at either network level: per GPU port into the switch (GPU -> NVSwitch)
 * and out of it (NVSwitch -> GPU), the bytes it carried in the interval and
 * the bytes still to transfer of the messages in flight through it (the
 * fluid's occupancy), a row when either is not 0. At the flow level they
 * are all that is sampled: the fabric has no queues, pauses or marks there.
 *
 * Results (doc/results-schema.md): `port_samples(run_id, node_id, port,
 * link_id, t_ns, class, queue_bytes, paused_ns, ecn_marks, kind, tx_bytes)`,
 * kind `fabric` for a fabric port (tx_bytes NULL), `nvswitch` for an
 * NVSwitch port (node_id and link_id the GPU, port 0 in and 1 out, class 0,
 * queue_bytes its occupancy, tx_bytes what it carried);
 * `nic_samples(run_id, node_id, t_ns, cnps_sent, cnps_received)`,
 * `qp_samples(run_id, node_id, job_id, dst_node, src_port, t_ns, rate_bps)`;
 * node ids are the ns-3 node ids of the `links` table, t_ns the end of the
 * interval.
 */
class PortMonitor : public Object
{
  public:
    static TypeId GetTypeId();
    PortMonitor();

    /// The Interval by default (1 ms): a sample costs a look at every port.
    static Time DefaultInterval();

    bool IsEnabled() const
    {
        return m_interval.IsStrictlyPositive();
    }

    /// Whether Interval is the default: monitoring nobody asked for, which a
    /// run that has no ports to sample drops instead of refusing.
    bool IsDefault() const
    {
        return m_interval == DefaultInterval();
    }

    Time GetInterval() const
    {
        return m_interval;
    }

    /**
     * Start sampling \p fabric (nothing when Interval is 0), rows going to
     * \p db as run \p runId's (none when \p db is null: the samples are
     * then only counted). Sampling stops at the first sample that finds no
     * frame queued, no queue pair sending and \p workRemains false (null:
     * false), so that it never keeps an ended run alive.
     * \throw std::invalid_argument naming Ports or QueuePairHosts when they
     *        name a node, port or host the fabric lacks
     */
    void Install(Ptr<RoceFabric> fabric,
                 Ptr<ResultsDatabase> db,
                 int64_t runId,
                 std::function<bool()> workRemains);

    /**
     * Sample \p nvswitch's GPU ports too. Before Install, whose \p fabric
     * may then be null (the flow level: the NVSwitches alone).
     */
    void AddNvSwitch(Ptr<NvSwitch> nvswitch);

    /// One port's sample of one class.
    struct PortSample
    {
        uint32_t node{0}; ///< ns-3 node id
        uint32_t port{0}; ///< its port (a NIC's is 0)
        uint32_t link{0}; ///< the link the port sends on
        int64_t tNs{0};   ///< end of the interval
        uint8_t cls{0};   ///< traffic class
        uint64_t queueBytes{0};
        int64_t pausedNs{0};
        uint64_t ecnMarks{0};
    };

    /// Also hand each port sample to \p sink (tests, HPCC's monitor files).
    void SetPortSampleSink(std::function<void(const PortSample&)> sink);

    /// One NVSwitch port's sample.
    struct NvSwitchSample
    {
        uint32_t gpu{0};
        NvSwitch::PortDirection direction{NvSwitch::PortDirection::In};
        int64_t tNs{0};       ///< end of the interval
        double txBytes{0};    ///< carried in the interval
        double backlog{0};    ///< bytes still to transfer through it at tNs
        uint32_t messages{0}; ///< in flight through it at tNs
    };

    /// Also hand each NVSwitch port sample to \p sink (tests).
    void SetNvSwitchSampleSink(std::function<void(const NvSwitchSample&)> sink);

    /// Rows handed on so far: port, NIC and queue-pair samples.
    uint64_t GetSamples() const
    {
        return m_samples;
    }

  protected:
    void DoDispose() override;

  private:
    /// A monitored port and what it showed at the last sample.
    struct Watched
    {
        Ptr<RoceNetDevice> device;
        Ptr<RoceSwitch> sw; ///< null at a NIC
        uint32_t node{0};
        uint32_t port{0};
        uint32_t link{0};
        std::array<int64_t, 8> paused{}; ///< paused ns per class at the last sample
        std::array<uint64_t, 8> marks{};
        uint64_t pfcFrames{0}; ///< PFC frames it had received at the last sample
        uint64_t portMarks{0}; ///< packets marked at it (all classes) at the last sample
    };

    void Sample();
    void Parse(const FabricTopology& topology);
    /// Sample the fabric's ports; \return whether any holds a frame.
    bool SampleFabricPorts(int64_t t);
    /// Sample the NICs' CNPs and queue pairs' rates; \return whether a queue pair sends.
    bool SampleNics(int64_t t);
    /// Sample the NVSwitches' ports; \return whether any carries a message.
    bool SampleNvSwitchPorts(int64_t t);

    Time m_interval;
    std::string m_ports;
    std::string m_qpHosts;
    Ptr<RoceFabric> m_fabric;
    Ptr<ResultsDatabase> m_db;
    int64_t m_runId{0};
    std::vector<Watched> m_watched;
    std::vector<uint32_t> m_nics;                 ///< host indices whose CNPs are sampled
    std::vector<std::array<uint64_t, 2>> m_cnps;  ///< per entry of m_nics: sent, received
    std::map<uint32_t, uint32_t> m_nodeOfAddress; ///< NIC address -> ns-3 node id
    std::vector<uint32_t> m_qpHostList;           ///< host indices whose queue pairs are sampled
    std::function<void(const PortSample&)> m_sink;
    Ptr<NvSwitch> m_nvswitch;
    std::vector<std::array<double, 2>> m_nvBytes; ///< per GPU: in, out at the last sample
    std::function<void(const NvSwitchSample&)> m_nvSink;
    std::function<bool()> m_workRemains;
    uint64_t m_samples{0};
    uint64_t m_looked{0}; ///< ports looked at: with m_samples, against InputLimits::MaxMonitorRows
    EventId m_event;
};

} // namespace ns3

#endif /* PORT_MONITOR_H */
