/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Every input the fuzz targets kept (their corpora, and each crash they
 * found once fixed) through its reader again: each one is read or rejected
 * with an error that names the input, never a crash, an abort or another
 * kind of exception.
 */

#include "../fuzz/reader-inputs.h"
#include "../fuzz/scenario-inputs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

/// Every corpus this suite replays: the readers' and the scenario targets'.
std::vector<std::string>
CorpusNames()
{
    std::vector<std::string> names = fuzz::ReaderNames();
    for (const std::string& name : fuzz::ScenarioReaderNames())
    {
        names.push_back(name);
    }
    return names;
}

/// Read \p text as its corpus \p reader's target does.
bool
ReadCorpusInput(const std::string& reader, const std::string& text, std::string& source)
{
    const auto& scenario = fuzz::ScenarioReaderNames();
    if (std::find(scenario.begin(), scenario.end(), reader) != scenario.end())
    {
        return fuzz::ReadScenarioInput(reader, text, source);
    }
    return fuzz::ReadInput(reader, text, source);
}

class FuzzCorpusTest : public ::testing::TestWithParam<std::string>
{
};

TEST_P(FuzzCorpusTest, EveryInputIsReadOrRejectedNamingTheInput)
{
    const std::string reader = GetParam();
    const std::filesystem::path dir = std::filesystem::path(CS_SOURCE_DIR) / "fuzz/corpus" / reader;
    std::vector<std::filesystem::path> inputs;
    for (const auto& e : std::filesystem::directory_iterator(dir))
    {
        inputs.push_back(e.path());
    }
    std::sort(inputs.begin(), inputs.end());
    ASSERT_GE(inputs.size(), 5u) << "the corpus of " << reader << " is in " << dir;
    uint32_t accepted = 0;
    uint32_t rejected = 0;
    for (const std::filesystem::path& input : inputs)
    {
        std::ifstream in(input, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        std::string source;
        try
        {
            ReadCorpusInput(reader, text.str(), source);
            ++accepted;
        }
        catch (const std::runtime_error& e)
        {
            ++rejected;
            EXPECT_EQ(std::string(e.what()).rfind(source, 0), 0u)
                << input << ": the error does not start with the input's name: " << e.what();
        }
        catch (const std::invalid_argument& e)
        {
            ++rejected;
            EXPECT_EQ(std::string(e.what()).rfind(source, 0), 0u)
                << input << ": the error does not start with the input's name: " << e.what();
        }
    }
    std::remove(fuzz::InputPath().c_str());
    std::filesystem::remove_all(fuzz::ScenarioInputDir());
    // A corpus holds both: inputs that read, and inputs each reader rejects.
    EXPECT_GT(accepted, 0u) << reader;
    EXPECT_GT(rejected, 0u) << reader;
}

INSTANTIATE_TEST_SUITE_P(Readers,
                         FuzzCorpusTest,
                         ::testing::ValuesIn(CorpusNames()),
                         [](const auto& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

} // namespace
