/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lingjun-topology-reader.h"

#include "ns3/csv-fields.h"
#include "ns3/input-file.h"
#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace ns3
{

namespace
{

const char* const kColumns[] = {"ip", "DSW", "PSW", "ASW"};
const size_t kNColumns = 4;

struct Row
{
    std::string ip;
    std::string dsw;
    std::string psw;
    std::string asw;
    uint32_t line;
};

/// Orders names with embedded numbers numerically ("P8" < "P10"); ties
/// (e.g. "S2" and "S02") fall back to plain string order.
bool
NaturalLess(const std::string& a, const std::string& b)
{
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size())
    {
        bool da = std::isdigit(static_cast<unsigned char>(a[i]));
        bool db = std::isdigit(static_cast<unsigned char>(b[j]));
        if (da && db)
        {
            size_t ei = i;
            size_t ej = j;
            while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])))
            {
                ++ei;
            }
            while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])))
            {
                ++ej;
            }
            size_t zi = a.find_first_not_of('0', i);
            size_t zj = b.find_first_not_of('0', j);
            zi = std::min(zi, ei);
            zj = std::min(zj, ej);
            if (ei - zi != ej - zj)
            {
                return ei - zi < ej - zj;
            }
            int cmp = a.compare(zi, ei - zi, b, zj, ej - zj);
            if (cmp != 0)
            {
                return cmp < 0;
            }
            i = ei;
            j = ej;
        }
        else
        {
            if (a[i] != b[j])
            {
                return a[i] < b[j];
            }
            ++i;
            ++j;
        }
    }
    if ((i < a.size()) != (j < b.size()))
    {
        return j < b.size();
    }
    return a < b;
}

struct NaturalOrder
{
    bool operator()(const std::string& a, const std::string& b) const
    {
        return NaturalLess(a, b);
    }
};

std::vector<Row>
ReadRows(const std::string& path)
{
    std::istringstream in(ReadInputFile(path, InputFileKinds::kLingjunTopology));
    std::string header;
    std::string expected = "ip,DSW,PSW,ASW";
    if (!std::getline(in, header))
    {
        ThrowInputError(path, 1, "header", "missing, expected '" + expected + "'");
    }
    StripByteOrderMark(header);
    std::vector<std::string> names = SplitCsvLine(TrimSpace(header));
    bool headerOk = names.size() == kNColumns;
    for (size_t c = 0; headerOk && c < kNColumns; ++c)
    {
        headerOk = names[c] == kColumns[c];
    }
    if (!headerOk)
    {
        ThrowInputError(path,
                        1,
                        "header",
                        "expected '" + expected + "', got '" + TrimSpace(header) + "'");
    }

    std::vector<Row> rows;
    std::unordered_map<std::string, uint32_t> ipLine;
    std::map<std::string, std::pair<std::string, uint32_t>> pswDsw; // PSW -> (DSW, line)
    std::string text;
    uint32_t line = 1;
    while (std::getline(in, text))
    {
        ++line;
        text = TrimSpace(text);
        if (text.empty())
        {
            continue;
        }
        std::vector<std::string> fields = SplitCsvLine(text);
        if (fields.size() != kNColumns)
        {
            ThrowInputError(path,
                            line,
                            "row",
                            "expected " + std::to_string(kNColumns) + " fields, got " +
                                std::to_string(fields.size()));
        }
        for (size_t c = 0; c < kNColumns; ++c)
        {
            if (fields[c].empty())
            {
                ThrowInputError(path, line, kColumns[c], "empty field");
            }
        }
        Row row{fields[0], fields[1], fields[2], fields[3], line};
        auto [ipIt, ipNew] = ipLine.emplace(row.ip, line);
        if (!ipNew)
        {
            ThrowInputError(path,
                            line,
                            "ip",
                            "duplicate ip '" + row.ip + "' (first on line " +
                                std::to_string(ipIt->second) + ")");
        }
        auto [pswIt, pswNew] = pswDsw.emplace(row.psw, std::make_pair(row.dsw, line));
        if (!pswNew && pswIt->second.first != row.dsw)
        {
            ThrowInputError(path,
                            line,
                            "DSW",
                            "PSW group '" + row.psw + "' is under DSW '" + row.dsw +
                                "' here but under '" + pswIt->second.first + "' on line " +
                                std::to_string(pswIt->second.second));
        }
        rows.push_back(std::move(row));
    }
    if (in.bad())
    {
        throw std::runtime_error(path + ":" + std::to_string(line) + ": file: read error");
    }
    if (rows.empty())
    {
        ThrowInputError(path, line, "row", "no host rows");
    }
    return rows;
}

} // namespace

FabricTopology
ReadLingjunTopology(const std::string& path, const LingjunParams& params)
{
    if (params.aggPerPod == 0 || params.coresPerDsw == 0)
    {
        throw std::runtime_error("Lingjun topology: aggPerPod and coresPerDsw must be >= 1");
    }
    std::vector<Row> rows = ReadRows(path);
    // What the rows make must be a valid fabric (a DSW group with no path
    // to the others leaves it disconnected): an error naming the file.
    try
    {
        // Hosts by (PSW, ASW, row order); the stable sort keeps row order.
        std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
            if (x.psw != y.psw)
            {
                return NaturalLess(x.psw, y.psw);
            }
            return x.asw != y.asw && NaturalLess(x.asw, y.asw);
        });

        std::map<std::string, uint32_t, NaturalOrder> dswIndex;
        std::map<std::string, uint32_t, NaturalOrder> pswIndex;
        std::map<std::string, std::string> pswToDsw;
        for (const Row& row : rows)
        {
            dswIndex.emplace(row.dsw, 0);
            pswIndex.emplace(row.psw, 0);
            pswToDsw.emplace(row.psw, row.dsw);
        }
        uint32_t next = 0;
        for (auto& entry : dswIndex)
        {
            entry.second = next++;
        }
        next = 0;
        for (auto& entry : pswIndex)
        {
            entry.second = next++;
        }

        FabricTopology topo;
        // ToR index of each host, in host order; rows are grouped by ToR now.
        std::vector<uint32_t> hostTor;
        std::vector<const Row*> torRows; // first row of each ToR
        std::set<std::string> usedNames;
        for (const Row& row : rows)
        {
            if (torRows.empty() || torRows.back()->psw != row.psw || torRows.back()->asw != row.asw)
            {
                torRows.push_back(&row);
            }
            std::string name = row.ip.substr(0, 12);
            if (!usedNames.insert(name).second)
            {
                name = row.ip;
                usedNames.insert(name);
            }
            uint32_t tor = torRows.size() - 1;
            topo.AddHost(name,
                         static_cast<int32_t>(pswIndex.at(row.psw)),
                         static_cast<int32_t>(tor));
            hostTor.push_back(tor);
        }

        std::vector<uint32_t> tors;
        for (uint32_t t = 0; t < torRows.size(); ++t)
        {
            const Row& row = *torRows[t];
            tors.push_back(topo.AddSwitch("tor-" + row.psw + "-" + row.asw,
                                          1,
                                          static_cast<int32_t>(pswIndex.at(row.psw)),
                                          static_cast<int32_t>(t)));
        }
        std::vector<std::vector<uint32_t>> aggs(pswIndex.size()); // by pod
        for (const auto& [psw, pod] : pswIndex)
        {
            for (uint32_t a = 0; a < params.aggPerPod; ++a)
            {
                aggs[pod].push_back(topo.AddSwitch("agg-" + psw + "-" + std::to_string(a),
                                                   2,
                                                   static_cast<int32_t>(pod)));
            }
        }
        std::vector<std::vector<uint32_t>> cores(dswIndex.size()); // by DSW
        for (const auto& [dsw, d] : dswIndex)
        {
            for (uint32_t c = 0; c < params.coresPerDsw; ++c)
            {
                cores[d].push_back(topo.AddSwitch("core-" + dsw + "-" + std::to_string(c), 3));
            }
        }

        const std::vector<uint32_t>& hosts = topo.GetHosts();
        for (uint32_t h = 0; h < hosts.size(); ++h)
        {
            topo.AddLink(hosts[h], tors[hostTor[h]], params.hostRateBps, params.hostDelayNs);
        }
        for (uint32_t t = 0; t < tors.size(); ++t)
        {
            for (uint32_t agg : aggs[pswIndex.at(torRows[t]->psw)])
            {
                topo.AddLink(tors[t], agg, params.torAggRateBps, params.torAggDelayNs);
            }
        }
        for (const auto& [psw, pod] : pswIndex)
        {
            for (uint32_t agg : aggs[pod])
            {
                for (uint32_t core : cores[dswIndex.at(pswToDsw.at(psw))])
                {
                    topo.AddLink(agg, core, params.aggCoreRateBps, params.aggCoreDelayNs);
                }
            }
        }
        topo.Validate();
        return topo;
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(path + ": topology: " + e.what());
    }
    catch (const std::runtime_error& e)
    {
        throw std::runtime_error(path + ": topology: " + e.what());
    }
}

NS_OBJECT_ENSURE_REGISTERED(LingjunBuilder);
NS_OBJECT_SHORT_NAME(LingjunBuilder, "lingjun");

TypeId
LingjunBuilder::GetTypeId()
{
    const LingjunParams d;
    static TypeId tid = TypeId("ns3::LingjunBuilder")
                            .SetParent<TopologyBuilder>()
                            .SetGroupName("CollectiveScheduling")
                            .AddConstructor<LingjunBuilder>()
                            .AddAttribute("AggPerPod",
                                          "aggregation switches per PSW group (pod)",
                                          UintegerValue(d.aggPerPod),
                                          MakeUintegerAccessor(&LingjunBuilder::m_aggPerPod),
                                          MakeUintegerChecker<uint32_t>(1))
                            .AddAttribute("CoresPerDsw",
                                          "core switches per DSW group",
                                          UintegerValue(d.coresPerDsw),
                                          MakeUintegerAccessor(&LingjunBuilder::m_coresPerDsw),
                                          MakeUintegerChecker<uint32_t>(1))
                            .AddAttribute("HostRate",
                                          "host - ToR links",
                                          DataRateValue(DataRate(d.hostRateBps)),
                                          MakeDataRateAccessor(&LingjunBuilder::m_hostRate),
                                          MakeDataRateChecker())
                            .AddAttribute("TorAggRate",
                                          "ToR - aggregation links",
                                          DataRateValue(DataRate(d.torAggRateBps)),
                                          MakeDataRateAccessor(&LingjunBuilder::m_torAggRate),
                                          MakeDataRateChecker())
                            .AddAttribute("AggCoreRate",
                                          "aggregation - core links",
                                          DataRateValue(DataRate(d.aggCoreRateBps)),
                                          MakeDataRateAccessor(&LingjunBuilder::m_aggCoreRate),
                                          MakeDataRateChecker())
                            .AddAttribute("HostDelay",
                                          "host - ToR propagation delay",
                                          TimeValue(NanoSeconds(d.hostDelayNs)),
                                          MakeTimeAccessor(&LingjunBuilder::m_hostDelay),
                                          MakeTimeChecker())
                            .AddAttribute("TorAggDelay",
                                          "ToR - aggregation propagation delay",
                                          TimeValue(NanoSeconds(d.torAggDelayNs)),
                                          MakeTimeAccessor(&LingjunBuilder::m_torAggDelay),
                                          MakeTimeChecker())
                            .AddAttribute("AggCoreDelay",
                                          "aggregation - core propagation delay",
                                          TimeValue(NanoSeconds(d.aggCoreDelayNs)),
                                          MakeTimeAccessor(&LingjunBuilder::m_aggCoreDelay),
                                          MakeTimeChecker());
    return tid;
}

LingjunParams
LingjunBuilder::GetParams() const
{
    LingjunParams p;
    p.aggPerPod = m_aggPerPod;
    p.coresPerDsw = m_coresPerDsw;
    p.hostRateBps = m_hostRate.GetBitRate();
    p.torAggRateBps = m_torAggRate.GetBitRate();
    p.aggCoreRateBps = m_aggCoreRate.GetBitRate();
    p.hostDelayNs = m_hostDelay.GetNanoSeconds();
    p.torAggDelayNs = m_torAggDelay.GetNanoSeconds();
    p.aggCoreDelayNs = m_aggCoreDelay.GetNanoSeconds();
    return p;
}

FabricTopology
LingjunBuilder::Build() const
{
    return ReadLingjunTopology(GetPath(), GetParams());
}

std::optional<TopologySize>
LingjunBuilder::Estimate() const
{
    return std::nullopt; // the file's size bounds the fabric
}

std::string
LingjunBuilder::GetDescription() const
{
    return "The hosts, ToRs and switch groups of the Alibaba Lingjun 2023 topology file (its "
           "`topo.csv`) as three tiers; the file names switch groups, so the switches per group "
           "are modelling choices (`ReadLingjunTopology`).";
}

bool
LingjunBuilder::ReadsFile() const
{
    return true;
}

} // namespace ns3
