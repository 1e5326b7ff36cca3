/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LINK_SAMPLER_H
#define LINK_SAMPLER_H

#include "roce-fabric-helper.h"

#include "ns3/nstime.h"
#include "ns3/nvswitch.h"
#include "ns3/object.h"
#include "ns3/results-database.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Samples the bytes every link carries, per direction and per job, in
 * intervals of Interval (off, 0, by default: it costs a lookup per frame per
 * hop). A frame belongs to the job whose queue pair sent it (data) or is
 * acknowledged by it (ACK, NAK, CNP): the sampler learns the jobs' UDP
 * source ports from the NICs' SendStarted traces. PFC frames belong to no job.
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

    bool IsEnabled() const
    {
        return m_interval.IsStrictlyPositive();
    }

    Time GetInterval() const
    {
        return m_interval;
    }

    /// Bytes sampled so far: (link, direction, job, interval index) -> bytes.
    const std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, uint64_t>& GetSamples() const
    {
        return m_bytes;
    }

    /// NVSwitch bytes sampled so far: (GPU, direction, job, interval index) -> bytes.
    const std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, double>& GetNvSwitchSamples()
        const
    {
        return m_nvBytes;
    }

    /// Write the samples as rows of run \p runId (inside the run's transaction).
    void Write(ResultsDatabase& db, int64_t runId) const;

  private:
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

    Time m_interval;
    uint64_t m_maxRows{0}; ///< ns3::InputLimits::MaxMonitorRows when installed
    std::unordered_map<uint64_t, int64_t> m_jobOf; ///< (address << 16 | UDP port) -> job
    std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, uint64_t> m_bytes;
    std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, double> m_nvBytes;
};

} // namespace ns3

#endif /* LINK_SAMPLER_H */
