/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EXAMPLE_PROCESS_TEST_UTIL_H
#define EXAMPLE_PROCESS_TEST_UTIL_H

// Running an example program as a subprocess and reading back what it left:
// its exit code and output, and rows of its SQLite results file.

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sqlite3.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <utility>
#include <vector>

namespace ns3
{
namespace test
{

/// \p s quoted for /bin/sh.
inline std::string
ShellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
    {
        q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

/// \p program and \p args, each quoted for /bin/sh, as one command line.
inline std::string
CommandLine(const std::string& program, const std::vector<std::string>& args)
{
    std::string command = ShellQuote(program);
    for (const std::string& a : args)
    {
        command += " " + ShellQuote(a);
    }
    return command;
}

/// The contents of \p path; empty if it cannot be read.
inline std::string
ReadText(const std::filesystem::path& path)
{
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// What a finished subprocess left.
struct Outcome
{
    int exitCode{-1}; ///< exit status, or -1 if it did not exit normally
    std::string out;  ///< standard output
    std::string err;  ///< standard error

    /// For assertion messages.
    std::string Describe() const
    {
        return "exit code " + std::to_string(exitCode) + "\n--- stdout:\n" + out + "--- stderr:\n" +
               err;
    }
};

/**
 * Run \p command (already quoted) in \p dir, its stdout and stderr captured
 * in \p dir / \p name ".out" and ".err". A time limit turns a hang into a
 * failure.
 */
inline Outcome
RunCaptured(const std::filesystem::path& dir, const std::string& command, const std::string& name)
{
    const std::filesystem::path out = dir / (name + ".out");
    const std::filesystem::path err = dir / (name + ".err");
    const std::string line = "cd " + ShellQuote(dir.string()) + " && timeout 300 " + command +
                             " >" + ShellQuote(out.string()) + " 2>" + ShellQuote(err.string());
    const int status = std::system(line.c_str());
    Outcome o;
    o.exitCode = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
    o.out = ReadText(out);
    o.err = ReadText(err);
    return o;
}

/// One row of a query; NULL is nullopt.
using Row = std::vector<std::optional<std::string>>;

/**
 * Run \p sql on the SQLite file \p path through a read-only connection of
 * its own. Columns named in \p skip are left out of the rows.
 */
inline std::vector<Row>
Query(const std::filesystem::path& path,
      const std::string& sql,
      const std::set<std::string>& skip = {})
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    {
        const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        throw std::runtime_error("cannot open " + path.string() + ": " + msg);
    }
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
    {
        const std::string msg = sqlite3_errmsg(db);
        sqlite3_close(db);
        throw std::runtime_error(path.string() + ": " + sql + ": " + msg);
    }
    std::vector<Row> rows;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
    {
        Row row;
        for (int c = 0; c < sqlite3_column_count(stmt); ++c)
        {
            if (skip.count(sqlite3_column_name(stmt, c)) != 0)
            {
                continue;
            }
            const unsigned char* text = sqlite3_column_text(stmt, c);
            row.push_back(text ? std::optional<std::string>(reinterpret_cast<const char*>(text))
                               : std::nullopt);
        }
        rows.push_back(std::move(row));
    }
    const std::string msg = sqlite3_errmsg(db);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    if (rc != SQLITE_DONE)
    {
        throw std::runtime_error(path.string() + ": " + sql + ": " + msg);
    }
    return rows;
}

/// The single integer a query returns.
inline int64_t
QueryInt(const std::filesystem::path& path, const std::string& sql)
{
    const std::vector<Row> rows = Query(path, sql);
    if (rows.size() != 1 || rows[0].size() != 1 || !rows[0][0])
    {
        throw std::runtime_error(path.string() + ": " + sql + ": expected one non-NULL value");
    }
    return std::stoll(*rows[0][0]);
}

} // namespace test
} // namespace ns3

#endif /* EXAMPLE_PROCESS_TEST_UTIL_H */
