/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * IterationTimeAccount: each rank's time charged to what it was doing, by
 * hand-timed ops whose parts are known.
 */
#include "ns3/iteration-time-account.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
namespace
{

GraphOp
Op(GraphOp::Kind kind,
   std::vector<uint32_t> ranks,
   CommGroup group = CommGroup::None,
   bool planned = false)
{
    GraphOp op;
    op.kind = kind;
    op.ranks = std::move(ranks);
    op.group = group;
    op.planned = planned;
    return op;
}

TEST(IterationTimeAccountTest, ChargesEachRankToWhatItWasDoing)
{
    // Two ranks over 100 ns. Rank 0 computes 0-40 while a TP op runs 30-60,
    // then a DP op alone 60-70, then idles. Rank 1 joins the TP op at 30 and
    // the DP op 60-70, and waits at a closed gate for a planned op 70-90.
    IterationTimeAccount a;
    a.Begin(2, NanoSeconds(0));
    const GraphOp compute = Op(GraphOp::Kind::Compute, {0});
    const GraphOp tp = Op(GraphOp::Kind::Collective, {0, 1}, CommGroup::Tensor);
    const GraphOp dp = Op(GraphOp::Kind::Collective, {0, 1}, CommGroup::Data);
    const GraphOp planned = Op(GraphOp::Kind::Collective, {1}, CommGroup::Data, true);
    a.OpStarted(compute, NanoSeconds(0));
    a.OpStarted(tp, NanoSeconds(30));
    a.OpDone(compute, NanoSeconds(40));
    a.OpStarted(dp, NanoSeconds(50)); // 50-60: TP and DP share rank 0's and 1's time
    a.OpDone(tp, NanoSeconds(60));
    a.SetGateOpen(false, NanoSeconds(65)); // holds only planned ops
    a.OpDone(dp, NanoSeconds(70));
    a.OpStarted(planned, NanoSeconds(70));
    a.OpDone(planned, NanoSeconds(90));
    const IterationTime t = a.End(NanoSeconds(100));

    // Rank 0: compute 40 (overlapped 10), tp 10 + 5, dp 5 + 10, bubble 30.
    // Rank 1: bubble 30, tp 20 + 5, dp 5 + 10, gate wait 20, bubble 10.
    EXPECT_DOUBLE_EQ(t.computeNs, 40.0 / 2);
    EXPECT_DOUBLE_EQ(t.overlappedNs, 10.0 / 2);
    EXPECT_DOUBLE_EQ(t.Exposed(CommGroup::Tensor), (15.0 + 25.0) / 2);
    EXPECT_DOUBLE_EQ(t.Exposed(CommGroup::Data), (15.0 + 15.0) / 2);
    EXPECT_DOUBLE_EQ(t.gateWaitNs, 20.0 / 2);
    EXPECT_DOUBLE_EQ(t.bubbleNs, (30.0 + 40.0) / 2);
    EXPECT_DOUBLE_EQ(t.Total(), 100.0);
}

TEST(IterationTimeAccountTest, APlannedOpWithItsGateOpenIsCommunication)
{
    IterationTimeAccount a;
    a.SetGateOpen(false, NanoSeconds(0));
    a.Begin(1, NanoSeconds(0));
    const GraphOp planned = Op(GraphOp::Kind::Collective, {0}, CommGroup::Data, true);
    a.OpStarted(planned, NanoSeconds(0));
    a.SetGateOpen(true, NanoSeconds(25)); // the gate's state outlives Begin
    a.OpDone(planned, NanoSeconds(100));
    const IterationTime t = a.End(NanoSeconds(100));
    EXPECT_DOUBLE_EQ(t.gateWaitNs, 25.0);
    EXPECT_DOUBLE_EQ(t.Exposed(CommGroup::Data), 75.0);
    EXPECT_DOUBLE_EQ(t.bubbleNs, 0.0);
}

} // namespace
} // namespace test
} // namespace ns3
