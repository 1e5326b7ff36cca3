/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SHORT_NAME_REGISTRY_H
#define SHORT_NAME_REGISTRY_H

#include "ns3/type-id.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Short names of classes, keyed by TypeId: how collectives
 * ("ring-all-reduce"), congestion controls ("dcqcn") and schedulers
 * ("fair") are found from a flag or a scenario file.
 *
 * A class gives itself its short name next to its registration:
 * \code
 *   NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);
 *   NS_OBJECT_SHORT_NAME(RingAllReduce, "ring-all-reduce");
 * \endcode
 * A family is every registered class with a constructor that derives from
 * the family's base TypeId (TypeId::GetRegistered) and has a short name, so
 * adding a class to a family touches only its own files: no list of names
 * is kept anywhere else. Within a family short names must be unique.
 */
class ShortNameRegistry
{
  public:
    /**
     * Give \p tid the short name \p name (NS_OBJECT_SHORT_NAME does, at
     * static initialization). Giving one TypeId the same name again does
     * nothing; a different name is reported by every lookup in its families.
     */
    static void Add(TypeId tid, const std::string& name);

    /// \return the short name \p tid gave itself, or "" if none
    static std::string Get(TypeId tid);

    /**
     * \return short name -> TypeId of every class of the family of \p base
     *         (\p base itself included if it has a constructor and a short name)
     * \throw std::logic_error if two classes of the family share a short name
     *        or a class has two, naming them
     */
    static std::map<std::string, TypeId> GetFamily(TypeId base);

    /// \return the short names of the family of \p base, sorted \throw as GetFamily
    static std::vector<std::string> GetNames(TypeId base);

    /// \return the short names of the family of \p base, sorted, joined by ", "
    static std::string ListNames(TypeId base);

    /**
     * Find a class of the family of \p base by short name, or by TypeId name
     * (any class of the family with a constructor, short-named or not).
     * \param what the family's name in the error message ("collective", "scheduler")
     * \return the class's TypeId
     * \throw std::invalid_argument "unknown <what> '<name>' (known: <short names>)"
     */
    static TypeId Lookup(TypeId base, const std::string& name, const std::string& what);

    /// \return as Lookup, but false instead of an error
    static bool LookupFailSafe(TypeId base, const std::string& name, TypeId* tid);
};

} // namespace ns3

/**
 * \ingroup collective-scheduling
 * Give class \p type (in the current namespace, like
 * NS_OBJECT_ENSURE_REGISTERED) the short name \p name (a string literal).
 */
#define NS_OBJECT_SHORT_NAME(type, name)                                                           \
    static struct type##ShortNameRegistration                                                      \
    {                                                                                              \
        type##ShortNameRegistration()                                                              \
        {                                                                                          \
            ns3::ShortNameRegistry::Add(type::GetTypeId(), name);                                  \
        }                                                                                          \
    } g_##type##ShortNameRegistration

#endif /* SHORT_NAME_REGISTRY_H */
