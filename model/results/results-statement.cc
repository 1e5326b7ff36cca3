/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// ResultsDatabase::Statement: a prepared SQLite statement whose errors name
// the file and the SQL.
#include "results-database.h"

#include <sqlite3.h>
#include <stdexcept>

namespace ns3
{

ResultsDatabase::Statement::Statement(sqlite3_stmt* stmt, std::string path)
    : m_stmt(stmt),
      m_path(std::move(path))
{
}

ResultsDatabase::Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

ResultsDatabase::Statement::Statement(Statement&& other) noexcept
    : m_stmt(other.m_stmt),
      m_path(std::move(other.m_path))
{
    other.m_stmt = nullptr;
}

ResultsDatabase::Statement&
ResultsDatabase::Statement::operator=(Statement&& other) noexcept
{
    if (this != &other)
    {
        sqlite3_finalize(m_stmt);
        m_stmt = other.m_stmt;
        m_path = std::move(other.m_path);
        other.m_stmt = nullptr;
    }
    return *this;
}

bool
ResultsDatabase::Statement::IsValid() const
{
    return m_stmt != nullptr;
}

void
ResultsDatabase::Statement::Check(int rc, const char* what) const
{
    if (rc != SQLITE_OK)
    {
        throw std::runtime_error(Where(m_path) + what + " (" + sqlite3_sql(m_stmt) +
                                 "): " + sqlite3_errmsg(sqlite3_db_handle(m_stmt)));
    }
}

ResultsDatabase::Statement&
ResultsDatabase::Statement::BindInt64(int index, int64_t value)
{
    Check(sqlite3_bind_int64(m_stmt, index, value), "bind");
    return *this;
}

ResultsDatabase::Statement&
ResultsDatabase::Statement::BindDouble(int index, double value)
{
    Check(sqlite3_bind_double(m_stmt, index, value), "bind");
    return *this;
}

ResultsDatabase::Statement&
ResultsDatabase::Statement::BindText(int index, const std::string& value)
{
    const int size = static_cast<int>(value.size());
    Check(sqlite3_bind_text(m_stmt, index, value.data(), size, SQLITE_TRANSIENT), "bind");
    return *this;
}

ResultsDatabase::Statement&
ResultsDatabase::Statement::BindNull(int index)
{
    Check(sqlite3_bind_null(m_stmt, index), "bind");
    return *this;
}

bool
ResultsDatabase::Statement::Step()
{
    if (m_stmt == nullptr)
    {
        throw std::runtime_error("ResultsDatabase: Step() on an empty statement");
    }
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
    {
        return true;
    }
    if (rc == SQLITE_DONE)
    {
        return false;
    }
    const std::string message = Where(m_path) + "step (" + sqlite3_sql(m_stmt) +
                                "): " + sqlite3_errmsg(sqlite3_db_handle(m_stmt));
    sqlite3_reset(m_stmt); // leaves the statement reusable
    throw std::runtime_error(message);
}

void
ResultsDatabase::Statement::Reset()
{
    // sqlite3_reset repeats the last step's error code, already reported by Step().
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

int
ResultsDatabase::Statement::ColumnCount() const
{
    return sqlite3_column_count(m_stmt);
}

bool
ResultsDatabase::Statement::IsNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

int64_t
ResultsDatabase::Statement::GetInt64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

double
ResultsDatabase::Statement::GetDouble(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

std::string
ResultsDatabase::Statement::GetText(int column) const
{
    const auto* text = sqlite3_column_text(m_stmt, column);
    if (text == nullptr)
    {
        return "";
    }
    return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(m_stmt, column));
}

} // namespace ns3
