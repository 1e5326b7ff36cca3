/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Topologies are a family of TopologyBuilder classes found by short name.
// These tests register nothing of their own: they take every registered
// builder and check what the family promises of each, so a new topology
// kind is checked by being registered. Each builds a small fabric of the
// size its estimate predicts; a scenario file reads every key of its block
// from its attributes; an unknown kind or key is an error naming the field
// and listing what is known; and doc/scenario-format.md documents every
// key with its default, as generated from the classes.
//
// The documentation's topology keys are generated: after changing a
// builder, run this test with CS_UPDATE_DOC=1 in the environment to
// rewrite them, e.g.
//   CS_UPDATE_DOC=1 build/test/topology-family-test --gtest_filter='*Doc*'

#include "simai-topology-test-util.h"
#include "temp-dir-test.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/scenario-helper.h"
#include "ns3/scenario-reader.h"
#include "ns3/string.h"
#include "ns3/topology-builder.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class TopologyFamilyTest : public test::TempDirTest
{
  protected:
    /**
     * A small input file for each kind that reads its fabric from one, by
     * kind; a new such kind needs one here (the test says so).
     */
    std::map<std::string, std::function<std::string()>> SmallFiles() const
    {
        return {{"lingjun",
                 [this] {
                     return Write("topo.csv",
                                  "ip,DSW,PSW,ASW\n"
                                  "10.0.0.1,DSW-1,PSW-1,ASW-1\n"
                                  "10.0.0.2,DSW-1,PSW-1,ASW-1\n"
                                  "10.0.0.3,DSW-1,PSW-1,ASW-2\n"
                                  "10.0.1.1,DSW-1,PSW-2,ASW-1\n");
                 }},
                {"hpcc", [this] { return Write("topology.txt", ns3::test::kSimaiTopology); }}};
    }

    /// The message of the error reading \p text as a scenario; "" (and a failure) if none.
    std::string ErrorOf(const std::string& text) const
    {
        try
        {
            ReadScenarioText(text, "s.json");
        }
        catch (const std::runtime_error& e)
        {
            return e.what();
        }
        ADD_FAILURE() << "expected an error for:\n" << text;
        return "";
    }
};

std::string
Join(const std::vector<std::string>& items)
{
    std::string out;
    for (const std::string& item : items)
    {
        out += (out.empty() ? "" : ", ") + item;
    }
    return out;
}

/// The builder of \p kind with its required keys given: a small count for each.
Ptr<TopologyBuilder>
WithRequiredKeys(const std::string& kind)
{
    const Ptr<TopologyBuilder> builder = TopologyBuilder::Create(kind);
    for (const TopologyBuilder::Key& key : TopologyBuilder::GetKeys(kind))
    {
        if (builder->WhyRequired(key.name).empty())
        {
            continue;
        }
        EXPECT_EQ(key.type, "integer")
            << kind << "." << key.name << ": this test gives only required counts";
        const UintegerValue small(std::max<uint64_t>(key.min, 1) + 2);
        EXPECT_EQ(builder->CheckGiven(key.name, small), "") << kind << "." << key.name;
        builder->SetKey(key.name, small);
    }
    return builder;
}

/// Expects \p builder to build a fabric of the size it estimates, or to read a file.
void
ExpectBuildsItsEstimate(const std::string& kind, const Ptr<TopologyBuilder>& builder)
{
    const FabricTopology topo = builder->Build();
    EXPECT_GT(topo.GetNHosts(), 0u) << kind;
    const std::optional<TopologySize> size = builder->Estimate();
    if (!size)
    {
        EXPECT_TRUE(builder->ReadsFile())
            << kind << ": only a fabric read from a file may leave its size unestimated";
        return;
    }
    EXPECT_EQ(size->hosts, topo.GetNHosts()) << kind;
    EXPECT_EQ(size->switches, topo.GetNSwitches()) << kind;
    EXPECT_EQ(size->links, topo.GetNLinks()) << kind;
    EXPECT_GE(size->other, 0) << kind;
    EXPECT_EQ(size->Elements(), size->hosts + size->switches + size->links + size->other);
}

TEST_F(TopologyFamilyTest, TheFamilyHasTheKindsTheRepositoryUses)
{
    // Guards the tests below, which would pass on an empty family.
    const std::vector<std::string> kinds = TopologyBuilder::GetNames();
    for (const char* kind : {"fat-tree", "leaf-spine", "lingjun", "rail-optimized", "star"})
    {
        EXPECT_NE(std::find(kinds.begin(), kinds.end(), kind), kinds.end()) << kind;
    }
    EXPECT_TRUE(std::is_sorted(kinds.begin(), kinds.end()));
    EXPECT_EQ(TopologyBuilder::BlockName("fat-tree"), "fatTree");
    EXPECT_EQ(TopologyBuilder::BlockName("rail-optimized"), "railOptimized");
    EXPECT_EQ(TopologyBuilder::BlockName("star"), "star");
}

TEST_F(TopologyFamilyTest, EveryBuilderBuildsASmallFabricOfTheSizeItEstimates)
{
    const auto files = SmallFiles();
    for (const std::string& kind : TopologyBuilder::GetNames())
    {
        SCOPED_TRACE(kind);
        const Ptr<TopologyBuilder> builder = WithRequiredKeys(kind);
        if (builder->ReadsFile())
        {
            auto file = files.find(kind);
            ASSERT_NE(file, files.end())
                << kind << " reads a file: give it a small one in SmallFiles";
            builder->SetPath(file->second());
        }
        ExpectBuildsItsEstimate(kind, builder);

        // Every count but those whose default means "not given" raised by
        // two (keeping an even count even), where that still makes a fabric.
        const Ptr<TopologyBuilder> larger = WithRequiredKeys(kind);
        larger->SetPath(builder->GetPath());
        for (const TopologyBuilder::Key& key : TopologyBuilder::GetKeys(kind))
        {
            UintegerValue v;
            if (key.type != "integer" || !builder->CheckGiven(key.name, *key.initial).empty())
            {
                continue;
            }
            builder->GetKey(key.name, v);
            if (v.Get() + 2 <= key.max)
            {
                larger->SetKey(key.name, UintegerValue(v.Get() + 2));
            }
        }
        try
        {
            larger->Build();
        }
        catch (const std::runtime_error&)
        {
            continue; // not a fabric of this kind: the defaults' check above stands
        }
        ExpectBuildsItsEstimate(kind, larger);
    }
}

TEST_F(TopologyFamilyTest, AScenarioFileGivesEveryKeyOfEveryBlock)
{
    for (const std::string& kind : TopologyBuilder::GetNames())
    {
        const std::string block = TopologyBuilder::BlockName(kind);
        const Ptr<TopologyBuilder> defaults = TopologyBuilder::Create(kind);
        for (const TopologyBuilder::Key& key : TopologyBuilder::GetKeys(kind))
        {
            SCOPED_TRACE(kind + "." + key.name);
            // A value other than the default, written as a scenario file writes its type.
            std::string json;
            auto value = [&](AttributeValue& out) {
                ReadScenarioText(R"({"topology": {")" + block + R"(": {")" + key.name + R"(": )" +
                                     json + "}}, \"jobs\": [{}]}",
                                 "s.json")
                    .topology.MakeBuilder(kind)
                    ->GetKey(key.name, out);
            };
            if (key.type == "integer")
            {
                UintegerValue d;
                defaults->GetKey(key.name, d);
                uint64_t n = std::max<uint64_t>(d.Get(), key.min) + 2;
                if (!defaults->CheckGiven(key.name, UintegerValue(n)).empty())
                {
                    ++n;
                }
                json = std::to_string(n);
                UintegerValue got;
                value(got);
                EXPECT_EQ(got.Get(), n);
            }
            else if (key.type == "rate")
            {
                json = "\"12.5Gbps\"";
                DataRateValue got;
                value(got);
                EXPECT_EQ(got.Get().GetBitRate(), 12500000000u);
            }
            else if (key.type == "time")
            {
                json = "\"2.5us\"";
                TimeValue got;
                value(got);
                EXPECT_EQ(got.Get().GetNanoSeconds(), 2500);
            }
            else if (key.type == "string")
            {
                json = "\"given\"";
                StringValue got;
                value(got);
                EXPECT_EQ(got.Get(), "given");
            }
            else if (key.type == "flag")
            {
                BooleanValue d;
                defaults->GetKey(key.name, d);
                json = d.Get() ? "false" : "true";
                BooleanValue got;
                value(got);
                EXPECT_EQ(got.Get(), !d.Get());
            }
            else if (key.type == "real")
            {
                json = "0.5";
                DoubleValue got;
                value(got);
                EXPECT_EQ(got.Get(), 0.5);
            }
            else
            {
                ADD_FAILURE() << "type " << key.type;
            }

            // The wrong JSON type is an error at the key, as for every other field.
            const std::string wrong = key.type == "string" ? "[1]" : "{}";
            const std::string text = "{\"jobs\": [{}],\n\"topology\": {\"" + block + "\": {\n\"" +
                                     key.name + "\": " + wrong + "}}}";
            EXPECT_EQ(ErrorOf(text).rfind("s.json:3: topology." + block + "." + key.name + ": ", 0),
                      0u)
                << ErrorOf(text);
        }
    }
}

TEST_F(TopologyFamilyTest, AnUnknownKeyListsTheKeysOfItsBuilder)
{
    for (const std::string& kind : TopologyBuilder::GetNames())
    {
        const std::string block = TopologyBuilder::BlockName(kind);
        std::vector<std::string> names;
        for (const TopologyBuilder::Key& key : TopologyBuilder::GetKeys(kind))
        {
            names.push_back(key.name);
        }
        const std::string message =
            ErrorOf("{\"jobs\": [{}],\n\"topology\": {\"" + block + "\": {\n\"noSuchKey\": 1}}}");
        EXPECT_EQ(message,
                  "s.json:3: topology." + block + ".noSuchKey: unknown key (known: " + Join(names) +
                      ")");
        EXPECT_THROW(ScenarioSpec::Topology().Set(kind, "noSuchKey", UintegerValue(1)),
                     std::invalid_argument);
    }
}

TEST_F(TopologyFamilyTest, AnUnknownKindIsAnErrorNamingTheFieldAndListingTheKnownKinds)
{
    const std::string known = "(known: " + Join(TopologyBuilder::GetNames()) + ")";
    EXPECT_EQ(ErrorOf("{\"jobs\": [{}],\n\"topology\": {\n\"kind\": \"torus\"}}"),
              "s.json:3: topology.kind: unknown topology kind \"torus\" " + known);

    // A spec filled by a program: the same list, at the spec's topology.kind.
    ScenarioSpec spec;
    spec.source = "program";
    spec.topology.kind = "torus";
    try
    {
        ScenarioHelper(spec).BuildTopology();
        ADD_FAILURE() << "built an unknown kind";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()),
                  "program: topology.kind: unknown topology kind \"torus\" " + known);
    }
    EXPECT_THROW(spec.topology.Set("k", UintegerValue(4)), std::invalid_argument);
    EXPECT_THROW(TopologyBuilder::GetKeys("torus"), std::invalid_argument);
}

TEST_F(TopologyFamilyTest, AValueTheAttributeRefusesIsAnError)
{
    ScenarioSpec::Topology t;
    EXPECT_THROW(t.Set("fat-tree", "k", UintegerValue(1)), std::invalid_argument); // k >= 2
    EXPECT_THROW(t.Set("fat-tree", "hostRate", UintegerValue(1)), std::invalid_argument);
    t.Set("fat-tree", "hostRate", StringValue("25Gbps")).Set("k", UintegerValue(6));
    const Ptr<TopologyBuilder> b = t.MakeBuilder();
    DataRateValue rate;
    b->GetKey("hostRate", rate);
    EXPECT_EQ(rate.Get().GetBitRate(), 25000000000u);
    EXPECT_EQ(b->Build().GetNHosts(), 6u * 3 * 3);
}

// ------------------------------------------------------------ documentation

const char* const kBegin = "<!-- topology keys: begin -->";
const char* const kEnd = "<!-- topology keys: end -->";

TEST(TopologyFamilyDoc, ScenarioFormatDocumentsEveryKeyOfEveryBuilder)
{
    const std::string path = std::string(CS_SOURCE_DIR) + "/doc/scenario-format.md";
    std::string doc;
    {
        std::ifstream in(path);
        ASSERT_TRUE(in) << path;
        doc.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const std::size_t begin = doc.find(kBegin);
    const std::size_t end = doc.find(kEnd);
    ASSERT_NE(begin, std::string::npos) << path << ": no line " << kBegin;
    ASSERT_NE(end, std::string::npos) << path << ": no line " << kEnd;
    ASSERT_LT(begin, end);
    const std::size_t from = doc.find('\n', begin) + 1;
    const std::string documented = doc.substr(from, end - from);
    const std::string generated = ScenarioTopologyKeysDoc();

    const char* update = std::getenv("CS_UPDATE_DOC");
    if (update != nullptr && std::string(update) == "1" && documented != generated)
    {
        std::ofstream(path, std::ios::binary)
            << doc.substr(0, from) << generated << doc.substr(end);
        GTEST_SKIP() << "rewrote the topology keys of " << path;
    }
    EXPECT_EQ(documented, generated)
        << path << ": the topology keys differ from the builders' attributes; run\n"
        << "  CS_UPDATE_DOC=1 " << CS_BINARY_DIR
        << "/test/topology-family-test --gtest_filter='TopologyFamilyDoc.*'\nto rewrite them";

    // What the generated text must say, checked on its own: every key of every
    // builder, in its kind's table, with its default.
    for (const std::string& kind : TopologyBuilder::GetNames())
    {
        const std::string heading = "### `" + TopologyBuilder::BlockName(kind) + "`";
        const std::size_t section = documented.find(heading);
        ASSERT_NE(section, std::string::npos) << kind << ": no section " << heading;
        const std::size_t next = documented.find("\n### ", section + 1);
        const std::string table = documented.substr(section, next - section);
        const Ptr<TopologyBuilder> builder = TopologyBuilder::Create(kind);
        for (const TopologyBuilder::Key& key : TopologyBuilder::GetKeys(kind))
        {
            const std::size_t row = table.find("\n| `" + key.name + "` |");
            ASSERT_NE(row, std::string::npos) << kind << ": key " << key.name << " undocumented";
            const std::string line = table.substr(row + 1, table.find('\n', row + 1) - row - 1);
            // "| `key` | type | default | meaning |": the default, read back.
            std::vector<std::string> cells;
            std::istringstream split(line.substr(1));
            for (std::string cell; std::getline(split, cell, '|');)
            {
                const std::size_t first = cell.find_first_not_of(' ');
                cells.push_back(first == std::string::npos
                                    ? ""
                                    : cell.substr(first, cell.find_last_not_of(' ') - first + 1));
            }
            ASSERT_GE(cells.size(), 4u) << line;
            std::string shown = cells[2];
            if (!builder->WhyRequired(key.name).empty())
            {
                EXPECT_EQ(shown, "required") << line;
                continue;
            }
            if (!builder->CheckGiven(key.name, *key.initial).empty())
            {
                EXPECT_EQ(shown, "") << line << ": a default no file may give is not shown";
                continue;
            }
            ASSERT_GE(shown.size(), 2u) << line;
            shown = shown.substr(1, shown.size() - 2); // the backquotes
            const std::string unquoted = shown.size() >= 2 && shown.front() == '"'
                                             ? shown.substr(1, shown.size() - 2)
                                             : shown;
            const std::string serialized = key.initial->SerializeToString(key.checker);
            if (key.type == "integer")
            {
                EXPECT_EQ(shown, serialized) << line;
            }
            else if (key.type == "rate")
            {
                EXPECT_EQ(ParseRateBps(unquoted),
                          DynamicCast<const DataRateValue>(key.initial)->Get().GetBitRate())
                    << line;
            }
            else if (key.type == "time")
            {
                EXPECT_EQ(ParseTimeNs(unquoted),
                          DynamicCast<const TimeValue>(key.initial)->Get().GetNanoSeconds())
                    << line;
            }
            else
            {
                EXPECT_NE(shown.find(unquoted), std::string::npos) << line;
            }
        }
    }
}

} // namespace
