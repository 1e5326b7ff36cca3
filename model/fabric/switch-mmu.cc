/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switch-mmu.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/roce-net-device.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <bitset>
#include <cctype>
#include <cstdint>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchMmu");
NS_OBJECT_ENSURE_REGISTERED(SwitchMmu);

namespace
{

/// Rate at which the ECN attributes are given.
constexpr uint64_t kEcnReferenceBps = 25000000000ULL;

static_assert(RoceNetDevice::kClasses == SwitchMmu::kClasses, "one MMU queue per port class");

/// Number of classes in a class mask.
uint64_t
Count(uint8_t mask)
{
    return std::bitset<8>(mask).count();
}

[[noreturn]] void
Fail(const char* where, const std::string& what)
{
    throw std::runtime_error(std::string("SwitchMmu::") + where + ": " + what);
}

/// value * num / den, rounded down, without intermediate overflow.
uint64_t
MulDiv(uint64_t value, uint64_t num, uint64_t den)
{
    return static_cast<uint64_t>(static_cast<unsigned __int128>(value) * num / den);
}

/// floor(alpha * bytes), saturating instead of overflowing for a huge alpha.
uint64_t
Scaled(double alpha, uint64_t bytes)
{
    const double v = alpha * static_cast<double>(bytes);
    return v >= 18446744073709549568.0 ? UINT64_MAX : static_cast<uint64_t>(v);
}

} // namespace

TypeId
SwitchMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchMmu")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<SwitchMmu>()
            .AddAttribute("BufferSize",
                          "Total packet buffer, bytes (reserves, headrooms and shared pool); "
                          "default 32 MiB, the HPCC simulator's BUFFER_SIZE 32",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&SwitchMmu::m_bufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("ReservePerQueue",
                          "Guaranteed bytes per ingress (port, class) before it draws from the "
                          "shared pool; default 4 KiB, as in the HPCC simulator",
                          UintegerValue(4 * 1024),
                          MakeUintegerAccessor(&SwitchMmu::m_reservePerQueue),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcAlpha",
                          "Dynamic threshold alpha: an ingress queue may hold shared bytes up to "
                          "alpha x free shared-pool bytes, beyond that it is paused; default 1/8 "
                          "(the HPCC simulator's shift of 3)",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&SwitchMmu::m_pfcAlpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("ResumeOffset",
                          "PFC hysteresis, bytes: RESUME once the ingress shared bytes are at "
                          "least this far below the threshold; default 2 x 1100 B frames",
                          UintegerValue(2 * 1100),
                          MakeUintegerAccessor(&SwitchMmu::m_resumeOffset),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Headroom",
                          "Headroom per ingress (port, lossless class), bytes, absorbing what is "
                          "in flight after a PAUSE; 0 = per port 3 x rate x linkDelay + "
                          "HeadroomFrames x largest frame",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchMmu::m_headroomAttr),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("HeadroomFrames",
                          "Largest frames added to 3 x rate x linkDelay in the computed headroom: "
                          "one leaving upstream when the PAUSE is sent and one when it takes "
                          "effect, default 2 (IEEE 802.1Qbb headroom); the HPCC simulator adds 0",
                          UintegerValue(2),
                          MakeUintegerAccessor(&SwitchMmu::m_headroomFrames),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PfcEnabled",
                          "PFC on the LosslessClasses (PAUSE/RESUME, headroom, no drop); off = "
                          "every class lossy, dropped at the egress dynamic threshold",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchMmu::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("LosslessClasses",
                          "Priority classes 0-7 that are lossless while PfcEnabled is true "
                          "(paused by PFC, with headroom, never dropped): a list such as 3, 0-6 "
                          "or 1,3-5, or none. Other classes are lossy (EgressAlpha). Default 3, "
                          "the RDMA data class (RdmaMessageInfo::priority); "
                          "CollectiveSchedulerHelper adds the classes a scheduler may give jobs",
                          StringValue("3"),
                          MakeStringAccessor(&SwitchMmu::m_losslessText),
                          MakeStringChecker())
            .AddAttribute("Carving",
                          "What is carved out of BufferSize before the shared pool: PerClass, a "
                          "ReservePerQueue per (port, lossless or control class) and a headroom "
                          "per (port, lossless class); PerPort, one reserve and one headroom per "
                          "port that every class of the port may use, as the HPCC simulator "
                          "(oversubscribed)",
                          EnumValue(CARVE_PER_CLASS),
                          MakeEnumAccessor(&SwitchMmu::m_carvingAttr),
                          MakeEnumChecker(CARVE_PER_CLASS, "PerClass", CARVE_PER_PORT, "PerPort"))
            .AddAttribute("EgressAlpha",
                          "Lossy classes: an egress queue may hold up to alpha x free "
                          "shared-pool bytes; default 1",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SwitchMmu::m_egressAlpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("EcnEnabled",
                          "RED/ECN marking on egress queues",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchMmu::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKminPer25G",
                          "ECN Kmin, bytes, for a 25 Gb/s port, scaled linearly with the port "
                          "rate; default 100 KB, as in the HPCC simulator's KMIN_MAP",
                          UintegerValue(100000),
                          MakeUintegerAccessor(&SwitchMmu::m_ecnKminPer25G),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnKmaxPer25G",
                          "ECN Kmax, bytes, for a 25 Gb/s port, scaled linearly with the port "
                          "rate; default 400 KB, as in the HPCC simulator's KMAX_MAP",
                          UintegerValue(400000),
                          MakeUintegerAccessor(&SwitchMmu::m_ecnKmaxPer25G),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnPmax",
                          "ECN marking probability at Kmax; default 0.2, as in the HPCC "
                          "simulator's PMAX_MAP",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&SwitchMmu::m_ecnPmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddTraceSource("Drop",
                            "A packet did not fit in the buffer: in port, out port, class, bytes",
                            MakeTraceSourceAccessor(&SwitchMmu::m_dropTrace),
                            "ns3::SwitchMmu::DropTracedCallback");
    return tid;
}

uint8_t
SwitchMmu::ParseClassList(const std::string& text)
{
    const auto trim = [](const std::string& t) {
        const std::size_t first = t.find_first_not_of(" \t");
        const std::size_t last = t.find_last_not_of(" \t");
        return first == std::string::npos ? std::string() : t.substr(first, last - first + 1);
    };
    const std::string all = trim(text);
    if (all.empty() || all == "none")
    {
        return 0;
    }
    const auto bad = [&text](const std::string& item, const std::string& why) {
        return std::invalid_argument("'" + text + "': '" + item + "' " + why +
                                     " (write a list of classes 0-7 such as 3, 0-6 or 1,3-5, or "
                                     "none)");
    };
    // One class: a single digit 0-7.
    const auto classOf = [&](const std::string& item, const std::string& part) {
        if (part.size() != 1 || !std::isdigit(static_cast<unsigned char>(part[0])))
        {
            throw bad(item, "is not a class or a range of classes");
        }
        const int c = part[0] - '0';
        if (c >= kClasses)
        {
            throw bad(item, "names class " + part + ", outside 0-7");
        }
        return c;
    };
    uint8_t mask = 0;
    std::size_t start = 0;
    while (start <= all.size())
    {
        const std::size_t comma = std::min(all.find(',', start), all.size());
        const std::string item = trim(all.substr(start, comma - start));
        start = comma + 1;
        const std::size_t dash = item.find('-');
        const int first = classOf(item, trim(item.substr(0, dash)));
        const int last =
            dash == std::string::npos ? first : classOf(item, trim(item.substr(dash + 1)));
        if (last < first)
        {
            throw bad(item, "is a range that ends before it starts");
        }
        for (int c = first; c <= last; ++c)
        {
            mask |= static_cast<uint8_t>(1u << c);
        }
    }
    return mask;
}

std::string
SwitchMmu::FormatClassList(uint8_t mask)
{
    std::string text;
    for (int c = 0; c < kClasses;)
    {
        if (!(mask >> c & 1))
        {
            ++c;
            continue;
        }
        int last = c;
        while (last + 1 < kClasses && (mask >> (last + 1) & 1))
        {
            ++last;
        }
        text += (text.empty() ? "" : ",") + std::to_string(c);
        if (last > c)
        {
            text += "-" + std::to_string(last);
        }
        c = last + 1;
    }
    return text.empty() ? "none" : text;
}

SwitchMmu::SwitchMmu()
{
    NS_LOG_FUNCTION(this);
}

SwitchMmu::~SwitchMmu()
{
    NS_LOG_FUNCTION(this);
}

void
SwitchMmu::UpdateClassMasks()
{
    m_losslessMask = m_lossless ? m_losslessConfigured : 0;
    // PerClass: the classes that carry traffic worth protecting, the lossless
    // ones and the control class. PerPort: every class, as the HPCC simulator.
    m_reserveMask =
        m_carving == CARVE_PER_PORT
            ? 0xFF
            : static_cast<uint8_t>(m_losslessConfigured | 1u << RoceNetDevice::kControlClass);
}

uint64_t
SwitchMmu::ReserveCarve() const
{
    const uint64_t perPort = m_carving == CARVE_PER_PORT ? 1 : Count(m_reserveMask);
    return static_cast<uint64_t>(m_nPorts) * perPort * m_reserve;
}

uint64_t
SwitchMmu::HeadroomCarve(uint64_t sumPortHeadroom) const
{
    if (m_losslessMask == 0)
    {
        return 0;
    }
    return (m_carving == CARVE_PER_PORT ? 1 : Count(m_losslessMask)) * sumPortHeadroom;
}

void
SwitchMmu::CheckFits(const char* where,
                     const std::string& what,
                     uint64_t reserve,
                     uint64_t headroom) const
{
    if (reserve <= m_buffer && headroom <= m_buffer - reserve)
    {
        return;
    }
    std::ostringstream msg;
    msg << what << "reserves (" << reserve << " B) and headrooms (" << headroom
        << " B) exceed BufferSize " << m_buffer << " (Carving "
        << (m_carving == CARVE_PER_PORT ? "PerPort" : "PerClass") << ", lossless classes "
        << FormatClassList(m_losslessMask) << ", reserved classes "
        << FormatClassList(m_reserveMask)
        << "); raise BufferSize, lower ReservePerQueue or Headroom, or list fewer "
           "LosslessClasses";
    Fail(where, msg.str());
}

void
SwitchMmu::Configure(uint32_t nPorts)
{
    NS_LOG_FUNCTION(this << nPorts);
    if (nPorts == 0)
    {
        Fail("Configure", "nPorts must be > 0");
    }
    if (GetTotalUsed() != 0)
    {
        Fail("Configure", "called while packets are buffered");
    }
    uint8_t lossless = 0;
    try
    {
        lossless = ParseClassList(m_losslessText);
    }
    catch (const std::invalid_argument& e)
    {
        Fail("Configure", std::string("LosslessClasses ") + e.what());
    }
    m_nPorts = nPorts;
    m_buffer = m_bufferSize;
    m_reserve = m_reservePerQueue;
    m_lossless = m_pfcEnabled;
    m_carving = m_carvingAttr;
    m_losslessConfigured = lossless;
    UpdateClassMasks();
    m_configuredPorts = 0;
    m_sumPortHeadroom = 0;
    m_totalReserve = ReserveCarve();
    m_totalHeadroom = 0;
    m_ports.assign(nPorts, PortConfig{});
    const uint64_t queues = static_cast<uint64_t>(nPorts) * kClasses;
    m_ingress.assign(queues, IngressQueue{});
    m_egress.assign(queues, 0);
    m_reserveUsed = 0;
    m_sharedUsed = 0;
    m_headroomUsed = 0;
    m_sharedPoolSize = 0;
    try
    {
        CheckFits("Configure", "", m_totalReserve, 0);
    }
    catch (...)
    {
        m_nPorts = 0; // unusable until configured again
        throw;
    }
    m_sharedPoolSize = m_buffer - m_totalReserve;
}

void
SwitchMmu::ConfigurePort(uint32_t port, DataRate rate, Time linkDelay, uint32_t mtuFrameBytes)
{
    NS_LOG_FUNCTION(this << port << rate << linkDelay << mtuFrameBytes);
    CheckPort("ConfigurePort", port);
    const uint64_t bps = rate.GetBitRate();
    if (bps == 0)
    {
        Fail("ConfigurePort", "rate must be > 0 (port " + std::to_string(port) + ")");
    }
    if (linkDelay.IsStrictlyNegative())
    {
        Fail("ConfigurePort", "linkDelay must be >= 0 (port " + std::to_string(port) + ")");
    }

    // Computed with PFC on whatever the lossless classes are, so that
    // SetLosslessClasses can add some later.
    uint64_t headroom = 0;
    if (m_lossless)
    {
        if (m_headroomAttr != 0)
        {
            headroom = m_headroomAttr;
        }
        else
        {
            // Bytes arriving after the PAUSE leaves: about one round trip of
            // data plus the pause reaction time (3 x rate x delay), plus the
            // frames being sent at each end when the PAUSE is generated and
            // when it takes effect. rate x delay is rounded down to whole
            // bytes before tripling, as the HPCC simulator does.
            const auto bits = static_cast<unsigned __int128>(bps) *
                              static_cast<uint64_t>(linkDelay.GetPicoSeconds());
            const unsigned __int128 psPerSecondTimes8 = 8000000000000ULL;
            headroom = 3 * static_cast<uint64_t>(bits / psPerSecondTimes8) +
                       static_cast<uint64_t>(m_headroomFrames) * mtuFrameBytes;
        }
    }

    PortConfig& cfg = m_ports[port];
    const uint64_t newSum = m_sumPortHeadroom - (cfg.configured ? cfg.headroom : 0) + headroom;
    const uint64_t newTotalHeadroom = HeadroomCarve(newSum);
    CheckFits("ConfigurePort",
              "port " + std::to_string(port) + ": ",
              m_totalReserve,
              newTotalHeadroom);
    if (GetTotalUsed() != 0)
    {
        Fail("ConfigurePort", "called while packets are buffered");
    }
    m_sumPortHeadroom = newSum;
    m_totalHeadroom = newTotalHeadroom;
    m_sharedPoolSize = m_buffer - m_totalReserve - m_totalHeadroom;

    if (!cfg.configured)
    {
        cfg.configured = true;
        ++m_configuredPorts;
    }
    cfg.headroom = headroom;
    cfg.kmin = MulDiv(m_ecnKminPer25G, bps, kEcnReferenceBps);
    cfg.kmax = MulDiv(m_ecnKmaxPer25G, bps, kEcnReferenceBps);
    cfg.pmax = m_ecnPmax;
    if (cfg.kmin > cfg.kmax)
    {
        Fail("ConfigurePort", "EcnKminPer25G must not exceed EcnKmaxPer25G");
    }
}

void
SwitchMmu::SetLosslessClasses(uint8_t mask)
{
    NS_LOG_FUNCTION(this << +mask);
    if (GetTotalUsed() != 0)
    {
        Fail("SetLosslessClasses", "called while packets are buffered");
    }
    if (m_nPorts == 0)
    {
        m_losslessText = FormatClassList(mask);
        return; // Configure() reads it
    }
    const uint8_t oldConfigured = m_losslessConfigured;
    m_losslessConfigured = mask;
    UpdateClassMasks();
    const uint64_t reserve = ReserveCarve();
    const uint64_t headroom = HeadroomCarve(m_sumPortHeadroom);
    try
    {
        CheckFits("SetLosslessClasses",
                  "LosslessClasses " + FormatClassList(mask) + ": ",
                  reserve,
                  headroom);
    }
    catch (...)
    {
        m_losslessConfigured = oldConfigured;
        UpdateClassMasks();
        throw;
    }
    m_losslessText = FormatClassList(mask);
    m_totalReserve = reserve;
    m_totalHeadroom = headroom;
    m_sharedPoolSize = m_buffer - m_totalReserve - m_totalHeadroom;
}

uint8_t
SwitchMmu::GetLosslessClasses() const
{
    if (m_nPorts == 0)
    {
        return ParseClassList(m_losslessText);
    }
    return m_losslessConfigured;
}

bool
SwitchMmu::IsLossless(uint8_t cls) const
{
    return cls < kClasses && (m_losslessMask >> cls & 1);
}

uint8_t
SwitchMmu::GetReservedClasses() const
{
    return m_reserveMask;
}

void
SwitchMmu::SetEcnParams(uint32_t port, uint64_t kminBytes, uint64_t kmaxBytes, double pmax)
{
    NS_LOG_FUNCTION(this << port << kminBytes << kmaxBytes << pmax);
    CheckPort("SetEcnParams", port);
    if (kminBytes > kmaxBytes)
    {
        Fail("SetEcnParams",
             "kminBytes must not exceed kmaxBytes (port " + std::to_string(port) + ")");
    }
    if (!(pmax >= 0.0 && pmax <= 1.0))
    {
        Fail("SetEcnParams", "pmax must be in [0, 1] (port " + std::to_string(port) + ")");
    }
    m_ports[port].kmin = kminBytes;
    m_ports[port].kmax = kmaxBytes;
    m_ports[port].pmax = pmax;
}

bool
SwitchMmu::Admit(uint32_t inPort, uint32_t outPort, uint8_t cls, uint32_t bytes)
{
    NS_LOG_FUNCTION(this << inPort << outPort << +cls << bytes);
    CheckReady("Admit");
    const std::size_t in = Index("Admit", inPort, cls);
    const std::size_t out = Index("Admit", outPort, cls);
    IngressQueue& q = m_ingress[in];

    const uint64_t reserveLimit = (m_reserveMask >> cls & 1) ? m_reserve : 0;
    const uint64_t reservePart = std::min<uint64_t>(bytes, reserveLimit - q.reserve);
    const uint64_t rest = bytes - reservePart;
    uint64_t sharedPart = 0;
    uint64_t headroomPart = 0;
    if (rest > 0)
    {
        const uint64_t freeShared = m_sharedPoolSize - m_sharedUsed;
        const bool fitsPool = rest <= freeShared;
        // Thresholds are taken as they stand once this packet is in the pool.
        const uint64_t freeAfter = fitsPool ? freeShared - rest : 0;
        if (m_losslessMask >> cls & 1)
        {
            if (fitsPool && q.shared + rest <= Scaled(m_pfcAlpha, freeAfter))
            {
                sharedPart = rest;
            }
            else if (q.headroom + rest <= m_ports[inPort].headroom)
            {
                headroomPart = rest;
            }
            else
            {
                m_dropTrace(inPort, outPort, cls, bytes);
                return false;
            }
        }
        else
        {
            if (!fitsPool || m_egress[out] + bytes > Scaled(m_egressAlpha, freeAfter))
            {
                m_dropTrace(inPort, outPort, cls, bytes);
                return false;
            }
            sharedPart = rest;
        }
    }

    q.reserve += reservePart;
    q.shared += sharedPart;
    q.headroom += headroomPart;
    m_reserveUsed += reservePart;
    m_sharedUsed += sharedPart;
    m_headroomUsed += headroomPart;
    m_egress[out] += bytes;
    return true;
}

void
SwitchMmu::Release(uint32_t inPort, uint32_t outPort, uint8_t cls, uint32_t bytes)
{
    NS_LOG_FUNCTION(this << inPort << outPort << +cls << bytes);
    const std::size_t in = Index("Release", inPort, cls);
    const std::size_t out = Index("Release", outPort, cls);
    IngressQueue& q = m_ingress[in];
    if (q.reserve + q.shared + q.headroom < bytes || m_egress[out] < bytes)
    {
        std::ostringstream msg;
        msg << bytes << " B on (in " << inPort << ", out " << outPort << ", class " << +cls
            << ") exceed what was admitted";
        Fail("Release", msg.str());
    }
    const uint64_t headroomPart = std::min<uint64_t>(bytes, q.headroom);
    const uint64_t sharedPart = std::min<uint64_t>(bytes - headroomPart, q.shared);
    const uint64_t reservePart = bytes - headroomPart - sharedPart;

    q.headroom -= headroomPart;
    q.shared -= sharedPart;
    q.reserve -= reservePart;
    m_headroomUsed -= headroomPart;
    m_sharedUsed -= sharedPart;
    m_reserveUsed -= reservePart;
    m_egress[out] -= bytes;
}

bool
SwitchMmu::IsOverThreshold(const IngressQueue& q) const
{
    return q.headroom > 0 || q.shared > GetThreshold();
}

bool
SwitchMmu::CheckPause(uint32_t inPort, uint8_t cls) const
{
    const IngressQueue& q = m_ingress[Index("CheckPause", inPort, cls)];
    return (m_losslessMask >> cls & 1) && !q.paused && IsOverThreshold(q);
}

bool
SwitchMmu::CheckResume(uint32_t inPort, uint8_t cls) const
{
    const IngressQueue& q = m_ingress[Index("CheckResume", inPort, cls)];
    if (!q.paused || q.headroom > 0)
    {
        return false;
    }
    return q.shared == 0 || q.shared + m_resumeOffset <= GetThreshold();
}

void
SwitchMmu::SetPaused(uint32_t inPort, uint8_t cls, bool paused)
{
    NS_LOG_FUNCTION(this << inPort << +cls << paused);
    m_ingress[Index("SetPaused", inPort, cls)].paused = paused;
}

bool
SwitchMmu::IsPaused(uint32_t inPort, uint8_t cls) const
{
    return m_ingress[Index("IsPaused", inPort, cls)].paused;
}

double
SwitchMmu::GetMarkProbability(uint32_t outPort, uint8_t cls) const
{
    const uint64_t q = m_egress[Index("GetMarkProbability", outPort, cls)];
    if (!m_ecnEnabled)
    {
        return 0.0;
    }
    const PortConfig& cfg = m_ports[outPort];
    if (q > cfg.kmax)
    {
        return 1.0;
    }
    if (q <= cfg.kmin)
    {
        return 0.0;
    }
    // Here kmin < q <= kmax, so kmax > kmin.
    return cfg.pmax * static_cast<double>(q - cfg.kmin) / static_cast<double>(cfg.kmax - cfg.kmin);
}

bool
SwitchMmu::ShouldMarkEcn(uint32_t outPort, uint8_t cls, double uniform01) const
{
    return uniform01 < GetMarkProbability(outPort, cls);
}

uint64_t
SwitchMmu::GetIngressBytes(uint32_t port, uint8_t cls) const
{
    const IngressQueue& q = m_ingress[Index("GetIngressBytes", port, cls)];
    return q.reserve + q.shared + q.headroom;
}

uint64_t
SwitchMmu::GetIngressReserveBytes(uint32_t port, uint8_t cls) const
{
    return m_ingress[Index("GetIngressReserveBytes", port, cls)].reserve;
}

uint64_t
SwitchMmu::GetIngressSharedBytes(uint32_t port, uint8_t cls) const
{
    return m_ingress[Index("GetIngressSharedBytes", port, cls)].shared;
}

uint64_t
SwitchMmu::GetIngressHeadroomBytes(uint32_t port, uint8_t cls) const
{
    return m_ingress[Index("GetIngressHeadroomBytes", port, cls)].headroom;
}

uint64_t
SwitchMmu::GetEgressBytes(uint32_t port, uint8_t cls) const
{
    return m_egress[Index("GetEgressBytes", port, cls)];
}

uint64_t
SwitchMmu::GetSharedUsed() const
{
    return m_sharedUsed;
}

uint64_t
SwitchMmu::GetHeadroomUsed() const
{
    return m_headroomUsed;
}

uint64_t
SwitchMmu::GetReserveUsed() const
{
    return m_reserveUsed;
}

uint64_t
SwitchMmu::GetTotalUsed() const
{
    return m_reserveUsed + m_sharedUsed + m_headroomUsed;
}

uint64_t
SwitchMmu::GetSharedPoolSize() const
{
    return m_sharedPoolSize;
}

uint64_t
SwitchMmu::GetThreshold() const
{
    return Scaled(m_pfcAlpha, m_sharedPoolSize - m_sharedUsed);
}

uint64_t
SwitchMmu::GetEgressThreshold() const
{
    return Scaled(m_egressAlpha, m_sharedPoolSize - m_sharedUsed);
}

uint64_t
SwitchMmu::GetReserveCarved() const
{
    return m_totalReserve;
}

uint64_t
SwitchMmu::GetHeadroomCarved() const
{
    return m_totalHeadroom;
}

uint64_t
SwitchMmu::GetPauseOnsetBytes() const
{
    if (m_losslessMask == 0)
    {
        return 0;
    }
    // The largest s with s <= floor(PfcAlpha x (P - s)), the admission rule
    // of a lone queue: estimated in floating point, then settled on the rule.
    const uint64_t pool = m_sharedPoolSize;
    const double estimate = m_pfcAlpha / (1.0 + m_pfcAlpha) * static_cast<double>(pool);
    uint64_t s = estimate >= static_cast<double>(pool) ? pool : static_cast<uint64_t>(estimate);
    while (s > 0 && s > Scaled(m_pfcAlpha, pool - s))
    {
        --s;
    }
    while (s < pool && s + 1 <= Scaled(m_pfcAlpha, pool - s - 1))
    {
        ++s;
    }
    return m_reserve + s;
}

uint64_t
SwitchMmu::GetHeadroom(uint32_t port) const
{
    CheckPort("GetHeadroom", port);
    return m_losslessMask != 0 ? m_ports[port].headroom : 0;
}

uint64_t
SwitchMmu::GetKmin(uint32_t port) const
{
    CheckPort("GetKmin", port);
    return m_ports[port].kmin;
}

uint64_t
SwitchMmu::GetKmax(uint32_t port) const
{
    CheckPort("GetKmax", port);
    return m_ports[port].kmax;
}

double
SwitchMmu::GetPmax(uint32_t port) const
{
    CheckPort("GetPmax", port);
    return m_ports[port].pmax;
}

uint32_t
SwitchMmu::GetNPorts() const
{
    return m_nPorts;
}

void
SwitchMmu::CheckPort(const char* where, uint32_t port) const
{
    if (port >= m_nPorts)
    {
        std::ostringstream msg;
        msg << "port " << port << " out of range (" << m_nPorts << " ports configured)";
        Fail(where, msg.str());
    }
}

void
SwitchMmu::NotReady(const char* where) const
{
    std::ostringstream msg;
    msg << "only " << m_configuredPorts << " of " << m_nPorts
        << " ports configured; call Configure() and ConfigurePort() for every port first";
    Fail(where, msg.str());
}

void
SwitchMmu::OutOfRange(const char* where, uint32_t port, uint8_t cls) const
{
    std::ostringstream msg;
    msg << "(port " << port << ", class " << +cls << ") out of range (" << m_nPorts << " ports, "
        << +kClasses << " classes)";
    Fail(where, msg.str());
}

} // namespace ns3
