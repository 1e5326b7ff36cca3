/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A SimAI topology file as a scenario's fabric (topology kind "hpcc"): its
 * NVSwitches become the servers' NVLink, so a job on one server's GPUs puts
 * no byte on the fabric and one across servers does, at both levels; a GPU
 * must keep exactly one NIC link.
 */
#include "example-process-test-util.h"
#include "scenario-run-test.h"
#include "simai-topology-test-util.h"

#include "ns3/hpcc-topology-builder.h"

#include <optional>

namespace ns3
{
namespace test
{
namespace
{

class HpccTopologyBuilderTest : public ScenarioRunTest
{
};

TEST_F(HpccTopologyBuilderTest, NvSwitchesBecomeTheServersNvlink)
{
    const std::string path = Write("topology.txt", kSimaiTopology);
    const FabricTopology t = BuildHpccFabric(ReadHpccTopology(path), path);
    EXPECT_EQ(t.GetNHosts(), 4u);
    EXPECT_EQ(t.GetNSwitches(), 1u) << "the NVSwitches leave the fabric";
    EXPECT_EQ(t.GetNLinks(), 4u) << "so do their links";
    EXPECT_TRUE(t.SameServer(0, 1));
    EXPECT_TRUE(t.SameServer(2, 3));
    EXPECT_FALSE(t.SameServer(1, 2));
    EXPECT_EQ(t.GetSchedulingRack(0), t.GetSchedulingRack(3)) << "one edge switch";
    t.Validate();
}

TEST_F(HpccTopologyBuilderTest, AJobOnOneServerStaysOnNvlinkAtBothLevels)
{
    const std::string path = Write("topology.txt", kSimaiTopology);
    for (const std::string backend : {"packet", "flow"})
    {
        for (const std::vector<uint32_t>& hosts :
             {std::vector<uint32_t>{0, 1}, std::vector<uint32_t>{1, 2}})
        {
            ScenarioSpec spec;
            spec.source = "test";
            spec.name = "hpcc-topology-builder-test";
            spec.backend = backend;
            spec.topology.kind = "hpcc";
            spec.topology.path = path;
            spec.topology.gpusPerHost = 1;
            spec.output.db = (m_dir / (backend + ".db")).string();
            std::filesystem::remove(spec.output.db);
            JobSpec job = Job(0, hosts, 4000000, MicroSeconds(50), 2);
            job.gpusPerHost = 1;
            spec.jobs = {job};
            const RunOutcome run = ScenarioRunner(spec, "test").Run("fair");
            ASSERT_TRUE(run.jobs.at(0).done) << backend;
            const int64_t bytes =
                QueryInt(spec.output.db,
                         "SELECT coalesce(sum(tx_bytes_ab + tx_bytes_ba), 0) FROM links");
            if (hosts[1] == 1)
            {
                EXPECT_EQ(bytes, 0) << backend << ": GPUs 0 and 1 share NVSwitch 4";
            }
            else
            {
                EXPECT_GT(bytes, 0) << backend << ": GPUs 1 and 2 are on two servers";
            }
        }
    }
}

TEST_F(HpccTopologyBuilderTest, TheFilesNvlinkLatencyIsTheClustersUnlessSet)
{
    const std::string path = Write("topology.txt", kSimaiTopology);
    const std::optional<Time> fromFile = HpccNvlinkLatency(ReadHpccTopology(path));
    ASSERT_TRUE(fromFile.has_value());
    EXPECT_EQ(*fromFile, NanoSeconds(50)) << "two NVSwitch links of 25 ns";
    for (const std::string backend : {"packet", "flow"})
    {
        // Unset (the file's), set to its 1 us default (which must still win), set to 3 us.
        for (const std::optional<Time> set : {std::optional<Time>{},
                                              std::optional<Time>{MicroSeconds(1)},
                                              std::optional<Time>{MicroSeconds(3)}})
        {
            ScenarioSpec spec;
            spec.source = "test";
            spec.name = "hpcc-topology-builder-test";
            spec.backend = backend;
            spec.topology.kind = "hpcc";
            spec.topology.path = path;
            spec.topology.gpusPerHost = 1;
            spec.output.db = (m_dir / (backend + ".db")).string();
            std::filesystem::remove(spec.output.db);
            if (set)
            {
                spec.attributes = {{"ns3::TrainingCluster::NvlinkLatency",
                                    std::to_string(set->GetMicroSeconds()) + "us"}};
            }
            JobSpec job = Job(0, {0, 1}, 4000000, MicroSeconds(50), 2);
            job.gpusPerHost = 1;
            spec.jobs = {job};
            const RunOutcome run = ScenarioRunner(spec, "test").Run("fair");
            ASSERT_TRUE(run.jobs.at(0).done) << backend;
            // Two ranks: two steps of half the gradient at the file's 2400 Gb/s
            // (a100's rate), each after the message latency.
            const double latency = set.value_or(*fromFile).GetSeconds();
            const double half = static_cast<double>(ModelCatalog::GradientBytes(job)) / 2;
            const double expected = 2 * (latency + half * 8 / 2400e9);
            EXPECT_NEAR(run.jobs[0].meanCommunication.GetSeconds(), expected, expected * 1e-4)
                << backend << " NvlinkLatency " << (set ? *set : Time(-1));
        }
    }
}

TEST_F(HpccTopologyBuilderTest, AGpuKeepsExactlyOneNicLink)
{
    // GPU 3 with a second NIC link; GPU 3 with its NVSwitch link only.
    const std::string twoNics =
        std::string(kSimaiTopology).replace(0, 13, "7 2 2 1 9 A100") + "3 6 100Gbps 0.001ms 0\n";
    std::string noNic = kSimaiTopology;
    noNic.replace(0, 13, "7 2 2 1 7 A100");
    noNic.erase(noNic.rfind("3 6 100Gbps"));
    for (const auto& [text, message] : {std::pair{twoNics, "host 3: more than one NIC link"},
                                        std::pair{noNic, "host 3: no NIC link"}})
    {
        const std::string path = Write("bad.txt", text);
        try
        {
            BuildHpccFabric(ReadHpccTopology(path), path);
            ADD_FAILURE() << message << ": accepted";
        }
        catch (const std::runtime_error& e)
        {
            EXPECT_NE(std::string(e.what()).find(path + ": " + message), std::string::npos)
                << e.what();
        }
    }
}

} // namespace
} // namespace test
} // namespace ns3
