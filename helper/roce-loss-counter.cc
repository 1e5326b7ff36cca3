/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-loss-counter.h"

#include "ns3/callback.h"

namespace ns3
{

RoceLossCounter::RoceLossCounter(Ptr<RoceFabric> fabric)
    : m_fabric(fabric)
{
    const FabricTopology& topo = fabric->GetTopology();
    m_links.resize(topo.GetNLinks());
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        Ptr<RoceChannel> ch = fabric->GetChannel(l);
        ch->TraceConnectWithoutContext(
            "LinkDownDrop",
            Callback<void, Ptr<const Packet>, uint32_t>([this, l](Ptr<const Packet> p, uint32_t) {
                Lost(l, RoceLossCause::LINK_DOWN, p);
            }));
        for (uint32_t end = 0; end < 2; ++end)
        {
            ch->GetRoceDevice(end)->TraceConnectWithoutContext(
                "PhyRxDrop",
                Callback<void, Ptr<const Packet>>(
                    [this, l](Ptr<const Packet> p) { Lost(l, RoceLossCause::ERROR, p); }));
        }
    }
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        if (Ptr<RoceSwitch> sw = fabric->GetSwitch(node))
        {
            // Admission drops are charged to the ingress port's link.
            const std::vector<uint32_t> links = topo.AdjacentLinks(node);
            sw->TraceConnectWithoutContext(
                "Drop",
                Callback<void, Ptr<const Packet>, uint32_t, uint8_t>(
                    [this, links](Ptr<const Packet> p, uint32_t port, uint8_t) {
                        Lost(links.at(port), RoceLossCause::BUFFER, p);
                    }));
        }
    }
    for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
    {
        fabric->GetNic(h)->TraceConnectWithoutContext(
            "Retransmit",
            Callback<void, const RdmaMessageInfo&, uint32_t>(
                [this](const RdmaMessageInfo& info, uint32_t bytes) {
                    m_retx[info.flowId] += bytes;
                }));
    }
}

void
RoceLossCounter::Lost(uint32_t linkId, RoceLossCause cause, const Ptr<const Packet>& p)
{
    const std::size_t c = static_cast<std::size_t>(cause);
    const uint32_t size = p->GetSize();
    m_links[linkId].bytes[c] += size;
    ++m_links[linkId].frames[c];
    // A data frame names the receiver's queue pair, which names the message.
    const RoceForwardingInfo info = RoceForwardingInfo::Peek(p);
    if (info.etherType != RoceWire::kEtherTypeIpv4)
    {
        return; // PFC
    }
    RoceHeader h;
    p->PeekHeader(h);
    if (!h.IsData())
    {
        return;
    }
    const uint32_t host = RoceHostIndex(h.GetDestination());
    if (host >= m_fabric->GetNHosts())
    {
        return;
    }
    if (const RdmaMessageInfo* m = m_fabric->GetNic(host)->FindReceiveMessage(h.GetDestQp()))
    {
        Losses& f = m_flows[m->flowId];
        f.bytes[c] += size;
        ++f.frames[c];
    }
}

RoceLossCounter::Losses
RoceLossCounter::GetFlow(uint64_t flowId) const
{
    auto it = m_flows.find(flowId);
    return it == m_flows.end() ? Losses{} : it->second;
}

uint64_t
RoceLossCounter::GetRetransmittedBytes(uint64_t flowId) const
{
    auto it = m_retx.find(flowId);
    return it == m_retx.end() ? 0 : it->second;
}

RoceLossCounter::Losses
RoceLossCounter::GetTotal() const
{
    Losses total;
    for (const Losses& l : m_links)
    {
        for (std::size_t c = 0; c < kRoceLossCauses; ++c)
        {
            total.bytes[c] += l.bytes[c];
            total.frames[c] += l.frames[c];
        }
    }
    return total;
}

uint64_t
RoceLossCounter::GetTotalRetransmittedBytes() const
{
    uint64_t n = 0;
    for (const auto& [id, bytes] : m_retx)
    {
        n += bytes;
    }
    return n;
}

const char*
RoceLossCounter::Name(RoceLossCause cause)
{
    switch (cause)
    {
    case RoceLossCause::BUFFER:
        return "buffer";
    case RoceLossCause::ERROR:
        return "error model";
    case RoceLossCause::LINK_DOWN:
        return "link down";
    }
    return "unknown";
}

} // namespace ns3
