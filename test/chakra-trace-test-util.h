/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CHAKRA_TRACE_TEST_UTIL_H
#define CHAKRA_TRACE_TEST_UTIL_H

// The Chakra reader's tests' tools: the carried traces, protobuf nodes and
// .et files written from them, and a fixture that writes rank files.

#include "../fuzz/chakra-trace-input.h"
#include "et_def.pb.h"
#include "temp-dir-test.h"

#include "ns3/chakra-trace-reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <zlib.h>

namespace ns3
{
namespace chakratest
{

namespace fs = std::filesystem;
using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

inline const fs::path kData = fs::path(CS_SOURCE_DIR) / "data" / "workloads";

inline std::string
ReadBytes(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

/// \p bytes compressed as a gzip stream.
inline std::string
Gzip(const std::string& bytes)
{
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&z, bytes.size()) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

/// The data of gzip stream \p bytes.
inline std::string
Gunzip(const std::string& bytes)
{
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    std::string out;
    char chunk[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK)
    {
        z.next_out = reinterpret_cast<Bytef*>(chunk);
        z.avail_out = sizeof(chunk);
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(chunk, sizeof(chunk) - z.avail_out);
    }
    EXPECT_EQ(rc, Z_STREAM_END);
    inflateEnd(&z);
    return out;
}

/// The file \p name of ustar archive \p tar (512-byte header blocks, octal sizes).
inline std::string
TarMember(const std::string& tar, const std::string& name)
{
    size_t pos = 0;
    while (pos + 512 <= tar.size() && tar[pos] != '\0')
    {
        const std::string member = tar.substr(pos, 100).c_str();
        const size_t size = std::stoul(tar.substr(pos + 124, 12).c_str(), nullptr, 8);
        if (member == name)
        {
            return tar.substr(pos + 512, size);
        }
        pos += 512 + (size + 511) / 512 * 512;
    }
    ADD_FAILURE() << "no " << name << " in the archive";
    return "";
}

/// \p m as a length-delimited message, as .et files hold them.
inline void
Append(std::string& out, const google::protobuf::Message& m)
{
    std::string body;
    m.SerializeToString(&body);
    uint64_t n = body.size();
    while (n >= 0x80)
    {
        out += static_cast<char>((n & 0x7f) | 0x80);
        n >>= 7;
    }
    out += static_cast<char>(n);
    out += body;
}

/// The nodes of an .et file, decoded here (the GlobalMetadata skipped).
inline std::vector<Node>
DecodeNodes(const std::string& bytes)
{
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    std::vector<Node> nodes;
    uint32_t size = 0;
    bool first = true;
    while (in.ReadVarint32(&size))
    {
        const auto limit = in.PushLimit(static_cast<int>(size));
        if (first)
        {
            ChakraProtoMsg::GlobalMetadata meta;
            EXPECT_TRUE(meta.ParseFromCodedStream(&in));
            first = false;
        }
        else
        {
            nodes.emplace_back();
            EXPECT_TRUE(nodes.back().ParseFromCodedStream(&in));
        }
        in.PopLimit(limit);
    }
    return nodes;
}

inline const AttributeProto*
Attr(const Node& n, const std::string& name)
{
    for (const AttributeProto& a : n.attr())
    {
        if (a.name() == name)
        {
            return &a;
        }
    }
    return nullptr;
}

// --------------------------------------------------------- building nodes

inline AttributeProto
IntAttr(const std::string& name, int64_t v)
{
    AttributeProto a;
    a.set_name(name);
    a.set_int64_val(v);
    return a;
}

inline Node
MakeNode(uint64_t id, ChakraProtoMsg::NodeType type, std::vector<uint64_t> deps = {})
{
    Node n;
    n.set_id(id);
    n.set_name("node" + std::to_string(id));
    n.set_type(type);
    for (uint64_t d : deps)
    {
        n.add_data_deps(d);
    }
    return n;
}

inline Node
Comp(uint64_t id, uint64_t micros, std::vector<uint64_t> deps = {})
{
    Node n = MakeNode(id, ChakraProtoMsg::COMP_NODE, std::move(deps));
    n.set_duration_micros(micros);
    return n;
}

inline Node
Coll(uint64_t id,
     ChakraProtoMsg::CollectiveCommType type,
     int64_t bytes,
     std::vector<uint64_t> deps = {},
     const std::string& pg = "")
{
    Node n = MakeNode(id, ChakraProtoMsg::COMM_COLL_NODE, std::move(deps));
    *n.add_attr() = IntAttr("comm_type", type);
    *n.add_attr() = IntAttr("comm_size", bytes);
    if (!pg.empty())
    {
        AttributeProto* a = n.add_attr();
        a->set_name("pg_name");
        a->set_string_val(pg);
    }
    return n;
}

inline Node
Send(uint64_t id, int64_t dst, int64_t bytes, std::vector<uint64_t> deps = {}, int64_t tag = 0)
{
    Node n = MakeNode(id, ChakraProtoMsg::COMM_SEND_NODE, std::move(deps));
    *n.add_attr() = IntAttr("comm_dst", dst);
    *n.add_attr() = IntAttr("comm_size", bytes);
    *n.add_attr() = IntAttr("comm_tag", tag);
    return n;
}

inline Node
Recv(uint64_t id, int64_t src, int64_t bytes, std::vector<uint64_t> deps = {}, int64_t tag = 0)
{
    Node n = MakeNode(id, ChakraProtoMsg::COMM_RECV_NODE, std::move(deps));
    *n.add_attr() = IntAttr("comm_src", src);
    *n.add_attr() = IntAttr("comm_size", bytes);
    *n.add_attr() = IntAttr("comm_tag", tag);
    return n;
}

/// An .et file of \p nodes.
inline std::string
EtFile(const std::vector<Node>& nodes)
{
    std::string out;
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version("0.0.4");
    Append(out, meta);
    for (const Node& n : nodes)
    {
        Append(out, n);
    }
    return out;
}

// ------------------------------------------------------------ graph facts

/// The longest path through \p g's dependencies, weighing compute ops by their time.
inline Time
CriticalPath(const JobGraph& g)
{
    std::vector<Time> finish(g.GetOps().size());
    Time longest;
    for (uint32_t i = 0; i < g.GetOps().size(); ++i)
    {
        const GraphOp& op = g.GetOp(i);
        Time start;
        for (uint32_t d : op.deps)
        {
            start = std::max(start, finish[d]);
        }
        finish[i] = start + (op.kind == GraphOp::Kind::Compute ? op.duration : Time());
        longest = std::max(longest, finish[i]);
    }
    return longest;
}

inline std::vector<uint32_t>
OpsOf(const JobGraph& g, GraphOp::Kind kind)
{
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < g.GetOps().size(); ++i)
    {
        if (g.GetOp(i).kind == kind)
        {
            out.push_back(i);
        }
    }
    return out;
}

class ChakraFiles : public test::TempDirTest
{
  protected:
    /// Writes rank r's file as <stem>.<r>.et. \return the prefix
    std::string WriteRanks(const std::string& stem, const std::vector<std::string>& files) const
    {
        for (size_t r = 0; r < files.size(); ++r)
        {
            Write(stem + "." + std::to_string(r) + ".et", files[r]);
        }
        return (m_dir / stem).string();
    }

    std::string WriteRanks(const std::string& stem,
                           const std::vector<std::vector<Node>>& ranks) const
    {
        std::vector<std::string> files;
        for (const auto& nodes : ranks)
        {
            files.push_back(EtFile(nodes));
        }
        return WriteRanks(stem, files);
    }

    std::string Path(const std::string& name) const
    {
        return (m_dir / name).string();
    }

    /**
     * Expects \p read to fail with "<source>:<record>: <field>: ..." whose
     * message contains \p part.
     */
    static void ExpectError(const std::function<void()>& read,
                            const std::string& source,
                            uint64_t record,
                            const std::string& field,
                            const std::string& part)
    {
        try
        {
            read();
            ADD_FAILURE() << "expected an error " << source << ":" << record << ": " << field;
        }
        catch (const std::runtime_error& e)
        {
            const std::string msg = e.what();
            const std::string head = source + ":" + std::to_string(record) + ": " + field + ": ";
            EXPECT_EQ(msg.rfind(head, 0), 0u) << "message: " << msg << "\nexpected head: " << head;
            EXPECT_NE(msg.find(part), std::string::npos)
                << "message: " << msg << "\nmissing: " << part;
        }
    }

    /// Expects reading the ranks \p ranks to fail in rank \p rank's file.
    void ExpectRankError(const std::vector<std::vector<Node>>& ranks,
                         uint32_t rank,
                         uint64_t record,
                         const std::string& field,
                         const std::string& part,
                         const ChakraTraceOptions& options = {}) const
    {
        // A stem of its own: files of an earlier case must not add ranks.
        const std::string prefix = WriteRanks("job" + std::to_string(m_cases++), ranks);
        ExpectError([&]() { ReadChakraTrace(prefix, options); },
                    prefix + "." + std::to_string(rank) + ".et",
                    record,
                    field,
                    part);
    }

    mutable uint32_t m_cases{0};
};

// ----------------------------------------------------------- ASTRA-sim's files

} // namespace chakratest
} // namespace ns3

#endif /* CHAKRA_TRACE_TEST_UTIL_H */
