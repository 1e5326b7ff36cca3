/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the epoch planners do where collectives overlap that no plan
 * foresaw: with Priorities=intensity (the default) the job of the higher
 * GPU intensity takes the link; with Priorities=smith the collective that
 * costs the least GPU time to finish first (weight over communication time)
 * does; with Priorities=plan a late one runs below the planned one. A gate opens
 * ahead of a collective whose links will be free, so that it starts as it
 * is posted; one whose links only higher classes take starts at once
 * below them.
 */

#include "example-process-test-util.h"
#include "scenario-run-test.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class EpochSchedulerPrioritiesTest : public test::ScenarioRunTest
{
  protected:
    void TearDown() override
    {
        Config::SetDefault("ns3::EpochScheduler::SolveTimeBase", TimeValue(MicroSeconds(200)));
        Config::SetDefault("ns3::EpochScheduler::Priorities", StringValue("intensity"));
        Config::SetDefault("ns3::EpochScheduler::YieldByClass", BooleanValue(true));
        ScenarioRunTest::TearDown();
    }

    /// Two leaves of two hosts with 2 GPUs each under one spine.
    static ScenarioSpec TwoLeaves()
    {
        ScenarioSpec spec = ScenarioRunTest::TwoLeaves(2);
        spec.name = "epoch-priorities-test";
        return spec;
    }

    /// Communication time of collective \p iteration of job \p job in run \p runId.
    static Time CommTime(const std::string& db, int64_t runId, uint32_t job, uint32_t iteration)
    {
        return NanoSeconds(test::QueryInt(
            db,
            "SELECT finish_ns - ready_ns FROM collectives WHERE run_id=" + std::to_string(runId) +
                " AND job_id=" + std::to_string(job) +
                " AND iteration=" + std::to_string(iteration)));
    }
};

TEST_F(EpochSchedulerPrioritiesTest, TheShortCollectiveGoesFirstWhereNoPlanSeparatesThem)
{
    // Both jobs cross the spine in the same direction. The first plan takes
    // 5 ms to solve, so both first collectives start unplanned: job 0's (16
    // MB) on idle links, job 1's (2 MB, same weight) 100 us later beside it.
    // Smith's rule puts job 1 first: it finishes about as fast as alone. With
    // planned traffic above the rest, job 1 waits below job 0 and finishes
    // after it.
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 2}, 16000000, MicroSeconds(100), 1),
                 Job(1, {1, 3}, 2000000, MicroSeconds(200), 1)};
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    const Time alone0 = isolated.jobs[0].meanCommunication;
    const Time alone1 = isolated.jobs[1].meanCommunication;
    ASSERT_GT(alone0, alone1 * 4);
    Config::SetDefault("ns3::EpochScheduler::SolveTimeBase", TimeValue(MilliSeconds(5)));
    for (const char* priorities : {"smith", "plan"})
    {
        Config::SetDefault("ns3::EpochScheduler::Priorities", StringValue(priorities));
        for (const char* policy : {"symphony", "harmonics"})
        {
            spec.output.db = (m_dir / (std::string(priorities) + policy + ".db")).string();
            const RunOutcome o = ScenarioRunner(spec, "test").Run(policy);
            ASSERT_TRUE(o.jobs[0].done && o.jobs[1].done) << policy;
            const Time short1 = CommTime(spec.output.db, o.runIds.at(0), 1, 0);
            const Time long0 = CommTime(spec.output.db, o.runIds.at(0), 0, 0);
            if (std::string(priorities) == "smith")
            {
                EXPECT_LT(Ratio(short1, alone1), 1.3) << policy << " job 1 " << short1.As(Time::US);
                // Job 0 lost a bounded time to it: job 1's transfer and the
                // ramp-up of the rates DCQCN cut while job 0 was starved.
                EXPECT_LT(long0, alone0 + alone1 * 4) << policy << " job 0 " << long0.As(Time::US);
            }
            else
            {
                // Below job 0 until it is done (it started 100 us earlier).
                EXPECT_GT(short1, alone0 - MicroSeconds(150)) << policy;
            }
        }
    }
}

TEST_F(EpochSchedulerPrioritiesTest, SmithsRuleWeighsTheGpusWaiting)
{
    // The same collectives, but job 0 weighs 16 times as much as job 1:
    // weight over communication time is now job 0's the larger (16 against
    // the 8 times longer collective), so job 0 keeps its link and job 1 waits
    // below it.
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 2}, 16000000, MicroSeconds(100), 1),
                 Job(1, {1, 3}, 2000000, MicroSeconds(200), 1)};
    spec.jobs[0].weight = 32;
    spec.jobs[1].weight = 2;
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    const Time alone0 = isolated.jobs[0].meanCommunication;
    Config::SetDefault("ns3::EpochScheduler::SolveTimeBase", TimeValue(MilliSeconds(5)));
    Config::SetDefault("ns3::EpochScheduler::Priorities", StringValue("smith"));
    spec.output.db = (m_dir / "weights.db").string();
    const RunOutcome o = ScenarioRunner(spec, "test").Run("symphony");
    ASSERT_TRUE(o.jobs[0].done && o.jobs[1].done);
    EXPECT_LT(Ratio(CommTime(spec.output.db, o.runIds.at(0), 0, 0), alone0), 1.05);
    EXPECT_GT(CommTime(spec.output.db, o.runIds.at(0), 1, 0), alone0 - MicroSeconds(150));
}

TEST_F(EpochSchedulerPrioritiesTest, GpuIntensityPutsTheComputeHeavyJobFirst)
{
    // Job 0 computes 10 ms, then all-reduces 16 MB; job 1 arrives 9.9 ms in,
    // computes 200 us and all-reduces 2 MB beside it, on the same spine
    // links. GPU intensity (GPU-seconds of compute per second on the fabric)
    // is job 0's the larger (about 15 against 2.4): it keeps the link and
    // job 1 waits below it. Smith's rule (same weights) puts the short
    // collective first instead.
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 2}, 16000000, MilliSeconds(10), 1),
                 Job(1, {1, 3}, 2000000, MicroSeconds(200), 1)};
    spec.jobs[1].arrivalNs = 9900000;
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    const Time alone0 = isolated.jobs[0].meanCommunication;
    const Time alone1 = isolated.jobs[1].meanCommunication;
    Config::SetDefault("ns3::EpochScheduler::SolveTimeBase", TimeValue(MilliSeconds(5)));
    for (const char* priorities : {"intensity", "smith"})
    {
        Config::SetDefault("ns3::EpochScheduler::Priorities", StringValue(priorities));
        spec.output.db = (m_dir / (std::string(priorities) + ".db")).string();
        const RunOutcome o = ScenarioRunner(spec, "test").Run("symphony");
        ASSERT_TRUE(o.jobs[0].done && o.jobs[1].done) << priorities;
        const Time long0 = CommTime(spec.output.db, o.runIds.at(0), 0, 0);
        const Time short1 = CommTime(spec.output.db, o.runIds.at(0), 1, 0);
        if (std::string(priorities) == "intensity")
        {
            EXPECT_LT(Ratio(long0, alone0), 1.05) << long0.As(Time::US);
            EXPECT_GT(short1, alone0 - MicroSeconds(150)) << short1.As(Time::US);
        }
        else
        {
            EXPECT_LT(Ratio(short1, alone1), 1.3) << short1.As(Time::US);
        }
    }
}

TEST_F(EpochSchedulerPrioritiesTest, ACollectiveHeldOnlyByHigherClassesStartsAtOnceBelowThem)
{
    // Job 0 computes 10 ms, then all-reduces 2 MB across the spine; job 1
    // computes 1.5 ms and all-reduces 16 MB on the same links, ready 50 us
    // after job 0, and ranked below it (GPU intensity about 2 against 100).
    // The spine links are 1.5 times the hosts' rate: each job alone fills
    // about two thirds of them, so the plan runs job 0's short collective
    // first and job 1's after it. With YieldByClass job 1's gate opens as it
    // is ready, in its lower class: job 0 keeps its speed alone, and job 1
    // takes the third job 0 leaves. Without it, job 1's gate stays closed
    // until job 0 is done; so it does when job 0 fills the spine (equal rates).
    ScenarioSpec spec = TwoLeaves();
    spec.topology.Set("hostRate", DataRateValue(DataRate("100Gbps")))
        .Set("leafSpineRate", DataRateValue(DataRate("150Gbps")));
    spec.jobs = {Job(0, {0, 2}, 2000000, MilliSeconds(10), 1),
                 Job(1, {1, 3}, 16000000, MicroSeconds(1500), 1)};
    spec.jobs[1].arrivalNs = 8550000;
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    const Time alone0 = isolated.jobs[0].meanCommunication;
    for (const bool yield : {true, false})
    {
        Config::SetDefault("ns3::EpochScheduler::YieldByClass", BooleanValue(yield));
        for (const char* policy : {"symphony", "harmonics"})
        {
            spec.output.db =
                (m_dir / (std::string(policy) + (yield ? "-yield" : "-hold") + ".db")).string();
            const RunOutcome o = ScenarioRunner(spec, "test").Run(policy);
            ASSERT_TRUE(o.jobs[0].done && o.jobs[1].done) << policy;
            const std::string run = std::to_string(o.runIds.at(0));
            // Precondition: the plan put job 1 after job 0.
            ASSERT_GT(test::QueryInt(spec.output.db,
                                     "SELECT planned_start_ns - ready_ns FROM collectives WHERE "
                                     "run_id=" +
                                         run + " AND job_id=1"),
                      80000)
                << policy;
            const int64_t held =
                test::QueryInt(spec.output.db,
                               "SELECT start_ns - ready_ns FROM collectives WHERE run_id=" + run +
                                   " AND job_id=1");
            if (yield)
            {
                EXPECT_LT(held, 20000) << policy;
                EXPECT_LT(Ratio(CommTime(spec.output.db, o.runIds.at(0), 0, 0), alone0), 1.05)
                    << policy;
            }
            else
            {
                EXPECT_GT(held, 80000) << policy;
            }
        }
    }
    // Equal rates: job 0 fills the spine, and job 1 would only be starved.
    Config::SetDefault("ns3::EpochScheduler::YieldByClass", BooleanValue(true));
    spec.topology.Set("leafSpineRate", DataRateValue(DataRate("100Gbps")));
    spec.output.db = (m_dir / "full.db").string();
    const RunOutcome o = ScenarioRunner(spec, "test").Run("symphony");
    ASSERT_TRUE(o.jobs[0].done && o.jobs[1].done);
    EXPECT_GT(test::QueryInt(spec.output.db,
                             "SELECT start_ns - ready_ns FROM collectives WHERE run_id=" +
                                 std::to_string(o.runIds.at(0)) + " AND job_id=1"),
              80000);
}

TEST_F(EpochSchedulerPrioritiesTest, AGateOpensAsTheCollectiveIsPostedWhenItsLinksAreFree)
{
    // Job 0 stays under leaf 0 (hosts 0 and 1), job 1 under leaf 1: they
    // share no link. The scheduler knows their compute time, so each gate
    // opens a control delay before the collective is predicted to be ready:
    // every collective starts as it is posted, without the round trip of a
    // ready notice and a gate opening (about 0.8% of an iteration here), and
    // both jobs iterate at their isolated speed. The plans note both as
    // uncontended.
    ScenarioSpec spec = TwoLeaves();
    spec.jobs = {Job(0, {0, 1}, 2000000, MicroSeconds(300), 12),
                 Job(1, {2, 3}, 2000000, MicroSeconds(300), 12)};
    const RunOutcome isolated = ScenarioRunner(spec, "test").Run("isolated");
    for (const char* policy : {"symphony", "harmonics"})
    {
        spec.output.db = (m_dir / (std::string(policy) + "-apart.db")).string();
        const RunOutcome o = ScenarioRunner(spec, "test").Run(policy);
        const std::string run = std::to_string(o.runIds.at(0));
        for (uint32_t j : {0u, 1u})
        {
            ASSERT_TRUE(o.jobs[j].done) << policy;
            EXPECT_EQ(test::QueryInt(spec.output.db,
                                     "SELECT count(*) FROM collectives WHERE run_id=" + run +
                                         " AND job_id=" + std::to_string(j) +
                                         " AND start_ns > ready_ns"),
                      0)
                << policy << " job " << j;
            EXPECT_LT(Ratio(o.jobs[j].meanIteration, isolated.jobs[j].meanIteration), 1.0001)
                << policy << " job " << j;
        }
        EXPECT_GT(test::QueryInt(spec.output.db,
                                 "SELECT count(*) FROM scheduler_decisions WHERE run_id=" + run +
                                     " AND json_extract(detail_json, '$.uncontended') = '[0,1]'"),
                  0)
            << policy;
    }
}

} // namespace
