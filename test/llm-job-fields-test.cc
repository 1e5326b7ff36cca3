/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * An LLM job's own fields in a scenario file: a transformer given by its
 * dimensions builds the graph its catalog name builds, the gradients' type,
 * the recomputation, and the errors a bad value of each gets, naming the
 * file, the line and the field.
 */
#include "ns3/model-catalog.h"
#include "ns3/scenario-reader.h"
#include "ns3/transformer-catalog.h"

#include <gtest/gtest.h>
#include <string>

namespace ns3
{
namespace test
{
namespace
{

/// A scenario of one LLM job whose job object holds \p fields (JSON members).
std::string
OneJob(const std::string& fields)
{
    return "{\"jobs\": [\n{\"id\": 0, \"parallelism\": {\"tp\": 8}, \"gpu\": \"h100\",\n" + fields +
           "\n}]}";
}

/// The error reading \p text gives, or "" (a test failure) if none.
std::string
ErrorOf(const std::string& text)
{
    try
    {
        ReadScenarioText(text, "llm.json");
    }
    catch (const std::runtime_error& e)
    {
        return e.what();
    }
    ADD_FAILURE() << "expected an error for:\n" << text;
    return "";
}

TEST(LlmJobFields, ATransformerByItsDimensionsIsTheOneItsCatalogNameGives)
{
    // LLaMA-7B, as its model card gives it.
    const JobSpec byDims = ReadScenarioText(OneJob(R"("model": {"layers": 32, "hidden": 4096,
        "heads": 32, "ffnHidden": 11008, "vocab": 32000, "gatedMlp": true})"),
                                            "llm.json")
                               .jobs.at(0);
    const JobSpec byName =
        ReadScenarioText(OneJob(R"("model": "llama-7b")"), "llm.json").jobs.at(0);
    EXPECT_TRUE(ModelCatalog::IsLlm(byDims));
    EXPECT_EQ(byDims.model, "transformer-32x4096");
    EXPECT_EQ(ModelCatalog::Transformer(byDims).Parameters(),
              TransformerCatalog::Get("llama-7b").Parameters());
    const JobGraph a = ModelCatalog::Graph(byDims);
    const JobGraph b = ModelCatalog::Graph(byName);
    EXPECT_EQ(a.GetOps().size(), b.GetOps().size());
    EXPECT_EQ(a.GetComputeTimePerRank(), b.GetComputeTimePerRank());
    EXPECT_EQ(a.GetBytes(CommGroup::Tensor), b.GetBytes(CommGroup::Tensor));

    // Grouped-query attention and experts, named.
    const JobSpec moe = ReadScenarioText(OneJob(R"("model": {"name": "tiny-moe", "layers": 4,
        "hidden": 256, "heads": 8, "kvHeads": 2, "ffnHidden": 512, "vocab": 1000,
        "experts": 4, "topK": 2})"),
                                         "llm.json")
                            .jobs.at(0);
    const TransformerConfig& m = ModelCatalog::Transformer(moe);
    EXPECT_EQ(moe.model, "tiny-moe");
    EXPECT_EQ(m.kvHeads, 2u);
    EXPECT_EQ(m.experts, 4u);
    EXPECT_EQ(m.topK, 2u);
    // Attention: Q and O h x h, K and V h x (h / heads x kvHeads).
    EXPECT_EQ(m.AttentionParameters(), 2u * 256 * 256 + 2u * 256 * 64);
}

TEST(LlmJobFields, BadDimensionsNameTheirLineAndField)
{
    struct Case
    {
        std::string model;
        std::string field;
        std::string part;
    };

    for (const Case& c : std::vector<Case>{
             {R"({"hidden": 64, "heads": 8, "ffnHidden": 256, "vocab": 100})",
              "jobs[0].model.layers",
              "needs it"},
             {R"({"layers": 2, "hidden": 60, "heads": 8, "ffnHidden": 256, "vocab": 100})",
              "jobs[0].model.heads",
              "must divide hidden"},
             {R"({"layers": 2, "hidden": 64, "heads": 8, "kvHeads": 3, "ffnHidden": 256,
                 "vocab": 100})",
              "jobs[0].model.kvHeads",
              "must divide heads"},
             {R"({"layers": 2, "hidden": 64, "heads": 8, "ffnHidden": 256, "vocab": 100,
                 "experts": 4, "topK": 5})",
              "jobs[0].model.topK",
              "at most experts"},
             {R"({"layers": 2, "hidden": 64, "heads": 8, "ffnHidden": 256, "vocab": 100,
                 "experts": 4})",
              "jobs[0].model.experts",
              "needs topK"},
             {R"({"layers": 2, "hidden": 64, "heads": 8, "ffnHidden": 256, "vocab": 100,
                 "depth": 3})",
              "jobs[0].model.depth",
              "unknown key"},
             {R"({"layers": 0, "hidden": 64, "heads": 8, "ffnHidden": 256, "vocab": 100})",
              "jobs[0].model.layers",
              "at least 1"},
         })
    {
        const std::string error = ErrorOf(OneJob("\"model\": " + c.model));
        EXPECT_EQ(error.rfind("llm.json:", 0), 0u) << error;
        EXPECT_NE(error.find(": " + c.field + ": "), std::string::npos) << error;
        EXPECT_NE(error.find(c.part), std::string::npos) << error;
    }
}

TEST(LlmJobFields, GradientTypeRecomputationAndEfficiencyAreReadAndChecked)
{
    const JobSpec j = ReadScenarioText(OneJob(R"("model": "llama-7b", "gradientDtype": "bf16",
        "recompute": "selective")"),
                                       "llm.json")
                          .jobs.at(0);
    EXPECT_EQ(j.gradientDtype, "bf16");
    EXPECT_EQ(j.recompute, "selective");
    EXPECT_NO_THROW(ModelCatalog::Validate(j));

    // The old name of computeEfficiency is an error saying what it became.
    const std::string mfu = ErrorOf(OneJob(R"("model": "llama-7b", "mfu": 0.4)"));
    EXPECT_NE(mfu.find("llm.json:3: jobs[0].mfu: renamed \"computeEfficiency\""), std::string::npos)
        << mfu;

    // Values the model checks, each naming its field.
    auto rejected = [](JobSpec s, const std::string& field) {
        try
        {
            ModelCatalog::Validate(s);
            ADD_FAILURE() << field << " accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_EQ(std::string(e.what()).rfind("job 0: " + field + ": ", 0), 0u) << e.what();
        }
    };
    JobSpec bad = j;
    bad.recompute = "some";
    rejected(bad, "recompute");
    bad = j;
    bad.gradientDtype = "fp8";
    rejected(bad, "gradientDtype");
    bad = j;
    bad.computeEfficiency = 0.5; // an LLM's compute is timed kernel by kernel
    rejected(bad, "computeEfficiency");
    bad = j;
    bad.gpu = "v100";
    rejected(bad, "gpu");
}

} // namespace
} // namespace test
} // namespace ns3
