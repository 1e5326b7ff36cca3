/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/cassini-scheduler.h"
#include "ns3/collective-scheduler-helper.h"
#include "ns3/double.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t kRateBps = 100'000'000'000;
const Time kQuantum = MicroSeconds(10); // the TimeQuantum default

/// Records gate changes (when they take effect) and tells a listener about them.
class FakeControl : public SchedulerControl
{
  public:
    struct GateCall
    {
        Time when;
        uint32_t job;
        bool open;
    };

    void SetGate(uint32_t job, bool open) override
    {
        gates.push_back({Simulator::Now(), job, open});
        if (onGate)
        {
            onGate(job, open);
        }
    }

    void SetPriorityClass(uint32_t /* job */, int16_t /* cls */) override
    {
    }

    void SetRateWeight(uint32_t /* job */, double /* weight */) override
    {
    }

    void SetSourcePort(uint32_t, uint32_t, uint32_t, uint16_t) override
    {
    }

    std::vector<uint32_t> GetDirectedPath(uint32_t, uint32_t, uint16_t) const override
    {
        return {0};
    }

    uint64_t GetLinkRateBps(uint32_t /* link */) const override
    {
        return kRateBps;
    }

    /// Times the gate of \p job opened.
    std::vector<Time> Openings(uint32_t job) const
    {
        std::vector<Time> out;
        for (const auto& g : gates)
        {
            if (g.job == job && g.open)
            {
                out.push_back(g.when);
            }
        }
        return out;
    }

    std::vector<GateCall> gates;
    std::function<void(uint32_t, bool)> onGate;
};

/// A job with one flow over link 0 that keeps the link busy for its whole \p comm.
SchedulerJob
MakeJob(uint32_t id, Time compute, Time comm, uint32_t buckets = 1)
{
    SchedulerJob j;
    j.id = id;
    j.spec.id = id;
    j.spec.buckets = buckets;
    j.computeTime = compute;
    j.commTime = comm;
    j.startTime = Simulator::Now();
    SchedulerFlow f;
    f.srcHost = 0;
    f.dstHost = 1;
    f.bytes = static_cast<uint64_t>(comm.GetSeconds() * kRateBps / 8.0);
    f.path = {0};
    j.flows.push_back(f);
    return j;
}

/**
 * Runs jobs as a one-bucket TrainingJob would: compute, report ready, communicate
 * for commTime once the gate is open, report done, start the next iteration.
 */
class JobDriver
{
  public:
    JobDriver(Ptr<CollectiveScheduler> s, FakeControl& c)
        : m_scheduler(s)
    {
        c.onGate = [this](uint32_t job, bool open) { OnGate(job, open); };
    }

    void Start(const SchedulerJob& job, uint32_t iterations)
    {
        State& st = m_jobs[job.id];
        st.compute = job.computeTime;
        st.comm = job.commTime;
        st.iterations = iterations;
        m_scheduler->NotifyJobArrived(job);
        Simulator::Schedule(st.compute, &JobDriver::Ready, this, job.id);
    }

    /// [start, end) of every communication phase of \p job.
    std::vector<std::pair<Time, Time>> Phases(uint32_t job) const
    {
        return m_jobs.at(job).phases;
    }

  private:
    struct State
    {
        Time compute;
        Time comm;
        uint32_t iterations{0};
        uint32_t iteration{0};
        bool gateOpen{false};
        bool waiting{false};
        std::vector<std::pair<Time, Time>> phases;
    };

    void Ready(uint32_t job)
    {
        State& st = m_jobs.at(job);
        st.waiting = true;
        m_scheduler->NotifyCollectiveReady(job, st.iteration, 0);
        if (st.gateOpen)
        {
            Communicate(job);
        }
    }

    void OnGate(uint32_t job, bool open)
    {
        State& st = m_jobs.at(job);
        st.gateOpen = open;
        if (open && st.waiting)
        {
            Communicate(job);
        }
    }

    void Communicate(uint32_t job)
    {
        State& st = m_jobs.at(job);
        st.waiting = false;
        st.phases.emplace_back(Simulator::Now(), Simulator::Now() + st.comm);
        Simulator::Schedule(st.comm, &JobDriver::Done, this, job);
    }

    void Done(uint32_t job)
    {
        State& st = m_jobs.at(job);
        m_scheduler->NotifyCollectiveDone(job, st.iteration, 0);
        if (++st.iteration < st.iterations)
        {
            Simulator::Schedule(st.compute, &JobDriver::Ready, this, job);
        }
    }

    Ptr<CollectiveScheduler> m_scheduler;
    std::map<uint32_t, State> m_jobs;
};

/// The notes of the job-arrived decision about \p job.
nlohmann::json
ArrivalNotes(const CollectiveScheduler& s, uint32_t job)
{
    for (const auto& d : s.GetDecisions())
    {
        if (d.kind == "job-arrived" && d.job == static_cast<int64_t>(job))
        {
            return nlohmann::json::parse(d.detailJson);
        }
    }
    return nlohmann::json();
}

/// A CASSINI scheduler whose grid period is the estimated iteration time exactly.
Ptr<CassiniScheduler>
MakeCassini()
{
    Ptr<CassiniScheduler> s = CreateObject<CassiniScheduler>();
    s->SetAttribute("PeriodSlack", DoubleValue(0));
    return s;
}

} // namespace

TEST(CassiniSchedulerTest, IsFoundByNameAndStartsJobsGated)
{
    EXPECT_EQ(CollectiveSchedulerHelper::FindScheduler("cassini"), "ns3::CassiniScheduler");
    Ptr<CassiniScheduler> s = CreateObject<CassiniScheduler>();
    EXPECT_EQ(s->GetName(), "cassini");
    EXPECT_TRUE(s->StartsJobsGated());
}

TEST(CassiniSchedulerTest, TwoIdenticalJobsAlternateHalfAPeriodApart)
{
    // Each job uses the whole link for half of its period 2C: they fit only half a period apart.
    const Time c = MilliSeconds(1);
    const Time period = c * 2;
    const uint32_t iterations = 8;
    FakeControl control;
    Ptr<CassiniScheduler> s = MakeCassini();
    s->SetControl(&control);
    JobDriver driver(s, control);
    Simulator::Schedule(Seconds(0), [&]() {
        driver.Start(MakeJob(1, c, c), iterations);
        driver.Start(MakeJob(2, c, c), iterations);
    });
    Simulator::Run();

    const auto a = control.Openings(1);
    const auto b = control.Openings(2);
    ASSERT_EQ(a.size(), iterations);
    ASSERT_EQ(b.size(), iterations);
    for (uint32_t k = 0; k < iterations; ++k)
    {
        // Offset of the two jobs' openings, modulo the period: half a period.
        const int64_t p = period.GetTimeStep();
        const int64_t offset = (((b[k] - a[k]).GetTimeStep() % p) + p) % p;
        EXPECT_LE(std::abs(offset - p / 2), kQuantum.GetTimeStep()) << "iteration " << k;
        if (k > 0)
        {
            EXPECT_LE(Abs(a[k] - a[k - 1] - period), kQuantum) << "job 1, iteration " << k;
            EXPECT_LE(Abs(b[k] - b[k - 1] - period), kQuantum) << "job 2, iteration " << k;
        }
    }
    // The communication phases hardly overlap: at most the control-plane round trip each.
    Time overlap;
    for (const auto& [s1, e1] : driver.Phases(1))
    {
        for (const auto& [s2, e2] : driver.Phases(2))
        {
            overlap += Max(Time(0), Min(e1, e2) - Max(s1, s2));
        }
    }
    EXPECT_LE(overlap, s->GetControlDelay() * 2 * iterations);

    const auto notes = ArrivalNotes(*s, 2);
    EXPECT_EQ(notes.at("period_ns").get<int64_t>(), period.GetNanoSeconds());
    EXPECT_EQ(notes.at("inconsistent_edges").get<uint32_t>(), 0u);
    EXPECT_NEAR(notes.at("link_scores").at("0").get<double>(), 1.0, 1e-9);
    Simulator::Destroy();
}

TEST(CassiniSchedulerTest, GateFollowsTheGridAndTheLateTolerance)
{
    // A lone job: its communication stays where it is, on the grid C + n * 2C.
    const Time c = MilliSeconds(1);
    const Time period = c * 2;
    const Time anchor = c;
    FakeControl control;
    Ptr<CassiniScheduler> s = MakeCassini();
    Ptr<CassiniScheduler> strict = MakeCassini();
    strict->SetAttribute("LateTolerance", DoubleValue(0.04)); // 80 us
    FakeControl strictControl;
    s->SetControl(&control);
    strict->SetControl(&strictControl);
    const Time d = s->GetControlDelay();

    auto at = [](Time t, std::function<void()> f) { Simulator::Schedule(t, f); };
    for (Ptr<CassiniScheduler> x : {s, strict})
    {
        at(Seconds(0), [x, c]() { x->NotifyJobArrived(MakeJob(1, c, c, 2)); });
        // Job 2 shares the link and communicates for ever (it is never done): job 1's link is
        // never idle, so job 1 keeps to its grid (CASSINI holds a job only for a busy link).
        at(Seconds(0), [x, c]() { x->NotifyJobArrived(MakeJob(2, c, c)); });
        at(MicroSeconds(10), [x]() { x->NotifyCollectiveReady(2, 0, 0); });
        // 0.05 periods (100 us) past grid point 3: within 0.1, beyond 0.04.
        at(anchor + period * 3 + period / 20 - d, [x]() { x->NotifyCollectiveReady(1, 0, 0); });
        at(MicroSeconds(7500), [x]() { x->NotifyCollectiveReady(1, 0, 1); });
        at(MicroSeconds(7600), [x]() { x->NotifyCollectiveDone(1, 0, 0); });
        at(MicroSeconds(8500), [x]() { x->NotifyCollectiveDone(1, 0, 1); });
        // Half a period past grid point 5: waits for grid point 6.
        at(anchor + period * 5 + period / 2 - d, [x]() { x->NotifyCollectiveReady(1, 1, 0); });
        at(MilliSeconds(14), [x]() { x->NotifyCollectiveDone(1, 1, 1); });
        // Early for grid point 7 (ready 1.5 ms after grid point 6): waits for it.
        at(anchor + period * 6 + MicroSeconds(1500) - d,
           [x]() { x->NotifyCollectiveReady(1, 2, 0); });
    }
    Simulator::Run();

    auto expect = [](const FakeControl& fc, const std::vector<std::pair<Time, bool>>& want) {
        std::vector<FakeControl::GateCall> mine;
        for (const auto& g : fc.gates)
        {
            if (g.job == 1)
            {
                mine.push_back(g);
            }
            else
            {
                EXPECT_TRUE(g.open); // job 2 opens once, work-conserving, and stays open
            }
        }
        ASSERT_EQ(mine.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
        {
            EXPECT_EQ(mine[i].when, want[i].first) << "gate change " << i;
            EXPECT_EQ(mine[i].open, want[i].second) << "gate change " << i;
        }
    };
    // Opened at once: the decision at ready + d reaches the NICs d later.
    const Time slightlyLate = anchor + period * 3 + period / 20 + d;
    expect(control,
           {{slightlyLate, true},
            {MicroSeconds(8500) + d * 2, false},
            {anchor + period * 6, true},
            {MilliSeconds(14) + d * 2, false},
            {anchor + period * 7, true}});
    // Held for grid point 4 (the scripted done comes first; the fake records in time order).
    expect(strictControl,
           {{MicroSeconds(8500) + d * 2, false},
            {anchor + period * 4, true},
            {anchor + period * 6, true},
            {MilliSeconds(14) + d * 2, false},
            {anchor + period * 7, true}});
    Simulator::Destroy();
}

TEST(CassiniSchedulerTest, QuantumDoublesUntilTheCircleFits)
{
    // Periods 4001 and 4003 quanta (both prime): LCM 16,016,003 > kCassiniMaxPerimeter. At
    // 20 us they are 2001 and 2002 quanta (rounded up), LCM 4,006,002: it fits.
    const Time comm = MilliSeconds(1);
    FakeControl control;
    Ptr<CassiniScheduler> s = MakeCassini();
    s->SetControl(&control);
    Simulator::Schedule(Seconds(0), [&]() {
        s->NotifyJobArrived(MakeJob(1, kQuantum * 4001 - comm, comm));
        s->NotifyJobArrived(MakeJob(2, kQuantum * 4003 - comm, comm));
    });
    Simulator::Run();
    EXPECT_EQ(ArrivalNotes(*s, 1).at("quantum_ns").get<int64_t>(), 10000);
    const auto notes = ArrivalNotes(*s, 2);
    EXPECT_EQ(notes.at("quantum_ns").get<int64_t>(), 20000);
    EXPECT_EQ(notes.at("period_ns").get<int64_t>(), 2002 * 20000);
    Simulator::Destroy();
}

TEST(CassiniSchedulerTest, JobWithoutFabricFlowsIsNeverHeld)
{
    FakeControl control;
    Ptr<CassiniScheduler> s = MakeCassini();
    s->SetControl(&control);
    SchedulerJob local = MakeJob(3, MilliSeconds(1), MilliSeconds(1));
    local.flows.clear();
    Simulator::Schedule(Seconds(0), [&]() { s->NotifyJobArrived(local); });
    Simulator::Schedule(MilliSeconds(5), [&]() { s->NotifyCollectiveReady(3, 0, 0); });
    Simulator::Schedule(MilliSeconds(6), [&]() { s->NotifyCollectiveDone(3, 0, 0); });
    Simulator::Run();
    ASSERT_EQ(control.gates.size(), 1u);
    EXPECT_TRUE(control.gates[0].open);
    EXPECT_EQ(control.gates[0].when, s->GetControlDelay() * 2);
    Simulator::Destroy();
}

TEST(CassiniSchedulerTest, PeriodSlackStretchesTheGrid)
{
    // Iteration 1 ms; 5% slack makes a 1.05 ms grid, rounded up to the quantum.
    FakeControl control;
    Ptr<CassiniScheduler> s = CreateObject<CassiniScheduler>();
    s->SetAttribute("PeriodSlack", DoubleValue(0.05));
    s->SetControl(&control);
    Simulator::Schedule(Seconds(0), [&]() {
        s->NotifyJobArrived(MakeJob(1, MicroSeconds(600), MicroSeconds(400)));
    });
    Simulator::Run();
    EXPECT_EQ(ArrivalNotes(*s, 1).at("period_ns").get<int64_t>(), 1050000);
    Simulator::Destroy();
}

TEST(CassiniSchedulerTest, AJobAloneOnItsLinksIsNeverHeld)
{
    // A 20% longer grid than the iteration: the job is ready early every period, and with
    // nobody else on its link it starts at once, a control round trip after it is ready.
    const Time c = MilliSeconds(1);
    const uint32_t iterations = 6;
    FakeControl control;
    Ptr<CassiniScheduler> s = CreateObject<CassiniScheduler>();
    s->SetAttribute("PeriodSlack", DoubleValue(0.2));
    s->SetControl(&control);
    JobDriver driver(s, control);
    Simulator::Schedule(Seconds(0), [&]() { driver.Start(MakeJob(1, c, c), iterations); });
    Simulator::Run();
    const auto phases = driver.Phases(1);
    ASSERT_EQ(phases.size(), iterations);
    const Time d = s->GetControlDelay();
    Time ready = c;
    for (uint32_t k = 0; k < iterations; ++k)
    {
        EXPECT_EQ(phases[k].first, ready + d * 2) << "iteration " << k;
        ready = phases[k].second + c;
    }
    Simulator::Destroy();
}

TEST(CassiniSchedulerTest, AJobIsHeldOnlyWhileAJobOnItsLinksIsOpen)
{
    // Different periods on one link, so the jobs keep falling off each other's slots: every
    // wait at a closed gate must be covered by the other job's open gate.
    FakeControl control;
    Ptr<CassiniScheduler> s = MakeCassini();
    s->SetControl(&control);
    JobDriver driver(s, control);
    const uint32_t iterations = 12;
    Simulator::Schedule(Seconds(0), [&]() {
        driver.Start(MakeJob(1, MicroSeconds(700), MicroSeconds(900)), iterations);
        driver.Start(MakeJob(2, MicroSeconds(1100), MicroSeconds(600)), iterations);
    });
    Simulator::Run();
    const Time d = s->GetControlDelay();
    const std::map<uint32_t, Time> compute{{1, MicroSeconds(700)}, {2, MicroSeconds(1100)}};
    uint32_t held = 0;
    for (uint32_t job : {1u, 2u})
    {
        const uint32_t other = 3 - job;
        // The other job's gate-open intervals, as the NICs saw them.
        std::vector<std::pair<Time, Time>> open;
        for (const auto& g : control.gates)
        {
            if (g.job != other)
            {
                continue;
            }
            if (g.open)
            {
                open.emplace_back(g.when, Time::Max());
            }
            else if (!open.empty() && open.back().second == Time::Max())
            {
                open.back().second = g.when;
            }
        }
        const auto phases = driver.Phases(job);
        ASSERT_EQ(phases.size(), iterations);
        Time ready = compute.at(job);
        for (uint32_t k = 0; k < iterations; ++k)
        {
            // Held over [ready + 2d, start): the other job must be open all along.
            Time t = ready + d * 2;
            const Time start = phases[k].first;
            held += start > t;
            while (t < start)
            {
                auto cover = std::find_if(open.begin(), open.end(), [t](const auto& iv) {
                    return iv.first <= t && t < iv.second;
                });
                ASSERT_NE(cover, open.end()) << "job " << job << " iteration " << k << " held at "
                                             << t.As(Time::US) << " on an idle link";
                t = cover->second;
            }
            ready = phases[k].second + compute.at(job);
        }
    }
    EXPECT_GT(held, 0u); // the grid did hold jobs: the check above was not vacuous
    Simulator::Destroy();
}

namespace
{

/**
 * Two racks of hosts: a flow inside a rack uses a link of its own host pair, a flow
 * between racks the uplink of its source rack (directed link 1000 + rack).
 */
class RackControl : public FakeControl
{
  public:
    std::vector<uint32_t> GetDirectedPath(uint32_t src, uint32_t dst, uint16_t) const override
    {
        if (src / 4 == dst / 4)
        {
            return {src * 16 + dst};
        }
        return {1000 + src / 4};
    }
};

/// Job \p id on \p hosts (a ring, one flow per neighbour pair), each flow busy for \p comm.
SchedulerJob
RingJob(uint32_t id, std::vector<uint32_t> hosts, Time compute, Time comm, const RackControl& c)
{
    SchedulerJob j = MakeJob(id, compute, comm);
    j.rankHosts = hosts;
    j.flows.clear();
    for (std::size_t i = 0; i < hosts.size(); ++i)
    {
        SchedulerFlow f;
        f.srcHost = hosts[i];
        f.dstHost = hosts[(i + 1) % hosts.size()];
        f.bytes = static_cast<uint64_t>(comm.GetSeconds() * kRateBps / 8.0);
        f.path = c.GetDirectedPath(f.srcHost, f.dstHost, 0);
        j.flows.push_back(f);
    }
    return j;
}

} // namespace

TEST(CassiniSchedulerTest, PlacementGoesToTheBestScoringCandidate)
{
    // Job 1 runs across the racks, busy 75% of its 2 ms period on both uplinks. Job 2 (busy
    // half of 2 ms) could go across the racks too (uplinks shared: overlap is unavoidable),
    // across them and inside a rack, inside rack 0 alone, or inside rack 1 alone.
    RackControl control;
    Ptr<CassiniScheduler> s = MakeCassini();
    s->SetControl(&control);
    const Time c1 = MicroSeconds(500);
    const Time comm1 = MicroSeconds(1500);
    const Time c2 = MilliSeconds(1);
    const Time comm2 = MilliSeconds(1);
    std::vector<std::vector<uint32_t>> hosts{{1, 5}, {1, 2, 6}, {2, 3}, {6, 7}};
    std::vector<SchedulerJob> candidates;
    for (const auto& h : hosts)
    {
        candidates.push_back(RingJob(2, h, c2, comm2, control));
    }
    std::size_t chosen = candidates.size();
    Simulator::Schedule(Seconds(0), [&]() {
        s->NotifyJobArrived(RingJob(1, {0, 4}, c1, comm1, control));
    });
    Simulator::Schedule(MicroSeconds(100), [&]() { chosen = s->ChoosePlacement(candidates); });
    Simulator::Run();
    ASSERT_LT(chosen, candidates.size());

    // Brute force, in 10 us quanta on the common 2 ms circle: job 1 is fixed at its grid
    // (communicating from 500 us); job 2 may take any shift. A link's score is 1 minus the
    // mean excess of demand over capacity; a candidate's is its worst link's at its best shift.
    const int64_t period = 200;
    auto busy1 = [&](uint32_t link, int64_t t) {
        return (link == 1000 || link == 1001) && ((t - 50) % period + period) % period < 150;
    };
    auto bestScore = [&](const SchedulerJob& cand) {
        std::set<uint32_t> links;
        for (const auto& f : cand.flows)
        {
            links.insert(f.path.begin(), f.path.end());
        }
        double best = 0;
        for (int64_t shift = 0; shift < period; ++shift)
        {
            double worst = 1;
            for (uint32_t l : links)
            {
                int64_t excess = 0;
                for (int64_t t = 0; t < period; ++t)
                {
                    const bool busy2 = ((t - 100 - shift) % period + period) % period < 100;
                    excess += busy1(l, t) && busy2;
                }
                worst = std::min(worst, 1 - static_cast<double>(excess) / period);
            }
            best = std::max(best, worst);
        }
        return best;
    };
    std::vector<double> scores;
    for (const auto& cand : candidates)
    {
        scores.push_back(bestScore(cand));
    }
    EXPECT_DOUBLE_EQ(scores[0], 0.75); // 2.5 ms of communication on a 2 ms circle
    const double top = *std::max_element(scores.begin(), scores.end());
    EXPECT_EQ(scores[chosen], top) << "chose candidate " << chosen;
    // Candidates 2 and 3 tie at 1: the earlier one.
    EXPECT_EQ(chosen, 2u);
    Simulator::Destroy();
}

TEST(CassiniSchedulerTest, ThePatternIsTheJobsOpsNotOnePhase)
{
    // Each job: 150 us of compute, then two 100 us all-reduces at the link's
    // rate 100 us apart (its ops), a 450 us iteration. As one phase (300 us
    // at 2/3 of the link), two such phases must overlap on the 450 us
    // circle, beyond the link's capacity. Op by op, job 2 shifted 100 us
    // puts its bursts in job 1's idle 250 us: the link fits them both.
    auto gapped = [](uint32_t id, bool ops) {
        SchedulerJob j = MakeJob(id, MicroSeconds(150), MicroSeconds(300));
        const uint64_t burst = static_cast<uint64_t>(100e-6 * kRateBps / 8.0);
        j.flows[0].bytes = 2 * burst;
        for (Time start : {Time(0), MicroSeconds(200)})
        {
            SchedulerOp op;
            op.start = start;
            op.duration = MicroSeconds(100);
            op.planned = true;
            op.flowBytes = {{0, burst}};
            if (ops)
            {
                j.ops.push_back(op);
            }
        }
        return j;
    };
    for (bool ops : {true, false})
    {
        FakeControl control;
        Ptr<CassiniScheduler> s = MakeCassini();
        s->SetControl(&control);
        Simulator::Schedule(Seconds(0), [&]() {
            s->NotifyJobArrived(gapped(1, ops));
            s->NotifyJobArrived(gapped(2, ops));
        });
        Simulator::Run();
        const double score = ArrivalNotes(*s, 2).at("link_scores").at("0").get<double>();
        if (ops)
        {
            EXPECT_NEAR(score, 1.0, 1e-9);
        }
        else
        {
            EXPECT_LT(score, 0.95);
        }
        Simulator::Destroy();
    }
}
