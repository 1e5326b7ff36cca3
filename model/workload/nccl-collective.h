/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_COLLECTIVE_H
#define NCCL_COLLECTIVE_H

#include "collective.h"
#include "nccl-tree.h"
#include "nccl-tuning.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief NCCL's ring collectives as NCCL builds them on multi-NIC servers:
 * one ring per channel, each leaving every server through a different GPU.
 *
 * The ranks' servers come from the transport (CollectiveTransport::GetServer).
 * With n servers of k ranks each (rank (i, l): local rank l, in rank order,
 * of the i-th server in order of first appearance), channel c's ring visits
 * the servers in order and, in an even server (i = 0, 2, ...), the local
 * ranks c, c+1, ..., c+k-1 (mod k), in an odd one the same ranks backwards,
 * c+k-1, ..., c. So channel c leaves even servers through local rank
 * (c + k - 1) mod k and odd ones through local rank c mod k, and enters the
 * next server through the same local rank it left by: the hop between
 * servers stays on one rail, as NCCL's rings keep one NIC index across
 * nodes (only the hop from the last server back to the first changes rails,
 * when n is odd). With C a multiple of k every GPU's NIC is the exit of C/k
 * channels and carries exactly 1/k of the bytes between servers:
 * 2(N-1)/N x S/k of an all-reduce (a rank-order ring puts 2(N-1)/N x S on
 * one NIC a server).
 *
 * Channels: NCCL runs at least one channel per NIC, so when the ranks span
 * more than one server of k > 1 ranks, the runs use max(Channels, k)
 * channels (GetChannels()); else the Channels attribute.
 *
 * Fallbacks: with one server, or one rank a server, the rings are the
 * rank-order ring of RingCollective on every channel (message for message).
 * Servers of unequal rank counts have no common rotation: the ranks then
 * form the rank-order ring on every channel too, with Channels channels.
 *
 * Within a channel it is RingCollective's algorithm, on ring positions: in
 * step s the rank at position p sends chunk (p - s) mod N to position p+1.
 */
class NcclRingCollective : public SteppedCollective
{
  public:
    static TypeId GetTypeId();

    uint32_t GetStepCount() const override;
    uint32_t GetSendPeer(uint32_t rank, uint32_t channel, uint32_t step) const override;
    uint64_t GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const override;
    /// \return max(Channels, k) on several servers of k > 1 ranks, else Channels
    uint32_t GetChannels() const override;

    /// \return the chunk (0..N-1) \p rank sends in step \p step on \p channel
    uint32_t GetStepChunk(uint32_t rank, uint32_t channel, uint32_t step) const;
    /// \return the position (0..N-1) of \p rank on the ring of \p channel
    uint32_t GetPosition(uint32_t rank, uint32_t channel) const;
    /// \return the rank at position \p position of the ring of \p channel
    uint32_t GetRankAt(uint32_t position, uint32_t channel) const;

    /// \return the distinct servers of the ranks (n)
    uint32_t GetServerCount() const
    {
        return m_servers;
    }

    /// \return k when the servers have k ranks each, else 1
    uint32_t GetRanksPerServer() const
    {
        return m_local;
    }

    /// \return whether each channel's ring is rotated in each server (n > 1, k > 1, even)
    bool IsRotated() const
    {
        return m_rotated;
    }

    /// \return the collective NCCL's tuning model sees
    NcclFunction GetFunction() const
    {
        return m_function;
    }

  protected:
    /// \param passes 1 (reduce-scatter, all-gather) or 2 (all-reduce)
    NcclRingCollective(uint32_t passes, NcclFunction function);

    /// Reads the ranks' servers from the transport and builds the rings.
    void DoConfigure() override;

  private:
    uint32_t m_passes;
    NcclFunction m_function;
    uint32_t m_servers{1};              ///< n
    uint32_t m_local{1};                ///< k (1 when the servers differ in size)
    bool m_rotated{false};              ///< channel c rotates each server's ranks by c
    std::vector<uint32_t> m_positionOf; ///< by rank: i x k + l (rank when not rotated)
    std::vector<uint32_t> m_rankAt;     ///< inverse of m_positionOf
};

/// NCCL's ring all-reduce over every NIC (Simple protocol, no tuning).
class NcclRingAllReduce : public NcclRingCollective
{
  public:
    static TypeId GetTypeId();
    NcclRingAllReduce();
};

/// NCCL's ring reduce-scatter over every NIC (Simple protocol, no tuning).
class NcclRingReduceScatter : public NcclRingCollective
{
  public:
    static TypeId GetTypeId();
    NcclRingReduceScatter();
};

/// NCCL's ring all-gather over every NIC (Simple protocol, no tuning).
class NcclRingAllGather : public NcclRingCollective
{
  public:
    static TypeId GetTypeId();
    NcclRingAllGather();
};

/**
 * \ingroup collective-scheduling
 * \brief An NCCL collective that picks its algorithm and protocol as NCCL
 * does: by NCCL's tuning model (NcclChoose), at Configure and again at each
 * Start (the channel count may have changed). An all-reduce chooses between
 * the rings and NCCL's tree (NcclTreeTopology, run as NcclTreePipeline);
 * reduce-scatter and all-gather run the rings, as NCCL's tree serves
 * all-reduces only.
 *
 * The protocol's cost on the wire: every message carries its data bytes
 * scaled by the protocol (NcclWireBytes: LL 2x, LL128 128/120, Simple 1x),
 * and carries as its delay (CollectiveMessage::delay: the transport sends
 * it that much later) the model's latency spread evenly over the ring's
 * steps (latency / steps, GetStepDelay) or the tree's longest path (latency
 * / 2 x height, a hop), so an unloaded, infinitely fast network finishes
 * the run in the model's latency term. The Algorithm and Protocol
 * attributes force an algorithm or a protocol instead of the model's choice
 * (with a forced algorithm, the protocol is the model's best for it).
 */
class NcclCollective : public NcclRingCollective
{
  public:
    static TypeId GetTypeId();

    /// The Protocol attribute: the model's choice, or a forced protocol.
    enum ProtocolChoice
    {
        PROTOCOL_AUTO,
        PROTOCOL_LL,
        PROTOCOL_LL128,
        PROTOCOL_SIMPLE,
    };

    /// The Algorithm attribute: the model's choice, or a forced algorithm.
    enum AlgorithmChoice
    {
        ALGORITHM_AUTO,
        ALGORITHM_RING,
        ALGORITHM_TREE,
    };

    uint64_t GetStepBytes(uint32_t rank, uint32_t channel, uint32_t step) const override;
    /// \return the ring's channels, or the tree's (twice the graph's) when it runs the tree
    uint32_t GetChannels() const override;
    uint64_t BytesPerRank() const override;

    /// \return the model's prediction and choice of the current configuration
    const NcclChoice& GetChoice() const
    {
        return m_choice;
    }

    /// \return the protocol the runs use: the forced one, else the model's choice
    NcclProtocol GetProtocol() const
    {
        return m_protocol;
    }

    /// \return the algorithm the runs use: the forced one, else the model's choice
    NcclAlgorithm GetAlgorithm() const
    {
        return m_algorithm;
    }

    /// \return the tree of the current configuration (built when the runs use it)
    const NcclTreeTopology& GetTree() const
    {
        return m_tree;
    }

    /// \return the tree's run of the current configuration
    const NcclTreePipeline& GetTreePipeline() const
    {
        return m_treeRun;
    }

    /// \return the model's input of the current configuration
    NcclTuningInput GetTuningInput() const;

  protected:
    NcclCollective(uint32_t passes, NcclFunction function);

    void DoConfigure() override;
    void DoStart() override;
    void HandleDelivery(const CollectiveMessage& m) override;
    Time GetStepDelay() const override;

  private:
    /// Runs the model and settles the algorithm, the protocol and their latency.
    void Tune();
    /// \return the protocol of least predicted time for \p algorithm
    NcclProtocol BestProtocol(NcclAlgorithm algorithm) const;
    /// Posts a tree message of the current run; false once that run is over.
    NcclTreePipeline::SendFunction TreeSender();

    ProtocolChoice m_forced{PROTOCOL_AUTO};
    AlgorithmChoice m_forcedAlgorithm{ALGORITHM_AUTO};
    NcclAlgorithm m_algorithm{NcclAlgorithm::RING};
    NcclRankLayout m_layout;
    NcclTreeTopology m_tree;
    NcclTreePipeline m_treeRun;
    uint64_t m_treeRuns{0}; ///< counts tree runs, so a run started from done stops an outer loop
    double m_netBandwidth{12.5};
    double m_nvlinkBandwidth{20.0};
    NcclChoice m_choice;
    NcclProtocol m_protocol{NcclProtocol::SIMPLE};
    Time m_stepDelay;
};

/// NCCL's all-reduce: rings over every NIC or the tree, algorithm and protocol by NCCL's model.
class NcclAllReduce : public NcclCollective
{
  public:
    static TypeId GetTypeId();
    NcclAllReduce();
};

/// NCCL's reduce-scatter: rings over every NIC, protocol by NCCL's model.
class NcclReduceScatter : public NcclCollective
{
  public:
    static TypeId GetTypeId();
    NcclReduceScatter();
};

/// NCCL's all-gather: rings over every NIC, protocol by NCCL's model.
class NcclAllGather : public NcclCollective
{
  public:
    static TypeId GetTypeId();
    NcclAllGather();
};

} // namespace ns3

#endif /* NCCL_COLLECTIVE_H */
