/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the lazily-timed DCQCN reaction point against an event-driven
 * reference written here from the specification, and against analytic values.
 */
#include "dcqcn-test-util.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/dcqcn.h"
#include "ns3/double.h"
#include "ns3/mltcp-dcqcn.h"
#include "ns3/nstime.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;
using namespace ns3::dcqcntest;

namespace
{

TEST(DcqcnTest, DefaultsAreTheConnectxFirmwareValues)
{
    // Written out from NVIDIA's "DCQCN CC Parameters" (mlxconfig names), not from the code.
    Ptr<Dcqcn> d = CreateObject<Dcqcn>();
    EXPECT_EQ(d->GetName(), "Dcqcn");
    DoubleValue dv;
    d->GetAttribute("G", dv);
    EXPECT_EQ(dv.Get(), 1 - 1019.0 / 1024); // DCE_TCP_G 1019
    d->GetAttribute("InitialAlpha", dv);
    EXPECT_EQ(dv.Get(), 1023.0 / 1024); // INITIAL_ALPHA_VALUE 1023
    TimeValue tv;
    d->GetAttribute("AlphaUpdateInterval", tv);
    EXPECT_EQ(tv.Get(), MicroSeconds(1)); // DCE_TCP_RTT
    d->GetAttribute("RateDecreaseInterval", tv);
    EXPECT_EQ(tv.Get(), MicroSeconds(4)); // RATE_REDUCE_MONITOR_PERIOD
    d->GetAttribute("RateIncreaseInterval", tv);
    EXPECT_EQ(tv.Get(), MicroSeconds(300)); // RPG_TIME_RESET
    UintegerValue uv;
    d->GetAttribute("ByteCounter", uv);
    EXPECT_EQ(uv.Get(), 32767u); // RPG_BYTE_RESET
    d->GetAttribute("FastRecoveryTimes", uv);
    EXPECT_EQ(uv.Get(), 1u); // RPG_THRESHOLD
    d->GetAttribute("Gd", uv);
    EXPECT_EQ(uv.Get(), 11u); // RPG_GD
    d->GetAttribute("MinDecreaseFactor", uv);
    EXPECT_EQ(uv.Get(), 50u); // RPG_MIN_DEC_FAC
    DataRateValue rv;
    d->GetAttribute("AdditiveIncreaseRate", rv);
    EXPECT_EQ(rv.Get(), DataRate("5Mb/s")); // RPG_AI_RATE
    d->GetAttribute("HyperIncreaseRate", rv);
    EXPECT_EQ(rv.Get(), DataRate("50Mb/s")); // RPG_HAI_RATE
    d->GetAttribute("MinRate", rv);
    EXPECT_EQ(rv.Get(), DataRate("1Mb/s")); // RPG_MIN_RATE
    d->GetAttribute("RateOnFirstCnp", rv);
    EXPECT_EQ(rv.Get(), DataRate(0)); // RATE_TO_SET_ON_FIRST_CNP
    BooleanValue bv;
    d->GetAttribute("SetRatesOnFirstCnp", bv);
    EXPECT_TRUE(bv.Get());
    d->GetAttribute("ClampTargetRate", bv);
    EXPECT_FALSE(bv.Get()); // CLAMP_TGT_RATE
    d->GetAttribute("ClampTargetRateAfterTimeInc", bv);
    EXPECT_TRUE(bv.Get()); // CLAMP_TGT_RATE_AFTER_TIME_INC
    d->GetAttribute("StartAtLineRate", bv);
    EXPECT_TRUE(bv.Get());
}

/// Changing one attribute default (ByteCounter 32768) on purpose made this test fail.
TEST(DcqcnTest, ConnectxProfileIsTheAttributeDefaults)
{
    // Invariant: the connectx profile and the attribute defaults are one parameter set, and
    // every attribute is in both profiles. Start from hpcc so that a profile entry that did
    // not apply, or a default that drifted, shows.
    Ptr<Dcqcn> fromProfile = CreateObject<Dcqcn>();
    fromProfile->ApplyProfile("hpcc");
    EXPECT_NE(AttributeStrings(fromProfile), AttributeStrings(CreateObject<Dcqcn>()));
    fromProfile->ApplyProfile("ConnectX"); // names are case-insensitive
    EXPECT_EQ(AttributeStrings(fromProfile), AttributeStrings(CreateObject<Dcqcn>()));
    const TypeId tid = Dcqcn::GetTypeId();
    for (const char* name : {"connectx", "hpcc"})
    {
        std::set<std::string> listed;
        for (const auto& [attribute, value] : Dcqcn::GetProfile(name))
        {
            EXPECT_TRUE(listed.insert(attribute).second)
                << name << " lists " << attribute << " twice";
        }
        EXPECT_EQ(listed.size(), tid.GetAttributeN()) << name;
    }
    EXPECT_EQ(Dcqcn::GetProfileNames(), (std::vector<std::string>{"connectx", "hpcc"}));
}

/// With the hpcc increase steps left unscaled on purpose, step 6 of this test failed.
TEST(DcqcnTest, HpccProfileHasTheHpccSimulatorsValues)
{
    Ptr<Dcqcn> d = CreateObject<Dcqcn>();
    d->ApplyProfile("hpcc");
    DoubleValue dv;
    d->GetAttribute("G", dv);
    EXPECT_EQ(dv.Get(), 1.0 / 256);
    d->GetAttribute("InitialAlpha", dv);
    EXPECT_EQ(dv.Get(), 1.0);
    UintegerValue uv;
    d->GetAttribute("FastRecoveryTimes", uv);
    EXPECT_EQ(uv.Get(), 5u);
    d->GetAttribute("ByteCounter", uv);
    EXPECT_EQ(uv.Get(), 0u);
    d->GetAttribute("MinDecreaseFactor", uv);
    EXPECT_EQ(uv.Get(), 0u);
    DataRateValue rv;
    d->GetAttribute("MinRate", rv);
    EXPECT_EQ(rv.Get(), DataRate("100Mb/s"));
    BooleanValue bv;
    d->GetAttribute("SetRatesOnFirstCnp", bv);
    EXPECT_FALSE(bv.Get());
    d->GetAttribute("ClampTargetRate", bv);
    EXPECT_FALSE(bv.Get());
    d->GetAttribute("ClampTargetRateAfterTimeInc", bv);
    EXPECT_TRUE(bv.Get());

    // The increase steps scale with the line rate: 5 and 50 Mb/s per 25 Gb/s, so 20 and
    // 200 Mb/s at 100 Gb/s. Timer only (no byte counter), from one cut with alpha = 1 and
    // Rt = Rc (a timer expiry preceded the cut): F = 5 fast-recovery steps, one additive
    // step, hyper steps.
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(301)); // after the expiry at 300 us: Rt = Rc = line
    EXPECT_EQ(d->GetRateBps(MicroSeconds(301)), 0.5 * kLine);
    EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(301)), kLine);
    d->OnCnp(MicroSeconds(800));                  // one expiry (at 601 us) since: Rt = Rc
    const double rcBefore = kLine - 0.25 * kLine; // one fast-recovery step from 50 Gb/s
    const Time cut = MicroSeconds(800);
    EXPECT_EQ(d->GetTargetRateBps(cut), rcBefore);
    // Alpha: 1 after the marked update at 302 us, then 498 decays (303..800 us).
    double alpha = 1;
    for (int i = 0; i < 498; ++i)
    {
        alpha *= 1 - 1.0 / 256;
    }
    ExpectClose(rcBefore * (1 - alpha / 2), d->GetRateBps(cut), 0);
    double rt = rcBefore;
    for (int k = 1; k <= 7; ++k)
    {
        const Time at = cut + k * MicroSeconds(300);
        if (k == 6)
        {
            rt += 20e6;
        }
        else if (k == 7)
        {
            rt += 200e6;
        }
        ExpectClose(rt, d->GetTargetRateBps(at), k);
    }
}

TEST(DcqcnTest, NoCnpStaysAtLineRate)
{
    Params p;
    auto queries = Grid(0, 20000000, 7300);
    auto lazy = RunLazy(MakeDcqcn(p), {}, queries);
    for (const auto& s : lazy)
    {
        EXPECT_EQ(s.rate, kLine);
        EXPECT_EQ(s.target, kLine);
        EXPECT_EQ(s.alpha, 1.0);
    }
    ExpectMatchesReference(p, {}, queries);

    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate("100Gb/s"), Seconds(0));
    EXPECT_EQ(d->GetRate(Seconds(1)), DataRate("100Gb/s"));
}

TEST(DcqcnTest, OneCnpHalvesThenFastRecovery)
{
    Params p;
    const int64_t c = 10500;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate(static_cast<uint64_t>(kLine)), Seconds(0));
    d->OnCnp(NanoSeconds(c));
    EXPECT_EQ(d->GetRateBps(NanoSeconds(c)), 0.5 * kLine);
    EXPECT_EQ(d->GetTargetRateBps(NanoSeconds(c)), kLine);
    EXPECT_EQ(d->GetRate(NanoSeconds(c)), DataRate("50Gb/s"));
    // Alpha: the first period after the CNP is marked, so alpha stays 1.
    EXPECT_EQ(d->GetAlpha(NanoSeconds(c + p.alphaNs)), 1.0);
    // Just before the first increase expiry nothing has changed.
    EXPECT_EQ(d->GetRateBps(NanoSeconds(c + p.increaseNs - 1)), 0.5 * kLine);
    // Fast recovery halves the distance to Rt = line at each of the F expiries; the additive
    // step that follows is capped at line rate, so the halving continues.
    for (int k = 1; k <= 8; ++k)
    {
        double expected = kLine - 0.5 * kLine / std::pow(2.0, k);
        ExpectClose(expected, d->GetRateBps(NanoSeconds(c + k * p.increaseNs)), k);
        EXPECT_EQ(d->GetTargetRateBps(NanoSeconds(c + k * p.increaseNs)), kLine);
    }
    // Then it decays once per period.
    double a = d->GetAlpha(NanoSeconds(c + 8 * p.increaseNs));
    int64_t decays = (8 * p.increaseNs) / p.alphaNs - 1;
    EXPECT_NEAR(a, std::pow(1 - p.g, double(decays)), 1e-12);

    ExpectMatchesReference(p, Cnps({c}), Grid(0, 300000000, 9100));
}

TEST(DcqcnTest, RateTraceReportsWhenChangesTakeEffect)
{
    Params p;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    RateTrace seen;
    d->TraceConnectWithoutContext("Rate", MakeBoundCallback(&RecordRate, &seen));
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    d->GetRate(MicroSeconds(1000)); // three increase expiries fall due in this one call
    ASSERT_EQ(seen.size(), 4u);
    EXPECT_EQ(std::get<0>(seen[0]), MicroSeconds(10));
    EXPECT_EQ(std::get<1>(seen[0]), DataRate("100Gb/s"));
    EXPECT_EQ(std::get<2>(seen[0]), DataRate("50Gb/s"));
    EXPECT_EQ(std::get<0>(seen[1]), MicroSeconds(310));
    EXPECT_EQ(std::get<2>(seen[1]), DataRate("75Gb/s"));
    EXPECT_EQ(std::get<0>(seen[2]), MicroSeconds(610));
    EXPECT_EQ(std::get<2>(seen[2]), DataRate("87.5Gb/s"));
    EXPECT_EQ(std::get<0>(seen[3]), MicroSeconds(910));
}

void
RecordAlpha(std::vector<std::tuple<Time, double, double>>* trace,
            Time when,
            double oldAlpha,
            double newAlpha)
{
    trace->emplace_back(when, oldAlpha, newAlpha);
}

TEST(DcqcnTest, AlphaTraceReportsMarkedUpdatesWhenTheyFallDue)
{
    Params p;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    std::vector<std::tuple<Time, double, double>> seen;
    d->TraceConnectWithoutContext("Alpha", MakeBoundCallback(&RecordAlpha, &seen));
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(10));
    d->GetRate(MicroSeconds(11));
    EXPECT_TRUE(seen.empty()); // the marked update at 11 us leaves alpha at 1
    d->OnCnp(NanoSeconds(20500));
    d->GetRate(NanoSeconds(20999));
    EXPECT_TRUE(seen.empty());
    d->GetRate(MicroSeconds(21)); // a packet-path call is enough to run the marked update
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(std::get<0>(seen[0]), MicroSeconds(21));
    // Decays at 12..20 us, then the marked update at 21 us.
    const double before = std::pow(1 - p.g, 9);
    EXPECT_NEAR(std::get<1>(seen[0]), before, 1e-15);
    EXPECT_NEAR(std::get<2>(seen[0]), (1 - p.g) * before + p.g, 1e-15);
}

TEST(DcqcnTest, BurstInsideOneDecreaseIntervalDefersOneDecrease)
{
    Params p;
    const double g = p.g;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate(static_cast<uint64_t>(kLine)), Seconds(0));
    for (int64_t c : {20000, 20500, 21300, 23900})
    {
        d->OnCnp(NanoSeconds(c));
        // Only the first CNP decreases at once.
        EXPECT_EQ(d->GetRateBps(NanoSeconds(c)), 0.5 * kLine);
        EXPECT_EQ(d->GetTargetRateBps(NanoSeconds(c)), kLine);
    }
    EXPECT_EQ(d->GetRateBps(NanoSeconds(23999)), 0.5 * kLine);
    // Alpha timer started at 20 us; periods ending at 21, 22 and 24 us saw CNPs, 23 us none.
    double a = 1.0;
    a = (1 - g) * a + g;
    a = (1 - g) * a + g;
    a = (1 - g) * a;
    a = (1 - g) * a + g;
    const double rate = 0.5 * kLine * (1 - a / 2);
    EXPECT_DOUBLE_EQ(d->GetRateBps(NanoSeconds(24000)), rate);
    EXPECT_EQ(d->GetTargetRateBps(NanoSeconds(24000)), 0.5 * kLine);
    // Exactly one deferred decrease: nothing more happens until the next increase expiry.
    EXPECT_DOUBLE_EQ(d->GetRateBps(NanoSeconds(24000 + p.increaseNs - 1)), rate);
    EXPECT_DOUBLE_EQ(d->GetRateBps(NanoSeconds(24000 + p.increaseNs)), (rate + 0.5 * kLine) / 2);

    ExpectMatchesReference(p, Cnps({20000, 20500, 21300, 23900}), Grid(0, 5000000, 1700));
    // A CNP exactly one interval after the last decrease decreases at once; one more inside
    // the following interval is deferred.
    ExpectMatchesReference(p, Cnps({5000, 9000, 9000, 10000, 13999}), Grid(0, 3000000, 500));
}

TEST(DcqcnTest, AdditiveThenHyperIncrease)
{
    Params p;
    p.aiBps = 1000000000; // 1 Gb/s
    p.haiBps = 5000000000;
    const double ai = 1e9;
    const double hai = 5e9;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate(static_cast<uint64_t>(kLine)), Seconds(0));
    d->OnCnp(MicroSeconds(1));
    d->OnCnp(MicroSeconds(10));
    // Alpha: marked update at 2 us (stays 1), then 8 decays by 10 us.
    const double alpha = std::pow(1 - p.g, 8);
    double rt = 0.5 * kLine;
    double rc = 0.5 * kLine * (1 - alpha / 2);
    EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(10)), rt);
    EXPECT_DOUBLE_EQ(d->GetRateBps(MicroSeconds(10)), rc);
    const double rc0 = rc;
    for (int k = 1; k <= 30; ++k)
    {
        Time at = MicroSeconds(10) + k * MicroSeconds(300);
        if (k <= 5)
        {
            // Fast recovery: closed form, Rt fixed.
            rc = rt - (rt - rc0) / std::pow(2.0, k);
        }
        else
        {
            rt = std::min(kLine, 0.5 * kLine + ai + hai * (k - 6));
            rc = (rt + rc) / 2;
        }
        ExpectClose(rt, d->GetTargetRateBps(at), k);
        ExpectClose(rc, d->GetRateBps(at), k);
    }
    EXPECT_EQ(rt, kLine); // the cap was reached

    ExpectMatchesReference(p, Cnps({1000, 10000}), Grid(0, 12000000, 13300));
    p.aiBps = 0; // default: 20 Mb/s and 200 Mb/s at 100 Gb/s
    p.haiBps = 0;
    ExpectMatchesReference(p, Cnps({1000, 10000}), Grid(0, 200000000, 77700));
}

/// A subclass that replaces the additive step, as an MLTCP variant does.
class FixedStepDcqcn : public Dcqcn
{
  protected:
    DataRate GetAdditiveIncrease() const override
    {
        return DataRate("3Gb/s");
    }
};

TEST(DcqcnTest, AdditiveIncreaseComesFromTheVirtualHook)
{
    Ptr<FixedStepDcqcn> d = CreateObject<FixedStepDcqcn>();
    d->ApplyProfile("hpcc");                                // alpha 1, F 5, no byte counter
    d->SetAttribute("ClampTargetRate", BooleanValue(true)); // Rt = Rc at each cut
    d->Init(DataRate("100Gb/s"), Seconds(0));
    d->OnCnp(MicroSeconds(1));
    d->OnCnp(MicroSeconds(10)); // Rt = 50 Gb/s
    const Time sixth = MicroSeconds(10) + 6 * MicroSeconds(300);
    EXPECT_EQ(d->GetTargetRateBps(sixth - NanoSeconds(1)), 0.5 * kLine);
    EXPECT_EQ(d->GetTargetRateBps(sixth), 0.5 * kLine + 3e9);
}

TEST(DcqcnTest, ClampTargetRateOff)
{
    Params p;
    p.clamp = false;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate(static_cast<uint64_t>(kLine)), Seconds(0));
    d->OnCnp(MicroSeconds(1));
    d->OnCnp(MicroSeconds(10));
    // No increase expiry between the decreases: Rt keeps its value.
    EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(10)), kLine);
    double rcBefore = d->GetRateBps(MicroSeconds(399));
    d->OnCnp(MicroSeconds(400)); // after one expiry (at 310 us): Rt = Rc
    EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(400)), rcBefore);

    ExpectMatchesReference(p, Cnps({1000, 10000, 400000, 405000}), Grid(0, 50000000, 3100));
}

TEST(DcqcnTest, ByteCounterSteps)
{
    Params p;
    p.byteCounter = 1000;
    p.aiBps = 1000000000;
    p.haiBps = 5000000000;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate(static_cast<uint64_t>(kLine)), Seconds(0));
    d->OnCnp(MicroSeconds(1));
    d->OnCnp(MicroSeconds(10));
    double rt = 0.5 * kLine;
    double rc = d->GetRateBps(MicroSeconds(10));
    EXPECT_EQ(d->GetTargetRateBps(MicroSeconds(10)), rt);
    // One step per 1000 bytes. T stays 0, so: 5 fast-recovery steps, then additive
    // (hyper needs both counters above F).
    for (int k = 1; k <= 12; ++k)
    {
        Time at = MicroSeconds(10) + NanoSeconds(100 * k);
        d->OnSend(600, at);
        d->OnSend(400, at);
        if (k > 5)
        {
            rt += 1e9;
        }
        rc = (rt + rc) / 2;
        ExpectClose(rt, d->GetTargetRateBps(at), k);
        ExpectClose(rc, d->GetRateBps(at), k);
    }

    // With decreases and timer expiries interleaved, against the reference.
    p.byteCounter = 100000;
    std::vector<Input> in;
    for (int64_t t = 500; t < 8000000; t += 90)
    {
        in.push_back(Input{t, false, 1000});
    }
    for (int64_t c : {1000, 2000, 9000, 1500000, 1502000, 1510000})
    {
        in.push_back(Input{c, true, 0});
    }
    std::stable_sort(in.begin(), in.end(), [](const Input& a, const Input& b) {
        return a.ns < b.ns;
    });
    ExpectMatchesReference(p, in, Grid(0, 8000000, 2300));
}

TEST(DcqcnTest, MinRateFloor)
{
    Params p;
    std::vector<Input> in;
    for (int64_t t = 1000; t <= 400000; t += 4000)
    {
        in.push_back(Input{t, true, 0});
    }
    Ptr<Dcqcn> d = MakeDcqcn(p);
    auto lazy = RunLazy(d, in, Grid(0, 400000, 250));
    for (const auto& s : lazy)
    {
        EXPECT_GE(s.rate, 1e8);
    }
    EXPECT_EQ(lazy.back().rate, 1e8);
    EXPECT_EQ(d->GetRate(NanoSeconds(400000)), DataRate("100Mb/s"));
    ExpectMatchesReference(p, in, Grid(0, 3000000, 1100));

    p.minBps = 1000000000;
    ExpectMatchesReference(p, in, Grid(0, 3000000, 1100));
}

TEST(DcqcnTest, StartBelowLineRateRampsUp)
{
    Params p;
    p.startAtLine = false;
    Ptr<Dcqcn> d = MakeDcqcn(p);
    d->Init(DataRate(static_cast<uint64_t>(kLine)), MicroSeconds(5));
    EXPECT_EQ(d->GetRateBps(MicroSeconds(5)), 1e8);
    EXPECT_DOUBLE_EQ(d->GetRateBps(MicroSeconds(305)), (kLine + 1e8) / 2);
    ExpectMatchesReference(p, {}, Grid(0, 30000000, 3300));
}

TEST(DcqcnTest, RandomPatternsMatchReferenceAndStayBounded)
{
    std::mt19937_64 rng(12345);
    // Trials 0-5 on the hpcc profile, 6-11 on the ConnectX defaults with their options varied.
    for (int trial = 0; trial < 12; ++trial)
    {
        Params p;
        if (trial < 6)
        {
            p.byteCounter = trial % 2 ? 200000 : 0;
            p.clamp = trial % 3 != 0;
            p.fastRecovery = 1 + trial;
        }
        else
        {
            p = Params::Connectx();
            p.byteCounter = trial % 2 ? 32767 : 0;
            p.clamp = trial == 8;
            p.clampAfterTimeInc = trial != 9;
            p.gd = trial == 10 ? 10 : 11;
            p.rateOnFirstCnpBps = trial == 11 ? 25000000000 : 0;
            p.minDecFac = trial == 7 ? 0 : 50;
        }
        SCOPED_TRACE(trial);
        std::vector<Input> in;
        std::exponential_distribution<double> gap(1.0 / (trial % 2 ? 3000.0 : 40000.0));
        double t = 0;
        while (true)
        {
            t += gap(rng);
            if (t > 5e6)
            {
                break;
            }
            // CNP storms early, quiet later so that recovery is exercised too.
            if (t < 2e6 || rng() % 8 == 0)
            {
                in.push_back(Input{static_cast<int64_t>(t), true, 0});
            }
        }
        for (int64_t s = 100; s < 5000000; s += 83)
        {
            in.push_back(Input{s, false, 1048});
        }
        std::stable_sort(in.begin(), in.end(), [](const Input& a, const Input& b) {
            return a.ns < b.ns;
        });
        ExpectMatchesReference(p, in, Grid(0, 20000000, 1900));
    }
}

void
CheckQueryPatternDoesNotChangeTrajectory(uint64_t byteCounter)
{
    SCOPED_TRACE(byteCounter);
    Params p;
    p.byteCounter = byteCounter;
    std::vector<Input> in;
    for (int64_t t = 1000; t < 3000000; t += 37000)
    {
        in.push_back(Input{t, true, 0});
        in.push_back(Input{t + 1500, true, 0});
        for (int64_t s = t + 2000; s < t + 30000; s += 100)
        {
            in.push_back(Input{s, false, 1100});
        }
    }
    Ptr<Dcqcn> often = MakeDcqcn(p);
    Ptr<Dcqcn> rarely = MakeDcqcn(p);
    RateTrace oftenTrace;
    RateTrace rarelyTrace;
    often->TraceConnectWithoutContext("Rate", MakeBoundCallback(&RecordRate, &oftenTrace));
    rarely->TraceConnectWithoutContext("Rate", MakeBoundCallback(&RecordRate, &rarelyTrace));
    const int64_t end = 400000000;
    auto a = RunLazy(often, in, Grid(0, end, 997));
    auto b = RunLazy(rarely, in, {end});
    // Bit-identical: the lazy state does not depend on when it is looked at.
    EXPECT_EQ(a.back().rate, b.back().rate);
    EXPECT_EQ(a.back().target, b.back().target);
    EXPECT_EQ(a.back().alpha, b.back().alpha);
    EXPECT_EQ(oftenTrace, rarelyTrace);
    EXPECT_GT(oftenTrace.size(), 100u);
    if (byteCounter == 0)
    {
        // Recovered to line rate after the CNPs stopped, so expiries were skipped in bulk.
        // (With the byte counter, hyper increase waits for bytes that are no longer sent.)
        EXPECT_EQ(often->GetRate(NanoSeconds(end)), DataRate("100Gb/s"));
    }
}

TEST(DcqcnTest, QueryPatternDoesNotChangeTrajectory)
{
    for (uint64_t byteCounter : {0, 300000})
    {
        CheckQueryPatternDoesNotChangeTrajectory(byteCounter);
    }
}

TEST(DcqcnTest, ForkIsFreshAndIndependent)
{
    Params p;
    p.g = 1.0 / 16;
    p.minBps = 2000000000;
    Ptr<Dcqcn> proto = MakeDcqcn(p);
    int protoChanges = 0;
    proto->TraceConnectWithoutContext("Rate", MakeBoundCallback(&CountChange, &protoChanges));
    proto->Init(DataRate("100Gb/s"), Seconds(0));
    proto->OnCnp(MicroSeconds(1));
    ASSERT_EQ(protoChanges, 1);

    Ptr<RdmaCongestionOps> forked = proto->Fork();
    Ptr<Dcqcn> f = DynamicCast<Dcqcn>(forked);
    ASSERT_NE(f, nullptr);
    ASSERT_NE(PeekPointer(f), PeekPointer(proto));
    DoubleValue g;
    f->GetAttribute("G", g);
    EXPECT_EQ(g.Get(), 1.0 / 16);
    DataRateValue minRate;
    f->GetAttribute("MinRate", minRate);
    EXPECT_EQ(minRate.Get(), DataRate("2Gb/s"));
    EXPECT_EQ(AttributeStrings(f), AttributeStrings(proto));
    // Every attribute, each set away from its default.
    Ptr<Dcqcn> odd = CreateObject<Dcqcn>();
    odd->SetAttribute("StartAtLineRate", BooleanValue(false));
    odd->SetAttribute("G", DoubleValue(0.125));
    odd->SetAttribute("InitialAlpha", DoubleValue(0.5));
    odd->SetAttribute("AlphaUpdateInterval", TimeValue(MicroSeconds(2)));
    odd->SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(7)));
    odd->SetAttribute("RateIncreaseInterval", TimeValue(MicroSeconds(55)));
    odd->SetAttribute("FastRecoveryTimes", UintegerValue(3));
    odd->SetAttribute("AdditiveIncreaseRate", DataRateValue(DataRate("7Mb/s")));
    odd->SetAttribute("HyperIncreaseRate", DataRateValue(DataRate("70Mb/s")));
    odd->SetAttribute("MinRate", DataRateValue(DataRate("3Mb/s")));
    odd->SetAttribute("ByteCounter", UintegerValue(4000));
    odd->SetAttribute("Gd", UintegerValue(10));
    odd->SetAttribute("MinDecreaseFactor", UintegerValue(20));
    odd->SetAttribute("RateOnFirstCnp", DataRateValue(DataRate("9Gb/s")));
    odd->SetAttribute("SetRatesOnFirstCnp", BooleanValue(false));
    odd->SetAttribute("ClampTargetRate", BooleanValue(true));
    odd->SetAttribute("ClampTargetRateAfterTimeInc", BooleanValue(false));
    odd->SetAttribute("SlowRestartFraction", DoubleValue(0.25));
    const auto oddValues = AttributeStrings(odd);
    const auto defaults = AttributeStrings(CreateObject<Dcqcn>());
    for (const auto& [name, value] : oddValues)
    {
        EXPECT_NE(value, defaults.at(name)) << name; // so that a value not copied shows
    }
    EXPECT_EQ(AttributeStrings(DynamicCast<Dcqcn>(odd->Fork())), oddValues);

    // Fresh initial state, not the prototype's.
    f->Init(DataRate("100Gb/s"), MicroSeconds(2));
    EXPECT_EQ(f->GetRateBps(MicroSeconds(2)), kLine);
    EXPECT_EQ(f->GetAlpha(MicroSeconds(2)), 1.0);
    f->OnCnp(MicroSeconds(3));
    EXPECT_EQ(f->GetRateBps(MicroSeconds(3)), 0.5 * kLine);
    // Independent: the fork's CNP neither moved the prototype nor fired its trace.
    EXPECT_EQ(protoChanges, 1);
    EXPECT_EQ(proto->GetRateBps(MicroSeconds(3)), 0.5 * kLine);
    proto->OnCnp(MicroSeconds(6));
    EXPECT_LT(proto->GetRateBps(MicroSeconds(6)), 0.5 * kLine);
    EXPECT_EQ(f->GetRateBps(MicroSeconds(6)), 0.5 * kLine);

    // The fork behaves like a fresh instance with the same attributes.
    auto in = Cnps({3000, 5000, 9000, 40000});
    auto queries = Grid(2000, 4000000, 2100);
    Ptr<Dcqcn> f2 = DynamicCast<Dcqcn>(proto->Fork());
    auto fromFork = RunLazy(f2, in, queries, 2000);
    auto ref = RunReference(p, in, queries, 2000);
    for (size_t i = 0; i < ref.size(); ++i)
    {
        ExpectNear(ref[i].rate, fromFork[i].rate, "rate", i);
    }
}

} // namespace
