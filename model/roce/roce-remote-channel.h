/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_REMOTE_CHANNEL_H
#define ROCE_REMOTE_CHANNEL_H

#include "roce-channel.h"

namespace ns3
{

class RoceNetDevice;

/**
 * \ingroup collective-scheduling
 * \brief A RoceChannel whose two ends live in different MPI ranks of a
 * distributed simulation (ns-3's mpi module).
 *
 * As PointToPointRemoteChannel: a frame for an end owned by another rank is
 * serialized and handed to MpiInterface::SendPacket with its arrival time;
 * the receiving rank's MpiReceiver (aggregated to the device by
 * RoceRemoteChannel::AttachReceiver) calls RoceNetDevice::Receive at that
 * time. The propagation delay is the channel's "Delay" attribute, which the
 * distributed simulator reads to set its lookahead. Built only when ns-3 has
 * MPI (NS3_MPI).
 */
class RoceRemoteChannel : public RoceChannel
{
  public:
    static TypeId GetTypeId();
    RoceRemoteChannel();

    /**
     * Make \p device, an end of a remote channel owned by this rank, accept
     * frames that other ranks send it: aggregates an MpiReceiver whose
     * callback is the device's Receive.
     */
    static void AttachReceiver(Ptr<RoceNetDevice> device);

  protected:
    void Deliver(Ptr<Packet> p,
                 std::size_t to,
                 Time delay,
                 const RoceForwardingInfo& info) override;
};

} // namespace ns3

#endif /* ROCE_REMOTE_CHANNEL_H */
