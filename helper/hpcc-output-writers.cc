/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-output-writers.h"

#include "ns3/pfc-header.h"
#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{

uint32_t
HpccNodeAddress(uint32_t nodeId)
{
    return 0x0b000001u + (nodeId / 256) * 0x00010000u + (nodeId % 256) * 0x00000100u;
}

void
OpenHpccOutput(std::ofstream& out, const std::string& path)
{
    out.open(path, std::ios::out | std::ios::trunc);
    if (!out)
    {
        throw std::runtime_error(path + ": file: cannot open for writing");
    }
}

void
CloseHpccOutput(std::ofstream& out, const std::string& path)
{
    out.flush();
    if (!out)
    {
        throw std::runtime_error(path + ": file: write error");
    }
    out.close();
}

HpccFctWriter::HpccFctWriter(const std::string& path, Ptr<RoceFabric> fabric, HpccPostedFlows flows)
    : m_path(path),
      m_flows(std::move(flows.fabric))
{
    OpenHpccOutput(m_out, path);
    for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
    {
        fabric->GetNic(h)->TraceConnectWithoutContext(
            "SendComplete",
            MakeCallback(&HpccFctWriter::OnComplete, this));
    }
    for (HpccPostedFlow& p : flows.nvlink)
    {
        const auto fct = static_cast<int64_t>(p.standaloneFctNs);
        Simulator::Schedule(NanoSeconds(p.flow.startNs + fct) - Simulator::Now(),
                            [this, p = std::move(p), fct]() { Write(p, p.flow.startNs, fct); });
    }
}

void
HpccFctWriter::OnComplete(const RdmaMessageInfo& info,
                          Time ackTime,
                          uint64_t /* retransmittedBytes */)
{
    auto it = m_flows.find(info.flowId);
    if (it == m_flows.end())
    {
        return; // not a flow of the flow file
    }
    Write(it->second, info.start.GetNanoSeconds(), (ackTime - info.start).GetNanoSeconds());
}

void
HpccFctWriter::Write(const HpccPostedFlow& p, int64_t startNs, int64_t fctNs)
{
    m_out << FormatHpccFctLine(p.flow.src,
                               p.flow.dst,
                               p.srcPort,
                               p.flow.dport,
                               p.flow.bytes,
                               startNs,
                               fctNs,
                               p.standaloneFctNs);
    ++m_lines;
}

void
HpccFctWriter::Close()
{
    CloseHpccOutput(m_out, m_path);
}

HpccPfcWriter::HpccPfcWriter(const std::string& path,
                             Ptr<RoceFabric> fabric,
                             const HpccScenario& scenario)
    : m_path(path)
{
    OpenHpccOutput(m_out, path);
    const FabricTopology& topo = fabric->GetTopology();
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        const uint32_t fileNode = scenario.GetFileNode(node);
        const auto type = static_cast<uint32_t>(scenario.GetFileTopology().nodeType.at(fileNode));
        Ptr<Node> n = fabric->GetNode(node);
        // The fabric adds a node's devices in port order.
        for (uint32_t port = 0; port < n->GetNDevices(); ++port)
        {
            n->GetDevice(port)->TraceConnectWithoutContext(
                "PfcReceived",
                MakeCallback(&HpccPfcWriter::OnPfc,
                             this,
                             fileNode,
                             type,
                             scenario.GetSimulatorIfIndex(node, port)));
        }
    }
}

void
HpccPfcWriter::OnPfc(uint32_t fileNode,
                     uint32_t nodeType,
                     uint32_t ifIndex,
                     Ptr<const Packet> frame)
{
    PfcHeader pfc;
    frame->PeekHeader(pfc);
    const int64_t now = Simulator::Now().GetNanoSeconds();
    for (uint8_t c = 0; c < PfcHeader::kClasses; ++c)
    {
        if (pfc.IsEnabled(c))
        {
            m_out << now << ' ' << fileNode << ' ' << nodeType << ' ' << ifIndex << ' '
                  << (pfc.GetQuanta(c) > 0 ? 1 : 0) << '\n';
            ++m_lines;
        }
    }
}

void
HpccPfcWriter::Close()
{
    CloseHpccOutput(m_out, m_path);
}

} // namespace ns3
