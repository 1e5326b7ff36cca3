/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NVSWITCH_H
#define NVSWITCH_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * NVLink generations: the per-direction NVLink bandwidth of one GPU
 * (NvlinkGenerationRate).
 */
enum class NvlinkGeneration
{
    A100, ///< NVLink3: 12 links x 25 GB/s = 300 GB/s per direction
    H100, ///< NVLink4 (SXM): 18 links x 25 GB/s = 450 GB/s per direction
    H200, ///< NVLink4, as H100: 450 GB/s per direction
    B200, ///< NVLink5: 18 links x 50 GB/s = 900 GB/s per direction
};

/**
 * \ingroup collective-scheduling
 * One GPU's NVLink bandwidth in one direction (into its NVSwitch, or out of
 * it), from NVIDIA's datasheets (doc/design-notes.md, "NVLink and the
 * NVSwitch"): half of the bidirectional figure NVIDIA quotes.
 */
DataRate NvlinkGenerationRate(NvlinkGeneration generation);

/**
 * \ingroup collective-scheduling
 * The lower-case name of \p generation ("a100", "h100", "h200", "b200").
 */
std::string NvlinkGenerationName(NvlinkGeneration generation);

/**
 * \ingroup collective-scheduling
 * \brief The NVSwitches of a cluster's servers, as a fluid model with
 * contention: one object for the whole cluster, so that every job's
 * transport on a server shares that server's switch.
 *
 * Every GPU has one port into its server's NVSwitch (GPU -> switch) and one
 * out of it (switch -> GPU), each at the GPU's NVLink rate. A message from
 * GPU s to GPU d of one server loads s's port in and d's port out; the
 * messages in flight on a server share its ports max-min fairly
 * (progressive filling, as the flow level's MaxMinAllocator with one class
 * and equal weights; kept here since model/flow builds on this folder),
 * recomputed whenever one starts or ends on that server.
 * So two messages into one GPU each get half its rate, parallel channels of
 * one pair share the pair's ports, and messages of different jobs on one
 * server contend. The switch itself is non-blocking, as NVIDIA's are: only
 * the GPUs' ports limit, unless Capacity bounds the switch's total (a
 * blocking switch: then the jobs of one server, which never share a GPU,
 * contend too). A message's last byte arrives at the end of its
 * transfer plus the message latency (SetLatency: the GPU -> switch and
 * switch -> GPU hops), as store-and-forward pipelining hides per-byte
 * delay.
 *
 * GPU g is GPU g % gpusPerHost of host g / gpusPerHost; the GPUs of one
 * server are those of hosts with one FabricTopology::GetServerKey (one host,
 * or the single-GPU hosts of one rail-optimized server). Servers are
 * independent: a message's start or end recomputes its server's rates only.
 *
 * With Contention false, every message gets its ports' full rate, whatever
 * else is in flight: the model without an NVSwitch, kept for comparison.
 */
class NvSwitch : public Object
{
  public:
    static TypeId GetTypeId();
    NvSwitch();
    ~NvSwitch() override;

    /**
     * Build the ports of every GPU of \p topo's hosts, \p gpusPerHost each.
     * Call once, before any message.
     */
    void Setup(const FabricTopology& topo, uint32_t gpusPerHost);

    /// Rate of every port (one GPU's NVLink, one direction). Before any message.
    void SetPortRate(DataRate rate);
    DataRate GetPortRate() const;
    /// Latency of a message, added after its transfer (both hops).
    void SetLatency(Time latency);
    Time GetLatency() const;

    /// GPUs (ports in each direction).
    uint32_t GetNGpus() const
    {
        return static_cast<uint32_t>(m_serverOf.size());
    }

    /// The server index (0..) of GPU \p gpu: equal for two GPUs of one NVSwitch.
    uint32_t GetServer(uint32_t gpu) const;

    /**
     * Send \p bytes from GPU \p src to GPU \p dst of the same server, now.
     * \p onDelivered is called once, when the last byte has arrived.
     * \param job the job's id, for the trace
     * \param latencyScale multiplies the latency for this message (a job's scale)
     * \throw std::invalid_argument if the GPUs do not exist or are on different servers
     */
    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t job,
              std::function<void()> onDelivered,
              double latencyScale = 1.0);

    /// Bytes that GPU \p gpu has sent into the switch so far (its port in), up to now.
    double GetTxBytes(uint32_t gpu);
    /// Bytes that the switch has sent to GPU \p gpu so far (its port out), up to now.
    double GetRxBytes(uint32_t gpu);

    /// Messages sent so far.
    uint64_t GetMessagesSent() const
    {
        return m_sent;
    }

    /// Messages whose last byte arrived so far.
    uint64_t GetMessagesDelivered() const
    {
        return m_delivered;
    }

    /// Messages in flight (transferring) on server \p server.
    std::size_t GetActiveMessages(uint32_t server) const;

    /// A GPU's port into the switch (GPU -> NVSwitch) or out of it (NVSwitch -> GPU).
    enum class PortDirection : uint8_t
    {
        In = 0,  ///< GPU -> NVSwitch: what the GPU sends
        Out = 1, ///< NVSwitch -> GPU: what the GPU receives
    };

    /// What one port has carried and holds, now.
    struct PortState
    {
        double bytes{0};      ///< carried so far (GetTxBytes or GetRxBytes)
        double backlog{0};    ///< bytes still to transfer of the messages in flight through it
        uint32_t messages{0}; ///< messages in flight through it
    };

    /// GPU \p gpu's port in \p direction, brought up to now.
    PortState GetPort(uint32_t gpu, PortDirection direction);

    /// Trace signature: job, source GPU, destination GPU, bytes, when it was sent.
    typedef void (
        *MessageCallback)(uint32_t job, uint32_t src, uint32_t dst, uint64_t bytes, Time sent);
    /// Trace signature: job, source GPU, destination GPU, bytes moved at one
    /// rate from \p from to \p to.
    typedef void (
        *MovedCallback)(uint32_t job, uint32_t src, uint32_t dst, double bytes, Time from, Time to);

  protected:
    void DoDispose() override;

  private:
    /// One message in flight.
    struct Message
    {
        uint32_t src{0};
        uint32_t dst{0};
        uint32_t job{0};
        uint64_t bytes{0};
        double remaining{0}; ///< bytes still to transfer
        double rate{0};      ///< bytes/s
        Time sent;
        Time latency; ///< added after the last byte
        std::function<void()> onDelivered;
    };

    /// One server's NVSwitch: its GPUs and the messages in flight between them.
    struct Server
    {
        std::vector<uint32_t> gpus; ///< the GPUs, by local index
        std::vector<Message> active;
        Time updated; ///< when active's remaining bytes were last brought up to date
        EventId next; ///< the next end of a transfer
    };

    void CheckGpu(uint32_t gpu) const;
    /// Bring the server's messages' remaining bytes and the port counters up to now.
    void Advance(Server& s);
    /// New rates for the server's messages, and its next transfer end scheduled.
    void Reallocate(Server& s);
    /// A transfer of server \p server ends: deliver what is done.
    void TransferEnd(uint32_t server);

    std::vector<uint32_t> m_serverOf; ///< per GPU
    std::vector<uint32_t> m_localOf;  ///< per GPU, its index in its server
    std::vector<Server> m_servers;
    std::vector<double> m_txBytes;    ///< per GPU, into the switch
    std::vector<double> m_rxBytes;    ///< per GPU, out of the switch
    std::vector<double> m_left;       ///< per local port: rate not yet given (buffer)
    std::vector<uint32_t> m_unfrozen; ///< per local port: flows still rising (buffer)
    std::vector<uint8_t> m_frozen;    ///< per message of the server (buffer)
    DataRate m_rate{DataRate("2400Gbps")};
    Time m_latency{MicroSeconds(1)};
    bool m_contention{true};
    DataRate m_capacity{DataRate(0)}; ///< the switch's total; 0: non-blocking
    uint64_t m_sent{0};
    uint64_t m_delivered{0};
    TracedCallback<uint32_t, uint32_t, uint32_t, uint64_t, Time> m_transferTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, double, Time, Time> m_movedTrace;
};

} // namespace ns3

#endif /* NVSWITCH_H */
