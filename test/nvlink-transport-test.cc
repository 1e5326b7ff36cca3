/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GPUs of one multi-NIC server talk over NVLink: on a rail-optimized
 * fabric, a job whose ranks are the NICs of one server puts no byte on the
 * fabric, and its all-reduce takes the ring's steps at NVLink's rate and
 * latency, at packet level and at flow level alike.
 */
#include "example-process-test-util.h"
#include "scenario-run-test.h"

namespace ns3
{
namespace test
{
namespace
{

class NvlinkTransportTest : public ScenarioRunTest
{
};

TEST_F(NvlinkTransportTest, RanksOnOneServerUseNvlinkOnly)
{
    RailOptimizedParams rail;
    rail.servers = 2;
    rail.gpusPerServer = 4;
    rail.spines = 1;
    // The NICs of server 0, whatever the hosts' numbering.
    const FabricTopology topology = MakeRailOptimized(rail);
    std::vector<uint32_t> server0;
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        if (topology.SameServer(0, h))
        {
            server0.push_back(h);
        }
    }
    ASSERT_EQ(server0.size(), rail.gpusPerServer);

    for (const std::string backend : {"packet", "flow"})
    {
        ScenarioSpec spec;
        spec.source = "test";
        spec.name = "nvlink-test";
        spec.backend = backend;
        spec.topology.kind = "rail-optimized";
        spec.topology.gpusPerHost = 1;
        spec.topology.Set("servers", UintegerValue(rail.servers))
            .Set("gpusPerServer", UintegerValue(rail.gpusPerServer))
            .Set("spines", UintegerValue(rail.spines));
        spec.output.db = (m_dir / (backend + ".db")).string();
        JobSpec job = Job(0, server0, 8000000, MicroSeconds(50), 2);
        job.gpusPerHost = 1;
        spec.jobs.push_back(job);

        const RunOutcome run = ScenarioRunner(spec, "test").Run("fair");
        ASSERT_EQ(run.jobs.size(), 1u);
        ASSERT_TRUE(run.jobs[0].done) << backend;
        EXPECT_EQ(QueryInt(spec.output.db,
                           "SELECT coalesce(sum(tx_bytes_ab + tx_bytes_ba), 0) FROM links"),
                  0)
            << backend << ": no byte on the fabric";

        // Ring all-reduce of G bytes over N ranks: 2(N-1) steps of G/N bytes,
        // one after the other, each NVLink's latency plus its transfer time.
        const NvlinkSpeed nvlink = CreateObject<TrainingCluster>()->GetNvlink();
        const double n = server0.size();
        const double chunk = static_cast<double>(ModelCatalog::GradientBytes(job)) / n;
        const double expected =
            2 * (n - 1) * (nvlink.latency.GetSeconds() + chunk * 8 / nvlink.rate.GetBitRate());
        EXPECT_NEAR(run.jobs[0].meanCommunication.GetSeconds(), expected, expected * 0.005)
            << backend;
    }
}

} // namespace
} // namespace test
} // namespace ns3
