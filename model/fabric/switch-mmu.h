/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCH_MMU_H
#define SWITCH_MMU_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Shared-buffer memory management unit of a RoCE switch: packet
 * admission, PFC PAUSE/RESUME decisions and the ECN RED decision.
 *
 * A pure accounting object: it holds no packets and schedules no events.
 * The switch calls it on the per-packet path; every per-packet call is O(1)
 * and allocates nothing.
 *
 * Buffer layout (BufferSize bytes in total):
 * - a reserve of ReservePerQueue bytes for every ingress (port, class);
 * - when PFC is on, a headroom of GetHeadroom(port) bytes for every ingress
 *   (port, class), which only absorbs what is still in flight after a PAUSE;
 * - the shared pool: whatever is left,
 *   BufferSize - nPorts * kClasses * ReservePerQueue
 *              - kClasses * sum over ports of GetHeadroom(port).
 * Reserve and headroom are carved out of BufferSize, so GetTotalUsed() never
 * exceeds BufferSize.
 *
 * Ingress (port, class) bytes are accounted in three parts, filled in this
 * order on Admit(): reserve, then shared pool, then headroom. A packet may be
 * split between the reserve and the shared pool; the part beyond the reserve
 * goes whole to the shared pool or whole to the headroom. Release() empties
 * the parts in the opposite order (headroom, shared, reserve): headroom is
 * the scarce margin needed for the next PAUSE episode, shared bytes are
 * wanted by every other queue, and the reserve is private to the queue.
 *
 * Dynamic threshold (PFC on): T = floor(PfcAlpha * (shared pool free bytes)).
 * The beyond-reserve part of a packet enters the shared pool only if the
 * queue's shared bytes stay within T as it stands after the admission;
 * otherwise it goes to the headroom. A queue is over threshold when it uses
 * headroom or its shared bytes exceed the current T (T shrinks as other
 * queues fill the pool).
 *
 * Lossy mode (PFC off): no headroom; the beyond-reserve part of a packet is
 * admitted only if it fits in the shared pool and the egress (port, class)
 * queue, counting the packet, stays within
 * floor(EgressAlpha * (shared pool free bytes after admission)); otherwise
 * the whole packet is dropped. A packet that fits entirely in its ingress
 * reserve is always admitted.
 *
 * BufferSize, ReservePerQueue and PfcEnabled are read by Configure();
 * Headroom and the Ecn* attributes by ConfigurePort(); PfcAlpha, EgressAlpha,
 * ResumeOffset and EcnEnabled take effect at once.
 */
class SwitchMmu : public Object
{
  public:
    /// Number of priority classes per port.
    static constexpr uint8_t kClasses = 8;

    static TypeId GetTypeId();

    /// Signature of the Drop trace: ingress port, egress port, class, bytes.
    typedef void (*DropTracedCallback)(uint32_t inPort,
                                       uint32_t outPort,
                                       uint8_t cls,
                                       uint32_t bytes);

    SwitchMmu();
    ~SwitchMmu() override;

    /**
     * Size the MMU for a switch with nPorts ports and reset all accounting.
     * Each port must then be configured with ConfigurePort().
     * \param nPorts number of ports (> 0)
     */
    void Configure(uint32_t nPorts);

    /**
     * Set a port's headroom (Headroom attribute, or 3 x rate x linkDelay +
     * 2 x mtuFrameBytes when it is 0) and ECN RED parameters (scaled from the
     * EcnKminPer25G / EcnKmaxPer25G / EcnPmax attributes by rate / 25 Gb/s).
     * Throws if the reserves and headrooms no longer fit in BufferSize.
     * \param port port index (< nPorts)
     * \param rate link rate of the port
     * \param linkDelay one-way propagation delay of the attached link
     * \param mtuFrameBytes largest frame on the link, in bytes
     */
    void ConfigurePort(uint32_t port, DataRate rate, Time linkDelay, uint32_t mtuFrameBytes);

    /**
     * Override a port's ECN RED parameters (call after ConfigurePort()).
     * \param port port index
     * \param kminBytes queue length below which nothing is marked
     * \param kmaxBytes queue length above which everything is marked (>= kminBytes)
     * \param pmax marking probability at kmaxBytes, in [0, 1]
     */
    void SetEcnParams(uint32_t port, uint64_t kminBytes, uint64_t kmaxBytes, double pmax);

    /**
     * Decide whether a packet may be buffered and, if so, account it to the
     * ingress (inPort, cls) and the egress (outPort, cls). Fires the Drop
     * trace when it returns false.
     * \return true if admitted, false if it must be dropped
     */
    bool Admit(uint32_t inPort, uint32_t outPort, uint8_t cls, uint32_t bytes);

    /**
     * A packet admitted with the same (inPort, outPort, cls, bytes) left the
     * egress queue (or was discarded after admission): undo its accounting.
     * Ingress parts are emptied headroom first, then shared, then reserve.
     */
    void Release(uint32_t inPort, uint32_t outPort, uint8_t cls, uint32_t bytes);

    /**
     * \return true if PFC is on, the ingress (inPort, cls) is over its
     * threshold and it is not already marked paused; the caller then sends
     * PAUSE upstream and calls SetPaused(inPort, cls, true).
     */
    bool CheckPause(uint32_t inPort, uint8_t cls) const;

    /**
     * \return true if the ingress (inPort, cls) is marked paused, uses no
     * headroom, and its shared bytes s satisfy s + ResumeOffset <= T or
     * s == 0 (so a drained queue resumes even when T < ResumeOffset); the
     * caller then sends RESUME and calls SetPaused(inPort, cls, false).
     */
    bool CheckResume(uint32_t inPort, uint8_t cls) const;

    void SetPaused(uint32_t inPort, uint8_t cls, bool paused);
    bool IsPaused(uint32_t inPort, uint8_t cls) const;

    /**
     * RED marking probability of the egress (outPort, cls) queue as it stands:
     * 0 if q <= Kmin, 1 if q > Kmax, Pmax * (q - Kmin) / (Kmax - Kmin)
     * otherwise; 0 when ECN is off.
     */
    double GetMarkProbability(uint32_t outPort, uint8_t cls) const;

    /**
     * \param uniform01 a uniform draw in [0, 1) supplied by the caller
     * \return true if uniform01 < GetMarkProbability(outPort, cls). Reads the
     * egress bytes at call time: call after Release() to mark on dequeue
     * (as the HPCC simulator does) or after Admit() to mark on enqueue.
     */
    bool ShouldMarkEcn(uint32_t outPort, uint8_t cls, double uniform01) const;

    /// Bytes accounted to the ingress (port, cls): reserve + shared + headroom.
    uint64_t GetIngressBytes(uint32_t port, uint8_t cls) const;
    uint64_t GetIngressReserveBytes(uint32_t port, uint8_t cls) const;
    uint64_t GetIngressSharedBytes(uint32_t port, uint8_t cls) const;
    uint64_t GetIngressHeadroomBytes(uint32_t port, uint8_t cls) const;
    /// Bytes queued at the egress (port, cls).
    uint64_t GetEgressBytes(uint32_t port, uint8_t cls) const;

    /// Shared-pool bytes in use, all queues.
    uint64_t GetSharedUsed() const;
    /// Headroom bytes in use, all queues.
    uint64_t GetHeadroomUsed() const;
    /// Reserve bytes in use, all queues.
    uint64_t GetReserveUsed() const;
    /// Reserve + shared + headroom bytes in use.
    uint64_t GetTotalUsed() const;
    /// Size of the shared pool (see the class description).
    uint64_t GetSharedPoolSize() const;
    /// Current PFC threshold: floor(PfcAlpha * (shared pool free bytes)).
    uint64_t GetThreshold() const;
    /// Current lossy egress threshold: floor(EgressAlpha * (shared pool free bytes)).
    uint64_t GetEgressThreshold() const;

    /// Headroom of every ingress (port, class) of the port (0 when PFC is off).
    uint64_t GetHeadroom(uint32_t port) const;
    uint64_t GetKmin(uint32_t port) const;
    uint64_t GetKmax(uint32_t port) const;
    double GetPmax(uint32_t port) const;

    uint32_t GetNPorts() const;

  private:
    /// Accounting of one ingress (port, class).
    struct IngressQueue
    {
        uint64_t reserve{0};  ///< bytes in the queue's reserve
        uint64_t shared{0};   ///< bytes in the shared pool
        uint64_t headroom{0}; ///< bytes in the queue's headroom
        bool paused{false};   ///< PAUSE sent and not yet resumed
    };

    /// Per-port configuration.
    struct PortConfig
    {
        uint64_t headroom{0}; ///< headroom of each class of the port
        uint64_t kmin{0};     ///< ECN Kmin, bytes
        uint64_t kmax{0};     ///< ECN Kmax, bytes
        double pmax{0};       ///< ECN Pmax
        bool configured{false};
    };

    /// Index of (port, cls) in the flat per-queue vectors; throws if out of range.
    std::size_t Index(const char* where, uint32_t port, uint8_t cls) const
    {
        // Inline: every per-packet call goes through here.
        if (port >= m_nPorts || cls >= kClasses)
        {
            OutOfRange(where, port, cls);
        }
        return static_cast<std::size_t>(port) * kClasses + cls;
    }

    /// Throw for a (port, class) out of range.
    [[noreturn]] void OutOfRange(const char* where, uint32_t port, uint8_t cls) const;
    /// Throws if port is out of range.
    void CheckPort(const char* where, uint32_t port) const;
    /// Throws unless every port was configured.
    void CheckReady(const char* where) const;
    /// Over threshold: uses headroom, or shared bytes above the current threshold.
    bool IsOverThreshold(const IngressQueue& q) const;

    // Attributes.
    uint64_t m_bufferSize;
    uint64_t m_reservePerQueue;
    double m_pfcAlpha;
    uint64_t m_resumeOffset;
    uint64_t m_headroomAttr;
    bool m_pfcEnabled;
    double m_egressAlpha;
    bool m_ecnEnabled;
    uint64_t m_ecnKminPer25G;
    uint64_t m_ecnKmaxPer25G;
    double m_ecnPmax;

    // Configuration derived by Configure() / ConfigurePort().
    uint32_t m_nPorts{0};
    uint64_t m_buffer{0};  ///< BufferSize as read by Configure()
    uint64_t m_reserve{0}; ///< ReservePerQueue as read by Configure()
    bool m_lossless{true}; ///< PfcEnabled as read by Configure()
    uint32_t m_configuredPorts{0};
    uint64_t m_totalReserve{0};  ///< nPorts * kClasses * ReservePerQueue
    uint64_t m_totalHeadroom{0}; ///< kClasses * sum of port headrooms
    uint64_t m_sharedPoolSize{0};
    std::vector<PortConfig> m_ports;

    // Accounting.
    std::vector<IngressQueue> m_ingress; ///< indexed by port * kClasses + cls
    std::vector<uint64_t> m_egress;      ///< indexed by port * kClasses + cls
    uint64_t m_reserveUsed{0};
    uint64_t m_sharedUsed{0};
    uint64_t m_headroomUsed{0};

    /// A packet did not fit: (inPort, outPort, cls, bytes).
    TracedCallback<uint32_t, uint32_t, uint8_t, uint32_t> m_dropTrace;
};

} // namespace ns3

#endif /* SWITCH_MMU_H */
