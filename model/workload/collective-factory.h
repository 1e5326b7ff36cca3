/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_FACTORY_H
#define COLLECTIVE_FACTORY_H

#include "collective.h"

#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \return a new collective of algorithm \p name (one of GetCollectiveNames(),
 * or the TypeId name of a Collective subclass) with the Channels attribute
 * set to \p channels
 * \throws std::invalid_argument for an unknown name (the message lists the
 *         registered ones) or \p channels == 0
 */
Ptr<Collective> CreateCollective(const std::string& name, uint32_t channels);

/**
 * \return the short names of every registered Collective class, sorted: the
 * names CreateCollective() accepts (each class gives itself its name with
 * NS_OBJECT_SHORT_NAME)
 */
std::vector<std::string> GetCollectiveNames();

/**
 * \ingroup collective-scheduling
 * The collective \p kind ("all-reduce", "reduce-scatter" or "all-gather")
 * of all-reduce \p allReduce's family: two-level when that is
 * hierarchical-, NCCL's rings over every NIC when it is nccl-ring- or
 * nccl-, NCCL's tree for an all-reduce of nccl-tree- (its reduce-scatter
 * and all-gather are nccl-ring-, as NCCL's tree reduces only), else the
 * flat ring ("ring-all-reduce", "reduce-scatter",
 * "all-gather"). Jobs reduce-scatter and gather with the algorithm they
 * all-reduce with, as one NCCL serves them all.
 */
std::string CollectiveOfFamily(const std::string& allReduce, const std::string& kind);

} // namespace ns3

#endif /* COLLECTIVE_FACTORY_H */
