/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LINK_SAMPLER_H
#define LINK_SAMPLER_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/nvswitch.h"
#include "ns3/object.h"
#include "ns3/results-database.h"
#include "ns3/roce-fabric.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Samples the bytes every link carries, per direction and per job, in
 * intervals of Interval: on by default, every DefaultInterval() (coarse; 0
 * turns it off). Its cost is per frame and hop, whatever the interval: about
 * 3% of a packet-level simulation's instructions (doc/seeing-a-run.md).
 * A frame belongs to the job whose queue pair sent it (data) or is
 * acknowledged by it (ACK, NAK, CNP): the sampler learns the jobs' UDP
 * source ports from the NICs' SendStarted traces. PFC frames belong to no job.
 *
 * Per frame and hop it adds the bytes to the interval under way of the
 * frame's link, direction and job: the job of the link's previous frame
 * when the frame is of the same queue pair, else a lookup and a short scan
 * of the link's jobs; the interval is counted by an event at its end (one
 * per interval while frames go, none once an interval passes without any),
 * not read from the clock per frame. A frame that starts at the very end
 * of an interval may be counted in it or in the next. An interval's total
 * goes into the samples when the next one begins.
 *
 * The servers' NVSwitches are sampled too (InstallNvSwitch, at either
 * network level): the bytes each GPU's port into the switch and out of it
 * carried, per job and interval, from the switch's fluid (NvSwitch's Moved
 * trace: bytes moved at one rate over a span, split over the intervals the
 * span covers, so that no event is scheduled).
 *
 * Results: `link_samples(run_id, link_id, direction, job_id, t_ns, tx_bytes,
 * kind)`. A fabric link (kind `fabric`): direction 0 from the link's node_a
 * to node_b (as in `links`), job_id NULL for no job, tx_bytes the frame
 * bytes that started onto the wire in the interval. An NVSwitch port (kind
 * `nvswitch`): link_id the GPU (host index x GPUs per host + the GPU's index
 * on its host), direction 0 its port in (GPU -> NVSwitch), 1 its port out
 * (NVSwitch -> GPU), tx_bytes the message bytes it carried in the interval,
 * rounded to whole bytes. t_ns is the start of the interval; intervals
 * without traffic have no row.
 */
class LinkSampler : public Object
{
  public:
    static TypeId GetTypeId();
    LinkSampler();

    /// Start sampling \p fabric's links (does nothing when Interval is 0).
    void Install(Ptr<RoceFabric> fabric);

    /// Start sampling \p nvswitch's GPU ports (does nothing when Interval is 0).
    void InstallNvSwitch(Ptr<NvSwitch> nvswitch);

    /// The Interval by default (1 ms): coarse enough to cost little, fine
    /// enough to show a training iteration's communication phases.
    static Time DefaultInterval();

    bool IsEnabled() const
    {
        return m_interval.IsStrictlyPositive();
    }

    /// Whether Interval is the default: sampling nobody asked for, which a
    /// run that cannot sample packets drops instead of refusing.
    bool IsDefault() const
    {
        return m_interval == DefaultInterval();
    }

    Time GetInterval() const
    {
        return m_interval;
    }

    /// Bytes sampled so far: (link, direction, job, interval index) -> bytes,
    /// the intervals under way included.
    const std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, uint64_t>& GetSamples();

    /// NVSwitch bytes sampled so far: (GPU, direction, job, interval index) -> bytes.
    const std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, double>& GetNvSwitchSamples()
        const
    {
        return m_nvBytes;
    }

    /// Write the samples as rows of run \p runId (inside the run's transaction).
    void Write(ResultsDatabase& db, int64_t runId);

  protected:
    void DoDispose() override;

  private:
    /// A job's interval under way on a link's direction.
    struct Current
    {
        int64_t job;
        int64_t bin;
        uint64_t bytes;
    };

    /// A link's direction: its jobs' intervals under way, and its last
    /// frame's queue pair (addresses, port, type) and entry of m_current.
    struct Slot
    {
        std::vector<Current> current;
        uint32_t srcIp{0};
        uint32_t dstIp{0};
        uint16_t srcPort{0};
        uint16_t etherType{0};
        std::size_t last{0};
        bool seen{false};
    };

    void OnSendStarted(uint32_t address, const RdmaMessageInfo& info);
    void OnTransmit(uint32_t link, uint8_t direction, const RoceForwardingInfo& info);
    void OnNvSwitchMoved(uint32_t job,
                         uint32_t src,
                         uint32_t dst,
                         double bytes,
                         Time from,
                         Time to);
    /// Add \p bytes to (GPU \p gpu, \p direction, \p job, interval \p bin).
    void AddNvSwitchBytes(uint32_t gpu, uint8_t direction, int64_t job, int64_t bin, double bytes);
    /// Throws once the samples would make more than m_maxRows rows.
    void CheckRows() const;
    /// The job a frame belongs to (-1 for none).
    int64_t JobOf(const RoceForwardingInfo& info) const;
    /// The interval ends: count the next one if frames went in this one.
    void Tick();
    /// Read the interval from the clock and count from there.
    void Restart();
    /// Move an interval under way into the samples.
    void Close(uint32_t slot, const Current& c);
    void CloseAll();

    Time m_interval;
    uint64_t m_maxRows{0}; ///< ns3::InputLimits::MaxMonitorRows when installed
    int64_t m_bin{0};      ///< the interval under way, while m_ticking
    bool m_ticking{false}; ///< a Tick is scheduled at the end of m_bin
    bool m_active{false};  ///< frames went in m_bin
    std::unordered_map<uint64_t, int64_t> m_jobOf; ///< (address << 16 | UDP port) -> job
    std::vector<Slot> m_slots;                     ///< per link * 2 + direction
    std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, uint64_t> m_bytes;
    std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, double> m_nvBytes;
    EventId m_tick;
};

} // namespace ns3

#endif /* LINK_SAMPLER_H */
