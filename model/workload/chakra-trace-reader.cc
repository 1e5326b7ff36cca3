/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "chakra-trace-reader.h"

#include "chakra-trace-decode.h"
#include "collective-factory.h"
#include "et_def.pb.h"

#include "ns3/csv-fields.h"
#include "ns3/input-file.h"
#include "ns3/unit-strings.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace ns3
{

namespace
{

using namespace chakra;

/// A node that only passes dependencies on (a receive, an INVALID or
/// METADATA node) stands for the ops it waits for, up to this many; beyond,
/// it becomes a zero-time op of its own, so that chains of them stay linear.
constexpr size_t kMaxJoinOps = 16;

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
        if (total > kMaxSimulatedTimeNs - ns)
        {
            Fail(m_ranks[ref.first].source,
                 Node(ref).id,
                 "duration_micros",
                 "the rank's compute adds up to more than the simulator's clock holds (2^63 ps)");
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
                algorithm = CollectiveOfFamily(m_options.allReduce, "all-gather");
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
                algorithm = CollectiveOfFamily(m_options.allReduce, "reduce-scatter");
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
        ranks.push_back(ChakraRankBytes{
            path,
            ReadInputFile(path, {InputFileKinds::kChakraTrace.name, options.maxFileBytes})});
    }
    std::string groups;
    if (!options.commGroups.empty())
    {
        groups = ReadInputFile(options.commGroups, InputFileKinds::kCommGroups);
    }
    return ReadChakraTraceBytes(ranks, groups, options.commGroups, options);
}

} // namespace ns3
