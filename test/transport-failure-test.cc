/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A queue pair that runs out of retries, up the stack: a collective's run
 * fails once and ignores what is still in flight (also a failure that comes
 * after the run finished), a training job records where it failed and
 * issues no more work, and a scenario run in which a host is cut off ends,
 * in bounded simulated time, marked failed with a reason naming the job,
 * the flow and the retry limit, the other job's rows recorded.
 */

#include "example-process-test-util.h"
#include "fabric-test-util.h"
#include "scenario-run-test.h"

#include "ns3/boolean.h"
#include "ns3/node-list.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

/**
 * A transport whose messages wait until the test delivers or fails them,
 * one by one, in any order.
 */
class ManualTransport : public CollectiveTransport
{
  public:
    struct Posted
    {
        CollectiveMessage m;
        std::function<void()> onDelivered;
        FailedCallback onFailed;
    };

    void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override
    {
        Post(m, std::move(onDelivered), nullptr);
    }

    void Post(const CollectiveMessage& m,
              std::function<void()> onDelivered,
              FailedCallback onFailed) override
    {
        posted.push_back({m, std::move(onDelivered), std::move(onFailed)});
    }

    void Deliver(std::size_t i)
    {
        posted.at(i).onDelivered();
    }

    void Fail(std::size_t i, const std::string& reason)
    {
        ASSERT_TRUE(posted.at(i).onFailed) << "posted without a failure callback";
        posted.at(i).onFailed(reason);
    }

    std::vector<Posted> posted;
};

TEST(CollectiveFailureTest, FailedMessageEndsTheRunOnceAndLateDeliveriesAreIgnored)
{
    // A 3-rank ring all-reduce posts one message per rank in step 0. Failing
    // the second ends the run: failed is called once with that message, done
    // never; delivering the other two afterwards posts nothing (step 1 would
    // otherwise follow each) and counts nothing; failing the third reports
    // nothing more. Without the run check, the late deliveries post step 1.
    ManualTransport t;
    Ptr<Collective> c = CreateCollective("ring-all-reduce", 1);
    c->Configure(3, 3000, &t);
    int done = 0;
    std::vector<std::pair<CollectiveMessage, std::string>> failures;
    c->Start([&done]() { ++done; },
             [&failures](const CollectiveMessage& m, const std::string& reason) {
                 failures.emplace_back(m, reason);
             });
    ASSERT_EQ(t.posted.size(), 3u);
    t.Fail(1, "lost");
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_EQ(failures[0].first.srcRank, 1u);
    EXPECT_EQ(failures[0].first.dstRank, 2u);
    EXPECT_EQ(failures[0].first.step, 0u);
    EXPECT_EQ(failures[0].second, "lost");
    EXPECT_FALSE(c->IsRunning());
    t.Deliver(0);
    t.Deliver(2);
    EXPECT_EQ(t.posted.size(), 3u) << "a failed run sends nothing more";
    EXPECT_EQ(c->GetMessagesDelivered(), 0u);
    t.Fail(2, "lost too");
    EXPECT_EQ(failures.size(), 1u) << "one failure per run";
    EXPECT_EQ(done, 0);
}

TEST(CollectiveFailureTest, FailureAfterTheRunFinishedIsReportedLate)
{
    // Two ranks, two steps: deliver everything and the run finishes; then a
    // message of that run fails (its sender gave up waiting for the last
    // ACK after the data arrived): failed is still called, once. A new run
    // started meanwhile is not disturbed by it. Dropping failures of
    // finished runs (a run check on failures) loses this report.
    ManualTransport t;
    Ptr<Collective> c = CreateCollective("ring-all-reduce", 1);
    c->Configure(2, 2000, &t);
    int done = 0;
    int failed = 0;
    auto onDone = [&done]() { ++done; };
    auto onFailed = [&failed](const CollectiveMessage&, const std::string&) { ++failed; };
    c->Start(onDone, onFailed);
    for (std::size_t i = 0; i < t.posted.size(); ++i)
    {
        t.Deliver(i); // each delivery may post the next step
    }
    ASSERT_EQ(done, 1);
    ASSERT_EQ(t.posted.size(), 4u);
    c->Start(onDone, nullptr); // a second run, no failure callback
    ASSERT_EQ(t.posted.size(), 6u);
    t.Fail(3, "final ACK never came");
    EXPECT_EQ(failed, 1);
    EXPECT_TRUE(c->IsRunning()) << "the current run goes on";
    t.Fail(2, "again");
    EXPECT_EQ(failed, 1) << "one failure per run";
}

TEST(CollectiveFailureDeathTest, FailureWithNoCallbackIsFatal)
{
    // Nobody listening is not a reason to ignore a failure.
    ManualTransport t;
    Ptr<Collective> c = CreateCollective("ring-all-reduce", 1);
    c->Configure(2, 2000, &t);
    c->Start([]() {});
    EXPECT_DEATH(t.Fail(0, "lost"), "failed: lost; Start was given no failure callback");
}

class JobFailureTest : public FabricTest
{
};

TEST_F(JobFailureTest, LateFailureStopsTheCollectiveRunningNow)
{
    // A 2-rank job, one bucket, compute 10 us, on a transport the test
    // drives. Iteration 0's collective (messages 0-3) completes at 10 us;
    // iteration 1's posts its step 0 (messages 4, 5) at 20 us. Then message
    // 3 of iteration 0 fails (its sender gave up on the final ACK): the job
    // fails, naming iteration 0 and that message, and stops the collective
    // running now, so delivering messages 4 and 5 posts no step 1, and
    // nothing is left to run. Without stopping it, step 1 (2 messages) is
    // posted and the job runs on.
    ManualTransport t;
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    JobSpec s;
    s.id = 3;
    s.workers = 2;
    s.iterations = 5;
    s.buckets = 1;
    job->Setup(s, MicroSeconds(10), 2000, &t);
    job->Start();
    Simulator::Stop(MicroSeconds(10));
    Simulator::Run();
    ASSERT_EQ(t.posted.size(), 2u);
    t.Deliver(0);
    t.Deliver(1);
    ASSERT_EQ(t.posted.size(), 4u);
    t.Deliver(2);
    t.Deliver(3);
    ASSERT_EQ(job->GetIterations().size(), 1u);
    Simulator::Stop(MicroSeconds(10));
    Simulator::Run();
    ASSERT_EQ(t.posted.size(), 6u) << "iteration 1's step 0";
    t.Fail(3, "retry count exceeded");
    ASSERT_TRUE(job->IsFailed());
    EXPECT_FALSE(job->IsDone());
    EXPECT_EQ(job->GetFailure().iteration, 0u);
    EXPECT_EQ(job->GetFailure().commOp, 0u);
    EXPECT_EQ(job->GetFailure().message.srcRank, t.posted[3].m.srcRank);
    EXPECT_EQ(job->GetFailure().message.step, 1u);
    EXPECT_EQ(job->GetFailure().reason, "retry count exceeded");
    EXPECT_EQ(job->GetFailure().when, MicroSeconds(20));
    t.Deliver(4);
    t.Deliver(5);
    EXPECT_EQ(t.posted.size(), 6u) << "no step 1 after the failure";
    Simulator::Run();
    EXPECT_EQ(Simulator::Now(), MicroSeconds(20)) << "nothing left to run";
    EXPECT_EQ(job->GetIterations().size(), 1u);
}

/**
 * Cut host \p host off the fabric: every frame its port or the switch port
 * facing it receives is dropped, both directions of its link dead. Found
 * through the node list, so it works on a fabric the test cannot reach.
 */
void
CutOffHost(uint32_t host)
{
    const uint32_t address = RoceHostAddress(host);
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        Ptr<RdmaNic> nic = (*it)->GetObject<RdmaNic>();
        if (!nic || nic->GetAddress() != address)
        {
            continue;
        }
        Ptr<RoceNetDevice> port = nic->GetPort();
        Ptr<RoceChannel> link = DynamicCast<RoceChannel>(port->GetChannel());
        for (std::size_t end = 0; end < 2; ++end)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(1.0);
            link->GetRoceDevice(end)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
        return;
    }
    FAIL() << "no host " << host;
}

TEST_F(JobFailureTest, JobRecordsTheFailureAndIssuesNoMoreWork)
{
    // One 2-rank job on a star, 1000 iterations; host 1 is cut off at
    // 300 us. Both directions of the ring die, so the queue pairs of both
    // hosts run out of retries (RetryCount 1, T = 4.096 us x 2^6 =
    // 262.144 us: 2 timeouts, about 524 us after the cut). The job fails
    // once (the second queue pair's failure finds it failed), in the
    // iteration it was in, posts no message after it, is neither done nor
    // finished, and the simulation ends by itself with nothing left to run.
    // A failure lost on the way up (the transport not hearing the NIC's
    // SendFailed) leaves the job hanging: no failure, not failed.
    RoceFabricHelper helper;
    helper.SetCongestionControl("none");
    helper.SetNicAttribute("AdaptiveRetransmission", BooleanValue(false));
    helper.SetNicAttribute("AckTimeoutExponent", UintegerValue(6));
    helper.SetNicAttribute("RetryCount", UintegerValue(1));
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(2));
    Ptr<TrainingCluster> cluster = CreateObject<TrainingCluster>();
    cluster->Setup(fabric, 1);
    JobSpec s;
    s.id = 7;
    s.model = "gpt2-124m";
    s.dtype = "bf16";
    s.workers = 2;
    s.iterations = 1000;
    s.buckets = 2;
    s.scale = 1e-3;             // 248 KB of gradients
    s.computeTimeNs = 50000000; // x scale: 50 us
    cluster->AddJob(s);
    std::vector<Time> posts;
    for (uint32_t h : {0u, 1u})
    {
        fabric->GetNic(h)->TraceConnectWithoutContext(
            "SendStarted",
            MakeCallback(+[](std::vector<Time>* v, const RdmaMessageInfo&) {
                v->push_back(Simulator::Now());
            }).Bind(&posts));
    }
    std::vector<std::pair<uint32_t, TrainingJob::Failure>> failures;
    cluster->TraceConnectWithoutContext(
        "JobFailed",
        MakeCallback(+[](std::vector<std::pair<uint32_t, TrainingJob::Failure>>* v,
                         uint32_t job,
                         const TrainingJob::Failure& f) {
            v->emplace_back(job, f);
        }).Bind(&failures));
    const Time cut = MicroSeconds(300);
    Simulator::Schedule(cut, &CutOffHost, 1);
    Simulator::Run();
    ASSERT_EQ(failures.size(), 1u);
    const TrainingJob::Failure& f = failures[0].second;
    EXPECT_EQ(failures[0].first, 7u);
    Ptr<TrainingJob> job = cluster->GetJobs()[0]->job;
    EXPECT_TRUE(job->IsFailed());
    EXPECT_FALSE(job->IsDone());
    EXPECT_EQ(cluster->GetFailedJobs(), 1u);
    EXPECT_EQ(cluster->GetFinishedJobs(), 0u);
    EXPECT_EQ(f.iteration, job->GetIterations().size()) << "the iteration it was in";
    EXPECT_LT(f.commOp, 2u);
    EXPECT_NE(f.reason.find("retry count exceeded (2 timeouts of 0.262144 ms"), std::string::npos)
        << f.reason;
    EXPECT_NE(f.reason.find("flow "), std::string::npos) << f.reason;
    // Two timeouts after the last progress, which came before the cut.
    EXPECT_GT(f.when, cut + NanoSeconds(262144));
    // At the latest the first packet into the dead link left after a compute
    // phase (50 us) that began before the cut.
    EXPECT_LE(f.when, cut + MicroSeconds(50) + NanoSeconds(2 * 262144) + MicroSeconds(10));
    ASSERT_FALSE(posts.empty());
    EXPECT_LE(posts.back(), f.when) << "no message is posted after the failure";
    EXPECT_LT(Simulator::Now(), f.when + NanoSeconds(262144))
        << "the run ends by itself soon after the failure";
    EXPECT_EQ(fabric->GetNic(0)->GetActiveSendQueuePairs(), 0u);
    EXPECT_EQ(fabric->GetNic(1)->GetActiveSendQueuePairs(), 0u);
}

class ScenarioFailureTest : public ScenarioRunTest
{
  protected:
    void TearDown() override
    {
        Config::Reset(); // the NIC defaults the test set
        ScenarioRunTest::TearDown();
    }
};

TEST_F(ScenarioFailureTest, CutOffHostFailsTheRunWithTheReasonInTheDatabase)
{
    // Job 0 on hosts {0, 2} (3 iterations), job 1 on hosts {1, 3} (1000
    // iterations); host 3 is cut off at 2 ms, when job 0 has long finished
    // and job 1 is still training. The scenario's fabric states its
    // timeouts: rto 0 (the InfiniBand local ACK timeout), exponent 10
    // (T = 4.096 us x 2^10 = 4.194304 ms), RetryCount 7. A queue pair of job
    // 1 that last made progress before the cut expires 8 times in a row
    // (the first no later than T after the first packet sent into the dead
    // link, itself no later than the cut plus one compute phase of 100 us)
    // and fails; the run stops there. So the simulation never reaches the
    // cut + 100 us + 8 T + 1 ms, and it passes the cut + 7 T. Without
    // stopping the run at the failure it runs on to the later bound (an
    // event the test placed there); without the failure reaching the runner
    // the run ends incomplete (IncompleteRunError), not failed.
    ScenarioSpec spec = TwoLeaves(1);
    spec.name = "failure-test";
    spec.jobs.push_back(Job(0, {0, 2}, 1000000, MicroSeconds(100), 3));
    spec.jobs.push_back(Job(1, {1, 3}, 1000000, MicroSeconds(100), 1000));
    for (JobSpec& j : spec.jobs)
    {
        j.gpusPerHost = 1;
    }
    spec.fabric.rtoNs = 0;
    spec.fabric.retransmission = "local-ack";
    spec.fabric.ackTimeoutExponent = 10;
    spec.output.db = (m_dir / "runs.db").string();
    const Time t = NanoSeconds(4194304);
    const Time cut = MilliSeconds(2);
    bool passedLower = false;
    bool reachedUpper = false;
    Simulator::Schedule(cut, &CutOffHost, 3);
    Simulator::Schedule(cut + t * 7, [&passedLower]() { passedLower = true; });
    Simulator::Schedule(cut + MicroSeconds(100) + t * 8 + MilliSeconds(1), [&reachedUpper]() {
        reachedUpper = true;
        Simulator::Stop();
    });
    std::string message;
    ASSERT_NO_FATAL_FAILURE(RunUntilAJobFails(spec, message));
    EXPECT_TRUE(passedLower);
    EXPECT_FALSE(reachedUpper) << "the run stops at the failure";
    EXPECT_NE(message.find("job 1 failed at "), std::string::npos) << message;
    EXPECT_NE(message.find("retry count exceeded (8 timeouts of 4.194304 ms in a row without "
                           "progress, RetryCount 7)"),
              std::string::npos)
        << message;

    const std::filesystem::path db = spec.output.db;
    const std::vector<Row> runs = Query(db, "SELECT status, error FROM runs");
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0][0], "failed");
    EXPECT_EQ(runs[0][1], message) << "the reason is the runs table's error";
    // The flow the message names is a job-1 flow from or to host 3 (node
    // ids differ from host indices; the hosts are named in the message) that
    // was never acknowledged.
    const std::size_t at = message.find("flow ") + 5;
    const std::string flowId = message.substr(at, message.find(' ', at) - at);
    const std::vector<Row> flow =
        Query(db, "SELECT job_id, ack_ns FROM flows WHERE flow_id=" + flowId);
    ASSERT_EQ(flow.size(), 1u) << flowId;
    EXPECT_EQ(flow[0][0], "1");
    EXPECT_FALSE(flow[0][1]) << "never acknowledged";
    EXPECT_TRUE(message.find("host 3") != std::string::npos) << message;
    // The other job's results are recorded: finished, with its 3 iterations.
    EXPECT_EQ(QueryInt(db, "SELECT COUNT(*) FROM jobs WHERE job_id=0 AND end_ns IS NOT NULL"), 1);
    EXPECT_EQ(QueryInt(db, "SELECT COUNT(*) FROM iterations WHERE job_id=0"), 3);
    // The failed job's row is there, unfinished, with the iterations it did.
    EXPECT_EQ(QueryInt(db, "SELECT COUNT(*) FROM jobs WHERE job_id=1 AND end_ns IS NULL"), 1);
    EXPECT_GT(QueryInt(db, "SELECT COUNT(*) FROM iterations WHERE job_id=1"), 0);
    EXPECT_GT(QueryInt(db, "SELECT COUNT(*) FROM links"), 0);
}

} // namespace
