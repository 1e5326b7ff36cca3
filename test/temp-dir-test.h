/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TEMP_DIR_TEST_H
#define TEMP_DIR_TEST_H

// A GoogleTest fixture with a private directory for the files of one test.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

namespace ns3
{
namespace test
{

/// Each test gets a fresh directory, removed when the test ends.
class TempDirTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        std::string tmpl = (std::filesystem::temp_directory_path() / "cs-test-XXXXXX").string();
        ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << "mkdtemp " << tmpl;
        m_dir = tmpl;
    }

    void TearDown() override
    {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }

    /// Write \p text to \p name in the test's directory. \return its path
    std::string Write(const std::string& name, const std::string& text) const
    {
        const std::string path = (m_dir / name).string();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    std::filesystem::path m_dir;
};

} // namespace test
} // namespace ns3

#endif /* TEMP_DIR_TEST_H */
