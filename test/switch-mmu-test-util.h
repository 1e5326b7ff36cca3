/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCH_MMU_TEST_UTIL_H
#define SWITCH_MMU_TEST_UTIL_H

// The SwitchMmu tests' shared parts: parameters, formulas and the reference model.

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/string.h"
#include "ns3/switch-mmu.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{
namespace mmutest
{

constexpr uint64_t kBuffer = 32000000;
constexpr uint64_t kReserve = 2200;
constexpr uint64_t kOffset = 2200;
constexpr uint32_t kMtu = 1100;
constexpr uint32_t kPkt = 1100;
constexpr uint64_t kClasses = 8;
constexpr uint8_t kControl = 7; // ACK/NAK/CNP class
/// Class masks (bit c = class c).
constexpr uint8_t kOnly3 = 1 << 3;
constexpr uint8_t kAllClasses = 0xFF;

/// Headroom 3 x floor(rate x delay in bytes) + 2 MTU, from integer Gb/s and ns.
inline uint64_t
ExpectedHeadroom(uint64_t gbps, uint64_t delayNs, uint64_t mtu)
{
    return 3 * (gbps * delayNs / 8) + 2 * mtu;
}

/// Number of classes set in a mask, counted bit by bit.
inline uint64_t
Classes(uint8_t mask)
{
    uint64_t n = 0;
    for (uint8_t c = 0; c < kClasses; ++c)
    {
        n += (mask >> c) & 1;
    }
    return n;
}

/// The LosslessClasses text of a mask, as single classes "1,3,5" (or "none").
inline std::string
ListOf(uint8_t mask)
{
    std::string text;
    for (uint8_t c = 0; c < kClasses; ++c)
    {
        if ((mask >> c) & 1)
        {
            text += (text.empty() ? "" : ",") + std::to_string(c);
        }
    }
    return text.empty() ? "none" : text;
}

struct MmuParams
{
    uint64_t buffer = kBuffer;
    uint64_t reserve = kReserve;
    double alpha = 0.125;
    uint64_t offset = kOffset;
    bool pfc = true;
    double egressAlpha = 1.0;
    uint64_t headroom = 0;
    uint8_t lossless = kOnly3; ///< the attribute's default, class 3
    bool perPort = false;      ///< Carving=PerPort
};

inline Ptr<SwitchMmu>
MakeMmu(const MmuParams& p)
{
    Ptr<SwitchMmu> mmu = CreateObject<SwitchMmu>();
    mmu->SetAttribute("BufferSize", UintegerValue(p.buffer));
    mmu->SetAttribute("ReservePerQueue", UintegerValue(p.reserve));
    mmu->SetAttribute("PfcAlpha", DoubleValue(p.alpha));
    mmu->SetAttribute("ResumeOffset", UintegerValue(p.offset));
    mmu->SetAttribute("PfcEnabled", BooleanValue(p.pfc));
    mmu->SetAttribute("EgressAlpha", DoubleValue(p.egressAlpha));
    mmu->SetAttribute("Headroom", UintegerValue(p.headroom));
    mmu->SetAttribute("LosslessClasses", StringValue(ListOf(p.lossless)));
    mmu->SetAttribute("Carving", StringValue(p.perPort ? "PerPort" : "PerClass"));
    return mmu;
}

/// nPorts ports, all 100 Gb/s with 1 us links.
inline Ptr<SwitchMmu>
MakeUniform(const MmuParams& p, uint32_t nPorts)
{
    Ptr<SwitchMmu> mmu = MakeMmu(p);
    mmu->Configure(nPorts);
    for (uint32_t i = 0; i < nPorts; ++i)
    {
        mmu->ConfigurePort(i, DataRate("100Gbps"), NanoSeconds(1000), kMtu);
    }
    return mmu;
}

// 100 Gb/s, 1 us: 3 x 12500 B + 2 x 1100 B.
constexpr uint64_t kH100 = 37500 + 2 * kMtu;

/// Shared pool of nPorts equal ports with the default classes: a reserve for
/// class 3 and the control class 7, a headroom for class 3.
inline uint64_t
SharedPool(uint32_t nPorts, uint64_t headroom)
{
    return kBuffer - nPorts * 2 * kReserve - nPorts * headroom;
}

/// Independent model of the documented admission rules.
class RefMmu
{
  public:
    RefMmu(const MmuParams& p, std::vector<uint64_t> headroom)
        : m_p(p),
          m_headroom(std::move(headroom))
    {
        const uint64_t n = m_headroom.size();
        // PerClass: reserve for the lossless classes and class 7, headroom for
        // the lossless classes when PFC is on. PerPort: one of each per port,
        // every class may use the reserve.
        m_reserveMask = p.perPort ? kAllClasses : static_cast<uint8_t>(p.lossless | 1 << kControl);
        m_losslessMask = p.pfc ? p.lossless : 0;
        uint64_t sumH = 0;
        for (uint64_t h : m_headroom)
        {
            sumH += h;
        }
        const uint64_t reserveCopies = p.perPort ? 1 : Classes(m_reserveMask);
        const uint64_t headroomCopies =
            m_losslessMask == 0 ? 0 : (p.perPort ? 1 : Classes(m_losslessMask));
        m_pool = p.buffer - n * reserveCopies * p.reserve - headroomCopies * sumH;
        m_q.assign(n * kClasses, Q{});
        m_egress.assign(n * kClasses, 0);
    }

    struct Q
    {
        uint64_t r = 0;
        uint64_t s = 0;
        uint64_t h = 0;
    };

    bool Lossless(uint8_t cls) const
    {
        return (m_losslessMask >> cls) & 1;
    }

    uint64_t ReserveOf(uint8_t cls) const
    {
        return ((m_reserveMask >> cls) & 1) ? m_p.reserve : 0;
    }

    bool Admit(uint32_t in, uint32_t out, uint8_t cls, uint64_t b)
    {
        Q& q = m_q[in * kClasses + cls];
        const uint64_t r = std::min(b, ReserveOf(cls) - q.r);
        const uint64_t rest = b - r;
        uint64_t s = 0;
        uint64_t h = 0;
        if (rest > 0)
        {
            const uint64_t freeNow = m_pool - m_shared;
            const bool fits = rest <= freeNow;
            const uint64_t freeAfter = fits ? freeNow - rest : 0;
            if (Lossless(cls))
            {
                if (fits && q.s + rest <= static_cast<uint64_t>(m_p.alpha * freeAfter))
                {
                    s = rest;
                }
                else if (q.h + rest <= m_headroom[in])
                {
                    h = rest;
                }
                else
                {
                    return false;
                }
            }
            else
            {
                if (!fits || m_egress[out * kClasses + cls] + b >
                                 static_cast<uint64_t>(m_p.egressAlpha * freeAfter))
                {
                    return false;
                }
                s = rest;
            }
        }
        q.r += r;
        q.s += s;
        q.h += h;
        m_shared += s;
        m_egress[out * kClasses + cls] += b;
        return true;
    }

    void Release(uint32_t in, uint32_t out, uint8_t cls, uint64_t b)
    {
        Q& q = m_q[in * kClasses + cls];
        const uint64_t h = std::min(b, q.h);
        const uint64_t s = std::min(b - h, q.s);
        q.h -= h;
        q.s -= s;
        q.r -= b - h - s;
        m_shared -= s;
        m_egress[out * kClasses + cls] -= b;
    }

    uint64_t Threshold() const
    {
        return static_cast<uint64_t>(m_p.alpha * (m_pool - m_shared));
    }

    const Q& Queue(uint32_t port, uint8_t cls) const
    {
        return m_q[port * kClasses + cls];
    }

    uint64_t Egress(uint32_t port, uint8_t cls) const
    {
        return m_egress[port * kClasses + cls];
    }

    uint64_t Pool() const
    {
        return m_pool;
    }

    uint64_t Shared() const
    {
        return m_shared;
    }

  private:
    MmuParams m_p;
    std::vector<uint64_t> m_headroom;
    uint8_t m_reserveMask;
    uint8_t m_losslessMask;
    uint64_t m_pool;
    uint64_t m_shared = 0;
    std::vector<Q> m_q;
    std::vector<uint64_t> m_egress;
};

/// Packets the lone queue of an otherwise empty MMU can keep in the shared pool
/// with alpha = 1/8: the largest n with n b <= (S - n b) / 8, i.e. 9 n b <= S.
inline uint64_t
LoneQueueSharedPackets(uint64_t pool, uint64_t b)
{
    return pool / (9 * b);
}

} // namespace mmutest
} // namespace ns3

#endif /* SWITCH_MMU_TEST_UTIL_H */
