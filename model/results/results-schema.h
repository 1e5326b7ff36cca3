/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RESULTS_SCHEMA_H
#define RESULTS_SCHEMA_H

// The results database's schema and its migration from earlier versions,
// used by ResultsDatabase::Open(); doc/results-schema.md describes both.

#include <cstdint>

namespace ns3
{

class ResultsDatabase;

/// \return the schema version this build creates and migrates to
int64_t ResultsSchemaVersion();

/**
 * Refuse a file another program made, before anything writes to it (not
 * even the switch to WAL): one with tables but no schema_version table and
 * no runs table of this module's (run_id, example, scheduler, seed,
 * params_json and status columns). A new, empty file passes.
 * \throw std::runtime_error "ResultsDatabase 'path': ..." naming what is foreign
 */
void RequireResultsFile(ResultsDatabase& db);

/**
 * Create every table of the current schema in the open file \p db, or
 * migrate a file of an earlier version to it, in one transaction under the
 * write lock (a failure leaves the file as it was).
 * \throw std::runtime_error for a file of a newer version, or one whose rows
 *        would break the current schema's foreign keys
 */
void CreateOrMigrateResultsSchema(ResultsDatabase& db);

} // namespace ns3

#endif /* RESULTS_SCHEMA_H */
