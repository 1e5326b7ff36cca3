/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "max-min-allocator.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

void
MaxMinAllocator::Allocate(const std::vector<Flow>& flows,
                          const std::vector<double>& capacity,
                          std::vector<double>& rates,
                          const std::vector<ClassShare>* shares)
{
    const std::size_t nLinks = capacity.size();
    m_limited.clear();
    if (shares)
    {
        if (shares->size() != nLinks)
        {
            throw std::invalid_argument("MaxMinAllocator: " + std::to_string(shares->size()) +
                                        " class shares for " + std::to_string(nLinks) + " links");
        }
        for (uint32_t l = 0; l < nLinks; ++l)
        {
            if ((*shares)[l].cls >= 0)
            {
                m_limited.push_back(l);
            }
        }
    }
    if (m_withheld.size() < nLinks)
    {
        m_withheld.resize(nLinks); // written before it is read, per class pass
    }
    rates.assign(flows.size(), 0.0);
    m_remaining.assign(capacity.begin(), capacity.end());
    m_weight.assign(nLinks, 0.0);
    m_version.assign(nLinks, 0);
    if (m_flowsOf.size() < nLinks)
    {
        m_flowsOf.resize(nLinks);
    }
    m_frozen.assign(flows.size(), 0);
    m_order.resize(flows.size());
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        m_order[i] = i;
        if (flows[i].uses.empty() || !(flows[i].weight > 0))
        {
            throw std::invalid_argument("MaxMinAllocator: flow " + std::to_string(i) +
                                        " loads no link or has no positive weight");
        }
    }
    std::stable_sort(m_order.begin(), m_order.end(), [&flows](uint32_t a, uint32_t b) {
        return flows[a].cls > flows[b].cls;
    });

    // Key of a link: the level at which it fills, remaining / unfrozen weight.
    using Entry = std::tuple<double, uint32_t, uint32_t>; // level, link, version
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    std::vector<uint32_t> touched;

    std::size_t begin = 0;
    while (begin < m_order.size())
    {
        const uint8_t cls = flows[m_order[begin]].cls;
        std::size_t end = begin;
        while (end < m_order.size() && flows[m_order[end]].cls == cls)
        {
            ++end;
        }
        for (uint32_t l : m_limited)
        {
            if ((*shares)[l].cls == cls)
            {
                m_withheld[l] = (1 - (*shares)[l].share) * std::max(0.0, m_remaining[l]);
                m_remaining[l] -= m_withheld[l];
            }
        }
        touched.clear();
        for (std::size_t k = begin; k < end; ++k)
        {
            const uint32_t f = m_order[k];
            for (const auto& [link, coef] : flows[f].uses)
            {
                if (m_weight[link] == 0)
                {
                    touched.push_back(link);
                    m_flowsOf[link].clear();
                }
                m_weight[link] += coef * flows[f].weight;
                m_flowsOf[link].push_back(f);
            }
        }
        for (uint32_t link : touched)
        {
            heap.emplace(std::max(0.0, m_remaining[link]) / m_weight[link], link, m_version[link]);
        }
        double level = 0;
        while (!heap.empty())
        {
            auto [key, link, version] = heap.top();
            heap.pop();
            if (version != m_version[link] || m_weight[link] <= 0)
            {
                continue; // stale, or every flow on it is already frozen
            }
            level = std::max(level, key); // never below a level already reached
            for (uint32_t f : m_flowsOf[link])
            {
                if (m_frozen[f])
                {
                    continue;
                }
                m_frozen[f] = 1;
                const double rate = flows[f].weight * level;
                rates[f] = rate;
                for (const auto& [l, coef] : flows[f].uses)
                {
                    m_remaining[l] -= coef * rate;
                    m_weight[l] -= coef * flows[f].weight;
                    ++m_version[l];
                    if (l != link && m_weight[l] > 1e-12 * coef * flows[f].weight)
                    {
                        heap.emplace(std::max(0.0, m_remaining[l]) / m_weight[l], l, m_version[l]);
                    }
                    else if (m_weight[l] <= 1e-12 * coef * flows[f].weight)
                    {
                        m_weight[l] = 0; // rounding: no unfrozen flow left
                    }
                }
            }
            m_weight[link] = 0;
        }
        for (uint32_t link : touched)
        {
            m_weight[link] = 0;
            m_remaining[link] = std::max(0.0, m_remaining[link]);
        }
        for (uint32_t l : m_limited)
        {
            if ((*shares)[l].cls == cls)
            {
                m_remaining[l] += m_withheld[l]; // what the limited class left, for those below
            }
        }
        begin = end;
    }
}

} // namespace ns3
