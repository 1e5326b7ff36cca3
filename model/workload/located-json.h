/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LOCATED_JSON_H
#define LOCATED_JSON_H

#include "ns3/unit-strings.h"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * A JSON document that knows the line of every key and value, with typed
 * accessors that report problems as "source:line: field.path: message".
 *
 * Parsing rejects duplicate keys (a DOM parser would silently collapse
 * them) and keeps object keys in file order. Syntax errors are reported as
 * "source:line: path: <parser message>" naming the innermost member or
 * container.
 */
class LocatedJson
{
  public:
    /// Containers nested deeper than this are an error (no input needs more).
    static constexpr uint32_t kMaxDepth = 256;

    /// The document type; objects keep their keys in file order.
    using Value = nlohmann::ordered_json;

    /// Lines of one JSON value; children parallel to the members or elements.
    struct Lines
    {
        uint32_t line{0};    ///< line of the value (of '{' or '[' for containers)
        uint32_t keyLine{0}; ///< line of the key, for object members
        std::vector<Lines> children;
    };

    /// A value of the document with its lines and field path.
    struct Node
    {
        const Value* json;
        const Lines* lines;
        std::string path;
    };

    /**
     * Parse \p text.
     * \param text the JSON text
     * \param source the name used in error messages (normally a file path)
     * \throw std::runtime_error "source:line: path: message" for malformed JSON
     *        or a duplicate key
     */
    LocatedJson(const std::string& text, std::string source);

    LocatedJson(const LocatedJson&) = delete;
    LocatedJson& operator=(const LocatedJson&) = delete;

    /// \return the top-level value, with an empty path
    Node Root() const;

    /// \return the source name given at construction
    const std::string& Source() const;

    /// Records the line of every value, keyed by field path ("jobs[0].model").
    void CollectLines(std::map<std::string, uint32_t>& out) const;

    /// Throws "source:line: path: message" at the line of \p node.
    [[noreturn]] void Fail(const Node& node, const std::string& message) const;

    /// Throws "source:line: path: message"; an empty path is left out.
    [[noreturn]] void FailAt(uint32_t line,
                             const std::string& path,
                             const std::string& message) const;

    /// An integer in [min, max].
    uint64_t Unsigned(const Node& n, uint64_t min, uint64_t max) const;
    /// An integer in [min, 2^32 - 1].
    uint32_t Uint32(const Node& n, uint32_t min = 0) const;
    /// Any number.
    double Number(const Node& n) const;
    /// A number >= 0.
    double NonNegative(const Node& n) const;
    /// A number > 0.
    double Positive(const Node& n) const;
    /// true or false.
    bool Bool(const Node& n) const;
    /// A string, non-empty unless \p allowEmpty.
    std::string String(const Node& n, bool allowEmpty = false) const;
    /// A time string (see ParseTimeNs), in nanoseconds.
    int64_t TimeNs(const Node& n) const;
    /// A time string with a positive value, in nanoseconds.
    int64_t PositiveTimeNs(const Node& n) const;
    /// A positive rate string (see ParseRateBps), in bits per second.
    uint64_t RateBps(const Node& n) const;

    /// The members of an object whose keys are data (names, sizes), in file order.
    std::vector<std::pair<std::string, Node>> Members(const Node& n) const;
    /// The elements of an array value.
    std::vector<Node> Elements(const Node& n) const;

    /// What a value is, for "expected X, got Y" messages.
    static std::string Describe(const Value& j);
    /// \p items separated by ", ".
    static std::string Join(const std::vector<std::string>& items);
    /// Path of member \p key of the value at \p parent.
    static std::string ChildPath(const std::string& parent, const std::string& key);
    /// Path of element \p index of the array at \p parent.
    static std::string ElementPath(const std::string& parent, size_t index);

  private:
    std::string m_source;
    Value m_root;
    Lines m_rootLines;
};

/// An object whose keys have been checked against a list of known keys.
class LocatedJsonObject
{
  public:
    using Node = LocatedJson::Node;

    /**
     * \param doc the document, for error reporting
     * \param node the value, which must be an object
     * \param known the keys it may have; any other key is an error at its line
     */
    LocatedJsonObject(const LocatedJson& doc,
                      const Node& node,
                      std::initializer_list<const char*> known);

    /// As above, with the known keys in a vector.
    LocatedJsonObject(const LocatedJson& doc, const Node& node, std::vector<std::string> known);

    /// \return whether the object has member \p key
    bool Has(const std::string& key) const;

    /// The member \p key; the caller checked Has(key).
    Node Get(const std::string& key) const;

    /// The member \p key, or an error at this object's line saying why it is required.
    Node Require(const std::string& key, const std::string& why) const;

    /// Calls \p f with the member \p key if it is present.
    template <typename F>
    void With(const std::string& key, F&& f) const
    {
        if (Has(key))
        {
            f(Get(key));
        }
    }

  private:
    const LocatedJson& m_doc;
    Node m_node;
    std::vector<std::string> m_known;
};

} // namespace ns3

#endif /* LOCATED_JSON_H */
