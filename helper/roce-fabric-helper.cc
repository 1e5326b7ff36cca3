/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-fabric-helper.h"

#include "checked-attributes.h"
#include "distributed-simulation.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/dcqcn.h"
#include "ns3/double.h"
#include "ns3/fabric-partition.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/pointer.h"
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
#include "rank-messenger.h"

#include "ns3/roce-remote-channel.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFabricHelper");
NS_OBJECT_ENSURE_REGISTERED(RoceFabric);

void
RoceUsePicoseconds()
{
    if (Time::GetResolution() != Time::PS)
    {
        Time::SetResolution(Time::PS);
    }
}

TypeId
RoceFabric::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceFabric")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddAttribute(
                "NotificationDelay",
                "How long after a message's last byte arrives the code that posted it (a "
                "collective) learns of it; 0 calls it at once. Above 0, notifications due at the "
                "same instant are handed over together, in message order, after the instant's "
                "other events. A distributed run needs at least the smallest link delay between "
                "ranks (the notification crosses ranks); the same value in a single process "
                "gives the same results.",
                TimeValue(Time(0)),
                MakeTimeAccessor(&RoceFabric::m_notificationDelay),
                MakeTimeChecker(Time(0)));
    return tid;
}

void
RoceFabric::DoDispose()
{
    m_onDelivered.clear();
    m_nics.clear();
    m_switches.clear();
    m_channels.clear();
    m_linkErrorModels.clear();
    m_messenger = nullptr;
    m_routes.reset();
    Object::DoDispose();
}

Ptr<Node>
RoceFabric::GetHost(uint32_t hostIndex) const
{
    return m_nodes.Get(m_topology.GetHosts().at(hostIndex));
}

bool
RoceFabric::IsLocalHost(uint32_t hostIndex) const
{
    return GetHost(hostIndex)->GetSystemId() == m_rank;
}

int32_t
RoceFabric::GetHostIndexOfNode(uint32_t nodeId) const
{
    return nodeId < m_hostOfNode.size() ? m_hostOfNode[nodeId] : -1;
}

uint64_t
RoceFabric::SendMessage(uint32_t src, uint32_t dst, RdmaMessageInfo info, Time at)
{
    NS_ABORT_MSG_IF(src >= m_nics.size() || dst >= m_nics.size(),
                    "SendMessage: host index out of range (" << src << ", " << dst << ")");
    NS_ABORT_MSG_IF(src == dst, "SendMessage: source and destination are the same host " << src);
    NS_ABORT_MSG_IF(info.bytes == 0, "SendMessage: a message needs at least one byte");
    info.flowId = m_nextFlowId++;
    info.srcNode = GetHost(src)->GetId();
    info.dstNode = GetHost(dst)->GetId();
    Time delay = at - Simulator::Now();
    NS_ABORT_MSG_IF(delay.IsStrictlyNegative(), "SendMessage: start time is in the past");
    Simulator::Schedule(delay, &RoceFabric::StartMessage, this, src, dst, info);
    return info.flowId;
}

uint64_t
RoceFabric::SendMessage(uint32_t src,
                        uint32_t dst,
                        RdmaMessageInfo info,
                        Time at,
                        std::function<void()> onDelivered)
{
    if (m_notificationDelay < m_minRemoteDelay)
    {
        throw std::invalid_argument(
            "a distributed run hands deliveries to other ranks: set "
            "ns3::RoceFabric::NotificationDelay to at least the smallest link delay between "
            "ranks, " +
            std::to_string(m_minRemoteDelay.GetNanoSeconds()) + " ns (now " +
            std::to_string(m_notificationDelay.GetNanoSeconds()) + " ns)");
    }
    // The null-message engine lets a rank run up to and including the time its
    // neighbour promised; a notification due exactly then can arrive after
    // that instant's others have run, and the collectives see it apart
    // (a two-job Harmonics run stalled with 1 us on 1 us links).
    if (IsNullMessageEngine() && m_notificationDelay == m_minRemoteDelay)
    {
        throw std::invalid_argument(
            "the null-message engine needs ns3::RoceFabric::NotificationDelay above the "
            "smallest link delay between ranks, " +
            std::to_string(m_minRemoteDelay.GetNanoSeconds()) + " ns (now equal)");
    }
    uint64_t id = SendMessage(src, dst, info, at);
    m_onDelivered.emplace(id, std::move(onDelivered));
    return id;
}

void
RoceFabric::OnDelivered(const RdmaMessageInfo& info, Time /* when */)
{
    if (m_notificationDelay.IsZero())
    {
        Notify(info.flowId);
        return;
    }
    Simulator::Schedule(m_notificationDelay, &RoceFabric::QueueNotification, this, info.flowId);
#ifdef NS3_MPI
    if (m_messenger)
    {
        DynamicCast<RankMessenger>(m_messenger)
            ->SendToOthers(info.flowId, Simulator::Now() + m_notificationDelay);
    }
#endif
}

void
RoceFabric::QueueNotification(uint64_t flowId)
{
    // The batch runs after every event already due now, local or from
    // another rank, so its order does not depend on how they were scheduled.
    if (m_notifications.empty())
    {
        Simulator::ScheduleNow(&RoceFabric::RunNotifications, this);
    }
    m_notifications.push_back(flowId);
}

void
RoceFabric::RunNotifications()
{
    std::vector<uint64_t> ids;
    ids.swap(m_notifications);
    std::sort(ids.begin(), ids.end());
    for (uint64_t id : ids)
    {
        Notify(id);
    }
}

void
RoceFabric::Notify(uint64_t flowId)
{
    auto it = m_onDelivered.find(flowId);
    if (it == m_onDelivered.end())
    {
        return;
    }
    std::function<void()> done = std::move(it->second);
    m_onDelivered.erase(it);
    done();
}

void
RoceFabric::StartMessage(uint32_t src, uint32_t dst, RdmaMessageInfo info)
{
    info.start = Simulator::Now();
    Ptr<RdmaNic> s = m_nics[src];
    Ptr<RdmaNic> d = m_nics[dst];
    // Every rank draws the numbers, so both ends agree on them whichever
    // ranks own the two hosts; each end is set up by its owner only.
    const uint32_t sqpn = s->AllocateQpn();
    const uint32_t rqpn = d->AllocateQpn();
    const uint32_t psn = s->DrawInitialPsn();
    if (IsLocalHost(dst))
    {
        d->CreateReceiveQueuePair(info, rqpn, s->GetAddress(), sqpn, psn);
    }
    if (IsLocalHost(src))
    {
        s->CreateSendQueuePair(info, sqpn, d->GetAddress(), rqpn, psn);
    }
}

void
RoceFabric::EnablePcap(const std::string& prefix, uint32_t hostIndex)
{
    EnablePcap(prefix, m_nics.at(hostIndex)->GetPort());
}

void
RoceFabric::EnablePcap(const std::string& prefix, Ptr<RoceNetDevice> dev)
{
    if (dev->GetNode()->GetSystemId() != m_rank)
    {
        return; // the owner writes the file
    }
    PcapHelper pcap;
    std::string file = pcap.GetFilenameFromDevice(prefix, dev);
    // Nanosecond timestamps: at 100 Gb/s a 4 KB frame lasts 334 ns, so microsecond
    // stamps would put several frames at one instant and break throughput graphs.
    auto wrapper = CreateObjectWithAttributes<PcapFileWrapper>("NanosecMode", BooleanValue(true));
    wrapper->Open(file, std::ios::out | std::ios::binary);
    if (wrapper->Fail())
    {
        throw std::runtime_error("EnablePcap: cannot open " + file + " for writing");
    }
    wrapper->Init(PcapHelper::DLT_EN10MB);
    pcap.HookDefaultSink<RoceNetDevice>(dev, "PromiscSniffer", wrapper);
}

std::vector<uint32_t>
RoceFabric::GetPath(uint32_t src, uint32_t dst, uint16_t srcPort) const
{
    if (src >= GetNHosts() || dst >= GetNHosts())
    {
        throw std::out_of_range("GetPath: no host " + std::to_string(std::max(src, dst)));
    }
    RoceForwardingInfo info;
    info.srcIp = RoceHostAddress(src);
    info.dstIp = RoceHostAddress(dst);
    info.srcPort = srcPort;
    info.dstPort = RoceWire::kUdpPort;
    std::vector<uint32_t> path;
    uint32_t node = m_topology.GetHosts().at(src);
    const uint32_t last = m_topology.GetHosts().at(dst);
    while (node != last)
    {
        const auto& adjacent = m_topology.AdjacentLinks(node);
        const uint32_t link =
            m_switches[node] ? adjacent.at(m_switches[node]->SelectPort(info)) : adjacent.at(0);
        path.push_back(link);
        const FabricLink& l = m_topology.GetLink(link);
        node = l.a == node ? l.b : l.a;
        NS_ABORT_MSG_IF(path.size() > m_topology.GetLinks().size(), "routing loop");
    }
    return path;
}

void
RoceFabric::SetLinkErrorRate(uint32_t linkId, double rate)
{
    Ptr<RoceChannel> channel = m_channels.at(linkId);
    if (!(rate >= 0.0 && rate <= 1.0))
    {
        throw std::invalid_argument("SetLinkErrorRate: link " + std::to_string(linkId) +
                                    ": error rate " + std::to_string(rate) + " is outside [0,1]");
    }
    m_linkErrorModels.erase(linkId);
    std::array<Ptr<RateErrorModel>, 2> models;
    for (uint32_t end = 0; end < 2; ++end)
    {
        if (rate > 0.0)
        {
            models[end] = CreateObject<RateErrorModel>();
            models[end]->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            models[end]->SetRate(rate);
        }
        channel->GetRoceDevice(end)->SetAttribute("ReceiveErrorModel", PointerValue(models[end]));
    }
    if (rate > 0.0)
    {
        m_linkErrorModels.emplace(linkId, models);
    }
}

int64_t
RoceFabric::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (const auto& nic : m_nics)
    {
        used += nic->AssignStreams(stream + used);
    }
    for (const auto& sw : m_switches)
    {
        if (sw)
        {
            used += sw->AssignStreams(stream + used);
        }
    }
    for (const auto& [link, models] : m_linkErrorModels)
    {
        for (const auto& model : models)
        {
            used += model->AssignStreams(stream + used);
        }
    }
    return used;
}

uint64_t
RoceFabric::GetTotalDrops() const
{
    uint64_t n = 0;
    for (const auto& sw : m_switches)
    {
        n += sw ? sw->GetTotalDrops() : 0;
    }
    return n;
}

uint64_t
RoceFabric::GetTotalPausesSent() const
{
    uint64_t n = 0;
    for (const auto& sw : m_switches)
    {
        n += sw ? sw->GetTotalPausesSent() : 0;
    }
    return n;
}

void
RoceFabric::AddLosslessClasses(uint8_t mask)
{
    for (const auto& sw : m_switches)
    {
        if (sw)
        {
            Ptr<SwitchMmu> mmu = sw->GetMmu();
            mmu->SetLosslessClasses(mmu->GetLosslessClasses() | mask);
        }
    }
}

std::vector<RoceFabric::EcnAbovePause>
RoceFabric::FindEcnAbovePause() const
{
    std::vector<EcnAbovePause> found;
    for (uint32_t node = 0; node < m_switches.size(); ++node)
    {
        const Ptr<RoceSwitch>& sw = m_switches[node];
        if (!sw)
        {
            continue;
        }
        Ptr<SwitchMmu> mmu = sw->GetMmu();
        BooleanValue ecn;
        mmu->GetAttribute("EcnEnabled", ecn);
        const uint64_t onset = mmu->GetPauseOnsetBytes();
        if (!ecn.Get() || onset == 0)
        {
            continue; // no marking, or no lossless class to pause
        }
        UintegerValue reserve;
        DoubleValue alpha;
        mmu->GetAttribute("ReservePerQueue", reserve);
        mmu->GetAttribute("PfcAlpha", alpha);
        for (uint32_t port = 0; port < mmu->GetNPorts(); ++port)
        {
            if (mmu->GetKmin(port) >= onset)
            {
                found.push_back({node,
                                 port,
                                 mmu->GetKmin(port),
                                 onset,
                                 reserve.Get(),
                                 mmu->GetSharedPoolSize(),
                                 alpha.Get()});
            }
        }
    }
    return found;
}

std::size_t
RoceFabric::WarnEcnAbovePause(std::ostream& os) const
{
    const std::vector<EcnAbovePause> found = FindEcnAbovePause();
    if (found.empty())
    {
        return 0;
    }
    uint32_t ports = 0;
    for (const auto& sw : m_switches)
    {
        ports += sw ? sw->GetNPorts() : 0;
    }
    const EcnAbovePause& f = found.front();
    os << "warning: ECN cannot mark before PFC pauses at " << found.size() << " of " << ports
       << " switch ports, so DCQCN gets no congestion signal there before PAUSE. First: switch "
       << m_topology.GetNode(f.node).name << " (node " << f.node << ") port " << f.port
       << ": ECN Kmin " << f.kmin << " B >= " << f.pauseOnset
       << " B, the egress bytes at which one congested ingress queue of a lossless class "
          "pauses (ReservePerQueue "
       << f.reserve << " B + the largest s <= PfcAlpha " << f.pfcAlpha << " x (shared pool "
       << f.sharedPool << " B - s), " << f.pauseOnset - f.reserve
       << " B). Lower Kmin below it (ns3::SwitchMmu::EcnKminPer25G, or KMIN_MAP) or raise "
          "ns3::SwitchMmu::BufferSize.\n";
    return found.size();
}

void
RoceFabric::WarnEcnAbovePauseAtStart() const
{
    if (m_rank == 0)
    {
        WarnEcnAbovePause(std::cerr);
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
    fabric->m_routes = std::make_shared<const EcmpRoutes>(topology);
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
