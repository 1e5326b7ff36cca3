/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DCQCN_H
#define DCQCN_H

#include "rdma-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief DCQCN reaction point (Zhu et al., SIGCOMM 2015), with the timer
 * behaviour of the Mellanox NIC as modelled by the HPCC simulator.
 *
 * State: current rate Rc, target rate Rt, alpha, and the increase stage
 * counters T (increase-timer expiries) and BC (byte-counter expiries) since
 * the last rate decrease.
 *
 * - Alpha timer: alpha starts at 1 and is left alone until the first CNP,
 *   which starts a periodic timer (AlphaUpdateInterval). At each expiry,
 *   alpha = (1-g) alpha + g if a CNP arrived during the period, else
 *   alpha = (1-g) alpha. CNPs change alpha only through this timer.
 * - Decrease: a CNP arriving at least RateDecreaseInterval after the last
 *   decrease (or before any) decreases at once; one arriving sooner is
 *   remembered and the decrease happens at lastDecrease + RateDecreaseInterval.
 *   A decrease sets Rt = Rc (see ClampTargetRate),
 *   Rc = max(MinRate, Rc (1 - alpha/2)), T = BC = 0, empties the byte
 *   counter and restarts the increase timer.
 * - Increase: each increase-timer expiry (RateIncreaseInterval, running
 *   from Init) and each ByteCounter bytes sent runs one increase step and
 *   then counts itself in T or BC. With T and BC counting earlier expiries
 *   (BC taken equal to T when the byte counter is off): fast recovery if
 *   max(T,BC) < F, hyper increase (Rt += HyperIncreaseRate) if
 *   min(T,BC) > F, additive increase (Rt += GetAdditiveIncrease()) otherwise;
 *   then Rt is capped at line rate and Rc = (Rt + Rc) / 2. Timer-only, this
 *   is F fast-recovery steps, one additive step, then hyper steps.
 * - Timers that fall due at the same instant run as alpha update, then
 *   rate decrease, then rate increase (a decrease restarts the increase
 *   timer, so a coinciding increase expiry does not run). A call at time t
 *   first runs every timer due at or before t.
 *
 * Timers are evaluated lazily: every call first advances the state through
 * the expiries due up to its time, exactly as scheduled events would, and a
 * call with nothing due costs one comparison. Runs of expiries that cannot
 * change the state are applied in O(1): alpha decays are kept as
 * base * (1-g)^n and applied when alpha is read, and increase expiries with
 * Rc and Rt at line rate are only counted. The trajectory therefore does
 * not depend on when the state is queried. Trace sources report the time a
 * change took effect, which can be earlier than Simulator::Now().
 */
class Dcqcn : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();

    Dcqcn();
    /// Copies the configuration only; the copy needs Init().
    Dcqcn(const Dcqcn& other);
    ~Dcqcn() override;

    std::string GetName() const override;
    Ptr<RdmaCongestionOps> Fork() const override;
    void Init(DataRate lineRate, Time now) override;
    DataRate GetRate(Time now) override;
    void OnSend(uint32_t wireBytes, Time now) override;
    void OnCnp(Time now) override;

    /// \return the current rate Rc at \p now, in bit/s, unrounded
    double GetRateBps(Time now);
    /// \return the target rate Rt at \p now, in bit/s
    double GetTargetRateBps(Time now);
    /// \return alpha at \p now
    double GetAlpha(Time now);

    /**
     * Rate trace signature. Timers run lazily, so \p when (the instant the
     * change takes effect) may be earlier than Simulator::Now().
     */
    typedef void (*RateTracedCallback)(Time when, DataRate oldRate, DataRate newRate);
    /// Alpha trace signature; \p when as for RateTracedCallback.
    typedef void (*AlphaTracedCallback)(Time when, double oldAlpha, double newAlpha);

    /// Scales the additive increase step (weighted DCQCN).
    void SetRateWeight(double weight) override;

  protected:
    /**
     * \return the additive increase step of the target rate: AdditiveIncreaseRate,
     * resolved at Init(), times the rate weight. Override to scale it further;
     * a subclass also overrides Fork().
     */
    virtual DataRate GetAdditiveIncrease() const;
    /// \return the line rate given to Init()
    DataRate GetLineRate() const;

  private:
    /// Runs every timer expiry due at or before \p now.
    void AdvanceTo(Time now);
    /// Recomputes m_nextDue after the timers changed.
    void UpdateNextDue();
    /// Runs the alpha-timer expiries due at or before \p limit.
    void AdvanceAlpha(Time limit);
    /// Runs the increase-timer expiries before \p limit (and at it if \p inclusive).
    void AdvanceIncreaseTimer(Time limit, bool inclusive);
    void Decrease(Time at);
    void IncreaseStep(Time at);
    double CurrentAlpha() const;
    void SetRate(Time at, double rate);
    void SetTargetRate(Time at, double rate);

    // Configuration (attributes).
    bool m_startAtLineRate;
    double m_g;
    Time m_alphaInterval;
    Time m_decreaseInterval;
    Time m_increaseInterval;
    uint32_t m_fastRecoveryTimes;
    DataRate m_additiveIncreaseAttr;
    DataRate m_hyperIncreaseAttr;
    DataRate m_minRateAttr;
    uint64_t m_byteCounter;
    bool m_clampTargetRate;

    // Resolved at Init.
    bool m_initialized{false};
    double m_lineBps{0};
    double m_minBps{0};
    DataRate m_additiveIncrease;
    double m_rateWeight{1.0}; //!< set by the scheduler through the NIC
    double m_hyperIncreaseBps{0};

    // State.
    Time m_lastCall;
    int64_t m_nextDue{0};      //!< time step of the next expiry that can change the state
    DataRate m_rateRounded;    //!< Rc as returned by GetRate()
    double m_rate{0};          //!< Rc, bit/s
    double m_target{0};        //!< Rt, bit/s
    double m_alphaBase{1};     //!< alpha after the last CNP-marked update
    uint64_t m_alphaDecays{0}; //!< unmarked alpha updates since then
    bool m_alphaTimerRunning{false};
    Time m_nextAlphaUpdate;
    bool m_cnpSinceAlphaUpdate{false};
    bool m_hasDecreased{false};
    Time m_lastDecrease;
    bool m_decreasePending{false};
    Time m_nextIncrease;
    uint64_t m_timerStage{0}; //!< T
    uint64_t m_byteStage{0};  //!< BC
    uint64_t m_bytesSinceStage{0};

    TracedCallback<Time, DataRate, DataRate> m_rateTrace;
    TracedCallback<Time, DataRate, DataRate> m_targetRateTrace;
    TracedCallback<Time, double, double> m_alphaTrace;
};

} // namespace ns3

#endif /* DCQCN_H */
