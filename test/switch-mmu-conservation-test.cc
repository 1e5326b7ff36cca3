/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// SwitchMmu under random admissions and departures, lossless and lossy and
// with per-port carving, against the reference model: every byte admitted is
// released, and the MMU's accounting equals the model's at every step.

#include "switch-mmu-test-util.h"

#include <gtest/gtest.h>
#include <random>

using namespace ns3;
using namespace ns3::mmutest;

namespace
{

/// Random admissions and departures against the reference model, checking
/// invariants at every step; then everything drains back to zero.
void
RunConservation(bool pfc, bool perPort)
{
    // Classes 0, 3 and 6 lossless (while PFC is on), the rest lossy.
    MmuParams p;
    p.pfc = pfc;
    p.perPort = perPort;
    p.lossless = 0x49;
    p.buffer = 4000000;
    const uint32_t nPorts = 6;
    const uint64_t gbps[nPorts] = {25, 100, 400, 100, 25, 100};
    const uint64_t delayNs[nPorts] = {1000, 1000, 500, 2000, 1500, 700};
    Ptr<SwitchMmu> mmu = MakeMmu(p);
    mmu->Configure(nPorts);
    std::vector<uint64_t> headroom(nPorts);
    uint64_t sumH = 0;
    for (uint32_t i = 0; i < nPorts; ++i)
    {
        mmu->ConfigurePort(i, DataRate(gbps[i] * 1000000000ULL), NanoSeconds(delayNs[i]), kMtu);
        headroom[i] = ExpectedHeadroom(gbps[i], delayNs[i], kMtu);
        ASSERT_EQ(mmu->GetHeadroom(i), pfc ? headroom[i] : 0);
        sumH += pfc ? headroom[i] : 0;
    }
    RefMmu ref(p, headroom);
    // PerClass: reserves for 0, 3, 6 and 7, headrooms for 0, 3 and 6.
    // PerPort: one of each per port.
    const uint64_t pool =
        perPort ? p.buffer - nPorts * kReserve - sumH : p.buffer - nPorts * 4 * kReserve - 3 * sumH;
    ASSERT_EQ(mmu->GetSharedPoolSize(), pool);
    ASSERT_EQ(ref.Pool(), pool);

    std::mt19937 rng((pfc ? 11 : 12) + (perPort ? 10 : 0));
    std::vector<std::tuple<uint32_t, uint32_t, uint8_t, uint32_t>> queued;
    uint64_t admitted = 0;
    uint64_t dropped = 0;
    for (int step = 0; step < 60000; ++step)
    {
        // Arrivals outpace departures for the first half, then drain.
        const bool arrive = queued.empty() || (rng() % 100) < (step < 30000 ? 75u : 30u);
        if (arrive)
        {
            // Skewed towards a hot egress so the pool fills up.
            const uint32_t in = rng() % nPorts;
            const uint32_t out = (rng() % 3 == 0) ? rng() % nPorts : 2;
            const uint8_t cls = rng() % 3 == 0 ? rng() % kClasses : 3;
            const uint32_t b = 64 + rng() % (kMtu - 63);
            const bool ok = mmu->Admit(in, out, cls, b);
            ASSERT_EQ(ok, ref.Admit(in, out, cls, b)) << "step " << step;
            if (ok)
            {
                queued.emplace_back(in, out, cls, b);
                ++admitted;
            }
            else
            {
                ++dropped;
            }
        }
        else
        {
            const std::size_t k = rng() % queued.size();
            std::swap(queued[k], queued.back());
            const auto [in, out, cls, b] = queued.back();
            queued.pop_back();
            mmu->Release(in, out, cls, b);
            ref.Release(in, out, cls, b);
        }

        if (step % 97 != 0)
        {
            continue;
        }
        uint64_t sumIngress = 0;
        uint64_t sumEgress = 0;
        uint64_t sumShared = 0;
        uint64_t sumHeadroomUsed = 0;
        for (uint32_t port = 0; port < nPorts; ++port)
        {
            for (uint8_t cls = 0; cls < kClasses; ++cls)
            {
                const RefMmu::Q& q = ref.Queue(port, cls);
                ASSERT_EQ(mmu->GetIngressReserveBytes(port, cls), q.r);
                ASSERT_EQ(mmu->GetIngressSharedBytes(port, cls), q.s);
                ASSERT_EQ(mmu->GetIngressHeadroomBytes(port, cls), q.h);
                ASSERT_EQ(mmu->GetEgressBytes(port, cls), ref.Egress(port, cls));
                ASSERT_LE(q.r, ref.ReserveOf(cls));
                ASSERT_LE(q.h, ref.Lossless(cls) ? headroom[port] : 0);
                if (q.s > 0 || q.h > 0)
                {
                    ASSERT_EQ(q.r, ref.ReserveOf(cls)) << "shared/headroom used before the reserve";
                }
                sumIngress += mmu->GetIngressBytes(port, cls);
                sumEgress += mmu->GetEgressBytes(port, cls);
                sumShared += q.s;
                sumHeadroomUsed += q.h;
            }
        }
        ASSERT_EQ(sumIngress, mmu->GetTotalUsed());
        ASSERT_EQ(sumEgress, mmu->GetTotalUsed());
        ASSERT_EQ(sumShared, mmu->GetSharedUsed());
        ASSERT_EQ(sumHeadroomUsed, mmu->GetHeadroomUsed());
        ASSERT_LE(mmu->GetSharedUsed(), mmu->GetSharedPoolSize());
        if (!perPort)
        {
            ASSERT_LE(mmu->GetTotalUsed(), p.buffer) << "carved, never oversubscribed";
        }
    }
    EXPECT_GT(admitted, 10000u);
    EXPECT_GT(dropped, 0u) << "the run should exercise the full-buffer path";

    for (const auto& [in, out, cls, b] : queued)
    {
        mmu->Release(in, out, cls, b);
    }
    EXPECT_EQ(mmu->GetTotalUsed(), 0u);
    EXPECT_EQ(mmu->GetSharedUsed(), 0u);
    EXPECT_EQ(mmu->GetHeadroomUsed(), 0u);
    EXPECT_EQ(mmu->GetReserveUsed(), 0u);
    for (uint32_t port = 0; port < nPorts; ++port)
    {
        for (uint8_t cls = 0; cls < kClasses; ++cls)
        {
            EXPECT_EQ(mmu->GetIngressBytes(port, cls), 0u);
            EXPECT_EQ(mmu->GetIngressReserveBytes(port, cls), 0u);
            EXPECT_EQ(mmu->GetIngressSharedBytes(port, cls), 0u);
            EXPECT_EQ(mmu->GetIngressHeadroomBytes(port, cls), 0u);
            EXPECT_EQ(mmu->GetEgressBytes(port, cls), 0u);
        }
    }
    EXPECT_EQ(mmu->GetThreshold(), static_cast<uint64_t>(0.125 * mmu->GetSharedPoolSize()));
}

} // namespace

TEST(SwitchMmu, ConservationLossless)
{
    RunConservation(true, false);
}

TEST(SwitchMmu, ConservationLossy)
{
    RunConservation(false, false);
}

TEST(SwitchMmu, ConservationPerPortCarving)
{
    RunConservation(true, true);
}
