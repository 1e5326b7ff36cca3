/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the lazily-timed DCQCN reaction point against an event-driven
 * reference written here from the specification, and against analytic values.
 */
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/dcqcn.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <queue>
#include <random>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

constexpr double kLine = 100e9;

/// Parameters shared by the implementation under test and the reference (times in ns).
struct Params
{
    double g = 1.0 / 256;
    int64_t alphaNs = 1000;
    int64_t decreaseNs = 4000;
    int64_t increaseNs = 300000;
    uint32_t fastRecovery = 5;
    uint64_t aiBps = 0;  // 0: default scaling
    uint64_t haiBps = 0; // 0: default scaling
    uint64_t minBps = 100000000;
    uint64_t byteCounter = 0;
    bool clamp = true;
    bool startAtLine = true;
};

struct Input
{
    int64_t ns;
    bool cnp;       // else a send
    uint32_t bytes; // for a send
};

struct Sample
{
    double rate;
    double target;
    double alpha;
};

Ptr<Dcqcn>
MakeDcqcn(const Params& p)
{
    Ptr<Dcqcn> d = CreateObject<Dcqcn>();
    d->SetAttribute("G", DoubleValue(p.g));
    d->SetAttribute("AlphaUpdateInterval", TimeValue(NanoSeconds(p.alphaNs)));
    d->SetAttribute("RateDecreaseInterval", TimeValue(NanoSeconds(p.decreaseNs)));
    d->SetAttribute("RateIncreaseInterval", TimeValue(NanoSeconds(p.increaseNs)));
    d->SetAttribute("FastRecoveryTimes", UintegerValue(p.fastRecovery));
    d->SetAttribute("AdditiveIncreaseRate", DataRateValue(DataRate(p.aiBps)));
    d->SetAttribute("HyperIncreaseRate", DataRateValue(DataRate(p.haiBps)));
    d->SetAttribute("MinRate", DataRateValue(DataRate(p.minBps)));
    d->SetAttribute("ByteCounter", UintegerValue(p.byteCounter));
    d->SetAttribute("ClampTargetRate", BooleanValue(p.clamp));
    d->SetAttribute("StartAtLineRate", BooleanValue(p.startAtLine));
    return d;
}

/**
 * Event-driven reference: one event per timer expiry, popped in time order
 * (ties: alpha update, decrease check, increase timer, input, query).
 * Increase-timer events carry a generation; a decrease starts a new one.
 */
std::vector<Sample>
RunReference(const Params& p,
             const std::vector<Input>& inputs,
             const std::vector<int64_t>& queries,
             int64_t startNs = 0)
{
    enum Kind
    {
        ALPHA = 0,
        DECREASE = 1,
        INCREASE = 2,
        INPUT = 3,
        QUERY = 4
    };

    using Event = std::tuple<int64_t, int, uint64_t, uint64_t>; // time, kind, seq, payload
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
    uint64_t seq = 0;
    auto push = [&](int64_t t, int kind, uint64_t payload) {
        events.emplace(t, kind, seq++, payload);
    };

    const double ai = p.aiBps ? double(p.aiBps) : std::llround(5e6 * kLine / 25e9);
    const double hai = p.haiBps ? double(p.haiBps) : std::llround(50e6 * kLine / 25e9);
    const double minRate = std::min(double(p.minBps), kLine);

    double rc = p.startAtLine ? kLine : minRate;
    double rt = kLine;
    double alpha = 1;
    bool alphaStarted = false;
    bool cnpThisPeriod = false;
    bool decreasedBefore = false;
    int64_t lastDecrease = 0;
    bool checkScheduled = false;
    uint64_t t = 0;
    uint64_t bc = 0;
    uint64_t bytes = 0;
    uint64_t generation = 0;

    auto increase = [&]() {
        uint64_t byteStage = p.byteCounter ? bc : t;
        uint64_t hi = std::max(t, byteStage);
        uint64_t lo = std::min(t, byteStage);
        if (hi >= p.fastRecovery)
        {
            rt += lo > p.fastRecovery ? hai : ai;
        }
        rt = std::min(rt, kLine);
        rc = (rt + rc) / 2;
    };
    auto decrease = [&](int64_t now) {
        if (p.clamp || t > 0)
        {
            rt = rc;
        }
        rc = std::max(minRate, rc * (1 - alpha / 2));
        t = 0;
        bc = 0;
        bytes = 0;
        ++generation;
        push(now + p.increaseNs, INCREASE, generation);
        lastDecrease = now;
        decreasedBefore = true;
    };

    push(startNs + p.increaseNs, INCREASE, generation);
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        push(inputs[i].ns, INPUT, i);
    }
    for (size_t i = 0; i < queries.size(); ++i)
    {
        push(queries[i], QUERY, i);
    }

    std::vector<Sample> out(queries.size());
    size_t answered = 0;
    while (answered < queries.size())
    {
        auto [now, kind, s, payload] = events.top();
        events.pop();
        switch (kind)
        {
        case ALPHA:
            alpha = cnpThisPeriod ? (1 - p.g) * alpha + p.g : (1 - p.g) * alpha;
            cnpThisPeriod = false;
            push(now + p.alphaNs, ALPHA, 0);
            break;
        case DECREASE:
            checkScheduled = false;
            decrease(now);
            break;
        case INCREASE:
            if (payload == generation)
            {
                push(now + p.increaseNs, INCREASE, generation);
                increase();
                ++t;
            }
            break;
        case INPUT: {
            const Input& in = inputs[payload];
            if (in.cnp)
            {
                if (!alphaStarted)
                {
                    alphaStarted = true;
                    push(now + p.alphaNs, ALPHA, 0);
                }
                cnpThisPeriod = true;
                if (!decreasedBefore || now - lastDecrease >= p.decreaseNs)
                {
                    decrease(now);
                }
                else if (!checkScheduled)
                {
                    checkScheduled = true;
                    push(lastDecrease + p.decreaseNs, DECREASE, 0);
                }
            }
            else if (p.byteCounter)
            {
                bytes += in.bytes;
                while (bytes >= p.byteCounter)
                {
                    bytes -= p.byteCounter;
                    increase();
                    ++bc;
                }
            }
            break;
        }
        case QUERY:
            out[payload] = Sample{rc, rt, alpha};
            ++answered;
            break;
        }
    }
    return out;
}

/// Feeds the inputs in time order and samples at the query times (inputs first at ties).
std::vector<Sample>
RunLazy(Ptr<Dcqcn> d,
        const std::vector<Input>& inputs,
        const std::vector<int64_t>& queries,
        int64_t startNs = 0)
{
    d->Init(DataRate(static_cast<uint64_t>(kLine)), NanoSeconds(startNs));
    std::vector<Sample> out;
    size_t i = 0;
    for (int64_t q : queries)
    {
        for (; i < inputs.size() && inputs[i].ns <= q; ++i)
        {
            if (inputs[i].cnp)
            {
                d->OnCnp(NanoSeconds(inputs[i].ns));
            }
            else
            {
                d->OnSend(inputs[i].bytes, NanoSeconds(inputs[i].ns));
            }
        }
        Time now = NanoSeconds(q);
        out.push_back(Sample{d->GetRateBps(now), d->GetTargetRateBps(now), d->GetAlpha(now)});
    }
    return out;
}

using RateTrace = std::vector<std::tuple<Time, DataRate, DataRate>>;

void
RecordRate(RateTrace* trace, Time when, DataRate oldRate, DataRate newRate)
{
    trace->emplace_back(when, oldRate, newRate);
}

void
CountChange(int* count, Time /* when */, DataRate /* oldRate */, DataRate /* newRate */)
{
    ++*count;
}

/// Relative closeness for values computed along different but exact-in-theory paths.
void
ExpectClose(double expected, double actual, int step)
{
    EXPECT_LE(std::abs(actual - expected), 1e-12 * std::abs(expected))
        << "step " << step << ": expected " << expected << " got " << actual;
}

std::vector<int64_t>
Grid(int64_t from, int64_t to, int64_t step)
{
    std::vector<int64_t> v;
    for (int64_t t = from; t <= to; t += step)
    {
        v.push_back(t);
    }
    return v;
}

/// Within 1e-9 relative, or 1e-15 absolute: alpha decays into subnormals, where the reference's
/// repeated products and a closed-form power part ways (alpha times any rate is then < 1 mbit/s).
void
ExpectNear(double expected, double actual, const char* what, size_t i)
{
    EXPECT_LE(std::abs(actual - expected), std::max(1e-9 * std::abs(expected), 1e-15))
        << what << " at query " << i << ": expected " << expected << " got " << actual;
}

void
ExpectMatchesReference(const Params& p,
                       const std::vector<Input>& inputs,
                       const std::vector<int64_t>& queries)
{
    auto ref = RunReference(p, inputs, queries);
    auto lazy = RunLazy(MakeDcqcn(p), inputs, queries);
    ASSERT_EQ(ref.size(), lazy.size());
    for (size_t i = 0; i < ref.size(); ++i)
    {
        ExpectNear(ref[i].rate, lazy[i].rate, "rate", i);
        ExpectNear(ref[i].target, lazy[i].target, "target", i);
        ExpectNear(ref[i].alpha, lazy[i].alpha, "alpha", i);
        EXPECT_LE(lazy[i].rate, kLine);
        EXPECT_LE(lazy[i].target, kLine);
        EXPECT_GE(lazy[i].rate, std::min<double>(p.minBps, kLine));
    }
}

std::vector<Input>
Cnps(std::initializer_list<int64_t> ns)
{
    std::vector<Input> v;
    for (int64_t t : ns)
    {
        v.push_back(Input{t, true, 0});
    }
    return v;
}

// ---------------------------------------------------------------------------

TEST(DcqcnTest, NameAndDefaults)
{
    Ptr<Dcqcn> d = CreateObject<Dcqcn>();
    EXPECT_EQ(d->GetName(), "Dcqcn");
    DoubleValue g;
    d->GetAttribute("G", g);
    EXPECT_DOUBLE_EQ(g.Get(), 1.0 / 256);
    TimeValue interval;
    d->GetAttribute("RateIncreaseInterval", interval);
    EXPECT_EQ(interval.Get(), MicroSeconds(300));
    DataRateValue minRate;
    d->GetAttribute("MinRate", minRate);
    EXPECT_EQ(minRate.Get(), DataRate("100Mb/s"));
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
    for (int trial = 0; trial < 6; ++trial)
    {
        Params p;
        p.byteCounter = trial % 2 ? 200000 : 0;
        p.clamp = trial % 3 != 0;
        p.fastRecovery = 1 + trial;
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
