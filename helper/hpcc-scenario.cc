/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-scenario.h"

#include "checked-attributes.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/csv-fields.h"
#include "ns3/dcqcn.h"
#include "ns3/enum.h"
#include "ns3/hpcc-topology-builder.h"
#include "ns3/roce-header.h"
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
/// First UDP source port of each host's flows, as third.cc numbers them.
constexpr uint16_t kFirstSourcePort = 10000;

std::string
NodeKindName(HpccNodeType type)
{
    switch (type)
    {
    case HpccNodeType::Host:
        return "a host";
    case HpccNodeType::Switch:
        return "a switch";
    case HpccNodeType::NvSwitch:
        return "an NVSwitch";
    }
    return "a node";
}

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

HpccScenario::HpccScenario(const HpccScenarioOptions& options)
    : m_options(options)
{
    ReadConfig();
    m_file = ReadHpccTopology(m_topologyFile);
    BuildFabricTopology();
    m_flows = ReadHpccFlows(m_flowFile, m_file.topology.GetNNodes());
    CheckFlows();
    CheckEcnMaps();
}

void
HpccScenario::ReadConfig()
{
    const std::string& config = m_options.configFile;
    if (!config.empty())
    {
        m_configFile = ReadHpccConfig(config);
        m_mapping = MapHpccConfig(m_configFile, m_options.strict);
    }
    const HpccConfig& c = m_mapping.config;
    const std::string where = config.empty() ? "no config file" : "the config " + config;
    m_topologyFile =
        !m_options.topologyFile.empty() ? m_options.topologyFile : c.topologyFile.value_or("");
    if (m_topologyFile.empty())
    {
        throw std::runtime_error("no topology file: " + where +
                                 " gives no TOPOLOGY_FILE and none was given");
    }
    m_flowFile = !m_options.flowFile.empty() ? m_options.flowFile : c.flowFile.value_or("");
    if (m_flowFile.empty())
    {
        throw std::runtime_error("no flow file: " + where +
                                 " gives no FLOW_FILE and none was given");
    }
    m_fctOutputFile = !m_options.fctOutputFile.empty() ? m_options.fctOutputFile
                                                       : c.fctOutputFile.value_or("fct.txt");
    m_pfcOutputFile = !m_options.pfcOutputFile.empty() ? m_options.pfcOutputFile
                                                       : c.pfcOutputFile.value_or("pfc.txt");
    // Values the module's attributes cannot take, reported here rather than by ns-3's fatal errors.
    if (c.payloadBytes && *c.payloadBytes > kMaxPayloadBytes)
    {
        ThrowInputError(config,
                        ConfigLine("PACKET_PAYLOAD_SIZE"),
                        "PACKET_PAYLOAD_SIZE",
                        std::to_string(*c.payloadBytes) + " bytes is above the largest payload " +
                            "the NIC carries (" + std::to_string(kMaxPayloadBytes) + ")");
    }
    if (c.bufferBytes && *c.bufferBytes == 0)
    {
        ThrowInputError(config, ConfigLine("BUFFER_SIZE"), "BUFFER_SIZE", "must be at least 1 MB");
    }
}

uint32_t
HpccScenario::ConfigLine(const std::string& key) const
{
    for (const HpccConfigEntry& e : m_configFile.entries)
    {
        if (e.key == key)
        {
            return e.line;
        }
    }
    return 0;
}

void
HpccScenario::BuildFabricTopology()
{
    const FabricTopology& file = m_file.topology;
    m_fabricNode.assign(file.GetNNodes(), -1);
    for (uint32_t i = 0; i < file.GetNNodes(); ++i)
    {
        const FabricNode& node = file.GetNode(i);
        if (m_file.nodeType[i] == HpccNodeType::NvSwitch)
        {
            continue;
        }
        m_fabricNode[i] = node.kind == FabricNodeKind::Host
                              ? m_fabric.AddHost(node.name, node.pod, node.rack)
                              : m_fabric.AddSwitch(node.name, node.tier, node.pod, node.rack);
        m_fileNode.push_back(i);
    }
    std::vector<int64_t> firstLinkLine(file.GetNNodes(), -1);
    for (uint32_t l = 0; l < file.GetNLinks(); ++l)
    {
        const FabricLink& link = file.GetLink(l);
        if (m_fabricNode[link.a] < 0 || m_fabricNode[link.b] < 0)
        {
            continue; // an NVLink link
        }
        for (uint32_t end : {link.a, link.b})
        {
            if (!file.IsHost(end))
            {
                continue;
            }
            if (firstLinkLine[end] >= 0)
            {
                ThrowInputError(m_topologyFile,
                                m_file.linkLine[l],
                                "link",
                                "host " + std::to_string(end) + " already has a link (line " +
                                    std::to_string(firstLinkLine[end]) +
                                    "); hosts here have one NIC port" +
                                    (m_file.simai ? " (NVLink links are left out)" : ""));
            }
            firstLinkLine[end] = m_file.linkLine[l];
        }
        m_fabric.AddLink(static_cast<uint32_t>(m_fabricNode[link.a]),
                         static_cast<uint32_t>(m_fabricNode[link.b]),
                         link.rateBps,
                         link.delayNs);
        m_fileLink.push_back(l);
    }
    // A SimAI file's GPUs joined through an NVSwitch are one server.
    const std::vector<int32_t> servers = HpccNvlinkServers(m_file, m_topologyFile);
    for (uint32_t i = 0; i < file.GetNNodes(); ++i)
    {
        if (servers[i] >= 0)
        {
            m_fabric.SetServer(static_cast<uint32_t>(m_fabric.GetHostIndex(m_fabricNode[i])),
                               servers[i]);
        }
    }
    for (uint32_t i = 0; i < file.GetNNodes(); ++i)
    {
        if (file.IsHost(i) && firstLinkLine[i] < 0)
        {
            throw std::runtime_error(m_topologyFile + ": host " + std::to_string(i) +
                                     " has no link" +
                                     (m_file.simai ? " other than NVLink links" : ""));
        }
    }
    try
    {
        m_fabric.Validate();
    }
    catch (const std::runtime_error& e)
    {
        throw std::runtime_error(m_topologyFile + ": " + e.what());
    }
}

void
HpccScenario::CheckFlows() const
{
    for (const HpccFlow& f : m_flows)
    {
        for (const auto& [node, field] : {std::pair{f.src, "src"}, std::pair{f.dst, "dst"}})
        {
            if (m_file.nodeType[node] != HpccNodeType::Host)
            {
                ThrowInputError(m_flowFile,
                                f.line,
                                field,
                                "node " + std::to_string(node) + " is " +
                                    NodeKindName(m_file.nodeType[node]) + " in " + m_topologyFile +
                                    ", not a host");
            }
        }
        if (f.pg >= RoceNetDevice::kControlClass)
        {
            ThrowInputError(m_flowFile,
                            f.line,
                            "pg",
                            "priority group " + std::to_string(f.pg) +
                                " carries this module's ACKs, NAKs and CNPs; data uses 0-" +
                                std::to_string(RoceNetDevice::kControlClass - 1));
        }
        const auto src = static_cast<uint32_t>(m_fabric.GetHostIndex(m_fabricNode[f.src]));
        const auto dst = static_cast<uint32_t>(m_fabric.GetHostIndex(m_fabricNode[f.dst]));
        if (m_fabric.SameServer(src, dst) && GetNvlinkPath(f.src, f.dst).empty())
        {
            ThrowInputError(m_flowFile,
                            f.line,
                            "dst",
                            "GPUs " + std::to_string(f.src) + " and " + std::to_string(f.dst) +
                                " are one server's in " + m_topologyFile +
                                " (joined through NVSwitches) but share no NVSwitch");
        }
    }
}

void
HpccScenario::CheckEcnMaps() const
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
        for (uint32_t l = 0; l < m_fabric.GetNLinks(); ++l)
        {
            const FabricLink& link = m_fabric.GetLink(l);
            if ((m_fabric.IsHost(link.a) && m_fabric.IsHost(link.b)) || rates.count(link.rateBps))
            {
                continue;
            }
            ThrowInputError(m_options.configFile,
                            ConfigLine(key),
                            key,
                            "no entry for " + std::to_string(link.rateBps) +
                                " bit/s, the rate of a switch port (" + m_topologyFile + " line " +
                                std::to_string(m_file.linkLine[m_fileLink[l]]) + ")");
        }
    }
}

std::string
HpccScenario::DescribeUnmodelledKeys() const
{
    if (m_mapping.unmodelled.empty())
    {
        return "";
    }
    std::string text = m_options.configFile + ": " + std::to_string(m_mapping.unmodelled.size()) +
                       " config keys not modelled, ignored:";
    for (const HpccUnmodelledKey& k : m_mapping.unmodelled)
    {
        text += "\n  " + k.key + " (line " + std::to_string(k.line) + "): " + k.reason;
    }
    return text;
}

uint32_t
HpccScenario::GetPayloadBytes() const
{
    return m_mapping.config.payloadBytes.value_or(kDefaultPayloadBytes);
}

Time
HpccScenario::GetStopTime() const
{
    return NanoSeconds(m_mapping.config.stopTimeNs.value_or(kDefaultStopNs));
}

bool
HpccScenario::RunsUntilDone() const
{
    return m_mapping.config.stopTimeBeyondRange;
}

uint32_t
HpccScenario::GetSimulatorIfIndex(uint32_t fabricNode, uint32_t port) const
{
    const uint32_t fabricLink = m_fabric.AdjacentLinks(fabricNode).at(port);
    return m_file.topology.PortOf(m_fileNode.at(fabricNode), m_fileLink.at(fabricLink)) + 1;
}

double
HpccScenario::LinkErrorRate(uint32_t fileLink) const
{
    const double own = m_file.linkErrorRate.at(fileLink);
    return own > 0.0 ? own : m_mapping.config.errorRatePerLink.value_or(0.0);
}

void
HpccScenario::Configure(RoceFabricHelper& helper) const
{
    const HpccConfig& c = m_mapping.config;
    // A value the attribute rejects is an error at its key's line.
    auto checked = [this](TypeId tid,
                          const std::string& attribute,
                          const AttributeValue& value,
                          const std::string& key) {
        std::string where = m_configFile.path + ": " + key;
        for (const HpccConfigEntry& e : m_configFile.entries)
        {
            if (e.key == key)
            {
                where = m_configFile.path + ":" + std::to_string(e.line) + ": " + key;
            }
        }
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
    // Bytes in the file; the NIC acknowledges every N packets. Without the
    // key, an ACK per packet, and always the simulators' fixed 4 ms timeout
    // with unlimited retries, not the NIC's defaults.
    const uint32_t ackPackets =
        c.l2AckInterval ? std::max<uint32_t>(1, (*c.l2AckInterval + payload - 1) / payload) : 1;
    helper.SetNicAttribute("AckInterval",
                           *checked(RdmaNic::GetTypeId(),
                                    "AckInterval",
                                    UintegerValue(ackPackets),
                                    "L2_ACK_INTERVAL"));
    helper.SetNicAttribute("RetransmitTimeout", TimeValue(MilliSeconds(4)));
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
        throw std::runtime_error(m_options.configFile + ": DCQCN settings: " + e.what());
    }
}

std::string
HpccScenario::GetCongestionControlSpec() const
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

Ptr<RoceFabric>
HpccScenario::Install(const RoceFabricHelper& helper, int64_t stream) const
{
    Ptr<RoceFabric> fabric;
    try
    {
        fabric = helper.Install(m_fabric);
    }
    catch (const std::runtime_error& e)
    {
        // The MMU refuses a buffer that cannot hold the ports' reserves and headrooms.
        const uint32_t line = ConfigLine("BUFFER_SIZE");
        if (line == 0 || std::string(e.what()).find("BufferSize") == std::string::npos)
        {
            throw;
        }
        ThrowInputError(m_options.configFile, line, "BUFFER_SIZE", e.what());
    }

    const HpccConfig& c = m_mapping.config;
    if (!c.kminBytes.empty() || !c.kmaxBytes.empty() || !c.pmax.empty())
    {
        for (uint32_t node = 0; node < m_fabric.GetNNodes(); ++node)
        {
            Ptr<RoceSwitch> sw = fabric->GetSwitch(node);
            if (!sw)
            {
                continue;
            }
            Ptr<SwitchMmu> mmu = sw->GetMmu();
            const std::vector<uint32_t>& ports = m_fabric.AdjacentLinks(node);
            for (uint32_t port = 0; port < ports.size(); ++port)
            {
                // CheckEcnMaps made sure every given map has this rate.
                const uint64_t rate = m_fabric.GetLink(ports[port]).rateBps;
                const uint64_t kmin =
                    c.kminBytes.empty() ? mmu->GetKmin(port) : c.kminBytes.at(rate);
                const uint64_t kmax =
                    c.kmaxBytes.empty() ? mmu->GetKmax(port) : c.kmaxBytes.at(rate);
                const double pmax = c.pmax.empty() ? mmu->GetPmax(port) : c.pmax.at(rate);
                if (kmin > kmax)
                {
                    ThrowInputError(m_options.configFile,
                                    ConfigLine(c.kmaxBytes.empty() ? "KMIN_MAP" : "KMAX_MAP"),
                                    c.kmaxBytes.empty() ? "KMIN_MAP" : "KMAX_MAP",
                                    "at " + std::to_string(rate) + " bit/s Kmin " +
                                        std::to_string(kmin) + " bytes is above Kmax " +
                                        std::to_string(kmax) + " bytes");
                }
                mmu->SetEcnParams(port, kmin, kmax, pmax);
            }
        }
    }
    for (uint32_t l = 0; l < m_fabric.GetNLinks(); ++l)
    {
        const double rate = LinkErrorRate(m_fileLink[l]);
        if (rate > 0.0)
        {
            fabric->SetLinkErrorRate(l, rate);
        }
    }
    fabric->AssignStreams(stream);
    return fabric;
}

std::vector<FabricFault>
HpccScenario::GetFaults() const
{
    std::vector<FabricFault> faults;
    const auto& down = m_mapping.config.linkDown;
    if (!down || down->timeNs == 0)
    {
        return faults; // as the simulators: a time of 0 means no failure
    }
    const uint32_t line = ConfigLine("LINK_DOWN");
    const std::string where = m_options.configFile + ":" + std::to_string(line) + ": LINK_DOWN";
    for (uint32_t l = 0; l < m_fabric.GetNLinks(); ++l)
    {
        const FabricLink& link = m_fabric.GetLink(l);
        const uint32_t a = m_fileNode.at(link.a);
        const uint32_t b = m_fileNode.at(link.b);
        if ((a == down->a && b == down->b) || (a == down->b && b == down->a))
        {
            FabricFault f;
            f.target = FabricFault::Target::LINK;
            f.id = l;
            f.downNs = 2000000000 + down->timeNs;
            f.where = where;
            faults.push_back(f);
        }
    }
    if (faults.empty())
    {
        ThrowInputError(m_options.configFile,
                        line,
                        "LINK_DOWN",
                        "no link between nodes " + std::to_string(down->a) + " and " +
                            std::to_string(down->b) + " in " + m_topologyFile);
    }
    return faults;
}

std::vector<uint32_t>
HpccScenario::GetNvlinkPath(uint32_t src, uint32_t dst) const
{
    const FabricTopology& file = m_file.topology;
    // src's NVLink links in file order, then the first of their NVSwitches that links dst.
    for (uint32_t l = 0; l < file.GetNLinks(); ++l)
    {
        const FabricLink& up = file.GetLink(l);
        if (up.a != src && up.b != src)
        {
            continue;
        }
        const uint32_t nv = up.a == src ? up.b : up.a;
        if (m_file.nodeType[nv] != HpccNodeType::NvSwitch)
        {
            continue;
        }
        for (uint32_t m = 0; m < file.GetNLinks(); ++m)
        {
            const FabricLink& down = file.GetLink(m);
            if ((down.a == nv && down.b == dst) || (down.b == nv && down.a == dst))
            {
                return {l, m};
            }
        }
    }
    return {};
}

HpccPostedFlows
HpccScenario::PostFlows(Ptr<RoceFabric> fabric) const
{
    HpccPostedFlows posted;
    std::map<uint32_t, uint16_t> nextPort; // by source node
    const uint32_t payload = GetPayloadBytes();
    for (const HpccFlow& f : m_flows)
    {
        const auto src = static_cast<uint32_t>(m_fabric.GetHostIndex(m_fabricNode[f.src]));
        const auto dst = static_cast<uint32_t>(m_fabric.GetHostIndex(m_fabricNode[f.dst]));
        HpccPostedFlow p;
        p.flow = f;
        p.srcPort = nextPort.emplace(f.src, kFirstSourcePort).first->second++;
        if (m_fabric.SameServer(src, dst))
        {
            // Through the NVSwitch, as SimAI carries it, alone on its two links.
            p.nvlink = true;
            p.path = GetNvlinkPath(f.src, f.dst);
            NS_ABORT_MSG_IF(p.path.size() != 2, "GPUs of one server without a shared NVSwitch");
            p.standaloneFctNs = HpccStandaloneFctNs(m_file.topology, p.path, f.bytes, payload);
            posted.nvlink.push_back(std::move(p));
            continue;
        }
        RdmaMessageInfo info;
        info.bytes = f.bytes;
        info.priority = static_cast<uint8_t>(f.pg);
        info.srcPort = p.srcPort;
        const uint64_t id = fabric->SendMessage(src, dst, info, NanoSeconds(f.startNs));
        p.path = fabric->GetPath(src, dst, p.srcPort);
        p.standaloneFctNs = HpccStandaloneFctNs(m_fabric, p.path, f.bytes, payload);
        posted.fabric.emplace(id, std::move(p));
    }
    return posted;
}

uint64_t
HpccStandaloneFctNs(const FabricTopology& topo,
                    const std::vector<uint32_t>& path,
                    uint64_t bytes,
                    uint32_t payloadBytes)
{
    if (path.empty() || payloadBytes == 0)
    {
        throw std::invalid_argument("HpccStandaloneFctNs: empty path or zero payload");
    }
    using Wide = unsigned __int128; // bytes x 8e9 overflows 64 bits above 2.3 GB
    constexpr uint64_t kBitNs = 8000000000ULL;
    uint64_t delayNs = 0;
    uint64_t txNs = 0;
    uint64_t bottleneck = std::numeric_limits<uint64_t>::max();
    for (uint32_t l : path)
    {
        const FabricLink& link = topo.GetLink(l);
        delayNs += static_cast<uint64_t>(link.delayNs);
        txNs += static_cast<uint64_t>(Wide(payloadBytes) * kBitNs / link.rateBps);
        bottleneck = std::min(bottleneck, link.rateBps);
    }
    const uint64_t wire = RoceWire::MessageWireBytes(bytes, payloadBytes);
    return 2 * delayNs + txNs + static_cast<uint64_t>(Wide(wire) * kBitNs / bottleneck);
}

} // namespace ns3
