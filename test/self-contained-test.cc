/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// A clone alone is complete: tests, examples, scripts and example scenarios
// read nothing outside the repository. Data they need is carried under
// data/ with its licence and source (data/*/README.md).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace
{

namespace fs = std::filesystem;

const fs::path kRoot = fs::weakly_canonical(fs::path(CS_SOURCE_DIR));

std::string
ReadText(const fs::path& p)
{
    std::ifstream in(p);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Files below the repository's \p folder whose names end in one of \p endings.
std::vector<fs::path>
FilesUnder(const std::string& folder, const std::vector<std::string>& endings)
{
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / folder))
    {
        const std::string name = e.path().filename().string();
        for (const std::string& end : endings)
        {
            if (e.is_regular_file() && name.size() >= end.size() &&
                name.compare(name.size() - end.size(), end.size(), end) == 0)
            {
                files.push_back(e.path());
                break;
            }
        }
    }
    return files;
}

/// Whether \p p, made canonical, lies inside the repository.
bool
InsideRepository(const fs::path& p)
{
    const fs::path canonical = fs::weakly_canonical(p);
    const auto [end, _] =
        std::mismatch(kRoot.begin(), kRoot.end(), canonical.begin(), canonical.end());
    return end == kRoot.end();
}

/// Every string value of a "path" or "jobTrace" key in \p j, recursively.
void
CollectPaths(const nlohmann::json& j, std::vector<std::string>& out)
{
    if (j.is_object())
    {
        for (const auto& [key, value] : j.items())
        {
            if ((key == "path" || key == "jobTrace") && value.is_string())
            {
                // A Chakra trace's path is its rank files' prefix: rank 0's file.
                const bool chakra = j.value("format", "") == "chakra";
                out.push_back(value.get<std::string>() + (chakra ? ".0.et" : ""));
            }
            CollectPaths(value, out);
        }
    }
    else if (j.is_array())
    {
        for (const auto& v : j)
        {
            CollectPaths(v, out);
        }
    }
}

TEST(SelfContainedTest, TheChecksSeeOutside)
{
    EXPECT_TRUE(InsideRepository(kRoot / "data" / "alibaba-lingjun-2023" / "topo.csv"));
    EXPECT_FALSE(InsideRepository(kRoot / ".." / "shared" / "data"));
    EXPECT_FALSE(InsideRepository(kRoot.parent_path()));
}

TEST(SelfContainedTest, NoSourceOrScriptReadsOutsideTheRepository)
{
    const std::string outside = std::string("..") + "/shared"; // not this file's own match
    for (const std::string& folder : {"test", "examples", "utils", "benchmarks", "fuzz", ".ci"})
    {
        for (const fs::path& p :
             FilesUnder(folder, {".cc", ".h", ".sh", ".py", ".json", ".txt", "run", ".csv"}))
        {
            const std::string text = ReadText(p);
            EXPECT_EQ(text.find(outside), std::string::npos)
                << fs::relative(p, kRoot).string() << " reads " << outside
                << ", which a clone alone does not have: carry the data under data/";
        }
    }
}

TEST(SelfContainedTest, ExampleScenarioPathsStayInTheRepository)
{
    std::size_t checked = 0;
    for (const fs::path& p : FilesUnder("examples/scenarios", {".json"}))
    {
        std::vector<std::string> paths;
        CollectPaths(nlohmann::json::parse(ReadText(p)), paths);
        for (const std::string& rel : paths)
        {
            const fs::path target =
                fs::path(rel).is_absolute() ? fs::path(rel) : p.parent_path() / rel;
            ++checked;
            EXPECT_TRUE(InsideRepository(target))
                << fs::relative(p, kRoot).string() << ": " << rel << " leaves the repository";
            EXPECT_TRUE(fs::is_regular_file(target))
                << fs::relative(p, kRoot).string() << ": " << rel << " does not exist";
        }
    }
    EXPECT_GE(checked, 3u) << "the Lingjun scenarios name their topology file";
}

} // namespace
