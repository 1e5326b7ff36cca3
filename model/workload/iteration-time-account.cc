/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "iteration-time-account.h"

#include <numeric>

namespace ns3
{

double
IterationTime::ExposedTotal() const
{
    return std::accumulate(exposedNs.begin(), exposedNs.end(), 0.0);
}

double
IterationTime::Total() const
{
    return computeNs + ExposedTotal() + gateWaitNs + bubbleNs;
}

IterationTime&
IterationTime::operator+=(const IterationTime& other)
{
    computeNs += other.computeNs;
    overlappedNs += other.overlappedNs;
    for (std::size_t g = 0; g < kGroups; ++g)
    {
        exposedNs[g] += other.exposedNs[g];
    }
    gateWaitNs += other.gateWaitNs;
    bubbleNs += other.bubbleNs;
    return *this;
}

IterationTime
IterationTime::Scaled(double factor) const
{
    IterationTime t = *this;
    t.computeNs *= factor;
    t.overlappedNs *= factor;
    for (double& e : t.exposedNs)
    {
        e *= factor;
    }
    t.gateWaitNs *= factor;
    t.bubbleNs *= factor;
    return t;
}

void
IterationTimeAccount::Begin(uint32_t ranks, Time now)
{
    m_ranks.assign(ranks, RankState{});
    for (RankState& r : m_ranks)
    {
        r.sinceNs = now.GetNanoSeconds();
    }
    m_sum = IterationTime{};
}

void
IterationTimeAccount::Charge(RankState& r, int64_t nowNs)
{
    const double dt = static_cast<double>(nowNs - r.sinceNs);
    r.sinceNs = nowNs;
    if (dt <= 0)
    {
        return;
    }
    std::array<bool, IterationTime::kGroups> moving{}; // groups whose bytes may move
    uint32_t communicating = 0;
    bool gated = false; // a gated op waits at a closed gate
    for (std::size_t g = 0; g < IterationTime::kGroups; ++g)
    {
        const uint32_t open = m_gateOpen ? r.comm[g] : r.comm[g] - r.gated[g];
        moving[g] = open > 0;
        communicating += moving[g] ? 1 : 0;
        gated = gated || r.comm[g] > open;
    }
    if (r.compute > 0)
    {
        m_sum.computeNs += dt;
        if (communicating > 0 || gated)
        {
            m_sum.overlappedNs += dt;
        }
        return;
    }
    if (communicating > 0)
    {
        const double share = dt / communicating;
        for (std::size_t g = 0; g < IterationTime::kGroups; ++g)
        {
            m_sum.exposedNs[g] += moving[g] ? share : 0.0;
        }
        return;
    }
    (gated ? m_sum.gateWaitNs : m_sum.bubbleNs) += dt;
}

void
IterationTimeAccount::Change(const GraphOp& op, Time now, int delta)
{
    const int64_t nowNs = now.GetNanoSeconds();
    const std::size_t g = static_cast<std::size_t>(op.group);
    for (uint32_t rank : op.ranks)
    {
        RankState& r = m_ranks[rank];
        Charge(r, nowNs);
        if (op.kind == GraphOp::Kind::Compute)
        {
            r.compute += delta;
            continue;
        }
        r.comm[g] += delta;
        if (op.planned)
        {
            r.gated[g] += delta;
        }
    }
}

void
IterationTimeAccount::OpStarted(const GraphOp& op, Time now)
{
    Change(op, now, +1);
}

void
IterationTimeAccount::OpDone(const GraphOp& op, Time now)
{
    Change(op, now, -1);
}

void
IterationTimeAccount::SetGateOpen(bool open, Time now)
{
    if (open == m_gateOpen)
    {
        return;
    }
    for (RankState& r : m_ranks)
    {
        Charge(r, now.GetNanoSeconds());
    }
    m_gateOpen = open;
}

IterationTime
IterationTimeAccount::End(Time now)
{
    for (RankState& r : m_ranks)
    {
        Charge(r, now.GetNanoSeconds());
    }
    return m_sum.Scaled(m_ranks.empty() ? 1.0 : 1.0 / static_cast<double>(m_ranks.size()));
}

} // namespace ns3
