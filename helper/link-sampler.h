/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LINK_SAMPLER_H
#define LINK_SAMPLER_H

#include "roce-fabric-helper.h"

#include "ns3/nstime.h"
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
 * Results: `link_samples(run_id, link_id, direction, job_id, t_ns, tx_bytes)`,
 * direction 0 from the link's node_a to node_b (as in `links`), job_id NULL
 * for no job, t_ns the start of the interval, tx_bytes the frame bytes that
 * started onto the wire in it; intervals without traffic have no row.
 */
class LinkSampler : public Object
{
  public:
    static TypeId GetTypeId();
    LinkSampler();

    /// Start sampling \p fabric's links (does nothing when Interval is 0).
    void Install(Ptr<RoceFabric> fabric);

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

    /// Write the samples as rows of run \p runId (inside the run's transaction).
    void Write(ResultsDatabase& db, int64_t runId) const;

  private:
    void OnSendStarted(uint32_t address, const RdmaMessageInfo& info);
    void OnTransmit(uint32_t link, uint8_t direction, const RoceForwardingInfo& info);

    Time m_interval;
    uint64_t m_maxRows{0}; ///< ns3::InputLimits::MaxMonitorRows when installed
    std::unordered_map<uint64_t, int64_t> m_jobOf; ///< (address << 16 | UDP port) -> job
    std::map<std::tuple<uint32_t, uint8_t, int64_t, int64_t>, uint64_t> m_bytes;
};

} // namespace ns3

#endif /* LINK_SAMPLER_H */
