/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Fabric topology graph, fat-tree and leaf-spine generators, and the Lingjun
// topology reader. Expectations come from closed forms and from an
// independent parse of the input file.

#include "runtime-error-test-util.h"

#include "ns3/fabric-topology.h"
#include "ns3/fat-tree-topology.h"
#include "ns3/leaf-spine-topology.h"
#include "ns3/lingjun-topology-reader.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;
using ns3::test::RuntimeErrorOf;

namespace
{

/// Neighbour node ids of a node, one per port.
std::vector<uint32_t>
Neighbours(const FabricTopology& topo, uint32_t node)
{
    std::vector<uint32_t> out;
    for (uint32_t link : topo.AdjacentLinks(node))
    {
        const FabricLink& l = topo.GetLink(link);
        out.push_back(l.a == node ? l.b : l.a);
    }
    return out;
}

} // namespace

// ------------------------------------------------------------ FabricTopology

TEST(FabricTopology, HostIndicesAreDenseAndSkipSwitches)
{
    FabricTopology topo;
    uint32_t s0 = topo.AddSwitch("s0", 1);
    uint32_t h0 = topo.AddHost("h0", 2, 7);
    uint32_t s1 = topo.AddSwitch("s1", 2, 3);
    uint32_t h1 = topo.AddHost("h1");
    EXPECT_EQ(topo.GetNNodes(), 4u);
    EXPECT_EQ(topo.GetNHosts(), 2u);
    EXPECT_EQ(topo.GetNSwitches(), 2u);
    EXPECT_EQ(topo.GetHosts(), (std::vector<uint32_t>{h0, h1}));
    EXPECT_EQ(topo.GetHostIndex(h0), 0);
    EXPECT_EQ(topo.GetHostIndex(h1), 1);
    EXPECT_EQ(topo.GetHostIndex(s0), -1);
    EXPECT_EQ(topo.GetHostIndex(s1), -1);
    EXPECT_TRUE(topo.IsHost(h1));
    EXPECT_FALSE(topo.IsHost(s1));
    EXPECT_EQ(topo.GetNode(h0).kind, FabricNodeKind::Host);
    EXPECT_EQ(topo.GetNode(h0).tier, 0u);
    EXPECT_EQ(topo.GetNode(h0).pod, 2);
    EXPECT_EQ(topo.GetNode(h0).rack, 7);
    EXPECT_EQ(topo.GetNode(h1).pod, -1);
    EXPECT_EQ(topo.GetNode(s1).kind, FabricNodeKind::Switch);
    EXPECT_EQ(topo.GetNode(s1).tier, 2u);
    EXPECT_EQ(topo.GetNode(s1).pod, 3);
    EXPECT_EQ(topo.GetNode(s1).name, "s1");
    EXPECT_THROW(topo.GetHostIndex(4), std::out_of_range);
    EXPECT_THROW(topo.AddLink(0, 4, 1, 0), std::out_of_range);
}

TEST(FabricTopology, SchedulingRackIsTheRackUnlessSet)
{
    FabricTopology topo;
    const uint32_t s = topo.AddSwitch("s", 1, 0, 7);
    const uint32_t h0 = topo.AddHost("h0", 0, 7);
    const uint32_t h1 = topo.AddHost("h1");
    EXPECT_EQ(topo.GetNode(h0).schedulingRack, -1);
    EXPECT_EQ(topo.GetSchedulingRack(0), 7);
    EXPECT_EQ(topo.GetSchedulingRack(1), -1);
    topo.SetSchedulingRack(h1, 3);
    EXPECT_EQ(topo.GetSchedulingRack(1), 3);
    EXPECT_EQ(topo.GetNode(h1).rack, -1); // placement's rack is left alone
    EXPECT_THROW(topo.SetSchedulingRack(s, 0), std::invalid_argument);
    EXPECT_THROW(topo.SetSchedulingRack(h0, -1), std::invalid_argument);
    EXPECT_THROW(topo.GetSchedulingRack(2), std::out_of_range);
    // The generators of racked fabrics leave it unset: schedulers see the edge switch's rack.
    FatTreeParams ft;
    ft.k = 4;
    LeafSpineParams ls;
    for (const FabricTopology& t : {MakeFatTree(ft), MakeLeafSpine(ls)})
    {
        for (uint32_t h = 0; h < t.GetNHosts(); ++h)
        {
            EXPECT_EQ(t.GetNode(t.GetHosts()[h]).schedulingRack, -1);
            EXPECT_EQ(t.GetSchedulingRack(h), t.GetNode(t.GetHosts()[h]).rack);
        }
    }
}

TEST(FabricTopology, PortsFollowLinkOrderAndParallelLinksStayDistinct)
{
    FabricTopology topo;
    uint32_t h = topo.AddHost("h");
    uint32_t s = topo.AddSwitch("s", 1);
    uint32_t t = topo.AddSwitch("t", 2);
    uint32_t l0 = topo.AddLink(h, s, 10, 1);
    uint32_t l1 = topo.AddLink(s, t, 20, 2);
    uint32_t l2 = topo.AddLink(t, s, 30, 3); // parallel to l1, reversed ends
    EXPECT_EQ(topo.GetNLinks(), 3u);
    EXPECT_NE(l1, l2);
    EXPECT_EQ(topo.AdjacentLinks(s), (std::vector<uint32_t>{l0, l1, l2}));
    EXPECT_EQ(topo.AdjacentLinks(t), (std::vector<uint32_t>{l1, l2}));
    EXPECT_EQ(topo.AdjacentLinks(h), (std::vector<uint32_t>{l0}));
    EXPECT_EQ(topo.PortOf(s, l0), 0u);
    EXPECT_EQ(topo.PortOf(s, l1), 1u);
    EXPECT_EQ(topo.PortOf(s, l2), 2u);
    EXPECT_EQ(topo.PortOf(t, l1), 0u);
    EXPECT_EQ(topo.PortOf(t, l2), 1u);
    EXPECT_EQ(topo.GetPeer(s, l2), t);
    EXPECT_EQ(topo.GetPeer(t, l2), s);
    EXPECT_EQ(topo.GetLink(l2).rateBps, 30u);
    EXPECT_EQ(topo.GetLink(l2).delayNs, 3);
    EXPECT_THROW(topo.PortOf(h, l1), std::out_of_range);
    EXPECT_THROW(topo.GetPeer(h, l2), std::out_of_range);
    EXPECT_NO_THROW(topo.Validate());
}

TEST(FabricTopology, ValidateRejectsBadGraphs)
{
    auto base = [](FabricTopology& topo) {
        topo.AddHost("h0");
        topo.AddHost("h1");
        topo.AddSwitch("s0", 1);
        topo.AddLink(0, 2, 100, 10);
        topo.AddLink(1, 2, 100, 10);
    };
    {
        FabricTopology topo;
        base(topo);
        EXPECT_NO_THROW(topo.Validate());
    }
    {
        FabricTopology topo;
        base(topo);
        topo.AddLink(2, 2, 100, 10);
        EXPECT_NE(RuntimeErrorOf([&] { topo.Validate(); }).find("self-loop"), std::string::npos);
    }
    {
        FabricTopology topo;
        base(topo);
        topo.AddLink(0, 2, 0, 10);
        EXPECT_NE(RuntimeErrorOf([&] { topo.Validate(); }).find("rate"), std::string::npos);
    }
    {
        FabricTopology topo;
        base(topo);
        topo.AddLink(0, 2, 100, -1);
        EXPECT_NE(RuntimeErrorOf([&] { topo.Validate(); }).find("delay"), std::string::npos);
    }
    {
        FabricTopology topo;
        base(topo);
        topo.AddHost("lonely");
        EXPECT_NE(RuntimeErrorOf([&] { topo.Validate(); }).find("lonely"), std::string::npos);
    }
    {
        FabricTopology topo;
        base(topo);
        uint32_t h = topo.AddHost("h2");
        uint32_t s = topo.AddSwitch("island", 1);
        topo.AddLink(h, s, 100, 10);
        EXPECT_NE(RuntimeErrorOf([&] { topo.Validate(); }).find("disconnected"), std::string::npos);
    }
    {
        FabricTopology topo;
        base(topo);
        uint32_t s = topo.AddSwitch("tierless", 0);
        topo.AddLink(2, s, 100, 10);
        EXPECT_NE(RuntimeErrorOf([&] { topo.Validate(); }).find("tierless"), std::string::npos);
    }
    {
        FabricTopology topo; // no hosts at all
        topo.AddSwitch("s", 1);
        EXPECT_THROW(topo.Validate(), std::runtime_error);
    }
    {
        // A multi-homed host is fine.
        FabricTopology topo;
        base(topo);
        uint32_t s1 = topo.AddSwitch("s1", 1);
        topo.AddLink(0, s1, 100, 10);
        EXPECT_NO_THROW(topo.Validate());
    }
}

// ------------------------------------------------------------ fat-tree

class FatTreeCounts : public ::testing::TestWithParam<uint32_t>
{
};

TEST_P(FatTreeCounts, MatchClosedForms)
{
    const uint32_t k = GetParam();
    FatTreeParams params;
    params.k = k;
    FabricTopology topo = MakeFatTree(params);
    EXPECT_EQ(topo.GetNHosts(), k * k * k / 4);
    EXPECT_EQ(topo.GetNSwitches(), 5 * k * k / 4);
    EXPECT_EQ(topo.GetNLinks(), 3 * k * k * k / 4);
    EXPECT_EQ(topo.GetNNodes(), k * k * k / 4 + 5 * k * k / 4);

    std::map<uint32_t, uint32_t> perTier;
    for (const FabricNode& node : topo.GetNodes())
    {
        ++perTier[node.tier];
    }
    EXPECT_EQ(perTier[0], k * k * k / 4);
    EXPECT_EQ(perTier[1], k * k / 2);
    EXPECT_EQ(perTier[2], k * k / 2);
    EXPECT_EQ(perTier[3], k * k / 4);

    // Every switch uses all k ports; every host has one.
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        size_t expected = topo.IsHost(node) ? 1 : k;
        EXPECT_EQ(topo.AdjacentLinks(node).size(), expected) << topo.GetNode(node).name;
    }
    EXPECT_NO_THROW(topo.Validate());
}

INSTANTIATE_TEST_SUITE_P(K, FatTreeCounts, ::testing::Values(2u, 4u, 8u));

TEST(FatTree, OversubscribedCountsAndRatesPerTier)
{
    FatTreeParams params;
    params.k = 4;
    params.hostsPerEdge = 5;
    params.hostRateBps = 25;
    params.edgeAggRateBps = 40;
    params.aggCoreRateBps = 100;
    params.hostDelayNs = 1;
    params.edgeAggDelayNs = 2;
    params.aggCoreDelayNs = 3;
    FabricTopology topo = MakeFatTree(params);
    const uint32_t k = 4;
    const uint32_t edges = k * k / 2;
    EXPECT_EQ(topo.GetNHosts(), edges * 5);
    EXPECT_EQ(topo.GetNSwitches(), 5 * k * k / 4);
    EXPECT_EQ(topo.GetNLinks(), edges * 5 + k * k * k / 4 + k * k * k / 4);
    for (const FabricLink& link : topo.GetLinks())
    {
        uint32_t lower = std::min(topo.GetNode(link.a).tier, topo.GetNode(link.b).tier);
        uint32_t upper = std::max(topo.GetNode(link.a).tier, topo.GetNode(link.b).tier);
        ASSERT_EQ(upper, lower + 1);
        const uint64_t rates[] = {25, 40, 100};
        const int64_t delays[] = {1, 2, 3};
        EXPECT_EQ(link.rateBps, rates[lower]);
        EXPECT_EQ(link.delayNs, delays[lower]);
    }
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        if (topo.GetNode(node).tier == 1)
        {
            EXPECT_EQ(topo.AdjacentLinks(node).size(), 5u + k / 2);
        }
    }
}

TEST(FatTree, HostNumberingNamesAndRacks)
{
    FatTreeParams params;
    params.k = 4;
    params.hostsPerEdge = 3;
    FabricTopology topo = MakeFatTree(params);
    const uint32_t half = 2;
    const uint32_t perEdge = 3;
    ASSERT_EQ(topo.GetNHosts(), 4 * half * perEdge);
    for (uint32_t i = 0; i < topo.GetNHosts(); ++i)
    {
        uint32_t node = topo.GetHosts()[i];
        uint32_t pod = i / (half * perEdge);
        uint32_t edge = (i / perEdge) % half;
        uint32_t idx = i % perEdge;
        const FabricNode& host = topo.GetNode(node);
        EXPECT_EQ(host.name,
                  "host-p" + std::to_string(pod) + "-e" + std::to_string(edge) + "-h" +
                      std::to_string(idx));
        EXPECT_EQ(host.pod, static_cast<int32_t>(pod));
        EXPECT_EQ(host.rack, static_cast<int32_t>(pod * half + edge));
        EXPECT_EQ(topo.GetHostIndex(node), static_cast<int32_t>(i));
        std::vector<uint32_t> up = Neighbours(topo, node);
        ASSERT_EQ(up.size(), 1u);
        const FabricNode& tor = topo.GetNode(up[0]);
        EXPECT_EQ(tor.name, "edge-p" + std::to_string(pod) + "-" + std::to_string(edge));
        EXPECT_EQ(tor.tier, 1u);
        EXPECT_EQ(tor.pod, host.pod);
        EXPECT_EQ(tor.rack, host.rack);
    }
}

TEST(FatTree, WiringFollowsThePods)
{
    const uint32_t k = 6;
    FatTreeParams params;
    params.k = k;
    FabricTopology topo = MakeFatTree(params);
    const uint32_t half = k / 2;
    uint32_t cores = 0;
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        const FabricNode& sw = topo.GetNode(node);
        std::vector<uint32_t> nbrs = Neighbours(topo, node);
        if (sw.tier == 1)
        {
            std::set<uint32_t> aggs;
            for (uint32_t n : nbrs)
            {
                if (topo.GetNode(n).tier == 2)
                {
                    EXPECT_EQ(topo.GetNode(n).pod, sw.pod);
                    aggs.insert(n);
                }
            }
            EXPECT_EQ(aggs.size(), half);
        }
        else if (sw.tier == 2)
        {
            uint32_t down = 0;
            uint32_t up = 0;
            for (uint32_t n : nbrs)
            {
                const FabricNode& peer = topo.GetNode(n);
                if (peer.tier == 1)
                {
                    EXPECT_EQ(peer.pod, sw.pod);
                    ++down;
                }
                else
                {
                    EXPECT_EQ(peer.tier, 3u);
                    ++up;
                }
            }
            EXPECT_EQ(down, half);
            EXPECT_EQ(up, half);
        }
        else if (sw.tier == 3)
        {
            // Core c belongs to group c / half and reaches agg (c / half) of each pod.
            ++cores;
            uint32_t c = std::stoul(sw.name.substr(sw.name.find('-') + 1));
            std::set<int32_t> pods;
            for (uint32_t n : nbrs)
            {
                const FabricNode& agg = topo.GetNode(n);
                EXPECT_EQ(agg.tier, 2u);
                pods.insert(agg.pod);
                EXPECT_EQ(agg.name,
                          "agg-p" + std::to_string(agg.pod) + "-" + std::to_string(c / half));
            }
            EXPECT_EQ(pods.size(), k);
            EXPECT_EQ(sw.pod, -1);
        }
    }
    EXPECT_EQ(cores, half * half);
}

TEST(FatTree, RejectsOddOrTooSmallK)
{
    for (uint32_t k : {0u, 1u, 3u, 5u, 7u})
    {
        FatTreeParams params;
        params.k = k;
        EXPECT_THROW(MakeFatTree(params), std::runtime_error) << "k=" << k;
    }
    FatTreeParams zeroRate;
    zeroRate.aggCoreRateBps = 0;
    EXPECT_THROW(MakeFatTree(zeroRate), std::runtime_error);
}

// ------------------------------------------------------------ leaf-spine

TEST(LeafSpine, CountsPortsAndParallelLinks)
{
    LeafSpineParams params;
    params.leaves = 5;
    params.spines = 3;
    params.hostsPerLeaf = 4;
    params.linksPerLeafSpine = 2;
    FabricTopology topo = MakeLeafSpine(params);
    EXPECT_EQ(topo.GetNHosts(), 20u);
    EXPECT_EQ(topo.GetNSwitches(), 8u);
    EXPECT_EQ(topo.GetNLinks(), 20u + 5 * 3 * 2);
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        const FabricNode& n = topo.GetNode(node);
        std::vector<uint32_t> nbrs = Neighbours(topo, node);
        if (n.tier == 1)
        {
            EXPECT_EQ(nbrs.size(), 4u + 3 * 2);
            std::map<uint32_t, uint32_t> linksToSpine;
            for (uint32_t peer : nbrs)
            {
                if (topo.GetNode(peer).tier == 2)
                {
                    ++linksToSpine[peer];
                }
            }
            EXPECT_EQ(linksToSpine.size(), 3u);
            for (const auto& [spine, count] : linksToSpine)
            {
                EXPECT_EQ(count, 2u);
            }
        }
        else if (n.tier == 2)
        {
            EXPECT_EQ(nbrs.size(), 5u * 2);
        }
        else
        {
            EXPECT_EQ(nbrs.size(), 1u);
            EXPECT_EQ(topo.GetNode(nbrs[0]).rack, n.rack);
        }
    }
    // Parallel links have distinct ids: 30 leaf-spine link ids in total.
    std::set<uint32_t> fabricLinks;
    for (uint32_t id = 0; id < topo.GetNLinks(); ++id)
    {
        if (!topo.IsHost(topo.GetLink(id).a) && !topo.IsHost(topo.GetLink(id).b))
        {
            fabricLinks.insert(id);
        }
    }
    EXPECT_EQ(fabricLinks.size(), 30u);
}

TEST(LeafSpine, RejectsZeroCounts)
{
    for (int field = 0; field < 4; ++field)
    {
        LeafSpineParams params;
        uint32_t* counts[] = {&params.leaves,
                              &params.spines,
                              &params.hostsPerLeaf,
                              &params.linksPerLeafSpine};
        *counts[field] = 0;
        EXPECT_THROW(MakeLeafSpine(params), std::runtime_error) << "field " << field;
    }
}

// ------------------------------------------------------------ Lingjun reader

namespace
{

const std::string kLingjunPath = std::string(CS_SOURCE_DIR) + "/data/alibaba-lingjun-2023/topo.csv";

/// A private scratch directory for this test process.
std::filesystem::path
ScratchDir()
{
    return std::filesystem::temp_directory_path() /
           ("fabric-topology-test-" + std::to_string(::getpid()));
}

/// Writes \p content to a fresh file in the scratch directory.
std::string
WriteTemp(const std::string& name, const std::string& content)
{
    std::filesystem::create_directories(ScratchDir());
    std::string path = (ScratchDir() / name).string();
    std::ofstream out(path, std::ios::binary);
    out << content;
    return path;
}

/// Expects reading \p content to fail on \p line, naming \p field.
void
ExpectReadError(const std::string& name,
                const std::string& content,
                uint32_t line,
                const std::string& field)
{
    std::string path = WriteTemp(name, content);
    std::string what = RuntimeErrorOf([&] { ReadLingjunTopology(path, LingjunParams{}); });
    EXPECT_NE(what.find(path + ":" + std::to_string(line) + ":"), std::string::npos)
        << name << ": " << what;
    EXPECT_NE(what.find(field), std::string::npos) << name << ": " << what;
    std::remove(path.c_str());
}

} // namespace

TEST(LingjunTopologyReader, RealFileCountsMatchAnIndependentParse)
{
    // Independent parse: rows, PSW groups, (PSW, ASW) pairs.
    std::ifstream in(kLingjunPath);
    ASSERT_TRUE(in) << kLingjunPath;
    std::string line;
    std::getline(in, line);
    ASSERT_EQ(line, "ip,DSW,PSW,ASW");
    uint32_t rows = 0;
    std::set<std::string> psws;
    std::set<std::string> dsws;
    std::map<std::string, uint32_t> hostsPerTor; // "tor-<PSW>-<ASW>" -> hosts
    std::map<std::string, uint32_t> lineOfIp12;  // ip prefix -> row number
    std::map<std::string, uint32_t> torsPerPsw;
    while (std::getline(in, line))
    {
        std::stringstream ss(line);
        std::string ip, dsw, psw, asw;
        std::getline(ss, ip, ',');
        std::getline(ss, dsw, ',');
        std::getline(ss, psw, ',');
        std::getline(ss, asw, ',');
        ++rows;
        dsws.insert(dsw);
        psws.insert(psw);
        if (hostsPerTor["tor-" + psw + "-" + asw]++ == 0)
        {
            ++torsPerPsw[psw];
        }
        lineOfIp12[ip.substr(0, 12)] = rows;
    }
    // The dataset's README states these figures.
    EXPECT_EQ(rows, 847u);
    EXPECT_EQ(psws.size(), 3u);
    EXPECT_EQ(dsws.size(), 1u);
    EXPECT_EQ(hostsPerTor.size(), 119u);

    LingjunParams params;
    params.aggPerPod = 2;
    params.coresPerDsw = 3;
    FabricTopology topo = ReadLingjunTopology(kLingjunPath, params);
    const uint32_t tors = hostsPerTor.size();
    const uint32_t pods = psws.size();
    EXPECT_EQ(topo.GetNHosts(), rows);
    EXPECT_EQ(topo.GetNSwitches(), tors + pods * 2 + dsws.size() * 3);
    EXPECT_EQ(topo.GetNLinks(), rows + tors * 2 + pods * 2 * 3);

    std::set<int32_t> hostPods;
    std::map<std::string, uint32_t> readHostsPerTor;
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        const FabricNode& n = topo.GetNode(node);
        if (n.kind == FabricNodeKind::Host)
        {
            hostPods.insert(n.pod);
        }
        if (n.tier == 1)
        {
            for (uint32_t peer : Neighbours(topo, node))
            {
                if (topo.IsHost(peer))
                {
                    ++readHostsPerTor[n.name];
                    EXPECT_EQ(topo.GetNode(peer).rack, n.rack);
                    EXPECT_EQ(topo.GetNode(peer).pod, n.pod);
                }
                else
                {
                    EXPECT_EQ(topo.GetNode(peer).tier, 2u);
                    EXPECT_EQ(topo.GetNode(peer).pod, n.pod);
                }
            }
        }
        if (n.tier == 2)
        {
            // "agg-<PSW>-<i>": linked to every ToR of its PSW and every core.
            std::string psw = n.name.substr(4, n.name.rfind('-') - 4);
            EXPECT_EQ(Neighbours(topo, node).size(), torsPerPsw.at(psw) + 3u) << n.name;
        }
    }
    EXPECT_EQ(hostPods.size(), 3u);
    EXPECT_EQ(readHostsPerTor, hostsPerTor);

    // Hosts of one ToR are contiguous, in file row order.
    const std::vector<uint32_t>& hosts = topo.GetHosts();
    for (uint32_t i = 1; i < hosts.size(); ++i)
    {
        const FabricNode& prev = topo.GetNode(hosts[i - 1]);
        const FabricNode& cur = topo.GetNode(hosts[i]);
        ASSERT_LE(prev.rack, cur.rack);
        if (prev.rack == cur.rack)
        {
            EXPECT_LT(lineOfIp12.at(prev.name), lineOfIp12.at(cur.name));
        }
    }
}

TEST(LingjunTopologyReader, ToleratesCrlfBlankLinesAndSpaces)
{
    std::string path = WriteTemp("crlf.csv",
                                 "ip,DSW,PSW,ASW\r\n"
                                 "a1, G1 ,P2,S1\r\n"
                                 "\r\n"
                                 "a2,G1,P10,S1\r\n"
                                 "a3,G1,P2,S1\r\n"
                                 "a4,G1,P2,S3\r\n");
    LingjunParams params;
    params.aggPerPod = 1;
    params.coresPerDsw = 1;
    FabricTopology topo = ReadLingjunTopology(path, params);
    EXPECT_EQ(topo.GetNHosts(), 4u);
    // ToRs (P2,S1), (P2,S3), (P10,S1); pods P2 and P10; one core.
    EXPECT_EQ(topo.GetNSwitches(), 3u + 2 + 1);
    // Ordered by PSW with numbers compared numerically, then ASW, then row.
    std::vector<std::string> names;
    for (uint32_t node : topo.GetHosts())
    {
        names.push_back(topo.GetNode(node).name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"a1", "a3", "a4", "a2"}));
    std::filesystem::remove_all(ScratchDir());
}

TEST(LingjunTopologyReader, MalformedInputsNameFileLineAndField)
{
    const std::string header = "ip,DSW,PSW,ASW\n";
    ExpectReadError("empty.csv", "", 1, "header");
    ExpectReadError("header.csv", "ip,DSW,PSW\na,G,P,S\n", 1, "header");
    ExpectReadError("header-name.csv", "ip,DSW,PSW,TOR\na,G,P,S\n", 1, "header");
    ExpectReadError("count.csv", header + "a,G,P,S\nb,G,P\n", 3, "row");
    ExpectReadError("extra.csv", header + "a,G,P,S,X\n", 2, "row");
    ExpectReadError("empty-field.csv", header + "a,G,P,S\nb,G,P,S\nc,G,,S\n", 4, "PSW");
    ExpectReadError("empty-ip.csv", header + " ,G,P,S\n", 2, "ip");
    ExpectReadError("duplicate.csv", header + "a,G,P,S\nb,G,P,S\nc,G,P,S\nb,G,P,S2\n", 5, "ip");
    ExpectReadError("two-dsw.csv", header + "a,G1,P,S\nb,G2,P,S\n", 3, "DSW");
    ExpectReadError("no-rows.csv", header, 1, "row");

    std::string missing = "/nonexistent-dir/topo.csv";
    std::string what = RuntimeErrorOf([&] { ReadLingjunTopology(missing, LingjunParams{}); });
    EXPECT_NE(what.find(missing), std::string::npos) << what;
    std::filesystem::remove_all(ScratchDir());
}
