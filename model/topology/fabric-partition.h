/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_PARTITION_H
#define FABRIC_PARTITION_H

#include "fabric-topology.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Give every node of \p topology to one of \p ranks processes of a
 * distributed simulation, so that most links stay inside a rank:
 * - whole pods go to one rank, in contiguous blocks of pods (a fat-tree's
 *   edge and aggregation switches and their hosts); with fewer pods than
 *   ranks, whole racks (an edge switch and its hosts) instead;
 * - nodes in no pod or rack (core switches, spines) are dealt out round-robin.
 * Hosts follow their rack's edge switch. The result depends only on the
 * topology and \p ranks, so every rank computes the same partition.
 * \return the rank of each node, by node id
 * \throw std::invalid_argument if \p ranks is 0 or the topology has fewer
 * pods and fewer racks than ranks
 */
std::vector<uint32_t> PartitionFabric(const FabricTopology& topology, uint32_t ranks);

} // namespace ns3

#endif /* FABRIC_PARTITION_H */
