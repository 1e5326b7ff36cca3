/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-fabric-helper.h"

#include "checked-attributes.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/dcqcn.h"
#include "ns3/distributed-simulation.h"
#include "ns3/double.h"
#include "ns3/fabric-partition.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/pointer.h"
#include "ns3/run-interruption.h"
#include "ns3/short-name-registry.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#ifdef NS3_MPI
#include "ns3/rank-messenger.h"
#include "ns3/roce-remote-channel.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFabricHelper");

void
RoceUsePicoseconds()
{
    if (Time::GetResolution() != Time::PS)
    {
        Time::SetResolution(Time::PS);
    }
}

RoceFabricHelper::RoceFabricHelper()
{
    m_deviceFactory.SetTypeId(RoceNetDevice::GetTypeId());
    m_nicFactory.SetTypeId(RdmaNic::GetTypeId());
    m_switchFactory.SetTypeId(RoceSwitch::GetTypeId());
    m_mmuFactory.SetTypeId(SwitchMmu::GetTypeId());
}

void
RoceFabricHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    // Checked (ns-3 would end the process on a bad value); callers that know
    // where a value came from check it first and name that place.
    m_deviceFactory.Set(name,
                        *CheckedAttributeValue(m_deviceFactory.GetTypeId(),
                                               name,
                                               value,
                                               "RoceFabricHelper::SetDeviceAttribute"));
}

void
RoceFabricHelper::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    if (name == "CongestionControl")
    {
        m_ccFactory = ObjectFactory(); // the later choice wins, with default attribute values
    }
    m_nicFactory.Set(name,
                     *CheckedAttributeValue(m_nicFactory.GetTypeId(),
                                            name,
                                            value,
                                            "RoceFabricHelper::SetNicAttribute"));
}

void
RoceFabricHelper::SetCongestionControl(const std::string& spec)
{
    ObjectFactory factory = ParseCongestionControl(spec);
    m_nicFactory.Set("CongestionControl", TypeIdValue(factory.GetTypeId()));
    m_ccFactory = factory;
}

ObjectFactory
RoceFabricHelper::ParseCongestionControl(const std::string& spec)
{
    // Parsed here rather than by ObjectFactory's operator>>, which ends the
    // process on an unknown type or attribute instead of reporting it.
    const auto error = [&spec](const std::string& why) {
        return std::invalid_argument("congestion control '" + spec + "': " + why);
    };
    std::string typeName = spec;
    std::string params;
    const std::size_t open = spec.find('[');
    if (open != std::string::npos)
    {
        if (spec.back() != ']')
        {
            throw error("attribute values must end with ']'");
        }
        typeName = spec.substr(0, open);
        params = spec.substr(open + 1, spec.size() - open - 2);
    }
    TypeId tid;
    if (!ShortNameRegistry::LookupFailSafe(RdmaCongestionOps::GetTypeId(), typeName, &tid))
    {
        throw std::invalid_argument("unknown congestion control '" + spec + "' (choose " +
                                    ShortNameRegistry::ListNames(RdmaCongestionOps::GetTypeId()) +
                                    " or an RdmaCongestionOps TypeId)");
    }
    // Name=value items in order; a profile (Dcqcn and subclasses) goes first wherever it is
    // written, so the explicit values always override it.
    std::vector<std::pair<std::string, std::string>> items;
    std::string profile;
    for (std::size_t cur = 0; cur < params.size();)
    {
        const std::size_t end = std::min(params.find('|', cur), params.size());
        const std::string item = params.substr(cur, end - cur);
        cur = end + 1;
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos)
        {
            throw error("'" + item + "' is not Name=value");
        }
        const std::string name = item.substr(0, eq);
        const std::string value = item.substr(eq + 1);
        if (name == "profile")
        {
            if (tid != Dcqcn::GetTypeId() && !tid.IsChildOf(Dcqcn::GetTypeId()))
            {
                throw error("profile applies only to ns3::Dcqcn and its subclasses, not " +
                            tid.GetName());
            }
            if (!profile.empty())
            {
                throw error("profile given twice");
            }
            if (value.empty())
            {
                throw error("profile needs a name");
            }
            profile = value;
            continue;
        }
        items.emplace_back(name, value);
    }
    if (!profile.empty())
    {
        std::vector<Dcqcn::AttributeSetting> settings;
        try
        {
            settings = Dcqcn::GetProfile(profile);
        }
        catch (const std::invalid_argument& e)
        {
            throw error(e.what());
        }
        items.insert(items.begin(), settings.begin(), settings.end());
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    for (const auto& [name, value] : items)
    {
        TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(name, &info))
        {
            throw error(tid.GetName() + " has no attribute '" + name + "'");
        }
        Ptr<AttributeValue> v = ParseAttributeValue(info.checker, value);
        if (!v)
        {
            throw error("invalid value '" + value + "' for attribute " + name);
        }
        factory.Set(name, *v);
    }
    return factory;
}

std::vector<std::string>
RoceFabricHelper::GetCongestionControlNames()
{
    return ShortNameRegistry::GetNames(RdmaCongestionOps::GetTypeId());
}

void
RoceFabricHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switchFactory.Set(name,
                        *CheckedAttributeValue(m_switchFactory.GetTypeId(),
                                               name,
                                               value,
                                               "RoceFabricHelper::SetSwitchAttribute"));
}

void
RoceFabricHelper::SetMmuAttribute(const std::string& name, const AttributeValue& value)
{
    m_mmuFactory.Set(name,
                     *CheckedAttributeValue(m_mmuFactory.GetTypeId(),
                                            name,
                                            value,
                                            "RoceFabricHelper::SetMmuAttribute"));
}

namespace
{

/// A channel between nodes of two ranks.
Ptr<RoceChannel>
CreateRemoteChannel()
{
#ifdef NS3_MPI
    return CreateObject<RoceRemoteChannel>();
#else
    NS_FATAL_ERROR("a link between two ranks needs ns-3 built with MPI");
    return nullptr;
#endif
}

/// Let \p dev, owned by this rank, receive frames sent by other ranks.
void
AttachRemoteReceiver(Ptr<RoceNetDevice> dev)
{
#ifdef NS3_MPI
    RoceRemoteChannel::AttachReceiver(dev);
#else
    (void)dev;
#endif
}

/**
 * The null-message engine sends only to ranks it shares a link with, and the
 * collectives' notifications (RankMessenger) go from every rank to every
 * other: refuse a partition that leaves two ranks without a link.
 */
void
RequireLinkBetweenAllRanks(const FabricTopology& topology,
                           const std::vector<uint32_t>& owner,
                           uint32_t ranks)
{
    std::vector<std::vector<bool>> linked(ranks, std::vector<bool>(ranks, false));
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        ThrowIfInterrupted(); // a large fabric takes seconds to wire
        const FabricLink& link = topology.GetLink(l);
        linked[owner[link.a]][owner[link.b]] = linked[owner[link.b]][owner[link.a]] = true;
    }
    for (uint32_t a = 0; a < ranks; ++a)
    {
        for (uint32_t b = a + 1; b < ranks; ++b)
        {
            if (!linked[a][b])
            {
                throw std::runtime_error(
                    "ranks " + std::to_string(a) + " and " + std::to_string(b) +
                    " share no link: the null-message engine (ns3::NullMessageSimulatorImpl) "
                    "cannot carry the collectives' notifications between them; use fewer "
                    "ranks or the granted-time-window engine");
            }
        }
    }
}

} // namespace

Ptr<RoceFabric>
RoceFabricHelper::Install(const FabricTopology& topology) const
{
    NS_ABORT_MSG_IF(Time::GetResolution() != Time::PS,
                    "RoceFabricHelper needs picosecond time resolution: call "
                    "RoceUsePicoseconds() at the start of main()");
    topology.Validate();
    Ptr<RoceFabric> fabric = CreateObject<RoceFabric>();
    fabric->m_topology = topology;
    fabric->m_routes = std::make_shared<const EcmpRoutes>(topology, m_routeKeying);
    const uint32_t nNodes = topology.GetNNodes();
    // In a distributed run every rank builds every node, each owned by one
    // rank (its system id); only the owner runs the node's events.
    const std::vector<uint32_t> owner = PartitionFabric(topology, DistributedSize());
    for (uint32_t node = 0; node < nNodes; ++node)
    {
        fabric->m_nodes.Add(CreateObject<Node>(owner[node]));
    }
    fabric->m_rank = DistributedRank();
#ifdef NS3_MPI
    if (DistributedSize() > 1)
    {
        Ptr<RankMessenger> messenger = CreateObject<RankMessenger>();
        messenger->Setup(MakeCallback(&RoceFabric::QueueNotification, PeekPointer(fabric)));
        fabric->m_messenger = messenger;
    }
#endif
    fabric->m_switches.resize(nNodes);
    fabric->m_nics.resize(topology.GetNHosts());
    fabric->m_channels.reserve(topology.GetNLinks());

    // Host NICs first, so each port knows its payload size (for its MTU).
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        const uint32_t node = topology.GetHosts()[h];
        NS_ABORT_MSG_UNLESS(topology.AdjacentLinks(node).size() == 1,
                            "host " << topology.GetNode(node).name
                                    << " must have exactly one link (one NIC port), has "
                                    << topology.AdjacentLinks(node).size());
        fabric->m_nics[h] = m_nicFactory.Create<RdmaNic>();
        if (m_ccFactory.IsTypeIdSet())
        {
            fabric->m_nics[h]->SetCongestionControlFactory(m_ccFactory);
        }
    }
    // Validate() guarantees at least one host.
    UintegerValue payload;
    fabric->m_nics.front()->GetAttribute("PayloadPerPacket", payload);
    // Largest data frame: headers with RETH, payload, ICRC.
    const uint32_t maxFrame = RoceWire::kEthernet + RoceWire::kIpv4 + RoceWire::kUdp +
                              RoceWire::kBth + RoceWire::kReth + payload.Get() + RoceWire::kIcrc;

    // Links in id order: a node's devices are added in its adjacency order,
    // so device ifIndex i is topology port i.
    std::vector<std::vector<Ptr<RoceNetDevice>>> ports(nNodes);
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const FabricLink& link = topology.GetLink(l);
        const bool remote = owner[link.a] != owner[link.b];
        if (remote && (fabric->m_minRemoteDelay.IsZero() ||
                       NanoSeconds(link.delayNs) < fabric->m_minRemoteDelay))
        {
            fabric->m_minRemoteDelay = NanoSeconds(link.delayNs);
        }
        Ptr<RoceChannel> channel = remote ? CreateRemoteChannel() : CreateObject<RoceChannel>();
        channel->SetAttribute("Delay", TimeValue(NanoSeconds(link.delayNs)));
        for (uint32_t end : {link.a, link.b})
        {
            Ptr<RoceNetDevice> dev = m_deviceFactory.Create<RoceNetDevice>();
            dev->SetDataRate(DataRate(link.rateBps));
            dev->SetMtu(static_cast<uint16_t>(maxFrame));
            dev->SetAddress(Mac48Address::Allocate());
            Ptr<Node> node = fabric->m_nodes.Get(end);
            node->AddDevice(dev);
            dev->Attach(channel);
            ports[end].push_back(dev);
            if (remote && owner[end] == fabric->m_rank)
            {
                AttachRemoteReceiver(dev);
            }
        }
        fabric->m_channels.push_back(channel);
    }
    if (IsNullMessageEngine())
    {
        RequireLinkBetweenAllRanks(topology, owner, DistributedSize());
    }

    fabric->m_hostOfNode.assign(NodeList::GetNNodes(), -1);
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        const uint32_t node = topology.GetHosts()[h];
        Ptr<Node> n = fabric->m_nodes.Get(node);
        n->AggregateObject(fabric->m_nics[h]);
        fabric->m_nics[h]->SetPort(ports[node][0], RoceHostAddress(h));
        fabric->m_nics[h]->TraceConnectWithoutContext(
            "Delivered",
            MakeCallback(&RoceFabric::OnDelivered, PeekPointer(fabric)));
        fabric->m_hostOfNode[n->GetId()] = static_cast<int32_t>(h);
    }
    for (uint32_t node = 0; node < nNodes; ++node)
    {
        if (topology.IsHost(node))
        {
            continue;
        }
        Ptr<RoceSwitch> sw = m_switchFactory.Create<RoceSwitch>();
        sw->SetAttribute("Mmu", PointerValue(m_mmuFactory.Create<SwitchMmu>()));
        // Independent per-switch hash seeds avoid ECMP polarization.
        sw->SetAttribute("EcmpSeed", UintegerValue(EcmpRoutes::SwitchSeed(m_ecmpSeed, node)));
        fabric->m_nodes.Get(node)->AggregateObject(sw);
        sw->Setup(ports[node], fabric->m_routes, node);
        fabric->m_switches[node] = sw;
    }
    // At time 0, so that ECN and buffer settings made after Install count.
    Simulator::ScheduleNow(&RoceFabric::WarnEcnAbovePauseAtStart, fabric);
    return fabric;
}

} // namespace ns3
