/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/crux-priorities.h"
#include "ns3/crux-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

using namespace ns3;

namespace
{

constexpr uint64_t kRateBps = 100'000'000'000;

/**
 * Records the scheduler's actions and scripts the fabric: hosts 0 -> 1 have
 * two paths, {10} for even ports and {11} for odd ones; every other host
 * pair has one path, {100 + src, 200 + dst}.
 */
class FakeControl : public SchedulerControl
{
  public:
    struct ClassCall
    {
        Time when;
        uint32_t job;
        int16_t cls;
    };

    struct PortCall
    {
        Time when;
        uint32_t job;
        uint32_t src;
        uint32_t dst;
        uint16_t port;
    };

    void SetGate(uint32_t job, bool /* open */) override
    {
        gateJobs.push_back(job);
    }

    void SetPriorityClass(uint32_t job, int16_t cls) override
    {
        classCalls.push_back({Simulator::Now(), job, cls});
    }

    void SetRateWeight(uint32_t job, double /* weight */) override
    {
        weightJobs.push_back(job);
    }

    void SetSourcePort(uint32_t job, uint32_t src, uint32_t dst, uint16_t port) override
    {
        portCalls.push_back({Simulator::Now(), job, src, dst, port});
    }

    std::vector<uint32_t> GetDirectedPath(uint32_t src, uint32_t dst, uint16_t port) const override
    {
        if (src == 0 && dst == 1)
        {
            return {port % 2 == 0 ? 10u : 11u};
        }
        return {100 + src, 200 + dst};
    }

    uint64_t GetLinkRateBps(uint32_t /* link */) const override
    {
        return kRateBps;
    }

    /// The class the job's NICs hold now, -1 if never set.
    int16_t ClassOf(uint32_t job) const
    {
        int16_t cls = -1;
        for (const auto& c : classCalls)
        {
            cls = c.job == job ? c.cls : cls;
        }
        return cls;
    }

    /// The port the job's NICs use from src to dst now: the last one set, else \p own.
    uint16_t PortOf(uint32_t job, uint32_t src, uint32_t dst, uint16_t own) const
    {
        uint16_t port = own;
        for (const auto& p : portCalls)
        {
            port = (p.job == job && p.src == src && p.dst == dst) ? p.port : port;
        }
        return port;
    }

    std::vector<ClassCall> classCalls;
    std::vector<PortCall> portCalls;
    std::vector<uint32_t> gateJobs;
    std::vector<uint32_t> weightJobs;
};

SchedulerFlow
Flow(uint32_t src, uint32_t dst, uint64_t bytes, uint16_t port)
{
    SchedulerFlow f;
    f.srcHost = src;
    f.dstHost = dst;
    f.bytes = bytes;
    f.srcPort = port;
    return f;
}

/// A job with intensity computeSeconds * workers / commSeconds.
SchedulerJob
Job(uint32_t id,
    double computeSeconds,
    uint32_t workers,
    double commSeconds,
    std::vector<SchedulerFlow> flows)
{
    SchedulerJob j;
    j.id = id;
    j.spec.id = id;
    j.spec.workers = workers;
    j.computeTime = Seconds(computeSeconds);
    j.commTime = Seconds(commSeconds);
    j.flows = std::move(flows);
    return j;
}

/// Crux's view of a job on the given links, built from the test's own numbers.
CruxJob
Expected(const SchedulerJob& j, std::vector<uint32_t> links)
{
    return CruxJob{j.id,
                   j.computeTime.GetSeconds() * j.spec.workers,
                   j.commTime.GetSeconds(),
                   1.0,
                   std::move(links)};
}

class CruxSchedulerTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        scheduler = CreateObject<CruxScheduler>();
        scheduler->SetControl(&control);
        delay = scheduler->GetControlDelay();
    }

    void TearDown() override
    {
        scheduler->Dispose();
        scheduler = nullptr;
        Simulator::Destroy();
    }

    void ArriveAt(Time at, const SchedulerJob& job)
    {
        Simulator::Schedule(at, [this, job]() { scheduler->NotifyJobArrived(job); });
    }

    void DoneAt(Time at, uint32_t job)
    {
        Simulator::Schedule(at, [this, job]() { scheduler->NotifyJobDone(job); });
    }

    /// The notes of every decision of kind \p kind.
    std::vector<nlohmann::json> Decisions(const std::string& kind) const
    {
        std::vector<nlohmann::json> out;
        for (const auto& d : scheduler->GetDecisions())
        {
            if (d.kind == kind)
            {
                out.push_back(nlohmann::json::parse(d.detailJson));
            }
        }
        return out;
    }

    FakeControl control;
    Ptr<CruxScheduler> scheduler;
    Time delay;
};

TEST(CruxSchedulerType, NameAndProbePorts)
{
    Ptr<CruxScheduler> s = CreateObject<CruxScheduler>();
    EXPECT_EQ(s->GetName(), "crux");
    EXPECT_FALSE(s->StartsJobsGated());
    UintegerValue k;
    s->GetAttribute("Classes", k);
    EXPECT_EQ(k.Get(), 8u);
    s->GetAttribute("PathCandidates", k);
    EXPECT_EQ(k.Get(), 64u);
    // Probe ports are in the dynamic range and distinct over the whole range.
    std::set<uint16_t> ports;
    for (uint32_t i = 0; i < 0x4000; ++i)
    {
        const uint16_t p = EcmpPathProbe::ProbePort(i);
        EXPECT_GE(p, 0xC000);
        ports.insert(p);
    }
    EXPECT_EQ(ports.size(), 0x4000u);
    EXPECT_EQ(EcmpPathProbe::ProbePort(1), 0xC000 + (40503 % 0x4000));
    s->Dispose();
}

// (a) Two jobs between the same hosts, both created on the even path, end up on different paths.
TEST_F(CruxSchedulerTest, JobsBetweenTheSameHostsGetDifferentPaths)
{
    const SchedulerJob a = Job(1, 0.1, 4, 0.05, {Flow(0, 1, 1'000'000'000, 0xC000)});
    const SchedulerJob b = Job(2, 0.1, 2, 0.05, {Flow(0, 1, 1'000'000'000, 0xC002)});
    ArriveAt(MilliSeconds(1), a);
    ArriveAt(MilliSeconds(2), b);
    Simulator::Run();

    const uint16_t pa = control.PortOf(1, 0, 1, 0xC000);
    const uint16_t pb = control.PortOf(2, 0, 1, 0xC002);
    EXPECT_NE(control.GetDirectedPath(0, 1, pa), control.GetDirectedPath(0, 1, pb));
    // Only one of them had to move, once, and the move reached the NIC two delays after
    // the arrival that caused it (one to the scheduler, one back).
    ASSERT_EQ(control.portCalls.size(), 1u);
    EXPECT_EQ(control.portCalls[0].when, MilliSeconds(2) + delay + delay);
    EXPECT_TRUE(control.gateJobs.empty());
    EXPECT_TRUE(control.weightJobs.empty());
}

// Paths are chosen most intensive job first: a newcomer of higher intensity keeps its path and
// the job already there moves, whatever their ids and arrival order.
TEST_F(CruxSchedulerTest, MoreIntensiveJobChoosesFirst)
{
    const SchedulerJob low = Job(1, 0.1, 1, 0.05, {Flow(0, 1, 1'000'000'000, 0xC000)});
    const SchedulerJob high = Job(2, 0.1, 8, 0.05, {Flow(0, 1, 1'000'000'000, 0xC002)});
    ArriveAt(MilliSeconds(1), low);
    ArriveAt(MilliSeconds(2), high);
    Simulator::Run();

    ASSERT_EQ(control.portCalls.size(), 1u);
    EXPECT_EQ(control.portCalls[0].job, 1u);
    EXPECT_EQ(control.GetDirectedPath(0, 1, control.portCalls[0].port), std::vector<uint32_t>{11});
}

// Connections of one job between one host pair share the NIC's port: one choice per pair.
TEST_F(CruxSchedulerTest, ConnectionsOfOneHostPairShareOnePort)
{
    const SchedulerJob a = Job(1,
                               0.1,
                               4,
                               0.05,
                               {Flow(0, 1, 500'000'000, 0xC000),
                                Flow(0, 1, 500'000'000, 0xC001),
                                Flow(2, 3, 500'000'000, 0xC005)});
    ArriveAt(MilliSeconds(1), a);
    Simulator::Run();

    // The (0, 1) pair used two ports, so it needs one; (2, 3) used one and has one path.
    ASSERT_EQ(control.portCalls.size(), 1u);
    EXPECT_EQ(control.portCalls[0].job, 1u);
    EXPECT_EQ(control.portCalls[0].src, 0u);
    EXPECT_EQ(control.portCalls[0].dst, 1u);
}

// (b) Three jobs on one link: strictly higher W / t gets a strictly higher class, as Crux says.
TEST_F(CruxSchedulerTest, ClassesFollowIntensity)
{
    // Ids in reverse order of intensity: 1 -> 1, 2 -> 4, 3 -> 8 GPU-seconds per second.
    const SchedulerJob j1 = Job(1, 0.1, 1, 0.1, {Flow(2, 3, 1'000'000, 0xC000)});
    const SchedulerJob j2 = Job(2, 0.1, 2, 0.05, {Flow(2, 3, 1'000'000, 0xC000)});
    const SchedulerJob j3 = Job(3, 0.1, 4, 0.05, {Flow(2, 3, 1'000'000, 0xC000)});
    ArriveAt(MilliSeconds(1), j1);
    ArriveAt(MilliSeconds(2), j2);
    ArriveAt(MilliSeconds(3), j3);
    Simulator::Run();

    const int16_t c1 = control.ClassOf(1);
    const int16_t c2 = control.ClassOf(2);
    const int16_t c3 = control.ClassOf(3);
    EXPECT_GT(c3, c2);
    EXPECT_GT(c2, c1);
    EXPECT_GE(c1, 0);
    const auto expected =
        CruxClasses({Expected(j1, {102, 203}), Expected(j2, {102, 203}), Expected(j3, {102, 203})},
                    7);
    EXPECT_EQ(c1, static_cast<int16_t>(expected.at(1)));
    EXPECT_EQ(c2, static_cast<int16_t>(expected.at(2)));
    EXPECT_EQ(c3, static_cast<int16_t>(expected.at(3)));
    // A class is sent only when it changes.
    for (uint32_t job : {1u, 2u, 3u})
    {
        int16_t last = -2;
        for (const auto& c : control.classCalls)
        {
            if (c.job == job)
            {
                EXPECT_NE(c.cls, last) << "job " << job;
                last = c.cls;
            }
        }
    }
    // The last decision explains itself.
    const auto notes = Decisions("job-arrived").back();
    EXPECT_DOUBLE_EQ(notes["intensity"]["3"].get<double>(), 8.0);
    EXPECT_DOUBLE_EQ(notes["intensity"]["1"].get<double>(), 1.0);
    EXPECT_EQ(notes["classes"]["3"].get<int>(), c3);
    EXPECT_EQ(notes["paths"].size(), 3u);
}

// (c) When a job leaves, the others are re-planned and the departed job is left alone.
TEST_F(CruxSchedulerTest, JobDoneReplansTheOthers)
{
    // All on hosts 0 -> 1 (two paths), intensities 8 > 4 > 2.
    const SchedulerJob a = Job(1, 0.1, 4, 0.05, {Flow(0, 1, 1'000'000'000, 0xC000)});
    const SchedulerJob b = Job(2, 0.1, 2, 0.05, {Flow(0, 1, 1'000'000'000, 0xC000)});
    const SchedulerJob c = Job(3, 0.1, 1, 0.05, {Flow(0, 1, 1'000'000'000, 0xC000)});
    ArriveAt(MilliSeconds(1), a);
    ArriveAt(MilliSeconds(2), b);
    ArriveAt(MilliSeconds(3), c);
    const Time done = MilliSeconds(10);
    DoneAt(done, 1);
    Simulator::Run();

    // Nothing reaches the departed job after it left.
    for (const auto& call : control.classCalls)
    {
        EXPECT_FALSE(call.job == 1 && call.when > done) << call.when;
    }
    for (const auto& call : control.portCalls)
    {
        EXPECT_FALSE(call.job == 1 && call.when > done) << call.when;
    }

    // The job-done decision planned exactly the remaining jobs.
    const auto notes = Decisions("job-done");
    ASSERT_EQ(notes.size(), 1u);
    std::set<std::string> planned;
    for (const auto& [id, cls] : notes[0]["classes"].items())
    {
        planned.insert(id);
    }
    EXPECT_EQ(planned, (std::set<std::string>{"2", "3"}));
    for (const auto& p : notes[0]["paths"])
    {
        EXPECT_NE(p["job"].get<uint32_t>(), 1u);
    }

    // They were on different paths already, and equal loads are no reason to move.
    for (const auto& call : control.portCalls)
    {
        EXPECT_LT(call.when, done) << "job " << call.job << " moved";
    }

    // Two jobs, two paths: they do not share one, and their classes are Crux's for that.
    const uint16_t pb = control.PortOf(2, 0, 1, 0xC000);
    const uint16_t pc = control.PortOf(3, 0, 1, 0xC000);
    const auto lb = control.GetDirectedPath(0, 1, pb);
    const auto lc = control.GetDirectedPath(0, 1, pc);
    EXPECT_NE(lb, lc);
    const auto expected = CruxClasses({Expected(b, lb), Expected(c, lc)}, 7);
    EXPECT_EQ(control.ClassOf(2), static_cast<int16_t>(expected.at(2)));
    EXPECT_EQ(control.ClassOf(3), static_cast<int16_t>(expected.at(3)));
}

// (d) The default K = 8 is cut to the 7 data classes, and says so.
TEST_F(CruxSchedulerTest, DefaultClassesFitTheDataClasses)
{
    // Eight jobs on one link, all intensities distinct: 7 classes are all worth using.
    std::vector<CruxJob> expectedJobs;
    for (uint32_t id = 1; id <= 8; ++id)
    {
        const SchedulerJob j = Job(id, 0.01 * id, 1, 0.05, {Flow(2, 3, 1'000'000, 0xC000)});
        ArriveAt(MilliSeconds(id), j);
        expectedJobs.push_back(Expected(j, {102, 203}));
    }
    Simulator::Run();

    const auto expected = CruxClasses(expectedJobs, 7);
    std::set<int16_t> used;
    for (uint32_t id = 1; id <= 8; ++id)
    {
        const int16_t cls = control.ClassOf(id);
        EXPECT_GE(cls, 0);
        EXPECT_LE(cls, 6);
        EXPECT_EQ(cls, static_cast<int16_t>(expected.at(id)));
        if (id > 1)
        {
            EXPECT_GE(cls, control.ClassOf(id - 1)); // more intensive, not lower
        }
        used.insert(cls);
    }
    EXPECT_EQ(used.size(), 7u);
    for (const auto& notes : Decisions("job-arrived"))
    {
        ASSERT_TRUE(notes.contains("effective_classes"));
        EXPECT_EQ(notes["effective_classes"]["configured"].get<int>(), 8);
        EXPECT_EQ(notes["effective_classes"]["effective"].get<int>(), 7);
    }
}

// A K within the data classes is used as given, without a note.
TEST_F(CruxSchedulerTest, SmallKIsKept)
{
    scheduler->SetAttribute("Classes", UintegerValue(3));
    for (uint32_t id = 1; id <= 5; ++id)
    {
        ArriveAt(MilliSeconds(id), Job(id, 0.01 * id, 1, 0.05, {Flow(2, 3, 1'000'000, 0xC000)}));
    }
    Simulator::Run();

    std::set<int16_t> used;
    for (uint32_t id = 1; id <= 5; ++id)
    {
        used.insert(control.ClassOf(id));
    }
    EXPECT_EQ(used, (std::set<int16_t>{0, 1, 2}));
    for (const auto& notes : Decisions("job-arrived"))
    {
        EXPECT_FALSE(notes.contains("effective_classes"));
    }
}

} // namespace
