/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HIERARCHICAL_COLLECTIVE_H
#define HIERARCHICAL_COLLECTIVE_H

#include "collective.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief A two-level collective as NCCL builds one on multi-GPU servers:
 * rings inside each server over NVLink, and rings across servers on rails,
 * so that every GPU's own NIC carries a share of the inter-server traffic.
 *
 * The ranks' servers come from the transport (CollectiveTransport::GetServer).
 * With n servers of k ranks each (rank (i, l): local rank l, in rank order,
 * of the i-th server in order of first appearance), each channel's buffer
 * S_c is cut into k local chunks, each into n pieces (SplitEvenly):
 * - all-reduce: a reduce-scatter around each server's ring (k-1 steps;
 *   local rank l ends with local chunk (l+1) mod k), a ring all-reduce of
 *   that chunk among the rail (the ranks of local rank l, 2(n-1) steps),
 *   then an all-gather around each server's ring (k-1 steps);
 * - reduce-scatter (input S): the server reduce-scatter, then a ring
 *   reduce-scatter of the chunk on the rail (n-1 steps);
 * - all-gather (output S): a ring all-gather of the rank's local chunk on
 *   the rail (n-1 steps), then the server all-gather (k-1 steps).
 * Each NIC then carries 2(n-1)/n x S/k of an all-reduce, where a flat ring
 * over the same ranks sends 2(N-1)/N x S through the one NIC per server
 * that the ring leaves by. With k = 1 (a rank a server) or n = 1 (one
 * server) it is the flat ring, message for message. Servers of unequal
 * rank counts have no rails: the ranks then form the flat ring.
 */
class HierarchicalCollective : public SteppedCollective
{
  public:
    static TypeId GetTypeId();

    uint32_t GetStepCount() const override;
    uint32_t GetSendPeer(uint32_t rank, uint32_t channel, uint32_t step) const override;
    uint64_t GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const override;

    /// Servers (n) and ranks a server (k) of the current configuration.
    uint32_t GetServerCount() const
    {
        return m_servers;
    }

    uint32_t GetRanksPerServer() const
    {
        return m_local;
    }

  protected:
    /// Which passes run: the server reduce-scatter, the rail ring's passes
    /// (1 or 2), the server all-gather.
    HierarchicalCollective(bool serverReduceScatter, uint32_t railPasses, bool serverAllGather);

    /// Reads the ranks' servers from the transport and builds the rings.
    void DoConfigure() override;

  private:
    /// Where step \p step falls: 0 server reduce-scatter, 1 rail, 2 server all-gather.
    uint32_t PhaseOf(uint32_t step, uint32_t* within) const;

    bool m_serverReduceScatter;
    uint32_t m_railPasses;
    bool m_serverAllGather;
    uint32_t m_servers{1};            ///< n
    uint32_t m_local{1};              ///< k
    std::vector<uint32_t> m_serverOf; ///< by rank: i
    std::vector<uint32_t> m_localOf;  ///< by rank: l
    std::vector<uint32_t> m_rankAt;   ///< by i x k + l: the rank
};

/// All-reduce: server reduce-scatter, rail all-reduce, server all-gather.
class HierarchicalAllReduce : public HierarchicalCollective
{
  public:
    static TypeId GetTypeId();
    HierarchicalAllReduce();
};

/// Reduce-scatter: server reduce-scatter, then rail reduce-scatter.
class HierarchicalReduceScatter : public HierarchicalCollective
{
  public:
    static TypeId GetTypeId();
    HierarchicalReduceScatter();
};

/// All-gather: rail all-gather, then server all-gather.
class HierarchicalAllGather : public HierarchicalCollective
{
  public:
    static TypeId GetTypeId();
    HierarchicalAllGather();
};

} // namespace ns3

#endif /* HIERARCHICAL_COLLECTIVE_H */
