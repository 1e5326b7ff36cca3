/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The port monitors against independent counts: a 2:1 incast's egress queue
 * at every sample against the queue of a FIFO computed by hand from the
 * frames' sizes and the line rate; PFC paused time summed over the samples
 * against the links table's totals; CNPs per NIC against the NICs' counters;
 * queue-pair rates that sampling does not disturb; nothing scheduled when
 * off; bad port and host lists named.
 */
#include "example-process-test-util.h"
#include "fabric-test-util.h"
#include "temp-dir-test.h"

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t kRate = 100000000000ull; // 100 Gb/s
constexpr int64_t kDelayNs = 1000;

/// A star of \p hosts hosts; senders 1..n send \p bytes each to host 0 at time 0.
struct Incast
{
    Ptr<RoceFabric> fabric;
    std::unique_ptr<RoceFlowMonitor> flows;
    Ptr<PortMonitor> monitor;
    std::vector<PortMonitor::PortSample> samples;

    Incast(uint32_t senders,
           uint64_t bytes,
           bool pfc,
           const std::string& cc,
           uint64_t bufferBytes,
           Time interval,
           const std::string& qpHosts = "")
    {
        RoceFabricHelper helper;
        helper.SetCongestionControl(cc);
        helper.SetSwitchAttribute("PfcEnabled", BooleanValue(pfc));
        helper.SetMmuAttribute("BufferSize", UintegerValue(bufferBytes));
        if (!pfc)
        {
            helper.SetMmuAttribute("EgressAlpha", DoubleValue(1e6)); // no drop for want of buffer
        }
        fabric = helper.Install(test::MakeStar(senders + 1, kRate, kDelayNs));
        fabric->AssignStreams(0); // runs in one process draw the same numbers
        flows = std::make_unique<RoceFlowMonitor>(fabric);
        monitor = CreateObjectWithAttributes<PortMonitor>("Interval",
                                                          TimeValue(interval),
                                                          "QueuePairHosts",
                                                          StringValue(qpHosts));
        monitor->SetPortSampleSink(
            [this](const PortMonitor::PortSample& s) { samples.push_back(s); });
        monitor->Install(fabric, nullptr, 0, nullptr);
        for (uint32_t s = 1; s <= senders; ++s)
        {
            RdmaMessageInfo info;
            info.bytes = bytes;
            fabric->SendMessage(s, 0, info, Seconds(0));
        }
    }
};

using PortMonitorTest = test::FabricTempDirTest;

TEST_F(PortMonitorTest, AnIncastQueueMatchesTheFifoComputedByHand)
{
    const uint32_t mtu = RoceWire::kDefaultMtu;
    const uint64_t bytes = 40ull * mtu;
    const Time interval = NanoSeconds(997); // off the frames' grid
    Incast run(2, bytes, false, "none", 64 << 20, interval);
    Simulator::Run();
    ASSERT_EQ(run.flows->GetCompletedFlows(), 2u);

    // The switch's port 0 (to host 0) as a FIFO: each sender's frames leave
    // back to back at the line rate and arrive a link delay after their last
    // bit; the port starts each frame when it has arrived and the previous
    // one has left.
    struct Frame
    {
        double arrival;
        double bytes;
        double wireSeconds;
    };

    std::vector<Frame> frames;
    for (int s = 0; s < 2; ++s)
    {
        double sent = 0;
        for (uint64_t i = 0; i * mtu < bytes; ++i)
        {
            const uint64_t frame = test::DataFrameBytes(bytes, mtu, i);
            sent += static_cast<double>(test::WireOf(frame)) * 8 / kRate;
            frames.push_back({sent + kDelayNs * 1e-9,
                              static_cast<double>(frame),
                              static_cast<double>(test::WireOf(frame)) * 8 / kRate});
        }
    }
    std::stable_sort(frames.begin(), frames.end(), [](const Frame& a, const Frame& b) {
        return a.arrival < b.arrival;
    });
    std::vector<double> start(frames.size());
    double free = 0;
    for (std::size_t k = 0; k < frames.size(); ++k)
    {
        start[k] = std::max(frames[k].arrival, free);
        free = start[k] + frames[k].wireSeconds;
    }
    auto queueAt = [&](double t) {
        double q = 0;
        for (std::size_t k = 0; k < frames.size(); ++k)
        {
            q += frames[k].arrival <= t && start[k] > t ? frames[k].bytes : 0;
        }
        return q;
    };

    // Port 0 of the switch (node 0), summed over classes, by sample time.
    std::map<int64_t, double> sampled;
    for (const PortMonitor::PortSample& s : run.samples)
    {
        if (s.node == 0 && s.port == 0)
        {
            sampled[s.tNs] += static_cast<double>(s.queueBytes);
        }
    }
    const double frameBytes = static_cast<double>(test::DataFrameBytes(bytes, mtu, 0));
    int busy = 0;
    for (int64_t t = interval.GetNanoSeconds(); t * 1e-9 < free; t += interval.GetNanoSeconds())
    {
        const double expected = queueAt(t * 1e-9);
        const double got = sampled.count(t) ? sampled[t] : 0.0;
        EXPECT_NEAR(got, expected, frameBytes) << "at " << t << " ns";
        busy += expected > 0;
    }
    EXPECT_GT(busy, 10) << "the incast queues for most of its samples";
}

TEST_F(PortMonitorTest, PausedTimeOverTheSamplesIsTheLinksTotal)
{
    // 4:1 with PFC in a small buffer: the switch pauses the senders' NICs.
    Incast run(4, 2 << 20, true, "none", 2 << 20, MicroSeconds(3));
    Simulator::Run();
    ASSERT_EQ(run.flows->GetCompletedFlows(), 4u);
    std::map<uint32_t, int64_t> sampled; // by link
    for (const PortMonitor::PortSample& s : run.samples)
    {
        sampled[s.link] += s.pausedNs;
    }
    int64_t total = 0;
    for (const LinkRecord& l : run.flows->GetLinkRecords(0))
    {
        EXPECT_EQ(sampled[l.linkId], static_cast<int64_t>(l.pfcPausedNs)) << "link " << l.linkId;
        total += static_cast<int64_t>(l.pfcPausedNs);
    }
    EXPECT_GT(total, 0) << "the incast paused the senders";
    EXPECT_GT(run.fabric->GetSwitch(0)->GetTotalPausesSent(), 0u);
}

TEST_F(PortMonitorTest, CnpSamplesAddUpToTheNicsCountsAndRateSamplingChangesNothing)
{
    auto ends = [](const RoceFlowMonitor& flows) {
        std::vector<int64_t> t;
        for (const FlowRecord& f : flows.GetFlowRecords(0))
        {
            t.push_back(f.endNs);
        }
        return t;
    };
    std::vector<int64_t> quiet;
    {
        Incast run(4, 4 << 20, true, "dcqcn", 32 << 20, MicroSeconds(5));
        Simulator::Run();
        quiet = ends(*run.flows);
        Simulator::Destroy();
    }
    const std::string path = (m_dir / "monitor.db").string();
    Ptr<ResultsDatabase> db = CreateObject<ResultsDatabase>();
    db->Open(path);
    const int64_t runId = db->BeginRun("port-monitor-test", "none", 1, "{}");
    Incast run(4, 4 << 20, true, "dcqcn", 32 << 20, MicroSeconds(5), "all");
    run.monitor->Dispose(); // installed without a database: this one writes
    Ptr<PortMonitor> monitor = CreateObjectWithAttributes<PortMonitor>("Interval",
                                                                       TimeValue(MicroSeconds(5)),
                                                                       "QueuePairHosts",
                                                                       StringValue("all"));
    monitor->Install(run.fabric, db, runId, nullptr);
    Simulator::Run();
    EXPECT_EQ(ends(*run.flows), quiet) << "sampling the queue pairs' rates moved the flows";
    db->FinishRun(runId, Simulator::Now().GetNanoSeconds(), 0, 0, 0);
    db->Close();

    uint64_t sent = 0;
    uint64_t received = 0;
    for (uint32_t h = 0; h < 5; ++h)
    {
        const uint32_t node = run.fabric->GetHost(h)->GetId();
        const auto sums = test::Query(path,
                                      "SELECT coalesce(sum(cnps_sent), 0), "
                                      "coalesce(sum(cnps_received), 0) FROM nic_samples "
                                      "WHERE node_id = " +
                                          std::to_string(node));
        EXPECT_EQ(std::stoull(*sums.at(0).at(0)), run.fabric->GetNic(h)->GetCnpsSent()) << h;
        EXPECT_EQ(std::stoull(*sums.at(0).at(1)), run.fabric->GetNic(h)->GetCnpsReceived()) << h;
        sent += run.fabric->GetNic(h)->GetCnpsSent();
        received += run.fabric->GetNic(h)->GetCnpsReceived();
    }
    EXPECT_GT(sent, 0u) << "DCQCN reacted to the incast";
    EXPECT_EQ(sent, received);
    // Each sender's queue pair is sampled while it sends, below the line rate
    // once DCQCN has cut it, never above.
    EXPECT_EQ(test::QueryInt(path, "SELECT count(DISTINCT node_id) FROM qp_samples"), 4);
    EXPECT_EQ(
        test::QueryInt(path,
                       "SELECT count(*) FROM qp_samples WHERE rate_bps > " + std::to_string(kRate)),
        0);
    EXPECT_GT(test::QueryInt(path,
                             "SELECT count(*) FROM qp_samples WHERE rate_bps < " +
                                 std::to_string(kRate / 2)),
              0);
}

TEST_F(PortMonitorTest, OffItSchedulesNothing)
{
    uint64_t events[2];
    for (int on = 0; on < 2; ++on)
    {
        Incast run(2, 1 << 20, true, "dcqcn", 32 << 20, on ? MicroSeconds(1) : Time(0));
        Simulator::Run();
        events[on] = Simulator::GetEventCount();
        if (!on)
        {
            EXPECT_TRUE(run.samples.empty());
        }
        Simulator::Destroy();
    }
    EXPECT_GT(events[1], events[0]);
}

TEST_F(PortMonitorTest, PortAndHostListsNameWhatTheFabricLacks)
{
    RoceFabricHelper helper;
    Ptr<RoceFabric> fabric = helper.Install(test::MakeStar(3));
    const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> bad{
        {{"9", ""}, "Ports: \"9\" is not a node"},
        {{"0:7", ""}, "Ports: \"7\" is not a port of the node"},
        {{"x", ""}, "Ports: \"x\""},
        {{"", "3"}, "QueuePairHosts: \"3\" is not a host"},
    };
    for (const auto& [lists, message] : bad)
    {
        Ptr<PortMonitor> m = CreateObjectWithAttributes<PortMonitor>("Interval",
                                                                     TimeValue(MicroSeconds(1)),
                                                                     "Ports",
                                                                     StringValue(lists.first),
                                                                     "QueuePairHosts",
                                                                     StringValue(lists.second));
        try
        {
            m->Install(fabric, nullptr, 0, nullptr);
            ADD_FAILURE() << lists.first << " / " << lists.second << ": accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
}

} // namespace
