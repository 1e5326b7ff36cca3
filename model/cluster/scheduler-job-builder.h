/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCHEDULER_JOB_BUILDER_H
#define SCHEDULER_JOB_BUILDER_H

#include "training-cluster.h"

#include "ns3/cluster-network.h"
#include "ns3/scheduler-job.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * What a scheduler knows of a placed job, derived from the job and the network:
 *
 * - Traffic: the collectives of the job's graph that schedulers plan
 *   (GraphOp::planned: its data-parallel collectives, a data-parallel job's
 *   buckets; spec.buckets is set to their number) are run once on a recording transport (no
 *   simulation), op by op over their members, and every message between
 *   ranks on different hosts is
 *   added to its connection (source rank, destination rank, channel), whose
 *   UDP source port is NetworkCollectiveTransport::ConnectionPort and whose
 *   path is the network's ECMP choice for that port, as directed links
 *   (ClusterNetwork::GetDirectedPath: the two directions of a full-duplex
 *   link are separate resources, and schedulers must not add them up).
 * - Times alone: one iteration is run op by op in graph order as
 *   TrainingJob runs it (an op starts when its dependencies are done and
 *   the op before it on its stream is), compute ops taking their duration
 *   and communication ops their estimate: per step, the busiest link's wire
 *   time (headers, preamble and gap included) plus the longest path's
 *   propagation and one packet's store-and-forward at each switch (each hop
 *   after the first, whose serialization the wire time holds); a planned
 *   op's NVLink messages are taken as free, another op's step takes at
 *   least its NVLink time (\p nvlink: the latency plus the bytes of its
 *   busiest GPU port into or out of the NVSwitch at the rate, as NvSwitch
 *   shares them; its largest message's without contention). An all-to-all is one
 *   step. computeTime is then the time to the first planned op's start,
 *   commTime the rest of the iteration (for a data-parallel job of one
 *   bucket, its compute and its collective; with buckets, commTime runs
 *   from the first bucket to the last, the compute between them included,
 *   as the job's gate stays open), and gpuSeconds the compute ops'
 *   durations times their ranks. Every planned op, and every other op
 *   with bytes on the fabric, is one of job.ops: its start alone (from the
 *   first planned op's), its estimate, and its bytes per connection
 *   (planned) or per directed link (the others, on their own paths). The estimate ignores
 * congestion-control ramp-up and ACK turnaround; it is good to a few percent for large messages.
 * The payload per packet and ACK interval are the network's.
 *
 * \param entry a started job of the cluster
 * \param network the network it runs on
 * \param nvlink the cluster's NVLink (TrainingCluster::GetNvlink)
 */
SchedulerJob MakeSchedulerJob(const TrainingCluster::JobEntry& entry,
                              const ClusterNetwork& network,
                              const NvlinkSpeed& nvlink = NvlinkSpeed());

} // namespace ns3

#endif /* SCHEDULER_JOB_BUILDER_H */
