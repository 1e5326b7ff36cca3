/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A job's iteration as a graph of compute, collectives on groups and
 * transfers: the graph's checks, the data-parallel graph's arithmetic, and
 * TrainingJob running graphs over a transport of fixed delay, against times
 * worked out by hand from the ops' durations and the messages' delays.
 */
#include "ns3/collective-transport.h"
#include "ns3/job-graph.h"
#include "ns3/simulator.h"
#include "ns3/training-job.h"

#include <gtest/gtest.h>
#include <map>
#include <set>

namespace ns3
{
namespace test
{
namespace
{

/// Every message arrives a fixed delay after it is posted; records them all.
class DelayTransport : public CollectiveTransport
{
  public:
    explicit DelayTransport(Time delay)
        : m_delay(delay)
    {
    }

    void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override
    {
        Post(m, std::move(onDelivered), nullptr);
    }

    void Post(const CollectiveMessage& m,
              std::function<void()> onDelivered,
              FailedCallback onFailed) override
    {
        posted.push_back({m, m_op, Simulator::Now()});
        if (failOp >= 0 && m_op == static_cast<uint32_t>(failOp))
        {
            Simulator::Schedule(m_delay, [onFailed]() { onFailed("test failure"); });
            return;
        }
        Simulator::Schedule(m_delay, std::move(onDelivered));
    }

    void BeginCollective(const CollectiveTag& tag) override
    {
        m_op = tag.index;
    }

    struct Posted
    {
        CollectiveMessage m;
        uint32_t op;
        Time when;
    };

    std::vector<Posted> posted;
    int failOp{-1}; ///< the messages of this communication op fail

  private:
    Time m_delay;
    uint32_t m_op{0};
};

class JobGraphRunTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// Run \p graph for \p iterations over \p transport; \return the job.
    Ptr<TrainingJob> Run(const JobGraph& graph, DelayTransport& transport, uint32_t iterations = 1)
    {
        JobSpec spec;
        spec.id = 7;
        spec.workers = graph.GetRankCount();
        spec.iterations = iterations;
        Ptr<TrainingJob> job = CreateObject<TrainingJob>();
        job->Setup(spec, graph, &transport);
        job->TraceConnectWithoutContext("CollectiveReady",
                                        MakeCallback(&JobGraphRunTest::Ready, this));
        job->TraceConnectWithoutContext("CollectiveStarted",
                                        MakeCallback(&JobGraphRunTest::Started, this));
        Simulator::ScheduleNow(&TrainingJob::Start, job);
        Simulator::Run();
        return job;
    }

    void Ready(uint32_t /* job */, uint32_t /* iteration */, uint32_t op)
    {
        ready[op] = Simulator::Now();
    }

    void Started(uint32_t /* job */, uint32_t /* iteration */, uint32_t op)
    {
        started[op] = Simulator::Now();
    }

    std::map<uint32_t, Time> ready;   ///< by communication op, last iteration
    std::map<uint32_t, Time> started; ///< by communication op, last iteration
};

TEST(JobGraphTest, RefusesWhatCannotRun)
{
    JobGraph g(4);
    const uint32_t a = g.AddCompute({0, 1}, MicroSeconds(1), {}, 0, "a");
    EXPECT_THROW(g.AddCompute({4}, MicroSeconds(1), {}, 0, "rank 4"), std::invalid_argument);
    EXPECT_THROW(g.AddCompute({0}, MicroSeconds(1), {a + 1}, 0, "later"), std::invalid_argument);
    EXPECT_THROW(g.AddCompute({}, MicroSeconds(1), {}, 0, "nobody"), std::invalid_argument);
    EXPECT_THROW(g.AddCompute({0}, MicroSeconds(-1), {}, 0, "negative"), std::invalid_argument);
    EXPECT_THROW(g.AddTransfer(2, 2, 10, CommGroup::Pipeline, {a}, 1, "self"),
                 std::invalid_argument);
    EXPECT_THROW(g.AddCollective("ring-all-reduce", {0, 1, 0}, 10, 1, CommGroup::Data, {}, 1),
                 std::invalid_argument);
    EXPECT_THROW(g.AddCollective("ring-all-reduce", {0, 1}, 10, 0, CommGroup::Data, {}, 1),
                 std::invalid_argument);
    EXPECT_THROW(JobGraph(0), std::invalid_argument);
    EXPECT_EQ(g.GetOps().size(), 1u);
    EXPECT_EQ(g.GetCommOpCount(), 0u);
}

TEST(JobGraphTest, DataParallelGraphSplitsComputeAndGradientsExactly)
{
    // C = 3,000,001 ps in 4 buckets of 1,000,003 bytes: bucket b is ready at
    // C/3 + (C*2/3)*(b+1)/4 (integer ps), the last at C; bytes split with the
    // remainder on the first buckets.
    const Time c = PicoSeconds(3000001);
    const JobGraph g = JobGraph::DataParallel(3, c, 1000003, 4, "ring-all-reduce", 2);
    ASSERT_EQ(g.GetOps().size(), 9u); // forward, 4 backward slices, 4 collectives
    EXPECT_EQ(g.GetCommOpCount(), 4u);
    EXPECT_EQ(g.GetComputeTimePerRank(), c);
    Time t = g.GetOp(0).duration;
    EXPECT_EQ(t, PicoSeconds(1000000));
    const int64_t twoThirds = 2000000; // (C * 2) / 3 in ps, as Time divides
    uint64_t bytes = 0;
    for (uint32_t b = 0; b < 4; ++b)
    {
        t += g.GetOp(1 + b).duration;
        const Time expected = b == 3 ? c : PicoSeconds(1000000 + twoThirds * (b + 1) / 4);
        EXPECT_EQ(t, expected) << "bucket " << b;
        const GraphOp& coll = g.GetOp(5 + b);
        EXPECT_EQ(coll.deps, std::vector<uint32_t>{1 + b});
        EXPECT_EQ(coll.commIndex, b);
        EXPECT_EQ(coll.channels, 2u);
        EXPECT_EQ(coll.bytes, 250000u + (b < 3 ? 1u : 0u));
        bytes += coll.bytes;
    }
    EXPECT_EQ(bytes, 1000003u);
}

TEST_F(JobGraphRunTest, OpsOfAStreamRunInTurnAndStreamsOverlap)
{
    // Rank 0 computes a (3 us) and b (2 us) on stream 0; c (4 us) on
    // stream 1 overlaps them; d waits on b and c. So b starts at 3, c ends
    // at 4, d starts at max(5, 4) = 5 and the iteration ends at 5 + 1 = 6 us.
    JobGraph g(1);
    const uint32_t a = g.AddCompute({0}, MicroSeconds(3), {}, 0, "a");
    const uint32_t b = g.AddCompute({0}, MicroSeconds(2), {}, 0, "b");
    const uint32_t c = g.AddCompute({0}, MicroSeconds(4), {}, 1, "c");
    g.AddCompute({0}, MicroSeconds(1), {b, c}, 2, "d");
    (void)a;
    DelayTransport t(MicroSeconds(1));
    Ptr<TrainingJob> job = Run(g, t, 2);
    ASSERT_TRUE(job->IsDone());
    EXPECT_EQ(job->GetEndTime(), MicroSeconds(12));
    EXPECT_EQ(job->GetIterations().at(1).computeStart, MicroSeconds(6));
    EXPECT_EQ(job->GetComputeTime(), MicroSeconds(10));
}

TEST_F(JobGraphRunTest, ABucketIsReadyAfterItsSliceAndStartsWhenTheStreamIsFree)
{
    // Two ranks, C = 30 us in 3 buckets: ready at 10 + 20 x (b+1)/3 us. A
    // 2-rank ring all-reduce is 2 steps of one message each, so a bucket
    // takes 2 x 10 us of delay: bucket 0 runs 16.67-36.67, bucket 1 is ready
    // at 23.33 but starts at 36.67, bucket 2 at 56.67, ending at 76.67 us.
    const Time c = MicroSeconds(30);
    const JobGraph g = JobGraph::DataParallel(2, c, 3000, 3, "ring-all-reduce", 1);
    DelayTransport t(MicroSeconds(10));
    Ptr<TrainingJob> job = Run(g, t);
    ASSERT_TRUE(job->IsDone());
    const Time first = c / 3 + (c * 2 / 3) * 1 / 3;
    EXPECT_EQ(ready.at(0), first);
    EXPECT_EQ(ready.at(1), c / 3 + (c * 2 / 3) * 2 / 3);
    EXPECT_EQ(ready.at(2), c);
    EXPECT_EQ(started.at(0), first);
    EXPECT_EQ(started.at(1), first + MicroSeconds(20));
    EXPECT_EQ(started.at(2), first + MicroSeconds(40));
    EXPECT_EQ(job->GetEndTime(), first + MicroSeconds(60));
    const TrainingJob::IterationRecord& r = job->GetIterations().at(0);
    EXPECT_EQ(r.commReady, first);
    EXPECT_EQ(r.commStart, first);
    EXPECT_EQ(r.commEnd, first + MicroSeconds(60));
}

TEST_F(JobGraphRunTest, ACollectiveOnAGroupSendsOnlyBetweenItsMembers)
{
    // Members 5, 2, 7 of an 8-rank job, in that ring order: a 3-rank ring
    // all-reduce of 3000 bytes sends 2(N-1) = 4 steps of 1000 bytes per
    // rank, each to the next member: 5 -> 2 -> 7 -> 5.
    JobGraph g(8);
    g.AddCollective("ring-all-reduce", {5, 2, 7}, 3000, 1, CommGroup::Tensor, {}, 0, "tp");
    DelayTransport t(MicroSeconds(1));
    Ptr<TrainingJob> job = Run(g, t);
    ASSERT_TRUE(job->IsDone());
    EXPECT_EQ(job->GetEndTime(), MicroSeconds(4));
    ASSERT_EQ(t.posted.size(), 12u);
    const std::map<uint32_t, uint32_t> next{{5, 2}, {2, 7}, {7, 5}};
    std::map<uint32_t, uint64_t> sent;
    for (const DelayTransport::Posted& p : t.posted)
    {
        ASSERT_TRUE(next.count(p.m.srcRank)) << "rank " << p.m.srcRank << " is no member";
        EXPECT_EQ(p.m.dstRank, next.at(p.m.srcRank));
        sent[p.m.srcRank] += p.m.bytes;
    }
    for (const auto& [rank, bytes] : sent)
    {
        EXPECT_EQ(bytes, 4000u) << "rank " << rank; // 2(N-1)/N x S
    }
}

TEST_F(JobGraphRunTest, TransfersChainStagesOfAPipeline)
{
    // A 3-stage pipeline of one micro-batch: each stage computes 5 us, then
    // sends its activations (1 us) to the next. The last stage ends at
    // 3 x 5 + 2 x 1 = 17 us; the transfers go 0 -> 1 -> 2.
    JobGraph g(3);
    std::vector<uint32_t> after;
    for (uint32_t s = 0; s < 3; ++s)
    {
        const uint32_t comp = g.AddCompute({s}, MicroSeconds(5), after, s, "f" + std::to_string(s));
        after = {comp};
        if (s + 1 < 3)
        {
            after = {g.AddTransfer(s, s + 1, 1000, CommGroup::Pipeline, {comp}, 3 + s)};
        }
    }
    DelayTransport t(MicroSeconds(1));
    Ptr<TrainingJob> job = Run(g, t);
    ASSERT_TRUE(job->IsDone());
    EXPECT_EQ(job->GetEndTime(), MicroSeconds(17));
    ASSERT_EQ(t.posted.size(), 2u);
    EXPECT_EQ(t.posted[0].m.srcRank, 0u);
    EXPECT_EQ(t.posted[0].m.dstRank, 1u);
    EXPECT_EQ(t.posted[0].when, MicroSeconds(5));
    EXPECT_EQ(t.posted[1].m.srcRank, 1u);
    EXPECT_EQ(t.posted[1].when, MicroSeconds(11));
}

TEST_F(JobGraphRunTest, AFailedTransferStopsTheJobAndStartsNothingAfterIt)
{
    JobGraph g(2);
    const uint32_t comp = g.AddCompute({0}, MicroSeconds(5), {}, 0);
    const uint32_t send = g.AddTransfer(0, 1, 1000, CommGroup::Pipeline, {comp}, 1);
    g.AddCollective("ring-all-reduce", {0, 1}, 1000, 1, CommGroup::Data, {send}, 2);
    DelayTransport t(MicroSeconds(1));
    t.failOp = 0;
    Ptr<TrainingJob> job = Run(g, t, 3);
    EXPECT_TRUE(job->IsFailed());
    EXPECT_FALSE(job->IsDone());
    EXPECT_EQ(job->GetFailure().commOp, 0u);
    EXPECT_EQ(job->GetFailure().when, MicroSeconds(6));
    EXPECT_EQ(t.posted.size(), 1u); // the all-reduce never started
    EXPECT_TRUE(job->GetIterations().empty());
}

} // namespace
} // namespace test
} // namespace ns3
