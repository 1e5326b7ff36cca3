/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * MLTCP: the progress-scaled DCQCN against rates computed here from the
 * DCQCN rules, the NIC's per-job progress accounting packet by packet, the
 * congestion control string of the fabric helper reaching the queue pairs,
 * and the mltcp policy.
 */

#include "fabric-test-util.h"

#include "ns3/boolean.h"
#include "ns3/collective-scheduler-helper.h"
#include "ns3/double.h"
#include "ns3/mltcp-dcqcn.h"
#include "ns3/mltcp-scheduler.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr double kLine = 100e9;
constexpr double kAi = 1e9; // AdditiveIncreaseRate of the tests

/// MltcpDcqcn with its additive step visible.
class TestableMltcp : public MltcpDcqcn
{
  public:
    using MltcpDcqcn::GetAdditiveIncrease;
};

/// One packet as a queue pair's congestion control saw it.
struct Sample
{
    double progress;
    uint64_t additiveIncreaseBps;
};

/// Samples of every queue pair, in the order the queue pairs started.
std::vector<std::vector<Sample>> g_samples;

/**
 * MltcpDcqcn that records, for every packet, the progress the NIC gave it
 * and the additive step that results.
 */
class RecordingMltcpDcqcn : public MltcpDcqcn
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::RecordingMltcpDcqcn")
                                .SetParent<MltcpDcqcn>()
                                .SetGroupName("CollectiveScheduling")
                                .AddConstructor<RecordingMltcpDcqcn>();
        return tid;
    }

    Ptr<RdmaCongestionOps> Fork() const override
    {
        return CopyObject<RecordingMltcpDcqcn>(this);
    }

    void Init(DataRate lineRate, Time now) override
    {
        MltcpDcqcn::Init(lineRate, now);
        m_index = g_samples.size();
        g_samples.emplace_back();
    }

    void SetProgress(double fraction) override
    {
        MltcpDcqcn::SetProgress(fraction);
        g_samples.at(m_index).push_back({fraction, GetAdditiveIncrease().GetBitRate()});
    }

  private:
    std::size_t m_index{0};
};

NS_OBJECT_ENSURE_REGISTERED(RecordingMltcpDcqcn);

/**
 * A lone MltcpDcqcn on the hpcc profile (alpha 1 at the first CNP, F = 5,
 * cuts of Rc/2, the first CNP leaving the rates alone) whose every increase
 * step after fast recovery is additive: the byte counter is on but never
 * reached (BC stays 0, so min(T,BC) never exceeds F), and alpha stays 1 (its
 * timer never fires).
 */
Ptr<TestableMltcp>
MakeAdditiveOnly(double progress)
{
    Ptr<TestableMltcp> d = CreateObject<TestableMltcp>();
    d->ApplyProfile("hpcc");
    d->SetAttribute("AdditiveIncreaseRate", DataRateValue(DataRate(static_cast<uint64_t>(kAi))));
    d->SetAttribute("ByteCounter", UintegerValue(1000000));
    d->SetAttribute("AlphaUpdateInterval", TimeValue(Seconds(1)));
    d->SetAttribute("ClampTargetRate", BooleanValue(true));
    d->Init(DataRate(static_cast<uint64_t>(kLine)), Seconds(0));
    d->SetProgress(progress);
    return d;
}

} // namespace

// The congestion control alone -----------------------------------------------------------

TEST(MltcpDcqcnTest, AdditiveStepIsScaledBySlopeTimesProgressPlusIntercept)
{
    Ptr<TestableMltcp> d = MakeAdditiveOnly(0.0);
    EXPECT_EQ(d->GetName(), "MltcpDcqcn");
    // Defaults: F = 1 x progress + 0.5.
    for (double p : {0.0, 0.25, 0.5, 0.75, 1.0})
    {
        d->SetProgress(p);
        EXPECT_DOUBLE_EQ(d->GetAggressiveness(), p + 0.5);
        EXPECT_EQ(d->GetAdditiveIncrease().GetBitRate(),
                  static_cast<uint64_t>(std::llround(kAi * (p + 0.5))))
            << p;
    }
    // The scheduler's rate weight multiplies as well.
    d->SetRateWeight(2.0);
    d->SetProgress(0.25);
    EXPECT_EQ(d->GetAdditiveIncrease().GetBitRate(), static_cast<uint64_t>(2 * kAi * 0.75));

    Ptr<TestableMltcp> e = CreateObject<TestableMltcp>();
    e->SetAttribute("Slope", DoubleValue(-0.25));
    e->SetAttribute("Intercept", DoubleValue(2.0));
    e->SetAttribute("AdditiveIncreaseRate", DataRateValue(DataRate("1Gb/s")));
    e->Init(DataRate("100Gb/s"), Seconds(0));
    e->SetProgress(1.0);
    EXPECT_EQ(e->GetAdditiveIncrease().GetBitRate(), 1750000000u);
    // Progress unknown (a job's first iteration): F's mean over an iteration,
    // Intercept + Slope / 2.
    EXPECT_EQ(CreateObject<MltcpDcqcn>()->GetProgress(), RdmaCongestionOps::kUnknownProgress);
    e->SetProgress(RdmaCongestionOps::kUnknownProgress);
    EXPECT_DOUBLE_EQ(e->GetAggressiveness(), 1.875);
    EXPECT_EQ(e->GetAdditiveIncrease().GetBitRate(), 1875000000u);
    d->SetRateWeight(1.0);
    d->SetProgress(RdmaCongestionOps::kUnknownProgress);
    EXPECT_DOUBLE_EQ(d->GetAggressiveness(), 1.0);
    EXPECT_EQ(d->GetAdditiveIncrease().GetBitRate(), static_cast<uint64_t>(kAi));
}

TEST(MltcpDcqcnTest, RatesAfterACutFollowTheDcqcnRulesWithScaledSteps)
{
    // Two flows at opposite ends of their iterations: F = 0.5 and F = 1.5.
    const std::vector<double> progress{0.0, 1.0};
    std::vector<Ptr<TestableMltcp>> cc;
    for (double p : progress)
    {
        cc.push_back(MakeAdditiveOnly(p));
        cc.back()->OnCnp(MicroSeconds(1));
        cc.back()->OnCnp(MicroSeconds(10)); // RateDecreaseInterval (4 us) has passed
    }
    const double minRate = 100e6; // the hpcc profile's floor
    // The flow near the end of its iteration is cut less: 1/3 of its rate, not all of it.
    EXPECT_GT(cc[1]->GetRateBps(MicroSeconds(10)), 4 * cc[0]->GetRateBps(MicroSeconds(10)));
    for (std::size_t i = 0; i < cc.size(); ++i)
    {
        // Expected, from the DCQCN rules with alpha = 1 and every step scaled: a cut sets
        // Rt = Rc, then cuts Rc by min(1, (1/2) / F) of itself (floored at MinRate).
        const double f = progress[i] + 0.5;
        double rt = kLine;
        double rc = kLine;
        for (int cut = 0; cut < 2; ++cut)
        {
            rt = rc;
            rc = std::max(minRate, rc * (1 - std::min(1.0, 0.5 / f)));
        }
        for (int k = 1; k <= 12; ++k)
        {
            // Step k runs at the k-th increase-timer expiry after the last cut, with
            // T = k - 1 earlier expiries: fast recovery while T < 5, additive after.
            // Each step moves Rc by F x half its gap to Rt.
            if (k > 5)
            {
                rt = std::min(kLine, rt + kAi * f);
            }
            rc = rc + std::min(1.0, f / 2) * (rt - rc);
            const Time at = MicroSeconds(10) + MicroSeconds(300) * k;
            EXPECT_DOUBLE_EQ(cc[i]->GetTargetRateBps(at), rt) << "flow " << i << " step " << k;
            EXPECT_DOUBLE_EQ(cc[i]->GetRateBps(at), rc) << "flow " << i << " step " << k;
        }
    }
    // And recovers faster.
    const Time end = MicroSeconds(10) + MicroSeconds(300) * 12;
    EXPECT_GT(cc[1]->GetRateBps(end), cc[0]->GetRateBps(end));
}

TEST(MltcpDcqcnTest, HyperIncreaseIsScaledAndFEqualToOneIsDcqcn)
{
    // Timer-only hpcc DCQCN after cuts at 1 and 10 us: 5 fast-recovery steps, one additive,
    // then hyper steps of 50 Mb/s per 25 Gb/s (200 Mb/s at 100 Gb/s).
    auto make = [](double slope, double intercept, double progress) {
        Ptr<TestableMltcp> d = CreateObject<TestableMltcp>();
        d->ApplyProfile("hpcc");
        d->SetAttribute("ClampTargetRate", BooleanValue(true));
        d->SetAttribute("AlphaUpdateInterval", TimeValue(Seconds(1)));
        d->SetAttribute("Slope", DoubleValue(slope));
        d->SetAttribute("Intercept", DoubleValue(intercept));
        d->Init(DataRate(static_cast<uint64_t>(kLine)), Seconds(0));
        d->SetProgress(progress);
        d->OnCnp(MicroSeconds(1));
        d->OnCnp(MicroSeconds(10));
        return d;
    };
    Ptr<TestableMltcp> f2 = make(0.0, 2.0, 0.3); // F = 2: every step lands Rc on Rt
    Ptr<Dcqcn> plain = CreateObject<Dcqcn>();
    plain->ApplyProfile("hpcc");
    plain->SetAttribute("ClampTargetRate", BooleanValue(true));
    plain->SetAttribute("AlphaUpdateInterval", TimeValue(Seconds(1)));
    plain->Init(DataRate(static_cast<uint64_t>(kLine)), Seconds(0));
    plain->OnCnp(MicroSeconds(1));
    plain->OnCnp(MicroSeconds(10));
    Ptr<TestableMltcp> f1 = make(0.0, 1.0, 0.7); // F = 1: DCQCN bit for bit
    // Progress unknown with the default Slope and Intercept: F = 1, DCQCN bit for bit.
    Ptr<TestableMltcp> unknown = make(1.0, 0.5, RdmaCongestionOps::kUnknownProgress);
    const double ai = 5e6 * 4;
    const double hai = 50e6 * 4;
    // Each cut (alpha 1) sets Rt = Rc and takes alpha/2 / F = 1/4 of Rc.
    double rt = kLine * 0.75;
    double rc = rt * 0.75;
    EXPECT_DOUBLE_EQ(f2->GetRateBps(MicroSeconds(10)), rc);
    for (int k = 1; k <= 9; ++k)
    {
        if (k == 6)
        {
            rt += 2 * ai;
        }
        else if (k > 6)
        {
            rt += 2 * hai;
        }
        rt = std::min(rt, kLine);
        rc = rt;
        const Time at = MicroSeconds(10) + MicroSeconds(300) * k;
        EXPECT_DOUBLE_EQ(f2->GetTargetRateBps(at), rt) << "step " << k;
        EXPECT_DOUBLE_EQ(f2->GetRateBps(at), rc) << "step " << k;
        EXPECT_EQ(f1->GetRateBps(at), plain->GetRateBps(at)) << "step " << k;
        EXPECT_EQ(f1->GetTargetRateBps(at), plain->GetTargetRateBps(at)) << "step " << k;
        EXPECT_EQ(unknown->GetRateBps(at), plain->GetRateBps(at)) << "step " << k;
        EXPECT_EQ(unknown->GetTargetRateBps(at), plain->GetTargetRateBps(at)) << "step " << k;
    }
}

TEST(MltcpDcqcnTest, ForkCopiesTheConfigurationNotTheProgress)
{
    Ptr<TestableMltcp> d = CreateObject<TestableMltcp>();
    d->SetAttribute("Slope", DoubleValue(2.0));
    d->SetAttribute("Intercept", DoubleValue(0.25));
    d->SetAttribute("AdditiveIncreaseRate", DataRateValue(DataRate("2Gb/s")));
    d->SetProgress(0.5);
    Ptr<RdmaCongestionOps> fork = d->Fork();
    Ptr<MltcpDcqcn> m = DynamicCast<MltcpDcqcn>(fork);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->GetName(), "MltcpDcqcn");
    DoubleValue slope;
    DoubleValue intercept;
    m->GetAttribute("Slope", slope);
    m->GetAttribute("Intercept", intercept);
    EXPECT_EQ(slope.Get(), 2.0);
    EXPECT_EQ(intercept.Get(), 0.25);
    EXPECT_EQ(m->GetProgress(), RdmaCongestionOps::kUnknownProgress);
    m->Init(DataRate("100Gb/s"), Seconds(0));
    m->SetProgress(0.5);
    EXPECT_DOUBLE_EQ(m->GetAggressiveness(), 1.25);
}

TEST(MltcpDcqcnTest, AggressivenessMustStayPositive)
{
    struct Case
    {
        double slope;
        double intercept;
        bool ok;
    };

    for (const Case& c : {Case{1.0, 0.5, true},
                          Case{-0.4, 0.5, true}, // F(1) = 0.1
                          Case{1.0, 0.0, false}, // F(0) = 0
                          Case{-1.0, 0.5, false},
                          Case{0.5, -0.1, false}})
    {
        Ptr<MltcpDcqcn> d = CreateObject<MltcpDcqcn>();
        d->SetAttribute("Slope", DoubleValue(c.slope));
        d->SetAttribute("Intercept", DoubleValue(c.intercept));
        if (c.ok)
        {
            EXPECT_NO_THROW(d->Init(DataRate("100Gb/s"), Seconds(0)));
        }
        else
        {
            EXPECT_THROW(d->Init(DataRate("100Gb/s"), Seconds(0)), std::runtime_error)
                << c.slope << " " << c.intercept;
        }
    }
}

// On a fabric ----------------------------------------------------------------------------

class MltcpFabricTest : public FabricTest
{
  protected:
    void SetUp() override
    {
        FabricTest::SetUp();
        g_samples.clear();
    }

    /**
     * Post iterations of job \p job from host 0 to host 1, one message each,
     * each posted when the previous one is delivered; \p check runs at each
     * delivery with the iteration delivered.
     */
    static void PostIterations(Ptr<RoceFabric> fabric,
                               int64_t job,
                               const std::vector<uint64_t>& bytes,
                               std::function<void(std::size_t)> check,
                               std::size_t i = 0)
    {
        RdmaMessageInfo info;
        info.jobId = job;
        info.iteration = static_cast<int64_t>(i);
        info.bytes = bytes[i];
        fabric->SendMessage(0, 1, info, Simulator::Now(), [=]() {
            check(i);
            if (i + 1 < bytes.size())
            {
                PostIterations(fabric, job, bytes, check, i + 1);
            }
        });
    }
};

TEST_F(MltcpFabricTest, NicProgressIsThisIterationsBytesOverThePrevious)
{
    RecordingMltcpDcqcn::GetTypeId();
    RoceFabricHelper helper;
    helper.SetNicAttribute("PayloadPerPacket",
                           UintegerValue(1000)); // the counts below are of 1000 B packets
    helper.SetCongestionControl(
        "ns3::test::RecordingMltcpDcqcn[Slope=1|Intercept=0.5|AdditiveIncreaseRate=1Gb/s]");
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
    const int64_t job = 7;
    const uint32_t payload = 1000; // PayloadPerPacket, set above
    // Iteration 1 sends less than iteration 0, iteration 2 more than iteration 1.
    const std::vector<uint64_t> bytes{20000, 15000, 30000};
    std::vector<bool> delivered(bytes.size(), false);
    PostIterations(fabric, job, bytes, [&](std::size_t it) {
        delivered[it] = true;
        const RdmaJobState* s = fabric->GetNic(0)->GetJobState(job);
        ASSERT_NE(s, nullptr);
        EXPECT_EQ(s->progress.iteration, static_cast<int64_t>(it));
        EXPECT_EQ(s->progress.bytes, bytes[it]);
        EXPECT_EQ(s->progress.previousBytes, it == 0 ? 0 : bytes[it - 1]);
        const double expected = it == 0
                                    ? RdmaCongestionOps::kUnknownProgress
                                    : std::min(1.0, static_cast<double>(bytes[it]) / bytes[it - 1]);
        EXPECT_DOUBLE_EQ(s->progress.Progress(), expected);
    });
    Simulator::Run();
    EXPECT_EQ(delivered, std::vector<bool>(bytes.size(), true));
    EXPECT_EQ(fabric->GetNic(1)->GetJobState(job), nullptr); // the receiver keeps no job state

    // What each queue pair's congestion control saw, packet by packet: the bytes the job
    // has first sent in this iteration (this packet included) over the previous
    // iteration's, capped at 1; unknown throughout the first iteration, which runs at
    // F's mean, Intercept + Slope / 2 = 1.
    ASSERT_EQ(g_samples.size(), bytes.size());
    for (std::size_t it = 0; it < bytes.size(); ++it)
    {
        const std::vector<Sample>& s = g_samples[it];
        ASSERT_EQ(s.size(), bytes[it] / payload) << "iteration " << it;
        for (std::size_t k = 0; k < s.size(); ++k)
        {
            const double sent = static_cast<double>((k + 1) * payload);
            const double p =
                it == 0 ? RdmaCongestionOps::kUnknownProgress : std::min(1.0, sent / bytes[it - 1]);
            EXPECT_DOUBLE_EQ(s[k].progress, p) << "iteration " << it << " packet " << k;
            const double f = it == 0 ? 1.0 : 1.0 * p + 0.5;
            EXPECT_EQ(s[k].additiveIncreaseBps, static_cast<uint64_t>(std::llround(kAi * f)))
                << "iteration " << it << " packet " << k;
        }
    }
    // Iteration 2 sends twice iteration 1's bytes: its second half runs at F(1).
    EXPECT_EQ(g_samples[2].back().progress, 1.0);
    EXPECT_EQ(g_samples[2][14].progress, 1.0);
    EXPECT_LT(g_samples[2][13].progress, 1.0);
}

TEST_F(MltcpFabricTest, CongestionControlStringCarriesAttributeValuesToQueuePairs)
{
    RecordingMltcpDcqcn::GetTypeId();
    RoceFabricHelper helper;
    helper.SetNicAttribute("PayloadPerPacket",
                           UintegerValue(1000)); // the counts below are of 1000 B packets
    helper.SetCongestionControl(
        "ns3::test::RecordingMltcpDcqcn[Slope=0|Intercept=2|AdditiveIncreaseRate=1Gb/s]");
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(3));
    RdmaMessageInfo info;
    info.jobId = 1;
    info.iteration = 0;
    info.bytes = 5000;
    fabric->SendMessage(0, 2, info, MicroSeconds(1));
    fabric->SendMessage(1, 2, info, MicroSeconds(1));
    Simulator::Run();
    // Every queue pair, on every NIC, runs with F = 2: twice the 1 Gb/s step.
    ASSERT_EQ(g_samples.size(), 2u);
    for (const auto& qp : g_samples)
    {
        ASSERT_EQ(qp.size(), 5u);
        for (const Sample& s : qp)
        {
            EXPECT_EQ(s.additiveIncreaseBps, 2000000000u);
        }
    }
    TypeIdValue tid;
    fabric->GetNic(0)->GetAttribute("CongestionControl", tid);
    EXPECT_EQ(tid.Get(), RecordingMltcpDcqcn::GetTypeId());
}

TEST_F(MltcpFabricTest, TheTypeIdAttributeStillChoosesTheAlgorithm)
{
    RecordingMltcpDcqcn::GetTypeId();
    RdmaMessageInfo info;
    info.bytes = 3000;
    info.jobId = 2;
    info.iteration = 0;
    {
        // By TypeId alone, attribute values are the defaults: in the first iteration
        // (progress unknown), F = 1 times the default step, the ConnectX firmware's
        // 5 Mb/s (RPG_AI_RATE), at any line rate.
        RoceFabricHelper helper;
        helper.SetNicAttribute("PayloadPerPacket",
                               UintegerValue(1000)); // the counts below are of 1000 B packets
        helper.SetNicAttribute("CongestionControl", TypeIdValue(RecordingMltcpDcqcn::GetTypeId()));
        Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
        fabric->SendMessage(0, 1, info, MicroSeconds(1));
        Simulator::Run();
        ASSERT_EQ(g_samples.size(), 1u);
        ASSERT_EQ(g_samples[0].size(), 3u);
        for (const Sample& s : g_samples[0])
        {
            EXPECT_EQ(s.progress, RdmaCongestionOps::kUnknownProgress);
            EXPECT_EQ(s.additiveIncreaseBps, 5000000u);
        }
        Simulator::Destroy();
    }
    {
        // A later TypeId replaces an earlier string, attribute values and all.
        g_samples.clear();
        RoceFabricHelper helper;
        helper.SetNicAttribute("PayloadPerPacket",
                               UintegerValue(1000)); // the counts below are of 1000 B packets
        helper.SetCongestionControl("ns3::test::RecordingMltcpDcqcn[Intercept=2]");
        helper.SetNicAttribute("CongestionControl", TypeIdValue(Dcqcn::GetTypeId()));
        Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
        fabric->SendMessage(0, 1, info, MicroSeconds(1));
        Simulator::Run();
        EXPECT_TRUE(g_samples.empty());
        TypeIdValue tid;
        fabric->GetNic(0)->GetAttribute("CongestionControl", tid);
        EXPECT_EQ(tid.Get(), Dcqcn::GetTypeId());
        Simulator::Destroy();
    }
    {
        // The same on the NIC itself: a factory, then the attribute set to another type.
        g_samples.clear();
        RoceFabricHelper helper;
        helper.SetNicAttribute("PayloadPerPacket",
                               UintegerValue(1000)); // the counts below are of 1000 B packets
        helper.SetCongestionControl("none");
        Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
        Ptr<RdmaNic> nic = fabric->GetNic(0);
        ObjectFactory factory(RecordingMltcpDcqcn::GetTypeId().GetName(),
                              "Intercept",
                              DoubleValue(2.0),
                              "AdditiveIncreaseRate",
                              DataRateValue(DataRate("1Gb/s")));
        nic->SetCongestionControlFactory(factory);
        TypeIdValue tid;
        nic->GetAttribute("CongestionControl", tid);
        EXPECT_EQ(tid.Get(), RecordingMltcpDcqcn::GetTypeId());
        fabric->SendMessage(0, 1, info, MicroSeconds(1), [&]() {
            nic->SetAttribute("CongestionControl", TypeIdValue(Dcqcn::GetTypeId()));
            RdmaMessageInfo next = info;
            next.iteration = 1;
            fabric->SendMessage(0, 1, next, Simulator::Now());
        });
        Simulator::Run();
        ASSERT_EQ(g_samples.size(), 1u); // the second message ran Dcqcn
        ASSERT_EQ(g_samples[0].size(), 3u);
        // First iteration: F = Intercept + Slope / 2 = 2.5.
        EXPECT_EQ(g_samples[0][0].additiveIncreaseBps, 2500000000u);
        const RdmaJobState* s = nic->GetJobState(info.jobId);
        ASSERT_NE(s, nullptr);
        EXPECT_EQ(s->progress.iteration, 1);
        EXPECT_EQ(s->progress.bytes, info.bytes);
    }
}

TEST_F(MltcpFabricTest, CongestionControlNames)
{
    RoceFabricHelper helper;
    helper.SetNicAttribute("PayloadPerPacket",
                           UintegerValue(1000)); // the counts below are of 1000 B packets
    const std::vector<std::pair<std::string, TypeId>> good{
        {"none", RdmaNoCongestionControl::GetTypeId()},
        {"dcqcn", Dcqcn::GetTypeId()},
        {"mltcp-dcqcn", MltcpDcqcn::GetTypeId()},
        {"ns3::MltcpDcqcn", MltcpDcqcn::GetTypeId()},
        {"ns3::MltcpDcqcn[Slope=1.5|Intercept=0.5]", MltcpDcqcn::GetTypeId()},
        {"mltcp-dcqcn[Intercept=2]", MltcpDcqcn::GetTypeId()},
        {"dcqcn[ByteCounter=10000|ClampTargetRate=true]", Dcqcn::GetTypeId()},
        {"ns3::Dcqcn[]", Dcqcn::GetTypeId()},
    };
    for (const auto& [spec, tid] : good)
    {
        EXPECT_NO_THROW(helper.SetCongestionControl(spec)) << spec;
        Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
        TypeIdValue v;
        fabric->GetNic(0)->GetAttribute("CongestionControl", v);
        EXPECT_EQ(v.Get(), tid) << spec;
        Simulator::Destroy();
    }
    for (const char* spec : {"cubic",
                             "",
                             "ns3::RdmaNic",
                             "ns3::MltcpDcqcn[Slop=1]",
                             "ns3::MltcpDcqcn[Slope=abc]",
                             "ns3::MltcpDcqcn[Slope=1.5x]",
                             "dcqcn[FastRecoveryTimes=5.5]",
                             "ns3::MltcpDcqcn[Slope=1",
                             "ns3::MltcpDcqcn[Slope]",
                             "ns3::MltcpDcqcn[Slope=1||Intercept=1]",
                             "dcqcn[G=2]", // outside the attribute's checker range
                             "cubic[Slope=1]"})
    {
        EXPECT_THROW(helper.SetCongestionControl(spec), std::invalid_argument) << spec;
    }
}

// The policy -----------------------------------------------------------------------------

namespace
{

/// A control plane that counts what it was asked to do.
class CountingControl : public SchedulerControl
{
  public:
    void SetGate(uint32_t, bool) override
    {
        ++calls;
    }

    void SetPriorityClass(uint32_t, int16_t) override
    {
        ++calls;
    }

    void SetRateWeight(uint32_t, double) override
    {
        ++calls;
    }

    void SetSourcePort(uint32_t, uint32_t, uint32_t, uint16_t) override
    {
        ++calls;
    }

    std::vector<uint32_t> GetDirectedPath(uint32_t, uint32_t, uint16_t) const override
    {
        return {};
    }

    uint64_t GetLinkRateBps(uint32_t) const override
    {
        return 100000000000ull;
    }

    int calls{0};
};

/// The Slope and Intercept of an MltcpDcqcn built from \p spec as the fabric helper builds it.
std::pair<double, double>
ParseWithFabricHelper(const std::string& spec)
{
    Ptr<MltcpDcqcn> cc = RoceFabricHelper::ParseCongestionControl(spec).Create<MltcpDcqcn>();
    DoubleValue slope;
    DoubleValue intercept;
    cc->GetAttribute("Slope", slope);
    cc->GetAttribute("Intercept", intercept);
    return {slope.Get(), intercept.Get()};
}

} // namespace

TEST(MltcpSchedulerTest, AsksForMltcpDcqcnWithItsParameters)
{
    EXPECT_EQ(CollectiveSchedulerHelper::FindScheduler("mltcp"), "ns3::MltcpScheduler");
    Ptr<MltcpScheduler> s = CreateObject<MltcpScheduler>();
    EXPECT_EQ(s->GetName(), "mltcp");
    EXPECT_FALSE(s->StartsJobsGated());
    // Defaults are the congestion control's own.
    EXPECT_EQ(ParseWithFabricHelper(s->GetCongestionControl("dcqcn")),
              std::make_pair(MltcpDcqcn::kDefaultSlope, MltcpDcqcn::kDefaultIntercept));

    // Values survive the string exactly, including ones with no short decimal form.
    for (const auto& [slope, intercept] : std::vector<std::pair<double, double>>{{1.5, 0.25},
                                                                                 {0.1, 1.0 / 3},
                                                                                 {-0.2, 0.7},
                                                                                 {1e-7, 12345.678}})
    {
        s->SetAttribute("Slope", DoubleValue(slope));
        s->SetAttribute("Intercept", DoubleValue(intercept));
        const std::string spec = s->GetCongestionControl("ns3::Dcqcn");
        EXPECT_EQ(spec.rfind("ns3::MltcpDcqcn[", 0), 0u) << spec;
        EXPECT_EQ(ParseWithFabricHelper(spec), std::make_pair(slope, intercept)) << spec;
        // And the fabric helper takes it.
        RoceFabricHelper helper;
        EXPECT_NO_THROW(helper.SetCongestionControl(spec)) << spec;
    }

    s->SetAttribute("Slope", DoubleValue(-1.0));
    s->SetAttribute("Intercept", DoubleValue(0.5));
    EXPECT_THROW(s->GetCongestionControl("dcqcn"), std::runtime_error);
}

TEST(MltcpSchedulerTest, InheritsTheFabricsDcqcnParameters)
{
    Ptr<MltcpScheduler> s = CreateObject<MltcpScheduler>();
    s->SetAttribute("Slope", DoubleValue(2.0));
    s->SetAttribute("Intercept", DoubleValue(0.25));
    // Every DCQCN attribute of the fabric's spec (profile, then overrides) reaches MLTCP's
    // congestion control; the policy's Slope and Intercept replace the fabric's own.
    const std::string fabric = "mltcp-dcqcn[profile=hpcc|ByteCounter=10000|Slope=9]";
    Ptr<MltcpDcqcn> got = RoceFabricHelper::ParseCongestionControl(s->GetCongestionControl(fabric))
                              .Create<MltcpDcqcn>();
    Ptr<MltcpDcqcn> expected = CreateObject<MltcpDcqcn>();
    expected->ApplyProfile("hpcc");
    expected->SetAttribute("ByteCounter", UintegerValue(10000));
    expected->SetAttribute("Slope", DoubleValue(2.0));
    expected->SetAttribute("Intercept", DoubleValue(0.25));
    const TypeId tid = MltcpDcqcn::GetTypeId();
    for (TypeId t = tid; t != RdmaCongestionOps::GetTypeId(); t = t.GetParent())
    {
        for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = t.GetAttribute(i);
            Ptr<AttributeValue> a = info.checker->Create();
            Ptr<AttributeValue> b = info.checker->Create();
            got->GetAttribute(info.name, *a);
            expected->GetAttribute(info.name, *b);
            EXPECT_EQ(a->SerializeToString(info.checker), b->SerializeToString(info.checker))
                << info.name;
        }
    }
    EXPECT_EQ(s->GetCongestionControl("dcqcn[]"), s->GetCongestionControl("dcqcn"));
    // MLTCP is a DCQCN variant: any other fabric congestion control is an error.
    EXPECT_THROW(s->GetCongestionControl("none"), std::invalid_argument);
    EXPECT_THROW(s->GetCongestionControl("ns3::RdmaNoCongestionControl"), std::invalid_argument);
    EXPECT_THROW(s->GetCongestionControl("dcqcn[profile=hpcc"), std::invalid_argument);
}

TEST(MltcpSchedulerTest, NotesItsParametersAndNeverActs)
{
    Ptr<MltcpScheduler> s = CreateObject<MltcpScheduler>();
    s->SetAttribute("Slope", DoubleValue(1.5));
    s->SetAttribute("Intercept", DoubleValue(0.25));
    CountingControl control;
    s->SetControl(&control);
    SchedulerJob a;
    a.id = 3;
    SchedulerJob b;
    b.id = 4;
    Simulator::Schedule(MicroSeconds(1), [&]() { s->NotifyJobArrived(a); });
    Simulator::Schedule(MicroSeconds(5), [&]() {
        s->NotifyJobArrived(b);
        s->NotifyCollectiveReady(3, 0, 0);
        s->NotifyCollectiveDone(3, 0, 0);
        s->NotifyJobDone(3);
    });
    Simulator::Run();

    // One decision per arrival, each naming the parameters; the other events decide nothing.
    const auto& decisions = s->GetDecisions();
    ASSERT_EQ(decisions.size(), 2u);
    for (std::size_t i = 0; i < decisions.size(); ++i)
    {
        const SchedulerDecision& d = decisions[i];
        EXPECT_EQ(d.kind, "job-arrived");
        EXPECT_EQ(d.job, i == 0 ? 3 : 4);
        EXPECT_EQ(d.when, (i == 0 ? MicroSeconds(1) : MicroSeconds(5)) + s->GetControlDelay());
        const nlohmann::json detail = nlohmann::json::parse(d.detailJson);
        EXPECT_TRUE(detail.at("actions").empty());
        EXPECT_EQ(detail.at("slope").get<double>(), 1.5);
        EXPECT_EQ(detail.at("intercept").get<double>(), 0.25);
    }
    EXPECT_EQ(control.calls, 0);
    EXPECT_TRUE(s->GetGateChanges().empty());
    Simulator::Destroy();
}
