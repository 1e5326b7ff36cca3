/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-congestion-ops.h"

#include "ns3/log.h"
#include "ns3/short-name-registry.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCongestionOps");
NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionOps);
NS_OBJECT_ENSURE_REGISTERED(RdmaNoCongestionControl);
NS_OBJECT_SHORT_NAME(RdmaNoCongestionControl, "none");

TypeId
RdmaCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCongestionOps").SetParent<Object>().SetGroupName("CollectiveScheduling");
    return tid;
}

void
RdmaCongestionOps::OnSend(uint32_t /* wireBytes */, Time /* now */)
{
}

Time
RdmaCongestionOps::GetNextRateChange(Time /* now */)
{
    return Time::Max();
}

void
RdmaCongestionOps::OnCnp(Time /* now */)
{
}

void
RdmaCongestionOps::OnRetransmit(Time /* now */)
{
}

void
RdmaCongestionOps::OnAck(uint64_t /* newlyAcked */, Time /* now */)
{
}

void
RdmaCongestionOps::SetProgress(double /* fraction */)
{
}

bool
RdmaCongestionOps::UsesProgress() const
{
    return false;
}

void
RdmaCongestionOps::SetRateWeight(double /* weight */)
{
}

TypeId
RdmaNoCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaNoCongestionControl")
                            .SetParent<RdmaCongestionOps>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<RdmaNoCongestionControl>();
    return tid;
}

std::string
RdmaNoCongestionControl::GetName() const
{
    return "None";
}

Ptr<RdmaCongestionOps>
RdmaNoCongestionControl::Fork() const
{
    return CopyObject<RdmaNoCongestionControl>(this);
}

void
RdmaNoCongestionControl::Init(DataRate lineRate, Time /* now */)
{
    m_lineRate = lineRate;
}

DataRate
RdmaNoCongestionControl::GetRate(Time /* now */)
{
    return m_lineRate;
}

} // namespace ns3
