/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Chakra execution trace reader: ASTRA-sim's microbenchmarks and custom ring
// all-reduce, a PyTorch trace whose critical path must equal a longest path
// computed here from the protobuf nodes themselves, and the node mapping (bad input:
// the errors are in chakra-trace-errors-test.cc). The expectations come
// from decoding the files here with the generated protobuf classes, not
// from the reader.

#include "chakra-trace-test-util.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace ns3;
using namespace ns3::chakratest;

namespace
{

namespace fs = std::filesystem;
using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

struct Microbenchmark
{
    std::string collective; ///< the folder and file stem
    uint32_t npus;
    std::string algorithm; ///< the module's collective
};

class Microbenchmarks : public ::testing::TestWithParam<Microbenchmark>
{
};

TEST_P(Microbenchmarks, OneCollectiveOverEveryRank)
{
    const Microbenchmark& m = GetParam();
    const fs::path dir = kData / "astra-sim" / "microbenchmarks" / m.collective /
                         (std::to_string(m.npus) + "npus_1MB");
    const JobGraph g = ReadChakraTrace((dir / m.collective).string());

    // What the files say, decoded here: each rank one collective of 1 MiB.
    uint64_t commSize = 0;
    for (uint32_t r = 0; r < m.npus; ++r)
    {
        const std::vector<Node> nodes =
            DecodeNodes(ReadBytes(dir / (m.collective + "." + std::to_string(r) + ".et")));
        ASSERT_EQ(nodes.size(), 1u);
        ASSERT_EQ(nodes[0].type(), ChakraProtoMsg::COMM_COLL_NODE);
        ASSERT_NE(Attr(nodes[0], "comm_size"), nullptr);
        commSize = Attr(nodes[0], "comm_size")->int64_val();
    }
    EXPECT_EQ(commSize, 1048576u);

    ASSERT_EQ(g.GetRankCount(), m.npus);
    ASSERT_EQ(g.GetOps().size(), 1u);
    const GraphOp& op = g.GetOp(0);
    EXPECT_EQ(op.kind, GraphOp::Kind::Collective);
    EXPECT_EQ(op.algorithm, m.algorithm);
    std::vector<uint32_t> all(m.npus);
    for (uint32_t r = 0; r < m.npus; ++r)
    {
        all[r] = r;
    }
    EXPECT_EQ(op.ranks, all);
    // ASTRA-sim's all-gather sends comm_size per step: each rank's share of an
    // output N times as large, which is the buffer the module's all-gather takes.
    EXPECT_EQ(op.bytes, m.algorithm == "all-gather" ? m.npus * commSize : commSize);
    EXPECT_EQ(op.group, CommGroup::Data);
    EXPECT_TRUE(op.planned);
    EXPECT_TRUE(op.deps.empty());
    EXPECT_EQ(g.GetPlannedOpCount(), 1u);
}

INSTANTIATE_TEST_SUITE_P(AstraSim,
                         Microbenchmarks,
                         ::testing::Values(Microbenchmark{"all_reduce", 8, "ring-all-reduce"},
                                           Microbenchmark{"all_reduce", 16, "ring-all-reduce"},
                                           Microbenchmark{"all_gather", 8, "all-gather"},
                                           Microbenchmark{"all_gather", 16, "all-gather"},
                                           Microbenchmark{"reduce_scatter", 8, "reduce-scatter"},
                                           Microbenchmark{"reduce_scatter", 16, "reduce-scatter"},
                                           Microbenchmark{"all_to_all", 8, "all-to-all"},
                                           Microbenchmark{"all_to_all", 16, "all-to-all"}),
                         [](const auto& info) {
                             return info.param.collective + "_" + std::to_string(info.param.npus);
                         });

TEST(CustomRing, SendsReceivesAndComputesOfEachRank)
{
    const fs::path dir = kData / "astra-sim" / "custom_ring_allreduce_8npus_1MB";
    const JobGraph g = ReadChakraTrace((dir / "custom_allreduce").string());
    const uint32_t ranks = 8;
    ASSERT_EQ(g.GetRankCount(), ranks);

    std::map<uint32_t, std::vector<uint32_t>> computes; // rank -> ops
    std::map<uint32_t, std::vector<uint32_t>> sent;     // rank -> transfer ops
    std::map<uint32_t, std::vector<uint32_t>> received; // rank -> transfer ops
    for (uint32_t i = 0; i < g.GetOps().size(); ++i)
    {
        const GraphOp& op = g.GetOp(i);
        ASSERT_NE(op.kind, GraphOp::Kind::Collective);
        if (op.kind == GraphOp::Kind::Compute)
        {
            ASSERT_EQ(op.ranks.size(), 1u);
            computes[op.ranks[0]].push_back(i);
        }
        else
        {
            sent[op.ranks[0]].push_back(i);
            received[op.ranks[1]].push_back(i);
        }
    }
    std::set<uint32_t> computeStreams;
    std::set<uint32_t> sendStreams;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        // The file of rank r, decoded here.
        const std::vector<Node> nodes =
            DecodeNodes(ReadBytes(dir / ("custom_allreduce." + std::to_string(r) + ".et")));
        std::vector<const Node*> comps;
        std::vector<const Node*> sends;
        std::vector<const Node*> recvs;
        for (const Node& n : nodes)
        {
            (n.type() == ChakraProtoMsg::COMP_NODE        ? comps
             : n.type() == ChakraProtoMsg::COMM_SEND_NODE ? sends
                                                          : recvs)
                .push_back(&n);
        }
        EXPECT_EQ(comps.size(), 7u);
        EXPECT_EQ(sends.size(), 14u);
        EXPECT_EQ(recvs.size(), 14u);

        ASSERT_EQ(computes[r].size(), comps.size()) << "rank " << r;
        ASSERT_EQ(sent[r].size(), sends.size()) << "rank " << r;
        ASSERT_EQ(received[r].size(), recvs.size()) << "rank " << r;
        for (size_t k = 0; k < comps.size(); ++k)
        {
            const GraphOp& op = g.GetOp(computes[r][k]);
            EXPECT_EQ(op.duration, MicroSeconds(comps[k]->duration_micros()));
            computeStreams.insert(op.stream);
        }
        // Sends go to comm_dst (the next rank of the ring), with their size.
        for (size_t k = 0; k < sends.size(); ++k)
        {
            const GraphOp& op = g.GetOp(sent[r][k]);
            EXPECT_EQ(op.ranks[1], static_cast<uint32_t>(Attr(*sends[k], "comm_dst")->int32_val()));
            EXPECT_EQ(op.ranks[1], (r + 1) % ranks);
            EXPECT_EQ(op.bytes, static_cast<uint64_t>(Attr(*sends[k], "comm_size")->int64_val()));
            EXPECT_EQ(op.group, CommGroup::None);
            EXPECT_FALSE(op.planned);
            sendStreams.insert(op.stream);
        }
        for (uint32_t t : received[r])
        {
            EXPECT_EQ(g.GetOp(t).ranks[0],
                      static_cast<uint32_t>(Attr(*recvs[0], "comm_src")->int32_val()));
        }
        // The first compute reduces what the first receive brought; that
        // receive was posted after the first send: it waits for both.
        ASSERT_EQ(comps[0]->data_deps_size(), 1);
        ASSERT_EQ(comps[0]->data_deps(0), recvs[0]->id());
        ASSERT_EQ(recvs[0]->data_deps_size(), 1);
        ASSERT_EQ(recvs[0]->data_deps(0), sends[0]->id());
        std::vector<uint32_t> expected{sent[r][0], received[r][0]};
        std::sort(expected.begin(), expected.end());
        EXPECT_EQ(g.GetOp(computes[r][0]).deps, expected) << "rank " << r;
    }
    // One compute stream and one send stream per rank.
    EXPECT_EQ(computeStreams.size(), ranks);
    EXPECT_EQ(sendStreams.size(), ranks);
    EXPECT_EQ(g.GetComputeTimePerRank(), MicroSeconds(49));
}

// ---------------------------------------------------------- a PyTorch trace

/// The trace of rank 0 of a PyTorch run, out of its tar archive.
class PyTorchTrace : public ChakraFiles
{
  protected:
    void SetUp() override
    {
        ChakraFiles::SetUp();
        const std::string tar =
            Gunzip(ReadBytes(kData / "chakra" / "pytorch-rank0-trace.et.tar.gz"));
        m_bytes = TarMember(tar, "tests/data/chakra.0.et");
        ASSERT_FALSE(m_bytes.empty());
        m_prefix = WriteRanks("pytorch", std::vector<std::string>{m_bytes});
    }

    std::string m_bytes;
    std::string m_prefix;
};

/**
 * The longest path over \p nodes' data_deps, brute force: a node's time is
 * its duration (1 ns when 0) if it runs as time on the rank (compute, a
 * host-side communication op, a replayed broadcast), else 0.
 */
Time
LongestDataPath(const std::vector<Node>& nodes)
{
    std::map<uint64_t, const Node*> byId;
    for (const Node& n : nodes)
    {
        byId[n.id()] = &n;
    }
    std::map<uint64_t, Time> memo;
    std::function<Time(uint64_t)> finish = [&](uint64_t id) -> Time {
        auto it = memo.find(id);
        if (it != memo.end())
        {
            return it->second;
        }
        const Node& n = *byId.at(id);
        Time start;
        for (uint64_t d : n.data_deps())
        {
            start = std::max(start, finish(d));
        }
        const AttributeProto* cpu = Attr(n, "is_cpu_op");
        const AttributeProto* type = Attr(n, "comm_type");
        const bool timed = n.type() == ChakraProtoMsg::COMP_NODE || (cpu && cpu->bool_val()) ||
                           (type && type->int64_val() == ChakraProtoMsg::BROADCAST);
        const Time own = !timed                     ? Time()
                         : n.duration_micros() == 0 ? NanoSeconds(1)
                                                    : MicroSeconds(n.duration_micros());
        return memo[id] = start + own;
    };
    Time longest;
    for (const Node& n : nodes)
    {
        longest = std::max(longest, finish(n.id()));
    }
    return longest;
}

TEST_F(PyTorchTrace, CriticalPathIsTheLongestDataPathOfTheNodes)
{
    ChakraTraceOptions options;
    options.deps = ChakraDeps::Data;
    const JobGraph g = ReadChakraTrace(m_prefix, options);
    const std::vector<Node> nodes = DecodeNodes(m_bytes);
    ASSERT_EQ(nodes.size(), 3664u);

    const Time expected = LongestDataPath(nodes);
    EXPECT_GT(expected, MilliSeconds(1));
    EXPECT_EQ(CriticalPath(g), expected);

    // Every node is an op (no receives or pass-through nodes here); the GPU
    // collectives other than broadcasts are the collectives.
    size_t collectives = 0;
    for (const Node& n : nodes)
    {
        const AttributeProto* cpu = Attr(n, "is_cpu_op");
        const AttributeProto* type = Attr(n, "comm_type");
        collectives += n.type() == ChakraProtoMsg::COMM_COLL_NODE && !(cpu && cpu->bool_val()) &&
                       type->int64_val() != ChakraProtoMsg::BROADCAST;
    }
    EXPECT_EQ(g.GetOps().size(), nodes.size());
    EXPECT_EQ(OpsOf(g, GraphOp::Kind::Collective).size(), collectives);
    EXPECT_EQ(collectives, 5u);
}

TEST_F(PyTorchTrace, GzipReadsAlike)
{
    ChakraTraceOptions options;
    options.deps = ChakraDeps::Data;
    Write("zipped.0.et.gz", Gzip(m_bytes));
    const JobGraph plain = ReadChakraTrace(m_prefix, options);
    const JobGraph zipped = ReadChakraTrace(Path("zipped"), options);
    ASSERT_EQ(zipped.GetOps().size(), plain.GetOps().size());
    EXPECT_EQ(CriticalPath(zipped), CriticalPath(plain));
    EXPECT_EQ(zipped.GetComputeTimePerRank(), plain.GetComputeTimePerRank());
}

TEST_F(PyTorchTrace, ItsCtrlDepsAreACallStackThatNamesDroppedNodes)
{
    // With ctrl_deps followed, the first node (in file order) whose ctrl_deps
    // name a node the file lacks is the error.
    const std::vector<Node> nodes = DecodeNodes(m_bytes);
    std::set<uint64_t> ids;
    for (const Node& n : nodes)
    {
        ids.insert(n.id());
    }
    const Node* first = nullptr;
    uint64_t missing = 0;
    for (const Node& n : nodes)
    {
        for (uint64_t d : n.ctrl_deps())
        {
            if (!first && !ids.count(d))
            {
                first = &n;
                missing = d;
            }
        }
    }
    ASSERT_NE(first, nullptr);
    ExpectError([&]() { ReadChakraTrace(m_prefix); },
                m_prefix + ".0.et",
                first->id(),
                "ctrl_deps",
                std::to_string(missing) + " names no node of the file");
}

TEST_F(PyTorchTrace, ATarArchiveIsRefusedWithWhatToDo)
{
    Write("archive.0.et", ReadBytes(kData / "chakra" / "pytorch-rank0-trace.et.tar.gz"));
    ExpectError([&]() { ReadChakraTrace(Path("archive")); },
                Path("archive.0.et"),
                0,
                "file",
                "tar xzf");
}

// ----------------------------------------------------------- the mapping

TEST_F(ChakraFiles, CtrlDepsOrderNodesUnlessOnlyDataDepsAreRead)
{
    Node second = Comp(2, 5);
    second.add_ctrl_deps(1);
    const std::string prefix = WriteRanks("job", {{Comp(1, 10), second}});
    const JobGraph both = ReadChakraTrace(prefix);
    ASSERT_EQ(both.GetOps().size(), 2u);
    EXPECT_EQ(both.GetOp(1).deps, std::vector<uint32_t>{0});
    EXPECT_EQ(CriticalPath(both), MicroSeconds(15));

    ChakraTraceOptions dataOnly;
    dataOnly.deps = ChakraDeps::Data;
    const JobGraph data = ReadChakraTrace(prefix, dataOnly);
    EXPECT_TRUE(data.GetOp(1).deps.empty());
    EXPECT_EQ(CriticalPath(data), MicroSeconds(10));
}

TEST_F(ChakraFiles, NodeTypesBecomeOpsOnTheirStreams)
{
    Node cpu = Comp(2, 4, {1});
    AttributeProto* a = cpu.add_attr();
    a->set_name("is_cpu_op");
    a->set_bool_val(true);
    Node launch = MakeNode(3, ChakraProtoMsg::COMM_COLL_NODE, {2}); // host side, no comm_type
    launch.set_duration_micros(3);
    *launch.add_attr() = *a;
    Node broadcast = Coll(5, ChakraProtoMsg::BROADCAST, 64, {4});
    broadcast.set_duration_micros(6);
    Node meta = MakeNode(6, ChakraProtoMsg::METADATA_NODE, {5});
    const std::string prefix = WriteRanks("job",
                                          {{Comp(1, 0),
                                            cpu,
                                            launch,
                                            MakeNode(4, ChakraProtoMsg::INVALID_NODE, {3}),
                                            broadcast,
                                            meta,
                                            Comp(7, 2, {6})}});
    const JobGraph g = ReadChakraTrace(prefix);
    // INVALID and METADATA nodes pass their dependencies on; the rest are ops.
    ASSERT_EQ(g.GetOps().size(), 5u);
    for (const GraphOp& op : g.GetOps())
    {
        EXPECT_EQ(op.kind, GraphOp::Kind::Compute);
    }
    EXPECT_EQ(g.GetOp(0).duration, NanoSeconds(1)); // 0 us is replayed as 1 ns
    EXPECT_EQ(g.GetOp(1).duration, MicroSeconds(4));
    EXPECT_EQ(g.GetOp(2).duration, MicroSeconds(3));
    EXPECT_EQ(g.GetOp(3).duration, MicroSeconds(6));
    EXPECT_EQ(g.GetOp(4).duration, MicroSeconds(2));
    EXPECT_EQ(g.GetOp(3).deps, std::vector<uint32_t>{2}); // through the INVALID node
    EXPECT_EQ(g.GetOp(4).deps, std::vector<uint32_t>{3}); // through the METADATA node
    // GPU compute, CPU ops (compute and host-side launches), the broadcast on
    // the rank's communication stream.
    EXPECT_EQ(g.GetOp(0).stream, g.GetOp(4).stream);
    EXPECT_EQ(g.GetOp(1).stream, g.GetOp(2).stream);
    EXPECT_NE(g.GetOp(0).stream, g.GetOp(1).stream);
    EXPECT_NE(g.GetOp(3).stream, g.GetOp(0).stream);
    EXPECT_NE(g.GetOp(3).stream, g.GetOp(1).stream);
}

TEST_F(ChakraFiles, SendsAndReceivesBothWaysDoNotDeadlock)
{
    // Each rank sends, then receives, then computes on what came: the
    // transfers wait for the sends only, so the exchange is no cycle.
    const std::string prefix =
        WriteRanks("job",
                   {{Send(1, 1, 100), Recv(2, 1, 200, {1}), Comp(3, 5, {2})},
                    {Send(1, 0, 200), Recv(2, 0, 100, {1}), Comp(3, 5, {2})}});
    const JobGraph g = ReadChakraTrace(prefix);
    const std::vector<uint32_t> transfers = OpsOf(g, GraphOp::Kind::Transfer);
    ASSERT_EQ(transfers.size(), 2u);
    for (uint32_t t : transfers)
    {
        EXPECT_TRUE(g.GetOp(t).deps.empty());
        EXPECT_EQ(g.GetOp(t).bytes, g.GetOp(t).ranks[0] == 0 ? 100u : 200u);
    }
    for (uint32_t c : OpsOf(g, GraphOp::Kind::Compute))
    {
        // Rank r's compute waits for the transfer into r and for r's own send.
        const uint32_t r = g.GetOp(c).ranks[0];
        std::vector<uint32_t> expected;
        for (uint32_t t : transfers)
        {
            expected.push_back(t);
        }
        EXPECT_EQ(g.GetOp(c).deps, expected) << "rank " << r;
    }
}

TEST_F(ChakraFiles, CollectivesMatchInOrderWithinTheirGroups)
{
    const std::string prefix = WriteRanks("job",
                                          {{Coll(1, ChakraProtoMsg::ALL_REDUCE, 1000, {}, "1"),
                                            Coll(2, ChakraProtoMsg::ALL_TO_ALL, 40, {1}, "1")},
                                           {Coll(7, ChakraProtoMsg::ALL_REDUCE, 1000, {}, "1"),
                                            Coll(9, ChakraProtoMsg::ALL_TO_ALL, 40, {7}, "1")},
                                           {Coll(1, ChakraProtoMsg::REDUCE_SCATTER, 64, {}, "2")},
                                           {Coll(3, ChakraProtoMsg::REDUCE_SCATTER, 64, {}, "2")}});
    Write("groups.json", "{\"1\": [1, 0], \"2\": [2, 3]}");
    ChakraTraceOptions options;
    options.commGroups = Path("groups.json");
    const JobGraph g = ReadChakraTrace(prefix, options);
    const std::vector<uint32_t> colls = OpsOf(g, GraphOp::Kind::Collective);
    ASSERT_EQ(colls.size(), 3u);
    std::map<std::string, const GraphOp*> byAlgorithm;
    for (uint32_t c : colls)
    {
        byAlgorithm[g.GetOp(c).algorithm] = &g.GetOp(c);
    }
    // The group's ranks in the file's order are the collective's ranks 0..N-1.
    EXPECT_EQ(byAlgorithm.at("ring-all-reduce")->ranks, (std::vector<uint32_t>{1, 0}));
    EXPECT_EQ(byAlgorithm.at("all-to-all")->ranks, (std::vector<uint32_t>{1, 0}));
    EXPECT_EQ(byAlgorithm.at("reduce-scatter")->ranks, (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(byAlgorithm.at("all-to-all")->bytes, 40u);
    EXPECT_EQ(byAlgorithm.at("all-to-all")->stream, byAlgorithm.at("ring-all-reduce")->stream);
    EXPECT_NE(byAlgorithm.at("reduce-scatter")->stream, byAlgorithm.at("ring-all-reduce")->stream);
    EXPECT_EQ(byAlgorithm.at("all-to-all")->deps.size(), 1u);
}

TEST_F(ChakraFiles, MetadataNodesDeclareProcessGroups)
{
    Node meta = MakeNode(1, ChakraProtoMsg::METADATA_NODE);
    meta.mutable_inputs()->set_values("['[{\"pg_name\": \"5\", \"ranks\": [1, 0]}]']");
    const std::string prefix =
        WriteRanks("job",
                   {{meta, Coll(2, ChakraProtoMsg::ALL_REDUCE, 8, {1}, "5")},
                    {meta, Coll(2, ChakraProtoMsg::ALL_REDUCE, 8, {1}, "5")}});
    const JobGraph g = ReadChakraTrace(prefix);
    ASSERT_EQ(g.GetOps().size(), 1u);
    EXPECT_EQ(g.GetOp(0).ranks, (std::vector<uint32_t>{1, 0}));
}

TEST_F(ChakraFiles, RankFilesAreFoundByPrefix)
{
    WriteRanks("job", {{Comp(1, 1)}, {Comp(1, 1)}});
    Write("zipped.0.et.gz", Gzip(EtFile({Comp(1, 1)})));
    EXPECT_EQ(FindChakraRankFiles(Path("job"), 0),
              (std::vector<std::string>{Path("job.0.et"), Path("job.1.et")}));
    EXPECT_EQ(FindChakraRankFiles(Path("zipped"), 0),
              std::vector<std::string>{Path("zipped.0.et.gz")});
    EXPECT_EQ(ReadChakraTrace(Path("job")).GetRankCount(), 2u);
    ChakraTraceOptions one;
    one.ranks = 1;
    EXPECT_EQ(ReadChakraTrace(Path("job"), one).GetRankCount(), 1u);
}

// ------------------------------------------------------------ bad inputs

TEST_F(ChakraFiles, MissingRankFiles)
{
    WriteRanks("job", {{Comp(1, 1)}, {Comp(1, 1)}});
    ChakraTraceOptions three;
    three.ranks = 3;
    EXPECT_THROW(
        {
            try
            {
                ReadChakraTrace(Path("job"), three);
            }
            catch (const std::runtime_error& e)
            {
                EXPECT_EQ(std::string(e.what()).rfind(Path("job.2.et") + ": missing", 0), 0u)
                    << e.what();
                throw;
            }
        },
        std::runtime_error);
    Write("gap.0.et", EtFile({Comp(1, 1)}));
    Write("gap.2.et", EtFile({Comp(1, 1)}));
    try
    {
        ReadChakraTrace(Path("gap"));
        ADD_FAILURE() << "a gap in the ranks";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind(Path("gap.1.et") + ": missing", 0), 0u) << e.what();
    }
    try
    {
        ReadChakraTrace(Path("none"));
        ADD_FAILURE() << "no rank file";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind(Path("none.0.et") + ": no such file", 0), 0u)
            << e.what();
    }
}

} // namespace
