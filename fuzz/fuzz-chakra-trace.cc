/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer target: the Chakra execution trace reader (see chakra-trace-input.h).
 */
#include "chakra-trace-input.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::vector<std::string> sources;
    try
    {
        ns3::fuzz::ReadChakraFuzzInput(std::string(reinterpret_cast<const char*>(data), size),
                                       sources);
    }
    catch (const std::runtime_error&)
    {
    }
    catch (const std::invalid_argument&)
    {
    }
    return 0;
}
