/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "located-json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <regex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

using Json = LocatedJson::Value;
using LineNode = LocatedJson::Lines;

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
        return Open(Json::object());
    }

    bool key(string_t& key)
    {
        Json& object = *m_stack.back();
        const std::string path = LocatedJson::ChildPath(m_paths.back(), key);
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
        return Open(Json::array());
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
            R"(^\[json\.exception\.[a-z_]+\.\d+\] *(parse error)?( at line \d+, column \d+)?:? *)");
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
    /**
     * Start a container, unless that nests deeper than kMaxDepth: each level
     * keeps its path, so a bounded depth keeps the memory linear in the
     * text (and the document's recursive destruction off a deep stack).
     */
    bool Open(Json container)
    {
        const uint32_t line = TokenLine(false);
        if (m_stack.size() >= LocatedJson::kMaxDepth)
        {
            return Error(line,
                         m_awaitingValue ? m_memberPath : m_paths.back(),
                         "nested deeper than " + std::to_string(LocatedJson::kMaxDepth) +
                             " levels (the limit of the module's JSON reader)");
        }
        return Add(std::move(container), line, true);
    }

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
            path = LocatedJson::ElementPath(m_paths.back(), array.size());
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
            CollectLines(it.value(),
                         lines.children[i],
                         LocatedJson::ChildPath(path, it.key()),
                         out);
        }
    }
    else if (j.is_array())
    {
        for (size_t i = 0; i < j.size(); ++i)
        {
            CollectLines(j[i], lines.children[i], LocatedJson::ElementPath(path, i), out);
        }
    }
}

} // namespace

// ------------------------------------------------------------ LocatedJson

LocatedJson::LocatedJson(const std::string& text, std::string source)
    : m_source(std::move(source))
{
    // Parse, keeping the line of every key and value.
    const char* cursor = text.data();
    LineTrackingSax sax(text, &cursor);
    TrackingIterator first{text.data(), &cursor};
    TrackingIterator last{text.data() + text.size(), &cursor};
    const bool ok = Json::sax_parse(first, last, &sax);
    if (!ok || sax.Failed())
    {
        ns3::Fail(m_source, sax.m_errorLine, sax.m_errorPath, sax.m_errorMessage);
    }
    m_root = std::move(sax.m_root);
    m_rootLines = std::move(sax.m_rootLines);
}

LocatedJson::Node
LocatedJson::Root() const
{
    return Node{&m_root, &m_rootLines, ""};
}

const std::string&
LocatedJson::Source() const
{
    return m_source;
}

void
LocatedJson::CollectLines(std::map<std::string, uint32_t>& out) const
{
    ns3::CollectLines(m_root, m_rootLines, "", out);
}

void
LocatedJson::Fail(const Node& node, const std::string& message) const
{
    ns3::Fail(m_source, node.lines->line, node.path, message);
}

void
LocatedJson::FailAt(uint32_t line, const std::string& path, const std::string& message) const
{
    ns3::Fail(m_source, line, path, message);
}

uint64_t
LocatedJson::Unsigned(const Node& n, uint64_t min, uint64_t max) const
{
    const Json& j = *n.json;
    if (j.is_number_float())
    {
        // 1e6 is read exactly, as a flag's value is; 1.5 or 1e30 is not an integer here.
        const double d = j.get<double>();
        if (!(d >= 0 && d < 0x1p53 && d == std::floor(d)))
        {
            Fail(n, "expected an integer, got " + Describe(j));
        }
        const uint64_t v = static_cast<uint64_t>(d);
        if (v < min || v > max)
        {
            Fail(n,
                 "must be an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                     ", got " + j.dump());
        }
        return v;
    }
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

uint32_t
LocatedJson::Uint32(const Node& n, uint32_t min) const
{
    return static_cast<uint32_t>(Unsigned(n, min, std::numeric_limits<uint32_t>::max()));
}

double
LocatedJson::Number(const Node& n) const
{
    if (!n.json->is_number())
    {
        Fail(n, "expected a number, got " + Describe(*n.json));
    }
    return n.json->get<double>();
}

double
LocatedJson::NonNegative(const Node& n) const
{
    double v = Number(n);
    if (v < 0)
    {
        Fail(n, "must not be negative, got " + n.json->dump());
    }
    return v;
}

double
LocatedJson::Positive(const Node& n) const
{
    double v = Number(n);
    if (!(v > 0))
    {
        Fail(n, "must be positive, got " + n.json->dump());
    }
    return v;
}

bool
LocatedJson::Bool(const Node& n) const
{
    if (!n.json->is_boolean())
    {
        Fail(n, "expected true or false, got " + Describe(*n.json));
    }
    return n.json->get<bool>();
}

std::string
LocatedJson::String(const Node& n, bool allowEmpty) const
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

int64_t
LocatedJson::TimeNs(const Node& n) const
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

int64_t
LocatedJson::PositiveTimeNs(const Node& n) const
{
    int64_t t = TimeNs(n);
    if (t <= 0)
    {
        Fail(n, "must be positive, got " + n.json->dump());
    }
    return t;
}

uint64_t
LocatedJson::RateBps(const Node& n) const
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

std::vector<std::pair<std::string, LocatedJson::Node>>
LocatedJson::Members(const Node& n) const
{
    if (!n.json->is_object())
    {
        Fail(n, "expected an object, got " + Describe(*n.json));
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

std::vector<LocatedJson::Node>
LocatedJson::Elements(const Node& n) const
{
    if (!n.json->is_array())
    {
        Fail(n, "expected an array, got " + Describe(*n.json));
    }
    std::vector<Node> out;
    for (size_t i = 0; i < n.json->size(); ++i)
    {
        out.push_back(Node{&(*n.json)[i], &n.lines->children[i], ElementPath(n.path, i)});
    }
    return out;
}

std::string
LocatedJson::Describe(const Value& j)
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
            // Cut at a character's start, not inside a UTF-8 sequence.
            size_t cut = 37;
            while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
            {
                --cut;
            }
            s = s.substr(0, cut) + "...";
        }
        // Bytes that are not UTF-8 are shown replaced, never thrown on.
        return "string " + Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
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
LocatedJson::Join(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& item : items)
    {
        out += (out.empty() ? "" : ", ") + item;
    }
    return out;
}

std::string
LocatedJson::ChildPath(const std::string& parent, const std::string& key)
{
    return parent.empty() ? key : parent + "." + key;
}

std::string
LocatedJson::ElementPath(const std::string& parent, size_t index)
{
    return parent + "[" + std::to_string(index) + "]";
}

// ------------------------------------------------------- LocatedJsonObject

LocatedJsonObject::LocatedJsonObject(const LocatedJson& doc,
                                     const Node& node,
                                     std::initializer_list<const char*> known)
    : LocatedJsonObject(doc, node, std::vector<std::string>(known.begin(), known.end()))
{
}

LocatedJsonObject::LocatedJsonObject(const LocatedJson& doc,
                                     const Node& node,
                                     std::vector<std::string> known)
    : m_doc(doc),
      m_node(node),
      m_known(std::move(known))
{
    if (!node.json->is_object())
    {
        doc.Fail(node, "expected an object, got " + LocatedJson::Describe(*node.json));
    }
    size_t i = 0;
    for (auto it = node.json->begin(); it != node.json->end(); ++it, ++i)
    {
        if (std::find(m_known.begin(), m_known.end(), it.key()) == m_known.end())
        {
            doc.FailAt(node.lines->children[i].keyLine,
                       LocatedJson::ChildPath(node.path, it.key()),
                       "unknown key (known: " + LocatedJson::Join(m_known) + ")");
        }
    }
}

bool
LocatedJsonObject::Has(const std::string& key) const
{
    return m_node.json->contains(key);
}

LocatedJson::Node
LocatedJsonObject::Get(const std::string& key) const
{
    size_t i = 0;
    for (auto it = m_node.json->begin(); it != m_node.json->end(); ++it, ++i)
    {
        if (it.key() == key)
        {
            return Node{&it.value(),
                        &m_node.lines->children[i],
                        LocatedJson::ChildPath(m_node.path, key)};
        }
    }
    throw std::logic_error("Object::Get: no member " + key);
}

LocatedJson::Node
LocatedJsonObject::Require(const std::string& key, const std::string& why) const
{
    if (!Has(key))
    {
        m_doc.FailAt(m_node.lines->line,
                     LocatedJson::ChildPath(m_node.path, key),
                     "missing (" + why + ")");
    }
    return Get(key);
}

// ------------------------------------------------------------------ public

} // namespace ns3
