/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-reader.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

// ------------------------------------------------------------ number strings

// 128 bits keep unit scaling exact; __extension__ keeps -Wpedantic quiet.
__extension__ typedef unsigned __int128 Uint128;

/// A decimal number split into an integer mantissa and a power of ten.
struct Decimal
{
    Uint128 mantissa{0};
    int exp10{0};
};

/**
 * Parse the unsigned decimal number at the start of \p s ("12", "1.5",
 * "2e-3"); \p pos is left at the first character after it. Mantissas keep
 * at most 24 significant digits, so scaling them by a unit stays exact in
 * 128 bits.
 */
Decimal
ParseDecimal(const std::string& s, size_t& pos)
{
    if (pos < s.size() && s[pos] == '-')
    {
        throw std::invalid_argument("must not be negative");
    }
    std::string digits;
    int exp10 = 0;
    bool any = false;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
    {
        digits += s[pos++];
        any = true;
    }
    if (pos < s.size() && s[pos] == '.')
    {
        ++pos;
        while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
        {
            digits += s[pos++];
            --exp10;
            any = true;
        }
    }
    if (!any)
    {
        throw std::invalid_argument("expected a number");
    }
    // An exponent: 'e' never starts a unit, so "e" + digits is unambiguous.
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E'))
    {
        size_t p = pos + 1;
        bool negative = false;
        if (p < s.size() && (s[p] == '+' || s[p] == '-'))
        {
            negative = s[p] == '-';
            ++p;
        }
        if (p >= s.size() || !std::isdigit(static_cast<unsigned char>(s[p])))
        {
            throw std::invalid_argument("malformed exponent");
        }
        int e = 0;
        while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p])))
        {
            e = std::min(e * 10 + (s[p] - '0'), 100000);
            ++p;
        }
        exp10 += negative ? -e : e;
        pos = p;
    }
    // Drop leading zeros, move trailing zeros into the exponent.
    size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos)
    {
        return Decimal{};
    }
    digits.erase(0, first);
    while (digits.back() == '0')
    {
        digits.pop_back();
        ++exp10;
    }
    if (digits.size() > 24)
    {
        throw std::invalid_argument("too many significant digits");
    }
    Decimal d;
    for (char c : digits)
    {
        d.mantissa = d.mantissa * 10 + static_cast<unsigned>(c - '0');
    }
    d.exp10 = exp10;
    return d;
}

/**
 * d x multiplier x 10^unitExp10 as an exact integer no larger than \p max.
 * \p what names the unit of the result in the error ("nanoseconds").
 */
uint64_t
ScaleExact(const Decimal& d, uint64_t multiplier, int unitExp10, uint64_t max, const char* what)
{
    Uint128 v = d.mantissa * multiplier;
    int e = d.exp10 + unitExp10;
    if (v == 0)
    {
        return 0;
    }
    for (; e > 0; --e)
    {
        if (v > max / 10)
        {
            throw std::invalid_argument("too large");
        }
        v *= 10;
    }
    for (; e < 0; ++e)
    {
        if (v % 10 != 0)
        {
            throw std::invalid_argument(std::string("not a whole number of ") + what);
        }
        v /= 10;
    }
    if (v > max)
    {
        throw std::invalid_argument("too large");
    }
    return static_cast<uint64_t>(v);
}

std::string
TrimSpaces(const std::string& s)
{
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
    {
        return "";
    }
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

// -------------------------------------------------------------- JSON + lines

using Json = nlohmann::ordered_json;

/// Lines of one JSON value; children parallel to the members or elements.
struct LineNode
{
    uint32_t line{0};    ///< line of the value (of '{' or '[' for containers)
    uint32_t keyLine{0}; ///< line of the key, for object members
    std::vector<LineNode> children;
};

/**
 * An input iterator over the text that publishes how far the parser has
 * read, so each SAX event can be given the line it happened on.
 */
struct TrackingIterator
{
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    const char* pos;
    const char** cursor;

    reference operator*() const
    {
        return *pos;
    }

    TrackingIterator& operator++()
    {
        ++pos;
        *cursor = pos;
        return *this;
    }

    TrackingIterator operator++(int)
    {
        TrackingIterator old = *this;
        ++*this;
        return old;
    }

    bool operator==(const TrackingIterator& other) const
    {
        return pos == other.pos;
    }

    bool operator!=(const TrackingIterator& other) const
    {
        return pos != other.pos;
    }
};

std::string
ChildPath(const std::string& parent, const std::string& key)
{
    return parent.empty() ? key : parent + "." + key;
}

std::string
ElementPath(const std::string& parent, size_t index)
{
    return parent + "[" + std::to_string(index) + "]";
}

/**
 * SAX handler that builds the document (keys in file order) and, in
 * parallel, the line of every key and value. It rejects duplicate keys,
 * which a DOM parser would silently collapse.
 *
 * Line of an event: the parser reports a token as soon as it has read it,
 * so the characters read so far end with the token, except after a number,
 * whose end the lexer only sees by reading one character past it.
 */
class LineTrackingSax
{
  public:
    using number_integer_t = Json::number_integer_t;
    using number_unsigned_t = Json::number_unsigned_t;
    using number_float_t = Json::number_float_t;
    using string_t = Json::string_t;
    using binary_t = Json::binary_t;

    LineTrackingSax(const std::string& text, const char* const* cursor)
        : m_text(text),
          m_cursor(cursor)
    {
    }

    bool null()
    {
        return Add(Json(nullptr), TokenLine(false), false);
    }

    bool boolean(bool value)
    {
        return Add(Json(value), TokenLine(false), false);
    }

    bool number_integer(number_integer_t value)
    {
        return Add(Json(value), TokenLine(true), false);
    }

    bool number_unsigned(number_unsigned_t value)
    {
        return Add(Json(value), TokenLine(true), false);
    }

    bool number_float(number_float_t value, const string_t& /* text */)
    {
        return Add(Json(value), TokenLine(true), false);
    }

    bool string(string_t& value)
    {
        return Add(Json(value), TokenLine(false), false);
    }

    bool binary(binary_t& /* value */)
    {
        return true; // JSON text has no binary values
    }

    bool start_object(std::size_t /* elements */)
    {
        return Add(Json::object(), TokenLine(false), true);
    }

    bool key(string_t& key)
    {
        Json& object = *m_stack.back();
        const std::string path = ChildPath(m_paths.back(), key);
        const uint32_t line = TokenLine(false);
        if (object.contains(key))
        {
            return Error(line, path, "duplicate key");
        }
        m_member = &object[key];
        m_lineStack.back()->children.push_back(LineNode{0, line, {}});
        m_memberLines = &m_lineStack.back()->children.back();
        m_memberPath = path;
        m_awaitingValue = true;
        return true;
    }

    bool end_object()
    {
        Pop();
        return true;
    }

    bool start_array(std::size_t /* elements */)
    {
        return Add(Json::array(), TokenLine(false), true);
    }

    bool end_array()
    {
        Pop();
        return true;
    }

    bool parse_error(std::size_t position,
                     const std::string& /* lastToken */,
                     const nlohmann::detail::exception& ex)
    {
        // position counts the characters read, the offending one included.
        uint32_t line;
        if (position == 0)
        {
            line = 1;
        }
        else if (position - 1 < m_text.size())
        {
            line = LineOfOffset(position - 1);
        }
        else
        {
            // At the end of the input: blame the last line with content.
            size_t last = m_text.find_last_not_of(" \t\r\n");
            line = last == std::string::npos ? 1 : LineOfOffset(last);
        }
        // Keep nlohmann's description, drop its id and its own position.
        std::string what = ex.what();
        static const std::regex prefix(
            R"(^\[json\.exception\.[a-z_]+\.\d+\] *(parse error)?( at line \d+, column \d+)?: *)");
        what = std::regex_replace(what, prefix, "");
        // Inside a member's value, name the member; else the enclosing container.
        const std::string path =
            m_awaitingValue ? m_memberPath : (m_paths.empty() ? "" : m_paths.back());
        return Error(line, path, what);
    }

    bool Failed() const
    {
        return m_failed;
    }

    uint32_t m_errorLine{0};
    std::string m_errorPath;
    std::string m_errorMessage;
    Json m_root;
    LineNode m_rootLines;

  private:
    /// Line of the token just read; \p number: one character was read past it.
    uint32_t TokenLine(bool number)
    {
        size_t consumed = static_cast<size_t>(*m_cursor - m_text.data());
        if (number && consumed > 0)
        {
            --consumed;
        }
        // The token's last character is at consumed - 1; count the newlines before it.
        return LineOfOffset(consumed == 0 ? 0 : consumed - 1);
    }

    /// 1-based line of the character at \p offset; offsets come in increasing order.
    uint32_t LineOfOffset(size_t offset)
    {
        offset = std::min(offset, m_text.size());
        if (offset < m_countedTo)
        {
            m_countedTo = 0;
            m_newlines = 0;
        }
        m_newlines += std::count(m_text.begin() + m_countedTo, m_text.begin() + offset, '\n');
        m_countedTo = offset;
        return static_cast<uint32_t>(m_newlines + 1);
    }

    bool Add(Json value, uint32_t line, bool container)
    {
        Json* target;
        LineNode* lines;
        std::string path;
        m_awaitingValue = false;
        if (m_stack.empty())
        {
            m_root = std::move(value);
            m_rootLines.line = line;
            m_rootLines.keyLine = line;
            target = &m_root;
            lines = &m_rootLines;
        }
        else if (m_stack.back()->is_array())
        {
            Json& array = *m_stack.back();
            path = ElementPath(m_paths.back(), array.size());
            array.push_back(std::move(value));
            m_lineStack.back()->children.push_back(LineNode{line, line, {}});
            target = &array.back();
            lines = &m_lineStack.back()->children.back();
        }
        else
        {
            *m_member = std::move(value);
            m_memberLines->line = line;
            target = m_member;
            lines = m_memberLines;
            path = m_memberPath;
        }
        if (container)
        {
            m_stack.push_back(target);
            m_lineStack.push_back(lines);
            m_paths.push_back(path);
        }
        return true;
    }

    void Pop()
    {
        m_stack.pop_back();
        m_lineStack.pop_back();
        m_paths.pop_back();
    }

    bool Error(uint32_t line, const std::string& path, const std::string& message)
    {
        m_failed = true;
        m_errorLine = line;
        m_errorPath = path;
        m_errorMessage = message;
        return false;
    }

    const std::string& m_text;
    const char* const* m_cursor;
    size_t m_countedTo{0};
    size_t m_newlines{0};
    std::vector<Json*> m_stack;
    std::vector<LineNode*> m_lineStack;
    std::vector<std::string> m_paths;
    Json* m_member{nullptr};
    LineNode* m_memberLines{nullptr};
    std::string m_memberPath;
    bool m_awaitingValue{false}; ///< a key was read, its value not yet
    bool m_failed{false};
};

[[noreturn]] void
Fail(const std::string& source, uint32_t line, const std::string& path, const std::string& message)
{
    throw std::runtime_error(source + ":" + std::to_string(line) + ": " +
                             (path.empty() ? "" : path + ": ") + message);
}

// ------------------------------------------------------------ typed walking

/// A value of the document with its lines and field path.
struct Node
{
    const Json* json;
    const LineNode* lines;
    std::string path;
};

/// What a value is, for "expected X, got Y" messages.
std::string
Describe(const Json& j)
{
    switch (j.type())
    {
    case Json::value_t::null:
        return "null";
    case Json::value_t::boolean:
        return j.get<bool>() ? "true" : "false";
    case Json::value_t::string: {
        std::string s = j.get<std::string>();
        if (s.size() > 40)
        {
            s = s.substr(0, 37) + "...";
        }
        return "string " + Json(s).dump();
    }
    case Json::value_t::object:
        return "an object";
    case Json::value_t::array:
        return "an array";
    default:
        return "number " + j.dump();
    }
}

std::string
Join(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& item : items)
    {
        out += (out.empty() ? "" : ", ") + item;
    }
    return out;
}

/// Reads values of one document and reports problems as "source:line: path: message".
class Walker
{
  public:
    explicit Walker(std::string source)
        : m_source(std::move(source))
    {
    }

    [[noreturn]] void Fail(const Node& node, const std::string& message) const
    {
        ns3::Fail(m_source, node.lines->line, node.path, message);
    }

    [[noreturn]] void FailAt(uint32_t line,
                             const std::string& path,
                             const std::string& message) const
    {
        ns3::Fail(m_source, line, path, message);
    }

    uint64_t Unsigned(const Node& n, uint64_t min, uint64_t max) const
    {
        const Json& j = *n.json;
        if (!j.is_number_integer())
        {
            Fail(n, "expected an integer, got " + Describe(j));
        }
        if (j.is_number_unsigned())
        {
            uint64_t v = j.get<uint64_t>();
            if (v < min)
            {
                Fail(n, "must be at least " + std::to_string(min) + ", got " + std::to_string(v));
            }
            if (v > max)
            {
                Fail(n, "must be at most " + std::to_string(max) + ", got " + std::to_string(v));
            }
            return v;
        }
        Fail(n, "must be at least " + std::to_string(min) + ", got " + j.dump());
    }

    uint32_t Uint32(const Node& n, uint32_t min = 0) const
    {
        return static_cast<uint32_t>(Unsigned(n, min, std::numeric_limits<uint32_t>::max()));
    }

    double Number(const Node& n) const
    {
        if (!n.json->is_number())
        {
            Fail(n, "expected a number, got " + Describe(*n.json));
        }
        return n.json->get<double>();
    }

    double NonNegative(const Node& n) const
    {
        double v = Number(n);
        if (v < 0)
        {
            Fail(n, "must not be negative, got " + n.json->dump());
        }
        return v;
    }

    double Positive(const Node& n) const
    {
        double v = Number(n);
        if (!(v > 0))
        {
            Fail(n, "must be positive, got " + n.json->dump());
        }
        return v;
    }

    bool Bool(const Node& n) const
    {
        if (!n.json->is_boolean())
        {
            Fail(n, "expected true or false, got " + Describe(*n.json));
        }
        return n.json->get<bool>();
    }

    std::string String(const Node& n, bool allowEmpty = false) const
    {
        if (!n.json->is_string())
        {
            Fail(n, "expected a string, got " + Describe(*n.json));
        }
        std::string s = n.json->get<std::string>();
        if (!allowEmpty && s.empty())
        {
            Fail(n, "must not be empty");
        }
        return s;
    }

    int64_t TimeNs(const Node& n) const
    {
        if (!n.json->is_string())
        {
            Fail(n, "expected a time string such as \"1us\", got " + Describe(*n.json));
        }
        try
        {
            return ParseTimeNs(n.json->get<std::string>());
        }
        catch (const std::invalid_argument& e)
        {
            Fail(n, "bad time " + n.json->dump() + ": " + e.what());
        }
    }

    int64_t PositiveTimeNs(const Node& n) const
    {
        int64_t t = TimeNs(n);
        if (t <= 0)
        {
            Fail(n, "must be positive, got " + n.json->dump());
        }
        return t;
    }

    uint64_t RateBps(const Node& n) const
    {
        if (!n.json->is_string())
        {
            Fail(n, "expected a rate string such as \"100Gbps\", got " + Describe(*n.json));
        }
        uint64_t r;
        try
        {
            r = ParseRateBps(n.json->get<std::string>());
        }
        catch (const std::invalid_argument& e)
        {
            Fail(n, "bad rate " + n.json->dump() + ": " + e.what());
        }
        if (r == 0)
        {
            Fail(n, "must be positive, got " + n.json->dump());
        }
        return r;
    }

    const std::string& Source() const
    {
        return m_source;
    }

  private:
    std::string m_source;
};

/// An object whose keys have been checked against a list of known keys.
class Object
{
  public:
    Object(const Walker& w, const Node& node, std::initializer_list<const char*> known)
        : m_walker(w),
          m_node(node),
          m_known(known.begin(), known.end())
    {
        if (!node.json->is_object())
        {
            w.Fail(node, "expected an object, got " + Describe(*node.json));
        }
        size_t i = 0;
        for (auto it = node.json->begin(); it != node.json->end(); ++it, ++i)
        {
            if (std::find(m_known.begin(), m_known.end(), it.key()) == m_known.end())
            {
                w.FailAt(node.lines->children[i].keyLine,
                         ChildPath(node.path, it.key()),
                         "unknown key (known: " + Join(m_known) + ")");
            }
        }
    }

    bool Has(const std::string& key) const
    {
        return m_node.json->contains(key);
    }

    /// The member \p key; the caller checked Has(key).
    Node Get(const std::string& key) const
    {
        size_t i = 0;
        for (auto it = m_node.json->begin(); it != m_node.json->end(); ++it, ++i)
        {
            if (it.key() == key)
            {
                return Node{&it.value(), &m_node.lines->children[i], ChildPath(m_node.path, key)};
            }
        }
        throw std::logic_error("Object::Get: no member " + key);
    }

    /// The member \p key, or an error at this object's line saying why it is required.
    Node Require(const std::string& key, const std::string& why) const
    {
        if (!Has(key))
        {
            m_walker.FailAt(m_node.lines->line,
                            ChildPath(m_node.path, key),
                            "missing (" + why + ")");
        }
        return Get(key);
    }

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
    const Walker& m_walker;
    Node m_node;
    std::vector<std::string> m_known;
};

/// The members of an object whose keys are data (names, sizes), in file order.
std::vector<std::pair<std::string, Node>>
MapMembers(const Walker& w, const Node& n)
{
    if (!n.json->is_object())
    {
        w.Fail(n, "expected an object, got " + Describe(*n.json));
    }
    std::vector<std::pair<std::string, Node>> out;
    size_t i = 0;
    for (auto it = n.json->begin(); it != n.json->end(); ++it, ++i)
    {
        out.emplace_back(it.key(),
                         Node{&it.value(), &n.lines->children[i], ChildPath(n.path, it.key())});
    }
    return out;
}

/// The elements of an array value.
std::vector<Node>
Elements(const Walker& w, const Node& n)
{
    if (!n.json->is_array())
    {
        w.Fail(n, "expected an array, got " + Describe(*n.json));
    }
    std::vector<Node> out;
    for (size_t i = 0; i < n.json->size(); ++i)
    {
        out.push_back(Node{&(*n.json)[i], &n.lines->children[i], ElementPath(n.path, i)});
    }
    return out;
}

/// Records the line of every value under \p n.
void
CollectLines(const Json& j,
             const LineNode& lines,
             const std::string& path,
             std::map<std::string, uint32_t>& out)
{
    if (!path.empty())
    {
        out[path] = lines.line;
    }
    if (j.is_object())
    {
        size_t i = 0;
        for (auto it = j.begin(); it != j.end(); ++it, ++i)
        {
            CollectLines(it.value(), lines.children[i], ChildPath(path, it.key()), out);
        }
    }
    else if (j.is_array())
    {
        for (size_t i = 0; i < j.size(); ++i)
        {
            CollectLines(j[i], lines.children[i], ElementPath(path, i), out);
        }
    }
}

// ------------------------------------------------------------------ sections

void
ReadFatTree(const Walker& w, const Node& n, FatTreeParams& p)
{
    Object o(w,
             n,
             {"k",
              "hostsPerEdge",
              "hostRate",
              "edgeAggRate",
              "aggCoreRate",
              "hostDelay",
              "edgeAggDelay",
              "aggCoreDelay"});
    o.With("k", [&](const Node& v) {
        p.k = w.Uint32(v, 2);
        if (p.k % 2 != 0)
        {
            w.Fail(v, "must be even, got " + std::to_string(p.k));
        }
    });
    o.With("hostsPerEdge", [&](const Node& v) { p.hostsPerEdge = w.Uint32(v); });
    o.With("hostRate", [&](const Node& v) { p.hostRateBps = w.RateBps(v); });
    o.With("edgeAggRate", [&](const Node& v) { p.edgeAggRateBps = w.RateBps(v); });
    o.With("aggCoreRate", [&](const Node& v) { p.aggCoreRateBps = w.RateBps(v); });
    o.With("hostDelay", [&](const Node& v) { p.hostDelayNs = w.TimeNs(v); });
    o.With("edgeAggDelay", [&](const Node& v) { p.edgeAggDelayNs = w.TimeNs(v); });
    o.With("aggCoreDelay", [&](const Node& v) { p.aggCoreDelayNs = w.TimeNs(v); });
}

void
ReadLeafSpine(const Walker& w, const Node& n, LeafSpineParams& p)
{
    Object o(w,
             n,
             {"leaves",
              "spines",
              "hostsPerLeaf",
              "linksPerLeafSpine",
              "hostRate",
              "leafSpineRate",
              "hostDelay",
              "leafSpineDelay"});
    o.With("leaves", [&](const Node& v) { p.leaves = w.Uint32(v, 1); });
    o.With("spines", [&](const Node& v) { p.spines = w.Uint32(v, 1); });
    o.With("hostsPerLeaf", [&](const Node& v) { p.hostsPerLeaf = w.Uint32(v, 1); });
    o.With("linksPerLeafSpine", [&](const Node& v) { p.linksPerLeafSpine = w.Uint32(v, 1); });
    o.With("hostRate", [&](const Node& v) { p.hostRateBps = w.RateBps(v); });
    o.With("leafSpineRate", [&](const Node& v) { p.leafSpineRateBps = w.RateBps(v); });
    o.With("hostDelay", [&](const Node& v) { p.hostDelayNs = w.TimeNs(v); });
    o.With("leafSpineDelay", [&](const Node& v) { p.leafSpineDelayNs = w.TimeNs(v); });
}

void
ReadLingjun(const Walker& w, const Node& n, LingjunParams& p)
{
    Object o(w,
             n,
             {"aggPerPod",
              "coresPerDsw",
              "hostRate",
              "torAggRate",
              "aggCoreRate",
              "hostDelay",
              "torAggDelay",
              "aggCoreDelay"});
    o.With("aggPerPod", [&](const Node& v) { p.aggPerPod = w.Uint32(v, 1); });
    o.With("coresPerDsw", [&](const Node& v) { p.coresPerDsw = w.Uint32(v, 1); });
    o.With("hostRate", [&](const Node& v) { p.hostRateBps = w.RateBps(v); });
    o.With("torAggRate", [&](const Node& v) { p.torAggRateBps = w.RateBps(v); });
    o.With("aggCoreRate", [&](const Node& v) { p.aggCoreRateBps = w.RateBps(v); });
    o.With("hostDelay", [&](const Node& v) { p.hostDelayNs = w.TimeNs(v); });
    o.With("torAggDelay", [&](const Node& v) { p.torAggDelayNs = w.TimeNs(v); });
    o.With("aggCoreDelay", [&](const Node& v) { p.aggCoreDelayNs = w.TimeNs(v); });
}

const std::vector<std::string> kTopologyKinds{"fat-tree", "leaf-spine", "lingjun", "star"};

void
ReadTopology(const Walker& w, const Node& n, ScenarioSpec::Topology& t)
{
    Object o(w, n, {"kind", "gpusPerHost", "path", "fatTree", "leafSpine", "lingjun", "star"});
    o.With("kind", [&](const Node& v) {
        t.kind = w.String(v);
        if (std::find(kTopologyKinds.begin(), kTopologyKinds.end(), t.kind) == kTopologyKinds.end())
        {
            w.Fail(v,
                   "unknown topology kind " + v.json->dump() + " (known: " + Join(kTopologyKinds) +
                       ")");
        }
    });
    o.With("gpusPerHost", [&](const Node& v) { t.gpusPerHost = w.Uint32(v, 1); });
    o.With("path", [&](const Node& v) { t.path = w.String(v); });
    o.With("fatTree", [&](const Node& v) { ReadFatTree(w, v, t.fatTree); });
    o.With("leafSpine", [&](const Node& v) { ReadLeafSpine(w, v, t.leafSpine); });
    o.With("lingjun", [&](const Node& v) { ReadLingjun(w, v, t.lingjun); });
    o.With("star", [&](const Node& v) {
        Object s(w, v, {"hosts", "rate", "delay"});
        s.With("hosts", [&](const Node& x) { t.star.hosts = w.Uint32(x, 1); });
        s.With("rate", [&](const Node& x) { t.star.rateBps = w.RateBps(x); });
        s.With("delay", [&](const Node& x) { t.star.delayNs = w.TimeNs(x); });
    });
    if (t.kind == "lingjun")
    {
        o.Require("path", "the lingjun topology is read from a file");
    }
    if (t.kind == "star" && t.star.hosts == 0)
    {
        const std::string why = "kind star needs the number of hosts";
        if (o.Has("star"))
        {
            Object(w, o.Get("star"), {"hosts", "rate", "delay"}).Require("hosts", why);
        }
        o.Require("star", why);
    }
}

void
ReadFabric(const Walker& w, const Node& n, ScenarioSpec::Fabric& f)
{
    Object o(w, n, {"mtu", "cc", "pfc", "bufferBytes", "ackInterval", "rto"});
    o.With("mtu", [&](const Node& v) { f.mtu = w.Uint32(v, 1); });
    o.With("cc", [&](const Node& v) { f.cc = w.String(v); });
    o.With("pfc", [&](const Node& v) { f.pfc = w.Bool(v); });
    o.With("bufferBytes", [&](const Node& v) {
        f.bufferBytes = w.Unsigned(v, 1, std::numeric_limits<uint64_t>::max());
    });
    o.With("ackInterval", [&](const Node& v) { f.ackInterval = w.Uint32(v, 1); });
    o.With("rto", [&](const Node& v) { f.rtoNs = w.PositiveTimeNs(v); });
}

/// Keys of a job; jobDefaults takes all but id and hosts.
const std::initializer_list<const char*> kJobKeys{"id",
                                                  "model",
                                                  "workers",
                                                  "gpusPerHost",
                                                  "placement",
                                                  "hosts",
                                                  "iterations",
                                                  "arrival",
                                                  "weight",
                                                  "collective",
                                                  "channels",
                                                  "buckets",
                                                  "dtype",
                                                  "gpu",
                                                  "mfu",
                                                  "batchPerGpu",
                                                  "sequenceLength",
                                                  "computeTime",
                                                  "scale"};

const std::initializer_list<const char*> kJobDefaultKeys{"model",
                                                         "workers",
                                                         "gpusPerHost",
                                                         "placement",
                                                         "iterations",
                                                         "arrival",
                                                         "weight",
                                                         "collective",
                                                         "channels",
                                                         "buckets",
                                                         "dtype",
                                                         "gpu",
                                                         "mfu",
                                                         "batchPerGpu",
                                                         "sequenceLength",
                                                         "computeTime",
                                                         "scale"};

/// Fields common to jobs and jobDefaults (all but id and hosts).
void
ReadJobFields(const Walker& w, const Object& o, JobSpec& job)
{
    o.With("model", [&](const Node& v) { job.model = w.String(v); });
    o.With("workers", [&](const Node& v) { job.workers = w.Uint32(v, 1); });
    o.With("gpusPerHost", [&](const Node& v) { job.gpusPerHost = w.Uint32(v, 1); });
    o.With("placement", [&](const Node& v) { job.placement = w.String(v); });
    o.With("iterations", [&](const Node& v) { job.iterations = w.Uint32(v, 1); });
    o.With("arrival", [&](const Node& v) { job.arrivalNs = w.TimeNs(v); });
    o.With("weight", [&](const Node& v) { job.weight = w.NonNegative(v); });
    o.With("collective", [&](const Node& v) { job.collective = w.String(v); });
    o.With("channels", [&](const Node& v) { job.channels = w.Uint32(v, 1); });
    o.With("buckets", [&](const Node& v) { job.buckets = w.Uint32(v, 1); });
    o.With("dtype", [&](const Node& v) { job.dtype = w.String(v); });
    o.With("gpu", [&](const Node& v) { job.gpu = w.String(v); });
    o.With("mfu", [&](const Node& v) {
        job.mfu = w.Positive(v);
        if (job.mfu > 1)
        {
            w.Fail(v, "must be at most 1, got " + v.json->dump());
        }
    });
    o.With("batchPerGpu", [&](const Node& v) { job.batchPerGpu = w.Uint32(v, 1); });
    o.With("sequenceLength", [&](const Node& v) { job.sequenceLength = w.Uint32(v, 1); });
    o.With("computeTime", [&](const Node& v) { job.computeTimeNs = w.TimeNs(v); });
    o.With("scale", [&](const Node& v) { job.scale = w.Positive(v); });
}

JobSpec
ReadJobDefaults(const Walker& w, const Node& n)
{
    JobSpec job;
    Object o(w, n, kJobDefaultKeys);
    ReadJobFields(w, o, job);
    if (job.placement == "explicit")
    {
        w.Fail(o.Get("placement"), "cannot be \"explicit\" here: hosts are given per job");
    }
    return job;
}

void
ReadJobs(const Walker& w, const Node& n, const JobSpec& defaults, std::vector<JobSpec>& jobs)
{
    std::map<uint32_t, std::string> idOwner;
    for (const Node& element : Elements(w, n))
    {
        const size_t index = jobs.size();
        Object o(w, element, kJobKeys);
        JobSpec job = defaults;
        job.id = static_cast<uint32_t>(index);
        job.hosts.clear();
        o.With("id", [&](const Node& v) { job.id = w.Uint32(v); });
        ReadJobFields(w, o, job);
        o.With("hosts", [&](const Node& v) {
            auto hosts = Elements(w, v);
            if (hosts.empty())
            {
                w.Fail(v, "must not be empty");
            }
            for (const Node& h : hosts)
            {
                job.hosts.push_back(w.Uint32(h));
            }
        });
        if (!job.hosts.empty())
        {
            if (!o.Has("placement"))
            {
                job.placement = "explicit";
            }
            else if (job.placement != "explicit")
            {
                w.Fail(o.Get("placement"),
                       "must be \"explicit\" when hosts are given, got " +
                           o.Get("placement").json->dump());
            }
            // Rank i runs on hosts[i]: one entry per worker.
            if (!o.Has("workers"))
            {
                job.workers = static_cast<uint32_t>(job.hosts.size());
            }
            else if (job.hosts.size() != job.workers)
            {
                w.Fail(o.Get("hosts"),
                       "lists " + std::to_string(job.hosts.size()) + " hosts for " +
                           std::to_string(job.workers) +
                           " workers (worker i runs on hosts[i]; a host may repeat)");
            }
        }
        else if (job.placement == "explicit")
        {
            o.Require("hosts", "explicit placement needs host indices");
        }
        auto [it, inserted] = idOwner.emplace(job.id, element.path);
        if (!inserted)
        {
            const Node where = o.Has("id") ? o.Get("id") : element;
            w.FailAt(where.lines->line,
                     ChildPath(element.path, "id"),
                     "duplicate job id " + std::to_string(job.id) + " (also " + it->second + ")");
        }
        jobs.push_back(job);
    }
}

/// Weights of a synthetic distribution: non-negative with a positive total.
void
CheckWeightTotal(const Walker& w, const Node& n, double total)
{
    if (!(total > 0))
    {
        w.Fail(n, "the weights must not all be zero");
    }
}

void
ReadSynthetic(const Walker& w, const Node& n, ScenarioSpec::Synthetic& s)
{
    Object o(
        w,
        n,
        {"enabled", "jobs", "arrivalRatePerS", "modelMix", "workerSizes", "iterations", "seed"});
    s.enabled = true;
    o.With("enabled", [&](const Node& v) { s.enabled = w.Bool(v); });
    o.With("jobs", [&](const Node& v) { s.jobs = w.Uint32(v, 1); });
    o.With("arrivalRatePerS", [&](const Node& v) { s.arrivalRatePerS = w.Positive(v); });
    o.With("modelMix", [&](const Node& v) {
        const auto members = MapMembers(w, v);
        double total = 0;
        for (const auto& [model, weight] : members)
        {
            if (model.empty())
            {
                w.FailAt(weight.lines->keyLine, weight.path, "empty model name");
            }
            s.modelMix.emplace_back(model, w.NonNegative(weight));
            total += s.modelMix.back().second;
        }
        CheckWeightTotal(w, v, total);
    });
    o.With("workerSizes", [&](const Node& v) {
        static const std::regex count("^[1-9][0-9]{0,9}$");
        const auto members = MapMembers(w, v);
        double total = 0;
        for (const auto& [size, weight] : members)
        {
            if (!std::regex_match(size, count) ||
                std::stoull(size) > std::numeric_limits<uint32_t>::max())
            {
                w.FailAt(weight.lines->keyLine,
                         weight.path,
                         "a worker count must be a positive integer such as \"8\"");
            }
            s.workerSizes.emplace_back(static_cast<uint32_t>(std::stoul(size)),
                                       w.NonNegative(weight));
            total += s.workerSizes.back().second;
        }
        CheckWeightTotal(w, v, total);
    });
    o.With("iterations", [&](const Node& v) { s.iterations = w.Uint32(v, 1); });
    o.With("seed",
           [&](const Node& v) { s.seed = w.Unsigned(v, 0, std::numeric_limits<uint64_t>::max()); });
    if (s.enabled)
    {
        const std::string why = "required by a synthetic job mix";
        o.Require("jobs", why);
        o.Require("arrivalRatePerS", why);
        o.Require("modelMix", why);
        o.Require("workerSizes", why);
    }
}

} // namespace

// ------------------------------------------------------------------ public

int64_t
ParseTimeNs(const std::string& text)
{
    const std::string s = TrimSpaces(text);
    size_t pos = 0;
    Decimal d = ParseDecimal(s, pos);
    const std::string unit = s.substr(pos);

    struct Unit
    {
        const char* name;
        uint64_t multiplier;
        int exp10;
    };

    static const Unit units[] = {{"s", 1, 9},
                                 {"ms", 1, 6},
                                 {"us", 1, 3},
                                 {"ns", 1, 0},
                                 {"ps", 1, -3},
                                 {"fs", 1, -6},
                                 {"min", 6, 10},
                                 {"h", 36, 11},
                                 {"d", 864, 11}};
    if (unit.empty())
    {
        throw std::invalid_argument("missing unit (s, ms, us, ns, ps, fs, min, h or d)");
    }
    for (const Unit& u : units)
    {
        if (unit == u.name)
        {
            return static_cast<int64_t>(ScaleExact(d,
                                                   u.multiplier,
                                                   u.exp10,
                                                   std::numeric_limits<int64_t>::max(),
                                                   "nanoseconds"));
        }
    }
    throw std::invalid_argument("unknown unit \"" + unit +
                                "\" (use s, ms, us, ns, ps, fs, min, h or d)");
}

uint64_t
ParseRateBps(const std::string& text)
{
    const std::string s = TrimSpaces(text);
    size_t pos = 0;
    Decimal d = ParseDecimal(s, pos);
    const std::string unit = s.substr(pos);
    if (unit.empty())
    {
        throw std::invalid_argument("missing unit (e.g. Gbps)");
    }
    uint64_t multiplier = 0;
    std::string prefix;
    for (const char* base : {"bps", "b/s", "Bps", "B/s"})
    {
        const size_t n = std::strlen(base);
        if (unit.size() >= n && unit.compare(unit.size() - n, n, base) == 0)
        {
            multiplier = base[0] == 'B' ? 8 : 1;
            prefix = unit.substr(0, unit.size() - n);
            break;
        }
    }
    int exp10 = 0;
    if (multiplier != 0)
    {
        if (prefix == "k" || prefix == "K")
        {
            exp10 = 3;
        }
        else if (prefix == "M")
        {
            exp10 = 6;
        }
        else if (prefix == "G")
        {
            exp10 = 9;
        }
        else if (prefix == "T")
        {
            exp10 = 12;
        }
        else if (prefix == "Ki" || prefix == "Mi" || prefix == "Gi" || prefix == "Ti")
        {
            const std::string order = "KMGT";
            multiplier <<= 10 * (order.find(prefix[0]) + 1);
        }
        else if (!prefix.empty())
        {
            multiplier = 0;
        }
    }
    if (multiplier == 0)
    {
        throw std::invalid_argument("unknown unit \"" + unit +
                                    "\" (use bps, Kbps, Mbps, Gbps, Tbps, Bps, ... or b/s, B/s)");
    }
    return ScaleExact(d,
                      multiplier,
                      exp10,
                      std::numeric_limits<uint64_t>::max(),
                      "bits per second");
}

ScenarioSpec
ReadScenarioFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw std::runtime_error(path + ": cannot open");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
    {
        throw std::runtime_error(path + ": cannot read");
    }
    return ReadScenarioText(text.str(), path);
}

ScenarioSpec
ReadScenarioText(const std::string& text, const std::string& sourceName)
{
    // Parse, keeping the line of every key and value.
    const char* cursor = text.data();
    LineTrackingSax sax(text, &cursor);
    TrackingIterator first{text.data(), &cursor};
    TrackingIterator last{text.data() + text.size(), &cursor};
    const bool ok = Json::sax_parse(first, last, &sax);
    if (!ok || sax.Failed())
    {
        Fail(sourceName, sax.m_errorLine, sax.m_errorPath, sax.m_errorMessage);
    }

    const Walker w(sourceName);
    const Node root{&sax.m_root, &sax.m_rootLines, ""};
    if (!root.json->is_object())
    {
        w.Fail(root, "a scenario must be a JSON object, got " + Describe(*root.json));
    }
    const Object top(w,
                     root,
                     {"name",
                      "description",
                      "seed",
                      "stopTime",
                      "scale",
                      "topology",
                      "fabric",
                      "attributes",
                      "jobDefaults",
                      "jobs",
                      "jobTrace",
                      "synthetic",
                      "scheduler",
                      "schedulerParams",
                      "output"});

    ScenarioSpec spec;
    spec.source = sourceName;
    CollectLines(sax.m_root, sax.m_rootLines, "", spec.lines);
    const std::filesystem::path base = std::filesystem::path(sourceName).parent_path();
    auto resolve = [&base](const std::string& p) {
        std::filesystem::path fp(p);
        if (fp.is_relative() && !base.empty())
        {
            return (base / fp).lexically_normal().string();
        }
        return p;
    };

    spec.name = std::filesystem::path(sourceName).stem().string();
    top.With("name", [&](const Node& v) { spec.name = w.String(v); });
    top.With("description", [&](const Node& v) { spec.description = w.String(v, true); });
    top.With("seed", [&](const Node& v) {
        spec.seed = w.Unsigned(v, 1, std::numeric_limits<uint32_t>::max());
    });
    top.With("stopTime", [&](const Node& v) { spec.stopTimeNs = w.TimeNs(v); });
    top.With("scale", [&](const Node& v) { spec.scale = w.Positive(v); });
    top.With("topology", [&](const Node& v) { ReadTopology(w, v, spec.topology); });
    if (!spec.topology.path.empty())
    {
        spec.topology.path = resolve(spec.topology.path);
    }
    top.With("fabric", [&](const Node& v) { ReadFabric(w, v, spec.fabric); });
    top.With("attributes", [&](const Node& v) {
        static const std::regex name(R"(^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)+$)");
        for (const auto& [key, value] : MapMembers(w, v))
        {
            if (!std::regex_match(key, name))
            {
                w.FailAt(value.lines->keyLine,
                         value.path,
                         "expected an attribute name such as \"ns3::Dcqcn::G\"");
            }
            std::string text;
            if (value.json->is_string())
            {
                text = value.json->get<std::string>();
            }
            else if (value.json->is_number() || value.json->is_boolean())
            {
                text = value.json->dump();
            }
            else
            {
                w.Fail(value, "expected a string, number or boolean, got " + Describe(*value.json));
            }
            spec.attributes.emplace_back(key, text);
        }
    });
    top.With("jobDefaults", [&](const Node& v) { spec.jobDefaults = ReadJobDefaults(w, v); });
    top.With("jobs", [&](const Node& v) { ReadJobs(w, v, spec.jobDefaults, spec.jobs); });
    top.With("jobTrace", [&](const Node& v) { spec.jobTrace = resolve(w.String(v)); });
    spec.synthetic.seed = spec.seed;
    top.With("synthetic", [&](const Node& v) { ReadSynthetic(w, v, spec.synthetic); });
    top.With("scheduler", [&](const Node& v) { spec.scheduler = w.String(v); });
    top.With("schedulerParams", [&](const Node& v) {
        if (!v.json->is_object())
        {
            w.Fail(v, "expected an object, got " + Describe(*v.json));
        }
        spec.schedulerParams = v.json->dump();
    });
    top.With("output", [&](const Node& v) {
        Object o(w, v, {"db", "flowRows"});
        o.With("db", [&](const Node& x) { spec.output.db = w.String(x, true); });
        o.With("flowRows", [&](const Node& x) { spec.output.flowRows = w.Bool(x); });
    });

    if (spec.jobs.empty() && spec.jobTrace.empty() && !spec.synthetic.enabled)
    {
        w.Fail(root, "no jobs: give jobs, jobTrace or synthetic");
    }
    return spec;
}

} // namespace ns3
