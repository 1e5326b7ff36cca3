/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceFabric::NotificationDelay: a message's onDelivered callback runs
 * exactly the delay after its last byte arrived, and callbacks due at the
 * same instant run in message order, whatever order ns-3 delivered them in.
 */
#include "fabric-test-util.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

class NotificationDelayTest : public FabricTest
{
  protected:
    struct Call
    {
        uint64_t flowId;
        Time at;
    };

    /**
     * One switch and four hosts; host 2's link is 2 us long, the others 1 us.
     * Message 0 goes from host 1 to host 3 starting at 1 us, message 1 from
     * host 0 to host 2 starting at 0, one packet each: both arrive at the
     * same instant (three link delays and two frame times after time 0), but
     * message 1's arrival was scheduled first, so ns-3 delivers it first.
     */
    std::vector<Call> Run(Time delay, std::vector<Time>* delivered = nullptr)
    {
        FabricTopology topo;
        const uint32_t sw = topo.AddSwitch("switch", 1);
        for (uint32_t h = 0; h < 4; ++h)
        {
            const uint32_t host = topo.AddHost("host-" + std::to_string(h), -1, 0);
            topo.AddLink(host, sw, 100000000000ull, h == 2 ? 2000 : 1000);
        }
        RoceFabricHelper helper;
        helper.SetCongestionControl("none");
        Ptr<RoceFabric> fabric = helper.Install(topo);
        fabric->SetAttribute("NotificationDelay", TimeValue(delay));
        RoceFlowMonitor monitor(fabric);
        std::vector<Call> calls;
        RdmaMessageInfo info;
        info.bytes = 1000;
        uint64_t id = 0; // a new fabric numbers messages from 0 in posting order
        for (const auto& [src, dst, start] :
             {std::tuple{1u, 3u, MicroSeconds(1)}, std::tuple{0u, 2u, Time(0)}})
        {
            fabric->SendMessage(src, dst, info, start, [&calls, id]() {
                calls.push_back(Call{id, Simulator::Now()});
            });
            ++id;
        }
        Simulator::Run();
        if (delivered)
        {
            for (const auto& [id, f] : monitor.GetFlows())
            {
                delivered->push_back(f.delivered);
            }
        }
        Simulator::Destroy();
        return calls;
    }
};

TEST_F(NotificationDelayTest, TheTwoMessagesArriveTogetherAndNs3TakesTheLaterIdFirst)
{
    std::vector<Time> delivered;
    const std::vector<Call> calls = Run(Time(0), &delivered);
    ASSERT_EQ(delivered.size(), 2u);
    const Time frame = PicoSeconds(WireOf(DataFrameBytes(1000, 1000, 0)) * 80); // 80 ps a byte
    EXPECT_EQ(delivered[0], MicroSeconds(3) + 2 * frame);
    EXPECT_EQ(delivered[1], delivered[0]);
    // Without a delay the callbacks run at delivery, in ns-3's order.
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0].flowId, 1u);
    EXPECT_EQ(calls[1].flowId, 0u);
    EXPECT_EQ(calls[0].at, delivered[0]);
}

TEST_F(NotificationDelayTest, WithADelayCallbacksRunThatMuchLaterInMessageOrder)
{
    std::vector<Time> delivered;
    const std::vector<Call> calls = Run(MicroSeconds(2), &delivered);
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0].flowId, 0u);
    EXPECT_EQ(calls[1].flowId, 1u);
    for (const Call& c : calls)
    {
        EXPECT_EQ(c.at, delivered[c.flowId] + MicroSeconds(2));
    }
}

} // namespace
