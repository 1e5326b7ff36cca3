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
#include <string>
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
 * Classes. LosslessClasses (default 3, the RDMA data class) lists the
 * priority groups that are lossless while PfcEnabled is true: they are
 * paused (PFC) instead of dropped and only they get headroom. Every other
 * class is lossy (dropped at the egress dynamic threshold, see below), as
 * is every class when PfcEnabled is false. The control class
 * (RoceNetDevice::kControlClass, ACK/NAK/CNP) is lossy unless listed.
 *
 * Buffer layout (BufferSize bytes in total), Carving = PerClass (default):
 * - a reserve of ReservePerQueue bytes for every ingress (port, class) in
 *   use: the classes of LosslessClasses (even with PfcEnabled false, so
 *   turning PFC off changes only pausing and headroom) and the control
 *   class; other classes have no reserve and draw on the shared pool from
 *   their first byte;
 * - a headroom of GetHeadroom(port) bytes for every ingress (port, lossless
 *   class), which only absorbs what is still in flight after a PAUSE;
 * - the shared pool: whatever is left,
 *   BufferSize - nPorts * nReserved * ReservePerQueue
 *              - nLossless * sum over ports of GetHeadroom(port),
 *   nReserved and nLossless being the numbers of classes above.
 * Reserve and headroom are carved out of BufferSize, so GetTotalUsed() never
 * exceeds BufferSize.
 *
 * Carving = PerPort is the HPCC simulator's accounting: one ReservePerQueue
 * and one headroom per port are carved out,
 *   shared pool = BufferSize - nPorts * ReservePerQueue
 *                            - sum over ports of GetHeadroom(port),
 * yet every class of a port may hold ReservePerQueue in reserve and every
 * lossless class of it GetHeadroom(port) in headroom. The carve-out is thus
 * oversubscribed when several classes of one port use their reserve or
 * headroom at once, and GetTotalUsed() may then exceed BufferSize.
 *
 * Ingress (port, class) bytes are accounted in three parts, filled in this
 * order on Admit(): reserve, then shared pool, then headroom. A packet may be
 * split between the reserve and the shared pool; the part beyond the reserve
 * goes whole to the shared pool or whole to the headroom. Release() empties
 * the parts in the opposite order (headroom, shared, reserve): headroom is
 * the scarce margin needed for the next PAUSE episode, shared bytes are
 * wanted by every other queue, and the reserve is private to the queue.
 *
 * Dynamic threshold (lossless classes): T = floor(PfcAlpha * (shared pool
 * free bytes)). The beyond-reserve part of a packet enters the shared pool
 * only if the queue's shared bytes stay within T as it stands after the
 * admission; otherwise it goes to the headroom. A queue is over threshold
 * when it uses headroom or its shared bytes exceed the current T (T shrinks
 * as other queues fill the pool). A lone congested queue therefore pauses
 * once its shared bytes would pass PfcAlpha / (1 + PfcAlpha) x pool
 * (GetPauseOnsetBytes()).
 *
 * Lossy classes: no headroom; the beyond-reserve part of a packet is
 * admitted only if it fits in the shared pool and the egress (port, class)
 * queue, counting the packet, stays within
 * floor(EgressAlpha * (shared pool free bytes after admission)); otherwise
 * the whole packet is dropped. A packet that fits entirely in its ingress
 * reserve is always admitted.
 *
 * BufferSize, ReservePerQueue, PfcEnabled, LosslessClasses and Carving are
 * read by Configure() (SetLosslessClasses() changes the classes later);
 * Headroom, HeadroomFrames and the Ecn* attributes by ConfigurePort();
 * PfcAlpha, EgressAlpha, ResumeOffset and EcnEnabled take effect at once.
 */
class SwitchMmu : public Object
{
  public:
    /// Number of priority classes per port.
    static constexpr uint8_t kClasses = 8;

    /// How reserve and headroom are carved out of BufferSize (class description).
    enum Carving
    {
        CARVE_PER_CLASS, ///< per (port, class in use) and per (port, lossless class)
        CARVE_PER_PORT,  ///< once per port, as the HPCC simulator
    };

    static TypeId GetTypeId();

    /**
     * Parse a class list as LosslessClasses takes it: comma-separated
     * classes 0-7 and ranges, "3", "0-6", "1,3-5"; empty or "none" for no
     * class.
eturn bit c set for class c
     * 	hrow std::invalid_argument naming the bad part
     */
    static uint8_t ParseClassList(const std::string& text);
    /// The list form of a class mask: "3", "0-6", "1,3-5", "none".
    static std::string FormatClassList(uint8_t mask);

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
     * Set a port's headroom (Headroom attribute, or 3 x floor(rate x
     * linkDelay in bytes) + HeadroomFrames x mtuFrameBytes when it is 0) and ECN RED parameters
     * (scaled from the EcnKminPer25G / EcnKmaxPer25G / EcnPmax attributes by
     * rate / 25 Gb/s). Throws if the reserves and headrooms no longer fit in
     * BufferSize.
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
     * Make exactly the classes of \p mask (bit c for class c) lossless, as
     * the LosslessClasses attribute would, and carve the buffer again. May be
     * called before Configure() or while nothing is buffered.
     * \throw std::runtime_error if packets are buffered or the new reserves
     * and headrooms do not fit in BufferSize (nothing is changed then)
     */
    void SetLosslessClasses(uint8_t mask);

    /// The lossless classes as configured (bit c for class c), PFC on or off.
    uint8_t GetLosslessClasses() const;

    /// Whether class \p cls is lossless now: PfcEnabled and listed in LosslessClasses.
    bool IsLossless(uint8_t cls) const;

    /// Classes with a reserve (bit c for class c); see the class description.
    uint8_t GetReservedClasses() const;

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

    /// Reserve bytes carved out of BufferSize.
    uint64_t GetReserveCarved() const;
    /// Headroom bytes carved out of BufferSize.
    uint64_t GetHeadroomCarved() const;

    /**
     * Egress bytes of a (port, lossless class) fed by one congested ingress
     * queue of an otherwise empty switch when that ingress queue pauses:
     * its reserve (ReservePerQueue) plus the largest shared bytes s it may
     * hold, s <= floor(PfcAlpha x (pool - s)), i.e. about
     * PfcAlpha / (1 + PfcAlpha) x GetSharedPoolSize(). An egress Kmin at or
     * above it is never exceeded before that PAUSE, so ECN cannot act before
     * PFC. 0 when no class is lossless.
     */
    uint64_t GetPauseOnsetBytes() const;

    /// Headroom of every ingress (port, lossless class) of the port (0 when no class is).
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
        uint64_t headroom{0}; ///< headroom of each lossless class of the port
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
    void CheckReady(const char* where) const
    {
        if (m_nPorts == 0 || m_configuredPorts != m_nPorts)
        {
            NotReady(where);
        }
    }

    [[noreturn]] void NotReady(const char* where) const;
    /// Over threshold: uses headroom, or shared bytes above the current threshold.
    bool IsOverThreshold(const IngressQueue& q) const;
    /// Set the class masks from m_losslessConfigured, m_lossless and m_carving.
    void UpdateClassMasks();
    /// Bytes carved for reserves and for headrooms with the current masks and ports.
    uint64_t ReserveCarve() const;
    uint64_t HeadroomCarve(uint64_t sumPortHeadroom) const;
    /// Throw (in \p where, about \p what) unless reserve + headroom fit in the buffer.
    void CheckFits(const char* where,
                   const std::string& what,
                   uint64_t reserve,
                   uint64_t headroom) const;

    // Attributes.
    uint64_t m_bufferSize;
    uint64_t m_reservePerQueue;
    double m_pfcAlpha;
    uint64_t m_resumeOffset;
    uint64_t m_headroomAttr;
    uint32_t m_headroomFrames;
    bool m_pfcEnabled;
    std::string m_losslessText;
    Carving m_carvingAttr;
    double m_egressAlpha;
    bool m_ecnEnabled;
    uint64_t m_ecnKminPer25G;
    uint64_t m_ecnKmaxPer25G;
    double m_ecnPmax;

    // Configuration derived by Configure() / ConfigurePort().
    uint32_t m_nPorts{0};
    uint64_t m_buffer{0};               ///< BufferSize as read by Configure()
    uint64_t m_reserve{0};              ///< ReservePerQueue as read by Configure()
    bool m_lossless{true};              ///< PfcEnabled as read by Configure()
    Carving m_carving{CARVE_PER_CLASS}; ///< Carving as read by Configure()
    uint8_t m_losslessConfigured{0};    ///< LosslessClasses, PFC on or off
    uint8_t m_losslessMask{0};          ///< lossless now: configured and PFC on
    uint8_t m_reserveMask{0};           ///< classes with a reserve
    uint32_t m_configuredPorts{0};
    uint64_t m_sumPortHeadroom{0}; ///< sum of the configured ports' headrooms
    uint64_t m_totalReserve{0};    ///< reserve carved out of the buffer
    uint64_t m_totalHeadroom{0};   ///< headroom carved out of the buffer
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
