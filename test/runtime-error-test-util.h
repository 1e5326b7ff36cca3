/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RUNTIME_ERROR_TEST_UTIL_H
#define RUNTIME_ERROR_TEST_UTIL_H

// Catching the error a refused input throws, for tests that check its message.

#include <gtest/gtest.h>
#include <stdexcept>
#include <string>

namespace ns3
{
namespace test
{

/// Runs \p fn and returns the message of the std::runtime_error it throws
/// (a test failure and "" if it throws none).
template <typename Fn>
std::string
RuntimeErrorOf(Fn fn)
{
    try
    {
        fn();
    }
    catch (const std::runtime_error& e)
    {
        return e.what();
    }
    ADD_FAILURE() << "expected std::runtime_error";
    return "";
}

/// The what() of the exception \p fn throws, or "" if it throws none.
template <typename Fn>
std::string
ErrorOf(Fn fn)
{
    try
    {
        fn();
    }
    catch (const std::exception& e)
    {
        return e.what();
    }
    return "";
}

} // namespace test
} // namespace ns3

#endif /* RUNTIME_ERROR_TEST_UTIL_H */
