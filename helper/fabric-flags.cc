/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-flags.h"

#include "flag-checks.h"

#include "ns3/boolean.h"
#include "ns3/global-value.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/short-name-registry.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

void
FabricFlags::AddTo(CommandLine& cmd)
{
    AddFlag(cmd, "linkRate", "Rate of every link (ns-3 rate string)", linkRate);
    AddFlag(cmd, "linkDelay", "Propagation delay of every link (ns-3 time string)", linkDelay);
    AddFlag(cmd,
            "mtu",
            "RoCE path MTU: RDMA payload bytes per full data packet (256, 512, 1024, 2048 or "
            "4096; the frame adds 58-74 bytes of headers)",
            mtu);
    AddFlag(cmd,
            "cc",
            "Congestion control (" + ShortNameRegistry::ListNames(RdmaCongestionOps::GetTypeId()) +
                ", or a TypeId name; attributes in brackets: dcqcn[profile=hpcc])",
            cc);
    AddFlag(cmd, "pfc", "Enable PFC in the switches", pfc);
    AddFlag(cmd, "seed", "Random seed (traffic, ECMP hash, PSNs, ECN)", seed);
    AddFlag(cmd, "db", "SQLite file to append the run to (empty: none)", db, EmptyFlag::MeansNone);
    AddFlag(cmd, "stopTime", "Simulated time limit", stopTime);
}

void
FabricFlags::Apply(RoceFabricHelper& helper)
{
    RequireMtuFlag(mtu);
    RequireFlag(seed > 0, "seed", std::to_string(seed), "must be positive");
    rate = ParseRateFlag("linkRate", linkRate);
    delay = ParseTimeFlag("linkDelay", linkDelay);
    stop = ParseTimeFlag("stopTime", stopTime);
    RequireFlag(stop.IsStrictlyPositive(), "stopTime", stopTime, "must be positive");
    ApplyFlag("cc", cc, [&]() { helper.SetCongestionControl(cc); });
    RngSeedManager::SetSeed(seed);
    helper.SetNicAttribute("PayloadPerPacket", UintegerValue(mtu));
    helper.SetSwitchAttribute("PfcEnabled", BooleanValue(pfc));
    helper.SetEcmpSeed(seed);
}

nlohmann::json
FabricFlags::ToJson() const
{
    return {{"linkRate", linkRate},
            {"linkDelay", linkDelay},
            {"mtu", mtu},
            {"cc", cc},
            {"pfc", pfc},
            {"stopTime", stopTime}};
}

void
RoceExampleDefaults()
{
    RoceUsePicoseconds();
    GlobalValue::Bind("SchedulerType", StringValue("ns3::BucketScheduler"));
}

} // namespace ns3
