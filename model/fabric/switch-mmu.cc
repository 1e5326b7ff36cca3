/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switch-mmu.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
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
                          "Headroom per ingress (port, class), bytes, absorbing what is in flight "
                          "after a PAUSE; 0 = per port 3 x rate x linkDelay + 2 x MTU frame",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchMmu::m_headroomAttr),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcEnabled",
                          "Lossless mode: PFC PAUSE/RESUME with headroom; off = lossy, drops at "
                          "the egress dynamic threshold",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchMmu::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EgressAlpha",
                          "Lossy mode only: an egress queue may hold up to alpha x free "
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

SwitchMmu::SwitchMmu()
{
    NS_LOG_FUNCTION(this);
}

SwitchMmu::~SwitchMmu()
{
    NS_LOG_FUNCTION(this);
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
    const uint64_t queues = static_cast<uint64_t>(nPorts) * kClasses;
    if (m_reservePerQueue != 0 && m_bufferSize / m_reservePerQueue < queues)
    {
        std::ostringstream msg;
        msg << "ReservePerQueue " << m_reservePerQueue << " x " << queues
            << " queues exceeds BufferSize " << m_bufferSize;
        Fail("Configure", msg.str());
    }
    m_nPorts = nPorts;
    m_buffer = m_bufferSize;
    m_reserve = m_reservePerQueue;
    m_lossless = m_pfcEnabled;
    m_configuredPorts = 0;
    m_totalReserve = queues * m_reservePerQueue;
    m_totalHeadroom = 0;
    m_sharedPoolSize = m_bufferSize - m_totalReserve;
    m_ports.assign(nPorts, PortConfig{});
    m_ingress.assign(queues, IngressQueue{});
    m_egress.assign(queues, 0);
    m_reserveUsed = 0;
    m_sharedUsed = 0;
    m_headroomUsed = 0;
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
            // data plus the pause reaction time (3 x rate x delay), plus one
            // frame being sent at each end when the PAUSE is generated and
            // when it takes effect.
            const auto bits3 = static_cast<unsigned __int128>(3) * bps *
                               static_cast<uint64_t>(linkDelay.GetPicoSeconds());
            const unsigned __int128 psPerSecondTimes8 = 8000000000000ULL;
            headroom = static_cast<uint64_t>((bits3 + psPerSecondTimes8 - 1) / psPerSecondTimes8) +
                       2ULL * mtuFrameBytes;
        }
    }

    PortConfig& cfg = m_ports[port];
    const uint64_t oldPortHeadroom = cfg.configured ? cfg.headroom * kClasses : 0;
    const uint64_t newTotalHeadroom = m_totalHeadroom - oldPortHeadroom + headroom * kClasses;
    if (m_totalReserve + newTotalHeadroom > m_buffer)
    {
        std::ostringstream msg;
        msg << "port " << port << ": reserves (" << m_totalReserve << " B) and headrooms ("
            << newTotalHeadroom << " B) exceed BufferSize " << m_buffer
            << "; raise BufferSize or lower ReservePerQueue/Headroom";
        Fail("ConfigurePort", msg.str());
    }
    if (GetTotalUsed() != 0)
    {
        Fail("ConfigurePort", "called while packets are buffered");
    }
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

    const uint64_t reservePart = std::min<uint64_t>(bytes, m_reserve - q.reserve);
    const uint64_t rest = bytes - reservePart;
    uint64_t sharedPart = 0;
    uint64_t headroomPart = 0;
    if (rest > 0)
    {
        const uint64_t freeShared = m_sharedPoolSize - m_sharedUsed;
        const bool fitsPool = rest <= freeShared;
        // Thresholds are taken as they stand once this packet is in the pool.
        const uint64_t freeAfter = fitsPool ? freeShared - rest : 0;
        if (m_lossless)
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
    return m_lossless && !q.paused && IsOverThreshold(q);
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
SwitchMmu::GetHeadroom(uint32_t port) const
{
    CheckPort("GetHeadroom", port);
    return m_ports[port].headroom;
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
SwitchMmu::CheckReady(const char* where) const
{
    if (m_nPorts == 0 || m_configuredPorts != m_nPorts)
    {
        std::ostringstream msg;
        msg << "only " << m_configuredPorts << " of " << m_nPorts
            << " ports configured; call Configure() and ConfigurePort() for every port first";
        Fail(where, msg.str());
    }
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
