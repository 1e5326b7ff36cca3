/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Jobs read from the files other simulators' users have, run as jobs here:
 * ASTRA-sim's collective microbenchmarks (Chakra traces) alone on an idle
 * switch against the collectives' closed forms at the link rate, its
 * point-to-point ring against the built-in ring all-reduce, the scenario
 * key that names a workload file (and its errors), the three-tenant
 * example from files under every policy at both levels, and SimAI's own
 * network inputs (SimAI.conf, a topology in its layout) beside its workload.
 */
#include "example-process-test-util.h"
#include "scenario-run-test.h"

#include "ns3/roce-header.h"
#include "ns3/scenario-reader.h"

#include <numeric>

namespace ns3
{
namespace test
{
namespace
{

const std::string kWorkloads = std::string(CS_SOURCE_DIR) + "/data/workloads/";
constexpr double kRateBps = 100e9;
constexpr double kDelay = 1e-6;

class WorkloadFilesTest : public ScenarioRunTest
{
  protected:
    /// One switch, \p hosts hosts of one GPU at 100 Gb/s, 1 us links: full bisection.
    static ScenarioSpec Star(uint32_t hosts)
    {
        ScenarioSpec spec;
        spec.source = "test";
        spec.name = "workload-files-test";
        spec.topology.kind = "star";
        spec.topology.gpusPerHost = 1;
        spec.topology.Set("hosts", UintegerValue(hosts));
        return spec;
    }

    /// A job of the Chakra trace \p prefix (under data/workloads/).
    static JobSpec Chakra(const std::string& prefix, uint32_t ranks)
    {
        JobSpec j;
        j.model = "chakra";
        j.workers = ranks;
        j.gpusPerHost = 1;
        j.iterations = 2;
        j.workload.format = "chakra";
        j.workload.path = kWorkloads + prefix;
        j.collective = "ring-all-reduce"; // the closed forms' ring, not NCCL's protocols
        return j;
    }
};

/// Seconds on the wire of \p payload bytes cut into MTU packets at the link rate.
double
Wire(double payload)
{
    const double mtu = RoceWire::kDefaultMtu;
    const double packet =
        RoceWire::WireBytes(RoceWire::kDefaultMtu + RoceWire::kEthernet + RoceWire::kIpv4 +
                            RoceWire::kUdp + RoceWire::kBth + RoceWire::kIcrc);
    return payload / mtu * packet * 8 / kRateBps;
}

/// One message through the switch: both links' delays, its bytes on the
/// wire, and the switch's store-and-forward of its last packet.
double
Message(double payload)
{
    return 2 * kDelay + Wire(payload) + Wire(std::min<double>(payload, RoceWire::kDefaultMtu));
}

TEST_F(WorkloadFilesTest, AstraSimMicrobenchmarksTakeTheirClosedFormsTime)
{
    const double mib = 1 << 20;
    for (uint32_t n : {8u, 16u})
    {
        // Ring reduce-scatter / all-gather: n-1 steps of a 1/n chunk;
        // all-reduce both; all-to-all: n-1 messages of 1/n at once per NIC.
        // An all-gather's comm_size is each rank's share: n MiB gathered.
        const std::map<std::string, double> expected{
            {"all_reduce", 2 * (n - 1) * Message(mib / n)},
            {"reduce_scatter", (n - 1) * Message(mib / n)},
            {"all_gather", (n - 1) * Message(mib)},
            {"all_to_all", Message((n - 1) * mib / n)},
        };
        for (const auto& [collective, seconds] : expected)
        {
            const std::string prefix = "astra-sim/microbenchmarks/" + collective + "/" +
                                       std::to_string(n) + "npus_1MB/" + collective;
            const JobOutcome o = RunAlone(Star(n), Chakra(prefix, n));
            EXPECT_NEAR(o.meanIteration.GetSeconds() / seconds, 1.0, 0.03)
                << collective << " over " << n << " ranks: measured "
                << o.meanIteration.GetSeconds() * 1e6 << " us, closed form " << seconds * 1e6
                << " us";
        }
    }
}

TEST_F(WorkloadFilesTest, ThePointToPointRingTakesTheBuiltInRingsTime)
{
    // ASTRA-sim's ring all-reduce written as sends, receives and compute,
    // against the built-in ring all-reduce of the same 1 MiB over 8 ranks.
    const JobOutcome custom =
        RunAlone(Star(8), Chakra("astra-sim/custom_ring_allreduce_8npus_1MB/custom_allreduce", 8));
    std::vector<uint32_t> hosts(8);
    std::iota(hosts.begin(), hosts.end(), 0);
    JobSpec ring = Job(0, hosts, 1 << 20, NanoSeconds(1), 2);
    ring.gpusPerHost = 1;
    const JobOutcome builtIn = RunAlone(Star(8), ring);
    // Each rank of the file also reduces what it received, in 7 compute
    // nodes of 7 us on its path (the built-in ring's reduction is free).
    const Time reductions = MicroSeconds(7 * 7);
    EXPECT_NEAR(Ratio(custom.meanIteration - reductions, builtIn.meanCommunication), 1.0, 0.02)
        << "custom " << custom.meanIteration.GetMicroSeconds() << " us, built-in "
        << builtIn.meanCommunication.GetMicroSeconds() << " us";
}

TEST_F(WorkloadFilesTest, AScenarioJobNamesItsWorkloadFile)
{
    const std::string simai =
        kWorkloads + "simai/aicb/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt";
    const std::string chakra =
        kWorkloads + "astra-sim/microbenchmarks/all_to_all/8npus_1MB/all_to_all";
    const std::string ok = Write("ok.json",
                                 R"({
  "topology": {"kind": "star", "star": {"hosts": 16}},
  "jobs": [
    {"workers": 8, "workload": {"format": "simai", "path": ")" +
                                     simai + R"("}},
    {"workload": {"format": "chakra", "path": ")" +
                                     chakra + R"(", "deps": "data"}}
  ]
})");
    const ScenarioSpec spec = ReadScenarioFile(ok);
    ASSERT_EQ(spec.jobs.size(), 2u);
    EXPECT_EQ(spec.jobs[0].workload.format, "simai");
    EXPECT_EQ(spec.jobs[0].workers, 8u);
    EXPECT_EQ(spec.jobs[1].workers, 8u) << "the trace's rank files";
    EXPECT_EQ(spec.jobs[1].workload.deps, "data");

    // Each mistake named where it is: the scenario's line and key, and the
    // workload file's own.
    const std::vector<std::pair<std::string, std::string>> bad{
        {R"({"format": "simai2", "path": "x"})",
         "bad.json:4: jobs[0].workload.format: unknown format"},
        {R"({"format": "simai"})", "bad.json:4: jobs[0].workload: needs path"},
        {R"({"format": "simai", "path": "x", "deps": "data"})",
         "bad.json:4: jobs[0].workload.deps: only a chakra trace has it"},
        {R"({"format": "chakra", "path": ")" + chakra + R"(", "deps": "ctrl"})",
         "bad.json:4: jobs[0].workload.deps: \"ctrl\""},
        {R"({"format": "simai", "path": "missing.txt"})", "missing.txt"},
        {R"({"format": "simai", "path": ")" + simai + R"("})", "A100.txt:1: all_gpus: missing"},
        {R"({"format": "chakra", "path": "nothing/here"})", "nothing/here.0.et"},
    };
    for (const auto& [workload, message] : bad)
    {
        const std::string path = Write("bad.json",
                                       "{\n  \"topology\": {\"kind\": \"star\", \"star\": "
                                       "{\"hosts\": 16}},\n  \"jobs\": [\n    {\"workload\": " +
                                           workload + "}\n  ]\n}\n");
        try
        {
            ReadScenarioFile(path);
            ADD_FAILURE() << workload << ": accepted";
        }
        catch (const std::exception& e)
        {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
                << workload << ": " << e.what();
        }
    }
}

TEST_F(WorkloadFilesTest, ThreeTenantsFromFilesRunUnderEveryPolicyAtBothLevels)
{
    const std::vector<std::string> policies =
        {"fair", "isolated", "cassini", "crux", "mltcp", "symphony", "harmonics", "optimal"};
    for (const std::string backend : {"packet", "flow"})
    {
        for (const std::string& policy : policies)
        {
            ScenarioSpec spec =
                ReadScenarioFile(std::string(CS_SOURCE_DIR) +
                                 "/examples/scenarios/workloads/three-tenants-from-files.json");
            spec.backend = backend;
            spec.output.db.clear();
            spec.scale = 0.002;
            for (JobSpec& j : spec.jobs)
            {
                j.iterations = 1;
            }
            const RunOutcome o = ScenarioRunner(spec, "test").Run(policy);
            ASSERT_EQ(o.jobs.size(), 4u);
            for (const JobOutcome& j : o.jobs)
            {
                EXPECT_TRUE(j.done && !j.failed)
                    << policy << " at the " << backend << " level: job " << j.id << " (" << j.model
                    << ")";
                EXPECT_NEAR(j.meanTime.Total(),
                            static_cast<double>(j.meanIteration.GetNanoSeconds()),
                            1.0)
                    << policy << ", " << backend << ", job " << j.id;
            }
        }
    }
}

TEST_F(WorkloadFilesTest, SimAiNetworkInputsRunBesideItsWorkload)
{
    const std::string example =
        std::string(CS_SOURCE_DIR) + "/examples/scenarios/workloads/simai-network-inputs.json";
    for (const std::string backend : {"packet", "flow"})
    {
        ScenarioSpec spec = ReadScenarioFile(example);
        spec.backend = backend;
        spec.scale = 0.01;
        const std::filesystem::path db = m_dir / (backend + ".db");
        spec.output.db = db.string();
        const RunOutcome o = ScenarioRunner(spec, "test").Run("fair");
        ASSERT_EQ(o.jobs.size(), 1u);
        EXPECT_TRUE(o.jobs[0].done && !o.jobs[0].failed) << backend;
        if (backend != "packet")
        {
            continue;
        }
        // SimAI.conf's 9000-byte payloads and an ACK per packet (L2_ACK_INTERVAL
        // 1), each crossing the two links between GPUs through the switch: 4
        // packet-hops per 9000 bytes of every message (the module's default
        // 4096-byte MTU and an ACK per 16 packets would make 2.1 per 4096).
        const int64_t hops = QueryInt(db, "SELECT packet_hops FROM runs");
        const int64_t packets = QueryInt(db, "SELECT sum((bytes + 8999) / 9000) FROM flows");
        ASSERT_GT(packets, 0);
        EXPECT_NEAR(static_cast<double>(hops), 4.0 * packets, 0.01 * 4 * packets);
        // The NICs' traffic is data-parallel only: each tensor-parallel pair shares a server.
        EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM flows WHERE (src_node < 8) = (dst_node < 8)"),
                  0);
    }

    // The config replaces the fabric keys: giving one beside it is an error
    // at the key; a config that misses the topology's port rate is one at its line.
    const std::string topo =
        std::string(CS_SOURCE_DIR) + "/examples/scenarios/workloads/simai-two-servers-topo.txt";
    const std::string job = R"("jobs": [{"workers": 2, "hosts": [0, 8]}])";
    auto scenario = [&](const std::string& fabric) {
        return Write("bad.json",
                     "{\n  \"topology\": {\"kind\": \"hpcc\", \"path\": \"" + topo +
                         "\"},\n  \"fabric\": " + fabric + ",\n  " + job + "\n}\n");
    };
    const std::string conf = Write("k.conf", "KMAX_MAP 1 100000000000 1600\n");
    const std::vector<std::pair<std::string, std::string>> bad{
        {R"({"mtu": 1024, "hpccConfig": "k.conf"})", "bad.json:3: fabric.mtu: fabric.hpccConfig"},
        {R"({"hpccConfig": "missing.conf"})", "bad.json:3: fabric.hpccConfig: "},
        {R"({"hpccConfig": "k.conf"})", "k.conf:1: KMAX_MAP: no entry for 400000000000 bit/s"},
    };
    for (const auto& [fabric, message] : bad)
    {
        try
        {
            ScenarioRunner(ReadScenarioFile(scenario(fabric)), "test").Run("fair");
            ADD_FAILURE() << fabric << ": accepted";
        }
        catch (const std::exception& e)
        {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
                << fabric << ": " << e.what();
        }
    }
}

} // namespace
} // namespace test
} // namespace ns3
