/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "checked-attributes.h"

#include "ns3/string.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/**
 * ns-3's readers of doubles and integers end the process (NS_ABORT) when
 * text follows the number ("1.5x"); tell those values apart first.
 */
bool
AbortsOnRead(const std::string& valueType, const std::string& value)
{
    std::istringstream in(value);
    if (valueType == "ns3::DoubleValue")
    {
        double v;
        in >> v;
    }
    else if (valueType == "ns3::UintegerValue")
    {
        uint64_t v;
        in >> v;
    }
    else if (valueType == "ns3::IntegerValue")
    {
        int64_t v;
        in >> v;
    }
    else
    {
        return false;
    }
    return !in.eof();
}

TypeId::AttributeInformation
FindAttribute(TypeId tid, const std::string& name, const std::string& where)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        std::string known;
        for (TypeId t = tid;; t = t.GetParent())
        {
            for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
            {
                known += (known.empty() ? "" : ", ") + t.GetAttribute(i).name;
            }
            if (t == t.GetParent())
            {
                break;
            }
        }
        throw std::invalid_argument(where + ": " + tid.GetName() + " has no attribute '" + name +
                                    "' (it has: " + (known.empty() ? "none" : known) + ")");
    }
    return info;
}

std::string
Accepted(const TypeId::AttributeInformation& info)
{
    const std::string range = info.checker->GetUnderlyingTypeInformation();
    return range.empty() ? info.checker->GetValueTypeName() : range;
}

} // namespace

Ptr<AttributeValue>
ParseAttributeValue(Ptr<const AttributeChecker> checker, const std::string& text)
{
    if (AbortsOnRead(checker->GetValueTypeName(), text))
    {
        return nullptr;
    }
    return checker->CreateValidValue(StringValue(text));
}

Ptr<AttributeValue>
CheckedAttributeValue(TypeId tid,
                      const std::string& name,
                      const std::string& text,
                      const std::string& where)
{
    const TypeId::AttributeInformation info = FindAttribute(tid, name, where);
    Ptr<AttributeValue> v = ParseAttributeValue(info.checker, text);
    if (!v)
    {
        throw std::invalid_argument(where + ": invalid value '" + text + "' for " + tid.GetName() +
                                    "::" + name + " (accepts " + Accepted(info) + ")");
    }
    return v;
}

Ptr<AttributeValue>
CheckedAttributeValue(TypeId tid,
                      const std::string& name,
                      const AttributeValue& value,
                      const std::string& where)
{
    const TypeId::AttributeInformation info = FindAttribute(tid, name, where);
    Ptr<AttributeValue> v = info.checker->CreateValidValue(value);
    if (!v)
    {
        throw std::invalid_argument(
            where + ": invalid value '" + value.SerializeToString(info.checker) + "' for " +
            tid.GetName() + "::" + name + " (accepts " + Accepted(info) + ")");
    }
    return v;
}

void
SetCheckedAttribute(ObjectFactory& factory,
                    const std::string& name,
                    const std::string& text,
                    const std::string& where)
{
    factory.Set(name, *CheckedAttributeValue(factory.GetTypeId(), name, text, where));
}

ScopedConfigDefaults::~ScopedConfigDefaults()
{
    Restore();
}

ScopedConfigDefaults::ScopedConfigDefaults(ScopedConfigDefaults&& other) noexcept
    : m_saved(std::move(other.m_saved))
{
    other.m_saved.clear();
}

ScopedConfigDefaults&
ScopedConfigDefaults::operator=(ScopedConfigDefaults&& other) noexcept
{
    if (this != &other)
    {
        Restore();
        m_saved = std::move(other.m_saved);
        other.m_saved.clear();
    }
    return *this;
}

void
ScopedConfigDefaults::Set(const std::string& path,
                          const std::string& text,
                          const std::string& where)
{
    const std::string::size_type split = path.rfind("::");
    TypeId tid;
    if (split == std::string::npos || split == 0 ||
        !TypeId::LookupByNameFailSafe(path.substr(0, split), &tid))
    {
        throw std::invalid_argument(where + ": '" + path +
                                    "' names no attribute (expected ns3::Type::Attribute of a "
                                    "registered type)");
    }
    const std::string name = path.substr(split + 2);
    // As Config::SetDefault: a default belongs to the type that declares the attribute.
    for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        if (tid.GetAttribute(i).name == name)
        {
            Ptr<AttributeValue> v = CheckedAttributeValue(tid, name, text, where);
            m_saved.push_back({tid, i, tid.GetAttribute(i).initialValue});
            tid.SetAttributeInitialValue(i, v);
            return;
        }
    }
    FindAttribute(tid, name, where); // throws if no type declares it
    TypeId owner = tid;
    for (TypeId t = tid.GetParent(); t != owner; owner = t, t = t.GetParent())
    {
        for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
        {
            if (t.GetAttribute(i).name == name)
            {
                throw std::invalid_argument(where + ": " + name + " is declared by " + t.GetName() +
                                            ", not " + tid.GetName() + ": write " + t.GetName() +
                                            "::" + name);
            }
        }
    }
    throw std::invalid_argument(where + ": " + tid.GetName() + " declares no attribute " + name);
}

void
ScopedConfigDefaults::Restore()
{
    for (auto it = m_saved.rbegin(); it != m_saved.rend(); ++it)
    {
        it->tid.SetAttributeInitialValue(it->index, it->previous);
    }
    m_saved.clear();
}

} // namespace ns3
