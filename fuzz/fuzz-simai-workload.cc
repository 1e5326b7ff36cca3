/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer target: the SimAI / AICB workload reader (see reader-inputs.h).
 */
#include "reader-inputs.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ns3::fuzz::FuzzOne("simai-workload", data, size);
    return 0;
}
