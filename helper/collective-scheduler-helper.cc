/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-scheduler-helper.h"

#include "checked-attributes.h"

#include "ns3/node.h"
#include "ns3/scheduler-job-builder.h"
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

/// Tells job \p job its gate changed when the scheduler's change is about it.
void
ForwardGate(TrainingJob* job, uint32_t id, bool open)
{
    if (job->GetId() == id)
    {
        job->SetGateOpen(open);
    }
}

void
OnJobStarted(Ptr<CollectiveScheduler> scheduler, TrainingCluster* cluster, uint32_t jobId)
{
    for (const auto& e : cluster->GetJobs())
    {
        if (e->spec.id != jobId)
        {
            continue;
        }
        scheduler->TraceConnectWithoutContext("GateChange",
                                              MakeBoundCallback(&ForwardGate, PeekPointer(e->job)));
        if (scheduler->StartsJobsGated())
        {
            cluster->GetNetwork()->SetGate(jobId, false);
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
        scheduler->NotifyJobArrived(
            MakeSchedulerJob(*e, *cluster->GetNetwork(), cluster->GetNvlink()));
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
    Ptr<ClusterNetwork> network = cluster->GetNetwork();
    // Jobs the policy moves to other classes must stay lossless.
    if (const uint8_t classes = scheduler->GetPriorityClasses())
    {
        network->AddLosslessClasses(classes);
    }
    Ptr<Node> controller = CreateObject<Node>();
    controller->AddApplication(scheduler);
    // The network is the scheduler's control plane.
    scheduler->SetControl(PeekPointer(network));
    cluster->TraceConnectWithoutContext(
        "JobStarted",
        MakeBoundCallback(&OnJobStarted, scheduler, PeekPointer(cluster)));
    // The policy sees each candidate as it would see the placed job.
    CollectiveScheduler* policy = PeekPointer(scheduler);
    const ClusterNetwork* net = PeekPointer(network);
    const NvlinkSpeed nvlink = cluster->GetNvlink();
    cluster->SetPlacementChooser(
        [policy, net, nvlink](const TrainingCluster::JobEntry& e, const std::vector<Placement>& c) {
            std::vector<SchedulerJob> candidates;
            for (const Placement& p : c)
            {
                TrainingCluster::JobEntry trial;
                trial.spec = e.spec;
                trial.placement = p;
                trial.graph = e.graph;
                trial.computeTime = e.computeTime;
                trial.gradientBytes = e.gradientBytes;
                candidates.push_back(MakeSchedulerJob(trial, *net, nvlink));
            }
            return policy->ChoosePlacement(candidates);
        });
}

} // namespace ns3
