/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TOPOLOGY_BUILDER_H
#define TOPOLOGY_BUILDER_H

#include "fabric-topology.h"

#include "ns3/attribute.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/// The size of a fabric, predicted from a builder's attributes before anything is built.
struct TopologySize
{
    double hosts{0};    ///< fabric hosts (FabricTopology::GetNHosts)
    double switches{0}; ///< switches (FabricTopology::GetNSwitches)
    double links{0};    ///< fabric links (FabricTopology::GetNLinks)
    double other{0};    ///< other per-fabric state counted against the budget (NVLink pairs)

    /// Everything counted against ns3::InputLimits::MaxFabricElements.
    double Elements() const
    {
        return hosts + switches + links + other;
    }
};

/**
 * \ingroup collective-scheduling
 * \brief How a fabric is built: a family of classes found by short name
 * ("fat-tree", "leaf-spine", "lingjun", "rail-optimized", "star"), as
 * placement policies, collectives and schedulers are (ShortNameRegistry).
 *
 * A new topology is one class: a subclass with NS_OBJECT_SHORT_NAME whose
 * own attributes are its parameters. Its short name is then a valid
 * topology.kind, and its scenario block is named by the short name in
 * camel case ("fat-tree" -> topology.fatTree), with one key per attribute,
 * the attribute's name with a lower-case first letter ("HostRate" ->
 * hostRate). The reader reads each key by its attribute's value type
 * (Key::type) within its checker's range, and doc/scenario-format.md's
 * topology keys are generated from the same attributes
 * (ScenarioTopologyKeysDoc, checked by test/topology-family-test.cc).
 */
class TopologyBuilder : public Object
{
  public:
    static TypeId GetTypeId();

    /// One key of a kind's scenario block: an attribute of the builder's own class.
    struct Key
    {
        std::string name;      ///< the scenario key ("hostRate")
        std::string attribute; ///< the attribute ("HostRate")
        std::string help;      ///< the attribute's help text
        /// The value's type as a scenario file writes it: "integer" (Uinteger),
        /// "real" (Double), "rate" (DataRate, > 0), "time" (Time, >= 0),
        /// "string" or "flag" (Boolean).
        std::string type;
        uint64_t min{0};                     ///< integer: the checker's smallest value
        uint64_t max{0};                     ///< integer: the checker's largest value
        bool openMax{false};                 ///< integer: max is the largest of its C++ type
        Ptr<const AttributeChecker> checker; ///< the attribute's checker
        Ptr<const AttributeValue> initial;   ///< the attribute's default
    };

    /**
     * Build the fabric from the attributes.
     * \throw std::runtime_error for values that do not make a fabric
     */
    virtual FabricTopology Build() const = 0;

    /**
     * The fabric Build would make, counted from the attributes alone (in
     * doubles, so no product of counts wraps), or nothing for a fabric read
     * from a file (ReadsFile), whose size the file's bounds.
     */
    virtual std::optional<TopologySize> Estimate() const = 0;

    /// What the kind builds, in a sentence or two of Markdown (for the documentation).
    virtual std::string GetDescription() const = 0;

    /// GPUs per fabric host that the kind dictates; 0 if any number fits.
    virtual uint32_t GetGpusPerHost() const;

    /// Why the kind dictates GetGpusPerHost (for errors and the documentation).
    virtual std::string WhyGpusPerHost() const;

    /// Whether the fabric is read from a file: topology.path, given by SetPath.
    virtual bool ReadsFile() const;

    /**
     * The latency of an NVLink message between two GPUs of one server that
     * the topology gives (both hops, GPU -> NVSwitch -> GPU: a SimAI file's
     * NVSwitch links), if it gives one; none by default, the cluster's own
     * (TrainingCluster's NvlinkLatency). Reads the file of a kind that reads one.
     */
    virtual std::optional<Time> GetNvlinkLatency() const;

    /// Why scenario key \p key must be given when this kind is used; "" if it need not be.
    virtual std::string WhyRequired(const std::string& key) const;

    /**
     * Checks that the checker cannot make on a value a scenario gives for key
     * \p key (fat-tree's k is even).
     * \return "" if \p value is fine, else what is wrong with it
     */
    virtual std::string CheckGiven(const std::string& key, const AttributeValue& value) const;

    /// Set the attribute of scenario key \p key ("k": K) to \p value, checked beforehand.
    void SetKey(const std::string& key, const AttributeValue& value);
    /// Get the value of the attribute of scenario key \p key into \p value.
    void GetKey(const std::string& key, AttributeValue& value) const;

    /// The file the fabric is read from, when ReadsFile.
    void SetPath(const std::string& path);
    /// \return the path SetPath gave
    const std::string& GetPath() const;

    /// \return the short names of every builder, sorted: the valid topology kinds
    static std::vector<std::string> GetNames();

    /**
     * The builder of kind \p kind, with its attributes' defaults.
     * \throw std::invalid_argument "unknown topology kind "x" (known: ...)"
     */
    static Ptr<TopologyBuilder> Create(const std::string& kind);

    /// \return the scenario block of kind \p kind: its short name in camel case ("fatTree")
    static std::string BlockName(const std::string& kind);

    /**
     * \return the keys of kind \p kind's block, in the order its class
     *         declares its attributes \throw std::invalid_argument as Create
     */
    static std::vector<Key> GetKeys(const std::string& kind);

    /**
     * \p value checked for key \p key of kind \p kind's block.
     * \return a copy of the value as the key's attribute holds it
     * \throw std::invalid_argument for an unknown kind or key, or a value the
     *        attribute does not accept
     */
    static Ptr<const AttributeValue> CheckedValue(const std::string& kind,
                                                  const std::string& key,
                                                  const AttributeValue& value);

  private:
    std::string m_path;
};

} // namespace ns3

#endif /* TOPOLOGY_BUILDER_H */
