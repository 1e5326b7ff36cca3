/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// SwitchMmu: every expectation is computed here from the documented formulas
// (analytic values or a small reference model), never read back from the MMU.

#include "switch-mmu-test-util.h"

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

using namespace ns3;

using namespace ns3::mmutest;

TEST(SwitchMmu, HeadroomAndPoolFollowFormulas)
{
    // Default classes: class 3 lossless (reserve and headroom), class 7
    // reserve only, so pool = B - nPorts x 2 x R - sum of port headrooms.
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeMmu(p);
    mmu->Configure(3);
    mmu->ConfigurePort(0, DataRate("100Gbps"), NanoSeconds(1000), kMtu);
    mmu->ConfigurePort(1, DataRate("400Gbps"), NanoSeconds(2000), kMtu);
    mmu->ConfigurePort(2, DataRate("25Gbps"), NanoSeconds(333), kMtu);
    EXPECT_EQ(mmu->GetHeadroom(0), kH100);
    EXPECT_EQ(mmu->GetHeadroom(1), 300000u + 2 * kMtu);
    // 25e9 x 333e-9 / 8 = 1040.625 B, rounded down before tripling (as HPCC).
    EXPECT_EQ(mmu->GetHeadroom(2), 3120u + 2 * kMtu);
    EXPECT_EQ(ExpectedHeadroom(25, 333, kMtu), 3120u + 2 * kMtu);
    const uint64_t sumH = kH100 + 302200 + 5320;
    EXPECT_EQ(mmu->GetSharedPoolSize(), kBuffer - 3 * 2 * kReserve - sumH);
    EXPECT_EQ(mmu->GetReserveCarved(), 3 * 2 * kReserve);
    EXPECT_EQ(mmu->GetHeadroomCarved(), sumH);
    EXPECT_EQ(mmu->GetThreshold(),
              static_cast<uint64_t>(0.125 * (kBuffer - 3 * 2 * kReserve - sumH)));

    // Reconfiguring a port replaces its headroom in the totals.
    mmu->ConfigurePort(1, DataRate("100Gbps"), NanoSeconds(1000), kMtu);
    EXPECT_EQ(mmu->GetSharedPoolSize(), kBuffer - 3 * 2 * kReserve - (2 * kH100 + 5320));

    // A fixed Headroom attribute applies to every port.
    p.headroom = 50000;
    Ptr<SwitchMmu> fixed = MakeUniform(p, 2);
    EXPECT_EQ(fixed->GetHeadroom(0), 50000u);
    EXPECT_EQ(fixed->GetHeadroom(1), 50000u);
    EXPECT_EQ(fixed->GetSharedPoolSize(), SharedPool(2, 50000));

    // HeadroomFrames sets the frames added to 3 x rate x delay.
    p.headroom = 0;
    Ptr<SwitchMmu> bare = MakeMmu(p);
    bare->SetAttribute("HeadroomFrames", UintegerValue(0));
    bare->Configure(1);
    bare->ConfigurePort(0, DataRate("100Gbps"), NanoSeconds(1000), kMtu);
    EXPECT_EQ(bare->GetHeadroom(0), 37500u);

    // PFC off: no headroom at all; classes 3 and 7 keep their reserve.
    p.pfc = false;
    Ptr<SwitchMmu> lossy = MakeUniform(p, 2);
    EXPECT_EQ(lossy->GetHeadroom(0), 0u);
    EXPECT_EQ(lossy->GetSharedPoolSize(), kBuffer - 2 * 2 * kReserve);
}

// Headroom is carved only for lossless classes and the reserve only for the
// classes in use (lossless + control). Breaking the rule (carving headroom or
// reserve for all 8 classes, as before) changes every pool below.
TEST(SwitchMmu, HeadroomOnlyForLosslessClasses)
{
    const uint32_t n = 4;

    struct Case
    {
        uint8_t lossless;
        bool pfc;
        uint64_t reserveCopies;  ///< reserves per port, by hand
        uint64_t headroomCopies; ///< headrooms per port, by hand
    };

    // clang-format off
    const Case cases[] = {
        {kOnly3,         true,  2, 1}, // 3 lossless; reserve 3 and 7
        {0x7F,           true,  8, 7}, // 0-6 lossless (a scheduler's classes); reserve all
        {0x28,           true,  3, 2}, // 3 and 5 lossless; reserve 3, 5, 7
        {0,              true,  1, 0}, // none lossless: control reserve only
        {kAllClasses,    true,  8, 8}, // 0-7: what the module carved before
        {0x7F,           false, 8, 0}, // PFC off: reserve stays, no headroom
    };
    // clang-format on
    for (const Case& c : cases)
    {
        MmuParams p;
        p.lossless = c.lossless;
        p.pfc = c.pfc;
        Ptr<SwitchMmu> mmu = MakeUniform(p, n);
        const uint64_t expected =
            kBuffer - n * c.reserveCopies * kReserve - n * c.headroomCopies * kH100;
        EXPECT_EQ(mmu->GetSharedPoolSize(), expected) << ListOf(c.lossless) << " pfc " << c.pfc;
        EXPECT_EQ(mmu->GetLosslessClasses(), c.lossless);
        for (uint8_t cls = 0; cls < kClasses; ++cls)
        {
            EXPECT_EQ(mmu->IsLossless(cls), c.pfc && ((c.lossless >> cls) & 1))
                << ListOf(c.lossless) << " class " << +cls;
        }
        EXPECT_EQ(mmu->GetHeadroom(0), c.headroomCopies > 0 ? kH100 : 0);
    }

    // SetLosslessClasses carves again, as the attribute would have.
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeUniform(p, n);
    ASSERT_EQ(mmu->GetSharedPoolSize(), kBuffer - n * 2 * kReserve - n * kH100);
    mmu->SetLosslessClasses(0x7F);
    EXPECT_EQ(mmu->GetSharedPoolSize(), kBuffer - n * 8 * kReserve - n * 7 * kH100);
    EXPECT_TRUE(mmu->IsLossless(0));
    EXPECT_FALSE(mmu->IsLossless(kControl));
    StringValue text;
    mmu->GetAttribute("LosslessClasses", text);
    EXPECT_EQ(text.Get(), "0-6");

    // PerPort (HPCC): one reserve and one headroom per port whatever the
    // classes: B - n x R - n x H.
    for (uint8_t lossless : {kOnly3, kAllClasses})
    {
        MmuParams q;
        q.perPort = true;
        q.lossless = lossless;
        Ptr<SwitchMmu> hpcc = MakeUniform(q, n);
        EXPECT_EQ(hpcc->GetSharedPoolSize(), kBuffer - n * kReserve - n * kH100);
        EXPECT_EQ(hpcc->GetReservedClasses(), kAllClasses);
    }
}

// 14 ports of 100 Gb/s with 1 us links and 4096-byte payloads fit in a 2 MB
// buffer. Charging reserve and headroom for all 8 classes, as the MMU used
// to, needs 14 x 8 x (4096 + 45888) = 5.6 MB and is refused.
TEST(SwitchMmu, FourteenPortSwitchFitsTwoMegabytes)
{
    // Frame: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + 4096 + ICRC
    // 4 = 4170 B, and 24 B of preamble, gap and FCS on the wire.
    const uint32_t frame = 4170 + 24;
    const uint64_t reserve = 4096; // the ReservePerQueue default
    const uint64_t buffer = 2000000;
    const uint64_t headroom = 3 * 12500 + 2 * frame; // 45888
    Ptr<SwitchMmu> mmu = CreateObject<SwitchMmu>();
    mmu->SetAttribute("BufferSize", UintegerValue(buffer));
    mmu->Configure(14);
    for (uint32_t i = 0; i < 14; ++i)
    {
        ASSERT_NO_THROW(mmu->ConfigurePort(i, DataRate("100Gbps"), MicroSeconds(1), frame));
    }
    EXPECT_EQ(mmu->GetHeadroom(0), headroom);
    // 14 x (2 reserves, classes 3 and 7, + 1 headroom, class 3) = 14 x 54080.
    EXPECT_EQ(mmu->GetSharedPoolSize(), buffer - 14 * (2 * reserve + headroom));
    EXPECT_EQ(mmu->GetSharedPoolSize(), 1242880u);
    ASSERT_GT(14 * 8 * (reserve + headroom), buffer) << "the old rule would not fit";
}

TEST(SwitchMmu, FillsReserveThenSharedThenHeadroomAndReleasesInReverse)
{
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeUniform(p, 2);
    const uint64_t pool = SharedPool(2, kH100);
    const uint64_t nShared = LoneQueueSharedPackets(pool, kPkt);
    const uint64_t nHeadroom = kH100 / kPkt; // 36 packets
    const uint8_t cls = 3;

    uint64_t admitted = 0;
    for (uint64_t i = 0; i < 2 + nShared + nHeadroom; ++i)
    {
        ASSERT_TRUE(mmu->Admit(0, 1, cls, kPkt)) << "packet " << i;
        ++admitted;
        const uint64_t inReserve = std::min<uint64_t>(admitted, 2);
        const uint64_t inShared = std::min<uint64_t>(admitted - inReserve, nShared);
        const uint64_t inHeadroom = admitted - inReserve - inShared;
        ASSERT_EQ(mmu->GetIngressReserveBytes(0, cls), inReserve * kPkt);
        ASSERT_EQ(mmu->GetIngressSharedBytes(0, cls), inShared * kPkt);
        ASSERT_EQ(mmu->GetIngressHeadroomBytes(0, cls), inHeadroom * kPkt);
        ASSERT_EQ(mmu->GetSharedUsed(), inShared * kPkt);
        ASSERT_EQ(mmu->GetHeadroomUsed(), inHeadroom * kPkt);
        ASSERT_EQ(mmu->GetIngressBytes(0, cls), admitted * kPkt);
        ASSERT_EQ(mmu->GetEgressBytes(1, cls), admitted * kPkt);
    }
    // Headroom full: the next packet fits nowhere.
    EXPECT_FALSE(mmu->Admit(0, 1, cls, kPkt));
    EXPECT_EQ(mmu->GetTotalUsed(), admitted * kPkt);

    // Release: headroom first, then shared, then reserve.
    for (uint64_t left = admitted; left > 0; --left)
    {
        mmu->Release(0, 1, cls, kPkt);
        const uint64_t remaining = left - 1;
        const uint64_t inReserve = std::min<uint64_t>(remaining, 2);
        const uint64_t inShared = std::min<uint64_t>(remaining - inReserve, nShared);
        const uint64_t inHeadroom = remaining - inReserve - inShared;
        ASSERT_EQ(mmu->GetIngressReserveBytes(0, cls), inReserve * kPkt);
        ASSERT_EQ(mmu->GetIngressSharedBytes(0, cls), inShared * kPkt);
        ASSERT_EQ(mmu->GetIngressHeadroomBytes(0, cls), inHeadroom * kPkt);
    }
    EXPECT_EQ(mmu->GetTotalUsed(), 0u);
}

TEST(SwitchMmu, SplitsAPacketBetweenReserveAndShared)
{
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeUniform(p, 2);
    ASSERT_TRUE(mmu->Admit(1, 0, 3, 1500));
    EXPECT_EQ(mmu->GetIngressReserveBytes(1, 3), 1500u);
    ASSERT_TRUE(mmu->Admit(1, 0, 3, 1500));
    EXPECT_EQ(mmu->GetIngressReserveBytes(1, 3), kReserve);
    EXPECT_EQ(mmu->GetIngressSharedBytes(1, 3), 3000 - kReserve);
    EXPECT_EQ(mmu->GetSharedUsed(), 3000 - kReserve);
    // Release 1000 B: all of it comes out of the 800 shared bytes first.
    mmu->Release(1, 0, 3, 1000);
    EXPECT_EQ(mmu->GetIngressSharedBytes(1, 3), 0u);
    EXPECT_EQ(mmu->GetIngressReserveBytes(1, 3), 2000u);

    // A class without a reserve (lossy, not control) goes to the pool at once.
    ASSERT_TRUE(mmu->Admit(1, 0, 5, 1500));
    EXPECT_EQ(mmu->GetIngressReserveBytes(1, 5), 0u);
    EXPECT_EQ(mmu->GetIngressSharedBytes(1, 5), 1500u);
}

TEST(SwitchMmu, ThresholdIsAlphaTimesFreeShared)
{
    for (double alpha : {0.125, 0.5, 1.0, 2.0})
    {
        // Classes 1, 3 and 5 lossless, the others lossy: reserves for 1, 3,
        // 5 and 7, headrooms for 1, 3 and 5.
        MmuParams p;
        p.alpha = alpha;
        p.lossless = 0x2A;
        Ptr<SwitchMmu> mmu = MakeUniform(p, 4);
        RefMmu ref(p, std::vector<uint64_t>(4, kH100));
        const uint64_t pool = kBuffer - 4 * 4 * kReserve - 4 * 3 * kH100;
        ASSERT_EQ(ref.Pool(), pool);
        ASSERT_EQ(mmu->GetSharedPoolSize(), pool);
        std::mt19937 rng(7);
        for (int i = 0; i < 20000; ++i)
        {
            const uint32_t in = rng() % 4;
            const uint32_t out = rng() % 4;
            const uint8_t cls = rng() % kClasses;
            const uint32_t b = 64 + rng() % 9000;
            ASSERT_EQ(mmu->Admit(in, out, cls, b), ref.Admit(in, out, cls, b));
            ASSERT_EQ(mmu->GetSharedUsed(), ref.Shared());
            ASSERT_EQ(mmu->GetThreshold(),
                      static_cast<uint64_t>(alpha * static_cast<double>(pool - ref.Shared())))
                << "alpha " << alpha << " step " << i;
        }
    }
}

TEST(SwitchMmu, PausesExactlyWhenOverThreshold)
{
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeUniform(p, 2);
    const uint64_t pool = SharedPool(2, kH100);
    const uint64_t nShared = LoneQueueSharedPackets(pool, kPkt);

    // A lone queue stays within the threshold for its reserve and shared
    // packets; the next one goes to headroom and must trigger PAUSE.
    for (uint64_t i = 0; i < 2 + nShared; ++i)
    {
        ASSERT_TRUE(mmu->Admit(0, 1, 3, kPkt));
        ASSERT_FALSE(mmu->CheckPause(0, 3)) << "packet " << i;
    }
    ASSERT_TRUE(mmu->Admit(0, 1, 3, kPkt));
    EXPECT_TRUE(mmu->CheckPause(0, 3));
    EXPECT_EQ(mmu->GetIngressHeadroomBytes(0, 3), kPkt);
    mmu->SetPaused(0, 3, true);
    EXPECT_TRUE(mmu->IsPaused(0, 3));
    EXPECT_FALSE(mmu->CheckPause(0, 3)) << "already paused";
    // Other queues are unaffected.
    EXPECT_FALSE(mmu->CheckPause(0, 2));
    EXPECT_FALSE(mmu->CheckPause(1, 3));
}

TEST(SwitchMmu, PauseBoundaryIsStrictlyAboveThreshold)
{
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeUniform(p, 2);
    const uint64_t pool = SharedPool(2, kH100);
    // A lone queue holding s = floor(S / 9) shared bytes sits exactly at the
    // threshold floor((S - s) / 8) for these numbers.
    const uint64_t s = pool / 9;
    ASSERT_EQ((pool - s) / 8, s);
    ASSERT_TRUE(mmu->Admit(0, 1, 3, static_cast<uint32_t>(kReserve + s)));
    ASSERT_EQ(mmu->GetIngressSharedBytes(0, 3), s);
    EXPECT_FALSE(mmu->CheckPause(0, 3)) << "at the threshold, not over it";
    // 8 more shared bytes elsewhere lower the threshold by one byte.
    ASSERT_TRUE(mmu->Admit(1, 0, 3, kReserve + 8));
    ASSERT_EQ((pool - s - 8) / 8, s - 1);
    EXPECT_TRUE(mmu->CheckPause(0, 3));
}

TEST(SwitchMmu, PausesWhenOtherQueuesShrinkTheThreshold)
{
    // Classes 3 and 4 lossless: reserves for 3, 4 and 7, headrooms for 3 and 4.
    MmuParams p;
    p.lossless = 0x18;
    Ptr<SwitchMmu> mmu = MakeUniform(p, 2);
    const uint64_t pool = kBuffer - 2 * 3 * kReserve - 2 * 2 * kH100;
    ASSERT_EQ(mmu->GetSharedPoolSize(), pool);
    const uint64_t nShared = LoneQueueSharedPackets(pool, kPkt);
    for (uint64_t i = 0; i < 2 + nShared; ++i)
    {
        ASSERT_TRUE(mmu->Admit(0, 1, 3, kPkt));
    }
    const uint64_t sA = nShared * kPkt;
    ASSERT_FALSE(mmu->CheckPause(0, 3));

    // Queue (1, 4) fills the pool; queue (0, 3) holds still, so it goes over
    // the threshold exactly when sA > floor((S - sA - sB) / 8).
    bool sawPause = false;
    uint64_t sB = 0;
    for (int i = 0; i < 2000; ++i)
    {
        ASSERT_TRUE(mmu->Admit(1, 0, 4, kPkt));
        if (i >= 2)
        {
            sB += kPkt; // past the 2-packet reserve
        }
        ASSERT_EQ(mmu->GetIngressHeadroomBytes(1, 4), 0u);
        const bool over = sA > (pool - sA - sB) / 8;
        ASSERT_EQ(mmu->CheckPause(0, 3), over) << "step " << i;
        sawPause = sawPause || over;
    }
    EXPECT_TRUE(sawPause);
}

TEST(SwitchMmu, ResumesOnlyBelowThresholdMinusOffset)
{
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeUniform(p, 2);
    const uint64_t pool = SharedPool(2, kH100);
    const uint64_t nShared = LoneQueueSharedPackets(pool, kPkt);
    for (uint64_t i = 0; i < 2 + nShared + 1; ++i)
    {
        ASSERT_TRUE(mmu->Admit(0, 1, 3, kPkt));
    }
    ASSERT_TRUE(mmu->CheckPause(0, 3));
    EXPECT_FALSE(mmu->CheckResume(0, 3)) << "not paused yet";
    mmu->SetPaused(0, 3, true);
    EXPECT_FALSE(mmu->CheckResume(0, 3)) << "headroom in use";

    // Drain one packet at a time; shared bytes s after the headroom packet
    // left: resume iff s == 0 or s + offset <= floor((S - s) / 8).
    bool hysteresisSeen = false;
    bool resumed = false;
    uint64_t s = nShared * kPkt;
    for (uint64_t k = 1; k <= 2 + nShared + 1 && !resumed; ++k)
    {
        mmu->Release(0, 1, 3, kPkt);
        if (k >= 2)
        {
            s = s >= kPkt ? s - kPkt : 0;
        }
        const uint64_t threshold = (pool - s) / 8;
        const bool expectResume = s == 0 || s + kOffset <= threshold;
        ASSERT_EQ(mmu->CheckResume(0, 3), expectResume) << "release " << k;
        // Back within the threshold yet not resumed: the hysteresis band.
        hysteresisSeen = hysteresisSeen || (s <= threshold && !expectResume);
        ASSERT_FALSE(mmu->CheckPause(0, 3)) << "paused queues never re-pause";
        resumed = expectResume;
    }
    EXPECT_TRUE(resumed);
    EXPECT_TRUE(hysteresisSeen);
    mmu->SetPaused(0, 3, false);
    EXPECT_FALSE(mmu->CheckResume(0, 3));
    EXPECT_FALSE(mmu->IsPaused(0, 3));
}

TEST(SwitchMmu, HeadroomAbsorbsInFlightBytesAfterPause)
{
    // Every class lossless, so that every queue pauses and uses its headroom.
    MmuParams p;
    p.lossless = kAllClasses;
    const uint32_t nPorts = 4;
    Ptr<SwitchMmu> mmu = MakeUniform(p, nPorts);
    uint32_t drops = 0;
    mmu->TraceConnectWithoutContext(
        "Drop",
        MakeBoundCallback(
            +[](uint32_t* n, uint32_t, uint32_t, uint8_t, uint32_t) { ++*n; },
            &drops));

    // In flight after PAUSE: 3 x rate x delay = 37500 B, i.e. 35 packets.
    const uint64_t inFlight = (3 * 100 * 1000) / 8;
    const uint64_t burst = (inFlight + kPkt - 1) / kPkt;
    ASSERT_EQ(burst, 35u);

    // Every ingress queue in turn fills until PAUSE, then takes its burst;
    // later queues face an ever smaller threshold.
    for (uint32_t in = 0; in < nPorts; ++in)
    {
        for (uint8_t cls = 0; cls < kClasses; ++cls)
        {
            const uint32_t out = (in + 1) % nPorts;
            int sent = 0;
            while (!mmu->CheckPause(in, cls))
            {
                ASSERT_TRUE(mmu->Admit(in, out, cls, kPkt));
                ASSERT_LT(++sent, 100000);
            }
            mmu->SetPaused(in, cls, true);
            for (uint64_t i = 0; i < burst; ++i)
            {
                ASSERT_TRUE(mmu->Admit(in, out, cls, kPkt))
                    << "in-flight packet " << i << " of queue (" << in << ", " << +cls << ")";
            }
            ASSERT_LE(mmu->GetIngressHeadroomBytes(in, cls), kH100);
            ASSERT_LE(mmu->GetTotalUsed(), kBuffer);
        }
    }
    EXPECT_EQ(drops, 0u);
    EXPECT_GT(mmu->GetHeadroomUsed(), 0u);

    // Beyond the headroom a packet is dropped (and reported), never buffered.
    uint64_t h = mmu->GetIngressHeadroomBytes(0, 0);
    while (h + kPkt <= kH100)
    {
        ASSERT_TRUE(mmu->Admit(0, 1, 0, kPkt));
        h += kPkt;
    }
    const uint64_t before = mmu->GetTotalUsed();
    EXPECT_FALSE(mmu->Admit(0, 1, 0, kPkt));
    EXPECT_EQ(drops, 1u);
    EXPECT_EQ(mmu->GetTotalUsed(), before);
    EXPECT_LE(mmu->GetTotalUsed(), kBuffer);
}

TEST(SwitchMmu, LossyDropsAtEgressThresholdAndNeverBefore)
{
    // PFC off: class 3 is lossy but keeps its reserve (as does class 7).
    MmuParams p;
    p.pfc = false;
    p.egressAlpha = 1.0;
    Ptr<SwitchMmu> mmu = MakeUniform(p, 2);
    const uint64_t pool = kBuffer - 2 * 2 * kReserve;
    ASSERT_EQ(mmu->GetSharedPoolSize(), pool);
    // Egress queue of 2 reserve packets + n shared ones admits the (n+1)-th
    // iff 2200 + (n + 1) b <= S - (n + 1) b.
    const uint64_t maxShared = (pool - kReserve) / (2 * kPkt);
    for (uint64_t i = 0; i < 2 + maxShared; ++i)
    {
        ASSERT_TRUE(mmu->Admit(0, 1, 3, kPkt)) << "packet " << i;
        ASSERT_FALSE(mmu->CheckPause(0, 3));
    }
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_FALSE(mmu->Admit(0, 1, 3, kPkt));
    }
    EXPECT_EQ(mmu->GetEgressBytes(1, 3), (2 + maxShared) * kPkt);
    // After one departure the queue admits again, and only one packet.
    mmu->Release(0, 1, 3, kPkt);
    EXPECT_TRUE(mmu->Admit(0, 1, 3, kPkt));
    EXPECT_FALSE(mmu->Admit(0, 1, 3, kPkt));
    // Another egress queue still gets its share of the free pool.
    EXPECT_TRUE(mmu->Admit(0, 0, 3, kPkt));
}

TEST(SwitchMmu, LossyDropsOnlyWhenTheBufferIsFull)
{
    MmuParams p;
    p.pfc = false;
    p.egressAlpha = 1e30; // egress threshold never binds (and saturates)
    Ptr<SwitchMmu> mmu = MakeUniform(p, 3);
    const uint64_t pool = kBuffer - 3 * 2 * kReserve; // reserves of classes 3 and 7
    ASSERT_EQ(mmu->GetSharedPoolSize(), pool);
    const uint64_t fit = 2 + pool / kPkt;
    for (uint64_t i = 0; i < fit; ++i)
    {
        ASSERT_TRUE(mmu->Admit(0, 1 + i % 2, 3, kPkt)) << "packet " << i;
    }
    EXPECT_FALSE(mmu->Admit(0, 1, 3, kPkt));
    EXPECT_FALSE(mmu->Admit(1, 2, 0, kPkt)) << "class 0 has no reserve";
    EXPECT_FALSE(mmu->Admit(2, 1, 7, kPkt + kReserve)) << "beyond its reserve, pool full";
    EXPECT_TRUE(mmu->Admit(2, 1, 7, kPkt)) << "within its own reserve";
    EXPECT_LE(mmu->GetTotalUsed(), kBuffer);
    EXPECT_EQ(mmu->GetSharedUsed(), (fit - 2) * kPkt);
}

TEST(SwitchMmu, EcnThresholdsScaleWithRate)
{
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeMmu(p);
    mmu->Configure(4);
    mmu->ConfigurePort(0, DataRate("25Gbps"), NanoSeconds(1000), kMtu);
    mmu->ConfigurePort(1, DataRate("100Gbps"), NanoSeconds(1000), kMtu);
    mmu->ConfigurePort(2, DataRate("400Gbps"), NanoSeconds(1000), kMtu);
    mmu->ConfigurePort(3, DataRate("10Gbps"), NanoSeconds(1000), kMtu);
    EXPECT_EQ(mmu->GetKmin(0), 100000u);
    EXPECT_EQ(mmu->GetKmax(0), 400000u);
    EXPECT_EQ(mmu->GetKmin(1), 400000u);
    EXPECT_EQ(mmu->GetKmax(1), 1600000u);
    EXPECT_EQ(mmu->GetKmin(2), 1600000u);
    EXPECT_EQ(mmu->GetKmax(2), 6400000u);
    EXPECT_EQ(mmu->GetKmin(3), 40000u);
    EXPECT_EQ(mmu->GetKmax(3), 160000u);
    for (uint32_t port = 0; port < 4; ++port)
    {
        EXPECT_DOUBLE_EQ(mmu->GetPmax(port), 0.2);
    }

    mmu->SetAttribute("EcnKminPer25G", UintegerValue(50000));
    mmu->SetAttribute("EcnPmax", DoubleValue(0.5));
    mmu->ConfigurePort(1, DataRate("100Gbps"), NanoSeconds(1000), kMtu);
    EXPECT_EQ(mmu->GetKmin(1), 200000u);
    EXPECT_DOUBLE_EQ(mmu->GetPmax(1), 0.5);

    mmu->SetEcnParams(3, 1000, 2000, 1.0);
    EXPECT_EQ(mmu->GetKmin(3), 1000u);
    EXPECT_EQ(mmu->GetKmax(3), 2000u);
    EXPECT_DOUBLE_EQ(mmu->GetPmax(3), 1.0);
}

TEST(SwitchMmu, EcnMarksByRed)
{
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeUniform(p, 2); // 100G: Kmin 400 KB, Kmax 1600 KB
    const uint64_t kmin = 400000;
    const uint64_t kmax = 1600000;
    const double pmax = 0.2;
    const uint8_t cls = 3;
    const int n = 1000;

    auto fillTo = [&](uint64_t q) {
        const uint64_t now = mmu->GetEgressBytes(1, cls);
        ASSERT_LE(now, q);
        if (q > now)
        {
            ASSERT_TRUE(mmu->Admit(0, 1, cls, static_cast<uint32_t>(q - now)));
        }
        ASSERT_EQ(mmu->GetEgressBytes(1, cls), q);
    };
    // Marks among n evenly spread uniform draws (i + 0.5) / n.
    auto marks = [&]() {
        int count = 0;
        for (int i = 0; i < n; ++i)
        {
            count += mmu->ShouldMarkEcn(1, cls, (i + 0.5) / n) ? 1 : 0;
        }
        return count;
    };

    EXPECT_EQ(marks(), 0);
    fillTo(kmin);
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(1, cls), 0.0);
    EXPECT_FALSE(mmu->ShouldMarkEcn(1, cls, 0.0));
    EXPECT_EQ(marks(), 0);

    fillTo(kmin + 1);
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(1, cls), pmax * 1.0 / (kmax - kmin));
    EXPECT_TRUE(mmu->ShouldMarkEcn(1, cls, 0.0));

    fillTo((kmin + kmax) / 2); // p = 0.1
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(1, cls), 0.1);
    EXPECT_TRUE(mmu->ShouldMarkEcn(1, cls, 0.0999));
    EXPECT_FALSE(mmu->ShouldMarkEcn(1, cls, 0.1001));
    EXPECT_EQ(marks(), 100);

    fillTo(1300000); // p = 0.2 x 900/1200 = 0.15
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(1, cls), 0.15);
    EXPECT_EQ(marks(), 150);

    fillTo(kmax);
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(1, cls), pmax);
    EXPECT_EQ(marks(), 200);

    fillTo(kmax + 1);
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(1, cls), 1.0);
    EXPECT_TRUE(mmu->ShouldMarkEcn(1, cls, 0.999999));
    EXPECT_EQ(marks(), n);

    // Per (port, class): the same port's other classes are not marked.
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(1, cls + 1), 0.0);
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(0, cls), 0.0);

    // Marking follows the queue down as packets leave.
    mmu->Release(0, 1, cls, 600001); // back to 1,000,000 B
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(1, cls), 0.1);

    mmu->SetAttribute("EcnEnabled", BooleanValue(false));
    EXPECT_DOUBLE_EQ(mmu->GetMarkProbability(1, cls), 0.0);
    EXPECT_FALSE(mmu->ShouldMarkEcn(1, cls, 0.0));
}

TEST(SwitchMmu, RejectsMisuse)
{
    MmuParams p;
    Ptr<SwitchMmu> mmu = MakeMmu(p);
    EXPECT_THROW(mmu->Configure(0), std::runtime_error);
    mmu->Configure(2);
    mmu->ConfigurePort(0, DataRate("100Gbps"), NanoSeconds(1000), kMtu);
    EXPECT_THROW(mmu->Admit(0, 1, 0, kPkt), std::runtime_error) << "port 1 not configured";
    mmu->ConfigurePort(1, DataRate("100Gbps"), NanoSeconds(1000), kMtu);
    EXPECT_THROW(mmu->ConfigurePort(2, DataRate("100Gbps"), NanoSeconds(1000), kMtu),
                 std::runtime_error);
    EXPECT_THROW(mmu->Admit(0, 1, kClasses, kPkt), std::runtime_error);
    EXPECT_THROW(mmu->Admit(0, 2, 0, kPkt), std::runtime_error);
    EXPECT_THROW(mmu->Release(0, 1, 0, kPkt), std::runtime_error) << "nothing admitted";
    EXPECT_THROW(mmu->SetEcnParams(0, 2000, 1000, 0.1), std::runtime_error);
    EXPECT_THROW(mmu->SetEcnParams(0, 1000, 2000, 1.5), std::runtime_error);
    ASSERT_TRUE(mmu->Admit(0, 1, 0, kPkt));
    EXPECT_THROW(mmu->Configure(4), std::runtime_error) << "packets buffered";

    // Headrooms that do not fit in the buffer are refused. Two ports, class 3
    // lossless: reserves 2 x 2 x 2200 = 8800 B, headrooms 39700 B (100G) and
    // 3 x 50000 + 2200 = 152200 B (400G, 1 us): 200700 B in all.
    for (uint64_t buffer : {200700u, 200699u})
    {
        MmuParams small;
        small.buffer = buffer;
        Ptr<SwitchMmu> tight = MakeMmu(small);
        tight->Configure(2);
        tight->ConfigurePort(0, DataRate("100Gbps"), NanoSeconds(1000), kMtu);
        if (buffer == 200700)
        {
            tight->ConfigurePort(1, DataRate("400Gbps"), NanoSeconds(1000), kMtu);
            EXPECT_EQ(tight->GetSharedPoolSize(), 0u);
            // One more lossless class needs another reserve and headroom per port.
            EXPECT_THROW(tight->SetLosslessClasses(0x18), std::runtime_error);
            EXPECT_EQ(tight->GetLosslessClasses(), kOnly3) << "unchanged after the refusal";
            EXPECT_EQ(tight->GetSharedPoolSize(), 0u);
            continue;
        }
        try
        {
            tight->ConfigurePort(1, DataRate("400Gbps"), NanoSeconds(1000), kMtu);
            ADD_FAILURE() << "200699 B cannot hold 200700 B of reserves and headrooms";
        }
        catch (const std::runtime_error& e)
        {
            const std::string what = e.what();
            EXPECT_NE(what.find("BufferSize 200699"), std::string::npos) << what;
            EXPECT_NE(what.find("headrooms (191900 B)"), std::string::npos) << what;
            EXPECT_NE(what.find("reserves (8800 B)"), std::string::npos) << what;
        }
    }

    // Buffered packets forbid changing the classes.
    EXPECT_THROW(mmu->SetLosslessClasses(0x7F), std::runtime_error);

    // A bad LosslessClasses is reported by name when the MMU is configured.
    for (const char* bad : {"8", "3-9", "a", "5-2", "3,,4", "-3", "0-6x"})
    {
        Ptr<SwitchMmu> m = CreateObject<SwitchMmu>();
        m->SetAttribute("LosslessClasses", StringValue(bad));
        try
        {
            m->Configure(2);
            ADD_FAILURE() << "LosslessClasses '" << bad << "' accepted";
        }
        catch (const std::runtime_error& e)
        {
            const std::string what = e.what();
            EXPECT_NE(what.find("LosslessClasses '" + std::string(bad) + "'"), std::string::npos)
                << what;
        }
    }
}

TEST(SwitchMmu, ParsesAndFormatsClassLists)
{
    const std::pair<const char*, uint8_t> good[] = {
        {"3", 0x08},
        {"0-6", 0x7F},
        {"1,3-5", 0x3A},
        {" 2 , 7 ", 0x84},
        {"0-7", 0xFF},
        {"6-6", 0x40},
        {"", 0},
        {"none", 0},
    };
    for (const auto& [text, mask] : good)
    {
        EXPECT_EQ(SwitchMmu::ParseClassList(text), mask) << "'" << text << "'";
        EXPECT_EQ(SwitchMmu::ParseClassList(SwitchMmu::FormatClassList(mask)), mask);
    }
    EXPECT_EQ(SwitchMmu::FormatClassList(0x3A), "1,3-5");
    EXPECT_EQ(SwitchMmu::FormatClassList(0x7F), "0-6");
    EXPECT_EQ(SwitchMmu::FormatClassList(0x84), "2,7");
    EXPECT_EQ(SwitchMmu::FormatClassList(0), "none");
    for (const char* bad : {"8", "3-9", "x", "5-2", "3,,4", "-3", "1-", "33", "3;4"})
    {
        EXPECT_THROW(SwitchMmu::ParseClassList(bad), std::invalid_argument) << bad;
    }
}

// The bound the ECN-below-PFC check uses is where a lone congested queue of
// a lossless class really pauses. Breaking GetPauseOnsetBytes (e.g. leaving
// out the 1 / (1 + PfcAlpha) factor or the reserve) fails the comparison.
TEST(SwitchMmu, PauseOnsetIsWhereALoneQueuePauses)
{
    for (double alpha : {0.125, 0.5, 1.0, 4.0})
    {
        for (uint32_t pkt : {1u, 64u, 1100u})
        {
            MmuParams p;
            p.alpha = alpha;
            p.buffer = 1500000;
            Ptr<SwitchMmu> mmu = MakeUniform(p, 4);
            const uint64_t pool = 1500000 - 4 * 2 * kReserve - 4 * kH100;
            ASSERT_EQ(mmu->GetSharedPoolSize(), pool);
            // By hand: the largest s with s <= floor(alpha (P - s)).
            uint64_t s = 0;
            while (s + 1 <= static_cast<uint64_t>(alpha * static_cast<double>(pool - s - 1)))
            {
                ++s;
            }
            EXPECT_EQ(mmu->GetPauseOnsetBytes(), kReserve + s) << alpha;
            // One ingress queue, one egress queue: the egress bytes before
            // the packet that pauses never exceed the onset, and reach it
            // within one packet.
            uint64_t before = 0;
            while (!mmu->CheckPause(0, 3))
            {
                before = mmu->GetEgressBytes(1, 3);
                ASSERT_TRUE(mmu->Admit(0, 1, 3, pkt));
            }
            EXPECT_LE(before, mmu->GetPauseOnsetBytes()) << alpha << " " << pkt;
            EXPECT_GT(before + pkt, mmu->GetPauseOnsetBytes()) << alpha << " " << pkt;
        }
    }
    // No lossless class, no onset.
    MmuParams p;
    p.pfc = false;
    EXPECT_EQ(MakeUniform(p, 2)->GetPauseOnsetBytes(), 0u);
}
