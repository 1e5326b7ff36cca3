/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_FILE_RUN_TEST_H
#define HPCC_FILE_RUN_TEST_H

// A run built from HPCC-format files (topology, flows, config) written by a
// test, with every output writer, run to the config's stop time.

#include "fabric-test-util.h"
#include "hpcc-test-util.h"
#include "temp-dir-test.h"

#include "ns3/collective-scheduling-module.h"
#include "ns3/core-module.h"

#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace test
{

/// The white-space separated fields of each non-blank line of \p path.
inline std::vector<Fields>
ReadLines(const std::string& path)
{
    std::ifstream in(path);
    EXPECT_TRUE(in) << "cannot read " << path;
    return FieldsOfLines(in);
}

/// Everything a run from files needs alive until the simulator is destroyed.
struct FileRun
{
    std::unique_ptr<HpccScenario> scenario;
    Ptr<RoceFabric> fabric;
    std::unique_ptr<RoceFlowMonitor> monitor;
    std::unique_ptr<HpccFctWriter> fct;
    std::unique_ptr<HpccPfcWriter> pfc;
    std::unique_ptr<HpccMonitorWriter> monitors;
    std::vector<Fields> fctLines;
    std::vector<Fields> pfcLines;
};

/// Runs built from HPCC-format files written into the test's directory.
class HpccScenarioTest : public FabricTempDirTest
{
  protected:
    /// Options naming topo.txt, flow.txt, fct.txt and pfc.txt in the test's directory.
    HpccScenarioOptions Files(const std::string& topology,
                              const std::string& flows,
                              const std::string& config = "") const
    {
        HpccScenarioOptions o;
        o.topologyFile = Write("topo.txt", topology);
        o.flowFile = Write("flow.txt", flows);
        o.fctOutputFile = (m_dir / "fct.txt").string();
        o.pfcOutputFile = (m_dir / "pfc.txt").string();
        if (!config.empty())
        {
            o.configFile = Write("config.txt", config);
        }
        return o;
    }

    /// Build, run to the stop time and read the outputs back.
    FileRun Run(const HpccScenarioOptions& options) const
    {
        FileRun r;
        r.scenario = std::make_unique<HpccScenario>(options);
        RoceFabricHelper helper;
        r.scenario->Configure(helper);
        r.fabric = r.scenario->Install(helper);
        r.monitor = std::make_unique<RoceFlowMonitor>(r.fabric);
        const HpccPostedFlows posted = r.scenario->PostFlows(r.fabric);
        r.fct = std::make_unique<HpccFctWriter>(r.scenario->GetFctOutputFile(), r.fabric, posted);
        r.pfc =
            std::make_unique<HpccPfcWriter>(r.scenario->GetPfcOutputFile(), r.fabric, *r.scenario);
        HpccFctWriter* fct = r.fct.get();
        const std::size_t flows = r.scenario->GetFlows().size();
        r.monitors =
            std::make_unique<HpccMonitorWriter>(*r.scenario, r.fabric, posted, [fct, flows]() {
                return fct->GetLines() < flows;
            });
        Simulator::Stop(r.scenario->GetStopTime());
        Simulator::Run();
        r.fct->Close();
        r.pfc->Close();
        r.monitors->Close();
        r.fctLines = ReadLines(r.scenario->GetFctOutputFile());
        r.pfcLines = ReadLines(r.scenario->GetPfcOutputFile());
        return r;
    }

    /// Expect building a scenario from \p options to fail with "path:line: field: ...part...".
    static void ExpectError(const HpccScenarioOptions& options,
                            const std::string& path,
                            uint32_t line,
                            const std::string& field,
                            const std::string& part)
    {
        try
        {
            HpccScenario scenario(options);
            RoceFabricHelper helper;
            scenario.Configure(helper);
            scenario.Install(helper);
            ADD_FAILURE() << "expected an error at " << path << ":" << line;
        }
        catch (const std::runtime_error& e)
        {
            ExpectLocatedError(e.what(), path, line, field, part);
        }
        Simulator::Destroy();
    }
};

} // namespace test
} // namespace ns3

#endif /* HPCC_FILE_RUN_TEST_H */
