/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer target: an LLM job's parallelism block in a scenario, read and
 * validated as a run collects its jobs (see scenario-inputs.h).
 */
#include "scenario-inputs.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ns3::fuzz::FuzzScenarioOne("scenario-parallelism", data, size);
    return 0;
}
