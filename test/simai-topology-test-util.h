/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SIMAI_TOPOLOGY_TEST_UTIL_H
#define SIMAI_TOPOLOGY_TEST_UTIL_H

namespace ns3
{
namespace test
{

/// A SimAI-format topology: 2 servers of 2 GPUs (nodes 0-3), each server's
/// GPUs on its NVSwitch (nodes 4, 5), every GPU's NIC on switch 6.
inline const char* const kSimaiTopology = "7 2 2 1 8 A100\n"
                                          "4 5 6\n"
                                          "0 4 2400Gbps 0.000025ms 0\n"
                                          "1 4 2400Gbps 0.000025ms 0\n"
                                          "2 5 2400Gbps 0.000025ms 0\n"
                                          "3 5 2400Gbps 0.000025ms 0\n"
                                          "0 6 100Gbps 0.001ms 0\n"
                                          "1 6 100Gbps 0.001ms 0\n"
                                          "2 6 100Gbps 0.001ms 0\n"
                                          "3 6 100Gbps 0.001ms 0\n";

} // namespace test
} // namespace ns3

#endif /* SIMAI_TOPOLOGY_TEST_UTIL_H */
