/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef BATCHED_SWITCH_ROUTES_H
#define BATCHED_SWITCH_ROUTES_H

#include <cstdint>
#include <limits>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Shortest-path next hops and hop counts of every switch towards up
 * to 64 target switches at once, over the links between switches.
 *
 * One breadth-first search serves the whole batch: each switch's frontier
 * is a 64-bit word with a bit per target, so a level costs one pass over
 * the links for all 64 targets (a bit-parallel multi-source search). A
 * switch's next hops towards target j are its ports whose peer is one
 * level nearer j, found for all targets with an AND per port and level.
 * EcmpRoutes routes edge switches' prefixes with it: a fat-tree of k=64
 * has 2,048 of them, 32 searches.
 *
 * With links down, a target is routed over the links that are up from the
 * switches that still reach it over them, and as if intact from the others
 * (EcmpRoutes' rule), unless it is marked intact-only.
 */
class BatchedSwitchRoutes
{
  public:
    /// Targets one search serves.
    static constexpr uint32_t kBatch = 64;
    /// Hop count of a target a switch cannot reach.
    static constexpr uint32_t kUnreachable = std::numeric_limits<uint32_t>::max();

    /// A port of a switch to another switch.
    struct Port
    {
        uint32_t peer; ///< the other switch's index
        uint16_t port; ///< the port's number at this switch
        bool down;     ///< its link is down
    };

    /**
     * \param begin by switch index: the first of its entries in \p ports (one more entry at the
     * end) \param ports every switch's ports to switches, each switch's in increasing port number
     */
    BatchedSwitchRoutes(std::vector<uint32_t> begin, std::vector<Port> ports);

    /**
     * Search from a batch of targets.
     * \param targets switch indices, at most kBatch (they may repeat)
     * \param intactOnly bit j set: route target j as if every link were up
     * \param degraded whether any link is down
     */
    void Search(const std::vector<uint32_t>& targets, uint64_t intactOnly, bool degraded);

    /// One switch's routes towards the batch's targets (Visit).
    struct Routes
    {
        uint64_t self;             ///< bit j: the switch is target j
        bool wide;                 ///< more than 64 ports to switches: portMask is not filled
        uint32_t hops[kBatch];     ///< by target: links to it, or kUnreachable
        uint64_t portMask[kBatch]; ///< by target: bit i, its i-th port to a switch is a next hop
    };

    /**
     * Routes of switch \p s towards the last search's targets.
     * \return valid until the next Visit or Search
     */
    const Routes& Visit(uint32_t s);

    /// Append the next-hop port numbers of the last visited switch towards target \p j.
    void AppendPorts(uint32_t j, std::vector<uint16_t>& out) const;

  private:
    /// Levels of one search into \p levels (row k: bit j of switch s if s is k links
    /// from target j); \return the number of rows.
    uint32_t Levels(const std::vector<uint32_t>& targets,
                    bool upOnly,
                    std::vector<uint64_t>& levels);

    std::vector<uint32_t> m_begin;
    std::vector<Port> m_ports;
    uint32_t m_n;                        ///< switches
    uint32_t m_nTargets{0};              ///< in the last search
    uint64_t m_intactOnly{0};            ///< of the last search
    bool m_degraded{false};              ///< of the last search
    std::vector<uint64_t> m_intact;      ///< levels over every link, row-major
    uint32_t m_intactRows{0};            ///< rows of m_intact
    std::vector<uint64_t> m_up;          ///< levels over the links that are up
    uint32_t m_upRows{0};                ///< rows of m_up
    std::vector<uint64_t> m_seen;        ///< the searches' visited bits, by switch
    uint32_t m_visited{0};               ///< the switch Visit saw last
    std::vector<uint64_t> m_portTargets; ///< by port of the visited switch: targets it serves
    Routes m_routes{};                   ///< Visit's answer
};

} // namespace ns3

#endif /* BATCHED_SWITCH_ROUTES_H */
