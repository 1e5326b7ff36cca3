/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The flow level against the packet level, on a subset of the validation
 * table (doc/flow-backend.md): every connection takes the same path at both
 * levels; an idle ring's iteration agrees within 2%, two rings sharing a
 * spine within 10%, two rings sharing uplinks at full scale within 5% with
 * the contended-port term (and not without it); identical MLTCP jobs leave
 * lockstep at both levels and agree on average within 5% with MLTCP's
 * tie-break (and not without it); a scheduler's gates act at both levels alike (the
 * ranking of fair and a gating policy is the same); the flow level writes
 * the same tables with the backend in the run's parameters; and a scenario
 * file's backend is read, an unknown one refused at its line.
 */

#include "scenario-run-test.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

using namespace ns3;

namespace
{

class FlowValidationTest : public test::ScenarioRunTest
{
  protected:
    static RunOutcome RunAt(ScenarioSpec spec,
                            const std::string& backend,
                            const std::string& policy)
    {
        spec.backend = backend;
        ScenarioRunner runner(spec, "flow-validation-test");
        return runner.Run(policy);
    }

    /// RunAt at the flow level with the default of \p path set to \p value for this run only.
    static RunOutcome RunFlowWith(const ScenarioSpec& spec,
                                  const std::string& policy,
                                  const std::string& path,
                                  const std::string& value)
    {
        ScopedConfigDefaults defaults;
        defaults.Set(path, value, "flow-validation-test");
        return RunAt(spec, "flow", policy);
    }

    static double Diff(Time flow, Time packet)
    {
        return std::abs(flow.GetSeconds() / packet.GetSeconds() - 1);
    }
};

TEST_F(FlowValidationTest, EveryConnectionTakesThePacketLevelPath)
{
    FatTreeParams ft;
    ft.k = 4;
    const FabricTopology topo = MakeFatTree(ft);
    for (uint32_t seed : {1u, 7u})
    {
        RoceFabricHelper helper;
        helper.SetEcmpSeed(seed);
        Ptr<RoceFabric> fabric = helper.Install(topo);
        Ptr<FlowNetwork> net = CreateObject<FlowNetwork>();
        net->SetAttribute("EcmpSeed", UintegerValue(seed));
        net->Build(topo);
        uint32_t compared = 0;
        for (uint32_t s = 0; s < topo.GetNHosts(); ++s)
        {
            for (uint32_t d = 0; d < topo.GetNHosts(); ++d)
            {
                for (uint16_t port = 0xC000; s != d && port < 0xC000 + 8; ++port)
                {
                    ASSERT_EQ(net->GetPath(s, d, port), fabric->GetPath(s, d, port))
                        << "seed " << seed << " hosts " << s << "->" << d << " port " << port;
                    ++compared;
                }
            }
        }
        EXPECT_EQ(compared, 16u * 15u * 8u);
        Simulator::Destroy();
    }
}

TEST_F(FlowValidationTest, IdleRingWithinTwoPercent)
{
    // A 4-rank ring over both leaves and the spine, alone.
    ScenarioSpec spec = TwoLeaves(1);
    spec.jobs.push_back(Job(0, {0, 2, 1, 3}, 4000000, MicroSeconds(100), 3));
    spec.jobs.back().gpusPerHost = 1;
    const RunOutcome packet = RunAt(spec, "packet", "fair");
    const RunOutcome flow = RunAt(spec, "flow", "fair");
    ASSERT_EQ(flow.jobs.size(), 1u);
    ASSERT_TRUE(flow.jobs[0].done);
    EXPECT_LT(Diff(flow.jobs[0].meanIteration, packet.jobs[0].meanIteration), 0.02)
        << "flow " << flow.jobs[0].meanIteration.GetMicroSeconds() << " us, packet "
        << packet.jobs[0].meanIteration.GetMicroSeconds() << " us";
    EXPECT_LT(Diff(flow.jobs[0].meanCommunication, packet.jobs[0].meanCommunication), 0.02);
}

TEST_F(FlowValidationTest, TwoRingsSharingTheSpineWithinTenPercentAndRankedAlike)
{
    // Job 0 on hosts {0, 2}, job 1 on {1, 3}: both cross the spine in the
    // same directions; compute a little longer than communication.
    ScenarioSpec spec = TwoLeaves(1);
    for (uint32_t j = 0; j < 2; ++j)
    {
        spec.jobs.push_back(Job(j, {j, j + 2}, 2000000, MicroSeconds(200), 6));
        spec.jobs.back().gpusPerHost = 1;
    }
    std::map<std::string, double> iteration[2];
    for (const char* policy : {"fair", "cassini"})
    {
        const RunOutcome packet = RunAt(spec, "packet", policy);
        const RunOutcome flow = RunAt(spec, "flow", policy);
        for (uint32_t j = 0; j < 2; ++j)
        {
            ASSERT_TRUE(flow.jobs[j].done);
            EXPECT_LT(Diff(flow.jobs[j].meanIteration, packet.jobs[j].meanIteration), 0.10)
                << policy << " job " << j << ": flow "
                << flow.jobs[j].meanIteration.GetMicroSeconds() << " us, packet "
                << packet.jobs[j].meanIteration.GetMicroSeconds() << " us";
        }
        iteration[0][policy] = packet.MeanIterationTime().GetSeconds();
        iteration[1][policy] = flow.MeanIterationTime().GetSeconds();
    }
    // Same order of the two policies at both levels.
    EXPECT_EQ(iteration[0]["cassini"] < iteration[0]["fair"],
              iteration[1]["cassini"] < iteration[1]["fair"]);
}

TEST_F(FlowValidationTest, TwoRingsSharingUplinksAtFullScaleAgreeWithTheContendedPortTerm)
{
    // The validation scenario at full scale, 2 iterations: two rings share
    // both leaves' uplinks for tens of milliseconds, where DCQCN leaves the
    // ports idle part of the time. With ContendedLinkEfficiency the levels'
    // communication times agree within 5%; ideal sharing is over 10% faster.
    ScenarioSpec spec = ReadScenarioFile(
        std::string(CS_SOURCE_DIR) + "/examples/scenarios/flow-validation/two-rings-uplink.json");
    ASSERT_DOUBLE_EQ(spec.scale, 1.0);
    for (JobSpec& j : spec.jobs)
    {
        j.iterations = 2;
    }
    const RunOutcome packet = RunAt(spec, "packet", "fair");
    const RunOutcome flow = RunAt(spec, "flow", "fair");
    const RunOutcome ideal =
        RunFlowWith(spec, "fair", "ns3::FlowNetwork::ContendedLinkEfficiency", "1");
    ASSERT_EQ(packet.jobs.size(), 2u);
    for (std::size_t j = 0; j < 2; ++j)
    {
        ASSERT_TRUE(flow.jobs[j].done);
        EXPECT_LT(Diff(flow.jobs[j].meanCommunication, packet.jobs[j].meanCommunication), 0.05)
            << "job " << j << ": flow " << flow.jobs[j].meanCommunication.GetMicroSeconds()
            << " us, packet " << packet.jobs[j].meanCommunication.GetMicroSeconds() << " us";
        EXPECT_LT(ideal.jobs[j].meanCommunication.GetSeconds(),
                  0.9 * packet.jobs[j].meanCommunication.GetSeconds())
            << "job " << j;
    }
}

TEST_F(FlowValidationTest, IdenticalMltcpJobsLeaveLockstepAtBothLevels)
{
    // The validation incast at full scale: four identical rings share one
    // port under MLTCP. At the packet level DCQCN's noise gives one ring a
    // lead that MLTCP's feedback widens, and the rings drift apart. The flow
    // level breaks the tie by MltcpTieBreak: its jobs drift apart too, and
    // the jobs' mean iteration agrees within 5%; without the tie-break they
    // stay in lockstep, as under fair sharing, over 10% slower.
    ScenarioSpec spec = ReadScenarioFile(std::string(CS_SOURCE_DIR) +
                                         "/examples/scenarios/flow-validation/incast.json");
    ASSERT_DOUBLE_EQ(spec.scale, 1.0);
    auto spread = [](const RunOutcome& o) {
        Time lo = o.jobs[0].meanIteration;
        Time hi = lo;
        for (const JobOutcome& j : o.jobs)
        {
            EXPECT_TRUE(j.done);
            lo = std::min(lo, j.meanIteration);
            hi = std::max(hi, j.meanIteration);
        }
        return hi.GetSeconds() / lo.GetSeconds() - 1;
    };
    const RunOutcome packet = RunAt(spec, "packet", "mltcp");
    const RunOutcome flow = RunAt(spec, "flow", "mltcp");
    const RunOutcome tied = RunFlowWith(spec, "mltcp", "ns3::FlowNetwork::MltcpTieBreak", "0");
    ASSERT_EQ(packet.jobs.size(), 4u);
    EXPECT_GT(spread(packet), 0.05);
    EXPECT_GT(spread(flow), 0.05);
    EXPECT_EQ(spread(tied), 0);
    EXPECT_LT(Diff(flow.MeanIterationTime(), packet.MeanIterationTime()), 0.05)
        << "flow " << flow.MeanIterationTime().GetMicroSeconds() << " us, packet "
        << packet.MeanIterationTime().GetMicroSeconds() << " us";
    EXPECT_GT(tied.MeanIterationTime().GetSeconds(), 1.1 * packet.MeanIterationTime().GetSeconds());
}

TEST_F(FlowValidationTest, WritesTheSameTablesWithTheBackendInTheRun)
{
    ScenarioSpec spec = TwoLeaves(1);
    spec.jobs.push_back(Job(0, {0, 2}, 1000000, MicroSeconds(50), 2));
    spec.jobs.back().gpusPerHost = 1;
    spec.output.db = (m_dir / "flow.db").string();
    spec.backend = "flow";
    ScenarioRunner(spec, "flow-validation-test").Run("fair");
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(spec.output.db.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(test::Count(db,
                          "SELECT COUNT(*) FROM runs WHERE status='complete' AND "
                          "json_extract(params_json,'$.backend')='flow'"),
              1);
    EXPECT_EQ(test::Count(db, "SELECT COUNT(*) FROM jobs"), 1);
    EXPECT_EQ(test::Count(db, "SELECT COUNT(*) FROM iterations"), 2);
    // Every message delivered, after it was posted, and acknowledged after that.
    const int64_t flows = test::Count(db, "SELECT COUNT(*) FROM flows");
    EXPECT_GT(flows, 0);
    EXPECT_EQ(
        test::Count(db, "SELECT COUNT(*) FROM flows WHERE end_ns > start_ns AND ack_ns > end_ns"),
        flows);
    EXPECT_GT(test::Count(db, "SELECT SUM(tx_bytes_ab + tx_bytes_ba) FROM links"), 4 * 1000000);
    sqlite3_close(db);
}

} // namespace

namespace
{

TEST(FlowBackendScenarioTest, BackendIsReadAndAnUnknownOneIsRefusedAtItsLine)
{
    const std::string head = R"({
  "topology": { "kind": "star", "star": { "hosts": 2 } },
  "jobs": [ { "model": "gpt2-124m", "workers": 2 } ],
)";
    EXPECT_EQ(ReadScenarioText(head + "  \"backend\": \"flow\"\n}\n", "s.json").backend, "flow");
    EXPECT_EQ(ReadScenarioText(head + "  \"seed\": 1\n}\n", "s.json").backend, "packet");
    try
    {
        ReadScenarioText(head + "  \"backend\": \"fluid\"\n}\n", "s.json");
        FAIL() << "an unknown backend was accepted";
    }
    catch (const std::runtime_error& e)
    {
        const std::string what = e.what();
        EXPECT_NE(what.find("s.json:4"), std::string::npos) << what;
        EXPECT_NE(what.find("backend"), std::string::npos) << what;
        EXPECT_NE(what.find("\"packet\" or \"flow\""), std::string::npos) << what;
    }
}

} // namespace
