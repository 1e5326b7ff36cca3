/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceCanonicalArrivals: frames reaching a switch at the same instant are
 * taken in port order, whatever order their events were scheduled in, as a
 * distributed run needs for results that do not depend on its ranks.
 */
#include "fabric-test-util.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

class RoceArrivalBatchTest : public FabricTest
{
  protected:
    void TearDown() override
    {
        GlobalValue::Bind("RoceCanonicalArrivals", BooleanValue(false));
        FabricTest::TearDown();
    }

    /**
     * Hosts 0 and 1 each send one packet to host 2 at time 0, posted in the
     * order \p senders; both frames reach the switch at the same instant,
     * on ports 0 and 1, for the same egress port.
     * \return the senders in the order host 2 received their messages
     */
    std::vector<uint32_t> DeliveryOrder(bool canonical, const std::vector<uint32_t>& senders)
    {
        GlobalValue::Bind("RoceCanonicalArrivals", BooleanValue(canonical));
        RoceFabricHelper helper;
        helper.SetCongestionControl("none");
        Ptr<RoceFabric> fabric = helper.Install(MakeStar(3));
        std::vector<uint32_t> order;
        for (uint32_t s : senders)
        {
            RdmaMessageInfo info;
            info.bytes = 1000; // one packet
            fabric->SendMessage(s, 2, info, Seconds(0), [&order, s]() { order.push_back(s); });
        }
        Simulator::Run();
        Simulator::Destroy();
        return order;
    }
};

TEST_F(RoceArrivalBatchTest, SimultaneousArrivalsAreTakenInPortOrder)
{
    // Canonical: port 0 (host 0) first, whichever message was posted first.
    EXPECT_EQ(DeliveryOrder(true, {1, 0}), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(DeliveryOrder(true, {0, 1}), (std::vector<uint32_t>{0, 1}));
}

TEST_F(RoceArrivalBatchTest, WithoutItTheSchedulingOrderDecides)
{
    // The case above is a real tie: ns-3's own order follows the posting order.
    EXPECT_EQ(DeliveryOrder(false, {1, 0}), (std::vector<uint32_t>{1, 0}));
    EXPECT_EQ(DeliveryOrder(false, {0, 1}), (std::vector<uint32_t>{0, 1}));
}

TEST_F(RoceArrivalBatchTest, CanonicalOrderKeepsEveryByteAndTheAnalyticTimes)
{
    // Deferring within the instant moves nothing in time: the second message
    // waits exactly one frame time behind the first at the switch's egress.
    GlobalValue::Bind("RoceCanonicalArrivals", BooleanValue(true));
    RoceFabricHelper helper;
    helper.SetCongestionControl("none");
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(3));
    RoceFlowMonitor monitor(fabric);
    for (uint32_t s : {1u, 0u})
    {
        RdmaMessageInfo info;
        info.bytes = 1000;
        fabric->SendMessage(s, 2, info, Seconds(0));
    }
    Simulator::Run();
    ASSERT_EQ(monitor.GetCompletedFlows(), 2u);
    const double frameTime = WireOf(DataFrameBytes(1000, 1000, 0)) * 8.0 / 100e9;
    std::vector<double> delivered;
    for (const auto& [id, f] : monitor.GetFlows())
    {
        delivered.push_back(f.delivered.GetSeconds());
    }
    std::sort(delivered.begin(), delivered.end());
    // Two store-and-forward hops of 1 us each.
    EXPECT_NEAR(delivered[0], 2 * frameTime + 2e-6, 1e-12);
    EXPECT_NEAR(delivered[1] - delivered[0], frameTime, 1e-12);
}

} // namespace
