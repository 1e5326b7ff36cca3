/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCHEDULER_JOB_BUILDER_H
#define SCHEDULER_JOB_BUILDER_H

#include "roce-fabric-helper.h"
#include "training-cluster.h"

#include "ns3/scheduler-job.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * What a scheduler knows of a placed job, derived from the job and the fabric:
 *
 * - Traffic: the job's collectives are run once on a recording transport
 *   (no simulation), bucket by bucket with the same byte split as
 *   TrainingJob, and every message between ranks on different hosts is
 *   added to its connection (source rank, destination rank, channel), whose
 *   UDP source port is FabricCollectiveTransport::ConnectionPort and whose
 *   path is the fabric's ECMP choice for that port.
 * - Communication time alone: per bucket and step, the busiest link's wire
 *   time (headers, preamble and gap included) plus the longest path's
 *   propagation and one packet's store-and-forward per hop; steps and
 *   buckets add up. NVLink messages are taken as free. An all-to-all is
 *   one step. This is an estimate (it ignores congestion-control ramp-up and
 *   ACK turnaround), good to a few percent for large messages.
 *
 * \param entry a started job of the cluster
 * \param fabric the fabric it runs on
 */
SchedulerJob MakeSchedulerJob(const TrainingCluster::JobEntry& entry, const RoceFabric& fabric);

/**
 * \ingroup collective-scheduling
 * MakeSchedulerJob over the flow-level model of a fabric: the same paths
 * (FlowNetwork::GetPath) and the same estimate, with the network's payload
 * per packet and ACK interval.
 */
SchedulerJob MakeSchedulerJob(const TrainingCluster::JobEntry& entry, const FlowNetwork& network);

/**
 * \ingroup collective-scheduling
 * The path from host \p src to host \p dst for UDP source port \p port as
 * directed link ids (2 x link id, plus 1 when the link is crossed from its
 * end b to its end a): the two directions of a full-duplex link are
 * separate resources, and schedulers must not add them up.
 */
std::vector<uint32_t> DirectedPath(const RoceFabric& fabric,
                                   uint32_t src,
                                   uint32_t dst,
                                   uint16_t port);

} // namespace ns3

#endif /* SCHEDULER_JOB_BUILDER_H */
