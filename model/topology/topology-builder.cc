/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "topology-builder.h"

#include "ns3/object-factory.h"
#include "ns3/short-name-registry.h"
#include "ns3/string.h"

#include <cctype>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TopologyBuilder);

namespace
{

std::string
JoinNames(const std::vector<std::string>& names)
{
    std::string out;
    for (const std::string& n : names)
    {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

TypeId
KindTypeId(const std::string& kind)
{
    const std::map<std::string, TypeId> family =
        ShortNameRegistry::GetFamily(TopologyBuilder::GetTypeId());
    auto it = family.find(kind);
    if (it == family.end())
    {
        throw std::invalid_argument("unknown topology kind \"" + kind +
                                    "\" (known: " + JoinNames(TopologyBuilder::GetNames()) + ")");
    }
    return it->second;
}

/// The attribute of scenario key \p key: its first letter in upper case.
std::string
AttributeOf(std::string key)
{
    if (!key.empty())
    {
        key[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(key[0])));
    }
    return key;
}

/// The largest value of the unsigned C++ type a UintegerChecker names ("uint32_t").
uint64_t
TypeMax(const std::string& typeName)
{
    static const std::map<std::string, uint64_t> maxima{
        {"uint8_t", std::numeric_limits<uint8_t>::max()},
        {"uint16_t", std::numeric_limits<uint16_t>::max()},
        {"uint32_t", std::numeric_limits<uint32_t>::max()},
        {"uint64_t", std::numeric_limits<uint64_t>::max()}};
    auto it = maxima.find(typeName);
    return it == maxima.end() ? std::numeric_limits<uint64_t>::max() : it->second;
}

/// The key of \p info: its type and range as a scenario file gives them.
TopologyBuilder::Key
KeyOf(const TypeId& tid, const TypeId::AttributeInformation& info)
{
    TopologyBuilder::Key key;
    key.attribute = info.name;
    key.name = info.name;
    key.name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(key.name[0])));
    key.help = info.help;
    key.checker = info.checker;
    key.initial = info.originalInitialValue;
    const std::string valueType = info.checker->GetValueTypeName();
    if (valueType == "ns3::UintegerValue")
    {
        // "uint32_t 1:4294967295" (UintegerChecker's underlying type information)
        key.type = "integer";
        const std::string range = info.checker->GetUnderlyingTypeInformation();
        const std::string::size_type space = range.rfind(' ');
        const std::string::size_type colon = range.rfind(':');
        if (space == std::string::npos || colon == std::string::npos || colon < space)
        {
            throw std::logic_error(tid.GetName() + "::" + info.name +
                                   ": no range in its checker's type information '" + range + "'");
        }
        key.min = std::strtoull(range.c_str() + space + 1, nullptr, 10);
        key.max = std::strtoull(range.c_str() + colon + 1, nullptr, 10);
        key.openMax = key.max == TypeMax(range.substr(0, space));
    }
    else if (valueType == "ns3::DoubleValue")
    {
        key.type = "real";
    }
    else if (valueType == "DataRateValue" || valueType == "ns3::DataRateValue")
    {
        key.type = "rate";
    }
    else if (valueType == "ns3::TimeValue")
    {
        key.type = "time";
    }
    else if (valueType == "ns3::StringValue")
    {
        key.type = "string";
    }
    else if (valueType == "ns3::BooleanValue")
    {
        key.type = "flag";
    }
    else
    {
        throw std::logic_error(tid.GetName() + "::" + info.name + ": a " + valueType +
                               " has no scenario file form (use Uinteger, Double, DataRate, "
                               "Time, String or Boolean)");
    }
    return key;
}

} // namespace

TypeId
TopologyBuilder::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TopologyBuilder").SetParent<Object>().SetGroupName("CollectiveScheduling");
    return tid;
}

uint32_t
TopologyBuilder::GetGpusPerHost() const
{
    return 0;
}

std::string
TopologyBuilder::WhyGpusPerHost() const
{
    return "";
}

bool
TopologyBuilder::ReadsFile() const
{
    return false;
}

std::optional<Time>
TopologyBuilder::GetNvlinkLatency() const
{
    return std::nullopt;
}

std::string
TopologyBuilder::WhyRequired(const std::string& /* key */) const
{
    return "";
}

std::string
TopologyBuilder::CheckGiven(const std::string& /* key */, const AttributeValue& /* value */) const
{
    return "";
}

void
TopologyBuilder::SetKey(const std::string& key, const AttributeValue& value)
{
    SetAttribute(AttributeOf(key), value);
}

void
TopologyBuilder::GetKey(const std::string& key, AttributeValue& value) const
{
    GetAttribute(AttributeOf(key), value);
}

void
TopologyBuilder::SetPath(const std::string& path)
{
    m_path = path;
}

const std::string&
TopologyBuilder::GetPath() const
{
    return m_path;
}

std::vector<std::string>
TopologyBuilder::GetNames()
{
    return ShortNameRegistry::GetNames(GetTypeId());
}

Ptr<TopologyBuilder>
TopologyBuilder::Create(const std::string& kind)
{
    return ObjectFactory(KindTypeId(kind).GetName()).Create<TopologyBuilder>();
}

std::string
TopologyBuilder::BlockName(const std::string& kind)
{
    std::string block;
    bool upper = false;
    for (char c : kind)
    {
        if (c == '-')
        {
            upper = true;
            continue;
        }
        block += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return block;
}

std::vector<TopologyBuilder::Key>
TopologyBuilder::GetKeys(const std::string& kind)
{
    const TypeId tid = KindTypeId(kind);
    std::vector<Key> keys;
    // The class's own attributes only: a base class's are no block keys.
    for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        const TypeId::AttributeInformation info = tid.GetAttribute(i);
        if ((info.flags & TypeId::ATTR_CONSTRUCT) != 0)
        {
            keys.push_back(KeyOf(tid, info));
        }
    }
    return keys;
}

Ptr<const AttributeValue>
TopologyBuilder::CheckedValue(const std::string& kind,
                              const std::string& key,
                              const AttributeValue& value)
{
    const std::string field = "topology." + BlockName(kind) + "." + key;
    std::vector<std::string> names;
    for (const Key& k : GetKeys(kind))
    {
        if (k.name == key)
        {
            Ptr<AttributeValue> checked = k.checker->CreateValidValue(value);
            if (!checked)
            {
                const std::string given = value.SerializeToString(k.checker);
                throw std::invalid_argument(field + ": invalid value '" + given + "' (accepts " +
                                            (k.checker->HasUnderlyingTypeInformation()
                                                 ? k.checker->GetUnderlyingTypeInformation()
                                                 : k.checker->GetValueTypeName()) +
                                            ")");
            }
            return checked;
        }
        names.push_back(k.name);
    }
    throw std::invalid_argument(field + ": unknown key (known: " + JoinNames(names) + ")");
}

} // namespace ns3
