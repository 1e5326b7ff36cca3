/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_TREE_ALL_REDUCE_H
#define NCCL_TREE_ALL_REDUCE_H

#include "collective.h"
#include "nccl-tree.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief NCCL's tree all-reduce (`nccl-tree-all-reduce`): the double binary
 * tree across servers with a chain through each server's GPUs
 * (NcclTreeTopology), the buffer reduced up and broadcast down in chunks
 * (NcclTreePipeline), in the Simple protocol without its latency: the tree
 * forced, as `nccl-ring-all-reduce` forces the ring.
 *
 * Channels: the graph's channels are those of NCCL's rings (max(Channels, k)
 * on several servers, else Channels), and the tree runs twice as many, one
 * half on each tree. The chunks are NCCL's Simple chunks
 * (NcclTreeChunkBytes).
 */
class NcclTreeAllReduce : public Collective
{
  public:
    static TypeId GetTypeId();
    NcclTreeAllReduce();

    /// \return the tree's channels: twice the graph's
    uint32_t GetChannels() const override;
    uint64_t BytesPerRank() const override;

    const NcclTreeTopology& GetTopology() const
    {
        return m_topology;
    }

    const NcclTreePipeline& GetPipeline() const
    {
        return m_pipeline;
    }

  protected:
    void DoConfigure() override;
    void DoStart() override;
    void HandleDelivery(const CollectiveMessage& m) override;

  private:
    /// Posts a message of the current run; false once that run is over.
    NcclTreePipeline::SendFunction Sender();

    NcclTreeTopology m_topology;
    NcclTreePipeline m_pipeline;
    uint64_t m_run{0}; ///< counts runs, so a run started from done stops an outer loop
};

/**
 * \return the graph channels NCCL's rings and trees are built on: at least
 * one a NIC (the largest server's ranks) when \p layout spans several
 * servers, else \p channels
 */
uint32_t NcclGraphChannels(const NcclRankLayout& layout, uint32_t channels);

} // namespace ns3

#endif /* NCCL_TREE_ALL_REDUCE_H */
