/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "batched-switch-routes.h"

#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// Transpose a 64 x 64 bit matrix in place: bit j of a[i] becomes bit i of a[j].
void
Transpose64(uint64_t a[64])
{
    uint64_t m = 0x00000000FFFFFFFFull;
    for (uint32_t j = 32; j != 0; j >>= 1, m ^= m << j)
    {
        for (uint32_t k = 0; k < 64; k = ((k | j) + 1) & ~j)
        {
            const uint64_t t = ((a[k] >> j) ^ a[k | j]) & m;
            a[k] ^= t << j;
            a[k | j] ^= t;
        }
    }
}

} // namespace

BatchedSwitchRoutes::BatchedSwitchRoutes(std::vector<uint32_t> begin, std::vector<Port> ports)
    : m_begin(std::move(begin)),
      m_ports(std::move(ports)),
      m_n(static_cast<uint32_t>(m_begin.size()) - 1)
{
}

uint32_t
BatchedSwitchRoutes::Levels(const std::vector<uint32_t>& targets,
                            bool upOnly,
                            std::vector<uint64_t>& levels)
{
    levels.assign(m_n, 0);
    for (uint32_t j = 0; j < targets.size(); ++j)
    {
        levels[targets[j]] |= uint64_t{1} << j;
    }
    m_seen.assign(levels.begin(), levels.end());
    uint32_t rows = 1;
    while (true)
    {
        levels.resize(static_cast<std::size_t>(rows + 1) * m_n, 0);
        const uint64_t* frontier = levels.data() + static_cast<std::size_t>(rows - 1) * m_n;
        uint64_t* next = levels.data() + static_cast<std::size_t>(rows) * m_n;
        uint64_t any = 0;
        for (uint32_t s = 0; s < m_n; ++s)
        {
            uint64_t reached = 0;
            for (uint32_t i = m_begin[s]; i < m_begin[s + 1]; ++i)
            {
                const Port& p = m_ports[i];
                reached |= upOnly && p.down ? 0 : frontier[p.peer];
            }
            reached &= ~m_seen[s];
            next[s] = reached;
            m_seen[s] |= reached;
            any |= reached;
        }
        if (any == 0)
        {
            levels.resize(static_cast<std::size_t>(rows) * m_n);
            return rows;
        }
        ++rows;
    }
}

void
BatchedSwitchRoutes::Search(const std::vector<uint32_t>& targets,
                            uint64_t intactOnly,
                            bool degraded)
{
    if (targets.empty() || targets.size() > kBatch)
    {
        throw std::invalid_argument("BatchedSwitchRoutes: " + std::to_string(targets.size()) +
                                    " targets (1 to 64)");
    }
    m_nTargets = static_cast<uint32_t>(targets.size());
    m_intactOnly = intactOnly;
    m_degraded = degraded;
    m_intactRows = Levels(targets, false, m_intact);
    m_upRows = degraded ? Levels(targets, true, m_up) : 0;
}

const BatchedSwitchRoutes::Routes&
BatchedSwitchRoutes::Visit(uint32_t s)
{
    m_visited = s;
    const std::size_t n = m_n;
    // Targets the switch routes to over the links that are up.
    uint64_t overUp = 0;
    for (uint32_t k = 0; k < m_upRows; ++k)
    {
        overUp |= m_up[k * n + s];
    }
    overUp &= ~m_intactOnly;

    const uint32_t first = m_begin[s];
    const uint32_t degree = m_begin[s + 1] - first;
    m_portTargets.assign(degree, 0);
    for (uint32_t i = 0; i < degree; ++i)
    {
        // A port serves target j where its peer is one level nearer j.
        const Port& p = m_ports[first + i];
        uint64_t intact = 0;
        for (uint32_t k = 1; k < m_intactRows; ++k)
        {
            intact |= m_intact[k * n + s] & m_intact[(k - 1) * n + p.peer];
        }
        uint64_t up = 0;
        for (uint32_t k = 1; k < m_upRows && !p.down; ++k)
        {
            up |= m_up[k * n + s] & m_up[(k - 1) * n + p.peer];
        }
        m_portTargets[i] = (up & overUp) | (intact & ~overUp);
    }

    Routes& r = m_routes;
    r.self = m_intact[s];
    for (uint32_t j = 0; j < m_nTargets; ++j)
    {
        r.hops[j] = kUnreachable;
    }
    for (uint32_t k = 0; k < m_intactRows; ++k)
    {
        for (uint64_t bits = m_intact[k * n + s] & ~overUp; bits != 0; bits &= bits - 1)
        {
            r.hops[__builtin_ctzll(bits)] = k;
        }
    }
    for (uint32_t k = 0; k < m_upRows; ++k)
    {
        for (uint64_t bits = m_up[k * n + s] & overUp; bits != 0; bits &= bits - 1)
        {
            r.hops[__builtin_ctzll(bits)] = k;
        }
    }
    r.wide = degree > 64;
    if (!r.wide)
    {
        // Rows by port to rows by target.
        for (uint32_t i = 0; i < 64; ++i)
        {
            r.portMask[i] = i < degree ? m_portTargets[i] : 0;
        }
        Transpose64(r.portMask);
    }
    return r;
}

void
BatchedSwitchRoutes::AppendPorts(uint32_t j, std::vector<uint16_t>& out) const
{
    const uint32_t first = m_begin[m_visited];
    if (!m_routes.wide)
    {
        for (uint64_t bits = m_routes.portMask[j]; bits != 0; bits &= bits - 1)
        {
            out.push_back(m_ports[first + __builtin_ctzll(bits)].port);
        }
        return;
    }
    for (uint32_t i = 0; i < m_portTargets.size(); ++i)
    {
        if ((m_portTargets[i] >> j) & 1)
        {
            out.push_back(m_ports[first + i].port);
        }
    }
}

} // namespace ns3
