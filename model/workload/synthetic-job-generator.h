/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SYNTHETIC_JOB_GENERATOR_H
#define SYNTHETIC_JOB_GENERATOR_H

#include "job-spec.h"
#include "scenario-spec.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Generate a synthetic job mix: Poisson arrivals, worker counts and models
 * drawn from discrete distributions.
 *
 * The result depends only on the parameters, not on the standard library:
 * std::mt19937_64 (whose output sequence the C++ standard fixes) seeded
 * with params.seed, and no std:: distributions. Each engine output x gives
 * u = (x >> 11) * 2^-53, uniform on [0, 1). For job i = 0, 1, ... three
 * outputs are used, in this order:
 *  1. inter-arrival gap g = -log1p(-u) / arrivalRatePerS seconds (= -ln(1 - u)); the
 *     arrival time t (seconds, double, starting at 0) grows by g and
 *     arrivalNs = llround(t * 1e9); the first job arrives after one gap;
 *  2. workers: the first entry k of workerSizes (file order) with
 *     u * W < w_1 + ... + w_k, W the sum of all weights (inverse CDF);
 *  3. model: the same over modelMix;
 *  4. placement, only when placementMix is not empty: the same over
 *     placementMix (without it the engine's sequence, and so every other
 *     draw, is what it was before the field existed).
 * Entries of weight 0 are never drawn. id = firstId + i; iterations =
 * params.iterations, or defaults.iterations when that is 0; every other
 * field comes from \p defaults (its hosts are cleared). params.enabled is
 * not looked at: the caller decides whether to generate.
 *
 * \param params the synthetic mix
 * \param defaults values of the fields the generator does not draw
 * \param firstId id of the first job
 * \return params.jobs jobs in arrival order
 * \throw std::runtime_error "synthetic.<field>: message" when jobs is 0,
 *        the rate is not positive and finite, a distribution is empty, has
 *        a negative or non-finite weight or only zero weights, a worker
 *        count is 0, or defaults.placement or a placementMix entry is "explicit"
 */
std::vector<JobSpec> GenerateSyntheticJobs(const ScenarioSpec::Synthetic& params,
                                           const JobSpec& defaults,
                                           uint32_t firstId = 0);

} // namespace ns3

#endif /* SYNTHETIC_JOB_GENERATOR_H */
