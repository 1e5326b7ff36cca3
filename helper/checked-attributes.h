/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CHECKED_ATTRIBUTES_H
#define CHECKED_ATTRIBUTES_H

#include "ns3/attribute.h"
#include "ns3/object-factory.h"
#include "ns3/type-id.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * The one way a value from outside the program (a flag, a scenario file, a
 * configuration file) becomes an ns-3 attribute value. ns-3 itself ends the
 * process (exit 134) for a value it cannot read or that is out of range;
 * these functions throw std::invalid_argument instead, with a message that
 * starts with \p where (the flag, "--mtu", or the file, line and field,
 * "run.json:12: fabric.mtu") and says what the attribute accepts.
 *
 * \param tid the type whose attribute (own or inherited) \p name is
 * \param text the value as written
 * \return the value, checked against the attribute's checker
 */
Ptr<AttributeValue> CheckedAttributeValue(TypeId tid,
                                          const std::string& name,
                                          const std::string& text,
                                          const std::string& where);

/// As above, for a value already typed (e.g. UintegerValue(mtu)): checks its range.
Ptr<AttributeValue> CheckedAttributeValue(TypeId tid,
                                          const std::string& name,
                                          const AttributeValue& value,
                                          const std::string& where);

/**
 * \return \p text read by \p checker, or null if it is not a valid value
 * (never ends the process, unlike ns-3's readers of numbers followed by text).
 */
Ptr<AttributeValue> ParseAttributeValue(Ptr<const AttributeChecker> checker,
                                        const std::string& text);

/// Set attribute \p name of \p factory's type from \p text, checked; \throw std::invalid_argument.
void SetCheckedAttribute(ObjectFactory& factory,
                         const std::string& name,
                         const std::string& text,
                         const std::string& where);

/**
 * \ingroup collective-scheduling
 * \brief Attribute defaults (Config::SetDefault) set for one run, checked,
 * and restored when the run ends: each run in a process starts from the
 * defaults the process had before it.
 */
class ScopedConfigDefaults
{
  public:
    ScopedConfigDefaults() = default;
    /// Restores every default this object set, to its value before.
    ~ScopedConfigDefaults();
    ScopedConfigDefaults(ScopedConfigDefaults&& other) noexcept;
    ScopedConfigDefaults& operator=(ScopedConfigDefaults&& other) noexcept;
    ScopedConfigDefaults(const ScopedConfigDefaults&) = delete;
    ScopedConfigDefaults& operator=(const ScopedConfigDefaults&) = delete;

    /**
     * Set the default of \p path ("ns3::Type::Attribute") to \p text.
     * \throw std::invalid_argument naming \p where for an unknown type or
     * attribute, or a value the attribute does not accept
     */
    void Set(const std::string& path, const std::string& text, const std::string& where);

    /// Restore the defaults now (the destructor then has nothing to do).
    void Restore();

  private:
    struct Saved
    {
        TypeId tid;
        std::size_t index;                  ///< the attribute's index in tid
        Ptr<const AttributeValue> previous; ///< its default before Set
    };

    std::vector<Saved> m_saved; ///< in the order set; restored in reverse
};

} // namespace ns3

#endif /* CHECKED_ATTRIBUTES_H */
