/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-network.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/mltcp-dcqcn.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/split-mix64.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowNetwork");
NS_OBJECT_ENSURE_REGISTERED(FlowNetwork);

namespace
{
/// Headers of every RoCE data packet (RETH only on the first).
constexpr uint32_t kDataHeaders =
    RoceWire::kEthernet + RoceWire::kIpv4 + RoceWire::kUdp + RoceWire::kBth + RoceWire::kIcrc;
/// An ACK frame.
constexpr uint32_t kAckBytes = RoceWire::kEthernet + RoceWire::kIpv4 + RoceWire::kUdp +
                               RoceWire::kBth + RoceWire::kAeth + RoceWire::kIcrc;
} // namespace

TypeId
FlowNetwork::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowNetwork")
            .SetParent<ClusterNetwork>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<FlowNetwork>()
            .AddAttribute("PayloadPerPacket",
                          "RDMA payload bytes per full packet, as the NIC's: sets the header "
                          "bytes a message adds on the wire and its last frame's "
                          "store-and-forward time.",
                          UintegerValue(RoceWire::kDefaultMtu),
                          MakeUintegerAccessor(&FlowNetwork::m_payload),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("AckInterval",
                          "Packets per ACK, as the NIC's: the ACK bytes a flow puts on its "
                          "reverse path.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&FlowNetwork::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("EcmpSeed",
                          "Seed mixed into every switch's ECMP hash seed, as "
                          "RoceFabricHelper::SetEcmpSeed (the same value gives the same paths).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&FlowNetwork::m_ecmpSeed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ContendedLinkEfficiency",
                          "Share of what the higher classes leave that a switch port gives "
                          "the highest class with data from two or more senders, once the "
                          "port has been their bottleneck for ContentionOnset: DCQCN's rate "
                          "cuts leave it idle part of the time, which lower classes fill. "
                          "Calibrated on a full-scale 4:1 incast at the packet level "
                          "(doc/flow-backend.md); 1 is ideal max-min sharing.",
                          DoubleValue(0.86),
                          MakeDoubleAccessor(&FlowNetwork::m_contendedEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("ContentionOnset",
                          "How long a port must stay contended before ContendedLinkEfficiency "
                          "applies: shorter contention is absorbed by the queue PFC holds "
                          "(measured: none lost in 2:1 contention of a few hundred "
                          "microseconds; doc/flow-backend.md).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&FlowNetwork::m_contentionOnset),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MltcpTieBreak",
                          "With MLTCP (SetMltcp): each job's F is multiplied by 1 + this x "
                          "u, u uniform in [0, 1) per job and seed. At the packet level "
                          "DCQCN's noise gives identical senders unequal rates, and MLTCP's "
                          "feedback turns any lead into interleaving; without a tie-break, "
                          "identical jobs keep equal progress, hence equal F, and stay in "
                          "lockstep. Calibrated on the full-scale incast under MLTCP "
                          "(doc/flow-backend.md); 0 keeps ties.",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&FlowNetwork::m_mltcpTieBreak),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("RecordMessages",
                          "Keep one record per message (the flows table); false keeps none.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FlowNetwork::m_record),
                          MakeBooleanChecker())
            .AddTraceSource("Delivered",
                            "A message's last byte arrived (args: message, time).",
                            MakeTraceSourceAccessor(&FlowNetwork::m_deliveredTrace),
                            "ns3::FlowNetwork::DeliveredCallback");
    return tid;
}

FlowNetwork::FlowNetwork() = default;

FlowNetwork::~FlowNetwork() = default;

void
FlowNetwork::DoDispose()
{
    for (Active& a : m_active)
    {
        a.done.Cancel();
        a.onDelivered = nullptr;
    }
    m_pendingDelivery.clear();
    Object::DoDispose();
}

void
FlowNetwork::Build(const FabricTopology& topology)
{
    NS_ABORT_MSG_IF(m_routes, "FlowNetwork::Build called twice");
    m_topology = topology;
    m_routes = std::make_unique<EcmpRoutes>(m_topology); // validates the topology
    const std::size_t dirLinks = 2 * static_cast<std::size_t>(m_topology.GetNLinks());
    m_capacity.resize(dirLinks);
    m_switchSends.resize(dirLinks);
    m_contendedSince.assign(dirLinks, Time(-1));
    for (uint32_t l = 0; l < m_topology.GetNLinks(); ++l)
    {
        const FabricLink& link = m_topology.GetLink(l);
        m_capacity[2 * l] = m_capacity[2 * l + 1] = static_cast<double>(link.rateBps);
        // Directed link 2l goes from end a to end b, 2l + 1 back.
        m_switchSends[2 * l] = m_topology.GetNode(link.a).kind == FabricNodeKind::Switch;
        m_switchSends[2 * l + 1] = m_topology.GetNode(link.b).kind == FabricNodeKind::Switch;
    }
    m_onLink.assign(dirLinks, {});
    m_txBytes.assign(dirLinks, 0.0);
    m_dirty.assign(dirLinks, 0);
    m_linkMark.assign(dirLinks, 0);
    m_localOf.assign(dirLinks, 0);
    m_nextQpn.assign(m_topology.GetNHosts(), 0x100); // RdmaNic's first queue pair number
}

namespace
{
constexpr int64_t kNone = -1;    ///< no data sender in a class at a link
constexpr int64_t kSeveral = -2; ///< data from two or more hosts
} // namespace

void
FlowNetwork::TallyClasses(std::size_t nLinks)
{
    // Per local link and class, from the last allocation: the data load (the
    // ACKs' share is already taken out of the capacity) and who sends data
    // (kNone, one host, or kSeveral hosts).
    m_classLoad.assign(nLinks, {});
    m_classSender.assign(nLinks, {});
    for (auto& senders : m_classSender)
    {
        senders.fill(kNone);
    }
    for (std::size_t f = 0; f < m_solveFlows.size(); ++f)
    {
        const MaxMinAllocator::Flow& flow = m_solveFlows[f];
        NS_ASSERT(flow.cls < kClasses);
        const uint32_t src = m_connections[m_active[m_solveSlots[f]].connection].src;
        for (const auto& [local, coefficient] : flow.uses)
        {
            m_classLoad[local][flow.cls] += coefficient * m_solveRates[f];
            int64_t& sender = m_classSender[local][flow.cls];
            sender = sender == kNone || sender == src ? src : kSeveral;
        }
    }
}

bool
FlowNetwork::Full(std::size_t local) const
{
    double load = 0;
    for (double l : m_classLoad[local])
    {
        load += l;
    }
    return load >= m_solveCapacity[local] * (1 - 1e-9);
}

bool
FlowNetwork::Queues(std::size_t local, uint32_t link, uint8_t cls) const
{
    // A NIC paces its own queue pairs: no queue, no rate cuts.
    return m_switchSends[link] && m_classSender[local][cls] == kSeveral && Full(local);
}

bool
FlowNetwork::UnweighWhereNotQueued(const std::vector<uint32_t>& links)
{
    TallyClasses(links.size());
    bool changed = false;
    for (std::size_t f = 0; f < m_solveFlows.size(); ++f)
    {
        MaxMinAllocator::Flow& flow = m_solveFlows[f];
        if (flow.weight == 1.0)
        {
            continue;
        }
        const Connection& c = m_connections[m_active[m_solveSlots[f]].connection];
        bool queued = false;
        for (uint32_t l : c.path)
        {
            queued = queued || Queues(m_localOf[l], l, flow.cls);
        }
        if (!queued)
        {
            flow.weight = 1.0;
            changed = true;
        }
    }
    return changed;
}

bool
FlowNetwork::DiscountContended(const std::vector<uint32_t>& links)
{
    TallyClasses(links.size());
    m_classShare.assign(links.size(), {});
    bool any = false;
    for (std::size_t i = 0; i < links.size(); ++i)
    {
        // The highest class with several senders, if it queues here (its
        // senders are marked and cut), gets the discounted share of what the
        // classes above leave (strict priority serves those first), and the
        // classes below it the gaps its cuts leave.
        int cls = static_cast<int>(kClasses) - 1;
        while (cls >= 0 && m_classSender[i][cls] != kSeveral)
        {
            --cls;
        }
        Time& since = m_contendedSince[links[i]];
        if (cls < 0 || !Queues(i, links[i], static_cast<uint8_t>(cls)))
        {
            since = Time(-1);
            continue;
        }
        if (since.IsStrictlyNegative())
        {
            // Contention begins: the queue PFC holds keeps the port busy until
            // DCQCN's cuts take hold; solve again when they have.
            since = Simulator::Now();
            Simulator::Schedule(m_contentionOnset, &FlowNetwork::MarkDirty, this, links[i]);
        }
        if (Simulator::Now() - since < m_contentionOnset)
        {
            continue;
        }
        m_classShare[i] = {static_cast<int16_t>(cls), m_contendedEfficiency};
        any = true;
    }
    return any;
}

std::vector<uint32_t>
FlowNetwork::GetPath(uint32_t src, uint32_t dst, uint16_t srcPort) const
{
    NS_ABORT_MSG_UNLESS(m_routes, "FlowNetwork::Build first");
    if (src >= GetNHosts() || dst >= GetNHosts())
    {
        throw std::out_of_range("GetPath: no host " + std::to_string(std::max(src, dst)));
    }
    const uint32_t srcIp = RoceHostAddress(src);
    const uint32_t dstIp = RoceHostAddress(dst);
    std::vector<uint32_t> path;
    uint32_t node = m_topology.GetHosts().at(src);
    const uint32_t last = m_topology.GetHosts().at(dst);
    while (node != last)
    {
        const auto& adjacent = m_topology.AdjacentLinks(node);
        uint32_t port = 0; // a host's one NIC port
        if (!m_topology.IsHost(node))
        {
            const std::vector<uint16_t>& group = m_routes->GetNextHopPorts(node, dst);
            NS_ABORT_MSG_IF(group.empty(),
                            "switch node " << node << " has no route to host " << dst);
            port = group.size() == 1
                       ? group[0]
                       : group[EcmpRoutes::FlowHash(srcIp,
                                                    dstIp,
                                                    srcPort,
                                                    RoceWire::kUdpPort,
                                                    EcmpRoutes::SwitchSeed(m_ecmpSeed, node)) %
                               group.size()];
        }
        const uint32_t link = adjacent.at(port);
        path.push_back(link);
        const FabricLink& l = m_topology.GetLink(link);
        node = l.a == node ? l.b : l.a;
        NS_ABORT_MSG_IF(path.size() > m_topology.GetLinks().size(), "routing loop");
    }
    return path;
}

std::vector<uint32_t>
FlowNetwork::DirectedPath(uint32_t src, uint32_t dst, uint16_t port) const
{
    return m_topology.DirectedLinks(src, GetPath(src, dst, port));
}

double
FlowNetwork::WireBits(uint64_t bytes) const
{
    // RoceWire::MessageWireBytes in closed form: the first packet carries
    // the RETH, the last one the rest of the payload.
    const uint64_t packets = bytes == 0 ? 1 : (bytes + m_payload - 1) / m_payload;
    if (packets == 1)
    {
        return 8.0 *
               RoceWire::WireBytes(static_cast<uint32_t>(kDataHeaders + RoceWire::kReth + bytes));
    }
    const uint64_t lastPayload = bytes - (packets - 1) * m_payload;
    const double total =
        RoceWire::WireBytes(kDataHeaders + RoceWire::kReth + m_payload) +
        static_cast<double>(packets - 2) * RoceWire::WireBytes(kDataHeaders + m_payload) +
        RoceWire::WireBytes(static_cast<uint32_t>(kDataHeaders + lastPayload));
    return 8.0 * total;
}

double
FlowNetwork::AckLoad() const
{
    return static_cast<double>(RoceWire::WireBytes(kAckBytes)) /
           (static_cast<double>(m_ackInterval) * RoceWire::WireBytes(kDataHeaders + m_payload));
}

Time
FlowNetwork::PathLatency(const std::vector<uint32_t>& path, uint32_t lastFrameBytes) const
{
    // Propagation over every link; the frame is serialized again at every
    // switch (store and forward). The first link's serialization is the
    // fluid transfer itself.
    int64_t ns = 0;
    double seconds = 0;
    for (std::size_t i = 0; i < path.size(); ++i)
    {
        ns += m_topology.GetLink(path[i] / 2).delayNs;
        if (i > 0)
        {
            seconds += 8.0 * lastFrameBytes / m_capacity[path[i]];
        }
    }
    return NanoSeconds(ns) + Seconds(seconds);
}

uint32_t
FlowNetwork::ConnectionOf(uint32_t src, uint32_t dst, uint16_t port)
{
    auto key = std::make_tuple(src, dst, port);
    auto it = m_connectionIndex.find(key);
    if (it != m_connectionIndex.end())
    {
        return it->second;
    }
    Connection c;
    c.src = src;
    c.dst = dst;
    c.path = DirectedPath(src, dst, port);
    c.reverse = DirectedPath(dst, src, port);
    m_connections.push_back(std::move(c));
    const auto index = static_cast<uint32_t>(m_connections.size() - 1);
    m_connectionIndex.emplace(key, index);
    return index;
}

uint64_t
FlowNetwork::SendMessage(uint32_t src,
                         uint32_t dst,
                         RdmaMessageInfo info,
                         std::function<void()> onDelivered)
{
    NS_ABORT_MSG_UNLESS(m_routes, "FlowNetwork::Build first");
    NS_ABORT_MSG_IF(src >= GetNHosts() || dst >= GetNHosts(),
                    "SendMessage: host index out of range (" << src << ", " << dst << ")");
    NS_ABORT_MSG_IF(src == dst, "SendMessage: source and destination are the same host " << src);
    NS_ABORT_MSG_IF(info.bytes == 0, "SendMessage: a message needs at least one byte");
    info.flowId = m_nextFlowId++;
    info.srcNode = m_topology.GetHosts()[src];
    info.dstNode = m_topology.GetHosts()[dst];
    info.start = Simulator::Now();
    auto cls = m_jobClass.find(info.jobId);
    if (cls != m_jobClass.end() && cls->second >= 0)
    {
        info.priority = static_cast<uint8_t>(cls->second);
    }
    auto port = m_jobPort.find(std::make_tuple(info.jobId, src, dst));
    if (port != m_jobPort.end() && port->second != 0)
    {
        info.srcPort = port->second;
    }
    // Queue pair numbers as RoceFabric draws them (the sender's, then the
    // receiver's, per message), so that a message posted without a port
    // gets the one the NIC derives from its queue pair number.
    const uint32_t qpn = m_nextQpn[src]++;
    ++m_nextQpn[dst];
    if (info.srcPort == 0)
    {
        const uint32_t h = (qpn ^ (RoceHostAddress(src) * 0x9E3779B1u)) * 2654435761u;
        info.srcPort = static_cast<uint16_t>(0xC000 | (h >> 18));
    }
    if (m_record)
    {
        m_records.push_back(MessageRecord{info, Time(-1), Time(-1)});
    }
    if (m_mltcp && info.jobId >= 0)
    {
        m_progress[{info.jobId, src}].Post(info.iteration);
    }
    uint32_t slot;
    if (m_freeSlots.empty())
    {
        m_active.emplace_back();
        slot = static_cast<uint32_t>(m_active.size() - 1);
    }
    else
    {
        slot = m_freeSlots.back();
        m_freeSlots.pop_back();
    }
    Active& a = m_active[slot];
    a.info = info;
    a.connection = ConnectionOf(src, dst, info.srcPort);
    a.remainingBits = WireBits(info.bytes);
    a.rate = 0;
    a.updated = Simulator::Now();
    a.onDelivered = std::move(onDelivered);
    a.inLinks = false;
    m_slotOfFlow.emplace(info.flowId, slot);
    Connection& c = m_connections[a.connection];
    c.queue.push_back(slot);
    if (c.queue.size() == 1)
    {
        StartHead(a.connection);
    }
    return info.flowId;
}

void
FlowNetwork::StartHead(uint32_t connection)
{
    const uint32_t slot = m_connections[connection].queue.front();
    Active& a = m_active[slot];
    a.updated = Simulator::Now();
    if (!a.info.gated || IsGateOpen(a.info.jobId))
    {
        Attach(slot);
    }
}

void
FlowNetwork::Attach(uint32_t slot)
{
    Active& a = m_active[slot];
    NS_ASSERT(!a.inLinks);
    a.inLinks = true;
    a.rate = 0;
    a.updated = Simulator::Now();
    const Connection& c = m_connections[a.connection];
    for (uint32_t l : c.path)
    {
        m_onLink[l].push_back(slot);
        MarkDirty(l);
    }
    for (uint32_t l : c.reverse)
    {
        m_onLink[l].push_back(slot);
        MarkDirty(l);
    }
}

void
FlowNetwork::Detach(uint32_t slot)
{
    Active& a = m_active[slot];
    NS_ASSERT(a.inLinks);
    a.remainingBits =
        std::max(0.0, a.remainingBits - a.rate * (Simulator::Now() - a.updated).GetSeconds());
    a.updated = Simulator::Now();
    a.rate = 0;
    a.done.Cancel();
    a.inLinks = false;
    const Connection& c = m_connections[a.connection];
    auto drop = [this, slot](uint32_t l) {
        std::vector<uint32_t>& on = m_onLink[l];
        auto it = std::find(on.begin(), on.end(), slot);
        NS_ASSERT(it != on.end());
        *it = on.back();
        on.pop_back();
        MarkDirty(l);
    };
    for (uint32_t l : c.path)
    {
        drop(l);
    }
    for (uint32_t l : c.reverse)
    {
        drop(l);
    }
}

void
FlowNetwork::MarkDirty(uint32_t dirLink)
{
    if (!m_dirty[dirLink])
    {
        m_dirty[dirLink] = 1;
        m_dirtyList.push_back(dirLink);
    }
    if (!m_recomputeScheduled)
    {
        // After every other event of this instant: one solve for all its changes.
        m_recomputeScheduled = true;
        Simulator::ScheduleNow(&FlowNetwork::Recompute, this);
    }
}

void
FlowNetwork::Recompute()
{
    m_recomputeScheduled = false;
    ++m_recomputations;
    ++m_epoch;
    const Time now = Simulator::Now();
    // The connected component of the changed links: every flow on them,
    // every link of those flows, and so on.
    std::vector<uint32_t> stack;
    stack.swap(m_dirtyList);
    for (uint32_t l : stack)
    {
        m_dirty[l] = 0;
        m_linkMark[l] = m_epoch;
    }
    m_solveFlows.clear();
    m_solveSlots.clear();
    m_solveCapacity.clear();
    std::vector<uint32_t> links;
    while (!stack.empty())
    {
        const uint32_t l = stack.back();
        stack.pop_back();
        m_localOf[l] = static_cast<uint32_t>(links.size());
        links.push_back(l);
        for (uint32_t slot : m_onLink[l])
        {
            Active& a = m_active[slot];
            if (a.mark == m_epoch)
            {
                continue;
            }
            a.mark = m_epoch;
            m_solveSlots.push_back(slot);
            const Connection& c = m_connections[a.connection];
            for (const auto* p : {&c.path, &c.reverse})
            {
                for (uint32_t other : *p)
                {
                    if (m_linkMark[other] != m_epoch)
                    {
                        m_linkMark[other] = m_epoch;
                        stack.push_back(other);
                    }
                }
            }
        }
    }
    if (m_solveSlots.empty())
    {
        for (uint32_t l : links)
        {
            m_contendedSince[l] = Time(-1); // idle: any contention is over
        }
        return;
    }
    // Deterministic order whatever the traversal: by flow id.
    std::sort(m_solveSlots.begin(), m_solveSlots.end(), [this](uint32_t x, uint32_t y) {
        return m_active[x].info.flowId < m_active[y].info.flowId;
    });
    m_solveCapacity.resize(links.size());
    for (std::size_t i = 0; i < links.size(); ++i)
    {
        m_solveCapacity[i] = m_capacity[links[i]];
    }
    const double ackLoad = AckLoad();
    m_solveFlows.resize(m_solveSlots.size());
    for (std::size_t i = 0; i < m_solveSlots.size(); ++i)
    {
        Active& a = m_active[m_solveSlots[i]];
        a.remainingBits = std::max(0.0, a.remainingBits - a.rate * (now - a.updated).GetSeconds());
        a.updated = now;
        const Connection& c = m_connections[a.connection];
        MaxMinAllocator::Flow& f = m_solveFlows[i];
        f.uses.clear();
        for (uint32_t l : c.path)
        {
            f.uses.emplace_back(m_localOf[l], 1.0);
        }
        f.cls = a.info.priority;
        auto w = m_jobWeight.find(a.info.jobId);
        f.weight = (w == m_jobWeight.end() ? 1.0 : w->second) * MltcpFactor(a);
    }
    m_allocator.Allocate(m_solveFlows, m_solveCapacity, m_solveRates);
    if (ackLoad > 0)
    {
        // ACKs travel in the control class, served before every data class:
        // they take their share of each link on the way back first and never
        // hold their flow back. (As a use of the flow in the allocation, a
        // link that carries only its ACKs could freeze it: with unequal
        // weights, at its weight times that link's level.) Reserve what the
        // data rates just found would send, and share the rest.
        for (std::size_t i = 0; i < m_solveSlots.size(); ++i)
        {
            const Connection& c = m_connections[m_active[m_solveSlots[i]].connection];
            for (uint32_t l : c.reverse)
            {
                double& capacity = m_solveCapacity[m_localOf[l]];
                capacity = std::max(0.0, capacity - ackLoad * m_solveRates[i]);
            }
        }
        m_allocator.Allocate(m_solveFlows, m_solveCapacity, m_solveRates);
    }
    if ((m_mltcp || !m_jobWeight.empty()) && UnweighWhereNotQueued(links))
    {
        m_allocator.Allocate(m_solveFlows, m_solveCapacity, m_solveRates);
    }
    if (m_contendedEfficiency < 1 && DiscountContended(links))
    {
        m_allocator.Allocate(m_solveFlows, m_solveCapacity, m_solveRates, &m_classShare);
    }
    m_flowsSolved += m_solveSlots.size();
    for (std::size_t i = 0; i < m_solveSlots.size(); ++i)
    {
        const uint32_t slot = m_solveSlots[i];
        Active& a = m_active[slot];
        const double rate = m_solveRates[i];
        if (rate == a.rate && (a.done.IsRunning() || rate <= 0))
        {
            continue;
        }
        a.rate = rate;
        a.done.Cancel();
        if (rate > 0)
        {
            a.done = Simulator::Schedule(Seconds(a.remainingBits / rate),
                                         &FlowNetwork::SendDone,
                                         this,
                                         slot);
        }
    }
}

void
FlowNetwork::SendDone(uint32_t slot)
{
    Detach(slot);
    Active& a = m_active[slot];
    if (m_mltcp && a.info.jobId >= 0)
    {
        m_progress[{a.info.jobId, m_connections[a.connection].src}].Sent(a.info.iteration,
                                                                         a.info.bytes);
    }
    const Connection& c = m_connections[a.connection];
    const double wireBytes = WireBits(a.info.bytes) / 8;
    for (uint32_t l : c.path)
    {
        m_txBytes[l] += wireBytes;
    }
    const uint64_t packets = (a.info.bytes + m_payload - 1) / m_payload;
    const uint64_t acks = (packets + m_ackInterval - 1) / m_ackInterval;
    for (uint32_t l : c.reverse)
    {
        m_txBytes[l] += static_cast<double>(acks * RoceWire::WireBytes(kAckBytes));
    }
    const uint64_t lastPayload = a.info.bytes - (packets - 1) * m_payload;
    const uint32_t lastFrame = RoceWire::WireBytes(
        static_cast<uint32_t>(kDataHeaders + lastPayload + (packets == 1 ? RoceWire::kReth : 0)));
    const Time toReceiver = PathLatency(c.path, lastFrame);
    const Time ackBack = PathLatency(c.reverse, RoceWire::WireBytes(kAckBytes)) +
                         Seconds(8.0 * RoceWire::WireBytes(kAckBytes) / m_capacity[c.reverse[0]]);
    m_pendingDelivery.emplace(a.info.flowId, std::move(a.onDelivered));
    a.onDelivered = nullptr;
    Simulator::Schedule(toReceiver,
                        &FlowNetwork::Deliver,
                        this,
                        a.info.flowId,
                        Simulator::Now() + toReceiver + ackBack);
    m_slotOfFlow.erase(a.info.flowId);
    const uint32_t connection = a.connection;
    m_freeSlots.push_back(slot);
    Connection& conn = m_connections[connection];
    conn.queue.pop_front();
    if (!conn.queue.empty())
    {
        StartHead(connection);
    }
}

void
FlowNetwork::Deliver(uint64_t flowId, Time acked)
{
    ++m_delivered;
    m_lastDelivery = Simulator::Now();
    std::function<void()> done;
    auto it = m_pendingDelivery.find(flowId);
    if (it != m_pendingDelivery.end())
    {
        done = std::move(it->second);
        m_pendingDelivery.erase(it);
    }
    if (m_record)
    {
        MessageRecord& r = m_records.at(flowId);
        r.delivered = Simulator::Now();
        r.acked = acked;
        m_deliveredTrace(r.info, r.delivered);
    }
    if (done)
    {
        done();
    }
}

void
FlowNetwork::SetGate(uint32_t job, bool open)
{
    const int64_t jobId = job;
    m_gateOpen[jobId] = open;
    for (const auto& [flowId, slot] : m_slotOfFlow)
    {
        Active& a = m_active[slot];
        if (a.info.jobId != jobId || !a.info.gated ||
            m_connections[a.connection].queue.front() != slot)
        {
            continue;
        }
        if (open && !a.inLinks)
        {
            Attach(slot);
        }
        else if (!open && a.inLinks)
        {
            Detach(slot);
        }
    }
}

bool
FlowNetwork::IsGateOpen(int64_t jobId) const
{
    auto it = m_gateOpen.find(jobId);
    return it == m_gateOpen.end() || it->second;
}

void
FlowNetwork::SetPriorityClass(uint32_t job, int16_t cls)
{
    const int64_t jobId = job;
    NS_ABORT_MSG_IF(cls >= 7, "SetPriorityClass: class 7 is the control class");
    m_jobClass[jobId] = cls < 0 ? -1 : cls;
    if (cls < 0)
    {
        return;
    }
    // As the NIC does: messages not yet moving a bit move with the job.
    for (const auto& [flowId, slot] : m_slotOfFlow)
    {
        Active& a = m_active[slot];
        if (a.info.jobId == jobId && !a.inLinks && a.remainingBits == WireBits(a.info.bytes))
        {
            a.info.priority = static_cast<uint8_t>(cls);
        }
    }
}

void
FlowNetwork::SetMltcp(double slope, double intercept)
{
    MltcpDcqcn::CheckAggressiveness(slope, intercept, "FlowNetwork::SetMltcp");
    m_mltcp = true;
    m_mltcpSlope = slope;
    m_mltcpIntercept = intercept;
}

double
FlowNetwork::MltcpFactor(const Active& a) const
{
    if (!m_mltcp || a.info.jobId < 0)
    {
        return 1.0;
    }
    auto it = m_progress.find({a.info.jobId, m_connections[a.connection].src});
    // Its finished messages and what this one has sent.
    const double total = WireBits(a.info.bytes);
    const double sent = total > 0 ? a.info.bytes * (1 - a.remainingBits / total) : 0;
    const double progress =
        it == m_progress.end() ? RdmaCongestionOps::kUnknownProgress : it->second.Progress(sent);
    return MltcpDcqcn::Aggressiveness(m_mltcpSlope, m_mltcpIntercept, progress) *
           (1 + m_mltcpTieBreak * TieBreakOf(a.info.jobId));
}

double
FlowNetwork::TieBreakOf(int64_t jobId)
{
    // SplitMix64 of the job and the run's seed: uniform in [0, 1), the same
    // for every flow of the job and in every process.
    uint64_t x =
        static_cast<uint64_t>(jobId) +
        0x9E3779B97F4A7C15ULL * (RngSeedManager::GetSeed() + (RngSeedManager::GetRun() << 32));
    return static_cast<double>(SplitMix64Finalize(x) >> 11) / static_cast<double>(1ULL << 53);
}

void
FlowNetwork::SetRateWeight(uint32_t job, double weight)
{
    const int64_t jobId = job;
    NS_ABORT_MSG_UNLESS(weight > 0, "SetRateWeight: weight must be > 0, not " << weight);
    m_jobWeight[jobId] = weight;
    for (const auto& [flowId, slot] : m_slotOfFlow)
    {
        const Active& a = m_active[slot];
        if (a.info.jobId == jobId && a.inLinks)
        {
            for (uint32_t l : m_connections[a.connection].path)
            {
                MarkDirty(l);
            }
        }
    }
}

void
FlowNetwork::SetSourcePort(uint32_t job, uint32_t srcHost, uint32_t dstHost, uint16_t port)
{
    m_jobPort[std::make_tuple(static_cast<int64_t>(job), srcHost, dstHost)] = port;
}

uint64_t
FlowNetwork::Post(uint32_t src,
                  uint32_t dst,
                  const RdmaMessageInfo& info,
                  std::function<void()> onDelivered,
                  FailedCallback /* onFailed */)
{
    return SendMessage(src, dst, info, std::move(onDelivered));
}

double
FlowNetwork::GetRate(uint64_t flowId) const
{
    auto it = m_slotOfFlow.find(flowId);
    if (it == m_slotOfFlow.end())
    {
        return 0;
    }
    const Active& a = m_active[it->second];
    return a.inLinks ? a.rate : 0;
}

} // namespace ns3
