/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-runner.h"

#include "collective-scheduler-helper.h"
#include "run-network.h"
#include "scenario-helper.h"
#include "scheduler-results.h"
#include "training-results.h"

#include "ns3/distributed-simulation.h"
#include "ns3/model-catalog.h"
#include "ns3/output-paths.h"
#include "ns3/placement-contention.h"
#include "ns3/run-interruption.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

namespace ns3
{

namespace
{

template <typename F>
Time
MeanOver(const std::vector<JobOutcome>& jobs, F field)
{
    if (jobs.empty())
    {
        return Time(0);
    }
    Time sum(0);
    for (const JobOutcome& j : jobs)
    {
        sum += field(j);
    }
    return sum / static_cast<int64_t>(jobs.size());
}

JobOutcome
OutcomeOf(const TrainingCluster::JobEntry& e)
{
    JobOutcome o;
    o.id = e.spec.id;
    o.model = e.spec.model;
    o.workers = e.spec.workers;
    if (!e.job)
    {
        return o;
    }
    const auto& its = e.job->GetIterations();
    o.done = e.job->IsDone();
    o.failed = e.job->IsFailed();
    o.iterations = static_cast<uint32_t>(its.size());
    const Time end = o.done ? e.job->GetEndTime() : Simulator::Now();
    o.trainingTime = end - NanoSeconds(e.spec.arrivalNs);
    if (its.empty())
    {
        return o;
    }
    Time iter(0);
    Time comm(0);
    Time transfer(0);
    for (const auto& r : its)
    {
        o.iterationTimes.push_back(r.end - r.computeStart);
        iter += r.end - r.computeStart;
        o.meanTime += r.time;
        comm += r.commEnd - r.commReady;
        transfer += r.commEnd - r.commStart;
    }
    const auto n = static_cast<int64_t>(its.size());
    o.meanTime = o.meanTime.Scaled(1.0 / static_cast<double>(n));
    o.meanIteration = iter / n;
    o.meanCommunication = comm / n;
    o.meanTransfer = transfer / n;
    o.gpuUtilization =
        e.job->GetComputeTime().GetSeconds() * static_cast<double>(n) / iter.GetSeconds();
    return o;
}

void
PrintJobs(const std::vector<JobOutcome>& jobs, std::ostream& os)
{
    os << std::fixed << std::setprecision(1);
    os << " job  model          workers  iters   JCT (us)  iter (us)  comm (us)  transfer (us)"
          "  GPU util\n";
    for (const JobOutcome& j : jobs)
    {
        os << std::setw(4) << j.id << "  " << std::left << std::setw(14) << j.model << std::right
           << std::setw(8) << j.workers;
        if (j.iterations == 0)
        {
            os << (j.failed ? "  (failed)\n" : "  (not run)\n");
            continue;
        }
        os << std::setw(7) << j.iterations << std::setw(11) << j.trainingTime.GetSeconds() * 1e6
           << std::setw(11) << j.meanIteration.GetSeconds() * 1e6 << std::setw(11)
           << j.meanCommunication.GetSeconds() * 1e6 << std::setw(15)
           << j.meanTransfer.GetSeconds() * 1e6 << std::setw(9) << 100.0 * j.gpuUtilization << "%"
           << (j.failed ? "  (failed)" : "") << "\n";
    }
    // Where an iteration's time went: the parts add up to "iter".
    os << " job   compute  (overlapped)  exposed: dp        tp        pp  ep+other   gate wait"
          "    bubble   (us per iteration, mean over ranks)\n";
    for (const JobOutcome& j : jobs)
    {
        if (j.iterations == 0)
        {
            continue;
        }
        const IterationTime& t = j.meanTime;
        os << std::setw(4) << j.id << std::setw(10) << t.computeNs / 1e3 << "  (" << std::setw(10)
           << t.overlappedNs / 1e3 << ")" << std::setw(13) << t.Exposed(CommGroup::Data) / 1e3
           << std::setw(10) << t.Exposed(CommGroup::Tensor) / 1e3 << std::setw(10)
           << t.Exposed(CommGroup::Pipeline) / 1e3 << std::setw(10)
           << (t.Exposed(CommGroup::Expert) + t.Exposed(CommGroup::None)) / 1e3 << std::setw(12)
           << t.gateWaitNs / 1e3 << std::setw(10) << t.bubbleNs / 1e3 << "\n";
    }
    os << std::defaultfloat;
}

/**
 * Prints simulated time, wall time and events per second every wall-clock
 * interval. ns-3's ShowProgress starts its checks at simulated seconds,
 * longer than these runs of a few milliseconds, so this one checks the wall
 * clock every 5 us of simulated time (a few hundred events per simulated
 * millisecond) and prints when the interval has passed.
 */
class ProgressReporter
{
  public:
    ProgressReporter(Time wallInterval, std::ostream& os, std::string label)
        : m_interval(wallInterval.GetSeconds()),
          m_os(os),
          m_label(std::move(label)),
          m_start(std::chrono::steady_clock::now()),
          m_last(m_start),
          m_eventsAtLast(Simulator::GetEventCount())
    {
        m_event = Simulator::Schedule(kCheck, &ProgressReporter::Check, this);
    }

    ~ProgressReporter()
    {
        m_event.Cancel();
    }

  private:
    static constexpr int64_t kCheckNs = 5000;
    inline static const Time kCheck = NanoSeconds(kCheckNs);

    void Check()
    {
        const auto now = std::chrono::steady_clock::now();
        const double sinceLast = std::chrono::duration<double>(now - m_last).count();
        if (sinceLast >= m_interval)
        {
            const uint64_t events = Simulator::GetEventCount();
            m_os << "  " << m_label << ": simulated " << std::fixed << std::setprecision(3)
                 << Simulator::Now().GetSeconds() * 1e3 << " ms, wall " << std::setprecision(1)
                 << std::chrono::duration<double>(now - m_start).count() << " s, "
                 << std::setprecision(2) << (events - m_eventsAtLast) / sinceLast / 1e6
                 << " M events/s" << std::defaultfloat << std::endl;
            m_last = now;
            m_eventsAtLast = events;
        }
        if (!Simulator::IsFinished())
        {
            m_event = Simulator::Schedule(kCheck, &ProgressReporter::Check, this);
        }
    }

    double m_interval;
    std::ostream& m_os;
    std::string m_label;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_last;
    uint64_t m_eventsAtLast;
    EventId m_event;
};

/// A failed job ends the run: nothing after it would be a run of the scenario.
void
StopAtJobFailure(uint32_t /* job */, const TrainingJob::Failure& /* failure */)
{
    Simulator::Stop();
}

/**
 * What the run failed of: the first job failure (earliest, then in job
 * order), naming the job, where it failed, the flow and the reason.
 */
std::string
FailureMessage(const TrainingCluster& cluster)
{
    const TrainingCluster::JobEntry* first = nullptr;
    for (const auto& e : cluster.GetJobs())
    {
        if (e->job && e->job->IsFailed() &&
            (!first || e->job->GetFailure().when < first->job->GetFailure().when))
        {
            first = e.get();
        }
    }
    NS_ABORT_MSG_UNLESS(first, "FailureMessage: no job failed");
    const TrainingJob::Failure& f = first->job->GetFailure();
    std::ostringstream os;
    os << "job " << first->spec.id << " failed at " << std::fixed << std::setprecision(3)
       << f.when.GetSeconds() * 1e3 << " ms in iteration " << f.iteration << ", collective "
       << f.commOp << ", rank " << f.message.srcRank << " to rank " << f.message.dstRank
       << " (channel " << f.message.channel << ", step " << f.message.step << "): " << f.reason;
    if (cluster.GetFailedJobs() > 1)
    {
        os << "; " << cluster.GetFailedJobs() - 1 << " more jobs failed";
    }
    return os.str();
}

/// A scheduler parameter's value as attribute text: strings as they are, anything else as JSON.
std::string
AttributeText(const nlohmann::json& v)
{
    return v.is_string() ? v.get<std::string>() : v.dump();
}

/// What every simulation of a scenario shares.
struct RunSetting
{
    const ScenarioSpec& spec;
    const ScenarioHelper& scenario;
    Time progressInterval; ///< wall-clock time between progress lines; zero: none
    std::ostream* progressStream;
};

/**
 * After the simulation: mark \p run failed (throwing JobFailedError or
 * IncompleteRunError) if a job failed or did not finish, else complete,
 * and add the run and the policy's decisions to \p outcome.
 */
void
Conclude(const ScenarioSpec& spec,
         const TrainingCluster& cluster,
         const CollectiveScheduler& policy,
         const RunRecords& records,
         SimulationRun& run,
         const SimulationRun::RowWriter& writeRows,
         RunOutcome& outcome,
         std::ostream* out)
{
    if (cluster.GetFailedJobs() > 0)
    {
        // Every job's rows up to the failure, then the run marked failed.
        const std::string message = FailureMessage(cluster);
        if (out)
        {
            *out << "run failed: " << message << "\n";
        }
        run.Fail(message, records, spec.output.flowRows, writeRows);
        throw JobFailedError(message);
    }
    const std::size_t jobs = cluster.GetJobs().size();
    if (cluster.GetFinishedJobs() != jobs)
    {
        throw IncompleteRunError(std::to_string(jobs - cluster.GetFinishedJobs()) +
                                 " jobs did not finish before the stop time");
    }
    for (const auto& e : cluster.GetJobs())
    {
        run.SetWorkloadEnd(e->job->GetEndTime());
    }
    run.Finish(records, spec.output.flowRows, writeRows);
    if (run.GetRunId() >= 0)
    {
        outcome.runIds.push_back(run.GetRunId());
    }
    for (const SchedulerDecision& d : policy.GetDecisions())
    {
        ++outcome.decisions;
        outcome.decisionWallUs += d.wallUs;
        outcome.maxDecisionWallUs = std::max(outcome.maxDecisionWallUs, d.wallUs);
    }
}

/**
 * Build the cluster of \p jobs on \p network under \p policy, run it and
 * record it as \p run; \p cc is what the NICs run and \p name the run's
 * label in reports.
 */
void
RunCluster(const RunSetting& setting,
           const CollectiveSchedulerHelper& schedulerHelper,
           Ptr<CollectiveScheduler> policy,
           RunNetwork& network,
           SimulationRun& run,
           const std::vector<JobSpec>& jobs,
           const std::string& cc,
           const std::string& name,
           RunOutcome& outcome,
           std::ostream* out)
{
    const ScenarioSpec& spec = setting.spec;
    Ptr<TrainingCluster> cluster = CreateObject<TrainingCluster>();
    cluster->SetAttribute("PlacementSeed", UintegerValue(spec.seed));
    cluster->Setup(network.GetNetwork(), spec.topology.gpusPerHost);
    // A topology file's NVLink latency (SimAI's NVSwitch links) where it gives one.
    if (const std::optional<Time> nvlink = spec.topology.MakeBuilder()->GetNvlinkLatency())
    {
        cluster->SetTopologyNvlinkLatency(*nvlink);
    }
    setting.scenario.AddJobs(*cluster, jobs);
    cluster->TraceConnectWithoutContext("JobFailed", MakeCallback(&StopAtJobFailure));
    schedulerHelper.Install(policy, cluster);
    Ptr<FabricFaults> faults = CreateObject<FabricFaults>();
    std::shared_ptr<const StreamedSchedulerRows> streamedSchedulerRows;
    if (run.GetDatabase() && DistributedSize() == 1)
    {
        StreamTrainingResults(run.GetDatabase(), run.GetRunId(), cluster);
        streamedSchedulerRows = StreamSchedulerResults(run.GetDatabase(), run.GetRunId(), policy);
    }
    Ptr<LinkSampler> sampler = CreateObject<LinkSampler>();
    Ptr<PortMonitor> monitor = CreateObject<PortMonitor>();
    // The servers' NVSwitches are the cluster's, at either level. The port
    // monitor takes them before the network installs it; the sampler after
    // the network has dropped a default it cannot use.
    monitor->AddNvSwitch(cluster->GetNvSwitch());
    network.Instrument(run, *faults, *sampler, *monitor, [cluster, n = jobs.size()]() {
        return cluster->GetFinishedJobs() + cluster->GetFailedJobs() < n;
    });
    sampler->InstallNvSwitch(cluster->GetNvSwitch());
    if (out)
    {
        *out << spec.topology.kind << " (" << spec.backend
             << " level): " << network.GetNetwork()->GetNHosts() << " hosts x "
             << spec.topology.gpusPerHost << " GPUs, " << cc << "; " << jobs.size()
             << " jobs; scheduler " << name << "\n";
    }
    if (spec.stopTimeNs > 0)
    {
        Simulator::Stop(NanoSeconds(spec.stopTimeNs));
    }
    std::unique_ptr<ProgressReporter> progress;
    if (setting.progressInterval.IsStrictlyPositive())
    {
        progress = std::make_unique<ProgressReporter>(
            setting.progressInterval,
            setting.progressStream ? *setting.progressStream : std::cerr,
            name);
    }
    Simulator::Run();
    progress.reset();
    network.AfterRun();
    auto writeRows = [&](ResultsDatabase& db, int64_t id) {
        WriteTrainingResults(db, id, *cluster);
        WriteSchedulerResults(db, id, *policy, streamedSchedulerRows.get());
        sampler->Write(db, id);
        faults->Write(db, id);
    };
    run.EndIfInterrupted(network.GetRecords(), spec.output.flowRows, writeRows);
    std::vector<JobOutcome> done;
    for (const auto& e : cluster->GetJobs())
    {
        done.push_back(OutcomeOf(*e));
    }
    if (out)
    {
        PrintJobs(done, *out);
        const ContentionSummary c = MeasureContention(*cluster);
        *out << "contention: " << c.contendedJobs << " of " << c.jobs << " jobs (" << std::fixed
             << std::setprecision(1) << 100 * c.JobFraction() << "%), holding " << c.contendedGpus
             << " of " << c.gpus << " GPUs (" << 100 * c.GpuFraction()
             << "%), share a NIC, rack or pod uplinks with a job running beside them\n"
             << std::defaultfloat;
        network.PrintSummary(*out, *faults);
    }
    outcome.jobs.insert(outcome.jobs.end(), done.begin(), done.end());
    Conclude(spec, *cluster, *policy, network.GetRecords(), run, writeRows, outcome, out);
}

} // namespace

Time
RunOutcome::MeanTrainingTime() const
{
    return MeanOver(jobs, [](const JobOutcome& j) { return j.trainingTime; });
}

Time
RunOutcome::MeanIterationTime() const
{
    return MeanOver(jobs, [](const JobOutcome& j) { return j.meanIteration; });
}

Time
RunOutcome::MeanCommunicationTime() const
{
    return MeanOver(jobs, [](const JobOutcome& j) { return j.meanCommunication; });
}

double
RunOutcome::MeanGpuUtilization() const
{
    double sum = 0;
    for (const JobOutcome& j : jobs)
    {
        sum += j.gpuUtilization;
    }
    return jobs.empty() ? 0 : sum / static_cast<double>(jobs.size());
}

ScenarioRunner::ScenarioRunner(const ScenarioSpec& spec, std::string exampleName)
    : m_spec(spec),
      m_example(std::move(exampleName)),
      m_scenario(m_spec)
{
    // The results database must not be a file the scenario reads.
    std::vector<NamedPath> inputs{{"scenario", m_spec.source},
                                  {"jobTrace", m_spec.jobTrace},
                                  {"topology.path", m_spec.topology.path},
                                  {"fabric.hpccConfig", m_spec.fabric.hpccConfig}};
    std::vector<JobSpec> jobs = m_spec.jobs;
    jobs.push_back(m_spec.jobDefaults);
    for (const JobSpec& j : jobs)
    {
        if (j.workload.format == "simai")
        {
            inputs.push_back({"workload.path", j.workload.path});
        }
        inputs.push_back({"workload.commGroups", j.workload.commGroups});
    }
    try
    {
        RequireDistinctOutputs(inputs, {{"output.db", m_spec.output.db}});
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(m_spec.Where("output.db") + ": " + e.what());
    }
    if (const std::string leftOut = m_scenario.DescribeHpccConfigLeftOut(); !leftOut.empty())
    {
        std::cerr << m_example << ": warning: " << leftOut << "\n";
    }
}

void
ScenarioRunner::SetShowProgress(Time wallInterval, std::ostream* os)
{
    m_progressInterval = wallInterval;
    m_progressStream = os;
}

RunOutcome
ScenarioRunner::Run(const std::string& scheduler, std::ostream* out)
{
    const std::string name = scheduler.empty() ? m_spec.scheduler : scheduler;
    try
    {
        CollectiveSchedulerHelper().SetScheduler(name); // checks the name, lists the known ones
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(m_spec.Where("scheduler") + ": " + e.what());
    }
    const std::string typeName = CollectiveSchedulerHelper::FindScheduler(name);
    const std::vector<JobSpec> jobs = m_scenario.CollectJobs();
    RunOutcome outcome;
    if (typeName == "ns3::IsolatedScheduler" && DistributedSize() > 1)
    {
        throw std::runtime_error("the isolated baseline runs two simulations per job (alone "
                                 "under ECMP and on its best routes), which a distributed run "
                                 "does not support: run it in one process");
    }
    if (typeName == "ns3::IsolatedScheduler")
    {
        return RunIsolated(typeName, jobs, out);
    }
    Simulate(typeName, jobs, outcome, out, "");
    return outcome;
}

RunOutcome
ScenarioRunner::RunIsolated(const std::string& typeName,
                            const std::vector<JobSpec>& jobs,
                            std::ostream* out)
{
    RunOutcome ecmp;
    for (const JobSpec& j : jobs)
    {
        Simulate(typeName,
                 {j},
                 ecmp,
                 out,
                 "job " + std::to_string(j.id) + " alone",
                 {{"Routes", "ecmp"}});
    }
    RunOutcome best;
    for (const JobSpec& j : jobs)
    {
        Simulate(typeName,
                 {j},
                 best,
                 out,
                 "job " + std::to_string(j.id) + " alone on best routes",
                 {{"Routes", "best"}});
    }
    RunOutcome outcome;
    outcome.scheduler = ecmp.scheduler;
    outcome.aloneEcmp = ecmp.jobs;
    outcome.aloneBest = best.jobs;
    NS_ABORT_MSG_UNLESS(ecmp.jobs.size() == best.jobs.size(),
                        "isolated: " << ecmp.jobs.size() << " jobs alone under ECMP, "
                                     << best.jobs.size() << " on their best routes");
    for (std::size_t i = 0; i < ecmp.jobs.size(); ++i)
    {
        JobOutcome e = ecmp.jobs[i];
        JobOutcome b = best.jobs[i];
        e.routes = "ecmp";
        b.routes = "best";
        // The lower training time; ECMP on a tie (its routes are the job's own).
        outcome.jobs.push_back(b.trainingTime < e.trainingTime ? b : e);
    }
    if (out)
    {
        *out << std::fixed << std::setprecision(1)
             << "isolated: each job's training time alone (us), under ECMP and on its best "
                "routes; the lower is its isolated time\n"
             << " job        ecmp        best  isolated\n";
        for (std::size_t i = 0; i < outcome.jobs.size(); ++i)
        {
            *out << std::setw(4) << outcome.jobs[i].id << std::setw(12)
                 << ecmp.jobs[i].trainingTime.GetSeconds() * 1e6 << std::setw(12)
                 << best.jobs[i].trainingTime.GetSeconds() * 1e6 << std::setw(10)
                 << outcome.jobs[i].routes << "\n";
        }
        *out << std::defaultfloat;
    }
    outcome.runIds = ecmp.runIds;
    outcome.runIds.insert(outcome.runIds.end(), best.runIds.begin(), best.runIds.end());
    outcome.decisions = ecmp.decisions + best.decisions;
    outcome.decisionWallUs = ecmp.decisionWallUs + best.decisionWallUs;
    outcome.maxDecisionWallUs = std::max(ecmp.maxDecisionWallUs, best.maxDecisionWallUs);
    return outcome;
}

CollectiveSchedulerHelper
ScenarioRunner::MakeSchedulerHelper(const std::string& typeName,
                                    const std::vector<Attribute>& attributes) const
{
    CollectiveSchedulerHelper helper;
    helper.SetScheduler(typeName);
    if (CollectiveSchedulerHelper::FindScheduler(m_spec.scheduler) == typeName)
    {
        // The spec's parameters are its own policy's.
        const nlohmann::json params = nlohmann::json::parse(m_spec.schedulerParams);
        for (const auto& [key, value] : params.items())
        {
            try
            {
                helper.SetAttribute(key, AttributeText(value));
            }
            catch (const std::invalid_argument& e)
            {
                throw std::runtime_error(m_spec.Where("schedulerParams." + key) + ": " + e.what());
            }
        }
    }
    for (const auto& [name, value] : attributes)
    {
        helper.SetAttribute(name, value);
    }
    return helper;
}

std::string
ScenarioRunner::SetCongestionControl(const CollectiveScheduler& policy,
                                     RoceFabricHelper& fabricHelper) const
{
    std::string cc;
    try
    {
        cc = policy.GetCongestionControl(m_scenario.GetFabricCc());
    }
    catch (const std::invalid_argument& e)
    {
        const bool hpcc = m_scenario.GetHpccConfig() != nullptr;
        throw std::runtime_error(m_spec.Where(hpcc ? "fabric.hpccConfig" : "fabric.cc") + ": " +
                                 e.what());
    }
    if (cc.empty())
    {
        return m_scenario.GetFabricCc();
    }
    fabricHelper.SetCongestionControl(cc);
    return cc;
}

std::string
ScenarioRunner::RunParameters(const FabricTopology* topology,
                              const std::vector<JobSpec>& jobs,
                              const std::string& cc,
                              const CollectiveScheduler& policy,
                              const std::string& runTag) const
{
    const HpccNetworkConfig* hpcc = m_scenario.GetHpccConfig();
    nlohmann::json params = {
        {"topology", m_spec.topology.kind},
        {"backend", m_spec.backend},
        {"gpusPerHost", m_spec.topology.gpusPerHost},
        {"jobs", jobs.size()},
        {"cc", cc},
        {"mtu", hpcc ? hpcc->GetPayloadBytes() : m_spec.fabric.mtu},
        {"pfc", hpcc ? true : m_spec.fabric.pfc},
        {"scale", m_spec.scale},
        {"source", m_spec.source},
        {"description", m_spec.description},
        {"scheduler_params", nlohmann::json::parse(policy.GetParametersJson())}};
    // What each job ran with, beyond the jobs table's columns (one entry per
    // job; the scenario scale above is already multiplied in).
    nlohmann::json jobParams = nlohmann::json::array();
    for (const JobSpec& j : jobs)
    {
        jobParams.push_back({{"id", j.id},
                             {"collective", ModelCatalog::DataCollective(j)},
                             {"channels", j.channels},
                             {"buckets", j.buckets},
                             {"dtype", j.dtype},
                             {"gradientDtype", ModelCatalog::GradientDtype(j)},
                             {"gpu", j.gpu},
                             {"computeEfficiency", j.computeEfficiency},
                             {"recompute", j.recompute},
                             {"flashAttention", j.flashAttention},
                             {"tpCommOverlap", j.tpCommOverlap},
                             {"batchPerGpu", j.batchPerGpu},
                             {"sequenceLength", j.sequenceLength},
                             {"computeTimeNs", j.computeTimeNs},
                             {"scale", j.scale},
                             {"latencyScale", j.latencyScale}});
        if (j.planned != std::vector<CommGroup>{CommGroup::Data})
        {
            nlohmann::json planned = nlohmann::json::array();
            for (CommGroup g : j.planned)
            {
                planned.push_back(CommGroupName(g));
            }
            jobParams.back()["planned"] = planned;
        }
    }
    params["job_params"] = jobParams;
    if (topology != nullptr)
    {
        params["hosts"] = topology->GetNHosts();
    }
    if (!runTag.empty())
    {
        params["run"] = runTag;
    }
    if (hpcc)
    {
        params["hpccConfig"] = m_spec.fabric.hpccConfig;
    }
    // The intervals the run samples at: a default one only where it samples
    // packets (RunNetwork drops it elsewhere, and refuses one asked for).
    const bool byDefault = SamplesPacketsByDefault(m_spec);
    Ptr<LinkSampler> sampler = CreateObject<LinkSampler>();
    params["sample_interval_ns"] =
        byDefault || !sampler->IsDefault() ? sampler->GetInterval().GetNanoSeconds() : 0;
    Ptr<PortMonitor> monitor = CreateObject<PortMonitor>();
    params["monitorIntervalNs"] =
        byDefault || !monitor->IsDefault() ? monitor->GetInterval().GetNanoSeconds() : 0;
    return params.dump();
}

int64_t
ScenarioRunner::TakeReservedRunId()
{
    if (m_reservedRunIds.empty())
    {
        return -1;
    }
    const int64_t id = m_reservedRunIds.front();
    m_reservedRunIds.pop_front();
    return id;
}

void
ScenarioRunner::Simulate(const std::string& typeName,
                         const std::vector<JobSpec>& jobs,
                         RunOutcome& outcome,
                         std::ostream* out,
                         const std::string& runTag,
                         const std::vector<Attribute>& attributes)
{
    // Restored when this run ends: the next run starts from the same defaults.
    const ScopedConfigDefaults defaults = m_scenario.ApplyGlobals();
    if (DistributedRank() != 0)
    {
        out = nullptr; // rank 0 reports the whole run
    }
    const CollectiveSchedulerHelper schedulerHelper = MakeSchedulerHelper(typeName, attributes);
    Ptr<CollectiveScheduler> policy = schedulerHelper.Create();
    outcome.scheduler = policy->GetName();
    RoceFabricHelper fabricHelper = m_scenario.MakeFabricHelper();
    const std::string cc = SetCongestionControl(*policy, fabricHelper); // what the NICs run
    // The run is made first, so that whatever stops the build (a bad
    // topology, a signal) is recorded against it.
    SimulationRun run(RunName(),
                      policy->GetName(),
                      m_spec.seed,
                      RunParameters(nullptr, jobs, cc, *policy, runTag),
                      m_spec.output.db,
                      TakeReservedRunId());
    try
    {
        const FabricTopology topology = m_scenario.BuildTopology();
        // The one place the level is chosen: the packet-level fabric, or the
        // flow level's fluid flows on the same topology and routes.
        std::unique_ptr<RunNetwork> network =
            MakeRunNetwork(m_spec, m_scenario, topology, fabricHelper, cc);
        run.Built(RunParameters(&topology, jobs, cc, *policy, runTag));
        const std::string name = policy->GetName() + (runTag.empty() ? "" : " (" + runTag + ")");
        const RunSetting setting{m_spec, m_scenario, m_progressInterval, m_progressStream};
        RunCluster(setting, schedulerHelper, policy, *network, run, jobs, cc, name, outcome, out);
    }
    catch (const std::exception& e)
    {
        run.Fail(e.what());
        Simulator::Destroy();
        throw;
    }
    Simulator::Destroy();
}

std::vector<std::string>
ScenarioRunner::ComparisonOrder(const std::vector<std::string>& schedulers)
{
    std::vector<std::string> order = {"fair", "isolated"};
    for (const std::string& s : schedulers)
    {
        const std::string tid = CollectiveSchedulerHelper::FindScheduler(s);
        bool seen = false;
        for (const std::string& o : order)
        {
            seen = seen || CollectiveSchedulerHelper::FindScheduler(o) == tid;
        }
        if (!seen)
        {
            order.push_back(s);
        }
    }
    return order;
}

std::vector<RunOutcome>
ScenarioRunner::Compare(std::vector<std::string> schedulers, std::ostream& out)
{
    return CompareIn(m_parallel, schedulers, out);
}

std::vector<RunOutcome>
ScenarioRunner::CompareIn(uint32_t parallel,
                          const std::vector<std::string>& schedulers,
                          std::ostream& out)
{
    const std::vector<std::string> order = ComparisonOrder(schedulers);
    std::vector<RunOutcome> outcomes;
    if (parallel != 1 && DistributedSize() == 1)
    {
        outcomes = std::move(RunSideBySide({{this, order}}, parallel, out).front());
    }
    else
    {
        for (const std::string& s : order)
        {
            out << "running " << s << " ..." << std::endl;
            outcomes.push_back(Run(s, nullptr));
        }
    }
    PrintComparison(outcomes, out);
    return outcomes;
}

std::string
ScenarioRunner::RunName() const
{
    return m_spec.name.empty() ? m_example : m_spec.name;
}

void
ScenarioRunner::SetParallelRuns(uint32_t parallel)
{
    m_parallel = parallel;
}

void
ScenarioRunner::PrintComparison(const std::vector<RunOutcome>& outcomes, std::ostream& out)
{
    NS_ABORT_MSG_IF(outcomes.size() < 2, "the comparison needs fair and isolated first");
    const RunOutcome& fair = outcomes[0];
    const RunOutcome& iso = outcomes[1];
    auto ratio = [](Time a, Time b) { return b.IsZero() ? 0.0 : a.GetSeconds() / b.GetSeconds(); };
    out << std::fixed << std::setprecision(1);
    out << "policy        train (us)  /fair  /iso   iter (us)  /fair  /iso   comm (us)  /fair  /iso"
           "  GPU util  decisions\n";
    for (const RunOutcome& o : outcomes)
    {
        const Time t = o.MeanTrainingTime();
        const Time i = o.MeanIterationTime();
        const Time c = o.MeanCommunicationTime();
        out << std::left << std::setw(12) << o.scheduler << std::right << std::setw(12)
            << t.GetSeconds() * 1e6 << std::setprecision(2) << std::setw(7)
            << ratio(t, fair.MeanTrainingTime()) << std::setw(6) << ratio(t, iso.MeanTrainingTime())
            << std::setprecision(1) << std::setw(12) << i.GetSeconds() * 1e6 << std::setprecision(2)
            << std::setw(7) << ratio(i, fair.MeanIterationTime()) << std::setw(6)
            << ratio(i, iso.MeanIterationTime()) << std::setprecision(1) << std::setw(12)
            << c.GetSeconds() * 1e6 << std::setprecision(2) << std::setw(7)
            << ratio(c, fair.MeanCommunicationTime()) << std::setw(6)
            << ratio(c, iso.MeanCommunicationTime()) << std::setprecision(1) << std::setw(9)
            << 100.0 * o.MeanGpuUtilization() << "%" << std::setw(11) << o.decisions << "\n";
    }
    if (!iso.aloneEcmp.empty() && iso.aloneEcmp.size() == iso.aloneBest.size())
    {
        // Both runs of each job alone, behind the isolated row's per-job minimum.
        auto mean = [](const std::vector<JobOutcome>& jobs) {
            RunOutcome o;
            o.jobs = jobs;
            return o.MeanTrainingTime().GetSeconds() * 1e6;
        };
        std::size_t faster = 0;
        for (const JobOutcome& j : iso.jobs)
        {
            faster += j.routes == "best" ? 1 : 0;
        }
        out << std::setprecision(1) << "isolated: per job the faster of its runs alone under "
            << "ECMP (mean training " << mean(iso.aloneEcmp) << " us) and on its best routes ("
            << mean(iso.aloneBest) << " us); " << faster << " of " << iso.jobs.size()
            << " jobs faster on their best routes\n";
    }
    out << std::defaultfloat;
}

} // namespace ns3
