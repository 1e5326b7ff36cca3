/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Synthetic job mix: the statistics of Poisson arrivals and of the size
// and model distributions, the documented draw sequence, determinism and
// seed sensitivity, and refusal of impossible parameters.

#include "runtime-error-test-util.h"

#include "ns3/synthetic-job-generator.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

using namespace ns3;
using ns3::test::RuntimeErrorOf;

namespace
{

ScenarioSpec::Synthetic
Mix(uint32_t jobs, uint64_t seed)
{
    ScenarioSpec::Synthetic s;
    s.enabled = true;
    s.jobs = jobs;
    s.arrivalRatePerS = 4.0; // mean gap 0.25 s
    // Weights need not sum to 1; a zero weight is never drawn.
    s.modelMix = {{"gpt2-124m", 3}, {"pythia-410m", 0}, {"pythia-1b", 1}, {"gpt2-1.5b", 4}};
    s.workerSizes = {{8, 0.5}, {2, 0.2}, {32, 0.3}};
    s.iterations = 25;
    s.seed = seed;
    return s;
}

TEST(SyntheticJobs, InterArrivalMeanIsOneOverTheRate)
{
    const auto jobs = GenerateSyntheticJobs(Mix(20000, 11), JobSpec{});
    ASSERT_EQ(jobs.size(), 20000u);
    const double meanGapS = jobs.back().arrivalNs / 1e9 / jobs.size();
    EXPECT_NEAR(meanGapS, 0.25, 0.05 * 0.25);

    // Exponential gaps: P(gap > mean) = e^-1, P(gap > 2 mean) = e^-2.
    int64_t previous = 0;
    uint32_t overMean = 0;
    uint32_t overTwice = 0;
    for (const JobSpec& job : jobs)
    {
        const int64_t gap = job.arrivalNs - previous;
        ASSERT_GE(gap, 0);
        overMean += gap > 250000000 ? 1 : 0;
        overTwice += gap > 500000000 ? 1 : 0;
        previous = job.arrivalNs;
    }
    EXPECT_NEAR(overMean / 20000.0, std::exp(-1.0), 0.02);
    EXPECT_NEAR(overTwice / 20000.0, std::exp(-2.0), 0.02);
}

TEST(SyntheticJobs, SizeAndModelFrequenciesFollowTheNormalizedWeights)
{
    const auto jobs = GenerateSyntheticJobs(Mix(20000, 5), JobSpec{});
    std::map<uint32_t, double> sizes;
    std::map<std::string, double> models;
    for (const JobSpec& job : jobs)
    {
        sizes[job.workers] += 1.0 / jobs.size();
        models[job.model] += 1.0 / jobs.size();
    }
    // Frequencies within 0.02 (absolute) of weight / total weight.
    EXPECT_NEAR(sizes[8], 0.5, 0.02);
    EXPECT_NEAR(sizes[2], 0.2, 0.02);
    EXPECT_NEAR(sizes[32], 0.3, 0.02);
    EXPECT_EQ(sizes.size(), 3u);
    EXPECT_NEAR(models["gpt2-124m"], 3.0 / 8, 0.02);
    EXPECT_NEAR(models["pythia-1b"], 1.0 / 8, 0.02);
    EXPECT_NEAR(models["gpt2-1.5b"], 4.0 / 8, 0.02);
    EXPECT_EQ(models.count("pythia-410m"), 0u);
}

TEST(SyntheticJobs, FollowsTheDocumentedDrawSequence)
{
    // Re-derive the first jobs from std::mt19937_64 as the header describes.
    const ScenarioSpec::Synthetic mix = Mix(200, 987654321);
    const auto jobs = GenerateSyntheticJobs(mix, JobSpec{});
    std::mt19937_64 engine(mix.seed);
    auto uniform = [&engine]() { return std::ldexp(static_cast<double>(engine() >> 11), -53); };
    double t = 0;
    for (const JobSpec& job : jobs)
    {
        t += -std::log1p(-uniform()) / mix.arrivalRatePerS;
        EXPECT_EQ(job.arrivalNs, std::llround(t * 1e9));
        // Inverse CDF by hand: sizes 8 | 2 | 32 on [0, 0.5) [0.5, 0.7) [0.7, 1).
        const double us = uniform();
        EXPECT_EQ(job.workers, us < 0.5 ? 8u : (us < 0.7 ? 2u : 32u)) << us;
        // Models: cumulative 3, 3, 4, 8 of 8.
        const double um = uniform() * 8;
        EXPECT_EQ(job.model, um < 3 ? "gpt2-124m" : (um < 4 ? "pythia-1b" : "gpt2-1.5b")) << um;
    }
}

TEST(SyntheticJobs, PlacementMixIsAFourthDrawAndLeavesTheOthersUnchanged)
{
    ScenarioSpec::Synthetic mix = Mix(200, 4242);
    JobSpec defaults;
    defaults.placement = "packed";
    const auto without = GenerateSyntheticJobs(mix, defaults);
    mix.placementMix = {{"packed", 3}, {"spread", 0}, {"random", 1}};
    const auto with = GenerateSyntheticJobs(mix, defaults);
    // By hand: four outputs per job, the fourth over cumulative 3, 3, 4 of 4.
    std::mt19937_64 engine(mix.seed);
    auto uniform = [&engine]() { return std::ldexp(static_cast<double>(engine() >> 11), -53); };
    double t = 0;
    uint32_t random = 0;
    ASSERT_EQ(with.size(), 200u);
    for (const JobSpec& job : with)
    {
        t += -std::log1p(-uniform()) / mix.arrivalRatePerS;
        EXPECT_EQ(job.arrivalNs, std::llround(t * 1e9));
        const double us = uniform();
        EXPECT_EQ(job.workers, us < 0.5 ? 8u : (us < 0.7 ? 2u : 32u));
        uniform(); // model
        const double up = uniform() * 4;
        EXPECT_EQ(job.placement, up < 3 ? "packed" : "random") << up;
        random += job.placement == "random" ? 1 : 0;
    }
    EXPECT_GT(random, 20u); // about 50 of 200
    EXPECT_LT(random, 80u);
    // Without a mix the sequence is the three-draw one: every job takes the default.
    for (const JobSpec& job : without)
    {
        EXPECT_EQ(job.placement, "packed");
    }
    EXPECT_NE(without[1].arrivalNs, with[1].arrivalNs); // the fourth draw shifts the stream
    mix.placementMix = {{"explicit", 1}};
    EXPECT_THROW(GenerateSyntheticJobs(mix, defaults), std::runtime_error);
}

TEST(SyntheticJobs, DeterministicForASeedAndSeedSensitive)
{
    const auto a = GenerateSyntheticJobs(Mix(500, 42), JobSpec{});
    const auto b = GenerateSyntheticJobs(Mix(500, 42), JobSpec{});
    const auto c = GenerateSyntheticJobs(Mix(500, 43), JobSpec{});
    ASSERT_EQ(a.size(), b.size());
    uint32_t sameAsC = 0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        EXPECT_EQ(a[i].arrivalNs, b[i].arrivalNs);
        EXPECT_EQ(a[i].workers, b[i].workers);
        EXPECT_EQ(a[i].model, b[i].model);
        sameAsC += a[i].arrivalNs == c[i].arrivalNs ? 1 : 0;
    }
    EXPECT_EQ(sameAsC, 0u); // continuous arrival times: no coincidences
}

TEST(SyntheticJobs, IdsIterationsAndDefaults)
{
    JobSpec defaults;
    defaults.collective = "halving-doubling-all-reduce";
    defaults.channels = 4;
    defaults.iterations = 77;
    defaults.hosts = {3, 4};
    ScenarioSpec::Synthetic mix = Mix(10, 1);
    auto jobs = GenerateSyntheticJobs(mix, defaults, 50);
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        EXPECT_EQ(jobs[i].id, 50 + i);
        EXPECT_EQ(jobs[i].iterations, 25u);
        EXPECT_EQ(jobs[i].collective, "halving-doubling-all-reduce");
        EXPECT_EQ(jobs[i].channels, 4u);
        EXPECT_TRUE(jobs[i].hosts.empty());
        EXPECT_GT(jobs[i].arrivalNs, 0); // the first job arrives after one gap
    }
    mix.iterations = 0;
    jobs = GenerateSyntheticJobs(mix, defaults);
    EXPECT_EQ(jobs[0].iterations, 77u);
    EXPECT_EQ(jobs[0].id, 0u);
}

TEST(SyntheticJobs, ImpossibleParametersAreRefused)
{
    auto fails = [](ScenarioSpec::Synthetic s, const JobSpec& d = JobSpec{}) {
        return RuntimeErrorOf([&] { GenerateSyntheticJobs(s, d); });
    };
    auto s = Mix(10, 1);
    s.arrivalRatePerS = 0;
    EXPECT_EQ(fails(s).rfind("synthetic.arrivalRatePerS: must be positive", 0), 0u);
    s = Mix(10, 1);
    s.arrivalRatePerS = INFINITY;
    EXPECT_EQ(fails(s).rfind("synthetic.arrivalRatePerS:", 0), 0u);
    s = Mix(10, 1);
    s.modelMix[1].second = -0.5;
    EXPECT_EQ(fails(s).rfind("synthetic.modelMix: weights must be finite and non-negative", 0), 0u);
    s = Mix(10, 1);
    s.workerSizes = {{4, 0}, {8, 0}};
    EXPECT_EQ(fails(s), "synthetic.workerSizes: the weights must not all be zero");
    s = Mix(10, 1);
    s.modelMix.clear();
    EXPECT_EQ(fails(s), "synthetic.modelMix: no entries");
    s = Mix(10, 1);
    s.workerSizes.push_back({0, 1});
    EXPECT_EQ(fails(s), "synthetic.workerSizes: a worker count must be at least 1");
    s = Mix(0, 1);
    EXPECT_EQ(fails(s), "synthetic.jobs: must be at least 1");
    JobSpec explicitDefaults;
    explicitDefaults.placement = "explicit";
    EXPECT_NE(fails(Mix(10, 1), explicitDefaults).find("explicit placement"), std::string::npos);
}

} // namespace
