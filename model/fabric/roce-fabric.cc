/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-fabric.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/distributed-simulation.h"
#include "ns3/double.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#ifdef NS3_MPI
#include "ns3/rank-messenger.h"
#endif

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceFabric);

TypeId
RoceFabric::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceFabric")
            .SetParent<ClusterNetwork>()
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
    m_pending.clear();
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
    ++m_delivered;
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

uint64_t
RoceFabric::Post(uint32_t src,
                 uint32_t dst,
                 const RdmaMessageInfo& info,
                 std::function<void()> onDelivered,
                 FailedCallback onFailed)
{
    const uint64_t flowId = SendMessage(src, dst, info, Simulator::Now(), std::move(onDelivered));
    // The queue pair is set up by an event of its own, so nothing is
    // reported for the flow before it is registered here. Only the rank that
    // runs the sender hears of its end (see doc: distributed runs).
    if (IsLocalHost(src))
    {
        ListenToSender(src);
        m_pending.emplace(flowId, Pending{src, dst, std::move(onFailed)});
    }
    return flowId;
}

void
RoceFabric::ListenToSender(uint32_t host)
{
    if (m_listening.empty())
    {
        m_listening.assign(m_nics.size(), false);
    }
    if (m_listening[host])
    {
        return;
    }
    // Connected as the first message is posted, after whatever monitors
    // were connected when the run was built, so they hear of an end first.
    m_listening[host] = true;
    m_nics[host]->TraceConnectWithoutContext("SendComplete",
                                             MakeCallback(&RoceFabric::OnSendComplete, this));
    m_nics[host]->TraceConnectWithoutContext("SendFailed",
                                             MakeCallback(&RoceFabric::OnSendFailed, this));
}

void
RoceFabric::OnSendComplete(const RdmaMessageInfo& info,
                           Time /* ackTime */,
                           uint64_t /* retransmitted */)
{
    m_pending.erase(info.flowId);
}

void
RoceFabric::OnSendFailed(const RdmaMessageInfo& info, RdmaSendError error)
{
    auto it = m_pending.find(info.flowId);
    if (it == m_pending.end())
    {
        return; // sent with SendMessage: no one to tell
    }
    Pending p = std::move(it->second);
    m_pending.erase(it);
    Ptr<RdmaNic> nic = m_nics[p.srcHost];
    std::ostringstream reason;
    reason << "flow " << info.flowId << " from host " << p.srcHost << " to host " << p.dstHost
           << ": " << ToString(error);
    if (error == RdmaSendError::RETRY_EXCEEDED)
    {
        reason << " (" << nic->DescribeRetryLimit() << ")";
    }
    NS_ABORT_MSG_UNLESS(p.onFailed,
                        "job " << info.jobId << ": " << reason.str()
                               << "; the message was sent without a failure callback");
    p.onFailed(reason.str());
}

uint32_t
RoceFabric::GetPayloadPerPacket() const
{
    UintegerValue payload;
    m_nics.front()->GetAttribute("PayloadPerPacket", payload);
    return static_cast<uint32_t>(payload.Get());
}

uint32_t
RoceFabric::GetAckInterval() const
{
    UintegerValue interval;
    m_nics.front()->GetAttribute("AckInterval", interval);
    return static_cast<uint32_t>(interval.Get());
}

void
RoceFabric::SetGate(uint32_t job, bool open)
{
    for (uint32_t h : GetJobHosts(job))
    {
        m_nics.at(h)->SetGate(job, open);
    }
}

void
RoceFabric::SetPriorityClass(uint32_t job, int16_t cls)
{
    CheckLossless(job, cls);
    for (uint32_t h : GetJobHosts(job))
    {
        m_nics.at(h)->SetPriorityClass(job, cls);
    }
}

void
RoceFabric::SetRateWeight(uint32_t job, double weight)
{
    for (uint32_t h : GetJobHosts(job))
    {
        m_nics.at(h)->SetRateWeight(job, weight);
    }
}

void
RoceFabric::SetSourcePort(uint32_t job, uint32_t srcHost, uint32_t dstHost, uint16_t port)
{
    m_nics.at(srcHost)->SetSourcePort(job, RoceHostAddress(dstHost), port);
}

void
RoceFabric::CheckLossless(uint32_t job, int16_t cls)
{
    if (cls < 0 || (m_warnedClasses >> cls & 1))
    {
        return;
    }
    for (uint32_t node = 0; node < m_switches.size(); ++node)
    {
        const Ptr<RoceSwitch>& sw = m_switches[node];
        if (!sw)
        {
            continue;
        }
        Ptr<SwitchMmu> mmu = sw->GetMmu();
        if (!mmu->IsLossless(static_cast<uint8_t>(cls)) &&
            mmu->IsLossless(RdmaMessageInfo().priority))
        {
            m_warnedClasses |= static_cast<uint8_t>(1u << cls);
            if (m_rank == 0)
            {
                std::cerr << "warning: the scheduler moved job " << job << " to traffic class "
                          << cls << ", which is lossy in switch " << m_topology.GetNode(node).name
                          << " (ns3::SwitchMmu::LosslessClasses "
                          << SwitchMmu::FormatClassList(mmu->GetLosslessClasses())
                          << "), so its data may be dropped: the policy should list the "
                             "class in CollectiveScheduler::GetPriorityClasses\n";
            }
            return;
        }
    }
}

} // namespace ns3
