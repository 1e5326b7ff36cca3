/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FABRIC_HELPER_H
#define ROCE_FABRIC_HELPER_H

#include "ns3/object-factory.h"
#include "ns3/roce-fabric.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Installs a RoceFabric: one ns-3 node per topology node, a
 * RoceNetDevice pair and RoceChannel per link (parallel links stay
 * distinct), an RdmaNic on every host and a RoceSwitch with its SwitchMmu
 * on every switch, with ECMP routes for all of them.
 *
 * Attributes of every component are set through the helper, as with other
 * ns-3 helpers, or with Config::SetDefault.
 */
class RoceFabricHelper
{
  public:
    RoceFabricHelper();

    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    void SetNicAttribute(const std::string& name, const AttributeValue& value);
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    void SetMmuAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Congestion control of every queue pair: the short name an
     * RdmaCongestionOps class registered ("none", "dcqcn", "mltcp-dcqcn":
     * GetCongestionControlNames) or its TypeId name, optionally followed by
     * attribute values in ObjectFactory syntax:
     * "ns3::MltcpDcqcn[Slope=1.5|Intercept=0.5]", "dcqcn[ByteCounter=10000]".
     * For ns3::Dcqcn and its subclasses, the item "profile=NAME" selects a
     * named parameter set (Dcqcn::GetProfile: "connectx", the default, or
     * "hpcc") and the other items override it wherever they are written:
     * "dcqcn[profile=hpcc|ByteCounter=10000]".
     * \throw std::invalid_argument for an unknown name, attribute, value or
     *        profile
     */
    void SetCongestionControl(const std::string& spec);

    /**
     * The factory SetCongestionControl makes of \p spec: its type and
     * attribute values, a profile expanded before the explicit values.
     * \throw std::invalid_argument as SetCongestionControl
     */
    static ObjectFactory ParseCongestionControl(const std::string& spec);

    /// \return the short names of every registered congestion control, sorted
    static std::vector<std::string> GetCongestionControlNames();

    /// Seed mixed into every switch's ECMP hash seed.
    void SetEcmpSeed(uint32_t seed)
    {
        m_ecmpSeed = seed;
    }

    /**
     * How the switches' routes are keyed: per destination prefix (edge
     * switch), the default, or per destination host, the reference with the
     * same next hops (EcmpRoutes::Keying). Faults reroute with the same.
     */
    void SetRouteKeying(EcmpRoutes::Keying keying)
    {
        m_routeKeying = keying;
    }

    /**
     * Build the fabric. Hosts must have exactly one link (one NIC port).
     * Requires picosecond time resolution (see RoceUsePicoseconds). In a
     * distributed run (EnableDistributedSimulation) the nodes are shared out
     * over the ranks by PartitionFabric and links between ranks are
     * RoceRemoteChannels.
     */
    Ptr<RoceFabric> Install(const FabricTopology& topology) const;

  private:
    ObjectFactory m_deviceFactory;
    ObjectFactory m_nicFactory;
    ObjectFactory m_switchFactory;
    ObjectFactory m_mmuFactory;
    ObjectFactory m_ccFactory; ///< set by SetCongestionControl: type and attribute values
    uint32_t m_ecmpSeed{1};
    EcmpRoutes::Keying m_routeKeying{EcmpRoutes::Keying::PerPrefix};
};

/**
 * Switch ns-3 to picosecond time resolution, which a 100-400 Gb/s port
 * needs (one byte lasts 20-80 ps). Call first in main(); harmless if the
 * resolution is already picoseconds.
 */
void RoceUsePicoseconds();

} // namespace ns3

#endif /* ROCE_FABRIC_HELPER_H */
