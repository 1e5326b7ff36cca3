/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "short-name-registry.h"

#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// What classes gave themselves, in the order they did.
struct Registrations
{
    std::map<uint16_t, std::string> names;               ///< TypeId uid -> short name
    std::vector<std::pair<TypeId, std::string>> clashes; ///< a class's further, different names
};

/// Built on first use, so that classes of any translation unit may register
/// during static initialization.
Registrations&
GetRegistrations()
{
    static Registrations r;
    return r;
}

bool
InFamily(TypeId tid, TypeId base)
{
    return tid == base || tid.IsChildOf(base);
}

} // namespace

void
ShortNameRegistry::Add(TypeId tid, const std::string& name)
{
    Registrations& r = GetRegistrations();
    auto [it, added] = r.names.emplace(tid.GetUid(), name);
    if (!added && it->second != name)
    {
        r.clashes.emplace_back(tid, name);
    }
}

std::string
ShortNameRegistry::Get(TypeId tid)
{
    const Registrations& r = GetRegistrations();
    auto it = r.names.find(tid.GetUid());
    return it == r.names.end() ? "" : it->second;
}

std::map<std::string, TypeId>
ShortNameRegistry::GetFamily(TypeId base)
{
    const Registrations& r = GetRegistrations();
    for (const auto& [tid, name] : r.clashes)
    {
        if (InFamily(tid, base))
        {
            throw std::logic_error(tid.GetName() + " has two short names: '" +
                                   r.names.at(tid.GetUid()) + "' and '" + name + "'");
        }
    }
    std::map<std::string, TypeId> family;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        auto name = r.names.find(tid.GetUid());
        if (name == r.names.end() || !tid.HasConstructor() || !InFamily(tid, base))
        {
            continue;
        }
        auto [it, added] = family.emplace(name->second, tid);
        if (!added)
        {
            throw std::logic_error("short name '" + name->second + "' is given to both " +
                                   it->second.GetName() + " and " + tid.GetName() +
                                   " (classes of " + base.GetName() + ")");
        }
    }
    return family;
}

std::vector<std::string>
ShortNameRegistry::GetNames(TypeId base)
{
    std::vector<std::string> names;
    for (const auto& entry : GetFamily(base))
    {
        names.push_back(entry.first);
    }
    return names;
}

std::string
ShortNameRegistry::ListNames(TypeId base)
{
    std::string list;
    for (const std::string& name : GetNames(base))
    {
        list += (list.empty() ? "" : ", ") + name;
    }
    return list;
}

bool
ShortNameRegistry::LookupFailSafe(TypeId base, const std::string& name, TypeId* tid)
{
    const std::map<std::string, TypeId> family = GetFamily(base);
    auto it = family.find(name);
    if (it != family.end())
    {
        *tid = it->second;
        return true;
    }
    TypeId byTypeName;
    if (TypeId::LookupByNameFailSafe(name, &byTypeName) && byTypeName.HasConstructor() &&
        InFamily(byTypeName, base))
    {
        *tid = byTypeName;
        return true;
    }
    return false;
}

TypeId
ShortNameRegistry::Lookup(TypeId base, const std::string& name, const std::string& what)
{
    TypeId tid;
    if (!LookupFailSafe(base, name, &tid))
    {
        throw std::invalid_argument("unknown " + what + " '" + name +
                                    "' (known: " + ListNames(base) + ")");
    }
    return tid;
}

} // namespace ns3
