/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/pfc-header.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitch");
NS_OBJECT_ENSURE_REGISTERED(RoceSwitch);

TypeId
RoceSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitch")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<RoceSwitch>()
            .AddAttribute("EcmpSeed",
                          "Seed of this switch's ECMP hash; switches with different seeds "
                          "split flows independently (no polarization).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitch::m_ecmpSeed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PauseQuanta",
                          "Pause time of a PFC PAUSE, in quanta of 512 bit times; the switch "
                          "refreshes it at half that while the queue stays over threshold.",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&RoceSwitch::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PfcEnabled",
                          "Send PFC PAUSE/RESUME for the MMU's lossless classes "
                          "(ns3::SwitchMmu::LosslessClasses); when false every class is lossy "
                          "and dropped at the MMU's egress threshold. Sets the MMU's PfcEnabled.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceSwitch::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnEnabled",
                          "Mark ECN (RED on the egress queue) at dequeue.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceSwitch::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("Mmu",
                          "The shared-buffer MMU.",
                          PointerValue(),
                          MakePointerAccessor(&RoceSwitch::m_mmu),
                          MakePointerChecker<SwitchMmu>())
            .AddTraceSource("Drop",
                            "A frame was dropped at admission (args: packet, ingress port, "
                            "class).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_dropTrace),
                            "ns3::RoceSwitch::PortPacketCallback")
            .AddTraceSource("EcnMark",
                            "A frame was marked CE at egress (args: packet, egress port, "
                            "class).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_ecnMarkTrace),
                            "ns3::RoceSwitch::PortPacketCallback")
            .AddTraceSource("Pfc",
                            "A PFC frame was sent (args: port, class, true for PAUSE).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_pfcTrace),
                            "ns3::RoceSwitch::PfcCallback");
    return tid;
}

RoceSwitch::RoceSwitch()
    : m_ecnRng(CreateObject<UniformRandomVariable>())
{
}

RoceSwitch::~RoceSwitch() = default;

void
RoceSwitch::DoDispose()
{
    for (auto& e : m_pauseRefresh)
    {
        e.Cancel();
    }
    m_ports.clear();
    m_routes.reset();
    m_mmu = nullptr;
    m_ecnRng = nullptr;
    Object::DoDispose();
}

void
RoceSwitch::Setup(const std::vector<Ptr<RoceNetDevice>>& ports,
                  std::shared_ptr<const EcmpRoutes> routes,
                  uint32_t topologyNode)
{
    m_ports = ports;
    m_topologyNode = topologyNode;
    SetRoutes(std::move(routes));
    m_stats.assign(ports.size(), PortStats{});
    m_classStats.fill(PortStats{});
    m_pauseRefresh.assign(ports.size() * RoceNetDevice::kClasses, EventId());
    m_portClassMarks.assign(ports.size() * RoceNetDevice::kClasses, 0);
    if (!m_mmu)
    {
        m_mmu = CreateObject<SwitchMmu>();
    }
    // The MMU applies the PFC and ECN settings; the switch only forwards them.
    m_mmu->SetAttribute("PfcEnabled", BooleanValue(m_pfcEnabled));
    m_mmu->SetAttribute("EcnEnabled", BooleanValue(m_ecnEnabled));
    m_mmu->Configure(static_cast<uint32_t>(ports.size()));
    for (uint32_t i = 0; i < ports.size(); ++i)
    {
        Ptr<RoceNetDevice> port = ports[i];
        NS_ABORT_MSG_UNLESS(port->GetIfIndex() == i,
                            "switch port " << i << " has ifIndex " << port->GetIfIndex());
        port->SetOwner(this, false);
        m_mmu->ConfigurePort(i,
                             port->GetDataRate(),
                             port->GetRoceChannel()->GetDelay(),
                             port->GetMtu() + RoceWire::kFrameOverhead);
    }
}

void
RoceSwitch::SetRoutes(std::shared_ptr<const EcmpRoutes> routes)
{
    m_routes = std::move(routes);
    m_forwarding = &m_routes->GetForwardingTable(m_topologyNode);
}

uint32_t
RoceSwitch::SelectPort(const RoceForwardingInfo& info) const
{
    const uint32_t host = RoceHostIndex(info.dstIp);
    NS_ABORT_MSG_IF(host >= m_forwarding->GetNHosts(),
                    "switch node " << m_topologyNode << ": no host has address " << info.dstIp);
    const uint32_t port = m_forwarding->Select(host, [&]() {
        return EcmpRoutes::FlowHash(info.srcIp, info.dstIp, info.srcPort, info.dstPort, m_ecmpSeed);
    });
    NS_ABORT_MSG_IF(port == EcmpRoutes::ForwardingTable::kNoPort,
                    "switch node " << m_topologyNode << " has no route to host " << host);
    return port;
}

void
RoceSwitch::HandleReceive(RoceNetDevice* port, Ptr<Packet> p, const RoceForwardingInfo& info)
{
    const uint32_t inPort = port->GetIfIndex();
    const uint32_t outPort = SelectPort(info);
    const uint8_t cls = info.dscp < RoceNetDevice::kClasses ? info.dscp : 0;
    if (!m_mmu->Admit(inPort, outPort, cls, info.bytes))
    {
        ++m_stats[inPort].drops;
        ++m_classStats[cls].drops;
        RoceFire(m_dropTrace, p, info, inPort, cls);
        return;
    }
    if (m_mmu->CheckPause(inPort, cls))
    {
        m_mmu->SetPaused(inPort, cls, true);
        SendPfc(inPort, cls, m_pauseQuanta);
    }
    m_ports[outPort]->Enqueue(TakeRef(p), cls, inPort, info);
}

void
RoceSwitch::HandleDequeue(RoceNetDevice* port,
                          uint8_t cls,
                          uint32_t inPort,
                          Ptr<Packet>& p,
                          RoceForwardingInfo& info)
{
    const uint32_t outPort = port->GetIfIndex();
    m_mmu->Release(inPort, outPort, cls, info.bytes);
    // RED on the queue left behind; a random draw only where the answer is uncertain.
    const double mark =
        cls == RoceNetDevice::kControlClass ? 0.0 : m_mmu->GetMarkProbability(outPort, cls);
    if (mark > 0 && (mark >= 1 || m_ecnRng->GetValue() < mark))
    {
        if (RoceMarkCe(p, info))
        {
            ++m_stats[outPort].ecnMarked;
            ++m_classStats[cls].ecnMarked;
            ++m_portClassMarks[outPort * RoceNetDevice::kClasses + cls];
            RoceFire(m_ecnMarkTrace, p, info, outPort, cls);
        }
    }
    if (m_mmu->CheckResume(inPort, cls))
    {
        m_mmu->SetPaused(inPort, cls, false);
        SendPfc(inPort, cls, 0);
    }
}

void
RoceSwitch::SendPfc(uint32_t port, uint8_t cls, uint16_t quanta)
{
    PfcHeader pfc;
    Address a = m_ports[port]->GetAddress();
    uint8_t mac[6];
    Mac48Address::ConvertFrom(a).CopyTo(mac);
    uint64_t src = 0;
    for (uint8_t b : mac)
    {
        src = src << 8 | b;
    }
    pfc.SetSourceMac(src);
    pfc.SetQuanta(cls, quanta);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    m_ports[port]->SendPfc(frame);
    m_pfcTrace(port, cls, quanta != 0);
    EventId& refresh = m_pauseRefresh[port * RoceNetDevice::kClasses + cls];
    refresh.Cancel();
    if (quanta != 0)
    {
        ++m_stats[port].pausesSent;
        ++m_classStats[cls].pausesSent;
        // Re-send before the upstream's pause runs out while still congested.
        const Time pauseTime = m_ports[port]->GetDataRate().CalculateBytesTxTime(quanta * 64u);
        refresh = Simulator::Schedule(pauseTime / 2, &RoceSwitch::RefreshPause, this, port, cls);
    }
}

void
RoceSwitch::RefreshPause(uint32_t port, uint8_t cls)
{
    if (!m_mmu->IsPaused(port, cls))
    {
        return;
    }
    // The threshold moves with the free pool: the queue may be below it now.
    if (m_mmu->CheckResume(port, cls))
    {
        m_mmu->SetPaused(port, cls, false);
        SendPfc(port, cls, 0);
    }
    else
    {
        SendPfc(port, cls, m_pauseQuanta);
    }
}

uint64_t
RoceSwitch::GetTotalDrops() const
{
    uint64_t n = 0;
    for (const auto& s : m_stats)
    {
        n += s.drops;
    }
    return n;
}

uint64_t
RoceSwitch::GetTotalPausesSent() const
{
    uint64_t n = 0;
    for (const auto& s : m_stats)
    {
        n += s.pausesSent;
    }
    return n;
}

uint64_t
RoceSwitch::GetTotalEcnMarked() const
{
    uint64_t n = 0;
    for (const auto& s : m_stats)
    {
        n += s.ecnMarked;
    }
    return n;
}

int64_t
RoceSwitch::AssignStreams(int64_t stream)
{
    m_ecnRng->SetStream(stream);
    return 1;
}

} // namespace ns3
