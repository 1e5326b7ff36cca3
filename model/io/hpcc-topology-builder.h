/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_TOPOLOGY_BUILDER_H
#define HPCC_TOPOLOGY_BUILDER_H

#include "hpcc-topology-reader.h"

#include "ns3/topology-builder.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * The RoCE fabric of an HPCC or SimAI topology file, with a SimAI file's
 * NVSwitches as its servers' NVLink: the GPUs linked to one NVSwitch (or
 * to NVSwitches that share a GPU) are one server (FabricTopology::SetServer),
 * and the NVSwitches and their links leave the fabric, so that traffic
 * between GPUs of a server takes NVLink, as in SimAI, and the rest the
 * GPUs' NICs. Nodes keep the file's order with the NVSwitches removed;
 * a switch that a GPU's NIC link reaches is an edge switch (tier 1, its own
 * rack, and the GPU's rack), the others tier 2.
 * \throw std::runtime_error "path:line: field: message" as ReadHpccTopology,
 *        or naming the GPU that keeps no NIC link or more than one
 */
FabricTopology BuildHpccFabric(const HpccTopology& file, const std::string& path);

/**
 * \ingroup collective-scheduling
 * The server of every node of \p file, as BuildHpccFabric groups them: GPUs
 * joined through NVSwitches share one, numbered from 0 in the order of each
 * server's first GPU; -1 for switches, NVSwitches and GPUs without NVLink.
 * \throw std::runtime_error naming \p path and a GPU with more than one NIC link
 */
std::vector<int32_t> HpccNvlinkServers(const HpccTopology& file, const std::string& path);

/**
 * \ingroup collective-scheduling
 * The latency of an NVLink message in \p file: twice its slowest GPU ->
 * NVSwitch link's delay (a message crosses the sender's link into the
 * NVSwitch and the receiver's out of it); none if it has no NVSwitch link.
 */
std::optional<Time> HpccNvlinkLatency(const HpccTopology& file);

/**
 * \ingroup collective-scheduling
 * Topology kind "hpcc": an HPCC or SimAI topology file (BuildHpccFabric),
 * read from the path a scenario's topology.path gives.
 */
class HpccTopologyBuilder : public TopologyBuilder
{
  public:
    static TypeId GetTypeId();

    FabricTopology Build() const override;
    std::optional<TopologySize> Estimate() const override;
    std::string GetDescription() const override;
    bool ReadsFile() const override;
    /// The file's HpccNvlinkLatency.
    std::optional<Time> GetNvlinkLatency() const override;
    uint32_t GetGpusPerHost() const override;
    std::string WhyGpusPerHost() const override;
};

} // namespace ns3

#endif /* HPCC_TOPOLOGY_BUILDER_H */
