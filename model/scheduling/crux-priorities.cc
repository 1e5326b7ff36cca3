/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "crux-priorities.h"

#include "scheduler-job.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("crux-priorities: " + what);
}

void
Validate(const std::vector<CruxJob>& jobs)
{
    CheckJobsWithUniqueIds(jobs, Fail, [](const CruxJob& j, const std::string& where) {
        if (!(j.computeWork >= 0.0) || !std::isfinite(j.computeWork))
        {
            Fail(where + "field computeWork must be finite and >= 0");
        }
        if (!(j.commTime > 0.0) || !std::isfinite(j.commTime))
        {
            Fail(where + "field commTime must be finite and > 0");
        }
        if (!(j.k > 0.0) || !std::isfinite(j.k))
        {
            Fail(where + "field k must be finite and > 0");
        }
    });
}

/// Jobs in rank order with a dense symmetric weight matrix of the DAG.
struct RankedDag
{
    std::vector<uint32_t> ids;           ///< ids, highest rank first
    std::vector<std::vector<double>> w;  ///< w[a][b] (a, b rank positions), 0 if no edge
    std::vector<std::vector<bool>> edge; ///< edge[a][b]: a and b contend
};

RankedDag
BuildDag(const std::vector<CruxJob>& jobs)
{
    Validate(jobs);
    const auto prio = CruxPriorities(jobs);
    std::vector<size_t> order(jobs.size());
    for (size_t i = 0; i < order.size(); ++i)
    {
        order[i] = i;
    }
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (prio[a] != prio[b])
        {
            return prio[a] > prio[b];
        }
        return jobs[a].id < jobs[b].id;
    });
    const size_t n = jobs.size();
    RankedDag dag;
    dag.w.assign(n, std::vector<double>(n, 0.0));
    dag.edge.assign(n, std::vector<bool>(n, false));
    std::vector<std::set<uint32_t>> links(n);
    for (size_t r = 0; r < n; ++r)
    {
        dag.ids.push_back(jobs[order[r]].id);
        links[r].insert(jobs[order[r]].links.begin(), jobs[order[r]].links.end());
    }
    for (size_t a = 0; a < n; ++a)
    {
        for (size_t b = a + 1; b < n; ++b)
        {
            const bool share = std::any_of(links[a].begin(), links[a].end(), [&](uint32_t l) {
                return links[b].count(l) > 0;
            });
            if (share)
            {
                // b ranks below a: weight is the lower endpoint's priority.
                dag.edge[a][b] = dag.edge[b][a] = true;
                dag.w[a][b] = dag.w[b][a] = prio[order[b]];
            }
        }
    }
    return dag;
}

uint32_t
ClassOf(const std::map<uint32_t, uint32_t>& classes, uint32_t id)
{
    auto it = classes.find(id);
    if (it == classes.end())
    {
        std::ostringstream os;
        os << "job " << id << ": no class assigned";
        Fail(os.str());
    }
    return it->second;
}

/// Exact compression by dynamic programming over ancestor-closed sets (n <= 12).
std::map<uint32_t, uint32_t>
ExactClasses(const RankedDag& dag, uint32_t K)
{
    const uint32_t n = dag.ids.size();
    const uint32_t full = (1u << n) - 1;
    const uint32_t layers = std::min(K, n);

    std::vector<uint32_t> pred(n, 0); // pred[v]: rank positions with an edge into v
    for (uint32_t u = 0; u < n; ++u)
    {
        for (uint32_t v = u + 1; v < n; ++v)
        {
            if (dag.edge[u][v])
            {
                pred[v] |= 1u << u;
            }
        }
    }
    std::vector<bool> closed(full + 1, true);
    std::vector<double> inner(full + 1, 0.0); // weight of edges inside a set
    for (uint32_t s = 1; s <= full; ++s)
    {
        const uint32_t v = __builtin_ctz(s);
        const uint32_t rest = s & (s - 1);
        double add = 0.0;
        for (uint32_t u = 0; u < n; ++u)
        {
            if (rest & (1u << u))
            {
                add += dag.w[u][v];
            }
            if ((s & (1u << u)) && (pred[u] & ~s) != 0)
            {
                closed[s] = false; // u is in s but one of its predecessors is not
            }
        }
        inner[s] = inner[rest] + add;
    }

    // g[m][s]: best cut among edges inside s, s split into m layers (top first).
    const double kNone = -std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> g(layers + 1, std::vector<double>(full + 1, kNone));
    std::vector<std::vector<uint32_t>> from(layers + 1, std::vector<uint32_t>(full + 1, 0));
    g[0][0] = 0.0;
    for (uint32_t m = 1; m <= layers; ++m)
    {
        for (uint32_t big = 0; big <= full; ++big)
        {
            if (!closed[big])
            {
                continue;
            }
            // Submasks in decreasing order; the first best one is kept.
            for (uint32_t s = big;; s = (s - 1) & big)
            {
                if (closed[s] && g[m - 1][s] != kNone)
                {
                    const double v = g[m - 1][s] + inner[big] - inner[s] - inner[big & ~s];
                    if (v > g[m][big])
                    {
                        g[m][big] = v;
                        from[m][big] = s;
                    }
                }
                if (s == 0)
                {
                    break;
                }
            }
        }
    }

    std::vector<uint32_t> layerOf(n, 0);
    uint32_t set = full;
    for (uint32_t m = layers; m >= 1; --m)
    {
        const uint32_t s = from[m][set];
        for (uint32_t v = 0; v < n; ++v)
        {
            if ((set & ~s) & (1u << v))
            {
                layerOf[v] = m; // layer 1 is the top
            }
        }
        set = s;
    }
    // Renumber used layers to classes 0..used-1, top layer highest.
    std::set<uint32_t> used(layerOf.begin(), layerOf.end());
    std::map<uint32_t, uint32_t> classOfLayer;
    uint32_t c = used.size();
    for (uint32_t l : used)
    {
        classOfLayer[l] = --c;
    }
    std::map<uint32_t, uint32_t> out;
    for (uint32_t v = 0; v < n; ++v)
    {
        out[dag.ids[v]] = classOfLayer[layerOf[v]];
    }
    return out;
}

std::map<uint32_t, uint32_t>
OrderPreserving(const RankedDag& dag, uint32_t K)
{
    const size_t n = dag.ids.size();
    std::map<uint32_t, uint32_t> out;
    if (n == 0)
    {
        return out;
    }
    // inner[a][b]: weight of edges inside rank positions [a, b).
    std::vector<std::vector<double>> inner(n + 1, std::vector<double>(n + 1, 0.0));
    for (size_t b = 1; b <= n; ++b)
    {
        double column = 0.0; // edges from [a, b-1) to b-1
        for (size_t a = b - 1; a-- > 0;)
        {
            column += dag.w[a][b - 1];
            inner[a][b] = inner[a][b - 1] + column;
        }
    }
    const size_t groups = std::min<size_t>(K, n);
    const double kNone = std::numeric_limits<double>::infinity();
    // h[m][i]: least internal weight splitting the first i jobs into m non-empty groups.
    std::vector<std::vector<double>> h(groups + 1, std::vector<double>(n + 1, kNone));
    std::vector<std::vector<size_t>> cut(groups + 1, std::vector<size_t>(n + 1, 0));
    h[0][0] = 0.0;
    for (size_t m = 1; m <= groups; ++m)
    {
        for (size_t i = m; i <= n; ++i)
        {
            for (size_t a = m - 1; a < i; ++a)
            {
                if (h[m - 1][a] == kNone)
                {
                    continue;
                }
                const double v = h[m - 1][a] + inner[a][i];
                if (v < h[m][i])
                {
                    h[m][i] = v;
                    cut[m][i] = a;
                }
            }
        }
    }
    size_t bestM = 1;
    for (size_t m = 2; m <= groups; ++m)
    {
        if (h[m][n] < h[bestM][n])
        {
            bestM = m; // fewer groups win ties
        }
    }
    size_t end = n;
    for (size_t m = bestM; m >= 1; --m)
    {
        const size_t start = cut[m][end];
        for (size_t r = start; r < end; ++r)
        {
            out[dag.ids[r]] = bestM - m; // group m (1 = top) -> class bestM - m
        }
        end = start;
    }
    return out;
}

} // namespace

std::vector<double>
CruxPriorities(const std::vector<CruxJob>& jobs)
{
    Validate(jobs);
    std::vector<double> out;
    out.reserve(jobs.size());
    for (const auto& j : jobs)
    {
        out.push_back(j.k * j.computeWork / j.commTime);
    }
    return out;
}

std::vector<CruxEdge>
CruxContentionDag(const std::vector<CruxJob>& jobs)
{
    const RankedDag dag = BuildDag(jobs);
    std::vector<CruxEdge> out;
    for (size_t a = 0; a < dag.ids.size(); ++a)
    {
        for (size_t b = a + 1; b < dag.ids.size(); ++b)
        {
            if (dag.edge[a][b])
            {
                out.push_back({dag.ids[a], dag.ids[b], dag.w[a][b]});
            }
        }
    }
    std::sort(out.begin(), out.end(), [](const CruxEdge& x, const CruxEdge& y) {
        return x.high != y.high ? x.high < y.high : x.low < y.low;
    });
    return out;
}

std::map<uint32_t, uint32_t>
CruxClasses(const std::vector<CruxJob>& jobs, uint32_t K)
{
    if (K == 0)
    {
        Fail("K must be positive");
    }
    const RankedDag dag = BuildDag(jobs);
    if (jobs.empty())
    {
        return {};
    }
    if (jobs.size() <= kCruxMaxExactJobs)
    {
        return ExactClasses(dag, K);
    }
    return OrderPreserving(dag, K);
}

std::map<uint32_t, uint32_t>
CruxClassesOrderPreserving(const std::vector<CruxJob>& jobs, uint32_t K)
{
    if (K == 0)
    {
        Fail("K must be positive");
    }
    return OrderPreserving(BuildDag(jobs), K);
}

double
CruxCutWeight(const std::vector<CruxJob>& jobs, const std::map<uint32_t, uint32_t>& classes)
{
    double cut = 0.0;
    for (const auto& e : CruxContentionDag(jobs))
    {
        if (ClassOf(classes, e.high) != ClassOf(classes, e.low))
        {
            cut += e.weight;
        }
    }
    return cut;
}

bool
CruxRespectsOrder(const std::vector<CruxJob>& jobs, const std::map<uint32_t, uint32_t>& classes)
{
    for (const auto& e : CruxContentionDag(jobs))
    {
        if (ClassOf(classes, e.high) < ClassOf(classes, e.low))
        {
            return false;
        }
    }
    return true;
}

} // namespace ns3
