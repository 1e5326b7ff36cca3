/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The ConnectX firmware's DCQCN reaction point against values computed by
 * hand from the DCQCN paper's equations and the firmware's parameters (and
 * against the event-driven reference), and the named profiles with which a
 * congestion-control spec chooses them.
 */
#include "dcqcn-test-util.h"

#include "ns3/mltcp-dcqcn.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/string.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <string>

using namespace ns3;
using namespace ns3::dcqcntest;

namespace
{

// --- The ConnectX firmware's reaction point, against values computed by hand ---------------

/// g and the firmware's fixed-point constants, as the documentation gives them.
constexpr double kG = 5.0 / 1024;      // 1 - DCE_TCP_G / 1024, DCE_TCP_G = 1019
constexpr double kA0 = 1023.0 / 1024;  // INITIAL_ALPHA_VALUE 1023
constexpr double kAi = 5e6;            // RPG_AI_RATE 5 Mb/s
constexpr double kHai = 50e6;          // RPG_HAI_RATE 50 Mb/s
constexpr uint32_t kByteReset = 32767; // RPG_BYTE_RESET

/// \return \p a after \p n unmarked alpha updates, one multiplication each.
double
Decay(double a, int n)
{
    for (int i = 0; i < n; ++i)
    {
        a *= 1 - kG;
    }
    return a;
}

/**
 * One flow at 100 Gb/s with the ConnectX defaults, through a scripted
 * sequence of CNPs and sends: the first-CNP cut, a deferred cut, fast
 * recovery, additive and hyper increase, each driven once by the byte
 * counter and once by the timer. Every value is worked out here from the
 * DCQCN paper's equations with the firmware's parameters. Broken on purpose
 * once each: alpha left at 1 instead of INITIAL_ALPHA_VALUE (step A fails),
 * the byte counter's stage taken from T (step G fails), the increase steps
 * scaled by line rate / 25 Gb/s (step G fails), hyper increase at
 * min(T,BC) >= F (step I fails).
 */
TEST(DcqcnConnectxTest, RateTrajectoryByHand)
{
    Ptr<Dcqcn> d = CreateObject<Dcqcn>(); // the defaults are the firmware's
    d->Init(DataRate("100Gb/s"), Seconds(0));
    const auto rc = [&](Time t) { return d->GetRateBps(t); };
    const auto rt = [&](Time t) { return d->GetTargetRateBps(t); };
    const Time us = MicroSeconds(1);

    // A, 10 us: first CNP. Rc = Rt = line (RATE_TO_SET_ON_FIRST_CNP 0), alpha = 1023/1024,
    // Rc = 100G (1 - alpha / 2^(11-10)) = 100G x 1025/2048. No increase-timer expiry yet
    // (T = 0), so CLAMP_TGT_RATE_AFTER_TIME_INC leaves Rt at line.
    d->OnCnp(10 * us);
    EXPECT_EQ(d->GetAlpha(10 * us), kA0);
    const double rcA = 50048828125.0;
    EXPECT_EQ(rc(10 * us), rcA);
    EXPECT_EQ(rt(10 * us), kLine);

    // The alpha timer runs from 10 us. 11 us: the period saw the first CNP:
    // alpha = (1 - g) 1023/1024 + g. 12 us: no CNP: alpha = (1 - g) alpha.
    const double a11 = (1 - kG) * kA0 + kG;
    const double a12 = (1 - kG) * a11;
    EXPECT_DOUBLE_EQ(d->GetAlpha(12 * us), a12);

    // B, 12.5 us: a CNP within RATE_REDUCE_MONITOR_PERIOD (4 us) of the last cut waits for
    // 14 us. Alpha at 13 us is marked by it; at 14 us not; then the cut, with alpha(14 us).
    d->OnCnp(NanoSeconds(12500));
    EXPECT_EQ(rc(NanoSeconds(13999)), rcA);
    const double a13 = (1 - kG) * a12 + kG;
    const double a14 = (1 - kG) * a13;
    const double rcB = rcA * (1 - a14 / 2);
    ExpectClose(rcB, rc(14 * us), "B");
    EXPECT_EQ(rt(14 * us), kLine);

    // C, 20 us: RPG_BYTE_RESET bytes sent in two pieces. The first piece is short of the
    // counter; the second completes it: one byte-counter step with T = 0, BC = 0 < F = 1:
    // fast recovery, Rc = (Rt + Rc) / 2.
    d->OnSend(30000, 20 * us);
    ExpectClose(rcB, rc(20 * us), "C, short of the counter");
    d->OnSend(kByteReset - 30000, 20 * us);
    const double rcC = (kLine + rcB) / 2;
    ExpectClose(rcC, rc(20 * us), "C");

    // D, 314 us: the increase timer (RPG_TIME_RESET 300 us from the cut at 14 us) with
    // T = 0, BC = 1: max(T,BC) >= F, min(T,BC) <= F: additive, Rt = min(line, line + AI).
    ExpectClose(rcC, rc(NanoSeconds(313999)), "D, just before");
    const double rcD = (kLine + rcC) / 2;
    ExpectClose(rcD, rc(314 * us), "D");
    EXPECT_EQ(rt(314 * us), kLine);

    // E, 400 us: a CNP after a timer-driven increase (T = 1): Rt = Rc. Alpha: a14 and the
    // unmarked updates at 15..400 us (386 of them).
    d->OnCnp(400 * us);
    const double aE = Decay(a14, 386);
    EXPECT_NEAR(d->GetAlpha(400 * us), aE, 1e-15);
    const double rcE = rcD * (1 - aE / 2);
    ExpectClose(rcD, rt(400 * us), "E, Rt");
    ExpectClose(rcE, rc(400 * us), "E");

    // F, 410 us: a byte-counter step with T = 0, BC = 0: fast recovery towards Rt = rcD.
    d->OnSend(kByteReset, 410 * us);
    const double rcF = (rcD + rcE) / 2;
    ExpectClose(rcF, rc(410 * us), "F");
    ExpectClose(rcD, rt(410 * us), "F, Rt");

    // G, 420 us: T = 0, BC = 1: additive by the byte counter, Rt += 5 Mb/s (not scaled by
    // the line rate).
    d->OnSend(kByteReset, 420 * us);
    double target = rcD + kAi;
    double rate = (target + rcF) / 2;
    ExpectClose(target, rt(420 * us), "G, Rt");
    ExpectClose(rate, rc(420 * us), "G");

    // H, 700 us (timer, 300 us after the cut at 400 us): T = 0, BC = 2: additive.
    target += kAi;
    rate = (target + rate) / 2;
    ExpectClose(target, rt(700 * us), "H, Rt");
    ExpectClose(rate, rc(700 * us), "H");

    // I, 710 us: bytes, T = 1, BC = 2: min(T,BC) = F, not above it: still additive.
    d->OnSend(kByteReset, 710 * us);
    target += kAi;
    rate = (target + rate) / 2;
    ExpectClose(target, rt(710 * us), "I, Rt");
    ExpectClose(rate, rc(710 * us), "I");

    // J, 1000 us: timer, T = 1, BC = 3: additive.
    target += kAi;
    rate = (target + rate) / 2;
    ExpectClose(target, rt(1000 * us), "J, Rt");
    ExpectClose(rate, rc(1000 * us), "J");

    // K, 1010 us: bytes, T = 2, BC = 3: min(T,BC) > F: hyper, Rt += 50 Mb/s.
    d->OnSend(kByteReset, 1010 * us);
    target += kHai;
    rate = (target + rate) / 2;
    ExpectClose(target, rt(1010 * us), "K, Rt");
    ExpectClose(rate, rc(1010 * us), "K");

    // L, M: timer at 1300 and 1600 us, T = 2 then 3, BC = 4: hyper.
    for (int64_t t : {1300, 1600})
    {
        const std::string step = t == 1300 ? "L" : "M";
        ExpectClose(rate, rc((t - 1) * us), step + ", just before");
        target += kHai;
        rate = (target + rate) / 2;
        ExpectClose(target, rt(t * us), step + ", Rt");
        ExpectClose(rate, rc(t * us), step);
    }

    // And the lazily-timed object agrees with the event-driven reference on the same script.
    std::vector<Input> in{{10000, true, 0},
                          {12500, true, 0},
                          {20000, false, 30000},
                          {20000, false, kByteReset - 30000},
                          {400000, true, 0},
                          {410000, false, kByteReset},
                          {420000, false, kByteReset},
                          {710000, false, kByteReset},
                          {1010000, false, kByteReset}};
    ExpectMatchesReference(Params::Connectx(), in, Grid(0, 5000000, 700));
}

/**
 * RPG_MIN_DEC_FAC: one decrease never takes Rc below MinDecreaseFactor% of
 * the rate before it. With Gd = 10 the cut is Rc (1 - alpha), nearly all of
 * Rc with alpha = 1023/1024; the floor stops it at 50%, per event. Broken
 * on purpose (the floor ignored), the first cut falls to 100G/1024 and the
 * test fails.
 */
TEST(DcqcnConnectxTest, MinDecreaseFactorBoundsEachCut)
{
    Params p = Params::Connectx();
    p.gd = 10;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), 0.5 * kLine); // not 100G x (1 - 1023/1024)
    d->OnCnp(MicroSeconds(20));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(20)), 0.25 * kLine); // 50% of the previous rate

    // Without the floor: 100G x (1 - 1023/1024) = 100G / 1024.
    p.minDecFac = 0;
    d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), kLine / 1024);

    // 100 prevents decreases.
    p.minDecFac = 100;
    d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    d->OnCnp(MicroSeconds(20));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(20)), kLine);

    // With Gd = 11 the cut is at most a half, so 50% never binds: the paper's Rc (1 - alpha/2).
    p = Params::Connectx();
    p.initialAlpha = 1;
    d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), 0.5 * kLine);

    for (uint32_t fac : {0u, 50u, 100u})
    {
        for (uint32_t gd : {10u, 11u})
        {
            Params q = Params::Connectx();
            q.gd = gd;
            q.minDecFac = fac;
            ExpectMatchesReference(q,
                                   Cnps({1000, 2000, 9000, 13000, 400000}),
                                   Grid(0, 3000000, 900));
        }
    }
}

/**
 * RATE_TO_SET_ON_FIRST_CNP: the first CNP sets Rc and Rt to it, then cuts
 * Rc; later CNPs do not. Broken on purpose (the first-CNP rates dropped), Rt
 * stays at line rate and Rc is cut from line rate: the test fails.
 */
TEST(DcqcnConnectxTest, RateOnFirstCnpSetsBothRatesThenCuts)
{
    Params p = Params::Connectx();
    p.rateOnFirstCnpBps = 40000000000;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), kLine);
    d->OnCnp(MicroSeconds(10));
    EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(10)), 40e9);
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), 40e9 * 1025 / 2048); // 20.01953125 Gb/s
    // The second CNP cuts from where the first left Rc; Rt stays (T = 0). Alpha at 20 us:
    // the marked update at 11 us, then 9 unmarked ones (12..20 us).
    d->OnCnp(MicroSeconds(20));
    const double a20 = Decay((1 - kG) * kA0 + kG, 9);
    ExpectClose(40e9 * 1025 / 2048 * (1 - a20 / 2), d->GetRateBps(MicroSeconds(20)), 0);
    EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(20)), 40e9);

    // More than line rate is line rate.
    p.rateOnFirstCnpBps = 400000000000;
    d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(10)), kLine);
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), kLine * 1025 / 2048);

    // A queue pair below line rate when its first CNP arrives (StartAtLineRate false, so at
    // MinRate 1 Mb/s): RATE_TO_SET_ON_FIRST_CNP 0 puts it back at line rate before the cut;
    // with SetRatesOnFirstCnp false (the hpcc profile) the cut applies to 1 Mb/s and MinRate
    // holds it there.
    p.rateOnFirstCnpBps = 0;
    p.startAtLine = false;
    d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), 1e6);
    d->OnCnp(MicroSeconds(10));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), kLine * 1025 / 2048);
    EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(10)), kLine);
    p.setRatesOnFirstCnp = false;
    d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), 1e6);

    // Below MinRate is refused, naming the attribute.
    p = Params::Connectx();
    p.rateOnFirstCnpBps = 500000;
    d = MakeDcqcn(p);
    try
    {
        d->Init(DataRate("100Gb/s"), Seconds(0));
        ADD_FAILURE() << "RateOnFirstCnp below MinRate accepted";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("RateOnFirstCnp"), std::string::npos) << e.what();
    }

    p = Params::Connectx();
    p.rateOnFirstCnpBps = 30000000000;
    ExpectMatchesReference(p, Cnps({5000, 7000, 20000, 700000}), Grid(0, 4000000, 1300));
}

/**
 * CLAMP_TGT_RATE and CLAMP_TGT_RATE_AFTER_TIME_INC: CNPs at 10 and 20 us,
 * one increase-timer expiry (fast recovery) at 320 us, a CNP at 400 us.
 * Broken on purpose once each: ClampTargetRate ignored (the (1,0) case
 * fails at 20 us) and ClampTargetRateAfterTimeInc ignored, i.e. always on
 * (the (0,0) case fails at 400 us).
 */
TEST(DcqcnConnectxTest, ClampOptions)
{
    const double rc10 = kLine * 1025 / 2048;
    const double a20 = Decay((1 - kG) * kA0 + kG, 9); // marked at 11 us, 12..20 unmarked
    const double rc20 = rc10 * (1 - a20 / 2);
    const double a400 = Decay((1 - kG) * a20 + kG, 379); // marked at 21 us, 22..400 unmarked

    struct Case
    {
        bool always;
        bool afterTimeInc;
        double rt20;  // Rt after the cut at 20 us
        double rt400; // Rt after the cut at 400 us, given Rc before it
    };

    for (const Case& c : {Case{false, true, kLine, -1}, // -1: Rc before the cut
                          Case{false, false, kLine, kLine},
                          Case{true, false, rc10, -1},
                          Case{true, true, rc10, -1}})
    {
        SCOPED_TRACE(std::to_string(c.always) + std::to_string(c.afterTimeInc));
        Params p = Params::Connectx();
        p.clamp = c.always;
        p.clampAfterTimeInc = c.afterTimeInc;
        Ptr<Dcqcn> d = MakeDcqcn(p);
        d->Init(DataRate("100Gb/s"), Seconds(0));
        d->OnCnp(MicroSeconds(10));
        // The first cut: Rc was line rate, so every rule leaves Rt at line rate.
        EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(10)), kLine);
        d->OnCnp(MicroSeconds(20));
        EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(20)), c.rt20);
        ExpectClose(rc20, d->GetRateBps(MicroSeconds(20)), 20);
        // 320 us: fast recovery towards Rt (T = 0, BC = 0, no bytes sent).
        const double rc320 = (c.rt20 + rc20) / 2;
        ExpectClose(rc320, d->GetRateBps(MicroSeconds(320)), 320);
        d->OnCnp(MicroSeconds(400));
        ExpectClose(c.rt400 < 0 ? rc320 : c.rt400, d->GetTargetRateBps(MicroSeconds(400)), 400);
        ExpectClose(rc320 * (1 - a400 / 2), d->GetRateBps(MicroSeconds(400)), 400);
        ExpectMatchesReference(p,
                               Cnps({10000, 20000, 400000, 402000, 900000}),
                               Grid(0, 3000000, 1100));
    }
}

/**
 * RPG_MIN_RATE is the floor of every cut, above the MinDecreaseFactor floor.
 * Broken on purpose (the floor removed), the first case falls to 0.
 */
TEST(DcqcnConnectxTest, MinRateFloor)
{
    // Alpha 1 and Gd 10 cut to Rc (1 - 1) = 0; with no decrease floor, MinRate (1 Mb/s) holds.
    Params p = Params::Connectx();
    p.initialAlpha = 1;
    p.gd = 10;
    p.minDecFac = 0;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), 1e6);
    EXPECT_EQ(d->GetRate(MicroSeconds(10)), DataRate("1Mb/s"));
    // A MinRate above what the cut and the 50% floor give wins: max(60G, 50G, 50.05G).
    p = Params::Connectx();
    p.minBps = 60000000000;
    d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(10)), 60e9);

    // A CNP storm keeps Rc at or above MinRate, as the reference says.
    p = Params::Connectx();
    p.minBps = 2000000000;
    std::vector<Input> in;
    for (int64_t t = 1000; t <= 400000; t += 4000)
    {
        in.push_back(Input{t, true, 0});
    }
    auto lazy = RunLazy(MakeDcqcn(p), in, Grid(0, 400000, 250));
    EXPECT_EQ(lazy.back().rate, 2e9);
    ExpectMatchesReference(p, in, Grid(0, 3000000, 1100));
}

// --- Profiles in the congestion-control spec ------------------------------------------------

/**
 * "profile=NAME" expands to the profile's values before the explicit ones,
 * wherever it is written. Broken on purpose (the profile applied after the
 * explicit values), ByteCounter=5 is lost and the test fails.
 */
TEST(DcqcnProfileTest, SpecStringSelectsAProfileAndKeysOverrideIt)
{
    for (const char* spec : {"dcqcn[profile=hpcc|ByteCounter=5]",
                             "dcqcn[ByteCounter=5|profile=hpcc]",
                             "ns3::Dcqcn[profile=HPCC|ByteCounter=5]"})
    {
        SCOPED_TRACE(spec);
        Ptr<Dcqcn> d = RoceFabricHelper::ParseCongestionControl(spec).Create<Dcqcn>();
        Ptr<Dcqcn> expected = CreateObject<Dcqcn>();
        expected->ApplyProfile("hpcc");
        expected->SetAttribute("ByteCounter", UintegerValue(5));
        EXPECT_EQ(AttributeStrings(d), AttributeStrings(expected));
        UintegerValue u;
        d->GetAttribute("ByteCounter", u);
        EXPECT_EQ(u.Get(), 5u);
        DoubleValue g;
        d->GetAttribute("G", g);
        EXPECT_EQ(g.Get(), 1.0 / 256);
        d->GetAttribute("FastRecoveryTimes", u);
        EXPECT_EQ(u.Get(), 5u);
    }
    // connectx is the plain default.
    EXPECT_EQ(
        AttributeStrings(
            RoceFabricHelper::ParseCongestionControl("dcqcn[profile=connectx]").Create<Dcqcn>()),
        AttributeStrings(CreateObject<Dcqcn>()));
    EXPECT_EQ(AttributeStrings(RoceFabricHelper::ParseCongestionControl("dcqcn").Create<Dcqcn>()),
              AttributeStrings(CreateObject<Dcqcn>()));

    // MltcpDcqcn takes a profile too, with its own attributes beside it.
    Ptr<MltcpDcqcn> m =
        RoceFabricHelper::ParseCongestionControl("mltcp-dcqcn[profile=hpcc|Slope=2]")
            .Create<MltcpDcqcn>();
    DoubleValue v;
    m->GetAttribute("Slope", v);
    EXPECT_EQ(v.Get(), 2.0);
    m->GetAttribute("G", v);
    EXPECT_EQ(v.Get(), 1.0 / 256);
}

TEST(DcqcnProfileTest, UnknownProfilesAndMisuseAreErrors)
{
    try
    {
        Dcqcn::GetProfile("cx6");
        ADD_FAILURE() << "unknown profile accepted";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string what = e.what();
        EXPECT_NE(what.find("'cx6'"), std::string::npos) << what;
        EXPECT_NE(what.find("connectx, hpcc"), std::string::npos) << what;
    }
    Ptr<Dcqcn> d = CreateObject<Dcqcn>();
    EXPECT_THROW(d->ApplyProfile("mellanox"), std::invalid_argument);

    try
    {
        RoceFabricHelper::ParseCongestionControl("dcqcn[profile=cx6|ByteCounter=5]");
        ADD_FAILURE() << "unknown profile accepted";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string what = e.what();
        EXPECT_NE(what.find("profile 'cx6'"), std::string::npos) << what;
        EXPECT_NE(what.find("connectx, hpcc"), std::string::npos) << what;
    }
    for (const char* spec : {"dcqcn[profile=hpcc|profile=connectx]",
                             "dcqcn[profile=]",
                             "none[profile=hpcc]",
                             "dcqcn[Profile=hpcc]",
                             "dcqcn[profile=hpcc|Gd=12]", // outside the firmware's 10..11
                             "dcqcn[MinDecreaseFactor=101]",
                             "dcqcn[InitialAlpha=1.5]"})
    {
        EXPECT_THROW(RoceFabricHelper::ParseCongestionControl(spec), std::invalid_argument) << spec;
        RoceFabricHelper helper;
        EXPECT_THROW(helper.SetCongestionControl(spec), std::invalid_argument) << spec;
    }
}

} // namespace
