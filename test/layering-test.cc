/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The module's folders are layers (doc/design-notes.md, "Layers"): model/
// holds everything that runs during a simulation and never includes helper/,
// which only installs and wires; and no two folders include each other,
// directly or through others. These tests read every #include of the
// module's sources and check both, naming the file and line that breaks them.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace
{

namespace fs = std::filesystem;

const fs::path kRoot{CS_SOURCE_DIR};

/// One #include of a module header from another folder.
struct Include
{
    std::string fromFile; ///< relative to the root
    std::size_t line;
    std::string fromFolder;
    std::string toFolder;
    std::string header;
};

/// The module's source folders: helper/ and every folder of model/.
std::vector<std::string>
SourceFolders()
{
    std::vector<std::string> folders{"helper"};
    for (const auto& entry : fs::directory_iterator(kRoot / "model"))
    {
        if (entry.is_directory())
        {
            folders.push_back("model/" + entry.path().filename().string());
        }
    }
    std::sort(folders.begin(), folders.end());
    return folders;
}

bool
IsSource(const fs::path& p)
{
    return p.extension() == ".h" || p.extension() == ".cc";
}

/// Every include, across folders, of a header of the module.
std::vector<Include>
CrossFolderIncludes()
{
    const std::vector<std::string> folders = SourceFolders();
    std::map<std::string, std::string> folderOf; // header file name -> folder
    for (const std::string& folder : folders)
    {
        for (const auto& entry : fs::directory_iterator(kRoot / folder))
        {
            if (IsSource(entry.path()))
            {
                folderOf[entry.path().filename().string()] = folder;
            }
        }
    }
    const std::regex include(R"re(^\s*#\s*include\s+"(?:ns3/)?([^"/]+)")re");
    std::vector<Include> found;
    for (const std::string& folder : folders)
    {
        for (const auto& entry : fs::directory_iterator(kRoot / folder))
        {
            if (!IsSource(entry.path()))
            {
                continue;
            }
            std::ifstream in(entry.path());
            std::string text;
            std::size_t line = 0;
            while (std::getline(in, text))
            {
                ++line;
                std::smatch m;
                if (!std::regex_search(text, m, include))
                {
                    continue;
                }
                auto it = folderOf.find(m[1]);
                if (it != folderOf.end() && it->second != folder)
                {
                    found.push_back({folder + "/" + entry.path().filename().string(),
                                     line,
                                     folder,
                                     it->second,
                                     m[1]});
                }
            }
        }
    }
    return found;
}

/**
 * A cycle of folders in \p edges (each folder followed by one it includes,
 * back to the first), or empty if there is none.
 */
std::vector<std::string>
FindCycle(const std::map<std::string, std::set<std::string>>& edges)
{
    std::map<std::string, int> state; // 0 new, 1 on the stack, 2 done
    std::vector<std::string> stack;
    std::vector<std::string> cycle;
    std::function<bool(const std::string&)> visit = [&](const std::string& node) {
        state[node] = 1;
        stack.push_back(node);
        auto it = edges.find(node);
        if (it != edges.end())
        {
            for (const std::string& next : it->second)
            {
                if (state[next] == 1)
                {
                    cycle.assign(std::find(stack.begin(), stack.end(), next), stack.end());
                    cycle.push_back(next);
                    return true;
                }
                if (state[next] == 0 && visit(next))
                {
                    return true;
                }
            }
        }
        stack.pop_back();
        state[node] = 2;
        return false;
    };
    for (const auto& [node, _] : edges)
    {
        if (state[node] == 0 && visit(node))
        {
            return cycle;
        }
    }
    return {};
}

TEST(LayeringTest, TheIncludeScanSeesTheModule)
{
    // Guards the scan itself: a scan that found nothing would pass both checks below.
    const std::vector<Include> includes = CrossFolderIncludes();
    const auto uses = [&](const std::string& from, const std::string& to) {
        return std::any_of(includes.begin(), includes.end(), [&](const Include& i) {
            return i.fromFolder == from && i.toFolder == to;
        });
    };
    EXPECT_TRUE(uses("helper", "model/fabric"));
    EXPECT_TRUE(uses("model/fabric", "model/network"));
    EXPECT_TRUE(uses("model/flow", "model/network"));
    EXPECT_FALSE(FindCycle({{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}}).empty());
    EXPECT_TRUE(FindCycle({{"a", {"b"}}, {"b", {"c"}}, {"a", {"c"}}}).empty());
}

TEST(LayeringTest, ModelNeverIncludesHelper)
{
    for (const Include& i : CrossFolderIncludes())
    {
        EXPECT_FALSE(i.fromFolder.rfind("model/", 0) == 0 && i.toFolder == "helper")
            << i.fromFile << ":" << i.line << ": includes helper/" << i.header
            << ": model/ runs the simulation and must not depend on the helpers that wire it";
    }
}

TEST(LayeringTest, NoTwoFoldersDependOnEachOther)
{
    std::map<std::string, std::set<std::string>> edges;
    std::map<std::pair<std::string, std::string>, const Include*> example;
    const std::vector<Include> includes = CrossFolderIncludes();
    for (const Include& i : includes)
    {
        edges[i.fromFolder].insert(i.toFolder);
        example.emplace(std::make_pair(i.fromFolder, i.toFolder), &i);
    }
    const std::vector<std::string> cycle = FindCycle(edges);
    std::ostringstream why;
    for (std::size_t k = 0; k + 1 < cycle.size(); ++k)
    {
        const Include& i = *example.at({cycle[k], cycle[k + 1]});
        why << "\n  " << cycle[k] << " -> " << cycle[k + 1] << " (" << i.fromFile << ":" << i.line
            << " includes " << i.header << ")";
    }
    EXPECT_TRUE(cycle.empty()) << "a cycle of folders:" << why.str();
}

} // namespace
