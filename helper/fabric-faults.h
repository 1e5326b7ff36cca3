/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_FAULTS_H
#define FABRIC_FAULTS_H

#include "roce-fabric-helper.h"

#include "ns3/fabric-fault.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/results-database.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Takes links, switches and hosts of a RoceFabric down and up at
 * scheduled times.
 *
 * While a link is down every frame whose time on the wire overlaps the
 * outage is lost (RoceChannel::AddOutage): frames in flight when it fails,
 * frames queued for it and frames sent into it. DetectionDelay after it
 * fails, the fabric routes around it: every switch recomputes its ECMP
 * groups over the links that are up (EcmpRoutes), as a routing protocol
 * converges; a host no switch can reach keeps its old routes, so frames to
 * it are lost on its dead links. When the link comes back up the routes
 * include it again at once. Queue pairs recover lost frames by go-back-N and
 * timeouts, or fail after their retries (RdmaNic::RetryCount).
 *
 * Every change is an event (down, routes-withdrawn, up, routes-restored)
 * kept for the faults table and the run report.
 */
class FabricFaults : public Object
{
  public:
    /// What happened when (one row of the faults table).
    struct Event
    {
        uint32_t faultId;   ///< index in the fault list
        Time time;          ///< when
        std::string event;  ///< down | routes-withdrawn | up | routes-restored
        std::string target; ///< link | switch | host
        uint32_t targetId;  ///< as given
        uint32_t links;     ///< links the fault takes down
    };

    static TypeId GetTypeId();

    /**
     * Schedule \p faults on \p fabric (before Simulator::Run).
     * \throw std::invalid_argument naming the fault (its `where`) when an id
     *        names no link, switch or host, or the times are out of order
     */
    void Install(Ptr<RoceFabric> fabric, const std::vector<FabricFault>& faults);

    /// Events so far, in time order.
    const std::vector<Event>& GetEvents() const
    {
        return m_events;
    }

    /// Write the events as rows of the faults table of run \p runId.
    void Write(ResultsDatabase& db, int64_t runId) const;

    /// One line per event.
    void PrintSummary(std::ostream& os) const;

  private:
    /// Links a fault takes down. \throw std::invalid_argument for a bad id
    std::vector<uint32_t> LinksOf(const FabricFault& fault) const;
    void Record(uint32_t faultId, const char* event);
    /// Links \p links stop (\p down) or start again (\p !down) carrying routes.
    void Reroute(const std::vector<uint32_t>& links, bool down);

    Time m_detectionDelay;
    Ptr<RoceFabric> m_fabric;
    std::vector<FabricFault> m_faults;
    std::vector<uint32_t> m_linkCount;    ///< links of each fault
    std::vector<uint32_t> m_routedAround; ///< by link: faults whose routes avoid it
    std::vector<Event> m_events;
};

} // namespace ns3

#endif /* FABRIC_FAULTS_H */
