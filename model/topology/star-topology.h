/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STAR_TOPOLOGY_H
#define STAR_TOPOLOGY_H

#include "fabric-topology.h"
#include "topology-builder.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/// Parameters of a star: one switch with every host attached to it.
struct StarParams
{
    uint32_t hosts = 0;              ///< hosts on the switch
    uint64_t rateBps = 100000000000; ///< host - switch links
    int64_t delayNs = 1000;          ///< host - switch propagation delay
};

/**
 * \ingroup collective-scheduling
 * Build a star: switch "switch" (node 0, tier 1, rack 0), then hosts
 * "host-<i>" (rack 0), each linked to the switch, in host order.
 *
 * \param params the star's parameters
 * \return the topology
 */
FabricTopology MakeStar(const StarParams& params);

/**
 * \ingroup collective-scheduling
 * \brief Topology kind "star" (MakeStar); its attributes are the keys of a
 * scenario's topology.star block, where hosts is required.
 */
class StarBuilder : public TopologyBuilder
{
  public:
    static TypeId GetTypeId();

    FabricTopology Build() const override;
    std::optional<TopologySize> Estimate() const override;
    std::string GetDescription() const override;
    std::string WhyRequired(const std::string& key) const override;
    std::string CheckGiven(const std::string& key, const AttributeValue& value) const override;

    /// \return the attributes as MakeStar's parameters
    StarParams GetParams() const;

  private:
    uint32_t m_hosts;
    DataRate m_rate;
    Time m_delay;
};

} // namespace ns3

#endif /* STAR_TOPOLOGY_H */
