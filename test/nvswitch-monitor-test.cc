/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The monitors see the NVSwitches' ports: two GPU pairs through one port
 * are each recorded at half its rate by the link sampler and the port
 * monitor (against the max-min closed form), and a whole run at either
 * level writes its NVSwitch ports' bytes (against a ring's byte count) into
 * link_samples and port_samples as kind 'nvswitch'.
 */
#include "scenario-run-test.h"

#include <gtest/gtest.h>
#include <map>

namespace ns3
{
namespace test
{
namespace
{

constexpr uint64_t kBytes = 3000000; // 10 us alone at 2400 Gb/s
const DataRate kRate("2400Gbps");
const Time kInterval = MicroSeconds(2);

/// Seconds of \p bytes alone at kRate.
double
Transfer(double bytes)
{
    return bytes * 8 / static_cast<double>(kRate.GetBitRate());
}

/// Bytes a port at kRate carries in \p seconds.
double
BytesIn(double seconds)
{
    return seconds * static_cast<double>(kRate.GetBitRate()) / 8;
}

class NvSwitchMonitorTest : public ScenarioRunTest
{
};

TEST_F(NvSwitchMonitorTest, TwoPairsThroughOnePortAreRecordedAtHalfRateEach)
{
    // One server of 4 GPUs: job 0 sends GPU 0 -> GPU 2, job 1 GPU 1 -> GPU 2,
    // both at 0. They share GPU 2's port out: rate / 2 each, for 2 x 10 us.
    FabricTopology t;
    const uint32_t sw = t.AddSwitch("leaf", 1, -1, 0);
    t.AddLink(t.AddHost("h0", -1, 0), sw, 100000000000ull, 1000);
    Ptr<NvSwitch> nvswitch = CreateObject<NvSwitch>();
    nvswitch->Setup(t, 4);
    nvswitch->SetPortRate(kRate);
    Ptr<LinkSampler> sampler =
        CreateObjectWithAttributes<LinkSampler>("Interval", TimeValue(kInterval));
    sampler->InstallNvSwitch(nvswitch);
    Ptr<PortMonitor> monitor =
        CreateObjectWithAttributes<PortMonitor>("Interval", TimeValue(kInterval));
    std::vector<PortMonitor::NvSwitchSample> samples;
    monitor->SetNvSwitchSampleSink(
        [&samples](const PortMonitor::NvSwitchSample& s) { samples.push_back(s); });
    monitor->AddNvSwitch(nvswitch);
    monitor->Install(nullptr, nullptr, 0, nullptr);
    int delivered = 0;
    nvswitch->Send(0, 2, kBytes, 0, [&delivered]() { ++delivered; });
    nvswitch->Send(1, 2, kBytes, 1, [&delivered]() { ++delivered; });
    Simulator::Run();
    ASSERT_EQ(delivered, 2);

    const double perInterval = BytesIn(kInterval.GetSeconds()); // the port's full rate
    const double end = 2 * Transfer(kBytes);                    // both end together
    const auto bins = static_cast<int64_t>(std::llround(end / kInterval.GetSeconds()));
    // Link samples: each job's bytes per interval, at GPU 2's port out and at
    // its sender's port in, are half the port's rate; nothing else moved.
    std::map<std::tuple<uint32_t, uint8_t, int64_t>, double> total;
    for (const auto& [key, bytes] : sampler->GetNvSwitchSamples())
    {
        const auto& [gpu, direction, job, bin] = key;
        ASSERT_LT(bin, bins) << "nothing after the transfers end";
        const bool expected = (direction == 1 && gpu == 2) || (direction == 0 && gpu == job);
        ASSERT_TRUE(expected) << "GPU " << gpu << " direction " << int(direction) << " job " << job;
        EXPECT_NEAR(bytes, perInterval / 2, 1e-6 * perInterval)
            << "GPU " << gpu << " direction " << int(direction) << " job " << job << " bin " << bin;
        total[{gpu, direction, job}] += bytes;
    }
    EXPECT_EQ(total.size(), 4u) << "GPU 2 out for each job, GPU 0 and 1 in";
    for (const auto& [key, bytes] : total)
    {
        EXPECT_NEAR(bytes, kBytes, 1e-6 * kBytes) << "every byte once";
    }
    // Port samples: GPU 2's port out carries the full rate, shared by two
    // messages; each sender's port in half of it; their occupancy is what
    // is left of their messages.
    ASSERT_FALSE(samples.empty());
    std::map<std::pair<uint32_t, int>, double> carried;
    for (const PortMonitor::NvSwitchSample& s : samples)
    {
        const int dir = static_cast<int>(s.direction);
        carried[{s.gpu, dir}] += s.txBytes;
        const double elapsed = s.tNs * 1e-9;
        if (elapsed >= end - 1e-12)
        {
            continue; // the last sample may see the end
        }
        const bool out = dir == 1;
        ASSERT_TRUE(out ? s.gpu == 2 : s.gpu < 2) << "GPU " << s.gpu << " direction " << dir;
        EXPECT_NEAR(s.txBytes, out ? perInterval : perInterval / 2, 1e-6 * perInterval);
        EXPECT_EQ(s.messages, out ? 2u : 1u);
        const double left = kBytes - BytesIn(elapsed) / 2;
        EXPECT_NEAR(s.backlog, out ? 2 * left : left, 1e-6 * kBytes) << "at " << s.tNs << " ns";
    }
    EXPECT_NEAR((carried[{2, 1}]), 2.0 * kBytes, 1e-6 * kBytes);
    EXPECT_NEAR((carried[{0, 0}]), kBytes, 1e-6 * kBytes);
    EXPECT_NEAR((carried[{1, 0}]), kBytes, 1e-6 * kBytes);
    nvswitch->Dispose();
}

TEST_F(NvSwitchMonitorTest, ARunWritesItsNvSwitchPortsAtEitherLevel)
{
    // A data-parallel job of two ranks on host 0's two GPUs: every iteration
    // each rank sends its ring's two steps of half the gradient, G bytes,
    // through its port in, and receives G through its port out.
    for (const std::string backend : {"packet", "flow"})
    {
        ScenarioSpec spec = TwoLeaves(2);
        spec.backend = backend;
        spec.output.db = (m_dir / (backend + ".db")).string();
        spec.attributes = {{"ns3::LinkSampler::Interval", "5us"},
                           {"ns3::PortMonitor::Interval", "5us"}};
        JobSpec job = Job(0, {0, 0}, 4000000, MicroSeconds(20), 3);
        spec.jobs = {job};
        const RunOutcome run = ScenarioRunner(spec, "test").Run("fair");
        ASSERT_TRUE(run.jobs.at(0).done) << backend;
        const double g = static_cast<double>(ModelCatalog::GradientBytes(job));
        const double perPort = 3 * g; // three iterations

        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
        for (const std::string table : {"link_samples", "port_samples"})
        {
            for (int gpu = 0; gpu < 2; ++gpu)
            {
                for (int direction = 0; direction < 2; ++direction)
                {
                    const std::string column = table == "link_samples" ? "link_id" : "node_id";
                    const std::string dir = table == "link_samples" ? "direction" : "port";
                    const int64_t bytes = Count(db,
                                                "SELECT SUM(tx_bytes) FROM " + table +
                                                    " WHERE kind = 'nvswitch' AND " + column +
                                                    " = " + std::to_string(gpu) + " AND " + dir +
                                                    " = " + std::to_string(direction));
                    // Each row rounds to whole bytes.
                    const int64_t rows =
                        Count(db, "SELECT COUNT(*) FROM " + table + " WHERE kind = 'nvswitch'");
                    EXPECT_NEAR(static_cast<double>(bytes), perPort, static_cast<double>(rows))
                        << backend << " " << table << " GPU " << gpu << " direction " << direction;
                }
            }
            EXPECT_EQ(Count(db,
                            "SELECT COUNT(*) FROM " + table + " WHERE kind = 'nvswitch' AND " +
                                (table == "link_samples" ? "link_id" : "node_id") + " > 1"),
                      0)
                << backend << " " << table << ": only the job's two GPUs carried bytes";
        }
        EXPECT_EQ(Count(db, "SELECT COUNT(*) FROM link_samples WHERE kind = 'fabric'"), 0)
            << backend << ": nothing crossed the fabric";
        sqlite3_close(db);
    }
}

} // namespace
} // namespace test
} // namespace ns3
