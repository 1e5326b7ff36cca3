/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_TEST_UTIL_H
#define FABRIC_TEST_UTIL_H

// Small builders shared by the fabric tests.

#include "temp-dir-test.h"

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <functional>
#include <gtest/gtest.h>

namespace ns3
{
namespace test
{

/// One switch (node 0) with \p hosts hosts (nodes 1..hosts, host index = node - 1).
inline FabricTopology
MakeStar(uint32_t hosts, uint64_t rateBps = 100000000000ull, int64_t delayNs = 1000)
{
    FabricTopology topo;
    uint32_t sw = topo.AddSwitch("switch", 1);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        uint32_t host = topo.AddHost("host-" + std::to_string(h), -1, 0);
        topo.AddLink(host, sw, rateBps, delayNs);
    }
    return topo;
}

/// Bytes a frame of \p frameBytes occupies on the wire, computed from Ethernet's rules.
inline uint64_t
WireOf(uint64_t frameBytes)
{
    return std::max<uint64_t>(frameBytes, 60) + 8 /* preamble+SFD */ + 12 /* IFG */ + 4 /* FCS */;
}

/// Frame bytes (no FCS) of data packet \p i of a \p bytes message in \p mtu-byte packets.
inline uint64_t
DataFrameBytes(uint64_t bytes, uint32_t mtu, uint64_t i)
{
    uint64_t payload = std::min<uint64_t>(mtu, bytes - i * mtu);
    // Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4; RETH 16 on the first packet.
    return 14 + 20 + 8 + 12 + 4 + payload + (i == 0 ? 16 : 0);
}

/// Drops received frames for which a predicate on the RoCE header holds.
class DropFramesErrorModel : public ErrorModel
{
  public:
    /// Predicate: header, number of RoCE frames seen so far (0-based).
    using Predicate = std::function<bool(const RoceHeader&, uint64_t)>;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::DropFramesErrorModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("CollectiveScheduling");
        return tid;
    }

    void SetPredicate(Predicate p)
    {
        m_predicate = std::move(p);
    }

    uint64_t GetDropped() const
    {
        return m_dropped;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        if (RoceForwardingInfo::Peek(p).etherType != 0x0800)
        {
            return false;
        }
        RoceHeader h;
        p->PeekHeader(h);
        bool drop = m_predicate && m_predicate(h, m_seen++);
        m_dropped += drop;
        return drop;
    }

    void DoReset() override
    {
    }

    Predicate m_predicate;
    uint64_t m_seen{0};
    uint64_t m_dropped{0};
};

/// Install a DropFramesErrorModel on the receive side of \p dev.
inline Ptr<DropFramesErrorModel>
DropOnReceive(Ptr<RoceNetDevice> dev, DropFramesErrorModel::Predicate predicate)
{
    Ptr<DropFramesErrorModel> em = CreateObject<DropFramesErrorModel>();
    em->SetPredicate(std::move(predicate));
    dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
    return em;
}

/// Each test builds its own simulation; this keeps them independent.
class FabricTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        RoceUsePicoseconds();
        RngSeedManager::SetSeed(1);
    }

    void TearDown() override
    {
        Simulator::Destroy();
    }
};

/// A fabric test that also writes files, in a directory of its own.
class FabricTempDirTest : public TempDirTest
{
  protected:
    void SetUp() override
    {
        TempDirTest::SetUp();
        RoceUsePicoseconds();
        RngSeedManager::SetSeed(1);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        TempDirTest::TearDown();
    }
};

} // namespace test
} // namespace ns3

#endif /* FABRIC_TEST_UTIL_H */
