/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The repository's scenario files: each parses and places its jobs as its
// description says.

#include "ns3/scenario-reader.h"
#include "ns3/synthetic-job-generator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

TEST(ExampleScenarios, LingjunScenariosPlaceTheirJobsAsTheySay)
{
    // The packed cluster keeps every job in its rack or pod; the mixed one
    // places about seven jobs in sixteen at random (a binomial draw of 200
    // with p = 7/16: mean 87.5, standard deviation 7), so that jobs contend
    // as on the production cluster (placement-contention-test).
    const std::string dir = std::string(CS_SOURCE_DIR) + "/examples/scenarios/";
    for (const char* name : {"lingjun-200-jobs", "lingjun-200-jobs-mixed"})
    {
        const ScenarioSpec s = ReadScenarioFile(dir + name + ".json");
        const std::vector<JobSpec> jobs = GenerateSyntheticJobs(s.synthetic, s.jobDefaults);
        ASSERT_EQ(jobs.size(), 200u) << name;
        std::map<std::string, uint32_t> count;
        for (const JobSpec& j : jobs)
        {
            ++count[j.placement];
        }
        if (std::string(name) == "lingjun-200-jobs")
        {
            EXPECT_EQ(count["packed"], 200u);
        }
        else
        {
            EXPECT_EQ(count["packed"] + count["random"], 200u);
            EXPECT_GE(count["random"], 59u);
            EXPECT_LE(count["random"], 116u);
        }
    }
}

TEST(ExampleScenarios, ScalingScenariosKeepTheLingjunLoadPerHost)
{
    // Figure 5's scheduling-time curve: one file per cluster size, named
    // scaling-*, each with about one job per 4.2 hosts (200 on Lingjun's 847)
    // of 3 iterations at the flow level, placed as the Lingjun mix.
    const std::string dir = std::string(CS_SOURCE_DIR) + "/examples/scenarios/scaling/";
    const std::map<std::string, uint32_t> hosts = {{"fat-tree-k8", 128},
                                                   {"fat-tree-k12", 432},
                                                   {"fat-tree-k16", 1024},
                                                   {"lingjun", 847}};
    for (const auto& [name, n] : hosts)
    {
        const ScenarioSpec s = ReadScenarioFile(dir + name + ".json");
        EXPECT_EQ(s.name, "scaling-" + name);
        EXPECT_EQ(s.backend, "flow") << name;
        EXPECT_EQ(s.topology.gpusPerHost, 8u) << name;
        if (s.topology.kind == "fat-tree")
        {
            UintegerValue k;
            s.topology.MakeBuilder()->GetKey("k", k);
            EXPECT_EQ(k.Get() * k.Get() * k.Get() / 4, n) << name;
        }
        const std::vector<JobSpec> jobs = GenerateSyntheticJobs(s.synthetic, s.jobDefaults);
        EXPECT_NEAR(static_cast<double>(jobs.size()), n * 200.0 / 847.0, 1.0) << name;
        for (const JobSpec& j : jobs)
        {
            EXPECT_EQ(j.iterations, 3u) << name;
            EXPECT_LE(j.workers, 64u) << name;
        }
        EXPECT_NE(s.description.find(std::to_string(n * 8) + " GPUs"), std::string::npos)
            << name << ": " << s.description;
    }
}

TEST(ExampleScenarios, ExampleScenarioParsesAndItsJobsShareEdgeUplinks)
{
    const std::string path =
        std::string(CS_SOURCE_DIR) + "/examples/scenarios/two-jobs-fat-tree.json";
    const ScenarioSpec s = ReadScenarioFile(path);
    EXPECT_EQ(s.topology.kind, "fat-tree");
    UintegerValue k;
    s.topology.MakeBuilder()->GetKey("k", k);
    EXPECT_EQ(k.Get(), 4u);
    EXPECT_DOUBLE_EQ(s.scale, 0.01);
    ASSERT_EQ(s.jobs.size(), 2u);
    // Fat-tree numbering: host h hangs off edge switch h / (k/2).
    const uint32_t hostsPerEdge = k.Get() / 2;
    std::vector<std::set<uint32_t>> edges;
    for (const JobSpec& job : s.jobs)
    {
        EXPECT_EQ(job.model.rfind("gpt2-", 0), 0u) << job.model;
        EXPECT_EQ(job.workers, 4u);
        EXPECT_EQ(job.hosts.size(), 4u);
        std::set<uint32_t> e;
        for (uint32_t h : job.hosts)
        {
            EXPECT_LT(h, 16u);
            e.insert(h / hostsPerEdge);
        }
        EXPECT_GE(e.size(), 2u); // the ring leaves its edge switch
        edges.push_back(e);
    }
    // Edge switches used by both jobs: their uplinks carry both rings.
    std::vector<uint32_t> shared;
    std::set_intersection(edges[0].begin(),
                          edges[0].end(),
                          edges[1].begin(),
                          edges[1].end(),
                          std::back_inserter(shared));
    EXPECT_GE(shared.size(), 2u);
}

} // namespace
