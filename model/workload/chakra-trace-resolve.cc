/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// A decoded rank's dependencies and order, and the job's communicator
// groups: what follows decoding each rank's file (chakra-trace-decode.cc).
#include "chakra-trace-decode.h"
#include "located-json.h"

#include "ns3/input-file.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{
namespace chakra
{

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

} // namespace chakra
} // namespace ns3
