/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-network-config.h"

#include "checked-attributes.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/csv-fields.h"
#include "ns3/dcqcn.h"
#include "ns3/enum.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The simulators' defaults for keys a config omits.
constexpr uint32_t kDefaultPayloadBytes = 1000;
constexpr int64_t kDefaultStopNs = 3010000000; // SIMULATOR_STOP_TIME 3.01
/// Largest payload per packet the NIC carries (its PayloadPerPacket range).
constexpr uint32_t kMaxPayloadBytes = 9000;

/// The rates a KMIN_MAP, KMAX_MAP or PMAX_MAP gives values for.
template <typename T>
std::set<uint64_t>
RatesOf(const std::map<uint64_t, T>& map)
{
    std::set<uint64_t> rates;
    for (const auto& kv : map)
    {
        rates.insert(kv.first);
    }
    return rates;
}

} // namespace

HpccNetworkConfig::HpccNetworkConfig(const std::string& path, bool strict)
    : m_file(ReadHpccConfig(path)),
      m_mapping(MapHpccConfig(m_file, strict))
{
    // Values the module's attributes cannot take, reported here rather than by ns-3's fatal errors.
    const HpccConfig& c = m_mapping.config;
    if (c.payloadBytes && *c.payloadBytes > kMaxPayloadBytes)
    {
        Fail("PACKET_PAYLOAD_SIZE",
             std::to_string(*c.payloadBytes) + " bytes is above the largest payload " +
                 "the NIC carries (" + std::to_string(kMaxPayloadBytes) + ")");
    }
    if (c.bufferBytes && *c.bufferBytes == 0)
    {
        Fail("BUFFER_SIZE", "must be at least 1 MB");
    }
    for (const auto& [key, interval] : {std::pair{"QLEN_MON_INTERVAL", c.qlenMonIntervalNs},
                                        std::pair{"BW_MON_INTERVAL", c.bwMonIntervalNs},
                                        std::pair{"QP_MON_INTERVAL", c.qpMonIntervalNs}})
    {
        if (interval && *interval <= 0)
        {
            Fail(key, "must be above 0: a monitor's period");
        }
    }
    for (const auto& [key, interval] :
         {std::pair{"RP_TIMER", c.rpTimerNs},
          std::pair{"ALPHA_RESUME_INTERVAL", c.alphaResumeIntervalNs}})
    {
        if (interval && *interval <= 0)
        {
            Fail(key, "must be above 0: the period of a DCQCN timer");
        }
    }
    if (c.qlenMonStartNs && c.qlenMonEndNs && *c.qlenMonEndNs < *c.qlenMonStartNs)
    {
        Fail("QLEN_MON_END",
             std::to_string(*c.qlenMonEndNs) + " ns is before QLEN_MON_START (" +
                 std::to_string(*c.qlenMonStartNs) + " ns, line " +
                 std::to_string(Line("QLEN_MON_START")) + "): the monitor's window is empty");
    }
}

uint32_t
HpccNetworkConfig::Line(const std::string& key) const
{
    for (const HpccConfigEntry& e : m_file.entries)
    {
        if (e.key == key)
        {
            return e.line;
        }
    }
    return 0;
}

void
HpccNetworkConfig::Fail(const std::string& key, const std::string& message) const
{
    ThrowInputError(m_file.path, Line(key), key, message);
}

std::string
HpccNetworkConfig::DescribeUnmodelledKeys() const
{
    if (m_mapping.unmodelled.empty())
    {
        return "";
    }
    std::string text = m_file.path + ": " + std::to_string(m_mapping.unmodelled.size()) +
                       " config keys not modelled, ignored:";
    for (const HpccUnmodelledKey& k : m_mapping.unmodelled)
    {
        text += "\n  " + k.key + " (line " + std::to_string(k.line) + "): " + k.reason;
    }
    return text;
}

uint32_t
HpccNetworkConfig::GetPayloadBytes() const
{
    return m_mapping.config.payloadBytes.value_or(kDefaultPayloadBytes);
}

uint32_t
HpccNetworkConfig::GetAckIntervalPackets() const
{
    // Bytes in the file; the NIC acknowledges every N packets.
    const std::optional<uint32_t>& bytes = m_mapping.config.l2AckInterval;
    const uint32_t payload = GetPayloadBytes();
    return bytes ? std::max<uint32_t>(1, (*bytes + payload - 1) / payload) : 1;
}

Time
HpccNetworkConfig::GetStopTime() const
{
    return NanoSeconds(m_mapping.config.stopTimeNs.value_or(kDefaultStopNs));
}

bool
HpccNetworkConfig::RunsUntilDone() const
{
    return m_mapping.config.stopTimeBeyondRange;
}

void
HpccNetworkConfig::Configure(RoceFabricHelper& helper) const
{
    const HpccConfig& c = m_mapping.config;
    // A value the attribute rejects is an error at its key's line.
    auto checked = [this](TypeId tid,
                          const std::string& attribute,
                          const AttributeValue& value,
                          const std::string& key) {
        const uint32_t line = Line(key);
        const std::string where =
            m_file.path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + key;
        try
        {
            return CheckedAttributeValue(tid, attribute, value, where);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::runtime_error(e.what());
        }
    };
    const uint32_t payload = GetPayloadBytes();
    helper.SetNicAttribute("PayloadPerPacket",
                           *checked(RdmaNic::GetTypeId(),
                                    "PayloadPerPacket",
                                    UintegerValue(payload),
                                    "PACKET_PAYLOAD_SIZE"));
    // Always the simulators' fixed 4 ms timeout with unlimited retries, not
    // the NIC's defaults.
    helper.SetNicAttribute("AckInterval",
                           *checked(RdmaNic::GetTypeId(),
                                    "AckInterval",
                                    UintegerValue(GetAckIntervalPackets()),
                                    "L2_ACK_INTERVAL"));
    helper.SetNicAttribute("RetransmitTimeout", TimeValue(MilliSeconds(4)));
    // Nor do they restart slowly after a retransmission.
    helper.SetNicAttribute("SlowRestart", BooleanValue(false));
    if (c.bufferBytes)
    {
        helper.SetMmuAttribute("BufferSize",
                               *checked(SwitchMmu::GetTypeId(),
                                        "BufferSize",
                                        UintegerValue(*c.bufferBytes),
                                        "BUFFER_SIZE"));
    }
    // The simulators' MMU: every queue is lossless, and BufferSize less one
    // reserve and one headroom of 3 x rate x delay per port is the shared
    // pool (doc/hpcc-compat.md).
    helper.SetMmuAttribute("LosslessClasses", StringValue("0-7"));
    helper.SetMmuAttribute("Carving", EnumValue(SwitchMmu::CARVE_PER_PORT));
    helper.SetMmuAttribute("HeadroomFrames", UintegerValue(0));
    if (c.enableQcn)
    {
        helper.SetSwitchAttribute("EcnEnabled", BooleanValue(*c.enableQcn));
    }
    helper.SetSwitchAttribute("PfcEnabled", BooleanValue(true));
    const std::string spec = GetCongestionControlSpec();
    try
    {
        helper.SetCongestionControl(spec);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(m_file.path + ": DCQCN settings: " + e.what());
    }
}

std::string
HpccNetworkConfig::GetCongestionControlSpec() const
{
    const HpccConfig& c = m_mapping.config;
    // The HPCC simulator's DCQCN is the base; the file's keys replace its values.
    std::vector<Dcqcn::AttributeSetting> values = Dcqcn::GetProfile("hpcc");
    const auto set = [&values](const std::string& name, const std::string& value) {
        auto it = std::find_if(values.begin(), values.end(), [&name](const auto& v) {
            return v.first == name;
        });
        NS_ABORT_MSG_IF(it == values.end(), "the hpcc profile has no " << name);
        it->second = value;
    };
    if (c.rateAiBps)
    {
        set("AdditiveIncreaseRate", std::to_string(*c.rateAiBps) + "bps");
    }
    if (c.rateHaiBps)
    {
        set("HyperIncreaseRate", std::to_string(*c.rateHaiBps) + "bps");
    }
    if (c.minRateBps)
    {
        set("MinRate", std::to_string(*c.minRateBps) + "bps");
    }
    if (c.alphaResumeIntervalNs)
    {
        set("AlphaUpdateInterval", std::to_string(*c.alphaResumeIntervalNs) + "ns");
    }
    if (c.rateDecreaseIntervalNs)
    {
        set("RateDecreaseInterval", std::to_string(*c.rateDecreaseIntervalNs) + "ns");
    }
    if (c.rpTimerNs)
    {
        set("RateIncreaseInterval", std::to_string(*c.rpTimerNs) + "ns");
    }
    if (c.fastRecoveryTimes)
    {
        set("FastRecoveryTimes", std::to_string(*c.fastRecoveryTimes));
    }
    if (c.ewmaGain)
    {
        std::ostringstream g;
        g << std::setprecision(std::numeric_limits<double>::max_digits10) << *c.ewmaGain;
        set("G", g.str());
    }
    if (c.clampTargetRate)
    {
        // HPCC's CLAMP_TARGET_RATE clamps at every decrease: the firmware's CLAMP_TGT_RATE.
        set("ClampTargetRate", *c.clampTargetRate ? "true" : "false");
    }
    std::string spec = "ns3::Dcqcn";
    for (size_t i = 0; i < values.size(); ++i)
    {
        spec += (i == 0 ? "[" : "|") + values[i].first + "=" + values[i].second;
    }
    spec += values.empty() ? "" : "]";
    return spec;
}

void
HpccNetworkConfig::CheckEcnMaps(const FabricTopology& topology,
                                const std::function<std::string(uint32_t l)>& where) const
{
    const HpccConfig& c = m_mapping.config;
    const std::vector<std::pair<const char*, std::set<uint64_t>>> maps = {
        {"KMIN_MAP", RatesOf(c.kminBytes)},
        {"KMAX_MAP", RatesOf(c.kmaxBytes)},
        {"PMAX_MAP", RatesOf(c.pmax)},
    };
    for (const auto& [key, rates] : maps)
    {
        if (rates.empty())
        {
            continue;
        }
        // As the simulators require: an entry for the rate of every switch port.
        for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
        {
            const FabricLink& link = topology.GetLink(l);
            if ((topology.IsHost(link.a) && topology.IsHost(link.b)) || rates.count(link.rateBps))
            {
                continue;
            }
            Fail(key,
                 "no entry for " + std::to_string(link.rateBps) +
                     " bit/s, the rate of a switch port (" + where(l) + ")");
        }
    }
}

Ptr<RoceFabric>
HpccNetworkConfig::Install(const RoceFabricHelper& helper,
                           const FabricTopology& topology,
                           const std::function<double(uint32_t link)>& errorRate,
                           int64_t stream) const
{
    Ptr<RoceFabric> fabric;
    try
    {
        fabric = helper.Install(topology);
    }
    catch (const std::runtime_error& e)
    {
        // The MMU refuses a buffer that cannot hold the ports' reserves and headrooms.
        if (Line("BUFFER_SIZE") == 0 ||
            std::string(e.what()).find("BufferSize") == std::string::npos)
        {
            throw;
        }
        Fail("BUFFER_SIZE", e.what());
    }

    const HpccConfig& c = m_mapping.config;
    if (!c.kminBytes.empty() || !c.kmaxBytes.empty() || !c.pmax.empty())
    {
        for (uint32_t node = 0; node < topology.GetNNodes(); ++node)
        {
            Ptr<RoceSwitch> sw = fabric->GetSwitch(node);
            if (!sw)
            {
                continue;
            }
            Ptr<SwitchMmu> mmu = sw->GetMmu();
            const std::vector<uint32_t>& ports = topology.AdjacentLinks(node);
            for (uint32_t port = 0; port < ports.size(); ++port)
            {
                // CheckEcnMaps made sure every given map has this rate.
                const uint64_t rate = topology.GetLink(ports[port]).rateBps;
                const uint64_t kmin =
                    c.kminBytes.empty() ? mmu->GetKmin(port) : c.kminBytes.at(rate);
                const uint64_t kmax =
                    c.kmaxBytes.empty() ? mmu->GetKmax(port) : c.kmaxBytes.at(rate);
                const double pmax = c.pmax.empty() ? mmu->GetPmax(port) : c.pmax.at(rate);
                if (kmin > kmax)
                {
                    const char* key = c.kmaxBytes.empty() ? "KMIN_MAP" : "KMAX_MAP";
                    Fail(key,
                         "at " + std::to_string(rate) + " bit/s Kmin " + std::to_string(kmin) +
                             " bytes is above Kmax " + std::to_string(kmax) + " bytes");
                }
                mmu->SetEcnParams(port, kmin, kmax, pmax);
            }
        }
    }
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const double rate = errorRate(l);
        if (rate > 0.0)
        {
            fabric->SetLinkErrorRate(l, rate);
        }
    }
    fabric->AssignStreams(stream);
    return fabric;
}

} // namespace ns3
