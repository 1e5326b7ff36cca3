/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "chakra-trace-decode.h"

#include "et_def.pb.h"

#include "ns3/csv-fields.h"
#include "ns3/unit-strings.h"

#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <zlib.h>

namespace ns3
{
namespace chakra
{

using ChakraProtoMsg::AttributeProto;

/// The largest node duration the simulator's clock holds, in microseconds.
/// The clock holds 2^63 ps: the longest duration_micros it can run.
constexpr uint64_t kMaxMicros = static_cast<uint64_t>(kMaxSimulatedTimeNs) / 1000;

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
                n.commSize =
                    attrs.Unsigned("comm_size", kMaxByteCount, "a collective's bytes per rank");
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
        n.commSize = attrs.Unsigned("comm_size", kMaxByteCount, "a send or receive's bytes");
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
                 std::to_string(us) + " us does not fit the simulator's clock (2^63 ps)");
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

} // namespace chakra
} // namespace ns3
