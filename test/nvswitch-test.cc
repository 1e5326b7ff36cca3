/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The NVSwitch of a server as a shared switch: messages that share a GPU's
 * port share its rate max-min fairly, against closed forms, on the switch
 * alone and through whole runs at packet level and at flow level.
 */
#include "scenario-run-test.h"

#include "ns3/scheduler-job-builder.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint64_t kBytes = 3000000; // 10 us at 2400 Gb/s
const DataRate kRate("2400Gbps");

/// Seconds of \p bytes at \p rate.
double
Transfer(double bytes, DataRate rate = kRate)
{
    return bytes * 8 / static_cast<double>(rate.GetBitRate());
}

class NvSwitchTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        RoceUsePicoseconds();
        // Two hosts of 4 GPUs each under one switch: GPUs 0-3 and 4-7 are
        // two servers.
        FabricTopology t;
        const uint32_t sw = t.AddSwitch("leaf", 1, -1, 0);
        t.AddLink(t.AddHost("h0", -1, 0), sw, 100000000000ull, 1000);
        t.AddLink(t.AddHost("h1", -1, 0), sw, 100000000000ull, 1000);
        m_switch = CreateObject<NvSwitch>();
        m_switch->Setup(t, 4);
        m_switch->SetPortRate(kRate);
        m_switch->SetLatency(MicroSeconds(1));
        m_done.assign(8, Time(-1));
    }

    void TearDown() override
    {
        m_switch->Dispose();
        Simulator::Destroy();
    }

    /// Message \p i: \p bytes from GPU \p src to GPU \p dst at \p at; m_done[i] when delivered.
    void Send(std::size_t i, uint32_t src, uint32_t dst, uint64_t bytes, Time at = Time(0))
    {
        Simulator::Schedule(at, [this, i, src, dst, bytes]() {
            m_switch->Send(src, dst, bytes, static_cast<uint32_t>(i), [this, i]() {
                m_done[i] = Simulator::Now();
            });
        });
    }

    /// Seconds from 0 to the delivery of message \p i.
    double Done(std::size_t i) const
    {
        return m_done.at(i).GetSeconds();
    }

    double Latency() const
    {
        return m_switch->GetLatency().GetSeconds();
    }

    Ptr<NvSwitch> m_switch;
    std::vector<Time> m_done;
};

TEST_F(NvSwitchTest, TwoPairsIntoOneGpuShareItsPortButDisjointPairsDoNot)
{
    Send(0, 0, 2, kBytes); // both into GPU 2
    Send(1, 1, 2, kBytes);
    const Time later = MilliSeconds(1);
    Send(2, 0, 1, kBytes, later); // disjoint
    Send(3, 2, 3, kBytes, later);
    Simulator::Run();
    const double shared = Latency() + 2 * Transfer(kBytes);
    EXPECT_NEAR(Done(0), shared, 1e-11);
    EXPECT_NEAR(Done(1), shared, 1e-11);
    const double alone = later.GetSeconds() + Latency() + Transfer(kBytes);
    EXPECT_NEAR(Done(2), alone, 1e-11);
    EXPECT_NEAR(Done(3), alone, 1e-11);
    EXPECT_EQ(m_switch->GetMessagesDelivered(), 4u);
}

TEST_F(NvSwitchTest, ParallelChannelsOfOnePairShareThePairsPorts)
{
    Send(0, 0, 1, kBytes / 2);
    Send(1, 0, 1, kBytes / 2);
    Simulator::Run();
    // Two channels of half the bytes each take what one message of all of them takes.
    EXPECT_NEAR(Done(0), Latency() + Transfer(kBytes), 1e-11);
    EXPECT_NEAR(Done(1), Latency() + Transfer(kBytes), 1e-11);
}

TEST_F(NvSwitchTest, RatesAreMaxMinFairNotEqualShares)
{
    // Three into GPU 2 get a third of its port each; 1 -> 0 shares GPU 1's
    // port in with 1 -> 2, which takes only a third, so gets two thirds.
    Send(0, 0, 2, kBytes);
    Send(1, 1, 2, kBytes);
    Send(2, 3, 2, kBytes);
    Send(3, 1, 0, kBytes);
    Simulator::Run();
    EXPECT_NEAR(Done(3), Latency() + 1.5 * Transfer(kBytes), 1e-11);
    for (std::size_t i = 0; i < 3; ++i)
    {
        EXPECT_NEAR(Done(i), Latency() + 3 * Transfer(kBytes), 1e-11) << i;
    }
}

TEST_F(NvSwitchTest, AMessageThatEndsLeavesItsShareToTheOthers)
{
    Send(0, 0, 2, kBytes);
    Send(1, 1, 2, 2 * kBytes);
    Simulator::Run();
    // Half the port each until the first ends at 2T; the second then has T left at the full rate.
    EXPECT_NEAR(Done(0), Latency() + 2 * Transfer(kBytes), 1e-11);
    EXPECT_NEAR(Done(1), Latency() + 3 * Transfer(kBytes), 1e-11);
}

TEST_F(NvSwitchTest, PortCountersAndTraceSeeIntraServerTraffic)
{
    std::vector<uint32_t> jobs;
    m_switch->TraceConnectWithoutContext(
        "TransferDone",
        MakeCallback(
            +[](std::vector<uint32_t>* seen, uint32_t job, uint32_t, uint32_t, uint64_t, Time) {
                seen->push_back(job);
            })
            .Bind(&jobs));
    Send(0, 0, 2, kBytes);
    Send(1, 1, 2, kBytes);
    double midTx0 = -1;
    double midRx2 = -1;
    Simulator::Schedule(Seconds(Transfer(kBytes)), [&]() {
        midTx0 = m_switch->GetTxBytes(0);
        midRx2 = m_switch->GetRxBytes(2);
    });
    Simulator::Run();
    EXPECT_NEAR(midTx0, kBytes / 2.0, 1.0) << "half its bytes at half the rate";
    EXPECT_NEAR(midRx2, kBytes, 1.0) << "GPU 2's port out at its full rate";
    EXPECT_NEAR(m_switch->GetTxBytes(0), kBytes, 1e-3);
    EXPECT_NEAR(m_switch->GetTxBytes(1), kBytes, 1e-3);
    EXPECT_NEAR(m_switch->GetRxBytes(2), 2.0 * kBytes, 1e-3);
    EXPECT_EQ(m_switch->GetRxBytes(0), 0.0);
    std::sort(jobs.begin(), jobs.end());
    EXPECT_EQ(jobs, (std::vector<uint32_t>{0, 1}));
}

TEST_F(NvSwitchTest, WithoutContentionEveryMessageGetsTheFullRate)
{
    m_switch->SetAttribute("Contention", BooleanValue(false));
    Send(0, 0, 2, kBytes);
    Send(1, 1, 2, kBytes);
    Simulator::Run();
    EXPECT_NEAR(Done(0), Latency() + Transfer(kBytes), 1e-11);
    EXPECT_NEAR(Done(1), Latency() + Transfer(kBytes), 1e-11);
}

TEST_F(NvSwitchTest, ABlockingSwitchSharesItsCapacityBetweenDisjointPairs)
{
    m_switch->SetAttribute("Capacity", DataRateValue(kRate));
    Send(0, 0, 1, kBytes);
    Send(1, 2, 3, kBytes);
    Send(2, 4, 5, kBytes); // the other server's switch
    Simulator::Run();
    EXPECT_NEAR(Done(0), Latency() + 2 * Transfer(kBytes), 1e-11);
    EXPECT_NEAR(Done(1), Latency() + 2 * Transfer(kBytes), 1e-11);
    EXPECT_NEAR(Done(2), Latency() + Transfer(kBytes), 1e-11);
}

TEST_F(NvSwitchTest, ServersAreSeparateSwitches)
{
    EXPECT_EQ(m_switch->GetNGpus(), 8u);
    EXPECT_EQ(m_switch->GetServer(3), m_switch->GetServer(0));
    EXPECT_NE(m_switch->GetServer(4), m_switch->GetServer(3));
    EXPECT_THROW(m_switch->Send(0, 4, 1, 0, []() {}), std::invalid_argument);
    EXPECT_THROW(m_switch->Send(0, 8, 1, 0, []() {}), std::invalid_argument);
    Send(0, 0, 2, kBytes);
    Send(1, 4, 6, kBytes);
    Simulator::Run();
    EXPECT_NEAR(Done(0), Latency() + Transfer(kBytes), 1e-11);
    EXPECT_NEAR(Done(1), Latency() + Transfer(kBytes), 1e-11);
}

TEST(NvlinkGenerationTest, RatesPerDirectionFromTheDatasheets)
{
    EXPECT_EQ(NvlinkGenerationRate(NvlinkGeneration::A100), DataRate("300GBps"));
    EXPECT_EQ(NvlinkGenerationRate(NvlinkGeneration::H100), DataRate("450GBps"));
    EXPECT_EQ(NvlinkGenerationRate(NvlinkGeneration::H200), DataRate("450GBps"));
    EXPECT_EQ(NvlinkGenerationRate(NvlinkGeneration::B200), DataRate("900GBps"));
    Ptr<TrainingCluster> cluster = CreateObject<TrainingCluster>();
    EXPECT_EQ(cluster->GetNvlink().rate, DataRate("300GBps")) << "a100 by default";
    cluster->SetAttribute("NvlinkGeneration", StringValue("b200"));
    EXPECT_EQ(cluster->GetNvlink().rate, DataRate("900GBps"));
    cluster->SetAttribute("NvlinkRate", DataRateValue(DataRate("100GBps")));
    EXPECT_EQ(cluster->GetNvlink().rate, DataRate("100GBps")) << "NvlinkRate overrides";
    EXPECT_EQ(cluster->GetNvlink().latency, MicroSeconds(1)) << "two hops of 500 ns";
    cluster->SetTopologyNvlinkLatency(NanoSeconds(50));
    EXPECT_EQ(cluster->GetNvlink().latency, NanoSeconds(50)) << "the topology's";
    cluster->SetAttribute("NvlinkLatency", TimeValue(NanoSeconds(700)));
    EXPECT_EQ(cluster->GetNvlink().latency, NanoSeconds(700)) << "NvlinkLatency overrides";
    // Set explicitly to the 1 us it defaults to, it still overrides the topology's.
    cluster->SetAttribute("NvlinkLatency", TimeValue(MicroSeconds(1)));
    EXPECT_EQ(cluster->GetNvlink().latency, MicroSeconds(1)) << "1 us, set, is set";
    cluster->SetAttribute("NvlinkLatency", TimeValue(Time(0)));
    EXPECT_EQ(cluster->GetNvlink().latency, Time(0)) << "0 is a latency, not unset";
    Ptr<TrainingCluster> zero = CreateObject<TrainingCluster>();
    zero->SetTopologyNvlinkLatency(Time(0));
    EXPECT_EQ(zero->GetNvlink().latency, Time(0)) << "a topology's 0 is a latency too";
}

TEST(NvSwitchEstimateTest, SchedulersSeeAStepsBusiestPort)
{
    // A data-parallel job of two ranks on one host, two channels, nothing
    // planned: to a scheduler its iteration is compute plus the ring's two
    // steps, each the latency plus its busiest port's bytes (both channels'
    // halves share the pair's ports); without contention, one channel's.
    FabricTopology topo;
    const uint32_t sw = topo.AddSwitch("leaf", 1, -1, 0);
    topo.AddLink(topo.AddHost("h0", -1, 0), sw, 100000000000ull, 1000);
    Ptr<FlowNetwork> network = CreateObject<FlowNetwork>();
    network->Build(topo);
    TrainingCluster::JobEntry e;
    e.spec.id = 0;
    e.spec.model = "gpt2-124m";
    e.spec.dtype = "bf16";
    e.spec.workers = 2;
    e.spec.gpusPerHost = 2;
    e.spec.channels = 2;
    e.spec.scale = 8000000 / 248e6;
    e.spec.computeTimeNs = 1000000;
    e.placement.workerHost = {0, 0};
    e.graph = ModelCatalog::Graph(e.spec);
    e.graph.SetPlanned([](const GraphOp&) { return false; });
    const Time compute = e.graph.GetComputeTimePerRank();
    const double half = static_cast<double>(e.graph.GetBytes(CommGroup::Data)) / 2;
    for (const bool contention : {true, false})
    {
        NvlinkSpeed nvlink;
        nvlink.contention = contention;
        const SchedulerJob job = MakeSchedulerJob(e, *network, nvlink);
        const double step =
            nvlink.latency.GetSeconds() + Transfer(contention ? half : half / 2, nvlink.rate);
        EXPECT_NEAR(job.computeTime.GetSeconds(), compute.GetSeconds() + 2 * step, 1e-9)
            << "contention " << contention;
    }
    network->Dispose();
    Simulator::Destroy();
}

/// Whole runs on server 0 of a rail-optimized fabric of two 4-GPU servers.
class NvSwitchRunTest : public ScenarioRunTest
{
  protected:
    void SetUp() override
    {
        ScenarioRunTest::SetUp();
        const FabricTopology topology = MakeRailOptimized(Rail());
        for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
        {
            if (topology.SameServer(0, h))
            {
                m_server0.push_back(h);
            }
        }
        ASSERT_EQ(m_server0.size(), 4u);
    }

    static RailOptimizedParams Rail()
    {
        RailOptimizedParams rail;
        rail.servers = 2;
        rail.gpusPerServer = 4;
        rail.spines = 1;
        return rail;
    }

    ScenarioSpec Spec(const std::string& backend, const std::string& name) const
    {
        ScenarioSpec spec;
        spec.source = "test";
        spec.name = "nvswitch-test";
        spec.backend = backend;
        spec.topology.kind = "rail-optimized";
        spec.topology.gpusPerHost = 1;
        spec.topology.Set("servers", UintegerValue(Rail().servers))
            .Set("gpusPerServer", UintegerValue(Rail().gpusPerServer))
            .Set("spines", UintegerValue(Rail().spines));
        spec.output.db = (m_dir / (backend + "-" + name + ".db")).string();
        return spec;
    }

    /// A job all-reducing \p bytes over the GPUs \p gpus of server 0.
    JobSpec ServerJob(uint32_t id, const std::vector<uint32_t>& gpus, uint64_t bytes) const
    {
        std::vector<uint32_t> hosts;
        for (uint32_t g : gpus)
        {
            hosts.push_back(m_server0.at(g));
        }
        JobSpec job = Job(id, hosts, bytes, MicroSeconds(50), 2);
        job.gpusPerHost = 1;
        return job;
    }

    /// Ring all-reduce of \p job's gradient over its ranks: 2(N-1) steps of
    /// G/N bytes, each \p shared messages to a port, at \p rate and \p latency.
    static double Ring(const JobSpec& job,
                       DataRate rate,
                       double shared,
                       Time latency = MicroSeconds(1))
    {
        const double n = job.workers;
        const double chunk = static_cast<double>(ModelCatalog::GradientBytes(job)) / n;
        return 2 * (n - 1) * (latency.GetSeconds() + shared * Transfer(chunk, rate));
    }

    std::vector<uint32_t> m_server0;
};

TEST_F(NvSwitchRunTest, TheGenerationGivesTheRateAtBothLevels)
{
    for (const std::string backend : {"packet", "flow"})
    {
        for (const auto& [attributes, rate] :
             {std::pair{std::vector<std::pair<std::string, std::string>>{
                            {"ns3::TrainingCluster::NvlinkGeneration", "h100"}},
                        DataRate("450GBps")},
              std::pair{std::vector<std::pair<std::string, std::string>>{
                            {"ns3::TrainingCluster::NvlinkGeneration", "h100"},
                            {"ns3::TrainingCluster::NvlinkRate", "1200Gbps"}},
                        DataRate("1200Gbps")}})
        {
            ScenarioSpec spec = Spec(backend, std::to_string(rate.GetBitRate()));
            spec.attributes = attributes;
            const JobSpec job = ServerJob(0, {0, 1, 2, 3}, 8000000);
            const JobOutcome run = RunAlone(spec, job);
            const double expected = Ring(job, rate, 1);
            EXPECT_NEAR(run.meanCommunication.GetSeconds(), expected, expected * 0.002)
                << backend << " " << rate;
        }
    }
}

TEST_F(NvSwitchRunTest, ChannelsOfOnePairShareItsPortsAtBothLevels)
{
    for (const std::string backend : {"packet", "flow"})
    {
        for (const bool contention : {true, false})
        {
            ScenarioSpec spec = Spec(backend, contention ? "shared" : "free");
            spec.attributes = {{"ns3::NvSwitch::Contention", contention ? "true" : "false"}};
            JobSpec job = ServerJob(0, {0, 1}, 8000000);
            job.channels = 2;
            const JobOutcome run = RunAlone(spec, job);
            // Each channel carries half of each step's bytes; sharing the
            // pair's ports, the two take one message's time; without
            // contention each would have the full rate.
            const double expected = Ring(job, kRate, contention ? 1.0 : 0.5);
            EXPECT_NEAR(run.meanCommunication.GetSeconds(), expected, expected * 0.002)
                << backend << " contention " << contention;
        }
    }
}

TEST_F(NvSwitchRunTest, JobsOnOneServerShareItsSwitchAtBothLevels)
{
    for (const std::string backend : {"packet", "flow"})
    {
        // Non-blocking: two jobs on disjoint GPUs do not slow each other.
        // Capacity one port's rate: the four messages of a step (two per
        // job) share it, a quarter each.
        for (const bool blocking : {false, true})
        {
            ScenarioSpec spec = Spec(backend, blocking ? "blocking" : "non-blocking");
            if (blocking)
            {
                spec.attributes = {{"ns3::NvSwitch::Capacity", "2400Gbps"}};
            }
            spec.jobs = {ServerJob(0, {0, 1}, 8000000), ServerJob(1, {2, 3}, 8000000)};
            const RunOutcome run = ScenarioRunner(spec, "test").Run("fair");
            ASSERT_EQ(run.jobs.size(), 2u);
            const double expected = Ring(spec.jobs[0], kRate, blocking ? 4.0 : 1.0);
            for (const JobOutcome& j : run.jobs)
            {
                ASSERT_TRUE(j.done);
                EXPECT_NEAR(j.meanCommunication.GetSeconds(), expected, expected * 0.002)
                    << backend << " blocking " << blocking;
            }
        }
    }
}

TEST_F(NvSwitchRunTest, JobsOnOneHostGetAGpuEachRank)
{
    for (const std::string backend : {"packet", "flow"})
    {
        // Two jobs of two ranks on host 0 (4 GPUs): four GPUs, four pairs of
        // ports, so neither slows the other.
        ScenarioSpec spec = TwoLeaves(4);
        spec.backend = backend;
        spec.output.db = (m_dir / (backend + "-one-host.db")).string();
        spec.jobs = {Job(0, {0, 0}, 8000000, MicroSeconds(50), 2),
                     Job(1, {0, 0}, 8000000, MicroSeconds(50), 2)};
        const RunOutcome run = ScenarioRunner(spec, "test").Run("fair");
        ASSERT_EQ(run.jobs.size(), 2u);
        const double expected = Ring(spec.jobs[0], kRate, 1);
        for (const JobOutcome& j : run.jobs)
        {
            ASSERT_TRUE(j.done);
            EXPECT_NEAR(j.meanCommunication.GetSeconds(), expected, expected * 0.002) << backend;
        }
    }
}

} // namespace
} // namespace test
} // namespace ns3
