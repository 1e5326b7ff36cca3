/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Harmonics' two tiers: a rack-local job is planned by its rack's Local
 * Scheduler and a cross-rack one by the Global Coordinator; the coordinator
 * keeps every rack's uplinks within their aggregate and single capacities
 * and the local plans, with its reservations, overload no link; a change in
 * one rack re-solves that rack only, the others keep their absolute start
 * times; a re-solved rack's MILP starts from its previous plan, feasible;
 * in a packet-level run every decision names its tier and a cross-rack
 * job's gate opens once, at the coordinator's planned start, for its hosts
 * in both racks.
 */

#include "epoch-plan-test-util.h"
#include "scenario-run-test.h"

#include "ns3/cbc-milp-solver.h"
#include "ns3/harmonics-planner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sqlite3.h>

using namespace ns3;
using ns3::epoch_plan_test::Coll;
using ns3::epoch_plan_test::Job;

namespace
{

// A two-rack fabric: 4 hosts per rack, 2 spines; link ids by role.
uint32_t
HostUp(uint32_t rack, uint32_t host)
{
    return 100 + 10 * rack + host;
}

uint32_t
HostDown(uint32_t rack, uint32_t host)
{
    return 200 + 10 * rack + host;
}

uint32_t
Up(uint32_t rack, uint32_t spine)
{
    return 300 + 10 * rack + spine;
}

uint32_t
Down(uint32_t rack, uint32_t spine)
{
    return 400 + 10 * rack + spine;
}

RackUplinks
TwoRacksTwoSpines()
{
    RackUplinks u;
    for (int32_t r = 0; r < 2; ++r)
    {
        for (uint32_t s = 0; s < 2; ++s)
        {
            u[Up(r, s)] = {r, true, 1.0};
            u[Down(r, s)] = {r, false, 1.0};
        }
    }
    return u;
}

/// A ring of two ranks, hosts \p a and \p b of \p rack: both directions of both host links.
std::map<uint32_t, double>
LocalRing(uint32_t rack, uint32_t a, uint32_t b)
{
    return {{HostUp(rack, a), 1.0},
            {HostDown(rack, a), 1.0},
            {HostUp(rack, b), 1.0},
            {HostDown(rack, b), 1.0}};
}

/// A ring of host \p a of rack 0 and host \p b of rack 1 through spine \p spine.
std::map<uint32_t, double>
CrossRing(uint32_t a, uint32_t b, uint32_t spine)
{
    return {{HostUp(0, a), 1.0},
            {HostDown(0, a), 1.0},
            {HostUp(1, b), 1.0},
            {HostDown(1, b), 1.0},
            {Up(0, spine), 1.0},
            {Down(1, spine), 1.0},
            {Up(1, spine), 1.0},
            {Down(0, spine), 1.0}};
}

/// A cross-rack collective that may take either spine.
PlanCollective
CrossColl(int64_t ready, int64_t duration, double weight, uint32_t a, uint32_t b)
{
    PlanCollective c = Coll(ready, duration, weight, CrossRing(a, b, 0));
    PlanRoute other;
    other.duration = duration;
    other.usage = CrossRing(a, b, 1);
    c.alternatives.push_back(other);
    return c;
}

/// CBC, counting its solves and keeping, per solve, the variable names, the
/// warm start it was given and whether that start satisfies the model.
class RecordingSolver : public MilpSolver
{
  public:
    struct Call
    {
        std::vector<std::string> names;
        std::vector<double> warmStart;
        bool warmStartFeasible{false};
        std::string violation;
        bool warmStartUsed{false};
    };

    std::string GetName() const override
    {
        return "recording";
    }

    MilpResult Solve(const MilpModel& model, const MilpSolveOptions& options) const override
    {
        Call c;
        for (const auto& v : model.GetVariables())
        {
            c.names.push_back(v.name);
        }
        c.warmStart = options.warmStart;
        c.warmStartFeasible =
            !options.warmStart.empty() && model.IsFeasible(options.warmStart, 1e-6, &c.violation);
        MilpResult r = m_cbc.Solve(model, options);
        c.warmStartUsed = r.warmStartUsed;
        calls.push_back(std::move(c));
        return r;
    }

    mutable std::vector<Call> calls;

  private:
    CbcMilpSolver m_cbc;
};

/// The (job, collective) -> start slot a 0/1 vector of a plan model sets (names x_j<job>_k<k>...).
std::map<std::pair<uint32_t, uint32_t>, int64_t>
Decode(const RecordingSolver::Call& call)
{
    std::map<std::pair<uint32_t, uint32_t>, int64_t> starts;
    const std::regex name(R"(x_j(\d+)_k(\d+)(_r\d+)?_s(\d+))");
    for (std::size_t i = 0; i < call.names.size(); ++i)
    {
        std::smatch m;
        if (call.warmStart[i] > 0.5 && std::regex_match(call.names[i], m, name))
        {
            starts[{static_cast<uint32_t>(std::stoul(m[1])),
                    static_cast<uint32_t>(std::stoul(m[2]))}] = std::stoll(m[4]);
        }
    }
    return starts;
}

MilpSolveOptions
Exact()
{
    MilpSolveOptions o;
    o.relativeGap = 0;
    return o;
}

TEST(HarmonicsPlannerTest, RackLocalJobsGoToTheirLocalSchedulerCrossRackOnesToTheCoordinator)
{
    PlanInstance in;
    in.horizon = 12;
    in.jobs = {Job(1, 1, {Coll(0, 2, 1, LocalRing(0, 0, 1))}),
               Job(2, 1, {Coll(0, 2, 1, LocalRing(1, 0, 1))}),
               Job(3, 1, {CrossColl(0, 2, 1, 2, 2)})};
    const std::map<uint32_t, int32_t> rack{{1, 0}, {2, 1}, {3, -1}};
    RecordingSolver solver;
    const HarmonicsPlan h = PlanHarmonics(in, rack, TwoRacksTwoSpines(), solver, Exact());
    EXPECT_EQ(h.globalJobs, 1u);
    EXPECT_GT(h.coordinatorChoices, 0u);
    ASSERT_EQ(h.locals.size(), 2u);
    for (const auto& l : h.locals)
    {
        const uint32_t mine = l.rack == 0 ? 1 : 2;
        EXPECT_TRUE(l.solved);
        EXPECT_EQ(l.why, "first");
        EXPECT_EQ(l.plan.method, "milp");
        EXPECT_EQ(l.jobs, 1u);
        // Its plan is about its own job only.
        EXPECT_EQ(l.plan.start.size(), 1u);
        EXPECT_EQ(l.plan.start.count({mine, 0}), 1u) << "rack " << l.rack;
        EXPECT_EQ(l.plan.start.count({3, 0}), 0u);
    }
    // One MILP per rack, none for the cross-rack job.
    EXPECT_EQ(solver.calls.size(), 2u);
    EXPECT_EQ(h.plan.start.count({3, 0}), 1u);
    EXPECT_TRUE(CheckPlan(in, h.plan));
}

TEST(HarmonicsPlannerTest, CoordinatorKeepsEveryUplinkAndEveryAggregateWithinCapacity)
{
    // Three cross-rack rings, each filling the uplink of the spine it takes:
    // each rack has two uplinks per direction, so two run at once, on
    // different spines, and the third waits.
    PlanInstance in;
    in.horizon = 10;
    for (uint32_t j = 0; j < 3; ++j)
    {
        in.jobs.push_back(Job(j, 1, {CrossColl(0, 2, 1, j, j)}));
    }
    const RackUplinks uplinks = TwoRacksTwoSpines();
    const CoordinatorPlan c = PlanCoordinator(in, uplinks);
    std::string why;
    EXPECT_TRUE(CheckPlan(in, c.plan, &why)) << why;
    // Aggregates recomputed from the plan: rack and direction -> per slot, over capacity 2.
    std::map<UplinkGroup, std::vector<double>> aggregate;
    for (const auto& [link, slots] : PlanUsage(in, c.plan))
    {
        auto u = uplinks.find(link);
        if (u == uplinks.end())
        {
            continue;
        }
        auto& a = aggregate[{u->second.rack, u->second.up}];
        a.resize(in.horizon, 0.0);
        for (int64_t t = 0; t < in.horizon; ++t)
        {
            a[t] += slots[t] / 2.0;
        }
    }
    ASSERT_EQ(aggregate.size(), 4u);
    for (const auto& [group, slots] : aggregate)
    {
        for (int64_t t = 0; t < in.horizon; ++t)
        {
            EXPECT_LE(slots[t], 1.0 + 1e-9) << "rack " << group.first << " slot " << t;
            EXPECT_NEAR(c.aggregate.at(group)[t], slots[t], 1e-9);
        }
    }
    // Two at slot 0 on different spines, the third when one is done.
    std::vector<uint32_t> atZero;
    for (uint32_t j = 0; j < 3; ++j)
    {
        if (c.plan.start.at({j, 0}) == 0)
        {
            atZero.push_back(c.plan.RouteOf(j, 0));
        }
        else
        {
            EXPECT_EQ(c.plan.start.at({j, 0}), 2);
        }
    }
    ASSERT_EQ(atZero.size(), 2u);
    EXPECT_NE(atZero[0], atZero[1]);
}

TEST(HarmonicsPlannerTest, CoordinatorCountsReservedUplinkLoadInTheAggregate)
{
    // Spine 0's uplinks of rack 0 are taken in slots 0-2 by a running
    // collective: the ring fits only through spine 1 there.
    PlanInstance in;
    in.horizon = 8;
    in.jobs = {Job(0, 1, {CrossColl(0, 2, 1, 0, 0)}), Job(1, 1, {CrossColl(0, 2, 1, 1, 1)})};
    for (uint32_t link : {Up(0, 0), Down(0, 0)})
    {
        in.reserved[link] = std::vector<double>(in.horizon, 0.0);
        for (int64_t t = 0; t < 3; ++t)
        {
            in.reserved[link][t] = 1.0;
        }
    }
    const CoordinatorPlan c = PlanCoordinator(in, TwoRacksTwoSpines());
    std::string why;
    EXPECT_TRUE(CheckPlan(in, c.plan, &why)) << why;
    // Rack 0 up: half its aggregate reserved in slots 0-2, the other half for one ring.
    EXPECT_NEAR(c.aggregate.at({0, true})[0], 1.0, 1e-9);
    std::map<int64_t, uint32_t> starts;
    for (uint32_t j = 0; j < 2; ++j)
    {
        ++starts[c.plan.start.at({j, 0})];
        if (c.plan.start.at({j, 0}) < 3)
        {
            EXPECT_EQ(c.plan.RouteOf(j, 0), 1u);
        }
    }
    EXPECT_EQ(starts[0], 1u);
    EXPECT_EQ(starts[2], 1u);
}

TEST(HarmonicsPlannerTest, AnAggregateThatFitsNeedsASpineAssignmentThatFits)
{
    // Rack 0's uplinks out are 60% taken on both spines in slots 0-2: the
    // aggregate has room for a ring using 60% of one uplink (0.6 + 0.3 of
    // the two uplinks' capacity) but no single uplink has, so the ring waits.
    PlanInstance in;
    in.horizon = 8;
    PlanCollective c = CrossColl(0, 2, 1, 0, 0);
    for (auto* usage : {&c.usage, &c.alternatives[0].usage})
    {
        for (auto& [link, share] : *usage)
        {
            share = 0.6;
        }
    }
    in.jobs = {Job(0, 1, {c})};
    for (uint32_t link : {Up(0, 0), Up(0, 1)})
    {
        in.reserved[link] = std::vector<double>(in.horizon, 0.0);
        for (int64_t t = 0; t < 3; ++t)
        {
            in.reserved[link][t] = 0.6;
        }
    }
    const CoordinatorPlan p = PlanCoordinator(in, TwoRacksTwoSpines());
    std::string why;
    EXPECT_TRUE(CheckPlan(in, p.plan, &why)) << why;
    EXPECT_EQ(p.plan.start.at({0, 0}), 3);
    EXPECT_NEAR(p.aggregate.at({0, true})[0], 0.6, 1e-9);
}

TEST(HarmonicsPlannerTest, WithOneUplinkPerRackAndOneRouteTheCoordinatorIsSmithsGreedy)
{
    // One uplink per rack and direction: each aggregate is that link, so the
    // coordinator places a single-route instance exactly as GreedyPlan does
    // (the case of the scheduling-time benchmark).
    std::mt19937 rng(7);
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const double shares[] = {0.25, 0.5, 1.0};
    for (int trial = 0; trial < 50; ++trial)
    {
        const int racks = pick(2, 4);
        RackUplinks uplinks;
        for (int r = 0; r < racks; ++r)
        {
            uplinks[Up(r, 0)] = {r, true, 1.0};
            uplinks[Down(r, 0)] = {r, false, 1.0};
        }
        PlanInstance in;
        in.horizon = pick(6, 12);
        const int jobs = pick(2, 5);
        for (int j = 0; j < jobs; ++j)
        {
            const uint32_t a = static_cast<uint32_t>(pick(0, racks - 1));
            const uint32_t b = (a + static_cast<uint32_t>(pick(1, racks - 1))) % racks;
            const double u = shares[pick(0, 2)];
            std::map<uint32_t, double> usage = {{HostUp(a, pick(0, 3)), 1.0},
                                                {HostDown(b, pick(0, 3)), 1.0},
                                                {Up(a, 0), u},
                                                {Down(b, 0), u}};
            PlanJob job = Job(static_cast<uint32_t>(j), pick(0, 2), {});
            for (int k = 0; k < pick(1, 2); ++k)
            {
                job.collectives.push_back(
                    Coll(k == 0 ? pick(0, 3) : 0, pick(1, 3), pick(1, 3), usage));
            }
            in.jobs.push_back(job);
        }
        const CoordinatorPlan c = PlanCoordinator(in, uplinks);
        const Plan g = GreedyPlan(in);
        EXPECT_EQ(c.plan.start, g.start) << "trial " << trial;
        EXPECT_DOUBLE_EQ(c.plan.objective, g.objective);
    }
}

TEST(HarmonicsPlannerTest, LocalPlansRespectTheCoordinatorsReservations)
{
    // The cross-rack ring (heavier) and rack 0's local job share host 0's
    // links: the coordinator places the ring, the local plan goes around it.
    PlanInstance in;
    in.horizon = 12;
    in.jobs = {Job(1, 1, {Coll(0, 3, 1, LocalRing(0, 0, 1))}),
               Job(3, 1, {CrossColl(0, 2, 4, 0, 0)})};
    const std::map<uint32_t, int32_t> rack{{1, 0}, {3, -1}};
    const HarmonicsPlan h = PlanHarmonics(in, rack, TwoRacksTwoSpines(), CbcMilpSolver(), Exact());
    std::string why;
    EXPECT_TRUE(CheckPlan(in, h.plan, &why)) << why;
    EXPECT_EQ(h.plan.start.at({3, 0}), 0);
    EXPECT_GE(h.plan.start.at({1, 0}), 2);
}

/// Rack \p rack's two contending jobs \p a and \p b (hosts 0 and 1), two collectives each.
std::vector<PlanJob>
RackJobs(uint32_t rack, uint32_t a, uint32_t b, int64_t ready)
{
    return {
        Job(a, 1, {Coll(ready, 2, 1, LocalRing(rack, 0, 1)), Coll(0, 2, 1, LocalRing(rack, 0, 1))}),
        Job(b,
            1,
            {Coll(ready, 2, 2, LocalRing(rack, 0, 1)), Coll(0, 2, 2, LocalRing(rack, 0, 1))})};
}

class HarmonicsIncrementalTest : public ::testing::Test
{
  protected:
    // Slots of 10 us; the second plan's origin is 2.5 slots after the first's.
    const Time kSlot = MicroSeconds(10);
    const Time kFirst = MilliSeconds(1);
    const Time kSecond = MilliSeconds(1) + MicroSeconds(25);

    HarmonicsInput Input(Time origin) const
    {
        HarmonicsInput in;
        in.jobRack = {{1, 0}, {2, 0}, {3, 1}, {4, 1}, {5, -1}, {6, 0}};
        in.uplinks = TwoRacksTwoSpines();
        in.origin = origin;
        in.slot = kSlot;
        return in;
    }

    /// Rack 0: jobs 1 and 2; rack 1: jobs 3 and 4; job 5 crosses; all ready at \p ready.
    PlanInstance Instance(int64_t ready, bool withJob6) const
    {
        PlanInstance in;
        in.horizon = 20;
        for (const PlanJob& j : RackJobs(0, 1, 2, ready))
        {
            in.jobs.push_back(j);
        }
        for (const PlanJob& j : RackJobs(1, 3, 4, ready))
        {
            in.jobs.push_back(j);
        }
        in.jobs.push_back(Job(5, 1, {CrossColl(ready, 2, 1, 2, 2)}));
        if (withJob6)
        {
            // Arrives in rack 0, ready with the others, heavier than they are.
            in.jobs.push_back(Job(6, 1, {Coll(ready, 2, 5, LocalRing(0, 0, 1))}));
        }
        return in;
    }
};

TEST_F(HarmonicsIncrementalTest, AChangeInOneRackResolvesThatRackOnlyTheOthersKeepTheirStarts)
{
    HarmonicsPlanner planner;
    RecordingSolver solver;
    // First plan at kFirst: every job ready in 5 slots.
    const HarmonicsPlan first = planner.Replan(Instance(5, false), Input(kFirst), solver, Exact());
    ASSERT_EQ(solver.calls.size(), 2u);
    std::map<std::pair<uint32_t, uint32_t>, Time> before;
    for (uint32_t j : {1u, 2u, 3u, 4u})
    {
        for (uint32_t k = 0; k < 2; ++k)
        {
            before[{j, k}] = kFirst + kSlot * first.plan.start.at({j, k});
        }
    }
    // 2.5 slots later job 6 arrives in rack 0; the others are ready in 2.5
    // slots (3 whole slots from the new origin).
    const PlanInstance second = Instance(3, true);
    const HarmonicsPlan h = planner.Replan(second, Input(kSecond), solver, Exact());
    ASSERT_EQ(solver.calls.size(), 3u) << "only rack 0 is solved again";
    std::string why;
    EXPECT_TRUE(CheckPlan(second, h.plan, &why)) << why;
    ASSERT_EQ(h.locals.size(), 2u);
    EXPECT_TRUE(h.locals[0].solved);
    EXPECT_EQ(h.locals[0].why, "jobs");
    EXPECT_FALSE(h.locals[1].solved);
    for (uint32_t j : {3u, 4u})
    {
        for (uint32_t k = 0; k < 2; ++k)
        {
            // The same absolute start, kept exactly off the new slot grid...
            ASSERT_EQ(h.keptStart.count({j, k}), 1u);
            EXPECT_EQ(h.keptStart.at({j, k}), before.at({j, k})) << "job " << j << " k " << k;
            // ...and in the plan at the first slot not before it.
            const int64_t s = h.plan.start.at({j, k});
            EXPECT_GE(kSecond + kSlot * s, before.at({j, k}));
            EXPECT_LT(kSecond + kSlot * (s - 1), before.at({j, k}));
        }
    }
    EXPECT_EQ(h.keptStart.count({1, 0}), 0u);

    // Rack 1 disturbed (a collective ended off its plan): rack 1 alone is
    // solved again; rack 0, unchanged since, keeps its plan.
    HarmonicsInput disturbed = Input(kSecond);
    disturbed.disturbed = {1};
    const HarmonicsPlan third = planner.Replan(second, disturbed, solver, Exact());
    ASSERT_EQ(solver.calls.size(), 4u);
    EXPECT_FALSE(third.locals[0].solved);
    EXPECT_TRUE(third.locals[1].solved);
    EXPECT_EQ(third.locals[1].why, "disturbed");
    EXPECT_TRUE(CheckPlan(second, third.plan, &why)) << why;
}

TEST_F(HarmonicsIncrementalTest, ARackWhoseCollectivesAreAllPastTheHorizonKeepsItsPlan)
{
    // Every job's next collective is ready at the horizon (20 slots) or later:
    // no plan can start any of them, so there is nothing to decide.
    HarmonicsPlanner planner;
    RecordingSolver solver;
    const HarmonicsPlan first = planner.Replan(Instance(20, false), Input(kFirst), solver, Exact());
    ASSERT_EQ(solver.calls.size(), 2u); // first plan: both racks
    for (uint32_t j : {1u, 2u, 3u, 4u})
    {
        EXPECT_EQ(first.plan.start.at({j, 0}), 20) << "job " << j << " deferred";
    }
    // 2.5 slots later they are still out of reach (ready at the new horizon):
    // both racks keep their plans, no solve, every collective deferred.
    const PlanInstance later = Instance(20, false);
    const HarmonicsPlan h = planner.Replan(later, Input(kSecond), solver, Exact());
    EXPECT_EQ(solver.calls.size(), 2u) << "no rack is solved again";
    ASSERT_EQ(h.locals.size(), 2u);
    for (const auto& l : h.locals)
    {
        EXPECT_FALSE(l.solved) << "rack " << l.rack;
    }
    std::string why;
    EXPECT_TRUE(CheckPlan(later, h.plan, &why)) << why;
    for (uint32_t j : {1u, 2u, 3u, 4u})
    {
        for (uint32_t k = 0; k < 2; ++k)
        {
            EXPECT_EQ(h.plan.start.at({j, k}), 20) << "job " << j << " k " << k;
            EXPECT_EQ(h.keptStart.count({j, k}), 0u);
        }
    }
    // Once rack 0's jobs come within reach (ready at slot 4), rack 0 is
    // solved again and places them; rack 1's, still past the horizon, keep.
    PlanInstance reach = Instance(20, false);
    for (PlanJob& j : reach.jobs)
    {
        if (j.id == 1 || j.id == 2)
        {
            j.collectives[0].readySlot = 4;
        }
    }
    const HarmonicsPlan r = planner.Replan(reach, Input(kSecond), solver, Exact());
    EXPECT_EQ(solver.calls.size(), 3u);
    ASSERT_EQ(r.locals.size(), 2u);
    EXPECT_TRUE(r.locals[0].solved);
    EXPECT_EQ(r.locals[0].why, "changed");
    EXPECT_FALSE(r.locals[1].solved);
    EXPECT_LT(r.plan.start.at({1, 0}), 20);
    EXPECT_LT(r.plan.start.at({2, 0}), 20);
    EXPECT_TRUE(CheckPlan(reach, r.plan, &why)) << why;
}

TEST_F(HarmonicsIncrementalTest, AResolvedRackStartsFromItsPreviousPlanFeasibly)
{
    HarmonicsPlanner planner;
    RecordingSolver solver;
    const HarmonicsPlan first = planner.Replan(Instance(5, false), Input(kFirst), solver, Exact());
    const HarmonicsPlan h = planner.Replan(Instance(3, true), Input(kSecond), solver, Exact());
    ASSERT_EQ(solver.calls.size(), 3u);
    const RecordingSolver::Call& rack0 = solver.calls.back();
    EXPECT_TRUE(h.locals[0].warmStart);
    EXPECT_EQ(h.locals[0].carried, 4u);
    ASSERT_FALSE(rack0.warmStart.empty());
    EXPECT_TRUE(rack0.warmStartFeasible) << rack0.violation;
    EXPECT_TRUE(rack0.warmStartUsed);
    // Jobs 1 and 2 start where the first plan had them (at the first slot of
    // the new grid not before), job 6 after them, although it weighs most
    // (a plan from scratch would start it first).
    const auto starts = Decode(rack0);
    int64_t lastEnd = 0;
    for (uint32_t j : {1u, 2u})
    {
        for (uint32_t k = 0; k < 2; ++k)
        {
            const Time was = kFirst + kSlot * first.plan.start.at({j, k});
            const int64_t s = starts.at({j, k});
            EXPECT_GE(kSecond + kSlot * s, was);
            EXPECT_LT(kSecond + kSlot * (s - 1), was);
            lastEnd = std::max(lastEnd, s + 2);
        }
    }
    EXPECT_GE(starts.at({6, 0}), lastEnd);
    const Plan greedy = GreedyPlan([&] {
        PlanInstance rack;
        rack.horizon = 20;
        for (const PlanJob& j : Instance(3, true).jobs)
        {
            if (j.id == 1 || j.id == 2 || j.id == 6)
            {
                rack.jobs.push_back(j);
            }
        }
        return rack;
    }());
    EXPECT_LT(greedy.start.at({6, 0}), starts.at({6, 0})) << "the start is not the greedy one";
}

// A packet-level run ----------------------------------------------------------

struct DecisionRow
{
    int64_t tNs;
    std::string kind;
    int64_t job;
    nlohmann::json detail;
};

std::vector<std::vector<std::string>>
Query(const std::string& dbPath, const std::string& sql)
{
    std::vector<std::vector<std::string>> rows;
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(dbPath.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
    while (sqlite3_step(st) == SQLITE_ROW)
    {
        std::vector<std::string> row;
        for (int i = 0; i < sqlite3_column_count(st); ++i)
        {
            const unsigned char* v = sqlite3_column_text(st, i);
            row.emplace_back(v ? reinterpret_cast<const char*>(v) : "");
        }
        rows.push_back(std::move(row));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rows;
}

class HarmonicsRunTest : public test::ScenarioRunTest
{
  protected:
    /// Run \p spec under Harmonics with plans taking effect at once (a modelled
    /// solve is longer than these scaled-down iterations, and the tests are
    /// about what the plans decide); every job must finish.
    static RunOutcome RunPlansAtOnce(const ScenarioSpec& spec)
    {
        Config::SetDefault("ns3::EpochScheduler::SolveTime",
                           EnumValue(EpochScheduler::SOLVE_TIME_NONE));
        const RunOutcome o = ScenarioRunner(spec, "test").Run("harmonics");
        Config::SetDefault("ns3::EpochScheduler::SolveTime",
                           EnumValue(EpochScheduler::SOLVE_TIME_MODELLED));
        for (const JobOutcome& j : o.jobs)
        {
            EXPECT_TRUE(j.done);
        }
        return o;
    }
};

TEST_F(HarmonicsRunTest, DecisionsNameTheirTierAndACrossRackJobOpensOnceForBothRacks)
{
    // Job 0 crosses the racks (hosts 0 and 2); jobs 1 and 2 stay in racks 0
    // and 1 and share a host with job 0, so plans hold some of them back.
    ScenarioSpec spec = TwoLeaves(2);
    spec.name = "harmonics-test";
    spec.jobs = {Job(0, {0, 2}, 2000000, MicroSeconds(300), 4),
                 Job(1, {0, 1}, 2000000, MicroSeconds(300), 4),
                 Job(2, {2, 3}, 2000000, MicroSeconds(300), 4)};
    spec.output.db = (m_dir / "tiers.db").string();
    const RunOutcome o = RunPlansAtOnce(spec);
    const std::string run = std::to_string(o.runIds.at(0));
    std::vector<DecisionRow> decisions;
    for (const auto& r :
         Query(spec.output.db,
               "SELECT t_ns, kind, COALESCE(job_id, -1), detail_json FROM scheduler_decisions "
               "WHERE run_id=" +
                   run + " ORDER BY rowid"))
    {
        decisions.push_back(
            {std::stoll(r[0]), r[1], std::stoll(r[2]), nlohmann::json::parse(r[3])});
    }
    const std::map<int64_t, nlohmann::json> expected = {{0, {{"tier", "coordinator"}}},
                                                        {1, {{"tier", "local"}, {"rack", 0}}},
                                                        {2, {{"tier", "local"}, {"rack", 1}}}};
    uint32_t plans = 0;
    uint32_t kept = 0;
    uint32_t warm = 0;
    std::vector<int64_t> job0Planned; // when job 0's planned starts opened its gate
    for (const DecisionRow& d : decisions)
    {
        if (d.detail.contains("tiers"))
        {
            ++plans;
            for (const auto& [job, tier] : d.detail["tiers"].items())
            {
                EXPECT_EQ(tier, expected.at(std::stoll(job))) << d.detail.dump();
            }
            for (const auto& l : d.detail["locals"])
            {
                kept += l["solved"].get<bool>() ? 0 : 1;
                warm += l.value("warm_start", false) ? 1 : 0;
            }
            if (d.detail["tiers"].contains("0"))
            {
                EXPECT_EQ(d.detail["coordinator"]["jobs"].get<int>(), 1);
                EXPECT_GT(d.detail["coordinator"]["choices"].get<int>(), 0);
            }
        }
        if (d.kind == "planned-start" && d.detail.contains("tier"))
        {
            nlohmann::json t = {{"tier", d.detail["tier"]}};
            if (d.detail.contains("rack"))
            {
                t["rack"] = d.detail["rack"];
            }
            EXPECT_EQ(t, expected.at(d.job)) << d.detail.dump();
        }
    }
    EXPECT_GT(plans, 3u);
    // Racks whose jobs did not move kept their plans; re-solved ones started from theirs.
    EXPECT_GT(kept, 0u);
    EXPECT_GT(warm, 0u);

    // Job 0's gate: one opening per collective, one instant for its NICs in
    // both racks, at the collective's start; no message of that collective,
    // from either rack, done before it.
    const auto gates = Query(spec.output.db,
                             "SELECT t_ns FROM gates WHERE run_id=" + run +
                                 " AND job_id=0 AND open=1 ORDER BY t_ns");
    const auto collectives = Query(spec.output.db,
                                   "SELECT iteration, start_ns FROM collectives "
                                   "WHERE run_id=" +
                                       run + " AND job_id=0 ORDER BY iteration");
    ASSERT_EQ(collectives.size(), 4u);
    ASSERT_EQ(gates.size(), collectives.size());
    for (std::size_t i = 0; i < collectives.size(); ++i)
    {
        const auto& c = collectives[i];
        const int64_t start = std::stoll(c[1]);
        EXPECT_EQ(std::stoll(gates[i][0]), start) << "iteration " << c[0];
        const auto ends = Query(spec.output.db,
                                "SELECT src_node, MIN(end_ns) FROM flows WHERE run_id=" + run +
                                    " AND job_id=0 AND iteration=" + c[0] + " GROUP BY src_node");
        ASSERT_EQ(ends.size(), 2u) << "both hosts, one per rack, send";
        for (const auto& e : ends)
        {
            EXPECT_GT(std::stoll(e[1]), start) << "host node " << e[0];
        }
    }
}

TEST_F(HarmonicsRunTest, OnARailOptimizedFabricTheRailGroupIsTheLocalSchedulersRack)
{
    // 4 servers of 4 GPUs, a NIC each, in rail groups of two servers under two spines.
    ScenarioSpec spec = TwoLeaves(1);
    spec.name = "harmonics-rail-test";
    spec.topology.kind = "rail-optimized";
    spec.topology.Set("servers", UintegerValue(4))
        .Set("gpusPerServer", UintegerValue(4))
        .Set("serversPerGroup", UintegerValue(2))
        .Set("spines", UintegerValue(2));
    // The NIC of GPU g of server s, found by its name.
    const FabricTopology topo = spec.topology.MakeBuilder()->Build();
    auto nic = [&topo](uint32_t server, uint32_t gpu) {
        const std::string name = "host-s" + std::to_string(server) + "-g" + std::to_string(gpu);
        for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
        {
            if (topo.GetNode(topo.GetHosts()[h]).name == name)
            {
                return h;
            }
        }
        throw std::out_of_range(name);
    };
    // Rail-aligned rings. Job 0: servers 0 and 1 (group 0), GPUs 0-1; job 1: servers 1
    // and 2 (groups 0 and 1), GPUs 2-3; job 2: servers 2 and 3 (group 1), GPUs 0-1.
    spec.jobs = {
        Job(0, {nic(0, 0), nic(0, 1), nic(1, 1), nic(1, 0)}, 2000000, MicroSeconds(300), 3),
        Job(1, {nic(1, 2), nic(1, 3), nic(2, 3), nic(2, 2)}, 2000000, MicroSeconds(300), 3),
        Job(2, {nic(2, 0), nic(2, 1), nic(3, 1), nic(3, 0)}, 2000000, MicroSeconds(300), 3)};
    for (JobSpec& j : spec.jobs)
    {
        j.gpusPerHost = 1;
    }
    spec.output.db = (m_dir / "rail-tiers.db").string();
    const RunOutcome o = RunPlansAtOnce(spec);
    const std::map<int64_t, nlohmann::json> expected = {{0, {{"tier", "local"}, {"rack", 0}}},
                                                        {1, {{"tier", "coordinator"}}},
                                                        {2, {{"tier", "local"}, {"rack", 1}}}};
    uint32_t plans = 0;
    std::set<int64_t> localRacks;
    for (const auto& r :
         Query(spec.output.db,
               "SELECT COALESCE(job_id, -1), kind, detail_json FROM scheduler_decisions "
               "WHERE run_id=" +
                   std::to_string(o.runIds.at(0)) + " ORDER BY rowid"))
    {
        const nlohmann::json detail = nlohmann::json::parse(r[2]);
        if (detail.contains("tiers"))
        {
            ++plans;
            for (const auto& [job, tier] : detail["tiers"].items())
            {
                EXPECT_EQ(tier, expected.at(std::stoll(job))) << detail.dump();
            }
            for (const auto& l : detail["locals"])
            {
                // Each group's Local Scheduler plans its one job.
                localRacks.insert(l["rack"].get<int64_t>());
                EXPECT_EQ(l["jobs"].get<int>(), 1) << detail.dump();
            }
            if (detail["tiers"].contains("1"))
            {
                EXPECT_EQ(detail["coordinator"]["jobs"].get<int>(), 1) << detail.dump();
            }
        }
        if (r[1] == "planned-start" && detail.contains("tier"))
        {
            nlohmann::json t = {{"tier", detail["tier"]}};
            if (detail.contains("rack"))
            {
                t["rack"] = detail["rack"];
            }
            EXPECT_EQ(t, expected.at(std::stoll(r[0]))) << detail.dump();
        }
    }
    EXPECT_GT(plans, 0u);
    EXPECT_EQ(localRacks, (std::set<int64_t>{0, 1}));
}

} // namespace

namespace
{

TEST(HarmonicsPlannerTest, CoordinatorTakesTheJointRouteAmongEqualChoices)
{
    // Job 0 may take either spine; job 1 only spine 0. Alone, job 0's routes
    // are equally good; the joint assignment puts it on spine 1, which leaves
    // spine 0 to job 1, so both start at once. The lowest route (spine 0)
    // would make job 1 wait for job 0.
    PlanInstance in;
    in.horizon = 8;
    PlanCollective a = CrossColl(0, 2, 2, 0, 0);
    a.jointRoute = 1;
    PlanCollective b = Coll(0, 2, 1, CrossRing(1, 1, 0));
    b.jointRoute = 0;
    in.jobs = {Job(0, 1, {a}), Job(1, 1, {b})};
    const CoordinatorPlan c = PlanCoordinator(in, TwoRacksTwoSpines());
    std::string why;
    EXPECT_TRUE(CheckPlan(in, c.plan, &why)) << why;
    EXPECT_EQ(c.plan.RouteOf(0, 0), 1u);
    EXPECT_EQ(c.plan.start.at({0, 0}), 0);
    EXPECT_EQ(c.plan.start.at({1, 0}), 0);
    // Without the hint the tie goes to the lowest route, and job 1 waits.
    in.jobs[0].collectives[0].jointRoute = -1;
    const CoordinatorPlan lowest = PlanCoordinator(in, TwoRacksTwoSpines());
    EXPECT_EQ(lowest.plan.RouteOf(0, 0), 0u);
    EXPECT_EQ(lowest.plan.start.at({1, 0}), 2);
}

} // namespace
