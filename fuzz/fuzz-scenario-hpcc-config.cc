/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer target: a scenario and the HPCC config its fabric.hpccConfig
 * names, taken as a run takes them (see scenario-inputs.h).
 */
#include "scenario-inputs.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ns3::fuzz::FuzzScenarioOne("scenario-hpcc-config", data, size);
    return 0;
}
