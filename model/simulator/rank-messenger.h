/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RANK_MESSENGER_H
#define RANK_MESSENGER_H

#include "ns3/callback.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Carries small control messages (one 64-bit value) from one MPI rank
 * to all the others of a distributed simulation, to arrive at a given time.
 *
 * ns-3's MpiInterface delivers a packet to a device of a node owned by the
 * receiving rank; the messenger creates one such node per rank (owned by
 * that rank, with one device that has an MpiReceiver) so that any rank can
 * reach any other. Built only with ns-3's mpi module.
 */
class RankMessenger : public Object
{
  public:
    static TypeId GetTypeId();

    /**
     * Create the per-rank nodes (every rank must call it, in the same place
     * of the set-up, so that node ids agree) and call \p receive with each
     * value another rank sends this one, at its arrival time.
     */
    void Setup(Callback<void, uint64_t> receive);

    /// Send \p value to every other rank, to arrive at time \p at.
    void SendToOthers(uint64_t value, Time at) const;

  protected:
    void DoDispose() override;

  private:
    void Receive(Ptr<Packet> p);

    std::vector<Ptr<Node>> m_nodes; ///< by rank
    Callback<void, uint64_t> m_receive;
};

} // namespace ns3

#endif /* RANK_MESSENGER_H */
