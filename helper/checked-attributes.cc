/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "checked-attributes.h"

#include "ns3/csv-fields.h"
#include "ns3/nstime.h"
#include "ns3/string.h"
#include "ns3/unit-strings.h"

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

/**
 * \p text read as a time exactly, in picoseconds: ns-3's own reader goes
 * through a double, so "1e30s" wraps to a value that passes range checks
 * refusing "10000000s". ns-3's notations stay valid: a leading '+' (as
 * TimeValue serializes), and a bare number, which it reads as seconds.
 * \return false if it is not a time or out of the clock's range
 */
bool
ReadTimeExactly(const std::string& text, Time& time)
{
    std::string t = TrimSpace(text);
    if (!t.empty() && t[0] == '+')
    {
        t.erase(0, 1);
    }
    if (!t.empty() && t.find_first_not_of("0123456789.eE+-") == std::string::npos)
    {
        t += "s";
    }
    try
    {
        time = PicoSeconds(ParseTimePs(t));
    }
    catch (const std::invalid_argument&)
    {
        return false;
    }
    return true;
}

} // namespace

Ptr<AttributeValue>
ParseAttributeValue(Ptr<const AttributeChecker> checker, const std::string& text)
{
    if (AbortsOnRead(checker->GetValueTypeName(), text))
    {
        return nullptr;
    }
    if (checker->GetValueTypeName() == "ns3::TimeValue")
    {
        Time time;
        return ReadTimeExactly(text, time) ? checker->CreateValidValue(TimeValue(time)) : nullptr;
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
