/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_TEST_UTIL_H
#define COLLECTIVE_TEST_UTIL_H

// A transport for collective tests that knows each rank's server and
// delivers every message at once (after its delay, through the simulator),
// and the helpers that run a collective on it.

#include "ns3/collective.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace test
{

/// Delivers at once, after the message's delay; rank r runs on server servers[r].
class ServersTransport : public CollectiveTransport
{
  public:
    explicit ServersTransport(std::vector<int64_t> servers)
        : m_servers(std::move(servers))
    {
    }

    void Send(const CollectiveMessage& m, std::function<void()> onDelivered) override
    {
        sends.push_back(m);
        if (m.delay.IsStrictlyPositive())
        {
            Simulator::Schedule(m.delay, std::move(onDelivered));
            return;
        }
        onDelivered();
    }

    int64_t GetServer(uint32_t rank) const override
    {
        return m_servers.at(rank);
    }

    std::vector<CollectiveMessage> sends;

  private:
    std::vector<int64_t> m_servers;
};

/// Servers of \p n ranks placed \p k a server, in rank order.
inline std::vector<int64_t>
Blocks(uint32_t n, uint32_t k)
{
    std::vector<int64_t> s(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        s[r] = r / k;
    }
    return s;
}

/// Runs \p c to its end (through the simulator: a protocol delays its
/// messages); \p took gets the time it took. \return its messages, in order
inline std::vector<CollectiveMessage>
RunToEnd(Ptr<Collective> c,
         uint64_t bytes,
         const std::vector<int64_t>& servers,
         Time* took = nullptr)
{
    ServersTransport t(servers);
    c->Configure(static_cast<uint32_t>(servers.size()), bytes, &t);
    bool done = false;
    Time end;
    c->Start([&done, &end]() {
        done = true;
        end = Simulator::Now();
    });
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_TRUE(done) << c->GetName();
    if (took != nullptr)
    {
        *took = end;
    }
    return t.sends;
}

} // namespace test
} // namespace ns3

#endif /* COLLECTIVE_TEST_UTIL_H */
