/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DCQCN_TEST_UTIL_H
#define DCQCN_TEST_UTIL_H

// The DCQCN tests' shared parts: parameters, the event-driven reference
// written from the specification, and the comparisons.

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
#include <map>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{
namespace dcqcntest
{

constexpr double kLine = 100e9;

/**
 * Parameters shared by the implementation under test and the reference (times in ns).
 * The defaults are the hpcc profile's, except clamp (the DCQCN paper's rule);
 * Connectx() gives the firmware's.
 */
struct Params
{
    double g = 1.0 / 256;
    double initialAlpha = 1;
    int64_t alphaNs = 1000;
    int64_t decreaseNs = 4000;
    int64_t increaseNs = 300000;
    uint32_t fastRecovery = 5;
    uint64_t aiBps = 0;  // 0: 5 Mb/s per 25 Gb/s of line rate
    uint64_t haiBps = 0; // 0: 50 Mb/s per 25 Gb/s of line rate
    uint64_t minBps = 100000000;
    uint64_t byteCounter = 0;
    uint32_t gd = 11;
    uint32_t minDecFac = 0; // percent
    bool setRatesOnFirstCnp = false;
    uint64_t rateOnFirstCnpBps = 0; // 0: line rate
    bool clamp = true;
    bool clampAfterTimeInc = true;
    bool startAtLine = true;
    const char* profile = "hpcc"; // applied before the values above

    /// The ConnectX firmware defaults, written out from its documentation.
    static Params Connectx()
    {
        Params p;
        p.g = 5.0 / 1024; // DCE_TCP_G 1019: 1 - 1019/1024
        p.initialAlpha = 1023.0 / 1024;
        p.fastRecovery = 1;
        p.aiBps = 5000000;
        p.haiBps = 50000000;
        p.minBps = 1000000;
        p.byteCounter = 32767;
        p.minDecFac = 50;
        p.setRatesOnFirstCnp = true;
        p.clamp = false;
        p.profile = "connectx";
        return p;
    }
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

inline Ptr<Dcqcn>
MakeDcqcn(const Params& p)
{
    Ptr<Dcqcn> d = CreateObject<Dcqcn>();
    d->ApplyProfile(p.profile);
    d->SetAttribute("G", DoubleValue(p.g));
    d->SetAttribute("InitialAlpha", DoubleValue(p.initialAlpha));
    d->SetAttribute("Gd", UintegerValue(p.gd));
    d->SetAttribute("MinDecreaseFactor", UintegerValue(p.minDecFac));
    d->SetAttribute("SetRatesOnFirstCnp", BooleanValue(p.setRatesOnFirstCnp));
    d->SetAttribute("RateOnFirstCnp", DataRateValue(DataRate(p.rateOnFirstCnpBps)));
    d->SetAttribute("ClampTargetRateAfterTimeInc", BooleanValue(p.clampAfterTimeInc));
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
inline std::vector<Sample>
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
    double alpha = p.initialAlpha;
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
        if (p.clamp || (p.clampAfterTimeInc && t > 0))
        {
            rt = rc;
        }
        const double cut = rc * (1 - alpha * std::pow(2.0, 10.0 - p.gd));
        rc = std::min(kLine, std::max({minRate, rc * p.minDecFac / 100.0, cut}));
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
                    if (p.setRatesOnFirstCnp)
                    {
                        const double first = p.rateOnFirstCnpBps
                                                 ? std::min(double(p.rateOnFirstCnpBps), kLine)
                                                 : kLine;
                        rc = first;
                        rt = first;
                    }
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
inline std::vector<Sample>
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

inline void
RecordRate(RateTrace* trace, Time when, DataRate oldRate, DataRate newRate)
{
    trace->emplace_back(when, oldRate, newRate);
}

inline void
CountChange(int* count, Time /* when */, DataRate /* oldRate */, DataRate /* newRate */)
{
    ++*count;
}

/// Relative closeness for values computed along different but exact-in-theory paths.
inline void
ExpectClose(double expected, double actual, const std::string& step)
{
    EXPECT_LE(std::abs(actual - expected), 1e-12 * std::abs(expected))
        << "step " << step << ": expected " << expected << " got " << actual;
}

inline void
ExpectClose(double expected, double actual, int step)
{
    ExpectClose(expected, actual, std::to_string(step));
}

inline std::vector<int64_t>
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
inline void
ExpectNear(double expected, double actual, const char* what, size_t i)
{
    EXPECT_LE(std::abs(actual - expected), std::max(1e-9 * std::abs(expected), 1e-15))
        << what << " at query " << i << ": expected " << expected << " got " << actual;
}

inline void
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

inline std::vector<Input>
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

/// The serialized value of every attribute of \p o, by name.
inline std::map<std::string, std::string>
AttributeStrings(Ptr<Object> o)
{
    std::map<std::string, std::string> values;
    const TypeId tid = o->GetInstanceTypeId();
    for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        const TypeId::AttributeInformation info = tid.GetAttribute(i);
        Ptr<AttributeValue> v = info.checker->Create();
        o->GetAttribute(info.name, *v);
        values[info.name] = v->SerializeToString(info.checker);
    }
    return values;
}

} // namespace dcqcntest
} // namespace ns3

#endif /* DCQCN_TEST_UTIL_H */
