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

} // namespace

HpccScenario::HpccScenario(const HpccScenarioOptions& options)
    : m_options(options)
{
    ReadConfig();
    m_file = ReadHpccTopology(m_topologyFile);
    BuildFabricTopology();
    m_flows = ReadHpccFlows(m_flowFile, m_file.topology.GetNNodes());
    CheckFlows();
    m_network.CheckEcnMaps(m_fabric, [this](uint32_t l) {
        return m_topologyFile + " line " + std::to_string(m_file.linkLine[m_fileLink[l]]);
    });
}

void
HpccScenario::ReadConfig()
{
    const std::string& config = m_options.configFile;
    if (!config.empty())
    {
        m_network = HpccNetworkConfig(config, m_options.strict);
    }
    const HpccConfig& c = m_network.GetMapping().config;
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
    return own > 0.0 ? own : m_network.GetMapping().config.errorRatePerLink.value_or(0.0);
}

Ptr<RoceFabric>
HpccScenario::Install(const RoceFabricHelper& helper, int64_t stream) const
{
    return m_network.Install(
        helper,
        m_fabric,
        [this](uint32_t l) { return LinkErrorRate(m_fileLink[l]); },
        stream);
}

std::vector<FabricFault>
HpccScenario::GetFaults() const
{
    std::vector<FabricFault> faults;
    const auto& down = m_network.GetMapping().config.linkDown;
    if (!down || down->timeNs == 0)
    {
        return faults; // as the simulators: a time of 0 means no failure
    }
    const uint32_t line = m_network.Line("LINK_DOWN");
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
    const uint32_t payload = m_network.GetPayloadBytes();
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
