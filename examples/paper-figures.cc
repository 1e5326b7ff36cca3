/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The packet-level runs behind the figures of the Symphony and Harmonics
 * papers, written to one SQLite file that utils/plot-figures.py draws:
 *
 *  1. training and communication time per scheduler: a GPT-2 / Pythia mix
 *     of rack-local and cross-rack jobs on 8-GPU hosts, under every policy,
 *     on a full-bisection k=4 fat-tree ("figure1"), on a leaf-spine with
 *     the same racks and 2:1 oversubscribed uplinks
 *     ("figure1-oversubscribed") and on a full-bisection rail-optimized
 *     fabric with a NIC per GPU and rail groups of two servers
 *     ("figure1-rail-optimized");
 *  3. a large cluster: a k=8 fat-tree of 8-GPU hosts with jobs arriving over
 *     time from the synthetic generator, under the main policies and
 *     optimal ("figure3");
 *  4. interleaving: two jobs sharing a spine, fair sharing versus Harmonics,
 *     Symphony and optimal, with per-link throughput sampled ("figure4");
 *  6. a multi-tenant LLM cluster: five LLM jobs of different shapes (tensor,
 *     pipeline, data and expert parallelism, ZeRO-1 and ZeRO-3) on a
 *     rail-optimized fabric of 16 servers x 8 GPUs, 2:1 between rail
 *     groups, under every policy ("figure6").
 * (Figure 2, scheduling time against cluster size, needs no packets: see
 * examples/scheduling-time; figure 5 runs at the flow level from scenario
 * files, in utils/make-figures.sh.)
 *
 * Every job runs 20 iterations (8 in figure 4, 5 in figure 6) of its model
 * at full size.
 * --scale multiplies gradient bytes and compute time alike (keeping their
 * ratio), --mtu sets the RoCE path MTU (payload per packet, 4096 by
 * default): both trade fidelity for run time (a scaled-down run's DCQCN
 * timers, link delays and PFC do not scale); doc/figures.md gives each
 * figure's wall time. A figure's simulations run side by side, one per core
 * (--parallel), with the same results as one after the other; figure 1's
 * three fabrics share one pool of processes.
 *
 *   ./paper-figures --figure=all --db=figures.db
 *   ./paper-figures --figure=1 --fabric=oversubscribed --scale=0.05 --db=figures.db
 *   ./paper-figures --figure=1 --fabric=rail --scale=0.05 --db=figures.db
 */

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/// Flags shared by every figure.
struct FigureFlags
{
    double scale{1}; ///< gradient bytes and compute time, over the models' own
    uint32_t mtu{RoceWire::kDefaultMtu};
    uint32_t iterations{0}; ///< 0: the figure's default
    uint32_t seed{1};
    std::string db;
    double progress{10};           ///< seconds of wall-clock time between progress lines, 0: none
    std::string backend{"packet"}; ///< packet or flow
    std::string cc;                ///< congestion control, as the scenario key; empty: dcqcn
    /// Figure 1's fabrics: all, both (fat-tree and oversubscribed), fat-tree, oversubscribed
    /// or rail.
    std::string fabric{"all"};
    uint32_t parallel{0}; ///< simulations at once (0: one per core)
    /// Policies besides fair and isolated, if not each figure's own.
    std::vector<std::string> policies;
    /// Figure 6: the groups whose collectives the planners plan (JobSpec::planned).
    std::vector<CommGroup> planned{CommGroup::Data};
};

/// The policies \p f asks for, else the figure's own \p defaults.
std::vector<std::string>
PoliciesOf(const FigureFlags& f, std::vector<std::string> defaults)
{
    return f.policies.empty() ? defaults : f.policies;
}

/// A runner for \p spec that reports progress as the flags ask.
std::unique_ptr<ScenarioRunner>
RunnerFor(const ScenarioSpec& spec, const FigureFlags& f)
{
    auto runner = std::make_unique<ScenarioRunner>(spec, "paper-figures");
    runner->SetShowProgress(Seconds(f.progress), &std::cerr);
    runner->SetParallelRuns(f.parallel);
    return runner;
}

JobSpec
JobOf(const std::string& model, uint32_t workers, uint32_t iterations, double scale)
{
    JobSpec j;
    j.model = model;
    j.workers = workers;
    j.gpusPerHost = 1;
    j.placement = "spread";
    j.iterations = iterations;
    j.scale = scale;
    j.latencyScale = scale; // the figure at a fraction of its size keeps its ratios
    return j;
}

ScenarioSpec
BaseSpec(const std::string& name, const FigureFlags& f)
{
    ScenarioSpec spec;
    spec.source = "paper-figures";
    spec.name = name;
    spec.seed = f.seed;
    spec.fabric.mtu = f.mtu;
    spec.output.db = f.db;
    spec.output.flowRows = false;
    spec.topology.gpusPerHost = 1;
    spec.backend = f.backend;
    if (!f.cc.empty())
    {
        spec.fabric.cc = f.cc;
    }
    return spec;
}

/// A job of \p model whose workers sit \p gpusEach to a host on \p hosts
/// (an NCCL ring: a host's GPUs adjacent, over NVLink; host to host over
/// the fabric).
JobSpec
JobOnHosts(const std::string& model,
           const std::vector<uint32_t>& hosts,
           uint32_t gpusEach,
           uint32_t iterations,
           double scale)
{
    JobSpec j = JobOf(model, static_cast<uint32_t>(hosts.size()) * gpusEach, iterations, scale);
    j.placement = "explicit";
    j.gpusPerHost = gpusEach;
    for (uint32_t h : hosts)
    {
        j.hosts.insert(j.hosts.end(), gpusEach, h);
    }
    return j;
}

/// Figure 1's jobs: 16 hosts of 8 GPUs in racks of two (hosts 2r and 2r+1),
/// every host shared by two jobs of 4 GPUs each. Rack-local jobs share their
/// hosts' links with each other (rack 0) or with a cross-rack job (racks 1
/// and 3), which only time can separate; cross-rack jobs share hosts (racks
/// 1 to 3) or uplinks (racks 4 to 7, where routing can separate them on a
/// full-bisection fabric and cannot on an oversubscribed one). Both
/// Harmonics tiers have work: a Local Scheduler in racks 0, 1 and 3, the
/// coordinator for the cross-rack jobs.
std::vector<JobSpec>
Figure1Jobs(uint32_t iterations, double scale)
{
    struct Entry
    {
        const char* model;
        std::vector<uint32_t> hosts;
    };

    const std::vector<Entry> entries{
        {"gpt2-124m", {0, 1}},            // rack 0, local
        {"pythia-160m", {0, 1}},          // rack 0, local
        {"gpt2-355m", {2, 3}},            // rack 1, local
        {"pythia-410m", {6, 7}},          // rack 3, local
        {"pythia-160m", {2, 3, 4, 5}},    // racks 1-2
        {"gpt2-124m", {4, 5, 6, 7}},      // racks 2-3
        {"pythia-410m", {8, 10, 12, 14}}, // racks 4-7
        {"gpt2-355m", {9, 11, 13, 15}},   // racks 4-7
    };
    std::vector<JobSpec> jobs;
    for (const Entry& e : entries)
    {
        jobs.push_back(JobOnHosts(e.model, e.hosts, 4, iterations, scale));
        jobs.back().id = static_cast<uint32_t>(jobs.size() - 1);
    }
    return jobs;
}

/// Figure 1's rail-optimized fabric: 16 servers of 8 GPUs, each GPU with a
/// 100 Gb/s NIC of its own on its rail's leaf, in rail groups of two servers
/// (the racks of two hosts of the other fabrics), 8 groups x 8 rails = 64
/// rail leaves. A rail leaf has two NICs below it (one per server of its
/// group) and one link to each spine above: two spines give it as many
/// uplinks as NICs, at the same rate, as the k=4 fat-tree gives its edge
/// switches (two hosts, two uplinks). Full bisection: 128 NIC links below
/// the spines, 128 rail leaf - spine links.
RailOptimizedParams
Figure1Rails()
{
    RailOptimizedParams p;
    p.servers = 16;
    p.gpusPerServer = 8;
    p.serversPerGroup = 2;
    p.spines = 2;
    p.linksPerRailSpine = 1;
    return p;
}

/// Make \p spec's fabric the rail-optimized one \p p describes.
void
SetRails(ScenarioSpec& spec, const RailOptimizedParams& p)
{
    spec.topology.kind = "rail-optimized";
    spec.topology.Set("servers", UintegerValue(p.servers))
        .Set("gpusPerServer", UintegerValue(p.gpusPerServer))
        .Set("serversPerGroup", UintegerValue(p.serversPerGroup))
        .Set("spines", UintegerValue(p.spines))
        .Set("linksPerRailSpine", UintegerValue(p.linksPerRailSpine))
        .Set("hostRate", DataRateValue(DataRate(p.hostRateBps)))
        .Set("railSpineRate", DataRateValue(DataRate(p.railSpineRateBps)))
        .Set("hostDelay", TimeValue(NanoSeconds(p.hostDelayNs)))
        .Set("railSpineDelay", TimeValue(NanoSeconds(p.railSpineDelayNs)));
}

/// A job of \p model on GPUs \p firstGpu to \p firstGpu + 3 of each of
/// \p servers of the rail-optimized fabric \p rails (its hosts are NICs,
/// one GPU each), in a rail-aligned ring as NCCL builds it: a server's GPUs
/// adjacent (over NVLink), upwards on the job's 1st, 3rd, ... server and
/// downwards on the others, so that the ring leaves each server on the rail
/// it enters the next one on. With an even number of servers the hop that
/// closes the ring stays on rail \p firstGpu too.
JobSpec
JobOnRails(const std::string& model,
           const std::vector<uint32_t>& servers,
           uint32_t firstGpu,
           const RailOptimizedParams& rails,
           uint32_t iterations,
           double scale)
{
    std::vector<uint32_t> nics;
    for (std::size_t i = 0; i < servers.size(); ++i)
    {
        for (uint32_t k = 0; k < 4; ++k)
        {
            const uint32_t gpu = firstGpu + (i % 2 == 0 ? k : 3 - k);
            nics.push_back(RailOptimizedHost(rails, servers[i], gpu));
        }
    }
    return JobOnHosts(model, nics, 1, iterations, scale);
}

/// Figure 1's jobs on the rail-optimized fabric \p rails: the jobs of
/// Figure1Jobs on the same servers (hosts there, rail groups of two servers
/// here), each on GPUs 0-3 or 4-7 of all its servers, so that two jobs
/// sharing a server take its two halves. Jobs 0-3 stay inside one rail group
/// (for its Local Scheduler), 4-7 cross groups (for the coordinator). A
/// job's NICs are its own, so jobs sharing a server no longer share a link;
/// jobs 6 and 7 (servers 8-15, GPUs 0-3 both) share the rail leaves of
/// rails 0 and 3 of groups 4-7 and their uplinks, which routing can keep
/// apart, as they share their racks' uplinks on the fat-tree.
std::vector<JobSpec>
Figure1RailJobs(const RailOptimizedParams& rails, uint32_t iterations, double scale)
{
    struct Entry
    {
        const char* model;
        std::vector<uint32_t> servers;
        uint32_t firstGpu;
    };

    const std::vector<Entry> entries{
        {"gpt2-124m", {0, 1}, 0},            // group 0, local
        {"pythia-160m", {0, 1}, 4},          // group 0, local
        {"gpt2-355m", {2, 3}, 0},            // group 1, local
        {"pythia-410m", {6, 7}, 4},          // group 3, local
        {"pythia-160m", {2, 3, 4, 5}, 4},    // groups 1-2
        {"gpt2-124m", {4, 5, 6, 7}, 0},      // groups 2-3
        {"pythia-410m", {8, 10, 12, 14}, 0}, // groups 4-7
        {"gpt2-355m", {9, 11, 13, 15}, 0},   // groups 4-7
    };
    std::vector<JobSpec> jobs;
    for (const Entry& e : entries)
    {
        jobs.push_back(JobOnRails(e.model, e.servers, e.firstGpu, rails, iterations, scale));
        jobs.back().id = static_cast<uint32_t>(jobs.size() - 1);
    }
    return jobs;
}

/// Figure 1: a GPT-2 / Pythia mix of rack-local and cross-rack jobs on
/// 8-GPU hosts, under every policy, on a full-bisection k=4 fat-tree
/// ("figure1"), on a leaf-spine with the same racks whose uplinks are 2:1
/// oversubscribed ("figure1-oversubscribed") and on a full-bisection
/// rail-optimized fabric ("figure1-rail-optimized"), as \p f's fabric flag
/// asks.
void
Figure1(const FigureFlags& f)
{
    const double scale = f.scale;
    const uint32_t iterations = f.iterations > 0 ? f.iterations : 20;

    ScenarioSpec fatTree = BaseSpec("figure1", f);
    fatTree.description = "GPT-2 and Pythia jobs, rack-local and cross-rack, on 8-GPU hosts of "
                          "a k=4 fat-tree";
    fatTree.topology.Set("k", UintegerValue(4));

    // Racks of two hosts as in the k=4 fat-tree, one uplink each: 2:1.
    ScenarioSpec leafSpine = BaseSpec("figure1-oversubscribed", f);
    leafSpine.description = "the same jobs on a leaf-spine with the same racks and 2:1 "
                            "oversubscribed uplinks";
    leafSpine.topology.kind = "leaf-spine";
    leafSpine.topology.Set("leaves", UintegerValue(8))
        .Set("spines", UintegerValue(1))
        .Set("hostsPerLeaf", UintegerValue(2));

    ScenarioSpec rails = BaseSpec("figure1-rail-optimized", f);
    rails.description = "the same jobs on a rail-optimized fabric of 8-GPU servers with a NIC per "
                        "GPU, rail groups of two servers, full bisection";
    SetRails(rails, Figure1Rails());
    rails.jobs = Figure1RailJobs(
        DynamicCast<RailOptimizedBuilder>(rails.topology.MakeBuilder())->GetParams(),
        iterations,
        scale);

    const std::vector<std::pair<std::string, ScenarioSpec*>> fabrics{{"fat-tree", &fatTree},
                                                                     {"oversubscribed", &leafSpine},
                                                                     {"rail", &rails}};
    // The fabrics' simulations share one pool of processes: a core that ends
    // one fabric's last simulation starts the next fabric's first.
    std::vector<std::unique_ptr<ScenarioRunner>> runners;
    std::vector<ScenarioRunner::Comparison> comparisons;
    for (const auto& [fabric, spec] : fabrics)
    {
        const bool wanted =
            f.fabric == fabric || f.fabric == "all" || (f.fabric == "both" && fabric != "rail");
        if (!wanted)
        {
            continue;
        }
        if (spec != &rails)
        {
            spec->topology.gpusPerHost = 8;
            spec->jobs = Figure1Jobs(iterations, scale);
        }
        runners.push_back(RunnerFor(*spec, f));
        comparisons.push_back(
            {runners.back().get(), PoliciesOf(f, CollectiveSchedulerHelper::GetSchedulerNames())});
    }
    ScenarioRunner::CompareTogether(comparisons, f.parallel, std::cout);
}

/// Figure 3: jobs arriving over time on a k=8 fat-tree of 8-GPU hosts (1024
/// GPUs). Each job takes 4 GPUs per host, packed, so two jobs share every
/// host: a 16-GPU job fills one rack's four hosts (a rack-local job, for
/// that rack's Local Scheduler), a 32-GPU job two racks (a cross-rack one,
/// for the coordinator).
void
Figure3(const FigureFlags& f)
{
    ScenarioSpec spec = BaseSpec("figure3", f);
    spec.description = "synthetic GPT-2 / Pythia jobs, rack-local and cross-rack, arriving on a "
                       "k=8 fat-tree of 8-GPU hosts";
    spec.topology.Set("k", UintegerValue(8));
    spec.topology.gpusPerHost = 8;
    spec.jobDefaults = JobOf("gpt2-124m", 16, f.iterations > 0 ? f.iterations : 20, 1.0);
    spec.jobDefaults.gpusPerHost = 4;
    spec.jobDefaults.placement = "packed";
    spec.scale = f.scale;
    spec.synthetic.enabled = true;
    spec.synthetic.jobs = 16;
    spec.synthetic.arrivalRatePerS = 4000; // a job every 250 us on average
    spec.synthetic.modelMix = {{"gpt2-124m", 2},
                               {"gpt2-355m", 1},
                               {"pythia-160m", 2},
                               {"pythia-410m", 1}};
    spec.synthetic.workerSizes = {{16, 2}, {32, 1}};
    spec.synthetic.seed = f.seed;
    // A central MILP over 16 jobs takes seconds per solve; cap it and plan
    // every 5 ms (its solve time is charged in simulated time). Optimal's
    // whole-run reference is made once, when the last job has arrived.
    spec.attributes = {
        {"ns3::EpochScheduler::TimeLimit", "1s"},
        {"ns3::EpochScheduler::EpochLength", "5ms"},
        {"ns3::OptimalScheduler::ReferenceJobs", std::to_string(spec.synthetic.jobs)}};
    RunnerFor(spec, f)->Compare(
        PoliciesOf(f, {"fair", "crux", "cassini", "mltcp", "symphony", "harmonics", "optimal"}),
        std::cout);
}

/// Figure 4: two jobs sharing a spine, with the links sampled every 100 us
/// (a full-scale collective lasts about 20 ms).
void
Figure4(const FigureFlags& f)
{
    ScenarioSpec spec = BaseSpec("figure4", f);
    spec.description = "two jobs sharing a spine: fair sharing versus the planners";
    spec.topology.kind = "leaf-spine";
    spec.topology.Set("leaves", UintegerValue(2))
        .Set("spines", UintegerValue(1))
        .Set("hostsPerLeaf", UintegerValue(2));
    if (f.backend == "packet")
    {
        spec.attributes = {{"ns3::LinkSampler::Interval", "100us"}};
    }
    else
    {
        std::cout << "figure 4 at the flow level: no link samples (they count packets)\n";
    }
    const double scale = f.scale;
    for (uint32_t j = 0; j < 2; ++j)
    {
        JobSpec job = JobOf("gpt2-124m", 2, f.iterations > 0 ? f.iterations : 8, scale);
        job.id = j;
        job.placement = "explicit";
        job.hosts = {j, j + 2};
        // Compute a bit longer than communication alone, so the two can take turns.
        job.computeTimeNs = 31000000;
        spec.jobs.push_back(job);
    }
    for (const std::string& policy : PoliciesOf(f, {"fair", "harmonics", "symphony", "optimal"}))
    {
        RunnerFor(spec, f)->Run(policy, &std::cout);
    }
}

/// Figure 6's fabric: 16 servers of 8 H100s, each GPU with a 200 Gb/s NIC
/// of its own, in 4 rail groups of 4 servers; each rail leaf has 4 NICs
/// below it and one 200 Gb/s link to each of 2 spines above: traffic
/// between rail groups shares 2:1 oversubscribed uplinks, where the jobs
/// meet.
RailOptimizedParams
Figure6Rails()
{
    RailOptimizedParams p = Figure1Rails();
    p.serversPerGroup = 4;
    p.hostRateBps = 200000000000;
    p.railSpineRateBps = 200000000000;
    return p;
}

/// An LLM job of \p model laid out as \p layout on \p servers of \p rails,
/// its ranks in Megatron's order filling each server's GPUs in turn, GPU g
/// on rail g (so tensor rank t is on rail t everywhere, and data-parallel
/// peers meet on their rail).
JobSpec
LlmJobOnServers(const std::string& model,
                const ParallelLayout& layout,
                const std::vector<uint32_t>& servers,
                const RailOptimizedParams& rails,
                uint32_t iterations,
                double scale)
{
    JobSpec j = JobOf(model, layout.Ranks(), iterations, scale);
    j.parallelism = layout;
    j.placement = "explicit";
    j.gpu = "h100";
    j.sequenceLength = 2048;
    for (uint32_t r = 0; r < j.workers; ++r)
    {
        j.hosts.push_back(
            RailOptimizedHost(rails, servers.at(r / rails.gpusPerServer), r % rails.gpusPerServer));
    }
    return j;
}

/// Figure 6's jobs: five LLM jobs of different shapes filling the 128 GPUs
/// of Figure6Rails, every one spread over two or four rail groups so that
/// their data-parallel, pipeline and expert traffic meets on the spines.
std::vector<JobSpec>
Figure6Jobs(const RailOptimizedParams& rails, uint32_t iterations, double scale)
{
    auto layout = [](uint32_t tp, uint32_t pp, uint32_t dp, uint32_t ep, uint32_t zero) {
        ParallelLayout l;
        l.tp = tp;
        l.pp = pp;
        l.dp = dp;
        l.ep = ep;
        l.zero = zero;
        // Two micro-batches a stage; a ZeRO-3 fine-tune takes one (its
        // gathers repeat every micro-batch).
        l.microBatches = zero == 3 ? 1 : 2 * pp;
        l.sequenceParallel = ep > 1;
        return l;
    };

    struct Entry
    {
        const char* model;
        ParallelLayout layout;
        std::vector<uint32_t> servers;
    };

    const std::vector<Entry> entries{
        {"llama-7b", layout(8, 1, 4, 1, 1), {0, 4, 8, 12}},   // TP8 x DP4, ZeRO-1
        {"llama-13b", layout(8, 2, 2, 1, 0), {1, 5, 9, 13}},  // TP8 x PP2 x DP2
        {"mixtral-8x7b", layout(4, 1, 4, 4, 0), {2, 6}},      // TP4 x DP4, EP4
        {"gpt3-6.7b", layout(8, 1, 4, 1, 3), {3, 7, 11, 15}}, // TP8 x DP4, ZeRO-3 fine-tune
        {"llama-7b", layout(8, 1, 2, 1, 0), {10, 14}},        // TP8 x DP2, buckets
    };
    std::vector<JobSpec> jobs;
    for (const Entry& e : entries)
    {
        jobs.push_back(LlmJobOnServers(e.model, e.layout, e.servers, rails, iterations, scale));
        jobs.back().id = static_cast<uint32_t>(jobs.size() - 1);
    }
    return jobs;
}

/// Figure 6: a multi-tenant LLM cluster. Five LLM jobs (tensor, pipeline,
/// data and expert parallelism, ZeRO-1 and ZeRO-3) on a rail-optimized
/// fabric of 16 servers x 8 GPUs, under every policy.
void
Figure6(const FigureFlags& f)
{
    ScenarioSpec spec = BaseSpec("figure6", f);
    spec.description = "five LLM jobs (LLaMA-7B TP8 x DP4 ZeRO-1, LLaMA-13B TP8 x PP2 x DP2, "
                       "Mixtral-8x7B TP4 x DP4 EP4, GPT-3 6.7B TP8 x DP4 ZeRO-3, LLaMA-7B TP8 x "
                       "DP2) on a rail-optimized fabric of 16 servers x 8 GPUs, 2:1 between rail "
                       "groups";
    const RailOptimizedParams rails = Figure6Rails();
    SetRails(spec, rails);
    // H100 servers: NVLink 4 between the GPUs the jobs run on.
    spec.attributes.emplace_back("ns3::TrainingCluster::NvlinkGeneration", "h100");
    spec.jobs = Figure6Jobs(rails, f.iterations > 0 ? f.iterations : 5, f.scale);
    for (JobSpec& j : spec.jobs)
    {
        j.planned = f.planned;
    }
    RunnerFor(spec, f)->Compare(PoliciesOf(f, CollectiveSchedulerHelper::GetSchedulerNames()),
                                std::cout);
}

/// The link and switch figure 1's cross-rack jobs 6 and 7 (racks 4-7, pods
/// 2 and 3) cross: the first uplink of pod 2's first aggregation switch to
/// the core, and that switch.
std::pair<uint32_t, uint32_t>
FaultTargets(const ScenarioSpec& spec)
{
    const FabricTopology topo = spec.topology.MakeBuilder()->Build();
    uint32_t agg = topo.GetNNodes();
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        if (topo.GetNode(n).name == "agg-p2-0")
        {
            agg = n;
        }
    }
    NS_ABORT_MSG_IF(agg == topo.GetNNodes(), "figure 1's fat-tree has no agg-p2-0");
    for (uint32_t l : topo.AdjacentLinks(agg))
    {
        if (topo.GetNode(topo.GetPeer(agg, l)).tier == 3)
        {
            return {l, agg};
        }
    }
    NS_ABORT_MSG("agg-p2-0 has no core link");
}

/**
 * Failure studies on figure 1's fat-tree: a link flap shorter than the
 * detection delay (50 us), a longer one (5 ms), and a switch that fails for
 * good, during training (at 0.5 s x scale, in the third iteration). Every
 * policy under the defaults (adaptive retransmission, go-back-N, 100 us
 * detection delay), each beside its fault-free run; then fair sharing under
 * each fault, detection delay (0, 100 us, 1 ms, 10 ms) and retransmission
 * setting (adaptive, the InfiniBand local ACK timeout, adaptive with
 * selective repeat). Runs are named faults/FAULT/detect-DELAY/RETRANSMISSION;
 * utils/plot-faults.py draws them (doc/faults.md).
 */
void
FigureFaults(const FigureFlags& f)
{
    const uint32_t iterations = f.iterations > 0 ? f.iterations : 6;
    ScenarioSpec base = BaseSpec("faults/none/detect-100us/adaptive", f);
    base.description = "figure 1's jobs on its k=4 fat-tree, with a fault during training";
    base.topology.Set("k", UintegerValue(4));
    base.topology.gpusPerHost = 8;
    base.jobs = Figure1Jobs(iterations, f.scale);
    base.output.flowRows = true; // retransmitted bytes per job
    const auto [link, agg] = FaultTargets(base);
    const int64_t at = std::llround(0.5e9 * f.scale);

    struct Fault
    {
        std::string name;
        FabricFault fault;
    };

    FabricFault flap;
    flap.target = FabricFault::Target::LINK;
    flap.id = link;
    flap.downNs = at;
    FabricFault shortFlap = flap;
    shortFlap.upNs = at + 50000;
    FabricFault longFlap = flap;
    longFlap.upNs = at + 5000000;
    FabricFault sw;
    sw.target = FabricFault::Target::SWITCH;
    sw.id = agg;
    sw.downNs = at;
    const std::vector<Fault> faults{{"link-flap-50us", shortFlap},
                                    {"link-flap-5ms", longFlap},
                                    {"switch-down", sw}};
    auto variant = [&](const std::string& fault,
                       const std::vector<FabricFault>& list,
                       const std::string& detect,
                       const std::string& retransmission) {
        ScenarioSpec spec = base;
        spec.name = "faults/" + fault + "/detect-" + detect + "/" + retransmission;
        spec.faults = list;
        spec.attributes.emplace_back("ns3::FabricFaults::DetectionDelay", detect);
        spec.fabric.retransmission = retransmission == "local-ack" ? "local-ack" : "adaptive";
        spec.fabric.selectiveRepeat = retransmission == "selective-repeat";
        return spec;
    };
    // Every policy, the defaults, beside the same runs without the fault.
    std::vector<ScenarioSpec> specs{variant("none", {}, "100us", "adaptive")};
    for (const Fault& x : faults)
    {
        specs.push_back(variant(x.name, {x.fault}, "100us", "adaptive"));
    }
    std::vector<std::unique_ptr<ScenarioRunner>> runners;
    std::vector<ScenarioRunner::Comparison> comparisons;
    const std::vector<std::string> policies =
        PoliciesOf(f, {"fair", "cassini", "crux", "mltcp", "symphony", "harmonics"});
    for (const ScenarioSpec& spec : specs)
    {
        runners.push_back(RunnerFor(spec, f));
        comparisons.push_back({runners.back().get(), policies});
    }
    ScenarioRunner::CompareTogether(comparisons, f.parallel, std::cout);
    // Fair sharing against the detection delay and the retransmission settings.
    for (const std::string retransmission : {"adaptive", "local-ack", "selective-repeat"})
    {
        if (retransmission != "adaptive")
        {
            // Its fault-free run: the detection delay changes nothing there.
            RunnerFor(variant("none", {}, "100us", retransmission), f)->Run("fair", &std::cout);
        }
        for (const std::string detect : {"0us", "100us", "1ms", "10ms"})
        {
            for (const Fault& x : faults)
            {
                if (detect != "100us" || retransmission != "adaptive") // else run above
                {
                    RunnerFor(variant(x.name, {x.fault}, detect, retransmission), f)
                        ->Run("fair", &std::cout);
                }
            }
        }
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    RoceExampleDefaults();
    std::string figure = "all";
    std::string policies;
    FigureFlags f;
    f.db = "figures.db";
    CommandLine cmd(__FILE__);
    AddFlag(cmd,
            "figure",
            "1, 3, 4, 6 or all (figure 2: examples/scheduling-time; 5: the flow-level "
            "scenarios, utils/make-figures.sh), or faults (the failure studies on figure 1's "
            "fat-tree, doc/faults.md)",
            figure);
    AddFlag(cmd,
            "scale",
            "Gradient bytes and compute time factor (1: the models' own sizes)",
            f.scale);
    AddFlag(cmd, "mtu", "RoCE path MTU: RDMA payload bytes per packet (256-4096)", f.mtu);
    AddFlag(cmd, "iterations", "Iterations per job (0: each figure's default)", f.iterations);
    std::string planned = "dp";
    AddFlag(cmd,
            "planned",
            "Figure 6: comma-separated groups whose collectives the planners plan and gate (dp, "
            "ep: expert all-to-alls across rail groups, tp)",
            planned);
    AddFlag(cmd, "seed", "Random seed", f.seed);
    AddFlag(cmd, "db", "SQLite file the runs are appended to", f.db);
    AddFlag(cmd,
            "progress",
            "Seconds of wall-clock time between progress lines on stderr (0: none)",
            f.progress);
    AddFlag(cmd,
            "fabric",
            "Figure 1's fabrics: all (the three below), both (fat-tree and "
            "oversubscribed), fat-tree (full bisection), oversubscribed (2:1 leaf-spine) "
            "or rail (rail-optimized, a NIC per GPU, full bisection)",
            f.fabric);
    AddFlag(cmd,
            "policies",
            "Comma-separated schedulers to run (" +
                ShortNameRegistry::ListNames(CollectiveScheduler::GetTypeId()) +
                "), or all; default: each figure's own (figures 1 and 3 always run fair "
                "and isolated too)",
            policies);
    AddFlag(cmd,
            "parallel",
            "Simulations run at once, each in a process of its own (0: one per core; "
            "1: one after the other); the results are the same",
            f.parallel);
    AddFlag(cmd,
            "cc",
            "Congestion control, as the scenario key fabric.cc (dcqcn, dcqcn[profile=hpcc], "
            "...); empty: the default, DCQCN's ConnectX profile",
            f.cc);
    AddFlag(cmd,
            "backend",
            "Network model: packet (RoCE, packet by packet) or flow (max-min fair fluid "
            "flows on the same topology and routes)",
            f.backend);
    ParseExampleCommandLine(cmd, argc, argv, "paper-figures");

    return RunExampleMain("paper-figures", [&](std::unique_ptr<SimulationRun>& /* run */) {
        RequireFlag(f.scale > 0, "scale", std::to_string(f.scale), "must be positive");
        RequireMtuFlag(f.mtu);
        RequireFlag(!f.db.empty(), "db", f.db, "must name a file");
        RequireFlag(f.backend == "packet" || f.backend == "flow",
                    "backend",
                    f.backend,
                    "must be packet or flow");
        RequireFlag(f.fabric == "all" || f.fabric == "both" || f.fabric == "fat-tree" ||
                        f.fabric == "oversubscribed" || f.fabric == "rail",
                    "fabric",
                    f.fabric,
                    "must be all, both, fat-tree, oversubscribed or rail");
        if (!policies.empty())
        {
            f.policies = ParseSchedulerListFlag("policies", policies);
        }
        {
            f.planned.clear();
            std::stringstream list(planned);
            for (std::string g; std::getline(list, g, ',');)
            {
                RequireFlag(g == "dp" || g == "ep" || g == "tp",
                            "planned",
                            planned,
                            "must list dp, ep or tp");
                f.planned.push_back(g == "dp"
                                        ? CommGroup::Data
                                        : (g == "ep" ? CommGroup::Expert : CommGroup::Tensor));
            }
        }
        RequireFlag(f.seed > 0, "seed", std::to_string(f.seed), "must be positive");
        RequireFlag(f.progress >= 0,
                    "progress",
                    std::to_string(f.progress),
                    "must not be negative");
        std::vector<std::string> figures;
        if (figure == "all")
        {
            figures = {"1", "3", "4", "6"};
        }
        else
        {
            std::stringstream list(figure);
            for (std::string n; std::getline(list, n, ',');)
            {
                RequireFlag(n == "1" || n == "3" || n == "4" || n == "6" || n == "faults",
                            "figure",
                            figure,
                            "must list 1, 3, 4, 6 or faults (figure 2 is "
                            "examples/scheduling-time, 5 the flow-level scenarios)");
                figures.push_back(n);
            }
        }
        for (const std::string& n : figures)
        {
            std::cout << "=== figure " << n << std::endl;
            if (n == "1")
            {
                Figure1(f);
            }
            else if (n == "3")
            {
                Figure3(f);
            }
            else if (n == "4")
            {
                Figure4(f);
            }
            else if (n == "faults")
            {
                FigureFaults(f);
            }
            else
            {
                Figure6(f);
            }
        }
    });
}
