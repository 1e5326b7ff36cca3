/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// ScenarioRunner's comparisons run side by side: the simulations of one or
// several comparisons in child processes (ForkedTasks), their outcomes sent
// back as JSON, failures and interruptions reported as from one process.
#include "collective-scheduler-helper.h"
#include "forked-tasks.h"
#include "scenario-runner.h"

#include "ns3/distributed-simulation.h"
#include "ns3/results-database.h"
#include "ns3/run-interruption.h"

#include <functional>
#include <map>
#include <nlohmann/json.hpp>

namespace ns3
{

namespace
{

/// \p t as JSON, exactly (doubles round-trip), for another process.
nlohmann::json
TimeToJson(const IterationTime& t)
{
    return {{"compute", t.computeNs},
            {"overlapped", t.overlappedNs},
            {"exposed", t.exposedNs},
            {"gateWait", t.gateWaitNs},
            {"bubble", t.bubbleNs}};
}

IterationTime
TimeFromJson(const nlohmann::json& j)
{
    IterationTime t;
    t.computeNs = j.at("compute");
    t.overlappedNs = j.at("overlapped");
    t.exposedNs = j.at("exposed");
    t.gateWaitNs = j.at("gateWait");
    t.bubbleNs = j.at("bubble");
    return t;
}

/// \p j as JSON, exactly (times in time steps), for another process.
nlohmann::json
JobToJson(const JobOutcome& j)
{
    std::vector<int64_t> iterations;
    for (const Time& t : j.iterationTimes)
    {
        iterations.push_back(t.GetTimeStep());
    }
    return {{"id", j.id},
            {"model", j.model},
            {"workers", j.workers},
            {"done", j.done},
            {"failed", j.failed},
            {"iterations", j.iterations},
            {"trainingTime", j.trainingTime.GetTimeStep()},
            {"meanIteration", j.meanIteration.GetTimeStep()},
            {"meanCommunication", j.meanCommunication.GetTimeStep()},
            {"meanTransfer", j.meanTransfer.GetTimeStep()},
            {"gpuUtilization", j.gpuUtilization},
            {"iterationTimes", iterations},
            {"meanTime", TimeToJson(j.meanTime)},
            {"routes", j.routes}};
}

/// The job outcome JobToJson wrote as \p e.
JobOutcome
JobFromJson(const nlohmann::json& e)
{
    JobOutcome job;
    job.id = e.at("id");
    job.model = e.at("model");
    job.workers = e.at("workers");
    job.done = e.at("done");
    job.failed = e.at("failed");
    job.iterations = e.at("iterations");
    job.trainingTime = TimeStep(e.at("trainingTime").get<int64_t>());
    job.meanIteration = TimeStep(e.at("meanIteration").get<int64_t>());
    job.meanCommunication = TimeStep(e.at("meanCommunication").get<int64_t>());
    job.meanTransfer = TimeStep(e.at("meanTransfer").get<int64_t>());
    job.gpuUtilization = e.at("gpuUtilization");
    job.meanTime = TimeFromJson(e.at("meanTime"));
    for (int64_t t : e.at("iterationTimes"))
    {
        job.iterationTimes.push_back(TimeStep(t));
    }
    job.routes = e.at("routes");
    return job;
}

/// \p jobs as a JSON array of JobToJson's.
nlohmann::json
JobsToJson(const std::vector<JobOutcome>& jobs)
{
    nlohmann::json array = nlohmann::json::array();
    for (const JobOutcome& j : jobs)
    {
        array.push_back(JobToJson(j));
    }
    return array;
}

/// The jobs JobsToJson wrote as \p array.
std::vector<JobOutcome>
JobsFromJson(const nlohmann::json& array)
{
    std::vector<JobOutcome> jobs;
    for (const nlohmann::json& e : array)
    {
        jobs.push_back(JobFromJson(e));
    }
    return jobs;
}

/// \p o as JSON, exactly (times in time steps), for another process.
nlohmann::json
OutcomeToJson(const RunOutcome& o)
{
    return {{"scheduler", o.scheduler},
            {"jobs", JobsToJson(o.jobs)},
            {"aloneEcmp", JobsToJson(o.aloneEcmp)},
            {"aloneBest", JobsToJson(o.aloneBest)},
            {"runIds", o.runIds},
            {"decisions", o.decisions},
            {"decisionWallUs", o.decisionWallUs},
            {"maxDecisionWallUs", o.maxDecisionWallUs}};
}

/// The outcome OutcomeToJson wrote as \p j.
RunOutcome
OutcomeFromJson(const nlohmann::json& j)
{
    RunOutcome o;
    o.scheduler = j.at("scheduler");
    o.jobs = JobsFromJson(j.at("jobs"));
    o.aloneEcmp = JobsFromJson(j.at("aloneEcmp"));
    o.aloneBest = JobsFromJson(j.at("aloneBest"));
    o.runIds = j.at("runIds").get<std::vector<int64_t>>();
    o.decisions = j.at("decisions");
    o.decisionWallUs = j.at("decisionWallUs");
    o.maxDecisionWallUs = j.at("maxDecisionWallUs");
    return o;
}

} // namespace

std::vector<std::vector<RunOutcome>>
ScenarioRunner::CompareTogether(const std::vector<Comparison>& comparisons,
                                uint32_t parallel,
                                std::ostream& out)
{
    std::vector<std::vector<RunOutcome>> outcomes;
    if (parallel == 1 || DistributedSize() != 1)
    {
        for (const Comparison& c : comparisons)
        {
            out << "--- " << c.runner->RunName() << std::endl;
            outcomes.push_back(c.runner->CompareIn(1, c.schedulers, out));
        }
        return outcomes;
    }
    std::vector<Comparison> ordered;
    for (const Comparison& c : comparisons)
    {
        ordered.push_back({c.runner, ComparisonOrder(c.schedulers)});
    }
    outcomes = RunSideBySide(ordered, parallel, out);
    for (size_t c = 0; c < comparisons.size(); ++c)
    {
        out << "--- " << comparisons[c].runner->RunName() << std::endl;
        PrintComparison(outcomes[c], out);
    }
    return outcomes;
}

std::vector<std::vector<RunOutcome>>
ScenarioRunner::RunSideBySide(const std::vector<Comparison>& ordered,
                              uint32_t parallel,
                              std::ostream& out)
{
    // One simulation of the comparisons, flattened: which runner, which policy.
    struct Simulation
    {
        size_t comparison; ///< index in ordered
        ScenarioRunner* runner;
        std::string scheduler;
        std::vector<int64_t> reserved; ///< its database runs
    };

    std::vector<Simulation> sims;
    for (size_t c = 0; c < ordered.size(); ++c)
    {
        for (const std::string& s : ordered[c].schedulers)
        {
            sims.push_back({c, ordered[c].runner, s, {}});
        }
    }
    // Every run reserved first, in the comparisons' order, so that run_ids
    // do not depend on which process begins its run first.
    for (Simulation& sim : sims)
    {
        const ScenarioSpec& spec = sim.runner->m_spec;
        if (spec.output.db.empty())
        {
            continue;
        }
        Ptr<ResultsDatabase> db = CreateObject<ResultsDatabase>();
        db->Open(spec.output.db);
        const bool isolated =
            CollectiveSchedulerHelper::FindScheduler(sim.scheduler) == "ns3::IsolatedScheduler";
        // Isolated: each job alone twice, under ECMP and on its best routes.
        sim.reserved =
            db->ReserveRuns(sim.runner->RunName(),
                            sim.scheduler,
                            spec.seed,
                            isolated ? 2 * sim.runner->m_scenario.CollectJobs().size() : 1);
        db->Close();
    }
    // Named by runner too when several comparisons share the pool.
    auto nameOf = [&](const Simulation& sim) {
        return ordered.size() > 1 ? sim.runner->RunName() + " " + sim.scheduler : sim.scheduler;
    };
    std::vector<ForkedTasks::Task> tasks;
    for (const Simulation& sim : sims)
    {
        tasks.emplace_back([&sim]() {
            sim.runner->m_reservedRunIds.assign(sim.reserved.begin(), sim.reserved.end());
            nlohmann::json result;
            try
            {
                result["outcome"] = OutcomeToJson(sim.runner->Run(sim.scheduler, nullptr));
            }
            catch (const RunInterruptedError& e)
            {
                result = {{"error", "interrupted"}, {"signal", e.GetSignal()}};
            }
            catch (const JobFailedError& e)
            {
                result = {{"error", "job failed"}, {"message", e.what()}};
            }
            catch (const IncompleteRunError& e)
            {
                result = {{"error", "incomplete"}, {"message", e.what()}};
            }
            return result.dump();
        });
    }
    // Each task's result, decoded once as it ends (null if it failed or never ran).
    std::vector<nlohmann::json> decoded(sims.size());
    const std::vector<ForkedTasks::Result> results = ForkedTasks(parallel).Run(
        tasks,
        [&](size_t i) { out << "running " << nameOf(sims[i]) << " ..." << std::endl; },
        [&decoded](size_t i, const ForkedTasks::Result& r) {
            if (r.status == ForkedTasks::Result::DONE)
            {
                decoded[i] = nlohmann::json::parse(r.text);
            }
            return decoded[i].contains("outcome");
        });

    // The first failure in the comparisons' order is the one reported, as
    // when the runs follow one another.
    std::vector<std::vector<RunOutcome>> outcomes(ordered.size());
    std::function<void()> rethrow;
    std::string why;
    std::map<std::string, std::vector<int64_t>> unfinished; // by database
    for (size_t i = 0; i < sims.size(); ++i)
    {
        const ForkedTasks::Result& r = results[i];
        if (r.status == ForkedTasks::Result::DONE)
        {
            const nlohmann::json& result = decoded[i];
            if (result.contains("outcome"))
            {
                outcomes[sims[i].comparison].push_back(OutcomeFromJson(result["outcome"]));
                continue;
            }
            if (!rethrow)
            {
                const std::string error = result["error"];
                const std::string message = result.value("message", "");
                const int signal = result.value("signal", 0);
                rethrow = [error, message, signal]() {
                    if (error == "interrupted")
                    {
                        throw RunInterruptedError(signal);
                    }
                    if (error == "job failed")
                    {
                        throw JobFailedError(message);
                    }
                    throw IncompleteRunError(message);
                };
                why = nameOf(sims[i]) + " did not complete";
            }
        }
        else if (r.status == ForkedTasks::Result::FAILED && !rethrow)
        {
            const std::string message = nameOf(sims[i]) + ": " + r.text;
            rethrow = [message]() { throw std::runtime_error(message); };
            why = nameOf(sims[i]) + " failed: " + r.text;
        }
        if (!sims[i].reserved.empty())
        {
            std::vector<int64_t>& ids = unfinished[sims[i].runner->m_spec.output.db];
            ids.insert(ids.end(), sims[i].reserved.begin(), sims[i].reserved.end());
        }
    }
    for (const auto& [path, ids] : unfinished)
    {
        // Runs never begun (or whose process died) must not stay 'running'.
        Ptr<ResultsDatabase> db = CreateObject<ResultsDatabase>();
        db->Open(path);
        const int signal = InterruptSignal();
        db->FailRunsStillRunning(ids,
                                 "did not run to its end: " +
                                     (signal != 0
                                          ? "the comparison was stopped by " + SignalName(signal)
                                          : "the comparison stopped when " + why));
        db->Close();
    }
    if (rethrow)
    {
        rethrow();
    }
    if (InterruptSignal() != 0)
    {
        throw RunInterruptedError(InterruptSignal());
    }
    return outcomes;
}

} // namespace ns3
