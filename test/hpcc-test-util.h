/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_TEST_UTIL_H
#define HPCC_TEST_UTIL_H

// Small pieces shared by the tests of HPCC-format files.

#include "ns3/fat-tree-topology.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <istream>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{
namespace test
{

/// An HPCC topology of one switch (node 2) and two hosts, and one flow between them.
inline const char* const kOneSwitchTopology = "3 1 2\n"
                                              "2\n"
                                              "0 2 100Gbps 0.001ms 0\n"
                                              "1 2 100Gbps 0.001ms 0\n";
/// \copydoc kOneSwitchTopology
inline const char* const kOneSwitchFlows = "1\n"
                                           "0 1 3 100 10000 2.0\n";

/// The white-space separated fields of one line.
using Fields = std::vector<std::string>;

/// The fields of each non-blank line of \p in (fct.txt, pfc.txt and the like).
inline std::vector<Fields>
FieldsOfLines(std::istream& in)
{
    std::vector<Fields> lines;
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream ss(line);
        Fields f;
        std::string x;
        while (ss >> x)
        {
            f.push_back(x);
        }
        if (!f.empty())
        {
            lines.push_back(f);
        }
    }
    return lines;
}

/// Expect the error \p message to begin "path:line: field: " and to contain \p part.
inline void
ExpectLocatedError(const std::string& message,
                   const std::string& path,
                   uint32_t line,
                   const std::string& field,
                   const std::string& part)
{
    const std::string head = path + ":" + std::to_string(line) + ": " + field + ": ";
    EXPECT_EQ(message.rfind(head, 0), 0u) << "message: " << message << "\nexpected head: " << head;
    EXPECT_NE(message.find(part), std::string::npos)
        << "message: " << message << "\nmissing: " << part;
}

/**
 * A k = 4 fat tree with a different rate and delay on each tier, so that a
 * link written to the wrong tier shows: 25, 100 and 400 Gbit/s; 1 us, 2.5 us
 * and \p aggCoreDelayNs.
 */
inline FatTreeParams
TieredFatTreeParams(int64_t aggCoreDelayNs)
{
    FatTreeParams params;
    params.k = 4;
    params.hostRateBps = 25000000000ULL;
    params.edgeAggRateBps = 100000000000ULL;
    params.aggCoreRateBps = 400000000000ULL;
    params.hostDelayNs = 1000;
    params.edgeAggDelayNs = 2500;
    params.aggCoreDelayNs = aggCoreDelayNs;
    return params;
}

} // namespace test
} // namespace ns3

#endif /* HPCC_TEST_UTIL_H */
