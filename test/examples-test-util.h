/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EXAMPLES_TEST_UTIL_H
#define EXAMPLES_TEST_UTIL_H

// The example programs' end-to-end tests: each runs in a directory of its own.

#include "example-process-test-util.h"

#include "ns3/collective-scheduler-helper.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace ns3
{
namespace test
{

namespace fs = std::filesystem;

inline const std::string kBinaryDir = CS_BINARY_DIR;
inline const std::string kLingjunTopo =
    std::string(CS_SOURCE_DIR) + "/data/alibaba-lingjun-2023/topo.csv";
inline const char* const kTshark = "/usr/bin/tshark";

/// RoCEv2 frame bytes around the payload: Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4.
constexpr uint64_t kFrameOverhead = 14 + 20 + 8 + 12 + 4;
/// The RETH that only the first packet of an RDMA WRITE carries.
constexpr uint64_t kReth = 16;

/// Frame bytes of one RDMA WRITE of \p bytes in packets of \p mtu payload bytes.
inline uint64_t
WriteFrameBytes(uint64_t bytes, uint64_t mtu)
{
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    return bytes + packets * kFrameOverhead + kReth;
}

/// Number of runs marked 'complete' in \p path; 0 if there is no file or no runs table.
inline int64_t
CompleteRuns(const fs::path& path)
{
    if (!fs::exists(path) || fs::file_size(path) == 0 ||
        QueryInt(path,
                 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'") == 0)
    {
        return 0;
    }
    return QueryInt(path, "SELECT count(*) FROM runs WHERE status = 'complete'");
}

/// Split \p line at \p sep (empty fields kept).
inline std::vector<std::string>
Split(const std::string& line, char sep)
{
    std::vector<std::string> fields;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, sep))
    {
        fields.push_back(field);
    }
    if (!line.empty() && line.back() == sep)
    {
        fields.emplace_back();
    }
    return fields;
}

/// Each test gets its own directory, removed afterwards unless the test failed.
class ExamplesTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        const fs::path base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
        std::string tmpl = (base / "cs-examples-test-XXXXXX").string();
        ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << "mkdtemp " << tmpl;
        m_dir = tmpl;
    }

    void TearDown() override
    {
        if (HasFailure())
        {
            std::cerr << "files of the failed test kept in " << m_dir << "\n";
        }
        else
        {
            fs::remove_all(m_dir);
        }
    }

    /// \return \p name inside the test's directory
    fs::path Path(const std::string& name) const
    {
        return m_dir / name;
    }

    /**
     * Run \p command (already quoted) in the test's directory with stdout
     * and stderr captured. A time limit turns a hang into a failure.
     */
    Outcome Shell(const std::string& command)
    {
        return RunCaptured(m_dir, command, "cmd" + std::to_string(m_commands++));
    }

    /// Run the example \p program with \p args (each one argument).
    Outcome Example(const std::string& program, const std::vector<std::string>& args)
    {
        return Shell(CommandLine(kBinaryDir + "/" + program, args));
    }

    fs::path m_dir;
    int m_commands{0};
};

} // namespace test
} // namespace ns3

#endif /* EXAMPLES_TEST_UTIL_H */
