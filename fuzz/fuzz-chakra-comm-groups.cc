/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer target: the communicator-group JSON of a Chakra trace
 * (chakra::ReadCommGroups; see reader-inputs.h).
 */
#include "reader-inputs.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ns3::fuzz::FuzzOne("chakra-comm-groups", data, size);
    return 0;
}
