/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "chakra-trace-reader.h"

#include "et_def.pb.h"
#include "located-json.h"

#include "ns3/csv-fields.h"
#include "ns3/input-file.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <zlib.h>

namespace ns3
{

namespace
{

using ChakraProtoMsg::AttributeProto;

/// The group of a collective without pg_name (or with "0"): every rank.
constexpr int64_t kAllRanks = -1;

/// A node that only passes dependencies on (a receive, an INVALID or
/// METADATA node) stands for the ops it waits for, up to this many; beyond,
/// it becomes a zero-time op of its own, so that chains of them stay linear.
constexpr size_t kMaxJoinOps = 16;

/// The largest node duration the simulator's clock holds, in microseconds.
constexpr uint64_t kMaxMicros = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / 1000;

/**
 * "source:id: field: what", the form of every reader's errors, with the
 * node's id as the record. Ids are 64-bit; ThrowInputError takes 32, so a
 * larger id is written out the same way by hand.
 */
[[noreturn]] void
Fail(const std::string& source, uint64_t id, const std::string& field, const std::string& what)
{
    if (id <= std::numeric_limits<uint32_t>::max())
    {
        ThrowInputError(source, static_cast<uint32_t>(id), field, what);
    }
    throw std::runtime_error(source + ":" + std::to_string(id) + ": " + field + ": " + what);
}

/// The field of a framing error: which message of the file, at which byte.
std::string
MessageField(uint64_t message, size_t byte)
{
    return "message " + std::to_string(message) + " (byte " + std::to_string(byte) + ")";
}

std::string
NodeTypeText(int type)
{
    return ChakraProtoMsg::NodeType_IsValid(type)
               ? ChakraProtoMsg::NodeType_Name(static_cast<ChakraProtoMsg::NodeType>(type))
               : "type " + std::to_string(type);
}

std::string
CommTypeText(int64_t type)
{
    return ChakraProtoMsg::CollectiveCommType_IsValid(static_cast<int>(type))
               ? ChakraProtoMsg::CollectiveCommType_Name(
                     static_cast<ChakraProtoMsg::CollectiveCommType>(type))
               : std::to_string(type);
}

/// A plain decimal integer in [min, max] ("12", "-3"), as group ids are.
std::optional<int64_t>
ParseDecimal(const std::string& text, int64_t min, int64_t max)
{
    size_t i = text.size() > 1 && text[0] == '-' ? 1 : 0;
    if (i == text.size() || text.size() > 12)
    {
        return std::nullopt;
    }
    int64_t magnitude = 0;
    for (; i < text.size(); ++i)
    {
        if (text[i] < '0' || text[i] > '9')
        {
            return std::nullopt;
        }
        magnitude = magnitude * 10 + (text[i] - '0');
    }
    const int64_t v = text[0] == '-' ? -magnitude : magnitude;
    if (v < min || v > max)
    {
        return std::nullopt;
    }
    return v;
}

// ------------------------------------------------------------------ bytes

bool
IsGzip(const std::string& bytes)
{
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

/// The data of the gzip stream \p bytes (concatenated members read on).
std::string
Gunzip(const std::string& bytes, const std::string& source, uint64_t maxBytes)
{
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    {
        Fail(source, 0, "gzip", "cannot start zlib");
    }
    std::string out;
    std::vector<char> chunk(1 << 16);
    // zlib counts input in uInt: feed it in pieces.
    size_t fed = 0;
    int rc = Z_OK;
    while (true)
    {
        if (z.avail_in == 0 && fed < bytes.size())
        {
            const size_t n = std::min<size_t>(bytes.size() - fed, 1u << 30);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + fed));
            z.avail_in = static_cast<uInt>(n);
            fed += n;
        }
        z.next_out = reinterpret_cast<Bytef*>(chunk.data());
        z.avail_out = static_cast<uInt>(chunk.size());
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(chunk.data(), chunk.size() - z.avail_out);
        if (out.size() > maxBytes)
        {
            inflateEnd(&z);
            Fail(source,
                 0,
                 "gzip",
                 "decompresses to more than " + std::to_string(maxBytes) + " bytes");
        }
        if (rc == Z_STREAM_END)
        {
            if (z.avail_in == 0 && fed == bytes.size())
            {
                break;
            }
            // Another gzip member follows, as `cat a.gz b.gz` makes.
            inflateReset(&z);
            continue;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0 && fed == bytes.size())
        {
            inflateEnd(&z);
            Fail(source, 0, "gzip", "the compressed stream ends early (a truncated file?)");
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR)
        {
            const std::string why = z.msg ? z.msg : "corrupt data";
            inflateEnd(&z);
            Fail(source, 0, "gzip", "not a valid gzip stream: " + why);
        }
    }
    inflateEnd(&z);
    return out;
}

bool
IsTar(const std::string& bytes)
{
    return bytes.size() >= 512 && bytes.compare(257, 5, "ustar") == 0;
}

/// Reads a length prefix as ASTRA-sim does: a varint of at most 5 bytes, 32 bits.
bool
ReadLength(const std::string& bytes, size_t& pos, uint64_t& value)
{
    value = 0;
    for (int i = 0; i < 5 && pos < bytes.size(); ++i)
    {
        const auto b = static_cast<unsigned char>(bytes[pos++]);
        value |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
        {
            return value <= std::numeric_limits<uint32_t>::max();
        }
    }
    return false;
}

/// Whether \p m or a message inside it has fields et_def.proto does not define.
bool
HasUnknownFields(const google::protobuf::Message& m)
{
    const google::protobuf::Reflection* r = m.GetReflection();
    if (!r->GetUnknownFields(m).empty())
    {
        return true;
    }
    std::vector<const google::protobuf::FieldDescriptor*> fields;
    r->ListFields(m, &fields);
    for (const google::protobuf::FieldDescriptor* f : fields)
    {
        if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE)
        {
            continue;
        }
        if (f->is_repeated())
        {
            for (int i = 0; i < r->FieldSize(m, f); ++i)
            {
                if (HasUnknownFields(r->GetRepeatedMessage(m, f, i)))
                {
                    return true;
                }
            }
        }
        else if (HasUnknownFields(r->GetMessage(m, f)))
        {
            return true;
        }
    }
    return false;
}

// ------------------------------------------------------------------ nodes

/// What a node becomes.
enum class Role : uint8_t
{
    Pass,       ///< INVALID or METADATA: done as soon as its dependencies are
    GpuCompute, ///< a Compute op on the rank's GPU stream
    CpuCompute, ///< a Compute op on the rank's CPU stream
    Replay,     ///< a GPU BROADCAST, replayed as its duration on the comm stream
    Collective, ///< part of a Collective op
    Send,       ///< the sending end of a Transfer op
    Recv,       ///< the receiving end: done when the transfer and its dependencies are
};

/// One node of a rank's trace, as the graph needs it.
struct TraceNode
{
    uint64_t id{0};
    std::string name;
    int type{0};
    Role role{Role::Pass};
    Time duration;                 ///< compute and replay
    std::vector<uint32_t> deps;    ///< indexes of the nodes it waits for
    std::vector<bool> depIsCtrl;   ///< per dep: from ctrl_deps (for errors)
    std::vector<uint64_t> dataIds; ///< as read, until resolved
    std::vector<uint64_t> ctrlIds;
    int64_t commType{-1};
    uint64_t commSize{0};
    uint32_t peer{0}; ///< send: comm_dst; receive: comm_src
    uint32_t tag{0};
    std::string pgName;
    int64_t group{kAllRanks}; ///< resolved from pg_name
};

/// A process group a METADATA node declares (ASTRA-sim reads them from PyTorch traces).
struct DeclaredGroup
{
    int64_t id;
    std::vector<uint32_t> ranks; ///< empty: every rank
    uint64_t node;               ///< the METADATA node's id
};

/// One rank's trace.
struct RankTrace
{
    std::string source;
    uint32_t rank{0};
    std::vector<TraceNode> nodes;
    std::vector<uint32_t> order;    ///< node indexes in issue order
    std::vector<uint32_t> position; ///< per node: its place in order
    std::vector<DeclaredGroup> declared;
};

/// The attributes of a node the reader uses, each at most once.
class NodeAttributes
{
  public:
    NodeAttributes(const ChakraProtoMsg::Node& node, const std::string& source)
        : m_source(source),
          m_id(node.id())
    {
        static const std::set<std::string> read =
            {"is_cpu_op", "comm_type", "comm_size", "comm_src", "comm_dst", "comm_tag", "pg_name"};
        for (const AttributeProto& a : node.attr())
        {
            if (read.count(a.name()) && !m_attrs.emplace(a.name(), &a).second)
            {
                Fail(m_source, m_id, a.name(), "given twice");
            }
        }
    }

    bool Has(const std::string& name) const
    {
        return m_attrs.count(name) > 0;
    }

    /// A boolean: bool_val, or an integer 0 or 1.
    bool Bool(const std::string& name, bool absent) const
    {
        const AttributeProto* a = Find(name);
        if (!a)
        {
            return absent;
        }
        if (a->value_case() == AttributeProto::kBoolVal)
        {
            return a->bool_val();
        }
        bool negative = false;
        uint64_t magnitude = 0;
        if (Integer(*a, negative, magnitude) && !negative && magnitude <= 1)
        {
            return magnitude == 1;
        }
        Fail(m_source, m_id, name, "expected a bool, got " + Describe(*a));
    }

    /// An integer in [0, max] of any integer kind; an error when absent.
    uint64_t Unsigned(const std::string& name, uint64_t max, const std::string& why) const
    {
        const AttributeProto* a = Find(name);
        if (!a)
        {
            Fail(m_source, m_id, name, "missing: " + why);
        }
        bool negative = false;
        uint64_t magnitude = 0;
        if (!Integer(*a, negative, magnitude))
        {
            Fail(m_source, m_id, name, "expected an integer, got " + Describe(*a));
        }
        if (negative && magnitude > 0)
        {
            Fail(m_source, m_id, name, "must not be negative, got -" + std::to_string(magnitude));
        }
        if (magnitude > max)
        {
            Fail(m_source,
                 m_id,
                 name,
                 std::to_string(magnitude) + " is out of range (at most " + std::to_string(max) +
                     ")");
        }
        return magnitude;
    }

    /// A string_val, or \p absent.
    std::string String(const std::string& name, const std::string& absent) const
    {
        const AttributeProto* a = Find(name);
        if (!a)
        {
            return absent;
        }
        if (a->value_case() != AttributeProto::kStringVal)
        {
            Fail(m_source, m_id, name, "expected a string, got " + Describe(*a));
        }
        return a->string_val();
    }

  private:
    const AttributeProto* Find(const std::string& name) const
    {
        auto it = m_attrs.find(name);
        return it == m_attrs.end() ? nullptr : it->second;
    }

    /// ASTRA-sim converts between integer kinds: so does the reader, exactly.
    static bool Integer(const AttributeProto& a, bool& negative, uint64_t& magnitude)
    {
        int64_t s = 0;
        switch (a.value_case())
        {
        case AttributeProto::kInt32Val:
            s = a.int32_val();
            break;
        case AttributeProto::kInt64Val:
            s = a.int64_val();
            break;
        case AttributeProto::kSint32Val:
            s = a.sint32_val();
            break;
        case AttributeProto::kSint64Val:
            s = a.sint64_val();
            break;
        case AttributeProto::kSfixed32Val:
            s = a.sfixed32_val();
            break;
        case AttributeProto::kSfixed64Val:
            s = a.sfixed64_val();
            break;
        case AttributeProto::kUint32Val:
            negative = false;
            magnitude = a.uint32_val();
            return true;
        case AttributeProto::kUint64Val:
            negative = false;
            magnitude = a.uint64_val();
            return true;
        case AttributeProto::kFixed32Val:
            negative = false;
            magnitude = a.fixed32_val();
            return true;
        case AttributeProto::kFixed64Val:
            negative = false;
            magnitude = a.fixed64_val();
            return true;
        default:
            return false;
        }
        negative = s < 0;
        magnitude = negative ? uint64_t{0} - static_cast<uint64_t>(s) : static_cast<uint64_t>(s);
        return true;
    }

    static std::string Describe(const AttributeProto& a)
    {
        if (a.value_case() == AttributeProto::VALUE_NOT_SET)
        {
            return "no value";
        }
        const google::protobuf::FieldDescriptor* f =
            AttributeProto::descriptor()->FindFieldByNumber(a.value_case());
        return f ? f->name() : "an unknown value";
    }

    std::string m_source;
    uint64_t m_id;
    std::map<std::string, const AttributeProto*> m_attrs;
};

/**
 * The process groups a METADATA node of a PyTorch trace declares, as
 * ASTRA-sim reads them: inputs.values holds a Python list around one JSON
 * string, `['[{"pg_name": "1", "ranks": [0, 1]}, ...]']`; empty ranks are
 * every rank. Other metadata declares nothing.
 */
void
ReadDeclaredGroups(const ChakraProtoMsg::Node& node, RankTrace& t, uint32_t rankCount)
{
    std::string text = node.inputs().values();
    if (text.size() >= 4 && (text.compare(0, 2, "['") == 0 || text.compare(0, 2, "[\"") == 0) &&
        text.back() == ']')
    {
        text = text.substr(2, text.size() - 4);
    }
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_array() || j.empty() || !j[0].is_object() || !j[0].contains("pg_name"))
    {
        return;
    }
    const std::string field = "inputs.values";
    for (const nlohmann::json& pg : j)
    {
        if (!pg.is_object() || !pg.contains("pg_name") || !pg["pg_name"].is_string())
        {
            Fail(t.source, node.id(), field, "a process group without a string pg_name");
        }
        const std::string name = pg["pg_name"].get<std::string>();
        const std::optional<int64_t> id =
            ParseDecimal(name, 0, std::numeric_limits<int32_t>::max());
        if (!id)
        {
            Fail(t.source, node.id(), field, "pg_name \"" + name + "\" is not a group number");
        }
        DeclaredGroup g{*id, {}, node.id()};
        if (pg.contains("ranks"))
        {
            if (!pg["ranks"].is_array())
            {
                Fail(t.source, node.id(), field, "ranks of group " + name + " is not a list");
            }
            for (const nlohmann::json& r : pg["ranks"])
            {
                if (!r.is_number_unsigned() || r.get<uint64_t>() >= rankCount)
                {
                    Fail(t.source,
                         node.id(),
                         field,
                         "group " + name + " names rank " + r.dump() + ", but the job has " +
                             std::to_string(rankCount) + " ranks");
                }
                g.ranks.push_back(r.get<uint32_t>());
            }
        }
        t.declared.push_back(std::move(g));
    }
}

/// Decode \p node (rank t.rank of \p rankCount) into t.nodes.
void
DecodeNode(const ChakraProtoMsg::Node& node, RankTrace& t, uint32_t rankCount)
{
    TraceNode n;
    n.id = node.id();
    n.name = node.name();
    n.type = node.type();
    const std::string& src = t.source;
    if (!ChakraProtoMsg::NodeType_IsValid(n.type))
    {
        Fail(src, n.id, "type", std::to_string(n.type) + " is no NodeType of et_def.proto");
    }
    const NodeAttributes attrs(node, src);
    const bool cpu = attrs.Bool("is_cpu_op", false);
    const uint32_t lastRank = rankCount - 1;
    switch (node.type())
    {
    case ChakraProtoMsg::INVALID_NODE:
        n.role = Role::Pass;
        break;
    case ChakraProtoMsg::METADATA_NODE:
        n.role = Role::Pass;
        ReadDeclaredGroups(node, t, rankCount);
        break;
    case ChakraProtoMsg::MEM_LOAD_NODE:
    case ChakraProtoMsg::MEM_STORE_NODE:
        // ASTRA-sim hands these to its remote-memory model; the module has none,
        // and dropping them would shorten the iteration without a word.
        Fail(src,
             n.id,
             "type",
             NodeTypeText(n.type) +
                 ": remote memory is not modelled; remove the node or make it a COMP_NODE of its "
                 "time");
    case ChakraProtoMsg::COMP_NODE:
        n.role = cpu ? Role::CpuCompute : Role::GpuCompute;
        break;
    default:
        if (cpu)
        {
            // A host-side launch of a communication op (PyTorch's c10d:: ops):
            // the Chakra feeder's ASTRA-sim replays it as CPU time; the GPU
            // node beside it carries the communication.
            n.role = Role::CpuCompute;
            break;
        }
        if (node.type() == ChakraProtoMsg::COMM_COLL_NODE)
        {
            n.commType = static_cast<int64_t>(attrs.Unsigned("comm_type",
                                                             ChakraProtoMsg::CollectiveCommType_MAX,
                                                             "a collective"));
            switch (n.commType)
            {
            case ChakraProtoMsg::ALL_REDUCE:
            case ChakraProtoMsg::ALL_GATHER:
            case ChakraProtoMsg::REDUCE_SCATTER:
            case ChakraProtoMsg::ALL_TO_ALL:
                n.role = Role::Collective;
                n.commSize = attrs.Unsigned("comm_size",
                                            std::numeric_limits<uint64_t>::max(),
                                            "a collective's bytes per rank");
                break;
            case ChakraProtoMsg::BROADCAST:
                // ASTRA-sim has no broadcast: it waits out the recorded time.
                n.role = Role::Replay;
                break;
            default:
                Fail(src,
                     n.id,
                     "comm_type",
                     CommTypeText(n.commType) +
                         " is not supported (ASTRA-sim simulates ALL_REDUCE, ALL_GATHER, "
                         "REDUCE_SCATTER, ALL_TO_ALL and replays BROADCAST)");
            }
            n.pgName = attrs.String("pg_name", "");
            break;
        }
        n.commSize = attrs.Unsigned("comm_size",
                                    std::numeric_limits<uint64_t>::max(),
                                    "a send or receive's bytes");
        n.tag = static_cast<uint32_t>(attrs.Unsigned("comm_tag",
                                                     std::numeric_limits<uint32_t>::max(),
                                                     "sends and receives are matched by it"));
        if (node.type() == ChakraProtoMsg::COMM_SEND_NODE)
        {
            n.role = Role::Send;
            if (attrs.Has("comm_src") &&
                attrs.Unsigned("comm_src", std::numeric_limits<uint64_t>::max(), "") != t.rank)
            {
                Fail(src,
                     n.id,
                     "comm_src",
                     "a send must be the sender's: this is rank " + std::to_string(t.rank));
            }
            n.peer =
                static_cast<uint32_t>(attrs.Unsigned("comm_dst", lastRank, "a send's receiver"));
        }
        else
        {
            n.role = Role::Recv;
            if (attrs.Has("comm_dst") &&
                attrs.Unsigned("comm_dst", std::numeric_limits<uint64_t>::max(), "") != t.rank)
            {
                Fail(src,
                     n.id,
                     "comm_dst",
                     "a receive must be the receiver's: this is rank " + std::to_string(t.rank));
            }
            n.peer =
                static_cast<uint32_t>(attrs.Unsigned("comm_src", lastRank, "a receive's sender"));
        }
        if (n.peer == t.rank)
        {
            Fail(src,
                 n.id,
                 n.role == Role::Send ? "comm_dst" : "comm_src",
                 "rank " + std::to_string(t.rank) + " to itself");
        }
    }
    if (n.role == Role::GpuCompute || n.role == Role::CpuCompute || n.role == Role::Replay)
    {
        const uint64_t us = node.duration_micros();
        if (us > kMaxMicros)
        {
            Fail(src,
                 n.id,
                 "duration_micros",
                 std::to_string(us) + " us does not fit the simulator's clock (2^63 ns)");
        }
        // ASTRA-sim replays a zero time as one tick (1 ns).
        n.duration = NanoSeconds(us == 0 ? 1 : static_cast<int64_t>(us * 1000));
    }
    n.dataIds.assign(node.data_deps().begin(), node.data_deps().end());
    n.ctrlIds.assign(node.ctrl_deps().begin(), node.ctrl_deps().end());
    t.nodes.push_back(std::move(n));
}

/// The messages of one rank file: a GlobalMetadata, then nodes.
RankTrace
DecodeRank(const ChakraRankBytes& in, uint32_t rank, uint32_t rankCount, uint64_t maxBytes)
{
    RankTrace t;
    t.source = in.source;
    t.rank = rank;
    const std::string& src = t.source;
    std::string inflated;
    const std::string* bytes = &in.bytes;
    if (IsGzip(in.bytes))
    {
        inflated = Gunzip(in.bytes, src, maxBytes);
        bytes = &inflated;
    }
    if (bytes->size() > maxBytes)
    {
        Fail(src, 0, "file", "larger than " + std::to_string(maxBytes) + " bytes");
    }
    if (IsTar(*bytes))
    {
        Fail(src,
             0,
             "file",
             "a tar archive, not a Chakra trace: extract it (tar xzf) and read the .et files "
             "inside by their prefix");
    }
    std::unordered_map<uint64_t, uint64_t> seen; // id -> message
    size_t pos = 0;
    uint64_t message = 0;
    while (pos < bytes->size())
    {
        ++message;
        const size_t start = pos;
        uint64_t length = 0;
        if (!ReadLength(*bytes, pos, length))
        {
            Fail(src,
                 0,
                 MessageField(message, start),
                 pos >= bytes->size() ? "truncated: the file ends inside the length prefix"
                                      : "the length prefix is not a 32-bit varint");
        }
        if (length > bytes->size() - pos)
        {
            Fail(src,
                 0,
                 MessageField(message, start),
                 "truncated: the length prefix says " + std::to_string(length) + " bytes, " +
                     std::to_string(bytes->size() - pos) + " remain");
        }
        const char* data = bytes->data() + pos;
        const int size = static_cast<int>(length);
        pos += length;
        if (message == 1)
        {
            ChakraProtoMsg::GlobalMetadata meta;
            if (!meta.ParseFromArray(data, size) || HasUnknownFields(meta))
            {
                Fail(src,
                     0,
                     MessageField(message, start),
                     "not a GlobalMetadata, which a Chakra trace starts with");
            }
            continue;
        }
        ChakraProtoMsg::Node node;
        if (!node.ParseFromArray(data, size))
        {
            Fail(src, 0, MessageField(message, start), "not a Chakra Node");
        }
        if (HasUnknownFields(node))
        {
            Fail(src,
                 0,
                 MessageField(message, start),
                 "a Node with fields et_def.proto does not define (not a Chakra trace, or a "
                 "newer schema)");
        }
        if (!seen.emplace(node.id(), message).second)
        {
            Fail(src,
                 node.id(),
                 "id",
                 "a second node with this id (messages " + std::to_string(seen[node.id()]) +
                     " and " + std::to_string(message) + ")");
        }
        DecodeNode(node, t, rankCount);
    }
    if (message == 0)
    {
        Fail(src,
             0,
             MessageField(1, 0),
             "the file is empty; a Chakra trace starts with its "
             "GlobalMetadata");
    }
    if (t.nodes.empty())
    {
        Fail(src, 0, MessageField(2, pos), "no node after the GlobalMetadata");
    }
    return t;
}

// ------------------------------------------------------------ rank order

/// Resolves each node's dependencies to indexes, as the chosen feeder reads them.
void
ResolveDeps(RankTrace& t, ChakraDeps deps)
{
    std::unordered_map<uint64_t, uint32_t> index;
    for (uint32_t i = 0; i < t.nodes.size(); ++i)
    {
        index.emplace(t.nodes[i].id, i);
    }
    for (TraceNode& n : t.nodes)
    {
        std::set<uint32_t> added;
        auto add = [&](const std::vector<uint64_t>& ids, bool ctrl) {
            for (uint64_t id : ids)
            {
                auto it = index.find(id);
                if (it == index.end())
                {
                    Fail(t.source,
                         n.id,
                         ctrl ? "ctrl_deps" : "data_deps",
                         std::to_string(id) + " names no node of the file");
                }
                if (added.insert(it->second).second)
                {
                    n.deps.push_back(it->second);
                    n.depIsCtrl.push_back(ctrl);
                }
            }
        };
        add(n.dataIds, false);
        if (deps == ChakraDeps::DataAndControl)
        {
            add(n.ctrlIds, true);
        }
        n.dataIds.clear();
        n.dataIds.shrink_to_fit();
        n.ctrlIds.clear();
        n.ctrlIds.shrink_to_fit();
    }
}

/**
 * The order the feeder issues the rank's nodes in, when it has the resources:
 * a node once its dependencies are done, the lowest id of those ready first.
 */
void
OrderRank(RankTrace& t)
{
    const size_t n = t.nodes.size();
    std::vector<uint32_t> waiting(n);
    std::vector<std::vector<uint32_t>> children(n);
    using Entry = std::pair<uint64_t, uint32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
    for (uint32_t i = 0; i < n; ++i)
    {
        waiting[i] = static_cast<uint32_t>(t.nodes[i].deps.size());
        for (uint32_t d : t.nodes[i].deps)
        {
            children[d].push_back(i);
        }
        if (waiting[i] == 0)
        {
            ready.emplace(t.nodes[i].id, i);
        }
    }
    t.position.assign(n, 0);
    while (!ready.empty())
    {
        const uint32_t i = ready.top().second;
        ready.pop();
        t.position[i] = static_cast<uint32_t>(t.order.size());
        t.order.push_back(i);
        for (uint32_t c : children[i])
        {
            if (--waiting[c] == 0)
            {
                ready.emplace(t.nodes[c].id, c);
            }
        }
    }
    if (t.order.size() == n)
    {
        return;
    }
    // Walk from the lowest id left over along dependencies left over until a
    // node repeats: that is a cycle.
    uint32_t cur = n;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (waiting[i] > 0 && (cur == n || t.nodes[i].id < t.nodes[cur].id))
        {
            cur = i;
        }
    }
    std::vector<uint32_t> path;
    std::vector<bool> viaCtrl;
    std::map<uint32_t, size_t> at;
    while (!at.count(cur))
    {
        at[cur] = path.size();
        path.push_back(cur);
        const TraceNode& node = t.nodes[cur];
        for (size_t k = 0; k < node.deps.size(); ++k)
        {
            if (waiting[node.deps[k]] > 0)
            {
                viaCtrl.push_back(node.depIsCtrl[k]);
                cur = node.deps[k];
                break;
            }
        }
    }
    const size_t first = at[cur];
    std::string chain = "node " + std::to_string(t.nodes[cur].id);
    for (size_t k = first + 1; k <= path.size() && k - first <= 10; ++k)
    {
        chain += " waits for " + (k == path.size() ? std::to_string(t.nodes[cur].id)
                                                   : std::to_string(t.nodes[path[k]].id));
    }
    if (path.size() - first > 10)
    {
        chain += " ...";
    }
    Fail(t.source,
         t.nodes[cur].id,
         viaCtrl[first] ? "ctrl_deps" : "data_deps",
         "a dependency cycle: " + chain);
}

// ------------------------------------------------------------------- groups

/// A communicator group: its members, in the order a collective gives them ranks.
struct Group
{
    std::vector<uint32_t> members;
    std::string origin; ///< where it was defined, for errors
};

std::map<int64_t, Group>
ReadCommGroups(const std::string& text, const std::string& source, uint32_t rankCount)
{
    std::map<int64_t, Group> groups;
    if (text.empty())
    {
        return groups;
    }
    std::string body = text;
    StripByteOrderMark(body);
    const LocatedJson doc(body, source);
    for (const auto& [key, value] : doc.Members(doc.Root()))
    {
        // ASTRA-sim numbers groups from 1: 0 (or no pg_name) is the group of all ranks.
        const std::optional<int64_t> id = ParseDecimal(key, 1, std::numeric_limits<int32_t>::max());
        if (!id)
        {
            doc.FailAt(value.lines->keyLine,
                       value.path,
                       "a group id is a pg_name, a number from 1 (0 is the group of all ranks), "
                       "got \"" +
                           key + "\"");
        }
        Group g;
        g.origin = source;
        std::set<uint32_t> seen;
        for (const LocatedJson::Node& r : doc.Elements(value))
        {
            const uint32_t rank = doc.Uint32(r);
            if (rank >= rankCount)
            {
                doc.Fail(r,
                         "rank " + std::to_string(rank) + ", but the job has " +
                             std::to_string(rankCount) + " ranks (0 to " +
                             std::to_string(rankCount - 1) + ")");
            }
            if (!seen.insert(rank).second)
            {
                doc.Fail(r, "rank " + std::to_string(rank) + " twice");
            }
            g.members.push_back(rank);
        }
        if (g.members.empty())
        {
            doc.Fail(value, "a group needs at least one rank");
        }
        groups[*id] = std::move(g);
    }
    return groups;
}

/**
 * Adds the groups METADATA nodes declare: they replace a group of the same
 * id from the JSON file (ASTRA-sim reads them as it meets them, over what
 * it had), and ranks must not declare one group two ways.
 */
void
AddDeclaredGroups(const std::vector<RankTrace>& ranks, std::map<int64_t, Group>& groups)
{
    const uint32_t rankCount = static_cast<uint32_t>(ranks.size());
    std::map<int64_t, std::pair<std::vector<uint32_t>, std::string>> declared;
    for (const RankTrace& t : ranks)
    {
        for (const DeclaredGroup& d : t.declared)
        {
            std::vector<uint32_t> members = d.ranks;
            if (members.empty())
            {
                for (uint32_t r = 0; r < rankCount; ++r)
                {
                    members.push_back(r);
                }
            }
            const std::string where = t.source + ":" + std::to_string(d.node);
            auto [it, inserted] = declared.emplace(d.id, std::make_pair(members, where));
            if (!inserted && it->second.first != members)
            {
                Fail(t.source,
                     d.node,
                     "inputs.values",
                     "group " + std::to_string(d.id) + " has other ranks than at " +
                         it->second.second);
            }
        }
    }
    for (auto& [id, d] : declared)
    {
        groups[id] = Group{d.first, d.second};
    }
}

/// Resolves each collective's pg_name to a group it is a member of.
void
ResolveGroups(std::vector<RankTrace>& ranks,
              const std::map<int64_t, Group>& groups,
              const std::string& groupsSource)
{
    for (RankTrace& t : ranks)
    {
        for (TraceNode& n : t.nodes)
        {
            if (n.role != Role::Collective && n.role != Role::Replay)
            {
                continue;
            }
            // ASTRA-sim: no pg_name, or "0", is the group of every rank.
            if (n.pgName.empty() || n.pgName == "0")
            {
                n.group = kAllRanks;
                continue;
            }
            const std::optional<int64_t> id = ParseDecimal(n.pgName,
                                                           std::numeric_limits<int32_t>::min(),
                                                           std::numeric_limits<int32_t>::max());
            if (!id)
            {
                Fail(t.source, n.id, "pg_name", "\"" + n.pgName + "\" is not a group number");
            }
            auto it = groups.find(*id);
            if (it == groups.end())
            {
                Fail(t.source,
                     n.id,
                     "pg_name",
                     "group " + n.pgName + " is not defined " +
                         (groupsSource.empty() ? std::string("(no communicator-group file given)")
                                               : "in " + groupsSource));
            }
            const std::vector<uint32_t>& m = it->second.members;
            if (std::find(m.begin(), m.end(), t.rank) == m.end())
            {
                Fail(t.source,
                     n.id,
                     "pg_name",
                     "rank " + std::to_string(t.rank) + " is not a member of group " + n.pgName +
                         " (" + it->second.origin + ")");
            }
            n.group = *id;
        }
    }
}

// ------------------------------------------------------------------ the graph

/// A node of one rank: (rank, index).
using NodeRef = std::pair<uint32_t, uint32_t>;

/// What becomes one op (or, for a join, stands for the ops it waits for).
struct Unit
{
    enum class Kind : uint8_t
    {
        Compute,
        Collective,
        Transfer,
        Join,
    };

    Kind kind{Kind::Compute};
    std::vector<NodeRef>
        nodes; ///< compute, join: one; collective: the members'; transfer: send, receive
    std::vector<uint32_t> deps; ///< units
    uint64_t key{0};            ///< the lowest issue position of its nodes: graph order
    int64_t group{kAllRanks};
    uint32_t index{0}; ///< collective: its order in the group
};

class GraphBuilder
{
  public:
    GraphBuilder(std::vector<RankTrace>& ranks,
                 std::map<int64_t, Group> groups,
                 const ChakraTraceOptions& options)
        : m_ranks(ranks),
          m_groups(std::move(groups)),
          m_options(options),
          m_graph(static_cast<uint32_t>(ranks.size()))
    {
    }

    JobGraph Build()
    {
        m_unitOf.resize(m_ranks.size());
        for (const RankTrace& t : m_ranks)
        {
            m_unitOf[t.rank].assign(t.nodes.size(), kNone);
        }
        MatchCollectives();
        MatchTransfers();
        AddLocalUnits();
        LinkUnits();
        Emit();
        return std::move(m_graph);
    }

  private:
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

    const TraceNode& Node(const NodeRef& r) const
    {
        return m_ranks[r.first].nodes[r.second];
    }

    uint64_t Position(const NodeRef& r) const
    {
        return m_ranks[r.first].position[r.second];
    }

    uint32_t NewUnit(Unit u)
    {
        u.key = std::numeric_limits<uint64_t>::max();
        for (const NodeRef& r : u.nodes)
        {
            u.key = std::min(u.key, Position(r));
        }
        m_units.push_back(std::move(u));
        return static_cast<uint32_t>(m_units.size() - 1);
    }

    std::string GroupText(int64_t group) const
    {
        return group == kAllRanks ? "the group of all ranks" : "group " + std::to_string(group);
    }

    const std::vector<uint32_t>& Members(int64_t group)
    {
        if (group == kAllRanks)
        {
            if (m_all.empty())
            {
                for (uint32_t r = 0; r < m_ranks.size(); ++r)
                {
                    m_all.push_back(r);
                }
            }
            return m_all;
        }
        return m_groups.at(group).members;
    }

    /**
     * ASTRA-sim numbers each rank's collectives per communicator group as it
     * issues them, and messages carry that number: the k-th of a group on
     * each member is one collective.
     */
    void MatchCollectives()
    {
        std::map<int64_t, std::vector<std::vector<uint32_t>>> issued; // group -> rank -> nodes
        for (const RankTrace& t : m_ranks)
        {
            for (uint32_t i : t.order)
            {
                const TraceNode& n = t.nodes[i];
                if (n.role == Role::Collective)
                {
                    auto& perRank = issued[n.group];
                    perRank.resize(m_ranks.size());
                    perRank[t.rank].push_back(i);
                }
            }
        }
        for (auto& [group, perRank] : issued)
        {
            const std::vector<uint32_t>& members = Members(group);
            size_t count = std::numeric_limits<size_t>::max();
            for (uint32_t r : members)
            {
                count = std::min(count, perRank[r].size());
            }
            for (uint32_t r : members)
            {
                if (perRank[r].size() > count)
                {
                    uint32_t shortest = members[0];
                    for (uint32_t s : members)
                    {
                        if (perRank[s].size() == count)
                        {
                            shortest = s;
                            break;
                        }
                    }
                    const TraceNode& extra = m_ranks[r].nodes[perRank[r][count]];
                    Fail(m_ranks[r].source,
                         extra.id,
                         "comm_type",
                         "collective " + std::to_string(count + 1) + " of " + GroupText(group) +
                             " has no match on rank " + std::to_string(shortest) + " (" +
                             m_ranks[shortest].source + "), which has " + std::to_string(count));
                }
            }
            for (size_t k = 0; k < count; ++k)
            {
                Unit u;
                u.kind = Unit::Kind::Collective;
                u.group = group;
                u.index = static_cast<uint32_t>(k);
                const NodeRef first{members[0], perRank[members[0]][k]};
                for (uint32_t r : members)
                {
                    const NodeRef ref{r, perRank[r][k]};
                    const TraceNode& n = Node(ref);
                    const TraceNode& f = Node(first);
                    const std::string which =
                        "collective " + std::to_string(k + 1) + " of " + GroupText(group) +
                        " on rank " + std::to_string(first.first) + " (" +
                        m_ranks[first.first].source + ":" + std::to_string(f.id) + ")";
                    if (n.commType != f.commType)
                    {
                        Fail(m_ranks[r].source,
                             n.id,
                             "comm_type",
                             CommTypeText(n.commType) + ", but " + which + " is " +
                                 CommTypeText(f.commType));
                    }
                    if (n.commSize != f.commSize)
                    {
                        Fail(m_ranks[r].source,
                             n.id,
                             "comm_size",
                             std::to_string(n.commSize) + " bytes, but " + which + " has " +
                                 std::to_string(f.commSize));
                    }
                    u.nodes.push_back(ref);
                }
                const uint32_t id = NewUnit(std::move(u));
                for (const NodeRef& ref : m_units[id].nodes)
                {
                    m_unitOf[ref.first][ref.second] = id;
                }
            }
        }
    }

    /// The k-th send from s to d with a tag meets the k-th receive on d from s with it.
    void MatchTransfers()
    {
        using Key = std::tuple<uint32_t, uint32_t, uint32_t>; // src, dst, tag
        std::map<Key, std::vector<uint32_t>> sends;
        std::map<Key, std::vector<uint32_t>> recvs;
        for (const RankTrace& t : m_ranks)
        {
            for (uint32_t i : t.order)
            {
                const TraceNode& n = t.nodes[i];
                if (n.role == Role::Send)
                {
                    sends[Key{t.rank, n.peer, n.tag}].push_back(i);
                }
                else if (n.role == Role::Recv)
                {
                    recvs[Key{n.peer, t.rank, n.tag}].push_back(i);
                }
            }
        }
        static const std::vector<uint32_t> none;
        auto unmatched = [&](const Key& key, bool isSend, size_t k, size_t have) {
            const auto [s, d, tag] = key;
            const uint32_t self = isSend ? s : d;
            const uint32_t other = isSend ? d : s;
            const std::vector<uint32_t>& mine = isSend ? sends[key] : recvs[key];
            Fail(m_ranks[self].source,
                 m_ranks[self].nodes[mine[k]].id,
                 isSend ? "comm_dst" : "comm_src",
                 std::string(isSend ? "send " : "receive ") + std::to_string(k + 1) +
                     " from rank " + std::to_string(s) + " to rank " + std::to_string(d) +
                     " with tag " + std::to_string(tag) + " has no matching " +
                     (isSend ? "receive" : "send") + " on rank " + std::to_string(other) + " (" +
                     m_ranks[other].source + ", which has " + std::to_string(have) + ")");
        };
        for (const auto& [key, s] : sends)
        {
            auto it = recvs.find(key);
            const std::vector<uint32_t>& r = it == recvs.end() ? none : it->second;
            if (s.size() > r.size())
            {
                unmatched(key, true, r.size(), r.size());
            }
        }
        for (const auto& [key, r] : recvs)
        {
            auto it = sends.find(key);
            const std::vector<uint32_t>& s = it == sends.end() ? none : it->second;
            if (r.size() > s.size())
            {
                unmatched(key, false, s.size(), s.size());
            }
            const auto [src, dst, tag] = key;
            for (size_t k = 0; k < r.size(); ++k)
            {
                const NodeRef send{src, s[k]};
                const NodeRef recv{dst, r[k]};
                if (Node(send).commSize != Node(recv).commSize)
                {
                    Fail(m_ranks[dst].source,
                         Node(recv).id,
                         "comm_size",
                         std::to_string(Node(recv).commSize) + " bytes, but the send it matches (" +
                             m_ranks[src].source + ":" + std::to_string(Node(send).id) +
                             ") sends " + std::to_string(Node(send).commSize));
                }
                Unit u;
                u.kind = Unit::Kind::Transfer;
                u.nodes = {send, recv};
                const uint32_t transfer = NewUnit(std::move(u));
                // The transfer's key is its send's: the receive's side joins later.
                m_units[transfer].key = Position(send);
                m_unitOf[src][send.second] = transfer;
                Unit join;
                join.kind = Unit::Kind::Join;
                join.nodes = {recv};
                join.deps = {transfer};
                m_unitOf[dst][recv.second] = NewUnit(std::move(join));
            }
        }
    }

    /// Compute, replayed and pass-through nodes: one unit each.
    void AddLocalUnits()
    {
        for (const RankTrace& t : m_ranks)
        {
            for (uint32_t i : t.order)
            {
                if (m_unitOf[t.rank][i] != kNone)
                {
                    continue;
                }
                Unit u;
                u.kind = t.nodes[i].role == Role::Pass ? Unit::Kind::Join : Unit::Kind::Compute;
                u.nodes = {NodeRef{t.rank, i}};
                m_unitOf[t.rank][i] = NewUnit(std::move(u));
            }
        }
    }

    /// A unit waits for the units of its nodes' dependencies; a transfer for its send's only.
    void LinkUnits()
    {
        for (uint32_t u = 0; u < m_units.size(); ++u)
        {
            Unit& unit = m_units[u];
            const size_t sides = unit.kind == Unit::Kind::Transfer ? 1 : unit.nodes.size();
            for (size_t k = 0; k < sides; ++k)
            {
                const NodeRef& ref = unit.nodes[k];
                for (uint32_t d : Node(ref).deps)
                {
                    unit.deps.push_back(m_unitOf[ref.first][d]);
                }
            }
            std::sort(unit.deps.begin(), unit.deps.end());
            unit.deps.erase(std::unique(unit.deps.begin(), unit.deps.end()), unit.deps.end());
        }
    }

    uint32_t Stream(const std::string& key)
    {
        auto [it, inserted] = m_streams.emplace(key, static_cast<uint32_t>(m_streams.size()));
        return it->second;
    }

    /// Adds \p compute's ns to its rank's total, which must fit the clock.
    void CountCompute(const NodeRef& ref)
    {
        const int64_t ns = Node(ref).duration.GetNanoSeconds();
        int64_t& total = m_computeNs[ref.first];
        if (total > std::numeric_limits<int64_t>::max() - ns)
        {
            Fail(m_ranks[ref.first].source,
                 Node(ref).id,
                 "duration_micros",
                 "the rank's compute adds up to more than the simulator's clock holds (2^63 ns)");
        }
        total += ns;
    }

    /// Units in a topological order, lowest key first: each becomes its op.
    void Emit()
    {
        const size_t n = m_units.size();
        std::vector<uint32_t> waiting(n);
        std::vector<std::vector<uint32_t>> children(n);
        using Entry = std::tuple<uint64_t, uint32_t>;
        std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
        for (uint32_t u = 0; u < n; ++u)
        {
            waiting[u] = static_cast<uint32_t>(m_units[u].deps.size());
            for (uint32_t d : m_units[u].deps)
            {
                children[d].push_back(u);
            }
            if (waiting[u] == 0)
            {
                ready.emplace(m_units[u].key, u);
            }
        }
        m_ops.assign(n, {});
        m_computeNs.assign(m_ranks.size(), 0);
        size_t done = 0;
        while (!ready.empty())
        {
            const uint32_t u = std::get<1>(ready.top());
            ready.pop();
            ++done;
            AddOp(u);
            for (uint32_t c : children[u])
            {
                if (--waiting[c] == 0)
                {
                    ready.emplace(m_units[c].key, c);
                }
            }
        }
        if (done < n)
        {
            ReportCycle(waiting);
        }
    }

    void AddOp(uint32_t u)
    {
        const Unit& unit = m_units[u];
        std::vector<uint32_t> deps;
        for (uint32_t d : unit.deps)
        {
            deps.insert(deps.end(), m_ops[d].begin(), m_ops[d].end());
        }
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        const NodeRef& ref = unit.nodes[0];
        const TraceNode& node = Node(ref);
        const std::string rank = std::to_string(ref.first);
        const std::string name = "rank " + rank + " " + std::to_string(node.id) + " " + node.name;
        uint32_t op = 0;
        switch (unit.kind)
        {
        case Unit::Kind::Join:
            if (deps.size() <= kMaxJoinOps)
            {
                m_ops[u] = std::move(deps);
                return;
            }
            op = m_graph.AddCompute({ref.first},
                                    Time(),
                                    std::move(deps),
                                    Stream("join/" + rank + "/" + std::to_string(node.id)),
                                    name);
            break;
        case Unit::Kind::Compute: {
            CountCompute(ref);
            const char* stream = node.role == Role::CpuCompute   ? "cpu/"
                                 : node.role == Role::GpuCompute ? "gpu/"
                                                                 : "comm/";
            op = m_graph.AddCompute({ref.first},
                                    node.duration,
                                    std::move(deps),
                                    Stream(stream + rank),
                                    name);
            break;
        }
        case Unit::Kind::Collective: {
            const std::vector<uint32_t>& members = Members(unit.group);
            uint64_t bytes = node.commSize;
            std::string algorithm;
            switch (node.commType)
            {
            case ChakraProtoMsg::ALL_REDUCE:
                algorithm = m_options.allReduce;
                break;
            case ChakraProtoMsg::ALL_GATHER:
                // ASTRA-sim's comm_size is the share each rank contributes; the
                // module's all-gather takes the gathered buffer.
                algorithm = "all-gather";
                if (bytes > std::numeric_limits<uint64_t>::max() / members.size())
                {
                    Fail(m_ranks[ref.first].source,
                         node.id,
                         "comm_size",
                         std::to_string(bytes) + " bytes from each of " +
                             std::to_string(members.size()) + " ranks overflow 64 bits");
                }
                bytes *= members.size();
                break;
            case ChakraProtoMsg::REDUCE_SCATTER:
                algorithm = "reduce-scatter";
                break;
            default:
                algorithm = "all-to-all";
                break;
            }
            const std::string group = unit.group == kAllRanks ? "all" : std::to_string(unit.group);
            op = m_graph.AddCollective(algorithm,
                                       members,
                                       bytes,
                                       m_options.channels,
                                       m_options.collectiveGroup,
                                       std::move(deps),
                                       Stream("coll/" + group),
                                       "group " + group + " collective " +
                                           std::to_string(unit.index + 1) + " " + node.name);
            break;
        }
        case Unit::Kind::Transfer: {
            const NodeRef& recv = unit.nodes[1];
            op = m_graph.AddTransfer(ref.first,
                                     recv.first,
                                     node.commSize,
                                     m_options.transferGroup,
                                     std::move(deps),
                                     Stream("comm/" + rank),
                                     name);
            break;
        }
        }
        m_ops[u] = {op};
    }

    /// Some units wait on each other across ranks: name the nodes of one cycle.
    [[noreturn]] void ReportCycle(const std::vector<uint32_t>& waiting)
    {
        uint32_t cur = 0;
        while (waiting[cur] == 0)
        {
            ++cur;
        }
        std::vector<uint32_t> path;
        std::map<uint32_t, size_t> at;
        while (!at.count(cur))
        {
            at[cur] = path.size();
            path.push_back(cur);
            for (uint32_t d : m_units[cur].deps)
            {
                if (waiting[d] > 0)
                {
                    cur = d;
                    break;
                }
            }
        }
        auto node = [&](const NodeRef& ref) {
            return "rank " + std::to_string(ref.first) + " node " + std::to_string(Node(ref).id);
        };
        auto describe = [&](uint32_t u) {
            const Unit& unit = m_units[u];
            switch (unit.kind)
            {
            case Unit::Kind::Collective:
                return "collective " + std::to_string(unit.index + 1) + " of " +
                       GroupText(unit.group) + " (" + node(unit.nodes[0]) + ")";
            case Unit::Kind::Transfer:
                return "the transfer " + node(unit.nodes[0]) + " -> " + node(unit.nodes[1]);
            default:
                return node(unit.nodes[0]) + " (" + NodeTypeText(Node(unit.nodes[0]).type) + ")";
            }
        };
        std::string chain = describe(cur);
        for (size_t k = at[cur] + 1; k <= path.size() && k - at[cur] <= 10; ++k)
        {
            chain += " waits for " + describe(k == path.size() ? cur : path[k]);
        }
        const NodeRef& ref = m_units[cur].nodes[0];
        Fail(m_ranks[ref.first].source,
             Node(ref).id,
             "deps",
             "a dependency cycle across ranks, through collectives or transfers that the ranks "
             "reach in different orders: " +
                 chain);
    }

    std::vector<RankTrace>& m_ranks;
    std::map<int64_t, Group> m_groups;
    const ChakraTraceOptions& m_options;
    JobGraph m_graph;
    std::vector<uint32_t> m_all;
    std::vector<Unit> m_units;
    std::vector<std::vector<uint32_t>> m_unitOf; ///< rank -> node -> unit
    std::vector<std::vector<uint32_t>> m_ops;    ///< unit -> the ops it stands for
    std::map<std::string, uint32_t> m_streams;
    std::vector<int64_t> m_computeNs; ///< per rank
};

} // namespace

std::string
ChakraDepsName(ChakraDeps deps)
{
    return deps == ChakraDeps::Data ? "data" : "data+ctrl";
}

ChakraDeps
ParseChakraDeps(const std::string& name)
{
    if (name == "data+ctrl")
    {
        return ChakraDeps::DataAndControl;
    }
    if (name == "data")
    {
        return ChakraDeps::Data;
    }
    throw std::invalid_argument("\"" + name + "\": expected \"data+ctrl\" or \"data\"");
}

std::vector<std::string>
FindChakraRankFiles(const std::string& prefix, uint32_t ranks)
{
    namespace fs = std::filesystem;
    auto fileOf = [&](uint64_t r) {
        const std::string plain = prefix + "." + std::to_string(r) + ".et";
        std::error_code ec;
        if (fs::is_regular_file(plain, ec))
        {
            return plain;
        }
        if (fs::is_regular_file(plain + ".gz", ec))
        {
            return plain + ".gz";
        }
        return std::string();
    };
    std::vector<std::string> files;
    if (ranks > 0)
    {
        for (uint32_t r = 0; r < ranks; ++r)
        {
            files.push_back(fileOf(r));
            if (files.back().empty())
            {
                throw std::runtime_error(prefix + "." + std::to_string(r) +
                                         ".et: missing: the job has " + std::to_string(ranks) +
                                         " ranks, one file each");
            }
        }
        return files;
    }
    while (files.size() < std::numeric_limits<uint32_t>::max())
    {
        const std::string f = fileOf(files.size());
        if (f.empty())
        {
            break;
        }
        files.push_back(f);
    }
    const std::string missing = prefix + "." + std::to_string(files.size()) + ".et";
    if (files.empty())
    {
        throw std::runtime_error(missing + ": no such file (a Chakra trace is <prefix>.<rank>.et, "
                                           "one file per rank from 0)");
    }
    // A file for a higher rank than the first one missing: a gap, not the end.
    const fs::path p(prefix);
    const std::string stem = p.filename().string() + ".";
    std::error_code ec;
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    {
        std::string name = it->path().filename().string();
        if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0)
        {
            name.resize(name.size() - 3);
        }
        if (name.size() <= stem.size() + 3 || name.compare(0, stem.size(), stem) != 0 ||
            name.compare(name.size() - 3, 3, ".et") != 0)
        {
            continue;
        }
        const std::string digits = name.substr(stem.size(), name.size() - stem.size() - 3);
        const std::optional<int64_t> r =
            ParseDecimal(digits, 0, std::numeric_limits<int32_t>::max());
        if (r && static_cast<uint64_t>(*r) > files.size())
        {
            throw std::runtime_error(missing + ": missing, but " + it->path().string() +
                                     " exists: every rank below it needs its file");
        }
    }
    return files;
}

JobGraph
ReadChakraTraceBytes(const std::vector<ChakraRankBytes>& ranks,
                     const std::string& commGroupsText,
                     const std::string& commGroupsSource,
                     const ChakraTraceOptions& options)
{
    if (ranks.empty())
    {
        throw std::invalid_argument("a Chakra trace needs at least one rank file");
    }
    if (ranks.size() > std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("too many rank files");
    }
    if (options.channels == 0)
    {
        throw std::invalid_argument("Chakra trace: channels = 0; need at least 1");
    }
    if (options.allReduce.empty())
    {
        throw std::invalid_argument("Chakra trace: no all-reduce algorithm");
    }
    const uint32_t rankCount = static_cast<uint32_t>(ranks.size());
    // Messages are parsed from int-sized arrays.
    const uint64_t maxBytes =
        std::min<uint64_t>(options.maxFileBytes, std::numeric_limits<int>::max());
    std::vector<RankTrace> traces;
    traces.reserve(rankCount);
    for (uint32_t r = 0; r < rankCount; ++r)
    {
        traces.push_back(DecodeRank(ranks[r], r, rankCount, maxBytes));
        ResolveDeps(traces.back(), options.deps);
        OrderRank(traces.back());
    }
    std::map<int64_t, Group> groups = ReadCommGroups(commGroupsText, commGroupsSource, rankCount);
    AddDeclaredGroups(traces, groups);
    ResolveGroups(traces, groups, commGroupsSource);
    return GraphBuilder(traces, std::move(groups), options).Build();
}

JobGraph
ReadChakraTrace(const std::string& prefix, const ChakraTraceOptions& options)
{
    std::vector<ChakraRankBytes> ranks;
    for (const std::string& path : FindChakraRankFiles(prefix, options.ranks))
    {
        ranks.push_back(ChakraRankBytes{path, ReadInputFile(path)});
    }
    std::string groups;
    if (!options.commGroups.empty())
    {
        groups = ReadInputFile(options.commGroups);
    }
    return ReadChakraTraceBytes(ranks, groups, options.commGroups, options);
}

} // namespace ns3
