/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cassini-placement.h"

#include "scheduler-job.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
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
    throw std::invalid_argument("cassini-placement: " + what);
}

/// A job's demand profile on one link, ready for evaluation on a circle.
struct LinkProfile
{
    uint32_t job;
    int64_t period;
    bool fixed; ///< only rotation 0
    const std::vector<DemandInterval>* intervals;
    double perIteration; ///< integral of demand over one iteration
};

/// Integral of the periodic profile over [0, t), t any real.
double
Cumulative(const LinkProfile& p, double t)
{
    const double period = static_cast<double>(p.period);
    const double q = std::floor(t / period);
    const double r = t - q * period;
    double partial = 0.0;
    for (const auto& in : *p.intervals)
    {
        const double covered = std::min(std::max(r - static_cast<double>(in.start), 0.0),
                                        static_cast<double>(in.end - in.start));
        partial += covered * in.demand;
    }
    return q * p.perIteration + partial;
}

/// The circle of one link: perimeter L and S equal bins.
struct Circle
{
    int64_t perimeter;
    uint32_t bins;

    double BinStart(uint32_t i) const
    {
        return static_cast<double>(perimeter) * i / bins;
    }

    /// Time shift of a rotation by k bins (rounded to whole time units).
    int64_t RotationShift(uint32_t k) const
    {
        return std::llround(static_cast<double>(perimeter) * k / bins);
    }
};

/// Average demand of profile p, moved later by shift, in every bin of the circle.
std::vector<double>
Binned(const LinkProfile& p, const Circle& c, int64_t shift)
{
    std::vector<double> out(c.bins);
    const double width = static_cast<double>(c.perimeter) / c.bins;
    const double s = static_cast<double>(shift);
    double prev = Cumulative(p, c.BinStart(0) - s);
    for (uint32_t i = 0; i < c.bins; ++i)
    {
        const double next = Cumulative(p, c.BinStart(i + 1) - s);
        out[i] = (next - prev) / width;
        prev = next;
    }
    return out;
}

double
Score(const std::vector<double>& total)
{
    double excess = 0.0;
    for (double d : total)
    {
        excess += std::max(0.0, d - 1.0);
    }
    return 1.0 - excess / static_cast<double>(total.size());
}

/// Score of base + extra, without building the sum.
double
ScoreWith(const std::vector<double>& base, const std::vector<double>& extra)
{
    double excess = 0.0;
    for (size_t i = 0; i < base.size(); ++i)
    {
        excess += std::max(0.0, base[i] + extra[i] - 1.0);
    }
    return 1.0 - excess / static_cast<double>(base.size());
}

int64_t
Lcm(int64_t a, int64_t b, uint32_t link)
{
    const int64_t g = std::gcd(a, b);
    const int64_t step = a / g;
    if (step > kCassiniMaxPerimeter / b)
    {
        std::ostringstream os;
        os << "link " << link << ": LCM of the jobs' periods exceeds the maximum perimeter "
           << kCassiniMaxPerimeter;
        Fail(os.str());
    }
    const int64_t l = step * b;
    if (l > kCassiniMaxPerimeter)
    {
        std::ostringstream os;
        os << "link " << link << ": LCM of the jobs' periods (" << l
           << ") exceeds the maximum perimeter " << kCassiniMaxPerimeter;
        Fail(os.str());
    }
    return l;
}

/// Profiles of the jobs on one link: fixed jobs first, then free ones, each in increasing id.
std::vector<LinkProfile>
ProfilesOnLink(const std::vector<CassiniJob>& jobs, uint32_t link)
{
    std::vector<LinkProfile> out;
    for (const auto& j : jobs)
    {
        auto it = j.demand.find(link);
        if (it == j.demand.end())
        {
            continue;
        }
        double total = 0.0;
        for (const auto& in : it->second)
        {
            total += static_cast<double>(in.end - in.start) * in.demand;
        }
        out.push_back({j.id, j.period, j.fixed, &it->second, total});
    }
    std::sort(out.begin(), out.end(), [](const LinkProfile& a, const LinkProfile& b) {
        return a.fixed != b.fixed ? a.fixed : a.job < b.job;
    });
    return out;
}

Circle
MakeCircle(const std::vector<LinkProfile>& profiles, uint32_t link, uint32_t angleSteps)
{
    int64_t perimeter = 1;
    for (const auto& p : profiles)
    {
        perimeter = Lcm(perimeter, p.period, link);
    }
    const uint32_t bins =
        static_cast<uint32_t>(std::min<int64_t>(static_cast<int64_t>(angleSteps), perimeter));
    return Circle{perimeter, bins};
}

void
Validate(const std::vector<CassiniJob>& jobs, uint32_t angleSteps)
{
    if (angleSteps == 0)
    {
        Fail("angleSteps must be positive");
    }
    CheckJobsWithUniqueIds(jobs, Fail, [](const CassiniJob& j, const std::string& where) {
        if (j.period <= 0)
        {
            Fail(where + "field period must be positive");
        }
        for (const auto& [link, intervals] : j.demand)
        {
            for (const auto& in : intervals)
            {
                std::ostringstream os;
                os << where << "link " << link << ": interval [" << in.start << ", " << in.end
                   << ") ";
                if (in.start < 0 || in.end > j.period || in.start >= in.end)
                {
                    Fail(os.str() + "must satisfy 0 <= start < end <= period");
                }
                if (!(in.demand > 0.0 && in.demand <= 1.0))
                {
                    Fail(os.str() + "field demand must be in (0, 1]");
                }
            }
        }
    });
}

/// Best rotations of the jobs on one link; returns job id -> shift and the score.
std::pair<std::map<uint32_t, int64_t>, double>
OptimizeLink(const std::vector<LinkProfile>& profiles, const Circle& c)
{
    const size_t n = profiles.size();
    // candidates[j][k]: binned demand of job j at its k-th candidate shift
    std::vector<std::vector<int64_t>> shifts(n);
    std::vector<std::vector<std::vector<double>>> candidates(n);
    for (size_t j = 0; j < n; ++j)
    {
        for (uint32_t k = 0; k < c.bins; ++k)
        {
            const int64_t s = c.RotationShift(k);
            if (s >= profiles[j].period)
            {
                break; // the profile repeats with its period: larger shifts add nothing
            }
            if (!shifts[j].empty() && shifts[j].back() == s)
            {
                continue;
            }
            shifts[j].push_back(s);
            candidates[j].push_back(Binned(profiles[j], c, s));
            // A fixed job keeps its phase. On a link without fixed jobs the first job
            // stays at 0: only relative rotations matter there.
            if (profiles[j].fixed || j == 0)
            {
                break;
            }
        }
    }

    uint64_t combos = 1;
    uint32_t freeJobs = 0;
    for (size_t j = 0; j < n; ++j)
    {
        freeJobs += profiles[j].fixed ? 0 : 1;
        if (j > 0 && combos <= kCassiniMaxExhaustiveCombos)
        {
            combos *= shifts[j].size();
        }
    }
    const bool exhaustive =
        freeJobs <= kCassiniMaxExhaustiveJobs && combos <= kCassiniMaxExhaustiveCombos;

    // Strictly-better comparison keeps the earliest (lexicographically smallest) optimum.
    constexpr double kTieTolerance = 1e-12;
    std::vector<size_t> best(n, 0);
    double bestScore = -std::numeric_limits<double>::infinity();
    std::vector<double> base = candidates[0][0];

    if (exhaustive && n > 1)
    {
        std::vector<size_t> choice(n, 0);
        std::vector<std::vector<double>> partial(n, base); // partial[j]: jobs 0..j-1 summed
        // Depth-first in lexicographic order of the rotation vector.
        std::function<void(size_t)> descend = [&](size_t j) {
            for (size_t k = 0; k < candidates[j].size(); ++k)
            {
                choice[j] = k;
                if (j + 1 == n)
                {
                    const double s = ScoreWith(partial[j], candidates[j][k]);
                    if (s > bestScore + kTieTolerance)
                    {
                        bestScore = s;
                        best = choice;
                    }
                    continue;
                }
                auto& next = partial[j + 1];
                for (size_t i = 0; i < next.size(); ++i)
                {
                    next[i] = partial[j][i] + candidates[j][k][i];
                }
                descend(j + 1);
            }
        };
        descend(1);
    }
    else
    {
        for (size_t j = 1; j < n; ++j)
        {
            double s = -std::numeric_limits<double>::infinity();
            for (size_t k = 0; k < candidates[j].size(); ++k)
            {
                const double v = ScoreWith(base, candidates[j][k]);
                if (v > s + kTieTolerance)
                {
                    s = v;
                    best[j] = k;
                }
            }
            for (size_t i = 0; i < base.size(); ++i)
            {
                base[i] += candidates[j][best[j]][i];
            }
        }
        bestScore = Score(base);
    }
    if (n == 1)
    {
        bestScore = Score(base);
    }

    std::map<uint32_t, int64_t> out;
    for (size_t j = 0; j < n; ++j)
    {
        out[profiles[j].job] = shifts[j][best[j]];
    }
    return {out, bestScore};
}

int64_t
Mod(int64_t a, int64_t m)
{
    const int64_t r = a % m;
    return r < 0 ? r + m : r;
}

} // namespace

double
CassiniLinkScore(const std::vector<CassiniJob>& jobs,
                 uint32_t link,
                 const std::map<uint32_t, int64_t>& shift,
                 uint32_t angleSteps)
{
    Validate(jobs, angleSteps);
    const auto profiles = ProfilesOnLink(jobs, link);
    if (profiles.empty())
    {
        return 1.0;
    }
    const Circle c = MakeCircle(profiles, link, angleSteps);
    std::vector<double> total(c.bins, 0.0);
    for (const auto& p : profiles)
    {
        auto it = shift.find(p.job);
        const int64_t s = it == shift.end() ? 0 : Mod(it->second, p.period);
        const auto binned = Binned(p, c, s);
        for (uint32_t i = 0; i < c.bins; ++i)
        {
            total[i] += binned[i];
        }
    }
    return Score(total);
}

CassiniResult
ComputeCassiniShifts(const std::vector<CassiniJob>& jobs, uint32_t angleSteps)
{
    Validate(jobs, angleSteps);
    CassiniResult result;

    std::map<uint32_t, const CassiniJob*> byId;
    std::map<uint32_t, std::vector<uint32_t>> jobsOnLink; // ids in increasing order
    for (const auto& j : jobs)
    {
        byId[j.id] = &j;
    }
    for (const auto& [id, j] : byId)
    {
        for (const auto& kv : j->demand)
        {
            jobsOnLink[kv.first].push_back(id);
        }
    }

    for (const auto& kv : jobsOnLink)
    {
        const uint32_t link = kv.first;
        const auto profiles = ProfilesOnLink(jobs, link);
        const Circle c = MakeCircle(profiles, link, angleSteps);
        auto [shifts, score] = OptimizeLink(profiles, c);
        result.linkShift[link] = shifts;
        result.linkScore[link] = score;
    }

    // BFS over the bipartite job-link graph; anchor[l] is the job through
    // which link l was first expanded. The fixed jobs form the first frontier,
    // so a link with a fixed job is anchored at one.
    std::map<uint32_t, uint32_t> anchor;
    std::queue<uint32_t> frontier;
    for (const auto& [id, j] : byId)
    {
        if (j->fixed)
        {
            result.shift[id] = 0;
            frontier.push(id);
        }
    }
    auto nextRoot = byId.begin();
    while (true)
    {
        if (frontier.empty())
        {
            while (nextRoot != byId.end() && result.shift.count(nextRoot->first))
            {
                ++nextRoot;
            }
            if (nextRoot == byId.end())
            {
                break;
            }
            result.shift[nextRoot->first] = 0;
            frontier.push(nextRoot->first);
        }
        while (!frontier.empty())
        {
            const uint32_t cur = frontier.front();
            frontier.pop();
            for (const auto& kv : byId.at(cur)->demand)
            {
                const uint32_t link = kv.first;
                if (anchor.count(link))
                {
                    continue;
                }
                anchor[link] = cur;
                const auto& ls = result.linkShift.at(link);
                for (uint32_t nbr : jobsOnLink.at(link))
                {
                    if (result.shift.count(nbr))
                    {
                        continue; // first (BFS-order) assignment wins
                    }
                    result.shift[nbr] =
                        Mod(result.shift.at(cur) - ls.at(cur) + ls.at(nbr), byId.at(nbr)->period);
                    frontier.push(nbr);
                }
            }
        }
    }

    for (const auto& [link, a] : anchor)
    {
        const auto& ls = result.linkShift.at(link);
        const int64_t offset = result.shift.at(a) - ls.at(a);
        for (uint32_t x : jobsOnLink.at(link))
        {
            if (Mod(result.shift.at(x) - ls.at(x) - offset, byId.at(x)->period) != 0)
            {
                ++result.inconsistentEdges;
            }
        }
    }
    return result;
}

} // namespace ns3
