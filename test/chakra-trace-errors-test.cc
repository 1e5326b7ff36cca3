/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Chakra traces the reader refuses: missing rank files, dependency cycles,
 * unmatched communication, bad groups, nodes and sizes, broken files, each
 * an error naming the file, the node and the field; and the fuzz corpus.
 */
#include "chakra-trace-test-util.h"

#include "ns3/unit-strings.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace ns3;
using namespace ns3::chakratest;

namespace
{

namespace fs = std::filesystem;
using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

TEST_F(ChakraFiles, DependencyErrors)
{
    ExpectRankError({{Comp(1, 1, {2}), Comp(2, 1, {1})}}, 0, 1, "data_deps", "cycle");
    Node self = Comp(3, 1);
    self.add_ctrl_deps(3);
    ExpectRankError({{Comp(1, 1), self}}, 0, 3, "ctrl_deps", "node 3 waits for 3");
    ExpectRankError({{Comp(1, 1), Comp(5, 1, {99})}}, 0, 5, "data_deps", "99 names no node");
    ExpectRankError({{Comp(1, 1), Comp(1, 2)}}, 0, 1, "id", "a second node with this id");
}

TEST_F(ChakraFiles, UnmatchedCommunication)
{
    ExpectRankError({{Send(4, 1, 10)}, {Comp(1, 1)}}, 0, 4, "comm_dst", "no matching receive");
    ExpectRankError({{Comp(1, 1)}, {Recv(6, 0, 10)}}, 1, 6, "comm_src", "no matching send");
    ExpectRankError({{Send(4, 1, 10)}, {Recv(6, 0, 20)}}, 1, 6, "comm_size", "sends 10");
    ExpectRankError({{Coll(3, ChakraProtoMsg::ALL_REDUCE, 8)}, {Comp(1, 1)}},
                    0,
                    3,
                    "comm_type",
                    "no match on rank 1");
    ExpectRankError(
        {{Coll(3, ChakraProtoMsg::ALL_REDUCE, 8)}, {Coll(3, ChakraProtoMsg::ALL_GATHER, 8)}},
        1,
        3,
        "comm_type",
        "ALL_GATHER, but collective 1");
    ExpectRankError(
        {{Coll(3, ChakraProtoMsg::ALL_REDUCE, 8)}, {Coll(3, ChakraProtoMsg::ALL_REDUCE, 16)}},
        1,
        3,
        "comm_size",
        "16 bytes");
    ExpectRankError({{Send(2, 0, 10)}}, 0, 2, "comm_dst", "to itself");
    ExpectRankError({{Send(2, 5, 10)}, {Comp(1, 1)}}, 0, 2, "comm_dst", "out of range");
}

TEST_F(ChakraFiles, CollectivesReachedInDifferentOrdersAreACycle)
{
    Write("groups.json", "{\"1\": [0, 1], \"2\": [0, 1]}");
    ChakraTraceOptions options;
    options.commGroups = Path("groups.json");
    const std::string prefix = WriteRanks("job",
                                          {{Coll(1, ChakraProtoMsg::ALL_REDUCE, 8, {}, "1"),
                                            Coll(2, ChakraProtoMsg::ALL_REDUCE, 8, {1}, "2")},
                                           {Coll(1, ChakraProtoMsg::ALL_REDUCE, 8, {}, "2"),
                                            Coll(2, ChakraProtoMsg::ALL_REDUCE, 8, {1}, "1")}});
    try
    {
        ReadChakraTrace(prefix, options);
        ADD_FAILURE() << "a cycle across ranks";
    }
    catch (const std::runtime_error& e)
    {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind(prefix + ".", 0), 0u) << msg;
        EXPECT_NE(msg.find(": deps: a dependency cycle across ranks"), std::string::npos) << msg;
    }
}

TEST_F(ChakraFiles, GroupErrors)
{
    Write("groups.json", "{\n  \"1\": [0, 5]\n}\n");
    ChakraTraceOptions options;
    options.commGroups = Path("groups.json");
    const std::string prefix = WriteRanks("job", {{Comp(1, 1)}, {Comp(1, 1)}});
    ExpectError([&]() { ReadChakraTrace(prefix, options); },
                Path("groups.json"),
                2,
                "1[1]",
                "rank 5, but the job has 2 ranks");
    ExpectRankError({{Coll(3, ChakraProtoMsg::ALL_REDUCE, 8, {}, "7")}},
                    0,
                    3,
                    "pg_name",
                    "group 7 is not defined");
    Write("two.json", "{\"1\": [1]}");
    ChakraTraceOptions two;
    two.commGroups = Path("two.json");
    ExpectRankError({{Coll(3, ChakraProtoMsg::ALL_REDUCE, 8, {}, "1")}, {Comp(1, 1)}},
                    0,
                    3,
                    "pg_name",
                    "rank 0 is not a member of group 1",
                    two);
}

TEST_F(ChakraFiles, NodeErrors)
{
    ExpectRankError({{MakeNode(2, ChakraProtoMsg::MEM_LOAD_NODE)}},
                    0,
                    2,
                    "type",
                    "MEM_LOAD_NODE: remote memory is not modelled");
    Node unknown = MakeNode(4, ChakraProtoMsg::COMP_NODE);
    unknown.set_type(static_cast<ChakraProtoMsg::NodeType>(42));
    ExpectRankError({{unknown}}, 0, 4, "type", "42 is no NodeType");
    Node stringSize = Coll(5, ChakraProtoMsg::ALL_REDUCE, 8);
    stringSize.mutable_attr(1)->set_string_val("8");
    ExpectRankError({{stringSize}}, 0, 5, "comm_size", "expected an integer, got string_val");
    ExpectRankError({{Coll(6, ChakraProtoMsg::ALL_REDUCE, -5)}},
                    0,
                    6,
                    "comm_size",
                    "must not be negative");
    ExpectRankError({{Coll(7, ChakraProtoMsg::BARRIER, 8)}},
                    0,
                    7,
                    "comm_type",
                    "BARRIER is not supported");
    Node twice = Coll(8, ChakraProtoMsg::ALL_REDUCE, 8);
    *twice.add_attr() = IntAttr("comm_size", 9);
    ExpectRankError({{twice}}, 0, 8, "comm_size", "given twice");
}

TEST_F(ChakraFiles, SizesAndTimesThatOverflow)
{
    Node big = Coll(3, ChakraProtoMsg::ALL_GATHER, 0);
    big.mutable_attr(1)->set_uint64_val(uint64_t{1} << 63);
    ExpectRankError({{big}, {big}},
                    0,
                    3,
                    "comm_size",
                    "out of range (at most 1000000000000000000)");
    // One cap for byte counts, wherever they enter: 10^18 + 1 is refused.
    Node over = Coll(5, ChakraProtoMsg::ALL_REDUCE, 0);
    over.mutable_attr(1)->set_uint64_val(kMaxByteCount + 1);
    ExpectRankError({{over}, {over}}, 0, 5, "comm_size", "out of range");
    // The clock holds 2^63 ps: a duration that fits 2^63 ns but not that is refused.
    const uint64_t pastPs = static_cast<uint64_t>(kMaxSimulatedTimeNs) / 1000 + 1;
    ExpectRankError({{Comp(6, pastPs)}},
                    0,
                    6,
                    "duration_micros",
                    "does not fit the simulator's clock (2^63 ps)");
    ExpectRankError({{Comp(4, uint64_t{1} << 62)}},
                    0,
                    4,
                    "duration_micros",
                    "does not fit the simulator's clock");
    const uint64_t half = static_cast<uint64_t>(kMaxSimulatedTimeNs) / 1000 / 2;
    ExpectRankError({{Comp(1, half), Comp(2, half), Comp(3, half)}},
                    0,
                    3,
                    "duration_micros",
                    "adds up to more than");
}

TEST_F(ChakraFiles, BrokenFiles)
{
    const std::string good = EtFile({Comp(1, 1), Comp(2, 1, {1})});
    const std::string cut = good.substr(0, good.size() - 2);
    const std::string prefix = WriteRanks("cut", std::vector<std::string>{cut});
    // The last node's message starts where the first two end.
    const size_t lastStart = EtFile({Comp(1, 1)}).size();
    ExpectError([&]() { ReadChakraTrace(prefix); },
                prefix + ".0.et",
                0,
                "message 3 (byte " + std::to_string(lastStart) + ")",
                "truncated");

    ExpectError([&]() { ReadChakraTrace(WriteRanks("empty", std::vector<std::string>{""})); },
                Path("empty.0.et"),
                0,
                "message 1 (byte 0)",
                "the file is empty");
    ExpectError(
        [&]() { ReadChakraTrace(WriteRanks("text", std::vector<std::string>{"not a trace\n"})); },
        Path("text.0.et"),
        0,
        "message 1 (byte 0)",
        "");
    ExpectError(
        [&]() {
            ReadChakraTrace(WriteRanks("badzip", std::vector<std::string>{"\x1f\x8b\x08garbage"}));
        },
        Path("badzip.0.et"),
        0,
        "gzip",
        "");
    const std::string zipped = Gzip(good);
    ExpectError(
        [&]() {
            ReadChakraTrace(
                WriteRanks("cutzip",
                           std::vector<std::string>{zipped.substr(0, zipped.size() / 2)}));
        },
        Path("cutzip.0.et"),
        0,
        "gzip",
        "ends early");
    // A field et_def.proto does not define: not a Chakra node.
    std::string alien = EtFile({Comp(1, 1)});
    Node plain = Comp(2, 1);
    std::string body;
    plain.SerializeToString(&body);
    body += std::string("\xa8\x06\x01", 3); // field 101, varint 1
    alien += static_cast<char>(body.size());
    alien += body;
    ExpectError([&]() { ReadChakraTrace(WriteRanks("alien", std::vector<std::string>{alien})); },
                Path("alien.0.et"),
                0,
                "message 3 (byte " + std::to_string(EtFile({Comp(1, 1)}).size()) + ")",
                "fields et_def.proto does not define");
    ExpectError(
        [&]() { ReadChakraTrace(WriteRanks("bare", std::vector<std::string>{EtFile({})})); },
        Path("bare.0.et"),
        0,
        "message 2 (byte " + std::to_string(EtFile({}).size()) + ")",
        "no node");
}

TEST(ChakraOptions, DepsNamesRoundTrip)
{
    EXPECT_EQ(ParseChakraDeps(ChakraDepsName(ChakraDeps::Data)), ChakraDeps::Data);
    EXPECT_EQ(ParseChakraDeps(ChakraDepsName(ChakraDeps::DataAndControl)),
              ChakraDeps::DataAndControl);
    EXPECT_THROW(ParseChakraDeps("ctrl"), std::invalid_argument);
    ChakraTraceOptions none;
    none.channels = 0;
    EXPECT_THROW(ReadChakraTraceBytes({{"a.0.et", EtFile({Comp(1, 1)})}}, "", "", none),
                 std::invalid_argument);
}

// The fuzz target's corpus: each input read, or refused with an error that
// names one of its files.
TEST(ChakraFuzzCorpus, EveryInputIsReadOrRejectedNamingAFile)
{
    const fs::path dir = fs::path(CS_SOURCE_DIR) / "fuzz" / "corpus" / "chakra-trace";
    std::vector<fs::path> inputs;
    for (const auto& e : fs::directory_iterator(dir))
    {
        inputs.push_back(e.path());
    }
    std::sort(inputs.begin(), inputs.end());
    ASSERT_GE(inputs.size(), 5u);
    uint32_t accepted = 0;
    uint32_t rejected = 0;
    for (const fs::path& input : inputs)
    {
        std::vector<std::string> sources;
        try
        {
            fuzz::ReadChakraFuzzInput(ReadBytes(input), sources);
            ++accepted;
        }
        catch (const std::exception& e)
        {
            ++rejected;
            const std::string msg = e.what();
            EXPECT_TRUE(
                std::any_of(sources.begin(),
                            sources.end(),
                            [&](const std::string& s) { return msg.rfind(s + ":", 0) == 0; }))
                << input << ": the error names none of the input's files: " << msg;
        }
    }
    EXPECT_GT(accepted, 0u);
    EXPECT_GT(rejected, 0u);
}

} // namespace
