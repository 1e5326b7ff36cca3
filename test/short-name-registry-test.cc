/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Collectives, congestion controls and schedulers are found by the short
 * name each class gives itself (NS_OBJECT_SHORT_NAME) or by TypeId name,
 * through one registry: every registered class is found, names are unique,
 * an unknown name's error lists them all, and a class defined here, in no
 * list of the module, is found like the module's own.
 */

#include "ns3/collective-factory.h"
#include "ns3/collective-scheduler-helper.h"
#include "ns3/dcqcn.h"
#include "ns3/fair-scheduler.h"
#include "ns3/model-catalog.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/ring-all-reduce.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
namespace test
{
namespace
{

// Classes of each family that only this test defines and registers: no list
// of the module names them.

class TestOnlyCollective : public RingAllReduce
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::TestOnlyCollective")
                                .SetParent<RingAllReduce>()
                                .SetGroupName("CollectiveScheduling")
                                .AddConstructor<TestOnlyCollective>();
        return tid;
    }
};

NS_OBJECT_ENSURE_REGISTERED(TestOnlyCollective);
NS_OBJECT_SHORT_NAME(TestOnlyCollective, "test-only-collective");

class TestOnlyCc : public Dcqcn
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::TestOnlyCc")
                                .SetParent<Dcqcn>()
                                .SetGroupName("CollectiveScheduling")
                                .AddConstructor<TestOnlyCc>();
        return tid;
    }
};

NS_OBJECT_ENSURE_REGISTERED(TestOnlyCc);
NS_OBJECT_SHORT_NAME(TestOnlyCc, "test-only-cc");

class TestOnlyScheduler : public FairScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::TestOnlyScheduler")
                                .SetParent<FairScheduler>()
                                .SetGroupName("CollectiveScheduling")
                                .AddConstructor<TestOnlyScheduler>();
        return tid;
    }
};

NS_OBJECT_ENSURE_REGISTERED(TestOnlyScheduler);
NS_OBJECT_SHORT_NAME(TestOnlyScheduler, "test-only-scheduler");

// A family of its own for the clash checks, so that the module's families stay valid.

class ClashBase : public Object
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::ClashBase").SetParent<Object>();
        return tid;
    }
};

class ClashA : public ClashBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::test::ClashA").SetParent<ClashBase>().AddConstructor<ClashA>();
        return tid;
    }
};

class ClashB : public ClashBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::test::ClashB").SetParent<ClashBase>().AddConstructor<ClashB>();
        return tid;
    }
};

NS_OBJECT_ENSURE_REGISTERED(ClashA);
NS_OBJECT_ENSURE_REGISTERED(ClashB);
NS_OBJECT_SHORT_NAME(ClashA, "same");
NS_OBJECT_SHORT_NAME(ClashB, "same");

class TwoNamesBase : public Object
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::TwoNamesBase").SetParent<Object>();
        return tid;
    }
};

class TwoNames : public TwoNamesBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::test::TwoNames").SetParent<TwoNamesBase>().AddConstructor<TwoNames>();
        return tid;
    }
};

NS_OBJECT_ENSURE_REGISTERED(TwoNames);
NS_OBJECT_SHORT_NAME(TwoNames, "first");

/// A family: its base, its name in messages, and the names the module has always had.
struct Family
{
    TypeId base;
    std::string what;
    std::set<std::string> moduleNames;
};

std::vector<Family>
Families()
{
    return {
        {Collective::GetTypeId(),
         "collective",
         {"ring-all-reduce",
          "halving-doubling-all-reduce",
          "hierarchical-all-reduce",
          "hierarchical-reduce-scatter",
          "hierarchical-all-gather",
          "reduce-scatter",
          "all-gather",
          "all-to-all",
          "nccl-ring-all-reduce",
          "nccl-ring-reduce-scatter",
          "nccl-ring-all-gather",
          "nccl-all-reduce",
          "nccl-reduce-scatter",
          "nccl-all-gather",
          "nccl-tree-all-reduce"}},
        {RdmaCongestionOps::GetTypeId(), "congestion control", {"none", "dcqcn", "mltcp-dcqcn"}},
        {CollectiveScheduler::GetTypeId(),
         "scheduler",
         {"fair", "isolated", "cassini", "crux", "mltcp", "symphony", "optimal", "harmonics"}}};
}

/// Every registered class of the family of \p base that can be created.
std::vector<TypeId>
ConstructibleClasses(TypeId base)
{
    std::vector<TypeId> classes;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        if ((tid == base || tid.IsChildOf(base)) && tid.HasConstructor())
        {
            classes.push_back(tid);
        }
    }
    return classes;
}

TEST(ShortNameRegistryTest, EveryRegisteredClassIsFoundByItsOwnUniqueShortName)
{
    for (const Family& f : Families())
    {
        const std::vector<TypeId> classes = ConstructibleClasses(f.base);
        std::set<std::string> names;
        for (const TypeId& tid : classes)
        {
            const std::string name = ShortNameRegistry::Get(tid);
            ASSERT_FALSE(name.empty()) << tid.GetName() << " gives itself no short name";
            EXPECT_TRUE(names.insert(name).second) << "'" << name << "' is given twice";
            EXPECT_EQ(ShortNameRegistry::Lookup(f.base, name, f.what), tid) << name;
            // ... and by TypeId name.
            EXPECT_EQ(ShortNameRegistry::Lookup(f.base, tid.GetName(), f.what), tid);
        }
        // The family is exactly those classes, listed sorted.
        const std::vector<std::string> listed = ShortNameRegistry::GetNames(f.base);
        EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), names) << f.what;
        EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end())) << f.what;
        // The names flags, scenarios and scripts use are all still there.
        for (const std::string& n : f.moduleNames)
        {
            EXPECT_EQ(names.count(n), 1u) << f.what << " '" << n << "' is gone";
        }
        // Plus this test's own class.
        EXPECT_EQ(names.size(), f.moduleNames.size() + 1) << f.what;
    }
}

TEST(ShortNameRegistryTest, InstancesKnowTheirShortNames)
{
    for (const std::string& name : GetCollectiveNames())
    {
        EXPECT_EQ(CreateCollective(name, 1)->GetName(), name);
    }
    for (const std::string& name : CollectiveSchedulerHelper::GetSchedulerNames())
    {
        CollectiveSchedulerHelper helper;
        helper.SetScheduler(name);
        EXPECT_EQ(helper.Create()->GetName(), name);
    }
    for (const std::string& name : RoceFabricHelper::GetCongestionControlNames())
    {
        EXPECT_EQ(
            ShortNameRegistry::Get(RoceFabricHelper::ParseCongestionControl(name).GetTypeId()),
            name);
    }
}

/// The message of the std::invalid_argument \p f throws ("" and a failure if none).
std::string
InvalidArgumentOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    ADD_FAILURE() << "no std::invalid_argument";
    return "";
}

TEST(ShortNameRegistryTest, UnknownNameErrorListsEveryRegisteredName)
{
    const std::vector<Family> families = Families();
    const std::vector<std::string> messages = {
        InvalidArgumentOf([]() { CreateCollective("tree-all-reduce", 1); }),
        InvalidArgumentOf([]() { RoceFabricHelper::ParseCongestionControl("tree-cc[G=1]"); }),
        InvalidArgumentOf([]() { CollectiveSchedulerHelper().SetScheduler("tree-scheduler"); })};
    const std::vector<std::string> asked = {"tree-all-reduce", "tree-cc[G=1]", "tree-scheduler"};
    for (std::size_t i = 0; i < families.size(); ++i)
    {
        const std::string& what = messages[i];
        EXPECT_NE(what.find("unknown " + families[i].what + " '" + asked[i] + "'"),
                  std::string::npos)
            << what;
        for (const TypeId& tid : ConstructibleClasses(families[i].base))
        {
            const std::string name = ShortNameRegistry::Get(tid);
            EXPECT_NE(what.find(name), std::string::npos) << name << " not in: " << what;
        }
        EXPECT_NE(ShortNameRegistry::ListNames(families[i].base).find("test-only"),
                  std::string::npos);
    }
    // A job spec's collective is checked against the same registry.
    JobSpec spec;
    spec.collective = "tree-all-reduce";
    const std::string what = InvalidArgumentOf([&spec]() { ModelCatalog::Validate(spec); });
    for (const std::string& name : GetCollectiveNames())
    {
        EXPECT_NE(what.find(name), std::string::npos) << name << " not in: " << what;
    }
}

TEST(ShortNameRegistryTest, TestOnlyClassesAreFoundWithoutAnyList)
{
    Ptr<Collective> c = CreateCollective("test-only-collective", 2);
    EXPECT_EQ(c->GetInstanceTypeId(), TestOnlyCollective::GetTypeId());
    EXPECT_EQ(c->GetName(), "test-only-collective");
    EXPECT_EQ(c->GetChannels(), 2u);
    JobSpec spec;
    spec.collective = "test-only-collective";
    EXPECT_NO_THROW(ModelCatalog::Validate(spec));

    ObjectFactory cc = RoceFabricHelper::ParseCongestionControl("test-only-cc[profile=hpcc]");
    EXPECT_EQ(cc.GetTypeId(), TestOnlyCc::GetTypeId());

    EXPECT_EQ(CollectiveSchedulerHelper::FindScheduler("test-only-scheduler"),
              "ns3::test::TestOnlyScheduler");
    CollectiveSchedulerHelper helper;
    helper.SetScheduler("test-only-scheduler");
    Ptr<CollectiveScheduler> s = helper.Create();
    EXPECT_EQ(s->GetInstanceTypeId(), TestOnlyScheduler::GetTypeId());
    EXPECT_EQ(s->GetName(), "test-only-scheduler");
}

TEST(CollectiveFactory, KnownNamesMakeTheRightTypes)
{
    const std::map<std::string, std::string> types{
        {"ring-all-reduce", "ns3::RingAllReduce"},
        {"halving-doubling-all-reduce", "ns3::HalvingDoublingAllReduce"},
        {"reduce-scatter", "ns3::RingReduceScatter"},
        {"all-gather", "ns3::RingAllGather"},
        {"all-to-all", "ns3::AllToAll"},
        {"hierarchical-all-reduce", "ns3::HierarchicalAllReduce"},
        {"hierarchical-reduce-scatter", "ns3::HierarchicalReduceScatter"},
        {"hierarchical-all-gather", "ns3::HierarchicalAllGather"},
        {"nccl-ring-all-reduce", "ns3::NcclRingAllReduce"},
        {"nccl-ring-reduce-scatter", "ns3::NcclRingReduceScatter"},
        {"nccl-ring-all-gather", "ns3::NcclRingAllGather"},
        {"nccl-all-reduce", "ns3::NcclAllReduce"},
        {"nccl-reduce-scatter", "ns3::NcclReduceScatter"},
        {"nccl-all-gather", "ns3::NcclAllGather"},
        {"nccl-tree-all-reduce", "ns3::NcclTreeAllReduce"}};
    // The module's collectives, and this test's own.
    EXPECT_EQ(GetCollectiveNames().size(), types.size() + 1);
    for (const auto& [name, type] : types)
    {
        Ptr<Collective> coll = CreateCollective(name, 3);
        EXPECT_EQ(coll->GetName(), name);
        EXPECT_EQ(coll->GetInstanceTypeId().GetName(), type);
        EXPECT_EQ(coll->GetChannels(), 3u);
        UintegerValue channels;
        coll->GetAttribute("Channels", channels);
        EXPECT_EQ(channels.Get(), 3u);
    }
}

TEST(CollectiveFactory, UnknownNameListsKnownOnes)
{
    try
    {
        CreateCollective("tree-all-reduce", 1);
        ADD_FAILURE() << "unknown name accepted";
    }
    catch (const std::invalid_argument& e)
    {
        std::string what = e.what();
        EXPECT_NE(what.find("tree-all-reduce"), std::string::npos) << what;
        for (const auto& name : GetCollectiveNames())
        {
            EXPECT_NE(what.find(name), std::string::npos) << what;
        }
    }
    EXPECT_THROW(CreateCollective("ring-all-reduce", 0), std::invalid_argument);
}

TEST(ShortNameRegistryTest, ClashesAreReportedNamingTheClasses)
{
    try
    {
        ShortNameRegistry::GetFamily(ClashBase::GetTypeId());
        ADD_FAILURE() << "two classes with one short name accepted";
    }
    catch (const std::logic_error& e)
    {
        const std::string what = e.what();
        EXPECT_NE(what.find("'same'"), std::string::npos) << what;
        EXPECT_NE(what.find("ns3::test::ClashA"), std::string::npos) << what;
        EXPECT_NE(what.find("ns3::test::ClashB"), std::string::npos) << what;
    }
    // The same name again is no clash; another is.
    ShortNameRegistry::Add(TwoNames::GetTypeId(), "first");
    EXPECT_EQ(ShortNameRegistry::Lookup(TwoNamesBase::GetTypeId(), "first", "thing"),
              TwoNames::GetTypeId());
    ShortNameRegistry::Add(TwoNames::GetTypeId(), "second");
    try
    {
        ShortNameRegistry::Lookup(TwoNamesBase::GetTypeId(), "first", "thing");
        ADD_FAILURE() << "a class with two short names accepted";
    }
    catch (const std::logic_error& e)
    {
        const std::string what = e.what();
        EXPECT_NE(what.find("ns3::test::TwoNames"), std::string::npos) << what;
        EXPECT_NE(what.find("'first'"), std::string::npos) << what;
        EXPECT_NE(what.find("'second'"), std::string::npos) << what;
    }
}

} // namespace
} // namespace test
} // namespace ns3
