/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The module lists its files twice: in CMakeLists.txt (CS_SOURCE_FILES,
// CS_HEADER_FILES, CS_EXAMPLES) and in wscript / examples/wscript for
// waf-era ns-3 trees. These tests keep both lists equal to each other and to
// the files on disk, so neither build silently drops a file.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace
{

namespace fs = std::filesystem;

const fs::path kRoot{CS_SOURCE_DIR};

std::string
ReadText(const fs::path& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::runtime_error(path.string() + ": cannot open");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// 1-based line number of offset \p pos in \p text, for error messages.
std::size_t
LineOf(const std::string& text, std::size_t pos)
{
    return 1 + std::count(text.begin(), text.begin() + std::min(pos, text.size()), '\n');
}

/**
 * The items of `set(<var> item...)` in CMake \p text, comments dropped and
 * quotes removed. \p where names the file in error messages.
 */
std::vector<std::string>
CmakeSetItems(const std::string& text, const std::string& var, const std::string& where)
{
    std::smatch match;
    if (!std::regex_search(text, match, std::regex("set\\(\\s*" + var + "\\b")))
    {
        throw std::runtime_error(where + ": no set(" + var + " ...)");
    }
    std::vector<std::string> items;
    std::string item;
    auto flush = [&]() {
        if (!item.empty())
        {
            items.push_back(item);
            item.clear();
        }
    };
    for (std::size_t i = match.position(0) + match.length(0); i < text.size(); ++i)
    {
        const char c = text[i];
        if (c == '#')
        {
            flush();
            i = text.find('\n', i);
            if (i == std::string::npos)
            {
                break;
            }
        }
        else if (c == ')')
        {
            flush();
            return items;
        }
        else if (std::isspace(static_cast<unsigned char>(c)))
        {
            flush();
        }
        else if (c != '"')
        {
            item += c;
        }
    }
    throw std::runtime_error(where + ":" + std::to_string(LineOf(text, match.position(0))) +
                             ": set(" + var + " has no closing parenthesis");
}

/**
 * The quoted strings of the Python list assigned by `<name> = [...]` in
 * \p text, comments dropped. \p where names the file in error messages.
 */
std::vector<std::string>
PythonListItems(const std::string& text, const std::string& name, const std::string& where)
{
    std::string escaped = std::regex_replace(name, std::regex("\\."), "\\.");
    std::smatch match;
    if (!std::regex_search(text, match, std::regex("(^|\\s)" + escaped + "\\s*=\\s*\\[")))
    {
        throw std::runtime_error(where + ": no " + name + " = [...]");
    }
    std::vector<std::string> items;
    for (std::size_t i = match.position(0) + match.length(0); i < text.size(); ++i)
    {
        const char c = text[i];
        if (c == '#')
        {
            i = text.find('\n', i);
            if (i == std::string::npos)
            {
                break;
            }
        }
        else if (c == ']')
        {
            return items;
        }
        else if (c == '\'' || c == '"')
        {
            const std::size_t end = text.find(c, i + 1);
            if (end == std::string::npos)
            {
                break;
            }
            items.push_back(text.substr(i + 1, end - i - 1));
            i = end;
        }
    }
    throw std::runtime_error(where + ":" + std::to_string(LineOf(text, match.position(0))) + ": " +
                             name + " has no closing bracket");
}

/**
 * What differs between two lists taken as sets, one line per item, naming
 * the list that lacks it; empty when they agree.
 */
std::string
SetMismatch(const std::vector<std::string>& a,
            const std::string& aName,
            const std::vector<std::string>& b,
            const std::string& bName)
{
    const std::set<std::string> setA(a.begin(), a.end());
    const std::set<std::string> setB(b.begin(), b.end());
    std::string report;
    for (const auto& item : setA)
    {
        if (setB.count(item) == 0)
        {
            report += bName + " lacks " + item + " (listed in " + aName + ")\n";
        }
    }
    for (const auto& item : setB)
    {
        if (setA.count(item) == 0)
        {
            report += aName + " lacks " + item + " (listed in " + bName + ")\n";
        }
    }
    return report;
}

/// Items listed more than once, one per line; empty when none.
std::string
Duplicates(const std::vector<std::string>& items, const std::string& listName)
{
    std::map<std::string, int> counts;
    for (const auto& item : items)
    {
        ++counts[item];
    }
    std::string report;
    for (const auto& [item, count] : counts)
    {
        if (count > 1)
        {
            report += listName + " lists " + item + " " + std::to_string(count) + " times\n";
        }
    }
    return report;
}

/// Paths relative to the module root of files under \p dir ending in \p ext.
std::vector<std::string>
FilesUnder(const std::string& dir, const std::string& ext)
{
    std::vector<std::string> files;
    if (!fs::exists(kRoot / dir))
    {
        return files;
    }
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / dir))
    {
        if (entry.is_regular_file() && entry.path().extension() == ext)
        {
            files.push_back(fs::relative(entry.path(), kRoot).generic_string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

/// The module's lists, read once per test.
struct Lists
{
    std::string cmake{ReadText(kRoot / "CMakeLists.txt")};
    std::string wscript{ReadText(kRoot / "wscript")};
    std::vector<std::string> cmakeSources{
        CmakeSetItems(cmake, "CS_SOURCE_FILES", "CMakeLists.txt")};
    std::vector<std::string> cmakeHeaders{
        CmakeSetItems(cmake, "CS_HEADER_FILES", "CMakeLists.txt")};
    std::vector<std::string> cmakeExamples{CmakeSetItems(cmake, "CS_EXAMPLES", "CMakeLists.txt")};
    std::vector<std::string> wafSources{PythonListItems(wscript, "module.source", "wscript")};
    std::vector<std::string> wafHeaders{PythonListItems(wscript, "headers.source", "wscript")};
    // Built only with ns-3's mpi module.
    std::vector<std::string> cmakeMpiSources{
        CmakeSetItems(cmake, "CS_MPI_SOURCE_FILES", "CMakeLists.txt")};
    std::vector<std::string> cmakeMpiHeaders{
        CmakeSetItems(cmake, "CS_MPI_HEADER_FILES", "CMakeLists.txt")};
    std::vector<std::string> wafMpiSources{PythonListItems(wscript, "mpi_sources", "wscript")};
    std::vector<std::string> wafMpiHeaders{PythonListItems(wscript, "mpi_headers", "wscript")};
};

// ---------------------------------------------------------------- parsers

TEST(BuildListsParsing, CmakeSetSkipsCommentsQuotesAndOtherSets)
{
    const std::string text = "set(OTHER x.cc)\n"
                             "set(CS_SOURCE_FILES # first (comment)\n"
                             "    model/a.cc\n"
                             "    \"helper/b.cc\" # trailing)\n"
                             "#   model/commented-out.cc\n"
                             "    model/c.cc)\n"
                             "set(CS_HEADER_FILES\n)\n";
    EXPECT_EQ(CmakeSetItems(text, "CS_SOURCE_FILES", "t"),
              (std::vector<std::string>{"model/a.cc", "helper/b.cc", "model/c.cc"}));
    EXPECT_TRUE(CmakeSetItems(text, "CS_HEADER_FILES", "t").empty());
    EXPECT_THROW(CmakeSetItems(text, "CS_EXAMPLES", "t"), std::runtime_error);
    EXPECT_THROW(CmakeSetItems("set(CS_EXAMPLES a b", "CS_EXAMPLES", "t"), std::runtime_error);
}

TEST(BuildListsParsing, PythonListSkipsCommentsAndOtherLists)
{
    const std::string text = "    othermodule.source = ['z.cc']\n"
                             "    module.source = [\n"
                             "        'model/a.cc',  # a ]comment\n"
                             "        # 'model/commented-out.cc',\n"
                             "        \"helper/b.cc\",\n"
                             "        ]\n"
                             "    headers.source = []\n";
    EXPECT_EQ(PythonListItems(text, "module.source", "t"),
              (std::vector<std::string>{"model/a.cc", "helper/b.cc"}));
    EXPECT_TRUE(PythonListItems(text, "headers.source", "t").empty());
    EXPECT_THROW(PythonListItems(text, "examples", "t"), std::runtime_error);
}

TEST(BuildListsParsing, MismatchAndDuplicatesAreReported)
{
    EXPECT_EQ(SetMismatch({"a", "b"}, "A", {"b", "a"}, "B"), "");
    EXPECT_EQ(SetMismatch({"a", "b"}, "A", {"a", "c"}, "B"),
              "B lacks b (listed in A)\nA lacks c (listed in B)\n");
    EXPECT_EQ(SetMismatch({"a"}, "A", {}, "B"), "B lacks a (listed in A)\n");
    EXPECT_EQ(Duplicates({"a", "b"}, "A"), "");
    EXPECT_EQ(Duplicates({"a", "b", "a"}, "A"), "A lists a 2 times\n");
}

// ---------------------------------------------------------------- the module

TEST(BuildLists, SourcesAgreeBetweenCmakeAndWscript)
{
    const Lists lists;
    EXPECT_FALSE(lists.cmakeSources.empty());
    EXPECT_EQ(Duplicates(lists.cmakeSources, "CMakeLists.txt CS_SOURCE_FILES"), "");
    EXPECT_EQ(Duplicates(lists.wafSources, "wscript module.source"), "");
    EXPECT_EQ(SetMismatch(lists.cmakeSources,
                          "CMakeLists.txt CS_SOURCE_FILES",
                          lists.wafSources,
                          "wscript module.source"),
              "");
}

TEST(BuildLists, HeadersAgreeBetweenCmakeAndWscript)
{
    const Lists lists;
    EXPECT_FALSE(lists.cmakeHeaders.empty());
    EXPECT_EQ(Duplicates(lists.cmakeHeaders, "CMakeLists.txt CS_HEADER_FILES"), "");
    EXPECT_EQ(Duplicates(lists.wafHeaders, "wscript headers.source"), "");
    EXPECT_EQ(SetMismatch(lists.cmakeHeaders,
                          "CMakeLists.txt CS_HEADER_FILES",
                          lists.wafHeaders,
                          "wscript headers.source"),
              "");
}

TEST(BuildLists, MpiFilesAgreeBetweenCmakeAndWscript)
{
    const Lists lists;
    EXPECT_FALSE(lists.cmakeMpiSources.empty());
    EXPECT_EQ(SetMismatch(lists.cmakeMpiSources,
                          "CMakeLists.txt CS_MPI_SOURCE_FILES",
                          lists.wafMpiSources,
                          "wscript mpi_sources"),
              "");
    EXPECT_EQ(SetMismatch(lists.cmakeMpiHeaders,
                          "CMakeLists.txt CS_MPI_HEADER_FILES",
                          lists.wafMpiHeaders,
                          "wscript mpi_headers"),
              "");
}

TEST(BuildLists, ListedFilesExistWithTheRightKind)
{
    const Lists lists;
    for (const auto& [files, list, ext] :
         {std::tuple{&lists.cmakeSources, "CS_SOURCE_FILES", ".cc"},
          std::tuple{&lists.wafSources, "module.source", ".cc"},
          std::tuple{&lists.cmakeHeaders, "CS_HEADER_FILES", ".h"},
          std::tuple{&lists.wafHeaders, "headers.source", ".h"},
          std::tuple{&lists.cmakeMpiSources, "CS_MPI_SOURCE_FILES", ".cc"},
          std::tuple{&lists.cmakeMpiHeaders, "CS_MPI_HEADER_FILES", ".h"}})
    {
        for (const auto& file : *files)
        {
            EXPECT_TRUE(fs::is_regular_file(kRoot / file)) << list << ": " << file << " missing";
            EXPECT_EQ(fs::path(file).extension().string(), std::string(ext))
                << list << ": " << file;
        }
    }
}

TEST(BuildLists, EveryModelAndHelperFileIsListed)
{
    const Lists lists;
    std::set<std::string> sources(lists.cmakeSources.begin(), lists.cmakeSources.end());
    std::set<std::string> headers(lists.cmakeHeaders.begin(), lists.cmakeHeaders.end());
    sources.insert(lists.cmakeMpiSources.begin(), lists.cmakeMpiSources.end());
    headers.insert(lists.cmakeMpiHeaders.begin(), lists.cmakeMpiHeaders.end());
    for (const std::string dir : {"model", "helper"})
    {
        for (const auto& file : FilesUnder(dir, ".cc"))
        {
            EXPECT_EQ(sources.count(file), 1u)
                << file << " is not in CS_SOURCE_FILES or CS_MPI_SOURCE_FILES";
        }
        for (const auto& file : FilesUnder(dir, ".h"))
        {
            EXPECT_EQ(headers.count(file), 1u)
                << file << " is not in CS_HEADER_FILES or CS_MPI_HEADER_FILES";
        }
    }
}

TEST(BuildLists, HeaderFileNamesAreUnique)
{
    // Every header is installed flat as ns3/<name>.h.
    const Lists lists;
    std::map<std::string, std::vector<std::string>> byName;
    for (const auto& header : lists.cmakeHeaders)
    {
        byName[fs::path(header).filename().string()].push_back(header);
    }
    for (const auto& [name, paths] : byName)
    {
        EXPECT_EQ(paths.size(), 1u) << name << " is listed at " << paths.size() << " paths";
    }
}

TEST(BuildLists, ExamplesAgreeBetweenCmakeAndWscript)
{
    const Lists lists;
    EXPECT_EQ(Duplicates(lists.cmakeExamples, "CMakeLists.txt CS_EXAMPLES"), "");
    for (const auto& name : lists.cmakeExamples)
    {
        EXPECT_TRUE(fs::is_regular_file(kRoot / "examples" / (name + ".cc")))
            << "CS_EXAMPLES: examples/" << name << ".cc missing";
    }
    std::vector<std::string> onDisk;
    for (const auto& file : FilesUnder("examples", ".cc"))
    {
        onDisk.push_back(fs::path(file).stem().string());
    }
    EXPECT_EQ(SetMismatch(lists.cmakeExamples, "CMakeLists.txt CS_EXAMPLES", onDisk, "examples/"),
              "");

    if (!std::regex_search(lists.wscript, std::regex("recurse\\(\\s*['\"]examples['\"]")))
    {
        return;
    }
    const auto wafExamples =
        PythonListItems(ReadText(kRoot / "examples" / "wscript"), "examples", "examples/wscript");
    EXPECT_EQ(Duplicates(wafExamples, "examples/wscript examples"), "");
    EXPECT_EQ(SetMismatch(lists.cmakeExamples,
                          "CMakeLists.txt CS_EXAMPLES",
                          wafExamples,
                          "examples/wscript examples"),
              "");
}

} // namespace
