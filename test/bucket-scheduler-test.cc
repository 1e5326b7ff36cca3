/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * BucketScheduler: events come out in time-then-insertion order, as from
 * every ns-3 scheduler, wherever they sit (the bucket being drained, the
 * ring, the far heap), and a fabric run under it equals one under ns-3's
 * own scheduler.
 */
#include "fabric-test-util.h"

#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

using Key = std::pair<uint64_t, uint32_t>; // time, uid

Ptr<BucketScheduler>
MakeScheduler(int64_t widthSteps, uint32_t buckets)
{
    Ptr<BucketScheduler> s = CreateObject<BucketScheduler>();
    s->SetAttribute("BucketWidth", TimeValue(TimeStep(widthSteps)));
    s->SetAttribute("Buckets", UintegerValue(buckets));
    return s;
}

Scheduler::Event
MakeEvent(uint64_t ts, uint32_t uid)
{
    Scheduler::Event ev;
    // Never dereferenced by a scheduler (only prefetched), so any value
    // serves to check that each event comes out whole.
    ev.impl = reinterpret_cast<EventImpl*>(uintptr_t{uid} * 64 + 64);
    ev.key.m_ts = ts;
    ev.key.m_uid = uid;
    ev.key.m_context = 0;
    return ev;
}

/**
 * Drives a scheduler the way a simulator does (nothing before "now", the
 * time of the last event taken), with a mix of same-time, near, ring-wide
 * and far events, removals and peeks, against an ordered set.
 */
void
CheckAgainstOrderedSet(int64_t widthSteps, uint32_t buckets, uint32_t seed)
{
    Ptr<BucketScheduler> s = MakeScheduler(widthSteps, buckets);
    std::set<Key> reference;
    std::mt19937_64 rng(seed);
    const uint64_t ring = static_cast<uint64_t>(widthSteps) * buckets;
    uint64_t now = 1000;
    uint32_t uid = 0;
    auto insert = [&](uint64_t ts) {
        if (rng() % 3 == 0)
        {
            // A hint is only ever prefetched: wild, stale or null, it must
            // change nothing.
            BucketScheduler::HintNextInsert(reinterpret_cast<const void*>(rng()));
        }
        s->Insert(MakeEvent(ts, uid));
        reference.insert({ts, uid});
        ++uid;
    };
    uint64_t taken = 0;
    for (int step = 0; step < 60000; ++step)
    {
        const uint32_t action = rng() % 100;
        if (action < 50)
        {
            uint64_t delay = 0;
            switch (rng() % 6)
            {
            case 0:
                delay = 0; // now: into the bucket being drained
                break;
            case 1:
                delay = rng() % widthSteps;
                break;
            case 2:
                delay = rng() % (4 * widthSteps);
                break;
            case 3:
                delay = rng() % ring; // anywhere in the ring
                break;
            case 4:
                delay = ring + rng() % (3 * ring); // beyond it
                break;
            default:
                delay = rng() % (100 * ring); // far ahead
                break;
            }
            insert(now + delay);
        }
        else if (action < 90)
        {
            ASSERT_EQ(s->IsEmpty(), reference.empty());
            if (reference.empty())
            {
                continue;
            }
            if (action < 60)
            {
                // A peek may move the cursor ahead; an event scheduled now
                // must still come out first.
                Scheduler::Event peeked = s->PeekNext();
                ASSERT_EQ(Key(peeked.key.m_ts, peeked.key.m_uid), *reference.begin());
                insert(now);
            }
            Scheduler::Event ev = s->RemoveNext();
            ASSERT_EQ(Key(ev.key.m_ts, ev.key.m_uid), *reference.begin()) << "step " << step;
            ASSERT_EQ(ev.impl, MakeEvent(ev.key.m_ts, ev.key.m_uid).impl);
            reference.erase(reference.begin());
            now = ev.key.m_ts;
            ++taken;
        }
        else if (!reference.empty())
        {
            // Remove a pending event picked at random.
            auto it = reference.begin();
            std::advance(it, rng() % std::min<size_t>(reference.size(), 50));
            if (rng() % 2 == 0)
            {
                it = std::prev(reference.end());
            }
            s->Remove(MakeEvent(it->first, it->second));
            reference.erase(it);
        }
    }
    while (!reference.empty())
    {
        Scheduler::Event ev = s->RemoveNext();
        ASSERT_EQ(Key(ev.key.m_ts, ev.key.m_uid), *reference.begin());
        reference.erase(reference.begin());
        ++taken;
    }
    EXPECT_TRUE(s->IsEmpty());
    EXPECT_GT(taken, 20000u);
}

TEST(BucketSchedulerTest, TakesEventsInTimeThenInsertionOrder)
{
    CheckAgainstOrderedSet(16, 64, 1);
}

TEST(BucketSchedulerTest, OrderHoldsForAnyWidthAndRing)
{
    CheckAgainstOrderedSet(1, 64, 2);       // one time step per bucket
    CheckAgainstOrderedSet(1024, 256, 3);   // wide buckets
    CheckAgainstOrderedSet(16384, 4096, 4); // the fabric's default at ps resolution
}

TEST(BucketSchedulerTest, EqualTimesComeOutInInsertionOrder)
{
    Ptr<BucketScheduler> s = MakeScheduler(16, 64);
    for (uint32_t uid = 0; uid < 100; ++uid)
    {
        s->Insert(MakeEvent(5000 + (uid % 3) * 100000, uid));
    }
    uint64_t lastTs = 0;
    uint32_t lastUid = 0;
    for (uint32_t n = 0; n < 100; ++n)
    {
        Scheduler::Event ev = s->RemoveNext();
        ASSERT_TRUE(ev.key.m_ts > lastTs || (ev.key.m_ts == lastTs && ev.key.m_uid > lastUid));
        lastTs = ev.key.m_ts;
        lastUid = ev.key.m_uid;
    }
    EXPECT_TRUE(s->IsEmpty());
}

TEST(BucketSchedulerTest, RefusesARingThatIsNotAPowerOfTwo)
{
    Ptr<BucketScheduler> s = MakeScheduler(16, 100);
    EXPECT_DEATH(s->Insert(MakeEvent(1, 0)), "Buckets must be a power of two");
}

/// Delivery times of a 4-to-1 incast through one switch, with PFC and DCQCN.
std::map<uint32_t, int64_t>
IncastDeliveries(const std::string& scheduler)
{
    ObjectFactory factory;
    factory.SetTypeId(scheduler);
    Simulator::SetScheduler(factory);
    RoceFabricHelper helper;
    Ptr<RoceFabric> fabric = helper.Install(MakeStar(5));
    std::map<uint32_t, int64_t> delivered;
    for (uint32_t h = 0; h < 4; ++h)
    {
        RdmaMessageInfo info;
        info.bytes = 2000000;
        fabric->SendMessage(h, 4, info, MicroSeconds(h), [&delivered, h]() {
            delivered[h] = Simulator::Now().GetTimeStep();
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    return delivered;
}

TEST_F(FabricTest, ABucketScheduledFabricRunEqualsAHeapScheduledOne)
{
    std::map<uint32_t, int64_t> heap = IncastDeliveries("ns3::PriorityQueueScheduler");
    std::map<uint32_t, int64_t> buckets = IncastDeliveries("ns3::BucketScheduler");
    ASSERT_EQ(heap.size(), 4u);
    EXPECT_EQ(buckets, heap);
}

} // namespace
