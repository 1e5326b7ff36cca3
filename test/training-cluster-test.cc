/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Training jobs on the fabric: iteration and communication times against
 * the analytic values of a ring all-reduce, NVLink inside a host, bucket
 * overlap, first-come-first-served placement, and the result rows.
 */

#include "fabric-test-util.h"

#include "ns3/scheduler-job-builder.h"

#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <sqlite3.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint64_t kRate = 100000000000ull;
constexpr int64_t kDelayNs = 1000;
/// Packets per ACK the fabrics below run (set explicitly; the NIC's default).
constexpr uint32_t kAckInterval = 16;

/// ACK frames for \p bytes in 1000-byte packets: every kAckInterval-th packet and the last.
uint64_t
AckFrames(uint64_t bytes)
{
    const uint64_t packets = (bytes + 999) / 1000;
    return (packets + kAckInterval - 1) / kAckInterval;
}

/// FCT of one message over \p hops store-and-forward links at line rate (a tandem queue).
double
MessageFct(uint64_t bytes, int hops = 2)
{
    const uint32_t mtu = 1000;
    const uint64_t n = (bytes + mtu - 1) / mtu;
    std::vector<double> done(n, 0.0);
    for (int hop = 0; hop < hops; ++hop)
    {
        double free = 0;
        for (uint64_t i = 0; i < n; ++i)
        {
            double ready = hop == 0 ? 0.0 : done[i] + kDelayNs * 1e-9;
            free = std::max(ready, free) + WireOf(DataFrameBytes(bytes, mtu, i)) * 8.0 / kRate;
            done[i] = free;
        }
    }
    return done[n - 1] + kDelayNs * 1e-9;
}

class TrainingClusterTest : public FabricTest
{
  protected:
    Ptr<TrainingCluster> Build(uint32_t hosts, uint32_t gpusPerHost)
    {
        RoceFabricHelper helper;
        helper.SetNicAttribute("PayloadPerPacket",
                               UintegerValue(1000)); // the counts below are of 1000 B packets
        helper.SetCongestionControl("none");
        helper.SetNicAttribute("AckInterval", UintegerValue(kAckInterval));
        m_fabric = helper.Install(MakeStar(hosts, kRate, kDelayNs));
        Ptr<TrainingCluster> cluster = CreateObject<TrainingCluster>();
        cluster->Setup(m_fabric, gpusPerHost);
        return cluster;
    }

    static JobSpec Job(uint32_t id, uint32_t workers, uint64_t gradientBytes, Time compute)
    {
        JobSpec s;
        s.id = id;
        s.model = "gpt2-124m";
        s.dtype = "bf16";
        s.workers = workers;
        s.iterations = 3;
        // Gradient bytes = 124e6 x 2 x scale; scale multiplies compute too.
        s.scale = static_cast<double>(gradientBytes) / 248e6;
        s.computeTimeNs = std::llround(compute.GetNanoSeconds() / s.scale);
        return s;
    }

    Ptr<RoceFabric> m_fabric;
};

TEST_F(TrainingClusterTest, RingAllReduceIterationMatchesAnalyticTime)
{
    for (uint32_t n : {2u, 4u, 8u})
    {
        Ptr<TrainingCluster> cluster = Build(n, 1);
        const uint64_t bytes = 800000 * n; // chunks of 800 KB
        const Time compute = MicroSeconds(200);
        cluster->AddJob(Job(0, n, bytes, compute));
        Simulator::Run();
        ASSERT_EQ(cluster->GetFinishedJobs(), 1u);
        Ptr<TrainingJob> job = cluster->GetJobs()[0]->job;
        ASSERT_EQ(job->GetGradientBytes(), bytes);
        // Each step every rank sends a chunk to its successor over its own
        // pair of links, so a step lasts one message FCT, stretched by the
        // ACKs (62-byte frames, one per kAckInterval packets and the last,
        // served first) that the host's uplink also carries for the chunk it
        // receives.
        const double acks = AckFrames(bytes / n) * WireOf(62) * 8.0 / kRate;
        const double comm = 2.0 * (n - 1) * (MessageFct(bytes / n) + acks);
        const Time computeTime = job->GetComputeTime();
        EXPECT_NEAR(computeTime.GetSeconds(), compute.GetSeconds(), 1e-9);
        for (const auto& r : job->GetIterations())
        {
            EXPECT_EQ(r.commReady - r.computeStart, computeTime);
            EXPECT_EQ(r.commStart, r.commReady) << "nothing delays the collective";
            EXPECT_NEAR((r.commEnd - r.commReady).GetSeconds(), comm, 0.01 * comm) << n;
        }
        const double jct = 3 * (computeTime.GetSeconds() + comm);
        EXPECT_NEAR((job->GetEndTime() - job->GetStartTime()).GetSeconds(), jct, 0.01 * jct);
        Simulator::Destroy();
    }
}

TEST_F(TrainingClusterTest, RanksOnOneHostUseNvlinkNotTheFabric)
{
    Ptr<TrainingCluster> cluster = Build(2, 4);
    const DataRate nvlink("2400Gbps");
    const Time latency = MicroSeconds(1);
    cluster->SetAttribute("NvlinkRate", DataRateValue(nvlink));
    cluster->SetAttribute("NvlinkLatency", TimeValue(latency));
    JobSpec s = Job(0, 4, 4000000, MicroSeconds(100));
    s.gpusPerHost = 4;
    s.placement = "packed";
    cluster->AddJob(s);
    RoceFlowMonitor monitor(m_fabric);
    Simulator::Run();
    ASSERT_EQ(cluster->GetFinishedJobs(), 1u);
    EXPECT_EQ(monitor.GetFlows().size(), 0u) << "no message crossed the fabric";
    const auto& transport =
        dynamic_cast<const NetworkCollectiveTransport&>(*cluster->GetJobs()[0]->transport);
    EXPECT_EQ(transport.GetNetworkMessages(), 0u);
    EXPECT_EQ(transport.GetNvlinkMessages(), 3u * 6 * 4) << "3 iterations x 6 steps x 4 ranks";
    const double step = latency.GetSeconds() + 1000000 * 8.0 / nvlink.GetBitRate();
    for (const auto& r : cluster->GetJobs()[0]->job->GetIterations())
    {
        EXPECT_NEAR((r.commEnd - r.commReady).GetSeconds(), 6 * step, 1e-9);
    }
}

TEST_F(TrainingClusterTest, BucketsOverlapCommunicationWithBackward)
{
    const Time compute = MicroSeconds(600);
    double iteration[2];
    for (uint32_t b : {1u, 4u})
    {
        Ptr<TrainingCluster> cluster = Build(4, 1);
        JobSpec s = Job(0, 4, 4000000, compute);
        s.buckets = b;
        cluster->AddJob(s);
        Simulator::Run();
        ASSERT_EQ(cluster->GetFinishedJobs(), 1u);
        Ptr<TrainingJob> job = cluster->GetJobs()[0]->job;
        const auto& r = job->GetIterations().at(1);
        iteration[b == 1 ? 0 : 1] = (r.commEnd - r.computeStart).GetSeconds();
        // The first bucket is ready after the forward pass (C/3) and a
        // quarter of the backward pass (2C/3 / B).
        const Time c = job->GetComputeTime();
        Time firstReady = b == 1 ? c : c / 3 + c * 2 / 3 / b;
        EXPECT_EQ(r.commReady - r.computeStart, firstReady);
        Simulator::Destroy();
    }
    EXPECT_LT(iteration[1], iteration[0]) << "overlap shortens the iteration";
}

TEST_F(TrainingClusterTest, JobsThatDoNotFitWaitForGpus)
{
    Ptr<TrainingCluster> cluster = Build(4, 1);
    cluster->AddJob(Job(0, 4, 400000, MicroSeconds(100)));
    JobSpec second = Job(1, 2, 400000, MicroSeconds(100));
    second.arrivalNs = 10000; // arrives while job 0 holds every GPU
    cluster->AddJob(second);
    Simulator::Run();
    ASSERT_EQ(cluster->GetFinishedJobs(), 2u);
    Ptr<TrainingJob> a = cluster->GetJobs()[0]->job;
    Ptr<TrainingJob> b = cluster->GetJobs()[1]->job;
    EXPECT_EQ(b->GetStartTime(), a->GetEndTime());
    EXPECT_THROW(cluster->AddJob(Job(2, 5, 1000, MicroSeconds(1))), std::invalid_argument)
        << "5 workers can never fit on 4 GPUs";
    EXPECT_THROW(cluster->AddJob(Job(0, 1, 1000, MicroSeconds(1))), std::invalid_argument)
        << "duplicate id";
}

TEST_F(TrainingClusterTest, SchedulersLearnTheStartOfAJobThatStartsLate)
{
    // Job 1 arrives at 10 us and waits for job 0's GPUs; a scheduler builds
    // its view of a job when the cluster starts it (JobStarted), before the
    // TrainingJob's own Start: its start time is then, not 0.
    Ptr<TrainingCluster> cluster = Build(4, 1);
    cluster->AddJob(Job(0, 4, 400000, MicroSeconds(100)));
    JobSpec second = Job(1, 2, 400000, MicroSeconds(100));
    second.arrivalNs = 10000;
    cluster->AddJob(second);
    std::map<uint32_t, Time> seen;
    std::map<uint32_t, Time> at;
    std::function<void(uint32_t)> started = [&](uint32_t id) {
        for (const auto& e : cluster->GetJobs())
        {
            if (e->spec.id == id)
            {
                seen[id] = MakeSchedulerJob(*e, *cluster->GetNetwork()).startTime;
                at[id] = Simulator::Now();
            }
        }
    };
    cluster->TraceConnectWithoutContext(
        "JobStarted",
        MakeCallback(&std::function<void(uint32_t)>::operator(), &started));
    Simulator::Run();
    ASSERT_EQ(cluster->GetFinishedJobs(), 2u);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen.at(0), Time(0));
    EXPECT_GT(at.at(1), MicroSeconds(10)); // it waited for job 0
    EXPECT_EQ(seen.at(1), at.at(1));
    EXPECT_EQ(seen.at(1), cluster->GetJobs()[1]->job->GetStartTime());
}

TEST_F(TrainingClusterTest, ResultRowsAreConsistent)
{
    Ptr<TrainingCluster> cluster = Build(4, 1);
    cluster->AddJob(Job(0, 2, 400000, MicroSeconds(50)));
    JobSpec later = Job(1, 2, 400000, MicroSeconds(50));
    later.arrivalNs = 20000;
    cluster->AddJob(later);
    RoceFlowMonitor monitor(m_fabric);
    const std::string path = ::testing::TempDir() + "training-results.db";
    std::remove(path.c_str());
    SimulationRun run("test", "fair", 1, "{}", path);
    Simulator::Run();
    run.Finish(monitor, true, [&](ResultsDatabase& db, int64_t id) {
        WriteTrainingResults(db, id, *cluster);
    });
    run.GetDatabase()->Close();

    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    auto scalar = [db](const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
        EXPECT_EQ(sqlite3_step(st), SQLITE_ROW) << sql;
        int64_t v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return v;
    };
    EXPECT_EQ(scalar("SELECT count(*) FROM runs WHERE status='complete'"), 1);
    EXPECT_EQ(scalar("SELECT count(*) FROM jobs"), 2);
    EXPECT_EQ(scalar("SELECT count(*) FROM iterations"), 6);
    EXPECT_EQ(scalar("SELECT count(*) FROM iterations WHERE NOT (compute_start_ns <= "
                     "comm_ready_ns AND comm_ready_ns <= comm_start_ns AND comm_start_ns < "
                     "comm_end_ns)"),
              0);
    EXPECT_EQ(scalar("SELECT arrival_ns FROM jobs WHERE job_id=1"), 20000);
    EXPECT_EQ(scalar("SELECT count(*) FROM jobs WHERE end_ns IS NULL"), 0);
    // Every collective message is a flow tagged with its job: 2 ranks x
    // 2 steps x 3 iterations per job.
    EXPECT_EQ(scalar("SELECT count(*) FROM flows WHERE job_id = 0"), 12);
    EXPECT_EQ(scalar("SELECT count(*) FROM flows WHERE job_id = 1"), 12);
    EXPECT_EQ(scalar("SELECT count(*) FROM flows WHERE job_id IS NULL"), 0);
    // ... and is tagged with its iteration, collective and step.
    EXPECT_EQ(scalar("SELECT count(*) FROM flows WHERE iteration IS NULL OR collective IS NULL "
                     "OR step IS NULL"),
              0);
    EXPECT_EQ(scalar("SELECT count(DISTINCT iteration) FROM flows WHERE job_id = 0"), 3);
    EXPECT_EQ(scalar("SELECT max(step) FROM flows"), 1) << "2 ranks: steps 0 and 1";
    EXPECT_EQ(scalar("SELECT count(*) FROM flows WHERE job_id = 0 AND iteration = 2 AND step = "
                     "1"),
              2);
    // Job 1's iterations: the first starts at arrival (GPUs are free).
    EXPECT_EQ(scalar("SELECT min(compute_start_ns) FROM iterations WHERE job_id=1"), 20000);
    sqlite3_close(db);
}

/// Wire time of the ACK frames (62 bytes) a host's uplink carries for a chunk it receives.
double
AckTime(uint64_t bytes)
{
    return AckFrames(bytes) * WireOf(62) * 8.0 / kRate;
}

TEST_F(TrainingClusterTest, RingAllReduceOnAnIdleFatTree)
{
    RoceFabricHelper helper;
    helper.SetNicAttribute("PayloadPerPacket",
                           UintegerValue(1000)); // the counts below are of 1000 B packets
    helper.SetCongestionControl("none");
    helper.SetNicAttribute("AckInterval", UintegerValue(kAckInterval));
    FatTreeParams ft;
    ft.k = 4;
    m_fabric = helper.Install(MakeFatTree(ft));
    Ptr<TrainingCluster> cluster = CreateObject<TrainingCluster>();
    cluster->Setup(m_fabric, 1);
    const uint32_t n = 4;
    const uint64_t bytes = 4000000;
    JobSpec s = Job(0, n, bytes, MicroSeconds(100));
    s.placement = "spread"; // one rank per rack: the ring crosses pods twice
    cluster->AddJob(s);
    RoceFlowMonitor monitor(m_fabric);
    Simulator::Run();
    ASSERT_EQ(cluster->GetFinishedJobs(), 1u);
    // The ring's edges run in different directions on every link, so a
    // step is one message over the longest path (6 hops across pods) plus
    // the ACKs of the chunk received.
    const double step = MessageFct(bytes / n, 6) + AckTime(bytes / n);
    const double comm = 2.0 * (n - 1) * step;
    for (const auto& r : cluster->GetJobs()[0]->job->GetIterations())
    {
        EXPECT_NEAR((r.commEnd - r.commReady).GetSeconds(), comm, 0.03 * comm);
    }
    // Each worker sends exactly 2(N-1)/N x S bytes per iteration.
    std::map<uint32_t, uint64_t> sent;
    for (const auto& [id, f] : monitor.GetFlows())
    {
        sent[f.info.srcNode] += f.info.bytes;
    }
    ASSERT_EQ(sent.size(), n);
    for (const auto& [node, b] : sent)
    {
        EXPECT_EQ(b, 3 * 2 * (n - 1) * bytes / n) << "node " << node << ", 3 iterations";
    }
}

TEST_F(TrainingClusterTest, JobsSlowEachOtherOnlyWhereTheyShareALink)
{
    // Leaf-spine with one spine: a leaf's only uplink is shared by every
    // ring that leaves the rack. Hosts 0,1 on leaf 0, 2,3 on leaf 1, ...
    auto run = [this](uint32_t leaves, std::vector<std::vector<uint32_t>> hosts) {
        RoceFabricHelper helper;
        helper.SetNicAttribute("PayloadPerPacket",
                               UintegerValue(1000)); // the counts below are of 1000 B packets
        helper.SetCongestionControl("dcqcn");
        LeafSpineParams ls;
        ls.leaves = leaves;
        ls.spines = 1;
        ls.hostsPerLeaf = 2;
        m_fabric = helper.Install(MakeLeafSpine(ls));
        Ptr<TrainingCluster> cluster = CreateObject<TrainingCluster>();
        cluster->Setup(m_fabric, 1);
        for (uint32_t j = 0; j < hosts.size(); ++j)
        {
            JobSpec s = Job(j, 2, 2000000, MicroSeconds(100));
            s.placement = "explicit";
            s.hosts = hosts[j];
            cluster->AddJob(s);
        }
        Simulator::Run();
        EXPECT_EQ(cluster->GetFinishedJobs(), hosts.size());
        std::vector<double> jct;
        for (const auto& e : cluster->GetJobs())
        {
            jct.push_back((e->job->GetEndTime() - e->job->GetStartTime()).GetSeconds());
        }
        Simulator::Destroy();
        return jct;
    };
    const double aloneA = run(2, {{0, 2}})[0];
    const double aloneB = run(2, {{1, 3}})[0];
    const std::vector<double> shared = run(2, {{0, 2}, {1, 3}});
    EXPECT_GT(shared[0], 1.1 * aloneA) << "both rings cross the leaf uplinks";
    EXPECT_GT(shared[1], 1.1 * aloneB);
    const double aloneC = run(4, {{0, 2}})[0];
    const double aloneD = run(4, {{4, 6}})[0];
    const std::vector<double> disjoint = run(4, {{0, 2}, {4, 6}});
    EXPECT_NEAR(disjoint[0], aloneC, 0.02 * aloneC) << "no link in common";
    EXPECT_NEAR(disjoint[1], aloneD, 0.02 * aloneD);
}

TEST_F(TrainingClusterTest, BucketOverlapMatchesTheAnalyticSchedule)
{
    const uint32_t n = 4;
    const uint32_t buckets = 4;
    const uint64_t bytes = 8000000;
    Ptr<TrainingCluster> cluster = Build(n, 1);
    JobSpec s = Job(0, n, bytes, MicroSeconds(900));
    s.buckets = buckets;
    cluster->AddJob(s);
    Simulator::Run();
    ASSERT_EQ(cluster->GetFinishedJobs(), 1u);
    Ptr<TrainingJob> job = cluster->GetJobs()[0]->job;
    // Bucket b is ready after the forward pass and (b+1)/B of the backward
    // pass, starts when ready and its predecessor is done, and takes one
    // ring all-reduce of S/B bytes on an idle star.
    const double c = job->GetComputeTime().GetSeconds();
    const uint64_t chunk = bytes / buckets / n;
    const double collective = 2.0 * (n - 1) * (MessageFct(chunk) + AckTime(chunk));
    double end = 0;
    for (uint32_t b = 0; b < buckets; ++b)
    {
        const double ready = c / 3 + (2 * c / 3) * (b + 1) / buckets;
        end = std::max(ready, end) + collective;
    }
    const double iterationWithoutOverlap = c + buckets * collective;
    for (const auto& r : job->GetIterations())
    {
        const double iteration = (r.commEnd - r.computeStart).GetSeconds();
        EXPECT_NEAR(iteration, end, 0.01 * end);
        EXPECT_LT(iteration, iterationWithoutOverlap);
    }
}

} // namespace
