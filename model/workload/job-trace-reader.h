/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef JOB_TRACE_READER_H
#define JOB_TRACE_READER_H

#include "job-spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Read a CSV job trace: one job per row, rows sorted by arrival.
 *
 * Format: a header row naming the columns, in any order, then one row per
 * job. Required columns: arrival, model, workers, iterations. Optional
 * columns: gpus_per_host, placement, weight, collective, buckets, channels,
 * compute_time, dtype, gpu, compute_efficiency, batch_per_gpu, sequence_length, scale
 * (the JobSpec fields of the same names). An empty cell in an optional
 * column keeps the default. arrival and compute_time are seconds as a
 * decimal number ("1.5") or a time string with a unit ("1500ms"). Fields
 * are separated by commas without quoting; spaces around fields, blank
 * lines, lines starting with '#' and CRLF line ends are ignored.
 *
 * Ranges: workers, iterations, gpus_per_host, buckets, channels,
 * batch_per_gpu, sequence_length >= 1; weight >= 0 (0: the number of
 * workers); 0 < compute_efficiency <= 1 (a column "mfu", its old name, is an error); scale > 0;
 * times >= 0 and whole nanoseconds. Placement "explicit" is refused: a trace has no host lists.
 *
 * \param path the CSV file
 * \param defaults values of the fields a row does not give (its id, hosts
 *        and arrival are not used)
 * \param firstId the id of the first row; later rows count up from it
 * \return the jobs, in row order
 * \throw std::runtime_error "path:line: column: message" for an unknown,
 *        duplicate or missing column, a wrong field count, a bad or
 *        out-of-range value, or a row that arrives before the row above it;
 *        "path: cannot open" for a file that cannot be read
 */
std::vector<JobSpec> ReadJobTrace(const std::string& path,
                                  const JobSpec& defaults,
                                  uint32_t firstId = 0);

/**
 * Read a CSV job trace from text; as ReadJobTrace, with \p sourceName in
 * error messages.
 *
 * \param text the CSV text
 * \param sourceName the name used in error messages
 * \param defaults values of the fields a row does not give
 * \param firstId the id of the first row
 * \return the jobs, in row order
 * \throw std::runtime_error as ReadJobTrace
 */
std::vector<JobSpec> ReadJobTraceText(const std::string& text,
                                      const std::string& sourceName,
                                      const JobSpec& defaults,
                                      uint32_t firstId = 0);

} // namespace ns3

#endif /* JOB_TRACE_READER_H */
