/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_IDLE_STOP_H
#define FABRIC_IDLE_STOP_H

#include "roce-fabric-helper.h"

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <functional>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * End a run of the null-message engine (ns3::NullMessageSimulatorImpl) once
 * nothing is left to happen in \p fabric; do nothing under any other engine
 * or in a single process, where the run ends when its events run out.
 *
 * The null-message engine always has events (a null message to each
 * neighbouring rank, every lookahead), so it cannot end by running out of
 * them. Every rank checks at the same simulated times, every
 * FabricIdleCheckInterval, and the ranks combine their counts with one
 * all-reduce; all stop at the first check where, for the second check in a
 * row, \p workRemains is false on every rank, no port holds a queued frame,
 * no NIC has a queue pair sending or waiting for an ACK, and no frame was put
 * on a link since the previous check. An interval longer than any frame's
 * time on the wire plus its link's delay means every frame sent before the
 * previous check has arrived and been handled, and anything it caused
 * (forwarding, an ACK, a PFC frame) would show in those counts; what is left
 * (congestion-control timers) sends nothing. The run's results record its
 * last activity, not the stop time, so they are those of a run that ran out
 * of events.
 *
 * \param workRemains whether this rank's model still has work outside the
 * fabric that will post messages (jobs not finished); null for none
 */
void StopWhenFabricIdle(Ptr<RoceFabric> fabric, std::function<bool()> workRemains);

/**
 * The interval between StopWhenFabricIdle's checks on \p fabric: 100 us, or
 * twice the longest time a frame of its port's MTU takes from the start of
 * its transmission to its arrival, over all links, if that is longer.
 */
Time FabricIdleCheckInterval(Ptr<RoceFabric> fabric);

} // namespace ns3

#endif /* FABRIC_IDLE_STOP_H */
