/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The one way numbers are read from flags and file fields: the whole text
 * or an error, never a prefix, a wrapped negative or an overflow.
 */

#include "ns3/strict-numbers.h"
#include "ns3/unit-strings.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <stdexcept>
#include <string>

using namespace ns3;

namespace
{

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

/// The what() of the invalid_argument \p f throws, or "" if it throws none.
template <typename F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

TEST(StrictNumbersTest, AnIntegerIsReadWholeOrNotAtAll)
{
    EXPECT_EQ(ParseUnsignedText("0", 0, kU64Max), 0u);
    EXPECT_EQ(ParseUnsignedText("2000000", 0, kU64Max), 2000000u);
    // An exponent is read exactly, never as the digits before it.
    EXPECT_EQ(ParseUnsignedText("1e6", 0, kU64Max), 1000000u);
    EXPECT_EQ(ParseUnsignedText("2.5e1", 0, kU64Max), 25u);
    EXPECT_EQ(ParseUnsignedText("18446744073709551615", 0, kU64Max), kU64Max);
    for (const char* bad : {"", "abc", "1x", "1e6x", " 1", "1 ", "0x10", "1.5", "1e-1", "e6", "1e"})
    {
        EXPECT_NE(ErrorOf([&] { ParseUnsignedText(bad, 0, kU64Max); }), "") << bad;
    }
}

TEST(StrictNumbersTest, NegativeAndOverflowingIntegersAreErrors)
{
    EXPECT_NE(ErrorOf([] { ParseUnsignedText("-5", 0, kU64Max); }).find("must not be negative"),
              std::string::npos);
    EXPECT_NE(
        ErrorOf([] { ParseUnsignedText("18446744073709551616", 0, kU64Max); }).find("too large"),
        std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseUnsignedText("1e30", 0, kU64Max); }).find("too large"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseUnsignedText("4294967296", 0, UINT32_MAX); }), "");
    EXPECT_NE(ErrorOf([] { ParseUnsignedText("0", 1, 10); }).find("from 1 to 10"),
              std::string::npos);
    EXPECT_EQ(ParseSignedText("-3", INT64_MIN, INT64_MAX), -3);
    EXPECT_EQ(ParseSignedText("-9223372036854775808", INT64_MIN, INT64_MAX), INT64_MIN);
    EXPECT_NE(ErrorOf([] { ParseSignedText("9223372036854775808", INT64_MIN, INT64_MAX); }), "");
    EXPECT_NE(ErrorOf([] { ParseSignedText("-1", 0, 5); }), "");
}

TEST(StrictNumbersTest, RealsAreFiniteAndWhole)
{
    EXPECT_DOUBLE_EQ(ParseRealText("0.01"), 0.01);
    EXPECT_DOUBLE_EQ(ParseRealText("1e-8"), 1e-8);
    EXPECT_DOUBLE_EQ(ParseRealText("-2"), -2);
    for (const char* bad : {"", "nan", "inf", "-inf", "1e999", "0x1p3", "1.5x", " 1", "abc"})
    {
        EXPECT_NE(ErrorOf([&] { ParseRealText(bad); }), "") << bad;
    }
}

TEST(StrictNumbersTest, BooleansAreTheFormsNs3Reads)
{
    EXPECT_TRUE(ParseBoolText("true"));
    EXPECT_TRUE(ParseBoolText("1"));
    EXPECT_FALSE(ParseBoolText("false"));
    EXPECT_FALSE(ParseBoolText("0"));
    for (const char* bad : {"", "maybe", "yes", "2", "-5"})
    {
        EXPECT_NE(ErrorOf([&] { ParseBoolText(bad); }), "") << bad;
    }
}

TEST(StrictNumbersTest, TimesBeyondTheSimulatorsRangeAreErrors)
{
    // 2^63 ps is about 106.75 days: 2562 hours fit, 2563 do not.
    EXPECT_EQ(ParseTimeNs("2562h"), 2562LL * 3600 * 1000000000);
    EXPECT_EQ(ErrorOf([] { ParseTimeNs("2563h"); }), kTimeRangeError);
    EXPECT_EQ(ErrorOf([] { ParseTimeNs("3000h"); }), kTimeRangeError);
    EXPECT_EQ(ErrorOf([] { ParseTimeNs("40000000000000s"); }), kTimeRangeError);
    EXPECT_EQ(ParseTimeNs(std::to_string(kMaxSimulatedTimeNs) + "ns"), kMaxSimulatedTimeNs);
}

} // namespace
