/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "synthetic-job-generator.h"

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

[[noreturn]] void
Fail(const std::string& field, const std::string& what)
{
    throw std::runtime_error("synthetic." + field + ": " + what);
}

/// Cumulative weights of a distribution, checked.
template <typename Key>
std::vector<double>
Cumulative(const std::vector<std::pair<Key, double>>& entries, const std::string& field)
{
    if (entries.empty())
    {
        Fail(field, "no entries");
    }
    std::vector<double> cumulative;
    double sum = 0;
    for (const auto& [key, weight] : entries)
    {
        if (!std::isfinite(weight) || weight < 0)
        {
            Fail(field, "weights must be finite and non-negative, got " + std::to_string(weight));
        }
        sum += weight;
        cumulative.push_back(sum);
    }
    if (!(sum > 0))
    {
        Fail(field, "the weights must not all be zero");
    }
    if (!std::isfinite(sum))
    {
        Fail(field, "the weights add up to more than the largest number");
    }
    return cumulative;
}

/// Uniform on [0, 1) from the top 53 bits of one engine output.
double
Uniform(std::mt19937_64& engine)
{
    return static_cast<double>(engine() >> 11) * 0x1.0p-53;
}

/// Inverse CDF: the first index whose cumulative weight exceeds u * total.
size_t
Pick(const std::vector<double>& cumulative, double u)
{
    const double target = u * cumulative.back();
    for (size_t i = 0; i < cumulative.size(); ++i)
    {
        if (target < cumulative[i])
        {
            return i;
        }
    }
    // Only reachable by rounding; the last entry of positive weight.
    size_t i = cumulative.size() - 1;
    while (i > 0 && cumulative[i] == cumulative[i - 1])
    {
        --i;
    }
    return i;
}

} // namespace

std::vector<JobSpec>
GenerateSyntheticJobs(const ScenarioSpec::Synthetic& params,
                      const JobSpec& defaults,
                      uint32_t firstId)
{
    if (params.jobs == 0)
    {
        Fail("jobs", "must be at least 1");
    }
    if (!std::isfinite(params.arrivalRatePerS) || !(params.arrivalRatePerS > 0))
    {
        Fail("arrivalRatePerS",
             "must be positive and finite, got " + std::to_string(params.arrivalRatePerS));
    }
    const std::vector<double> sizes = Cumulative(params.workerSizes, "workerSizes");
    const std::vector<double> models = Cumulative(params.modelMix, "modelMix");
    const std::vector<double> placements = params.placementMix.empty()
                                               ? std::vector<double>{}
                                               : Cumulative(params.placementMix, "placementMix");
    for (const auto& [placement, weight] : params.placementMix)
    {
        if (placement == "explicit")
        {
            Fail("placementMix",
                 "explicit placement needs host lists, which generated jobs do not have");
        }
    }
    for (const auto& [workers, weight] : params.workerSizes)
    {
        if (workers == 0)
        {
            Fail("workerSizes", "a worker count must be at least 1");
        }
    }
    if (defaults.placement == "explicit")
    {
        Fail("jobs", "explicit placement needs host lists, which generated jobs do not have");
    }

    std::mt19937_64 engine(params.seed);
    std::vector<JobSpec> jobs;
    jobs.reserve(params.jobs);
    double t = 0;
    for (uint32_t i = 0; i < params.jobs; ++i)
    {
        t += -std::log1p(-Uniform(engine)) / params.arrivalRatePerS;
        const double ns = std::round(t * 1e9);
        if (!(ns < 9.2e18))
        {
            Fail("arrivalRatePerS", "arrivals run past the 64-bit nanosecond range");
        }
        JobSpec job = defaults;
        job.hosts.clear();
        job.id = firstId + i;
        job.arrivalNs = static_cast<int64_t>(ns);
        job.workers = params.workerSizes[Pick(sizes, Uniform(engine))].first;
        job.model = params.modelMix[Pick(models, Uniform(engine))].first;
        if (!placements.empty())
        {
            job.placement = params.placementMix[Pick(placements, Uniform(engine))].first;
        }
        job.iterations = params.iterations != 0 ? params.iterations : defaults.iterations;
        jobs.push_back(job);
    }
    return jobs;
}

} // namespace ns3
