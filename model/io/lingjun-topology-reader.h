/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LINGJUN_TOPOLOGY_READER_H
#define LINGJUN_TOPOLOGY_READER_H

#include "ns3/data-rate.h"
#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"
#include "ns3/topology-builder.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * Parameters of a fabric built from the Alibaba Lingjun 2023 topology file.
 *
 * The file names switch groups, not physical switches, so the number of
 * aggregation and core switches per group is a modelling choice made here.
 */
struct LingjunParams
{
    uint32_t aggPerPod = 4;                 ///< aggregation switches per PSW group, >= 1
    uint32_t coresPerDsw = 4;               ///< core switches per DSW group, >= 1
    uint64_t hostRateBps = 100000000000;    ///< host - ToR links
    uint64_t torAggRateBps = 100000000000;  ///< ToR - aggregation links
    uint64_t aggCoreRateBps = 100000000000; ///< aggregation - core links
    int64_t hostDelayNs = 1000;             ///< host - ToR propagation delay
    int64_t torAggDelayNs = 1000;           ///< ToR - aggregation propagation delay
    int64_t aggCoreDelayNs = 1000;          ///< aggregation - core propagation delay
};

/**
 * \ingroup collective-scheduling
 * Read the topology file (topo.csv) of the public Alibaba GPU Cluster
 * Dataset 2023 (github.com/alibaba/alibaba-lingjun-dataset-2023) into a
 * three-tier fabric.
 *
 * Format: a header line `ip,DSW,PSW,ASW`, then one row per host: a blinded
 * host address, its core group (DSW), its aggregation group or pod (PSW) and
 * its ToR (ASW). ASW names are local to their PSW, so a ToR is the pair
 * (PSW, ASW). Fields are separated by commas without quoting; spaces around
 * fields, blank lines and CRLF line ends are tolerated.
 *
 * Modelling assumptions (the file says nothing about them):
 * - each host has one link, to its ToR (tier 1);
 * - each PSW group is a pod of aggPerPod aggregation switches (tier 2), and
 *   every ToR of the group links to each of them;
 * - each DSW group has coresPerDsw core switches (tier 3), and every
 *   aggregation switch of a pod links to each core of the pod's DSW group;
 *   a PSW group must therefore belong to exactly one DSW group;
 * - all links of a tier share one rate and delay from LingjunParams.
 *
 * Numbering, deterministic for a given file: groups and ToRs are ordered
 * by name with embedded numbers compared numerically ("P8" < "P10"); hosts
 * are ordered by (PSW, ASW, row order) and get node ids 0..H-1 equal to
 * their host index; then come the ToRs (rack = ToR index), the
 * aggregation switches pod by pod, and the cores DSW by DSW. A host is
 * named by the first 12 characters of its ip (the full ip if that prefix
 * is taken); switches "tor-<PSW>-<ASW>", "agg-<PSW>-<i>", "core-<DSW>-<i>".
 * Pod = PSW index for hosts, ToRs and aggregation switches, -1 for cores.
 *
 * \param path the CSV file
 * \param params switch counts per group, rates and delays
 * \return the validated topology
 * \throw std::runtime_error "path:line: field: message" for a wrong header,
 *        a wrong field count, an empty field, a duplicate ip, a PSW group
 *        under two DSW groups or a file without rows; "path: file: ..."
 *        for a file that cannot be opened
 */
FabricTopology ReadLingjunTopology(const std::string& path, const LingjunParams& params);

/**
 * \ingroup collective-scheduling
 * \brief Topology kind "lingjun" (ReadLingjunTopology of the file SetPath
 * gives: a scenario's topology.path); its attributes are the keys of a
 * scenario's topology.lingjun block.
 */
class LingjunBuilder : public TopologyBuilder
{
  public:
    static TypeId GetTypeId();

    FabricTopology Build() const override;
    std::optional<TopologySize> Estimate() const override;
    std::string GetDescription() const override;
    bool ReadsFile() const override;

    /// \return the attributes as ReadLingjunTopology's parameters
    LingjunParams GetParams() const;

  private:
    uint32_t m_aggPerPod;
    uint32_t m_coresPerDsw;
    DataRate m_hostRate;
    DataRate m_torAggRate;
    DataRate m_aggCoreRate;
    Time m_hostDelay;
    Time m_torAggDelay;
    Time m_aggCoreDelay;
};

} // namespace ns3

#endif /* LINGJUN_TOPOLOGY_READER_H */
