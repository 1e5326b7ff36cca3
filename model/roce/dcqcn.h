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
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief DCQCN reaction point (Zhu et al., SIGCOMM 2015) with the timers and
 * parameters of the ConnectX (4 and later) NIC firmware.
 *
 * State: current rate Rc, target rate Rt, alpha, and the increase stage
 * counters T (increase-timer expiries) and BC (byte-counter expiries) since
 * the last rate decrease.
 *
 * - Alpha timer: alpha starts at InitialAlpha and is left alone until the
 *   first CNP, which starts a periodic timer (AlphaUpdateInterval). At each
 *   expiry, alpha = (1-g) alpha + g if a CNP arrived during the period, else
 *   alpha = (1-g) alpha. CNPs change alpha only through this timer.
 * - First CNP: with SetRatesOnFirstCnp, the queue pair's first CNP sets Rc
 *   and Rt to RateOnFirstCnp (line rate if 0, and at most line rate) before
 *   its decrease applies.
 * - Decrease: a CNP arriving at least RateDecreaseInterval after the last
 *   decrease (or before any) decreases at once; one arriving sooner is
 *   remembered and the decrease happens at lastDecrease + RateDecreaseInterval.
 *   A decrease sets Rt = Rc if ClampTargetRate, or if
 *   ClampTargetRateAfterTimeInc and T > 0; then
 *   Rc = max(MinRate, MinDecreaseFactor% x Rc, Rc (1 - alpha 2^(10-Gd)))
 *   (Gd 11: Rc (1 - alpha/2)), T = BC = 0, empties the byte counter and
 *   restarts the increase timer.
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
 * The attribute defaults are the ConnectX firmware's (the "connectx"
 * profile). The "hpcc" profile gives the values of the HPCC simulator's
 * DCQCN (g 1/256, F 5, MinRate 100 Mb/s, no byte counter, increase steps of
 * 5 and 50 Mb/s per 25 Gb/s of line rate, alpha 1 at the first CNP, no
 * decrease floor, rates left alone by the first CNP). See GetProfile();
 * doc/collective-scheduling.rst tabulates both with the firmware names.
 * Alpha is kept as a real number, not in the firmware's 10-bit fixed point.
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
    void OnRetransmit(Time now) override;
    /// The next timer expiry (increase, pending decrease, marked alpha update).
    Time GetNextRateChange(Time now) override;

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

    /// An attribute name and its value, as ObjectFactory and Config take them.
    using AttributeSetting = std::pair<std::string, std::string>;

    /**
     * The attribute values of a named parameter set: "connectx" (the
     * firmware defaults, which are also the attribute defaults) or "hpcc"
     * (the HPCC simulator's DCQCN). Every DCQCN parameter attribute is
     * listed, so the result does not depend on earlier Config::SetDefault
     * calls; apply it before any value of one's own.
     *
     * A profile is expanded into ordinary attribute values rather than being
     * an attribute itself: an attribute applied at Init() could not tell the
     * values a user set on purpose from defaults and would overwrite them,
     * or depend on the order in which attributes were set. Expanded, the
     * precedence is the caller's order, and GetAttribute() reports what runs.
     *
     * \param name profile name, case-insensitive
     * \return (attribute, value) pairs, in ns-3's string form
     * \throw std::invalid_argument for an unknown name, listing the known ones
     */
    static std::vector<AttributeSetting> GetProfile(const std::string& name);
    /// \return the profile names GetProfile() knows, in lower case
    static std::vector<std::string> GetProfileNames();
    /**
     * Set this object's attributes to profile \p name (see GetProfile());
     * call before Init(), and before setting attributes of one's own.
     * \throw std::invalid_argument for an unknown name
     */
    void ApplyProfile(const std::string& name);

  protected:
    /**
     * \return the additive increase step of the target rate: AdditiveIncreaseRate,
     * resolved at Init(), times the rate weight. Override to scale it further;
     * a subclass also overrides Fork().
     */
    virtual DataRate GetAdditiveIncrease() const;
    /**
     * \return the factor F on the increase and decrease steps: a hyper
     * step raises Rt by F x HyperIncreaseRate, every increase step moves Rc
     * by F x (Rt - Rc) / 2 (at most to Rt), and a decrease cuts Rc by
     * alpha x 2^(10-Gd) / F of itself (at most all of it, before the floors).
     * 1 (DCQCN itself, computed as in the paper) unless overridden; the
     * additive step is scaled through GetAdditiveIncrease(). Read at every
     * increase step and decrease, never per packet.
     */
    virtual double GetStepScale() const;
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
    double m_initialAlpha;
    Time m_alphaInterval;
    Time m_decreaseInterval;
    Time m_increaseInterval;
    uint32_t m_fastRecoveryTimes;
    DataRate m_additiveIncreaseAttr;
    DataRate m_hyperIncreaseAttr;
    DataRate m_minRateAttr;
    uint64_t m_byteCounter;
    uint32_t m_gd;
    uint32_t m_minDecreaseFactor;
    DataRate m_rateOnFirstCnpAttr;
    bool m_setRatesOnFirstCnp;
    bool m_clampTargetRate;
    bool m_clampAfterTimeInc;
    double m_slowRestartFraction;

    // Resolved at Init.
    bool m_initialized{false};
    double m_lineBps{0};
    double m_minBps{0};
    double m_decreaseGain{0.5};    //!< 2^(10-Gd): a decrease multiplies Rc by 1 - alpha x this
    double m_minDecreaseRatio{0};  //!< MinDecreaseFactor / 100
    double m_rateOnFirstCnpBps{0}; //!< Rc and Rt at the first CNP (if SetRatesOnFirstCnp)
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
