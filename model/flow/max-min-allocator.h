/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MAX_MIN_ALLOCATOR_H
#define MAX_MIN_ALLOCATOR_H

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Weighted max-min fair rates with strict priority between classes,
 * by progressive filling (water-filling).
 *
 * Classes are served from the highest (7) down: a class gets what the
 * classes above it left of every link, as a strict-priority port gives it.
 * Within a class every flow's rate rises as weight x level, all levels
 * together, until a link it uses is full; its rate then stays and the
 * others keep rising. A flow may load a link by a multiple of its rate (the
 * coefficient; FlowNetwork's data load their links by 1, and its ACKs are
 * reserved beforehand, outside the allocation). A class may be limited at a link to a share of what
 * the classes above leave (ClassShare); the classes below it then get what
 * it does not take, as a strict-priority port serves a lower queue whenever
 * the higher one is empty.
 *
 * The links are local indices 0..capacity.size()-1; the caller maps a
 * component of the fabric onto them. The object keeps its buffers between
 * calls, so repeated calls allocate nothing once warm.
 */
class MaxMinAllocator
{
  public:
    /// One flow: the links it loads, with coefficients, its class and its weight.
    struct Flow
    {
        std::vector<std::pair<uint32_t, double>> uses; ///< (local link, load per unit rate)
        uint8_t cls{3};                                ///< traffic class; higher is served first
        double weight{1};                              ///< share relative to its class, > 0
    };

    /**
     * At one link, the part of what the classes above leave that one class
     * may take; what it does not take stays for the classes below it.
     */
    struct ClassShare
    {
        int16_t cls{-1}; ///< the class limited; -1: none
        double share{1}; ///< in [0, 1]
    };

    /**
     * \param flows the flows, each loading at least one link by a positive coefficient
     * \param capacity capacity of every local link, >= 0
     * \param[out] rates the rate of every flow, in the units of the capacities
     * \param shares if given, one per local link: a class limited there
     */
    void Allocate(const std::vector<Flow>& flows,
                  const std::vector<double>& capacity,
                  std::vector<double>& rates,
                  const std::vector<ClassShare>* shares = nullptr);

  private:
    std::vector<double> m_remaining; ///< capacity left per link
    std::vector<double>
        m_withheld; ///< per link: kept from the class limited there, for those below
    std::vector<uint32_t> m_limited; ///< links with a class limited
    std::vector<double> m_weight;    ///< unfrozen weight x coefficient per link, this class
    std::vector<uint32_t> m_version; ///< per link: bumps when its key changes
    std::vector<std::vector<uint32_t>> m_flowsOf; ///< per link: flows of this class on it
    std::vector<uint8_t> m_frozen;                ///< per flow
    std::vector<uint32_t> m_order;                ///< flow indices sorted by class, highest first
};

} // namespace ns3

#endif /* MAX_MIN_ALLOCATOR_H */
