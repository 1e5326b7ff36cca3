/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-scheduler-helper.h"

#include "checked-attributes.h"
#include "distributed-simulation.h"
#include "scheduler-job-builder.h"

#include "ns3/flow-scheduler-control.h"
#include "ns3/node.h"
#include "ns3/short-name-registry.h"
#include "ns3/string.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The control plane over a cluster's fabric: a job's NICs are those of its hosts.
class FabricSchedulerControl : public Object, public SchedulerControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::FabricSchedulerControl")
                                .SetParent<Object>()
                                .SetGroupName("CollectiveScheduling");
        return tid;
    }

    FabricSchedulerControl(Ptr<RoceFabric> fabric)
        : m_fabric(fabric)
    {
    }

    void AddJob(uint32_t job, const std::vector<uint32_t>& rankHosts)
    {
        std::set<uint32_t> hosts(rankHosts.begin(), rankHosts.end());
        m_hosts[job].assign(hosts.begin(), hosts.end());
    }

    void SetGate(uint32_t job, bool open) override
    {
        for (uint32_t h : Hosts(job))
        {
            m_fabric->GetNic(h)->SetGate(job, open);
        }
    }

    void SetPriorityClass(uint32_t job, int16_t cls) override
    {
        CheckLossless(job, cls);
        for (uint32_t h : Hosts(job))
        {
            m_fabric->GetNic(h)->SetPriorityClass(job, cls);
        }
    }

    void SetRateWeight(uint32_t job, double weight) override
    {
        for (uint32_t h : Hosts(job))
        {
            m_fabric->GetNic(h)->SetRateWeight(job, weight);
        }
    }

    void SetSourcePort(uint32_t job, uint32_t srcHost, uint32_t dstHost, uint16_t port) override
    {
        m_fabric->GetNic(srcHost)->SetSourcePort(job, RoceHostAddress(dstHost), port);
    }

    std::vector<uint32_t> GetPath(uint32_t srcHost, uint32_t dstHost, uint16_t port) const override
    {
        return DirectedPath(*m_fabric, srcHost, dstHost, port);
    }

    uint64_t GetLinkRateBps(uint32_t link) const override
    {
        return m_fabric->GetTopology().GetLink(link / 2).rateBps;
    }

    int32_t GetHostRack(uint32_t host) const override
    {
        return m_fabric->GetTopology().GetSchedulingRack(host);
    }

  protected:
    void DoDispose() override
    {
        m_fabric = nullptr;
        Object::DoDispose();
    }

  private:
    /**
     * A class the policy did not declare (GetPriorityClasses) is lossy while
     * PFC protects the data class: the job's data may then be dropped. Warn
     * once per class (rank 0), naming the job, the class and the attribute.
     */
    void CheckLossless(uint32_t job, int16_t cls)
    {
        if (cls < 0 || (m_warnedClasses >> cls & 1))
        {
            return;
        }
        const FabricTopology& topo = m_fabric->GetTopology();
        for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
        {
            Ptr<RoceSwitch> sw = m_fabric->GetSwitch(node);
            if (!sw)
            {
                continue;
            }
            Ptr<SwitchMmu> mmu = sw->GetMmu();
            if (!mmu->IsLossless(static_cast<uint8_t>(cls)) &&
                mmu->IsLossless(RdmaMessageInfo().priority))
            {
                m_warnedClasses |= static_cast<uint8_t>(1u << cls);
                if (DistributedRank() == 0)
                {
                    std::cerr << "warning: the scheduler moved job " << job << " to traffic class "
                              << cls << ", which is lossy in switch " << topo.GetNode(node).name
                              << " (ns3::SwitchMmu::LosslessClasses "
                              << SwitchMmu::FormatClassList(mmu->GetLosslessClasses())
                              << "), so its data may be dropped: the policy should list the "
                                 "class in CollectiveScheduler::GetPriorityClasses\n";
                }
                return;
            }
        }
    }

    const std::vector<uint32_t>& Hosts(uint32_t job) const
    {
        auto it = m_hosts.find(job);
        NS_ABORT_MSG_IF(it == m_hosts.end(), "the scheduler acted on unknown job " << job);
        return it->second;
    }

    Ptr<RoceFabric> m_fabric;
    std::map<uint32_t, std::vector<uint32_t>> m_hosts; ///< job -> its hosts
    uint8_t m_warnedClasses{0};                        ///< classes warned about
};

/// \p control: the fabric's control plane; null on a flow-level network.
void
OnJobStarted(Ptr<CollectiveScheduler> scheduler,
             Ptr<FabricSchedulerControl> control,
             TrainingCluster* cluster,
             uint32_t jobId)
{
    for (const auto& e : cluster->GetJobs())
    {
        if (e->spec.id != jobId)
        {
            continue;
        }
        if (control)
        {
            control->AddJob(jobId, e->placement.workerHost);
        }
        if (scheduler->StartsJobsGated())
        {
            if (control)
            {
                control->SetGate(jobId, false);
            }
            else
            {
                cluster->GetFlowNetwork()->SetGate(jobId, false);
            }
            scheduler->RecordGateChange(jobId, false);
        }
        CollectiveScheduler* s = PeekPointer(scheduler);
        e->job->TraceConnectWithoutContext(
            "CollectiveReady",
            MakeCallback(&CollectiveScheduler::NotifyCollectiveReady, s));
        e->job->TraceConnectWithoutContext(
            "CollectiveDone",
            MakeCallback(&CollectiveScheduler::NotifyCollectiveDone, s));
        e->job->TraceConnectWithoutContext("JobDone",
                                           MakeCallback(&CollectiveScheduler::NotifyJobDone, s));
        scheduler->NotifyJobArrived(control ? MakeSchedulerJob(*e, *cluster->GetFabric())
                                            : MakeSchedulerJob(*e, *cluster->GetFlowNetwork()));
        return;
    }
    NS_ABORT_MSG("the cluster started unknown job " << jobId);
}

} // namespace

CollectiveSchedulerHelper::CollectiveSchedulerHelper()
{
    m_factory.SetTypeId("ns3::FairScheduler");
}

std::string
CollectiveSchedulerHelper::FindScheduler(const std::string& name)
{
    TypeId tid;
    return ShortNameRegistry::LookupFailSafe(CollectiveScheduler::GetTypeId(), name, &tid)
               ? tid.GetName()
               : "";
}

std::vector<std::string>
CollectiveSchedulerHelper::GetSchedulerNames()
{
    return ShortNameRegistry::GetNames(CollectiveScheduler::GetTypeId());
}

void
CollectiveSchedulerHelper::SetScheduler(const std::string& name)
{
    m_factory.SetTypeId(
        ShortNameRegistry::Lookup(CollectiveScheduler::GetTypeId(), name, "scheduler"));
}

void
CollectiveSchedulerHelper::SetAttribute(const std::string& name, const std::string& value)
{
    TypeId::AttributeInformation info;
    if (!m_factory.GetTypeId().LookupAttributeByName(name, &info))
    {
        throw std::invalid_argument("scheduler " + m_factory.GetTypeId().GetName() +
                                    " has no attribute '" + name + "'");
    }
    Ptr<AttributeValue> v = ParseAttributeValue(info.checker, value);
    if (!v)
    {
        throw std::invalid_argument("scheduler attribute " + name + ": invalid value '" + value +
                                    "' (accepts " + info.checker->GetUnderlyingTypeInformation() +
                                    ")");
    }
    m_factory.Set(name, *v);
}

Ptr<CollectiveScheduler>
CollectiveSchedulerHelper::Create() const
{
    return m_factory.Create<CollectiveScheduler>();
}

Ptr<CollectiveScheduler>
CollectiveSchedulerHelper::Install(Ptr<TrainingCluster> cluster) const
{
    Ptr<CollectiveScheduler> scheduler = Create();
    Install(scheduler, cluster);
    return scheduler;
}

void
CollectiveSchedulerHelper::Install(Ptr<CollectiveScheduler> scheduler,
                                   Ptr<TrainingCluster> cluster) const
{
    if (Ptr<FlowNetwork> network = cluster->GetFlowNetwork())
    {
        // The flow-level model loses nothing: no lossless classes to add.
        Ptr<Node> controller = CreateObject<Node>();
        controller->AddApplication(scheduler);
        Ptr<FlowSchedulerControl> control = CreateObject<FlowSchedulerControl>(network);
        scheduler->AggregateObject(control);
        scheduler->SetControl(PeekPointer(control));
        cluster->TraceConnectWithoutContext("JobStarted",
                                            MakeBoundCallback(&OnJobStarted,
                                                              scheduler,
                                                              Ptr<FabricSchedulerControl>(),
                                                              PeekPointer(cluster)));
        return;
    }
    // Jobs the policy moves to other classes must stay lossless.
    if (const uint8_t classes = scheduler->GetPriorityClasses())
    {
        cluster->GetFabric()->AddLosslessClasses(classes);
    }
    Ptr<Node> controller = CreateObject<Node>();
    controller->AddApplication(scheduler);
    Ptr<FabricSchedulerControl> control =
        CreateObject<FabricSchedulerControl>(cluster->GetFabric());
    scheduler->AggregateObject(control);
    scheduler->SetControl(PeekPointer(control));
    cluster->TraceConnectWithoutContext(
        "JobStarted",
        MakeBoundCallback(&OnJobStarted, scheduler, control, PeekPointer(cluster)));
    // The policy sees each candidate as it would see the placed job.
    CollectiveScheduler* policy = PeekPointer(scheduler);
    RoceFabric* fabric = PeekPointer(cluster->GetFabric());
    cluster->SetPlacementChooser(
        [policy, fabric](const TrainingCluster::JobEntry& e, const std::vector<Placement>& c) {
            std::vector<SchedulerJob> candidates;
            for (const Placement& p : c)
            {
                TrainingCluster::JobEntry trial;
                trial.spec = e.spec;
                trial.placement = p;
                trial.computeTime = e.computeTime;
                trial.gradientBytes = e.gradientBytes;
                candidates.push_back(MakeSchedulerJob(trial, *fabric));
            }
            return policy->ChoosePlacement(candidates);
        });
}

} // namespace ns3
