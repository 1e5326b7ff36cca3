/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// A scenario's topology section, read and documented from the keys each
// TopologyBuilder declares.

#include "scenario-topology-reader.h"

#include "input-limits.h"
#include "scenario-reader.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

using Node = LocatedJson::Node;
using Object = LocatedJsonObject;

/// \p value in the largest of \p units (name, size; largest first) that divides it exactly.
std::string
InLargestUnit(uint64_t value, const std::vector<std::pair<const char*, uint64_t>>& units)
{
    for (const auto& [name, size] : units)
    {
        if (value != 0 && value % size == 0)
        {
            return std::to_string(value / size) + name;
        }
    }
    return std::to_string(value) + units.back().first;
}

/// A key's type as the tables of doc/scenario-format.md write it.
std::string
DocType(const TopologyBuilder::Key& key)
{
    if (key.type != "integer")
    {
        return key.type;
    }
    if (!key.openMax)
    {
        return "integer " + std::to_string(key.min) + "-" + std::to_string(key.max);
    }
    return key.min == 0 ? "integer" : "integer >= " + std::to_string(key.min);
}

/// A key's default as a scenario file would write it; "" if it is none a file may give.
std::string
DocDefault(const TopologyBuilder& builder, const TopologyBuilder::Key& key)
{
    if (!builder.WhyRequired(key.name).empty())
    {
        return "required";
    }
    if (!builder.CheckGiven(key.name, *key.initial).empty())
    {
        return ""; // its default means "not given": the help says what that does
    }
    const AttributeValue& v = *key.initial;
    std::string text;
    if (key.type == "integer")
    {
        text = std::to_string(dynamic_cast<const UintegerValue&>(v).Get());
    }
    else if (key.type == "real")
    {
        text = FormatReal(dynamic_cast<const DoubleValue&>(v).Get());
    }
    else if (key.type == "rate")
    {
        text = "\"" +
               InLargestUnit(dynamic_cast<const DataRateValue&>(v).Get().GetBitRate(),
                             {{"Tbps", 1000000000000},
                              {"Gbps", 1000000000},
                              {"Mbps", 1000000},
                              {"kbps", 1000},
                              {"bps", 1}}) +
               "\"";
    }
    else if (key.type == "time")
    {
        text = "\"" +
               InLargestUnit(
                   static_cast<uint64_t>(dynamic_cast<const TimeValue&>(v).Get().GetNanoSeconds()),
                   {{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}, {"ns", 1}}) +
               "\"";
    }
    else if (key.type == "string")
    {
        text = LocatedJson::Value(dynamic_cast<const StringValue&>(v).Get()).dump();
    }
    else
    {
        text = dynamic_cast<const BooleanValue&>(v).Get() ? "true" : "false";
    }
    return "`" + text + "`";
}

/// A value for \p key of a topology block, read as every other field of its type is.
Ptr<const AttributeValue>
ReadTopologyKey(const LocatedJson& w, const Node& v, const TopologyBuilder::Key& key)
{
    Ptr<AttributeValue> value;
    if (key.type == "integer")
    {
        value = Create<UintegerValue>(w.Unsigned(v, key.min, key.max));
    }
    else if (key.type == "real")
    {
        value = Create<DoubleValue>(w.Number(v));
    }
    else if (key.type == "rate")
    {
        value = Create<DataRateValue>(DataRate(w.RateBps(v)));
    }
    else if (key.type == "time")
    {
        value = Create<TimeValue>(NanoSeconds(w.TimeNs(v)));
    }
    else if (key.type == "string")
    {
        value = Create<StringValue>(w.String(v));
    }
    else if (key.type == "flag")
    {
        value = Create<BooleanValue>(w.Bool(v));
    }
    else
    {
        throw std::logic_error("topology key " + key.name + " of type " + key.type);
    }
    if (!key.checker->Check(*value))
    {
        w.Fail(v,
               "out of range, got " + v.json->dump() + " (accepts " +
                   key.checker->GetUnderlyingTypeInformation() + ")");
    }
    return value;
}

/// The names of \p keys, in their order.
std::vector<std::string>
KeyNames(const std::vector<TopologyBuilder::Key>& keys)
{
    std::vector<std::string> names;
    for (const TopologyBuilder::Key& key : keys)
    {
        names.push_back(key.name);
    }
    return names;
}

/// The block of kind \p kind: one key per attribute of its builder.
void
ReadTopologyBlock(const LocatedJson& w,
                  const Node& n,
                  const std::string& kind,
                  ScenarioSpec::Topology& t)
{
    const std::vector<TopologyBuilder::Key> keys = TopologyBuilder::GetKeys(kind);
    const Object o(w, n, KeyNames(keys));
    const Ptr<TopologyBuilder> builder = TopologyBuilder::Create(kind);
    for (const TopologyBuilder::Key& key : keys)
    {
        o.With(key.name, [&](const Node& v) {
            const Ptr<const AttributeValue> value = ReadTopologyKey(w, v, key);
            const std::string problem = builder->CheckGiven(key.name, *value);
            if (!problem.empty())
            {
                w.Fail(v, problem);
            }
            t.Set(kind, key.name, *value);
        });
    }
}

} // namespace

void
ReadScenarioTopology(const LocatedJson& w, const LocatedJson::Node& n, ScenarioSpec::Topology& t)
{
    const std::vector<std::string> kinds = TopologyBuilder::GetNames();
    std::vector<std::string> known{"kind", "gpusPerHost", "path"};
    for (const std::string& kind : kinds)
    {
        known.push_back(TopologyBuilder::BlockName(kind));
    }
    const LocatedJsonObject o(w, n, known);
    o.With("kind", [&](const LocatedJson::Node& v) {
        t.kind = w.String(v);
        if (std::find(kinds.begin(), kinds.end(), t.kind) == kinds.end())
        {
            w.Fail(v,
                   "unknown topology kind " + v.json->dump() +
                       " (known: " + LocatedJson::Join(kinds) + ")");
        }
    });
    o.With("gpusPerHost", [&](const LocatedJson::Node& v) { t.gpusPerHost = w.Uint32(v, 1); });
    o.With("path", [&](const LocatedJson::Node& v) { t.path = w.String(v); });
    for (const std::string& kind : kinds)
    {
        o.With(TopologyBuilder::BlockName(kind),
               [&](const LocatedJson::Node& v) { ReadTopologyBlock(w, v, kind, t); });
    }

    // What the kind in use asks of the rest.
    const Ptr<TopologyBuilder> builder = t.MakeBuilder();
    const std::string block = TopologyBuilder::BlockName(t.kind);
    if (builder->ReadsFile())
    {
        o.Require("path", "the " + t.kind + " topology is read from a file");
    }
    if (const uint32_t gpus = builder->GetGpusPerHost(); gpus != 0)
    {
        if (!o.Has("gpusPerHost"))
        {
            t.gpusPerHost = gpus;
        }
        else if (t.gpusPerHost != gpus)
        {
            w.Fail(o.Get("gpusPerHost"),
                   "must be " + std::to_string(gpus) + " for kind " + t.kind + " (" +
                       builder->WhyGpusPerHost() + "), not " + std::to_string(t.gpusPerHost));
        }
    }
    const std::vector<TopologyBuilder::Key> keys = TopologyBuilder::GetKeys(t.kind);
    for (const TopologyBuilder::Key& key : keys)
    {
        const std::string why = builder->WhyRequired(key.name);
        if (why.empty())
        {
            continue;
        }
        if (o.Has(block))
        {
            LocatedJsonObject(w, o.Get(block), KeyNames(keys)).Require(key.name, why);
        }
        o.Require(block, why);
    }
    // Before anything is built: the block of the kind in use holds the counts.
    try
    {
        InputLimits::CheckFabric(InputLimits::FabricElements(t));
    }
    catch (const std::invalid_argument& e)
    {
        w.Fail(o.Has(block) ? o.Get(block) : n, e.what());
    }
}

std::string
ScenarioTopologyKeysDoc()
{
    const std::vector<std::string> kinds = TopologyBuilder::GetNames();
    const ScenarioSpec::Topology defaults;
    std::string quotedKinds;
    std::string fileKinds;
    std::string dictated;
    for (const std::string& kind : kinds)
    {
        quotedKinds += (quotedKinds.empty() ? "`\"" : ", `\"") + kind + "\"`";
        const Ptr<TopologyBuilder> builder = TopologyBuilder::Create(kind);
        if (builder->ReadsFile())
        {
            fileKinds += (fileKinds.empty() ? "`" : ", `") + kind + "`";
        }
        if (builder->GetGpusPerHost() != 0)
        {
            dictated += "; " + std::to_string(builder->GetGpusPerHost()) + " for kind `" + kind +
                        "` (" + builder->WhyGpusPerHost() +
                        "), the default there: any other value is an error";
        }
    }
    std::ostringstream doc;
    doc << "| Key | Type | Default | Meaning |\n"
        << "|---|---|---|---|\n"
        << "| `kind` | " << quotedKinds << " | `\"" << defaults.kind
        << "\"` | the fabric: which block below is used |\n"
        << "| `gpusPerHost` | integer >= 1 | `" << defaults.gpusPerHost
        << "` | GPUs (and RDMA NICs) per host" << dictated << " |\n"
        << "| `path` | string | | topology file, required for kind " << fileKinds << " |\n";
    for (const std::string& kind : kinds)
    {
        doc << "| `" << TopologyBuilder::BlockName(kind) << "` | object | | the keys of kind `"
            << kind << "` (below) |\n";
    }
    for (const std::string& kind : kinds)
    {
        const Ptr<TopologyBuilder> builder = TopologyBuilder::Create(kind);
        doc << "\n### `" << TopologyBuilder::BlockName(kind) << "`: kind `" << kind << "`\n\n"
            << builder->GetDescription();
        if (builder->ReadsFile())
        {
            doc << " The file is `topology.path`, required for this kind.";
        }
        if (builder->GetGpusPerHost() != 0)
        {
            doc << " `gpusPerHost` is " << builder->GetGpusPerHost() << " ("
                << builder->WhyGpusPerHost() << ").";
        }
        const std::vector<TopologyBuilder::Key> keys = TopologyBuilder::GetKeys(kind);
        if (keys.empty())
        {
            doc << " The block has no keys.\n";
            continue;
        }
        doc << "\n\n| Key | Type | Default | Meaning |\n|---|---|---|---|\n";
        for (const TopologyBuilder::Key& key : keys)
        {
            const std::string def = DocDefault(*builder, key);
            doc << "| `" << key.name << "` | " << DocType(key) << " |"
                << (def.empty() ? "" : " " + def) << " | " << key.help << " |\n";
        }
    }
    return doc.str();
}

} // namespace ns3
