/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Job placement: the packed, spread, random and explicit policies, GPU slot
// accounting (conservation, no change on failure) and ring order. Expected
// hosts follow from the policy definitions on small leaf-spine fabrics whose
// rack of host h is h / hostsPerLeaf.

#include "runtime-error-test-util.h"

#include "ns3/fat-tree-topology.h"
#include "ns3/job-placement.h"
#include "ns3/leaf-spine-topology.h"
#include "ns3/model-catalog.h"

#include <gtest/gtest.h>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::RuntimeErrorOf;

namespace
{

/// Leaf-spine fabric: \p leaves racks of \p hostsPerLeaf hosts.
FabricTopology
Fabric(uint32_t leaves, uint32_t hostsPerLeaf)
{
    LeafSpineParams p;
    p.leaves = leaves;
    p.spines = 2;
    p.hostsPerLeaf = hostsPerLeaf;
    return MakeLeafSpine(p);
}

JobSpec
Job(uint32_t id, uint32_t workers, uint32_t gpusPerHost, const std::string& placement)
{
    JobSpec s;
    s.id = id;
    s.workers = workers;
    s.gpusPerHost = gpusPerHost;
    s.placement = placement;
    return s;
}

std::vector<uint32_t>
FreeVector(const ClusterSlots& slots)
{
    std::vector<uint32_t> out;
    for (uint32_t h = 0; h < slots.GetNHosts(); ++h)
    {
        out.push_back(slots.GetFree(h));
    }
    return out;
}

std::map<uint32_t, uint32_t>
WorkersPerHost(const Placement& p)
{
    std::map<uint32_t, uint32_t> out;
    for (uint32_t h : p.workerHost)
    {
        ++out[h];
    }
    return out;
}

/**
 * Ring order property: ranks of one host are consecutive and ranks of one
 * rack are consecutive (as runs in rank order, not wrapping around).
 */
void
ExpectGroupedRing(const Placement& p, const ClusterSlots& slots)
{
    std::set<uint32_t> hostsClosed;
    std::set<uint32_t> racksClosed;
    for (std::size_t i = 1; i < p.workerHost.size(); ++i)
    {
        uint32_t prev = p.workerHost[i - 1];
        uint32_t cur = p.workerHost[i];
        if (cur != prev)
        {
            hostsClosed.insert(prev);
            EXPECT_EQ(hostsClosed.count(cur), 0u) << "host " << cur << " reappears at rank " << i;
        }
        if (slots.RackOf(cur) != slots.RackOf(prev))
        {
            racksClosed.insert(slots.RackOf(prev));
            EXPECT_EQ(racksClosed.count(slots.RackOf(cur)), 0u)
                << "rack " << slots.RackOf(cur) << " reappears at rank " << i;
        }
    }
}

} // namespace

TEST(ClusterSlots, RacksFromTopology)
{
    ClusterSlots slots(Fabric(3, 4), 8);
    EXPECT_EQ(slots.GetNHosts(), 12u);
    EXPECT_EQ(slots.GetNRacks(), 3u);
    EXPECT_EQ(slots.GetTotalSlots(), 96u);
    EXPECT_EQ(slots.GetTotalFree(), 96u);
    for (uint32_t h = 0; h < 12; ++h)
    {
        EXPECT_EQ(slots.RackOf(h), h / 4);
        EXPECT_EQ(slots.GetFree(h), 8u);
    }
    EXPECT_EQ(slots.GetRacks()[1], (std::vector<uint32_t>{4, 5, 6, 7}));

    // k = 4 fat-tree: 8 edge switches with 2 hosts each.
    FatTreeParams ft;
    ft.k = 4;
    ClusterSlots fat(MakeFatTree(ft), 1);
    EXPECT_EQ(fat.GetNHosts(), 16u);
    EXPECT_EQ(fat.GetNRacks(), 8u);
    for (const auto& rack : fat.GetRacks())
    {
        EXPECT_EQ(rack.size(), 2u);
    }
}

TEST(ClusterSlots, RejectsBadRackLists)
{
    EXPECT_THROW(ClusterSlots({{0, 1}, {1, 2}}, 4), std::invalid_argument); // 1 twice
    EXPECT_THROW(ClusterSlots({{0, 1}, {3}}, 4), std::invalid_argument);    // 2 missing
    EXPECT_THROW(ClusterSlots({{0}, {}}, 4), std::invalid_argument);        // empty rack
    EXPECT_THROW(ClusterSlots({{0}}, 0), std::invalid_argument);

    FabricTopology topo;
    uint32_t sw = topo.AddSwitch("tor", 1, -1, 0);
    topo.AddLink(topo.AddHost("h0", -1, 0), sw, 100000000000ULL, 1000);
    topo.AddLink(topo.AddHost("loose", -1, -1), sw, 100000000000ULL, 1000);
    EXPECT_THROW(ClusterSlots(topo, 1), std::invalid_argument);
}

TEST(ClusterSlots, TakeAndGiveAreChecked)
{
    ClusterSlots slots({{0, 1}}, 4);
    slots.Take(0, 3);
    EXPECT_EQ(slots.GetFree(0), 1u);
    EXPECT_EQ(slots.GetTotalFree(), 5u);
    EXPECT_THROW(slots.Take(0, 2), std::runtime_error);
    EXPECT_THROW(slots.Give(1, 1), std::runtime_error);
    EXPECT_THROW(slots.Take(2, 1), std::out_of_range);
    EXPECT_EQ(slots.GetFree(0), 1u);
    EXPECT_EQ(slots.GetTotalFree(), 5u);
    slots.Give(0, 3);
    EXPECT_EQ(slots.GetTotalFree(), 8u);
}

TEST(JobPlacement, PackedFillsHostsOfTheFirstRack)
{
    ClusterSlots slots(Fabric(4, 4), 8);
    Placement p = Place(Job(1, 8, 4, "packed"), slots);
    EXPECT_EQ(p.jobId, 1u);
    EXPECT_EQ(p.workerHost, (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
    EXPECT_EQ(slots.GetFree(0), 4u);
    EXPECT_EQ(slots.GetFree(1), 4u);
    EXPECT_EQ(slots.GetTotalFree(), 128u - 8u);

    // The next packed job takes the rest of hosts 0 and 1 first.
    Placement q = Place(Job(2, 6, 8, "packed"), slots);
    EXPECT_EQ(q.workerHost, (std::vector<uint32_t>{0, 0, 0, 0, 1, 1}));
}

TEST(JobPlacement, PackedPrefersARackThatHoldsTheWholeJob)
{
    ClusterSlots slots(Fabric(3, 4), 4); // 16 GPUs per rack
    for (uint32_t h = 0; h < 4; ++h)
    {
        slots.Take(h, 3); // rack 0 keeps 4 free GPUs
    }
    Placement p = Place(Job(1, 8, 4, "packed"), slots);
    EXPECT_EQ(p.workerHost, (std::vector<uint32_t>{4, 4, 4, 4, 5, 5, 5, 5}));

    // Racks now have 4, 8 and 16 free: only rack 2 holds a 14-worker job.
    Placement q = Place(Job(2, 14, 4, "packed"), slots);
    for (uint32_t h : q.workerHost)
    {
        EXPECT_EQ(slots.RackOf(h), 2u);
    }

    // Now racks have 4, 8 and 2 free: a 12-worker job spans racks in order.
    Placement r = Place(Job(3, 12, 4, "packed"), slots);
    EXPECT_EQ(r.workerHost, (std::vector<uint32_t>{0, 1, 2, 3, 6, 6, 6, 6, 7, 7, 7, 7}));
}

TEST(JobPlacement, SpreadUsesDistinctRacksThenDistinctHosts)
{
    ClusterSlots slots(Fabric(4, 4), 8);
    Placement p = Place(Job(1, 4, 8, "spread"), slots);
    std::set<uint32_t> racks;
    for (uint32_t h : p.workerHost)
    {
        racks.insert(slots.RackOf(h));
    }
    EXPECT_EQ(racks.size(), 4u);

    Placement q = Place(Job(2, 8, 8, "spread"), slots);
    std::map<uint32_t, uint32_t> perRack;
    for (uint32_t h : q.workerHost)
    {
        ++perRack[slots.RackOf(h)];
    }
    EXPECT_EQ(WorkersPerHost(q).size(), 8u); // eight distinct hosts
    EXPECT_EQ(perRack.size(), 4u);
    for (const auto& [rack, n] : perRack)
    {
        EXPECT_EQ(n, 2u) << "rack " << rack;
    }
    ExpectGroupedRing(q, slots);
    EXPECT_EQ(CountCrossRackHops(q, [&slots](uint32_t h) { return slots.RackOf(h); }), 4u);
}

TEST(JobPlacement, SpreadRevisitsHostsUpToTheLimit)
{
    ClusterSlots slots(Fabric(2, 2), 8); // 4 hosts
    Placement p = Place(Job(1, 8, 2, "spread"), slots);
    for (const auto& [h, n] : WorkersPerHost(p))
    {
        EXPECT_EQ(n, 2u) << "host " << h;
    }
    EXPECT_EQ(WorkersPerHost(p).size(), 4u);
}

TEST(JobPlacement, RandomIsDeterministicPerSeedAndDiffersAcrossSeeds)
{
    FabricTopology topo = Fabric(8, 8);
    auto placeWith = [&topo](uint64_t seed, uint32_t jobId) {
        ClusterSlots slots(topo, 4);
        return Place(Job(jobId, 12, 2, "random"), slots, seed).workerHost;
    };
    std::vector<uint32_t> a = placeWith(42, 1);
    EXPECT_EQ(a, placeWith(42, 1));
    bool seedMatters = false;
    bool jobMatters = false;
    for (uint64_t seed = 1; seed <= 5; ++seed)
    {
        seedMatters = seedMatters || placeWith(seed, 1) != a;
    }
    for (uint32_t job = 2; job <= 6; ++job)
    {
        jobMatters = jobMatters || placeWith(42, job) != a;
    }
    EXPECT_TRUE(seedMatters);
    EXPECT_TRUE(jobMatters);

    // Whole hosts: 12 workers, 2 per host, on 6 distinct hosts.
    std::map<uint32_t, uint32_t> perHost;
    for (uint32_t h : a)
    {
        ++perHost[h];
    }
    EXPECT_EQ(perHost.size(), 6u);
    for (const auto& [h, n] : perHost)
    {
        EXPECT_EQ(n, 2u) << "host " << h;
    }
}

TEST(JobPlacement, RandomUsesOnlyHostsWithFreeGpus)
{
    ClusterSlots slots(Fabric(2, 4), 2);
    for (uint32_t h : {0u, 2u, 3u, 5u, 6u})
    {
        slots.Take(h, 2);
    }
    // Hosts 1, 4, 7 are free: 6 GPUs, a 6-worker job must take all of them.
    Placement p = Place(Job(1, 6, 2, "random"), slots, 99);
    EXPECT_EQ(p.workerHost, (std::vector<uint32_t>{1, 1, 4, 4, 7, 7}));
    EXPECT_EQ(slots.GetTotalFree(), 0u);
}

TEST(JobPlacement, ExplicitIsHonoured)
{
    ClusterSlots slots(Fabric(4, 4), 2);
    JobSpec s = Job(7, 4, 2, "explicit");
    s.hosts = {9, 2, 2, 13};
    Placement p = Place(s, slots);
    EXPECT_EQ(p.workerHost, s.hosts); // rank i on hosts[i], order kept
    EXPECT_EQ(slots.GetFree(2), 0u);
    EXPECT_EQ(slots.GetFree(9), 1u);
    EXPECT_EQ(slots.GetFree(13), 1u);
    EXPECT_EQ(slots.GetTotalFree(), 32u - 4u);
}

TEST(JobPlacement, FailureLeavesSlotsUnchanged)
{
    ClusterSlots slots(Fabric(2, 4), 4); // 32 GPUs
    Place(Job(1, 20, 4, "packed"), slots);
    const std::vector<uint32_t> before = FreeVector(slots);

    for (const char* policy : {"packed", "spread", "random"})
    {
        std::string msg = RuntimeErrorOf([&] { Place(Job(2, 13, 4, policy), slots, 3); });
        EXPECT_NE(msg.find("not enough free GPUs for job 2: needs 13, 12 free"), std::string::npos)
            << msg;
        EXPECT_EQ(FreeVector(slots), before) << policy;
    }
    // 12 GPUs are free, but only on 3 hosts: at most 2 per host gives 6.
    std::string msg = RuntimeErrorOf([&] { Place(Job(3, 8, 2, "spread"), slots); });
    EXPECT_NE(msg.find("needs 8, 6 free"), std::string::npos) << msg;
    EXPECT_EQ(FreeVector(slots), before);

    JobSpec s = Job(4, 2, 4, "explicit");
    s.hosts = {6, 0}; // host 0 is full
    msg = RuntimeErrorOf([&] { Place(s, slots); });
    EXPECT_NE(msg.find("host 0"), std::string::npos) << msg;
    EXPECT_EQ(FreeVector(slots), before);
    s.hosts = {6, 42}; // no such host: an input error, not a wait
    try
    {
        Place(s, slots);
        ADD_FAILURE() << "expected std::invalid_argument";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("host 42"), std::string::npos) << e.what();
    }
    EXPECT_EQ(FreeVector(slots), before);

    EXPECT_THROW(Place(Job(5, 0, 4, "packed"), slots), std::invalid_argument);
    EXPECT_EQ(FreeVector(slots), before);

    // Never fits, even in the empty cluster: 8 hosts x min(8, 4) GPUs = 32.
    EXPECT_THROW(Place(Job(6, 33, 8, "spread"), slots), std::invalid_argument);
    s.hosts = {6, 6};
    s.gpusPerHost = 8; // the job allows it, the 4-GPU host cannot
    s.workers = 2;
    EXPECT_NO_THROW(ModelCatalog::Validate(s));
    s.hosts = {7, 7, 7, 7, 7};
    s.workers = 5;
    EXPECT_THROW(Place(s, slots), std::invalid_argument);
    EXPECT_EQ(FreeVector(slots), before);
}

TEST(JobPlacement, SlotsAreConserved)
{
    ClusterSlots slots(Fabric(4, 4), 8); // 128 GPUs
    const std::vector<std::string> policies{"packed", "spread", "random"};
    std::vector<Placement> placed;
    for (uint32_t id = 0; id < 12; ++id)
    {
        JobSpec s = Job(id, 1 + (id * 5) % 11, 1 + id % 8, policies[id % 3]);
        placed.push_back(Place(s, slots, 1000 + id));
        ASSERT_EQ(placed.back().workerHost.size(), s.workers);
        for (const auto& [h, n] : WorkersPerHost(placed.back()))
        {
            EXPECT_LE(n, s.gpusPerHost) << "job " << id << " host " << h;
        }
    }
    // Used GPUs per host, counted from the placements, match the ledger.
    std::vector<uint32_t> used(slots.GetNHosts(), 0);
    uint32_t total = 0;
    for (const auto& p : placed)
    {
        for (uint32_t h : p.workerHost)
        {
            ++used[h];
            ++total;
        }
    }
    for (uint32_t h = 0; h < slots.GetNHosts(); ++h)
    {
        EXPECT_EQ(slots.GetFree(h) + used[h], 8u) << "host " << h;
    }
    EXPECT_EQ(slots.GetTotalFree(), 128u - total);

    // Release in an order unrelated to placement; all free again.
    for (std::size_t i = 0; i < placed.size(); ++i)
    {
        Release(placed[(i * 7) % placed.size()], slots);
    }
    EXPECT_EQ(slots.GetTotalFree(), 128u);
    EXPECT_EQ(FreeVector(slots), std::vector<uint32_t>(16, 8u));

    // A second release of the same placement is an error and changes nothing.
    EXPECT_THROW(Release(placed[0], slots), std::runtime_error);
    EXPECT_EQ(slots.GetTotalFree(), 128u);
}

TEST(JobPlacement, RingKeepsHostsAndRacksTogether)
{
    FabricTopology topo = Fabric(6, 4);
    for (uint64_t seed = 1; seed <= 20; ++seed)
    {
        ClusterSlots slots(topo, 4);
        Placement p = Place(Job(1, 24, 2, "random"), slots, seed);
        ExpectGroupedRing(p, slots);
        std::set<uint32_t> racks;
        for (uint32_t h : p.workerHost)
        {
            racks.insert(slots.RackOf(h));
        }
        // A ring through R racks, each a contiguous run, crosses R rack
        // boundaries (none if R == 1).
        uint32_t expected = racks.size() > 1 ? racks.size() : 0;
        EXPECT_EQ(CountCrossRackHops(p, [&slots](uint32_t h) { return slots.RackOf(h); }), expected)
            << "seed " << seed;
    }
}

TEST(JobPlacement, CountCrossRackHopsByHand)
{
    auto rackOf = [](uint32_t h) { return h / 4; };
    EXPECT_EQ(CountCrossRackHops(Placement{0, {0, 4, 1, 5}}, rackOf), 4u);
    EXPECT_EQ(CountCrossRackHops(Placement{0, {0, 1, 4, 5}}, rackOf), 2u);
    EXPECT_EQ(CountCrossRackHops(Placement{0, {0, 1, 2, 3}}, rackOf), 0u);
    EXPECT_EQ(CountCrossRackHops(Placement{0, {0, 8}}, rackOf), 2u);
    EXPECT_EQ(CountCrossRackHops(Placement{0, {3}}, rackOf), 0u);
    EXPECT_EQ(CountCrossRackHops(Placement{0, {}}, rackOf), 0u);
}

TEST(JobPlacement, CandidatesArePackedSpreadAndRandomWithoutDuplicates)
{
    ClusterSlots slots(Fabric(4, 4), 2);
    slots.Take(0, 1);
    const std::vector<uint32_t> before = FreeVector(slots);
    const JobSpec spec = Job(1, 4, 2, "scheduler");
    const std::vector<Placement> c = CandidatePlacements(spec, slots, 7, 4);
    EXPECT_EQ(FreeVector(slots), before); // nothing allocated
    ASSERT_GE(c.size(), 2u);
    ASSERT_LE(c.size(), 6u);
    // Each candidate is what Place makes of the spec under that policy, in order.
    auto placed = [&](const std::string& policy, uint64_t seed) {
        ClusterSlots scratch = slots;
        JobSpec s = spec;
        s.placement = policy;
        return Place(s, scratch, seed).workerHost;
    };
    EXPECT_EQ(c[0].workerHost, placed("packed", 7));
    EXPECT_EQ(c[1].workerHost, placed("spread", 7));
    std::set<std::vector<uint32_t>> expected{placed("packed", 7), placed("spread", 7)};
    for (uint64_t seed = 7; seed < 11; ++seed)
    {
        expected.insert(placed("random", seed));
    }
    std::set<std::vector<uint32_t>> got;
    for (const Placement& p : c)
    {
        EXPECT_EQ(p.jobId, 1u);
        got.insert(p.workerHost);
    }
    EXPECT_EQ(got.size(), c.size()); // no duplicates
    EXPECT_EQ(got, expected);
    // Without a scheduler to choose, "scheduler" places as packed.
    ClusterSlots scratch = slots;
    EXPECT_EQ(Place(spec, scratch, 7).workerHost, c[0].workerHost);
    // A job that does not fit now (31 GPUs free) throws as Place does.
    EXPECT_THROW(CandidatePlacements(Job(2, 32, 2, "scheduler"), slots), std::runtime_error);
}
