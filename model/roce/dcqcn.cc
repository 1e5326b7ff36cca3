/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dcqcn.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/short-name-registry.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Dcqcn");
NS_OBJECT_ENSURE_REGISTERED(Dcqcn);
NS_OBJECT_SHORT_NAME(Dcqcn, "dcqcn");

namespace
{

/// Rounds a rate in bit/s to a DataRate.
DataRate
ToDataRate(double bps)
{
    return DataRate(static_cast<uint64_t>(std::llround(bps)));
}

} // namespace

TypeId
Dcqcn::GetTypeId()
{
    // Defaults: ConnectX-4 and later firmware (NVIDIA DOCA "DCQCN CC Parameters"; Mellanox
    // community "DCQCN Parameters"), named as mlxconfig prints them.
    static TypeId tid =
        TypeId("ns3::Dcqcn")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<Dcqcn>()
            .AddAttribute("StartAtLineRate",
                          "Start at line rate (as the NIC does); otherwise start at MinRate and "
                          "recover from there (a modelling option, no firmware counterpart).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&Dcqcn::m_startAtLineRate),
                          MakeBooleanChecker())
            .AddAttribute("G",
                          "Gain g of the alpha estimator, in (0,1] (DCQCN paper's g). Firmware "
                          "DCE_TCP_G = 1024 (1 - g): its default 1019 is g = 5/1024.",
                          DoubleValue(5.0 / 1024),
                          MakeDoubleAccessor(&Dcqcn::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "Alpha when the first CNP arrives, in [0,1]. Firmware "
                          "INITIAL_ALPHA_VALUE = 1024 x this: its default 1023 is 1023/1024.",
                          DoubleValue(1023.0 / 1024),
                          MakeDoubleAccessor(&Dcqcn::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AlphaUpdateInterval",
                          "Period of the alpha update timer, started by the first CNP "
                          "(firmware DCE_TCP_RTT, 1 us).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&Dcqcn::m_alphaInterval),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("RateDecreaseInterval",
                          "Minimum time between two rate decreases "
                          "(firmware RATE_REDUCE_MONITOR_PERIOD, 4 us).",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&Dcqcn::m_decreaseInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RateIncreaseInterval",
                          "Period of the rate increase timer, restarted at each decrease "
                          "(firmware RPG_TIME_RESET, 300 us).",
                          TimeValue(MicroSeconds(300)),
                          MakeTimeAccessor(&Dcqcn::m_increaseInterval),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("FastRecoveryTimes",
                          "Stage threshold F: fast-recovery steps after a decrease "
                          "(firmware RPG_THRESHOLD, 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&Dcqcn::m_fastRecoveryTimes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncreaseRate",
                          "Target-rate step of additive increase, in bit/s (firmware RPG_AI_RATE, "
                          "5 Mb/s, whatever the line rate). 0 selects the HPCC simulator's "
                          "step, 5 Mb/s per 25 Gb/s of line rate (the hpcc profile).",
                          DataRateValue(DataRate("5Mb/s")),
                          MakeDataRateAccessor(&Dcqcn::m_additiveIncreaseAttr),
                          MakeDataRateChecker())
            .AddAttribute("HyperIncreaseRate",
                          "Target-rate step of hyper increase, in bit/s (firmware RPG_HAI_RATE, "
                          "50 Mb/s, whatever the line rate). 0 selects the HPCC simulator's "
                          "step, 50 Mb/s per 25 Gb/s of line rate (the hpcc profile).",
                          DataRateValue(DataRate("50Mb/s")),
                          MakeDataRateAccessor(&Dcqcn::m_hyperIncreaseAttr),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Floor of the current rate, in bit/s, capped at line rate "
                          "(firmware RPG_MIN_RATE, 1 Mb/s).",
                          DataRateValue(DataRate("1Mb/s")),
                          MakeDataRateAccessor(&Dcqcn::m_minRateAttr),
                          MakeDataRateChecker())
            .AddAttribute("ByteCounter",
                          "Bytes sent (on the wire) per byte-counter increase step; 0 disables "
                          "the byte counter (firmware RPG_BYTE_RESET, 32767 bytes).",
                          UintegerValue(32767),
                          MakeUintegerAccessor(&Dcqcn::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Gd",
                          "Decrease shift, 10 or 11 (the firmware's range): a decrease "
                          "multiplies Rc by 1 - alpha x 2^(10-Gd), the firmware's "
                          "Rc (1 - alpha_fixed / 2^Gd) with alpha in 10-bit fixed point; 11 is "
                          "the DCQCN paper's Rc (1 - alpha/2), 10 is Rc (1 - alpha) "
                          "(firmware RPG_GD, 11).",
                          UintegerValue(11),
                          MakeUintegerAccessor(&Dcqcn::m_gd),
                          MakeUintegerChecker<uint32_t>(10, 11))
            .AddAttribute("MinDecreaseFactor",
                          "Largest cut of one decrease, in percent, in [0,100]: a decrease never "
                          "takes Rc below this percentage of the rate before it (100 prevents "
                          "decreases, 0 leaves them unbounded) (firmware RPG_MIN_DEC_FAC, 50).",
                          UintegerValue(50),
                          MakeUintegerAccessor(&Dcqcn::m_minDecreaseFactor),
                          MakeUintegerChecker<uint32_t>(0, 100))
            .AddAttribute("RateOnFirstCnp",
                          "Rate, in bit/s, that the queue pair's first CNP gives Rc and Rt before "
                          "its decrease applies; 0 means line rate, and more than line rate is "
                          "line rate (firmware RATE_TO_SET_ON_FIRST_CNP, 0). Only with "
                          "SetRatesOnFirstCnp.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&Dcqcn::m_rateOnFirstCnpAttr),
                          MakeDataRateChecker())
            .AddAttribute("SlowRestartFraction",
                          "Slow restart (RdmaNic::SlowRestart): a queue pair that goes back "
                          "resumes at this fraction of line rate if it was faster, with its "
                          "target rate where it was, so that fast recovery climbs back. "
                          "NVIDIA does not publish the rate; 0.1 is this model's choice.",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&Dcqcn::m_slowRestartFraction),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("SetRatesOnFirstCnp",
                          "Whether the first CNP sets Rc and Rt to RateOnFirstCnp (as the "
                          "firmware does); false leaves them as they are (the hpcc profile).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&Dcqcn::m_setRatesOnFirstCnp),
                          MakeBooleanChecker())
            .AddAttribute("ClampTargetRate",
                          "Every decrease sets Rt = Rc (the DCQCN paper's rule) "
                          "(firmware CLAMP_TGT_RATE, 0).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&Dcqcn::m_clampTargetRate),
                          MakeBooleanChecker())
            .AddAttribute("ClampTargetRateAfterTimeInc",
                          "A decrease sets Rt = Rc if the increase timer has expired since the "
                          "last decrease, so back-to-back cuts keep the earlier target "
                          "(firmware CLAMP_TGT_RATE_AFTER_TIME_INC, 1).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&Dcqcn::m_clampAfterTimeInc),
                          MakeBooleanChecker())
            .AddTraceSource("Rate",
                            "Current rate Rc changed (time of the change, old, new).",
                            MakeTraceSourceAccessor(&Dcqcn::m_rateTrace),
                            "ns3::Dcqcn::RateTracedCallback")
            .AddTraceSource("TargetRate",
                            "Target rate Rt changed (time of the change, old, new).",
                            MakeTraceSourceAccessor(&Dcqcn::m_targetRateTrace),
                            "ns3::Dcqcn::RateTracedCallback")
            .AddTraceSource("Alpha",
                            "Alpha raised by a CNP-marked update (time, old, new); decays between "
                            "reports follow alpha (1-g)^n.",
                            MakeTraceSourceAccessor(&Dcqcn::m_alphaTrace),
                            "ns3::Dcqcn::AlphaTracedCallback");
    return tid;
}

namespace
{

/// One named parameter set: (attribute, value) in ns-3's string form.
struct Profile
{
    const char* name;
    std::vector<Dcqcn::AttributeSetting> settings;
};

const std::vector<Profile>&
Profiles()
{
    static const std::vector<Profile> profiles{
        // The attribute defaults (a test keeps the two equal).
        {"connectx",
         {{"StartAtLineRate", "true"},
          {"G", "0.0048828125"},            // 5/1024: DCE_TCP_G 1019
          {"InitialAlpha", "0.9990234375"}, // 1023/1024
          {"AlphaUpdateInterval", "1us"},
          {"RateDecreaseInterval", "4us"},
          {"RateIncreaseInterval", "300us"},
          {"FastRecoveryTimes", "1"},
          {"AdditiveIncreaseRate", "5Mb/s"},
          {"HyperIncreaseRate", "50Mb/s"},
          {"MinRate", "1Mb/s"},
          {"ByteCounter", "32767"},
          {"Gd", "11"},
          {"MinDecreaseFactor", "50"},
          {"RateOnFirstCnp", "0bps"},
          {"SetRatesOnFirstCnp", "true"},
          {"ClampTargetRate", "false"},
          {"ClampTargetRateAfterTimeInc", "true"},
          {"SlowRestartFraction", "0.1"}}}, // not published; this model's choice
        // The HPCC simulator's DCQCN ("mlx" mode), as this class ran it before it had profiles.
        {"hpcc",
         {{"StartAtLineRate", "true"},
          {"G", "0.00390625"}, // 1/256
          {"InitialAlpha", "1"},
          {"AlphaUpdateInterval", "1us"},
          {"RateDecreaseInterval", "4us"},
          {"RateIncreaseInterval", "300us"},
          {"FastRecoveryTimes", "5"},
          {"AdditiveIncreaseRate", "0bps"}, // 5 Mb/s per 25 Gb/s of line rate
          {"HyperIncreaseRate", "0bps"},    // 50 Mb/s per 25 Gb/s of line rate
          {"MinRate", "100Mb/s"},
          {"ByteCounter", "0"},
          {"Gd", "11"},
          {"MinDecreaseFactor", "0"},
          {"RateOnFirstCnp", "0bps"},
          {"SetRatesOnFirstCnp", "false"},
          {"ClampTargetRate", "false"},
          {"ClampTargetRateAfterTimeInc", "true"},
          {"SlowRestartFraction", "0.1"}}}, // the simulator has none: hpcc-compat turns it off
    };
    return profiles;
}

} // namespace

std::vector<std::string>
Dcqcn::GetProfileNames()
{
    std::vector<std::string> names;
    for (const Profile& p : Profiles())
    {
        names.emplace_back(p.name);
    }
    return names;
}

std::vector<Dcqcn::AttributeSetting>
Dcqcn::GetProfile(const std::string& name)
{
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    std::string known;
    for (const Profile& p : Profiles())
    {
        if (lower == p.name)
        {
            return p.settings;
        }
        known += (known.empty() ? "" : ", ") + std::string(p.name);
    }
    throw std::invalid_argument("unknown DCQCN profile '" + name + "' (known: " + known + ")");
}

void
Dcqcn::ApplyProfile(const std::string& name)
{
    for (const auto& [attribute, value] : GetProfile(name))
    {
        SetAttribute(attribute, StringValue(value));
    }
}

Dcqcn::Dcqcn()
{
    NS_LOG_FUNCTION(this);
}

Dcqcn::Dcqcn(const Dcqcn& other)
    : RdmaCongestionOps(other),
      m_startAtLineRate(other.m_startAtLineRate),
      m_g(other.m_g),
      m_initialAlpha(other.m_initialAlpha),
      m_alphaInterval(other.m_alphaInterval),
      m_decreaseInterval(other.m_decreaseInterval),
      m_increaseInterval(other.m_increaseInterval),
      m_fastRecoveryTimes(other.m_fastRecoveryTimes),
      m_additiveIncreaseAttr(other.m_additiveIncreaseAttr),
      m_hyperIncreaseAttr(other.m_hyperIncreaseAttr),
      m_minRateAttr(other.m_minRateAttr),
      m_byteCounter(other.m_byteCounter),
      m_gd(other.m_gd),
      m_minDecreaseFactor(other.m_minDecreaseFactor),
      m_rateOnFirstCnpAttr(other.m_rateOnFirstCnpAttr),
      m_setRatesOnFirstCnp(other.m_setRatesOnFirstCnp),
      m_clampTargetRate(other.m_clampTargetRate),
      m_clampAfterTimeInc(other.m_clampAfterTimeInc),
      m_slowRestartFraction(other.m_slowRestartFraction)
{
    NS_LOG_FUNCTION(this);
}

Dcqcn::~Dcqcn()
{
    NS_LOG_FUNCTION(this);
}

std::string
Dcqcn::GetName() const
{
    return "Dcqcn";
}

Ptr<RdmaCongestionOps>
Dcqcn::Fork() const
{
    return CopyObject<Dcqcn>(this);
}

void
Dcqcn::Init(DataRate lineRate, Time now)
{
    NS_LOG_FUNCTION(this << lineRate << now);
    if (lineRate.GetBitRate() == 0)
    {
        throw std::runtime_error("Dcqcn: line rate must be positive");
    }
    if (!m_alphaInterval.IsStrictlyPositive())
    {
        throw std::runtime_error("Dcqcn: attribute AlphaUpdateInterval must be positive");
    }
    if (!m_increaseInterval.IsStrictlyPositive())
    {
        throw std::runtime_error("Dcqcn: attribute RateIncreaseInterval must be positive");
    }
    if (m_decreaseInterval.IsStrictlyNegative())
    {
        throw std::runtime_error("Dcqcn: attribute RateDecreaseInterval must not be negative");
    }
    if (!(m_g > 0.0 && m_g <= 1.0))
    {
        throw std::runtime_error("Dcqcn: attribute G must be in (0,1]");
    }

    if (!(m_initialAlpha >= 0.0 && m_initialAlpha <= 1.0))
    {
        throw std::runtime_error("Dcqcn: attribute InitialAlpha must be in [0,1]");
    }
    if (m_gd != 10 && m_gd != 11)
    {
        throw std::runtime_error("Dcqcn: attribute Gd must be 10 or 11");
    }
    if (m_minDecreaseFactor > 100)
    {
        throw std::runtime_error("Dcqcn: attribute MinDecreaseFactor must be in [0,100] (percent)");
    }
    if (m_rateOnFirstCnpAttr.GetBitRate() > 0 &&
        m_rateOnFirstCnpAttr.GetBitRate() < m_minRateAttr.GetBitRate())
    {
        throw std::runtime_error("Dcqcn: attribute RateOnFirstCnp (" +
                                 std::to_string(m_rateOnFirstCnpAttr.GetBitRate()) +
                                 " bps) is below MinRate (" +
                                 std::to_string(m_minRateAttr.GetBitRate()) + " bps)");
    }

    m_lineBps = static_cast<double>(lineRate.GetBitRate());
    m_minBps = std::min(static_cast<double>(m_minRateAttr.GetBitRate()), m_lineBps);
    // Exact powers of two: Gd 11 multiplies by 0.5 exactly, as alpha / 2 would.
    m_decreaseGain = std::ldexp(1.0, 10 - static_cast<int>(m_gd));
    m_minDecreaseRatio = m_minDecreaseFactor / 100.0;
    m_rateOnFirstCnpBps =
        m_rateOnFirstCnpAttr.GetBitRate() > 0
            ? std::min(static_cast<double>(m_rateOnFirstCnpAttr.GetBitRate()), m_lineBps)
            : m_lineBps;
    // A step of 0 is the HPCC simulator's, given per 25 Gb/s of line rate.
    const double scale = m_lineBps / 25e9;
    m_additiveIncrease =
        m_additiveIncreaseAttr.GetBitRate() > 0 ? m_additiveIncreaseAttr : ToDataRate(5e6 * scale);
    m_hyperIncreaseBps = m_hyperIncreaseAttr.GetBitRate() > 0
                             ? static_cast<double>(m_hyperIncreaseAttr.GetBitRate())
                             : static_cast<double>(ToDataRate(50e6 * scale).GetBitRate());

    m_lastCall = now;
    m_rate = m_startAtLineRate ? m_lineBps : m_minBps;
    m_target = m_lineBps;
    // Alpha is untouched until the first CNP starts its timer, so this is alpha at that CNP.
    m_alphaBase = m_initialAlpha;
    m_alphaDecays = 0;
    m_alphaTimerRunning = false;
    m_nextAlphaUpdate = now;
    m_cnpSinceAlphaUpdate = false;
    m_hasDecreased = false;
    m_lastDecrease = now;
    m_decreasePending = false;
    // The increase phase starts at Init: a no-op at line rate, a ramp from MinRate otherwise.
    m_nextIncrease = now + m_increaseInterval;
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytesSinceStage = 0;
    m_rateRounded = ToDataRate(m_rate);
    m_initialized = true;
    UpdateNextDue();
}

DataRate
Dcqcn::GetRate(Time now)
{
    AdvanceTo(now);
    return m_rateRounded;
}

void
Dcqcn::OnSend(uint32_t wireBytes, Time now)
{
    AdvanceTo(now);
    if (m_byteCounter == 0)
    {
        return;
    }
    m_bytesSinceStage += wireBytes;
    while (m_bytesSinceStage >= m_byteCounter)
    {
        m_bytesSinceStage -= m_byteCounter;
        IncreaseStep(now);
        ++m_byteStage;
    }
}

void
Dcqcn::OnCnp(Time now)
{
    NS_LOG_FUNCTION(this << now);
    AdvanceTo(now);
    AdvanceAlpha(now); // the decrease below reads alpha
    if (!m_alphaTimerRunning)
    {
        // As in the NIC, alpha starts being estimated with the first CNP.
        m_alphaTimerRunning = true;
        m_nextAlphaUpdate = now + m_alphaInterval;
        if (m_setRatesOnFirstCnp)
        {
            // RATE_TO_SET_ON_FIRST_CNP: "rates (current, target) on first CNP"; the decrease
            // below then applies to them.
            SetTargetRate(now, m_rateOnFirstCnpBps);
            SetRate(now, m_rateOnFirstCnpBps);
        }
    }
    m_cnpSinceAlphaUpdate = true;
    if (!m_hasDecreased || now - m_lastDecrease >= m_decreaseInterval)
    {
        Decrease(now);
    }
    else
    {
        m_decreasePending = true;
    }
    UpdateNextDue();
}

void
Dcqcn::OnRetransmit(Time now)
{
    NS_LOG_FUNCTION(this << now);
    AdvanceTo(now);
    const double restart = std::max(m_minBps, m_lineBps * m_slowRestartFraction);
    if (m_rate <= restart)
    {
        return;
    }
    // As a decrease: the target keeps the rate it was at, the increase
    // stages start over, so fast recovery halves the gap every step.
    SetTargetRate(now, m_rate);
    SetRate(now, restart);
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytesSinceStage = 0;
    m_nextIncrease = now + m_increaseInterval;
    UpdateNextDue();
}

Time
Dcqcn::GetNextRateChange(Time now)
{
    AdvanceTo(now);
    return TimeStep(m_nextDue);
}

double
Dcqcn::GetRateBps(Time now)
{
    AdvanceTo(now);
    return m_rate;
}

double
Dcqcn::GetTargetRateBps(Time now)
{
    AdvanceTo(now);
    return m_target;
}

double
Dcqcn::GetAlpha(Time now)
{
    AdvanceTo(now);
    AdvanceAlpha(now);
    return CurrentAlpha();
}

void
Dcqcn::SetRateWeight(double weight)
{
    NS_ABORT_MSG_UNLESS(weight > 0, "rate weight must be positive");
    m_rateWeight = weight;
}

DataRate
Dcqcn::GetAdditiveIncrease() const
{
    if (m_rateWeight == 1.0)
    {
        return m_additiveIncrease;
    }
    return DataRate(static_cast<uint64_t>(
        std::llround(static_cast<double>(m_additiveIncrease.GetBitRate()) * m_rateWeight)));
}

double
Dcqcn::GetStepScale() const
{
    return 1.0;
}

DataRate
Dcqcn::GetLineRate() const
{
    return ToDataRate(m_lineBps);
}

void
Dcqcn::AdvanceTo(Time now)
{
    NS_ABORT_MSG_IF(!m_initialized, "Dcqcn used before Init()");
    NS_ASSERT_MSG(now >= m_lastCall, "Dcqcn called with a time earlier than the last call");
    m_lastCall = now;
    if (now.GetTimeStep() < m_nextDue)
    {
        return; // the per-packet common case
    }
    if (m_decreasePending)
    {
        const Time due = m_lastDecrease + m_decreaseInterval;
        if (due <= now)
        {
            // Alpha updates at `due` run first; the decrease cancels an increase expiry at `due`.
            AdvanceAlpha(due);
            AdvanceIncreaseTimer(due, false);
            Decrease(due);
        }
    }
    // No decrease can fall due before `now` any more: only OnCnp arms one.
    AdvanceAlpha(now);
    AdvanceIncreaseTimer(now, true);
    UpdateNextDue();
}

void
Dcqcn::UpdateNextDue()
{
    int64_t due = m_nextIncrease.GetTimeStep();
    // Unmarked alpha updates are pure decays, applied in closed form whenever alpha is read,
    // so only a CNP-marked update needs to run at its time (for the Alpha trace).
    if (m_alphaTimerRunning && m_cnpSinceAlphaUpdate)
    {
        due = std::min(due, m_nextAlphaUpdate.GetTimeStep());
    }
    if (m_decreasePending)
    {
        due = std::min(due, (m_lastDecrease + m_decreaseInterval).GetTimeStep());
    }
    m_nextDue = due;
}

void
Dcqcn::AdvanceAlpha(Time limit)
{
    if (!m_alphaTimerRunning || m_nextAlphaUpdate > limit)
    {
        return;
    }
    const int64_t period = m_alphaInterval.GetTimeStep();
    uint64_t expiries = (limit - m_nextAlphaUpdate).GetTimeStep() / period + 1;
    const Time first = m_nextAlphaUpdate;
    m_nextAlphaUpdate += m_alphaInterval * static_cast<int64_t>(expiries);
    if (m_cnpSinceAlphaUpdate)
    {
        // Only the first expiry can be CNP-marked: CNPs arrive at call times, after advancing.
        const double before = CurrentAlpha();
        m_alphaBase = (1 - m_g) * before + m_g;
        m_alphaDecays = 0;
        m_cnpSinceAlphaUpdate = false;
        if (m_alphaBase != before)
        {
            m_alphaTrace(first, before, m_alphaBase);
        }
        --expiries;
    }
    m_alphaDecays += expiries;
}

void
Dcqcn::AdvanceIncreaseTimer(Time limit, bool inclusive)
{
    while (m_nextIncrease < limit || (inclusive && m_nextIncrease == limit))
    {
        if (m_target == m_lineBps && (m_target + m_rate) / 2 == m_rate)
        {
            // Every step leaves Rt at line rate and Rc where it is: only count the expiries.
            const int64_t span = (limit - m_nextIncrease).GetTimeStep();
            const int64_t period = m_increaseInterval.GetTimeStep();
            const int64_t expiries = inclusive ? span / period + 1 : (span - 1) / period + 1;
            m_timerStage += expiries;
            m_nextIncrease += m_increaseInterval * expiries;
            return;
        }
        const Time at = m_nextIncrease;
        m_nextIncrease += m_increaseInterval;
        IncreaseStep(at);
        ++m_timerStage;
    }
}

void
Dcqcn::Decrease(Time at)
{
    NS_LOG_FUNCTION(this << at);
    if (m_clampTargetRate || (m_clampAfterTimeInc && m_timerStage > 0))
    {
        SetTargetRate(at, m_rate);
    }
    const double alpha = CurrentAlpha();
    const double scale = GetStepScale();
    // Unscaled, the paper's expression as is (bit for bit).
    const double reduction =
        scale == 1.0 ? alpha * m_decreaseGain : std::min(1.0, alpha * m_decreaseGain / scale);
    const double cut = std::max(m_rate * m_minDecreaseRatio, m_rate * (1 - reduction));
    SetRate(at, std::min(m_lineBps, std::max(m_minBps, cut)));
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytesSinceStage = 0;
    m_nextIncrease = at + m_increaseInterval;
    m_hasDecreased = true;
    m_lastDecrease = at;
    m_decreasePending = false;
}

void
Dcqcn::IncreaseStep(Time at)
{
    const uint64_t f = m_fastRecoveryTimes;
    const uint64_t t = m_timerStage;
    const uint64_t bc = m_byteCounter > 0 ? m_byteStage : m_timerStage;
    const double scale = GetStepScale();
    double target = m_target;
    if (std::max(t, bc) < f)
    {
        // Fast recovery: Rt stays.
    }
    else if (std::min(t, bc) > f)
    {
        target += m_hyperIncreaseBps * scale;
    }
    else
    {
        target += static_cast<double>(GetAdditiveIncrease().GetBitRate());
    }
    SetTargetRate(at, std::min(target, m_lineBps));
    if (scale == 1.0)
    {
        SetRate(at, (m_target + m_rate) / 2);
    }
    else
    {
        // F x half the gap, never past Rt (F >= 2 lands on it).
        SetRate(at, m_rate + std::min(1.0, scale / 2) * (m_target - m_rate));
    }
}

double
Dcqcn::CurrentAlpha() const
{
    if (m_alphaDecays == 0)
    {
        return m_alphaBase;
    }
    return m_alphaBase * std::pow(1 - m_g, static_cast<double>(m_alphaDecays));
}

void
Dcqcn::SetRate(Time at, double rate)
{
    if (rate != m_rate)
    {
        const DataRate old = m_rateRounded;
        m_rate = rate;
        m_rateRounded = ToDataRate(rate);
        m_rateTrace(at, old, m_rateRounded);
    }
}

void
Dcqcn::SetTargetRate(Time at, double rate)
{
    if (rate != m_target)
    {
        const double old = m_target;
        m_target = rate;
        m_targetRateTrace(at, ToDataRate(old), ToDataRate(rate));
    }
}

} // namespace ns3
