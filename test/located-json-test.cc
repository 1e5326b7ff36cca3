/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Time and rate strings of JSON input files: units scale exactly to whole
// nanoseconds and bits per second, and malformed or inexact strings are refused.

#include "ns3/located-json.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

namespace
{

TEST(TimeStrings, UnitsScaleExactly)
{
    EXPECT_EQ(ParseTimeNs("1us"), 1000);
    EXPECT_EQ(ParseTimeNs("2.5ms"), 2500000);
    EXPECT_EQ(ParseTimeNs("0.1us"), 100);
    EXPECT_EQ(ParseTimeNs("1e-3s"), 1000000);
    EXPECT_EQ(ParseTimeNs("3E2ns"), 300);
    EXPECT_EQ(ParseTimeNs("7ns"), 7);
    EXPECT_EQ(ParseTimeNs("3000ps"), 3);
    EXPECT_EQ(ParseTimeNs("5000000fs"), 5);
    EXPECT_EQ(ParseTimeNs("2min"), 120000000000);
    EXPECT_EQ(ParseTimeNs("1.5h"), 5400000000000);
    EXPECT_EQ(ParseTimeNs("1d"), 86400000000000);
    EXPECT_EQ(ParseTimeNs(" 0s "), 0);
    // The latest time the simulator represents (2^63 ps); one more nanosecond would wrap.
    EXPECT_EQ(ParseTimeNs("9223372036854775ns"), 9223372036854775);
    EXPECT_THROW(ParseTimeNs("9223372036854776ns"), std::invalid_argument);
    EXPECT_EQ(ParseTimeNs("000012.5000us"), 12500);
}

TEST(TimeStrings, BadStringsAreRefused)
{
    for (const char* bad : {"",
                            "us",
                            "1",
                            "1 us",
                            "1uss",
                            "-1us",
                            "1.5ns",
                            "1ps",
                            "1e400s",
                            "9223372036854775808ns",
                            "1e",
                            "1.2.3s",
                            "0x10s"})
    {
        EXPECT_THROW(ParseTimeNs(bad), std::invalid_argument) << bad;
    }
}

TEST(RateStrings, UnitsScaleExactly)
{
    EXPECT_EQ(ParseRateBps("100Gbps"), 100000000000u);
    EXPECT_EQ(ParseRateBps("25Gb/s"), 25000000000u);
    EXPECT_EQ(ParseRateBps("12.5GBps"), 100000000000u);
    EXPECT_EQ(ParseRateBps("1kbps"), 1000u);
    EXPECT_EQ(ParseRateBps("1Kbps"), 1000u);
    EXPECT_EQ(ParseRateBps("1Kib/s"), 1024u);
    EXPECT_EQ(ParseRateBps("1KiBps"), 8192u);
    EXPECT_EQ(ParseRateBps("2Mibps"), 2097152u);
    EXPECT_EQ(ParseRateBps("1.6Tbps"), 1600000000000u);
    EXPECT_EQ(ParseRateBps("3B/s"), 24u);
    EXPECT_EQ(ParseRateBps("0bps"), 0u);
    EXPECT_EQ(ParseRateBps("1e2Mbps"), 100000000u);
}

TEST(RateStrings, BadStringsAreRefused)
{
    for (const char* bad :
         {"", "100", "100G", "100Gbs", "100gbps", "-1Gbps", "0.5bps", "1Xbps", "1e30Tbps"})
    {
        EXPECT_THROW(ParseRateBps(bad), std::invalid_argument) << bad;
    }
}

} // namespace
