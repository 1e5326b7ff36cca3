/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_SCENARIO_H
#define HPCC_SCENARIO_H

#include "hpcc-network-config.h"
#include "roce-fabric-helper.h"

#include "ns3/fabric-fault.h"
#include "ns3/hpcc-config-reader.h"
#include "ns3/hpcc-flow-reader.h"
#include "ns3/hpcc-topology-reader.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/// Where the files of an HPCC-format run are and how strictly the config is read.
struct HpccScenarioOptions
{
    std::string configFile;    ///< HPCC config file; empty for none (module defaults)
    std::string topologyFile;  ///< overrides the config's TOPOLOGY_FILE
    std::string flowFile;      ///< overrides the config's FLOW_FILE
    std::string fctOutputFile; ///< overrides FCT_OUTPUT_FILE; "fct.txt" if neither gives one
    std::string pfcOutputFile; ///< overrides PFC_OUTPUT_FILE; "pfc.txt" if neither gives one
    bool strict{false};        ///< refuse config keys (or values) the module does not model
};

/// One flow of the flow file as posted on the fabric, or on a server's NVLink.
struct HpccPostedFlow
{
    HpccFlow flow;       ///< as read, with the file's node ids
    uint16_t srcPort{0}; ///< UDP source port (see HpccScenario::PostFlows)
    /// Between two GPUs of one server: carried by their NVSwitch, not the fabric.
    bool nvlink{false};
    /// The links the data frames cross: fabric link ids; for an NVLink flow,
    /// the file's link ids (to the NVSwitch and from it).
    std::vector<uint32_t> path;
    uint64_t standaloneFctNs{0}; ///< HpccStandaloneFctNs of the flow on that path
};

/// The flows of the flow file as HpccScenario::PostFlows posted them.
struct HpccPostedFlows
{
    std::map<uint64_t, HpccPostedFlow> fabric; ///< on the RoCE fabric, by its flow id
    std::vector<HpccPostedFlow> nvlink;        ///< on NVLink, in file order
};

/**
 * \ingroup collective-scheduling
 * \brief A run described by the input files of the HPCC-lineage ns-3
 * simulators (HPCC's third.cc, SimAI, astra-network-ns3): a config file,
 * a topology file and a flow file, read and checked against each other,
 * then turned into a RoceFabric with the flows posted on it.
 *
 * Paths are resolved as the simulators do: the config's paths, and those
 * given in HpccScenarioOptions, relative to the working directory.
 *
 * The RoCE fabric is the topology file's, with one exception: a SimAI
 * topology's NVSwitches and the NVLink links that touch them are not
 * fabric nodes and links (this module's hosts have one NIC port); the GPUs
 * they join are one server (FabricTopology::SetServer, as BuildHpccFabric),
 * and a flow between two GPUs of one server goes through their NVSwitch,
 * as in SimAI, not through their NICs: it takes the standalone time of its
 * two NVLink links (HpccStandaloneFctNs; NVLink contention is not
 * modelled). Node and link ids in every output stay the file's.
 *
 * Everything wrong with the inputs is reported before the run, as
 * std::runtime_error "path:line: field: message" where a line is to blame.
 */
class HpccScenario
{
  public:
    /**
     * Read and check the files.
     * \throw std::runtime_error for bad or inconsistent inputs, and in strict
     *        mode for config keys the module does not model
     */
    explicit HpccScenario(const HpccScenarioOptions& options);

    /// The config's network settings (the simulators' defaults without a config file).
    const HpccNetworkConfig& GetNetworkConfig() const
    {
        return m_network;
    }

    /// The config's modelled settings and the keys it does not model.
    const HpccConfigMapping& GetConfig() const
    {
        return m_network.GetMapping();
    }

    /// Config keys (or values) not modelled, in file order; empty in strict mode.
    const std::vector<HpccUnmodelledKey>& GetUnmodelledKeys() const
    {
        return m_network.GetMapping().unmodelled;
    }

    /// "config: keys not modelled, ignored: KEY (line n: why), ..."; empty if none.
    std::string DescribeUnmodelledKeys() const
    {
        return m_network.DescribeUnmodelledKeys();
    }

    /// The topology as the file has it, NVSwitches included.
    const HpccTopology& GetFileTopology() const
    {
        return m_file;
    }

    /// The topology the fabric is built from (NVSwitches and NVLink links left out).
    const FabricTopology& GetFabricTopology() const
    {
        return m_fabric;
    }

    const std::vector<HpccFlow>& GetFlows() const
    {
        return m_flows;
    }

    const std::string& GetConfigFile() const
    {
        return m_options.configFile;
    }

    const std::string& GetTopologyFile() const
    {
        return m_topologyFile;
    }

    const std::string& GetFlowFile() const
    {
        return m_flowFile;
    }

    const std::string& GetFctOutputFile() const
    {
        return m_fctOutputFile;
    }

    const std::string& GetPfcOutputFile() const
    {
        return m_pfcOutputFile;
    }

    /// PACKET_PAYLOAD_SIZE, or 1000 bytes (the simulators' default).
    uint32_t GetPayloadBytes() const
    {
        return m_network.GetPayloadBytes();
    }

    /// SIMULATOR_STOP_TIME, or 3.01 s (the simulators' default).
    Time GetStopTime() const
    {
        return m_network.GetStopTime();
    }

    /// SIMULATOR_STOP_TIME is beyond the simulator's range: run until nothing is left.
    bool RunsUntilDone() const
    {
        return m_network.RunsUntilDone();
    }

    /// NVSwitches: nodes of the file that are not fabric nodes.
    uint32_t GetNNvSwitches() const
    {
        return m_file.topology.GetNNodes() - m_fabric.GetNNodes();
    }

    /// NVLink links: links of the file that are not fabric links.
    uint32_t GetNNvlinkLinks() const
    {
        return m_file.topology.GetNLinks() - m_fabric.GetNLinks();
    }

    /**
     * The file's links from GPU \p src to an NVSwitch and from it to GPU
     * \p dst (file node ids): the first NVSwitch, in the order of src's
     * links in the file, that links both; empty if none does.
     */
    std::vector<uint32_t> GetNvlinkPath(uint32_t src, uint32_t dst) const;

    /// The file's node id of fabric node \p fabricNode.
    uint32_t GetFileNode(uint32_t fabricNode) const
    {
        return m_fileNode.at(fabricNode);
    }

    /// The file's link id of fabric link \p fabricLink.
    uint32_t GetFileLink(uint32_t fabricLink) const
    {
        return m_fileLink.at(fabricLink);
    }

    /**
     * The interface index the simulators give port \p port of fabric node
     * \p fabricNode: 1 + the port's position among the node's links in the
     * file (NVLink links counted), since their nodes hold a loopback device
     * at index 0.
     */
    uint32_t GetSimulatorIfIndex(uint32_t fabricNode, uint32_t port) const;

    /// Configure \p helper from the config (HpccNetworkConfig::Configure).
    void Configure(RoceFabricHelper& helper) const
    {
        m_network.Configure(helper);
    }

    /// The congestion control Configure sets (HpccNetworkConfig::GetCongestionControlSpec).
    std::string GetCongestionControlSpec() const
    {
        return m_network.GetCongestionControlSpec();
    }

    /**
     * Build the fabric with \p helper (configured by Configure), set every
     * switch port's ECN thresholds from KMIN_MAP / KMAX_MAP / PMAX_MAP by
     * the port's rate (those the file omits keep the MMU's rate-scaled
     * defaults), give each link with a non-zero error rate (its own, or
     * ERROR_RATE_PER_LINK when its own is 0) a receive error model at both
     * ends, and fix all random streams from \p stream (RoceFabric::AssignStreams).
     * Needs picosecond time resolution.
     * \throw std::runtime_error if the switch buffer cannot hold its reserves
     */
    Ptr<RoceFabric> Install(const RoceFabricHelper& helper, int64_t stream = 0) const;

    /**
     * Post every flow on \p fabric at its start time, in file order, except
     * those between two GPUs of one server, which NVLink carries (see the
     * class; HpccFctWriter completes them). As the simulators do, each
     * source host numbers its flows' UDP source ports 10000, 10001, ... (the
     * ECMP hash input); pg is the traffic class; the flow's dport is
     * reported in fct.txt only (RoCEv2 frames go to UDP port 4791).
     */
    HpccPostedFlows PostFlows(Ptr<RoceFabric> fabric) const;

    /**
     * The config's LINK_DOWN as faults for FabricFaults: every fabric link
     * between the two nodes fails at 2 s + the given time and stays down
     * (the simulators route around it at once: run FabricFaults with a
     * DetectionDelay of 0). Empty without LINK_DOWN or with a time of 0.
     * \throw std::runtime_error "config:line: LINK_DOWN: ..." when the nodes
     *        are not linked in the fabric
     */
    std::vector<FabricFault> GetFaults() const;

  private:
    void ReadConfig();
    void BuildFabricTopology();
    void CheckFlows() const;
    /// The error rate link \p fileLink gets: its own, or ERROR_RATE_PER_LINK if its own is 0.
    double LinkErrorRate(uint32_t fileLink) const;

    HpccScenarioOptions m_options;
    HpccNetworkConfig m_network;
    std::string m_topologyFile;
    std::string m_flowFile;
    std::string m_fctOutputFile;
    std::string m_pfcOutputFile;
    HpccTopology m_file;
    FabricTopology m_fabric;
    std::vector<uint32_t> m_fileNode;  ///< fabric node -> file node
    std::vector<int64_t> m_fabricNode; ///< file node -> fabric node, -1 if left out
    std::vector<uint32_t> m_fileLink;  ///< fabric link -> file link
    std::vector<HpccFlow> m_flows;
};

/**
 * The ideal ("standalone") completion time of a flow alone on its path,
 * in the spirit of the standalone_fct column of HPCC's fct.txt:
 *
 *   base_rtt = 2 x sum of link delays + sum over links of
 *              floor(payloadBytes x 8e9 / link rate)          [ns]
 *   standalone = base_rtt + floor(W x 8e9 / min link rate)   [ns]
 *
 * where W is the bytes the message occupies on the wire in this model
 * (RoceWire::MessageWireBytes: payload plus 58 bytes of headers per packet,
 * 16 more on the first, and 24 bytes of preamble, inter-frame gap and FCS
 * per frame). HPCC counts its own headers instead (payload plus its header
 * bytes without INT per packet); the rest is HPCC's formula.
 *
 * \param topo the fabric topology
 * \param path the links of the path, in order
 * \param bytes the message size
 * \param payloadBytes payload bytes per packet
 */
uint64_t HpccStandaloneFctNs(const FabricTopology& topo,
                             const std::vector<uint32_t>& path,
                             uint64_t bytes,
                             uint32_t payloadBytes);

} // namespace ns3

#endif /* HPCC_SCENARIO_H */
