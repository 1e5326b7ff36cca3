/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_TREE_H
#define NCCL_TREE_H

#include "collective-transport.h"
#include "nccl-tuning.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Where a collective's ranks sit: each rank's server (0..n-1, in
 * order of first appearance) and its local index there (in rank order), as
 * read from the transport (CollectiveTransport::GetServer).
 */
struct NcclRankLayout
{
    std::vector<uint32_t> serverOf;    ///< by rank
    std::vector<uint32_t> localOf;     ///< by rank
    std::vector<uint32_t> serverSizes; ///< ranks of each server
    /// \return whether every server has as many ranks as the first
    bool IsEven() const;

    /// Reads the layout of \p ranks ranks from \p transport.
    static NcclRankLayout Read(const CollectiveTransport& transport, uint32_t ranks);
};

/**
 * \ingroup collective-scheduling
 * \brief The node-level links of one node in NCCL's binary tree over
 * \p nodes nodes (ncclGetBtree: the tree that alternates leaves and inner
 * nodes, rooted at node 0), or in the second tree of the double binary tree
 * (ncclGetDtree: the first one mirrored for an even node count, shifted by
 * one for an odd one).
 */
struct NcclTreeLinks
{
    int32_t up{-1};        ///< the parent node, -1 at the root
    uint32_t childType{0}; ///< 0: the parent's first child (down0), 1: its second
};

/// \return node \p node's links in tree \p tree (0 or 1) of NCCL's double binary tree
NcclTreeLinks NcclDoubleTreeLinks(uint32_t nodes, uint32_t node, uint32_t tree);

/**
 * \ingroup collective-scheduling
 * \brief NCCL's trees over a collective's ranks, channel by channel.
 *
 * With G graph channels the tree runs 2G channels, as NCCL duplicates its
 * channels: channel c < G follows tree 0 of the double binary tree over the
 * servers, channel G + c the same chains on tree 1. Inside server i the
 * ranks of channel c form a chain, its local ranks c, c+1, ... (mod k_i):
 * each rank's parent is the one before it. Between servers, as NCCL's
 * balanced tree pattern connects them, the chain's head (position 0) has for
 * parent a rank of the parent server: its position 1 if this server is the
 * parent's first child, its position 0 if the second (position 0 when the
 * parent has one rank). So each server enters and leaves the tree through
 * two GPUs of the chain, and the channels' rotation spreads that over every
 * NIC of the server.
 */
class NcclTreeTopology
{
  public:
    /// Builds the trees of \p layout's ranks over 2 x \p graphChannels channels.
    void Build(const NcclRankLayout& layout, uint32_t graphChannels);

    /// \return the channels the tree runs (twice the graph's)
    uint32_t GetChannels() const
    {
        return m_channels;
    }

    uint32_t GetRankCount() const
    {
        return m_ranks;
    }

    /// \return the parent of \p rank on \p channel, -1 for the root
    int32_t GetParent(uint32_t channel, uint32_t rank) const;
    /// \return the children of \p rank on \p channel
    const std::vector<uint32_t>& GetChildren(uint32_t channel, uint32_t rank) const;
    /// \return the hops from \p rank up to the root of \p channel
    uint32_t GetDepth(uint32_t channel, uint32_t rank) const;
    /// \return the largest depth of \p channel's tree
    uint32_t GetHeight(uint32_t channel) const;

  private:
    std::size_t Slot(uint32_t channel, uint32_t rank) const
    {
        return static_cast<std::size_t>(channel) * m_ranks + rank;
    }

    uint32_t m_ranks{0};
    uint32_t m_channels{0};
    std::vector<int32_t> m_parent;                 ///< by (channel, rank)
    std::vector<std::vector<uint32_t>> m_children; ///< by (channel, rank)
    std::vector<uint32_t> m_depth;                 ///< by (channel, rank)
    std::vector<uint32_t> m_height;                ///< by channel
};

/**
 * \ingroup collective-scheduling
 * \brief One run of NCCL's tree all-reduce on a NcclTreeTopology: every
 * channel's S_c cut into chunks, each reduced up the tree (a rank sends
 * chunk j to its parent once every child's chunk j arrived, in chunk order)
 * and broadcast down from the root (a rank forwards chunk j to its children
 * once it has it), the two directions pipelined as NCCL's tree kernel runs
 * them concurrently.
 *
 * Messages: a chunk's wire bytes in the protocol (NcclWireBytes); as step,
 * its slot in an ideal pipeline (up from depth d: j + H - d, down from depth
 * d: j + H + d, H the channel's height), so that the schedulers' estimate,
 * which times an op step by step, sees the pipeline; as delay, the
 * protocol's latency spread over the 2H hops of the channel's longest path
 * up and down, so that an infinitely fast network finishes in the latency.
 */
class NcclTreePipeline
{
  public:
    /// Sends one message; returns false when the run ended (nothing more to send).
    using SendFunction = std::function<bool(const CollectiveMessage&)>;

    /**
     * Sets the run's shape: \p bytes of each rank's buffer split evenly
     * over the topology's channels, each cut into chunks of \p chunkBytes
     * (the last ones a byte shorter: SplitEvenly), sent in \p protocol,
     * with \p latencyUs of protocol latency along each channel's longest path.
     */
    void Configure(const NcclTreeTopology* topology,
                   uint64_t bytes,
                   uint64_t chunkBytes,
                   NcclProtocol protocol,
                   double latencyUs);

    /// Sends the first messages (every leaf's chunks). \return true if there is nothing to send
    bool Start(const SendFunction& send);
    /// Message \p m arrived. \return true when it was the run's last
    bool Deliver(const CollectiveMessage& m, const SendFunction& send);

    /// \return the chunks of channel \p channel
    uint32_t GetChunks(uint32_t channel) const;
    /// \return the data bytes of chunk \p chunk of channel \p channel
    uint64_t GetChunkBytes(uint32_t channel, uint32_t chunk) const;
    /// \return the delay each message of \p channel carries
    Time GetHopDelay(uint32_t channel) const;
    /// \return the most wire bytes any rank sends in a run
    uint64_t BytesPerRank() const;

  private:
    std::size_t Slot(uint32_t channel, uint32_t rank) const
    {
        return static_cast<std::size_t>(channel) * m_topology->GetRankCount() + rank;
    }

    /// Sends what \p rank may send up on \p channel now. \return false if the run ended
    bool AdvanceUp(uint32_t channel, uint32_t rank, const SendFunction& send);
    /// Sends what \p rank may send down on \p channel now. \return false if the run ended
    bool AdvanceDown(uint32_t channel, uint32_t rank, const SendFunction& send);
    CollectiveMessage Message(uint32_t channel,
                              uint32_t src,
                              uint32_t dst,
                              uint32_t chunk,
                              bool up) const;

    const NcclTreeTopology* m_topology{nullptr};
    uint64_t m_bytes{0};
    uint64_t m_chunkBytes{1};
    NcclProtocol m_protocol{NcclProtocol::SIMPLE};
    double m_latencyUs{0};
    uint64_t m_expected{0};  ///< deliveries of a run
    uint64_t m_delivered{0}; ///< of the current run
    /// By (channel, rank): chunks sent up; chunks sent down; and per chunk the
    /// children whose chunk arrived, whether the parent's arrived.
    std::vector<uint32_t> m_sentUp;
    std::vector<uint32_t> m_sentDown;
    std::vector<std::vector<uint32_t>> m_fromChildren;
    std::vector<std::vector<bool>> m_fromParent;
};

} // namespace ns3

#endif /* NCCL_TREE_H */
