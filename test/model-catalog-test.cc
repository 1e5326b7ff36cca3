/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Model catalog: names, parameter counts, gradient sizes, GPU peaks, the
// compute cost model and JobSpec validation. Expected values are written
// out by hand from the published model sizes and GPU datasheets.

#include "ns3/model-catalog.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Runs \p fn and returns the message of the std::invalid_argument it throws.
template <typename Fn>
std::string
InvalidArgumentOf(Fn fn)
{
    try
    {
        fn();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    ADD_FAILURE() << "expected std::invalid_argument";
    return "";
}

/// Expects Validate to reject \p spec with a message that names \p field.
void
ExpectRejected(const JobSpec& spec, const std::string& field)
{
    std::string msg = InvalidArgumentOf([&] { ModelCatalog::Validate(spec); });
    EXPECT_NE(msg.find(field), std::string::npos) << "message '" << msg << "' lacks " << field;
    EXPECT_NE(msg.find("job " + std::to_string(spec.id)), std::string::npos) << msg;
}

} // namespace

TEST(ModelCatalog, NamesAndNominalParameterCounts)
{
    const std::map<std::string, double> expected{
        {"gpt2-124m", 124e6},
        {"gpt2-355m", 355e6},
        {"gpt2-774m", 774e6},
        {"gpt2-1.5b", 1.5e9},
        {"pythia-70m", 70e6},
        {"pythia-160m", 160e6},
        {"pythia-410m", 410e6},
        {"pythia-1b", 1e9},
        {"pythia-1.4b", 1.4e9},
        {"pythia-2.8b", 2.8e9},
        {"pythia-6.9b", 6.9e9},
        {"pythia-12b", 12e9},
        {"bert-large", 340e6},
        {"resnet-50", 25.6e6},
        {"vgg-16", 138e6},
    };
    std::vector<std::string> names = ModelCatalog::Names();
    EXPECT_EQ(names.size(), expected.size());
    for (const auto& [name, params] : expected)
    {
        const ModelProfile& m = ModelCatalog::Get(name);
        EXPECT_EQ(m.name, name);
        EXPECT_EQ(m.parameters, static_cast<uint64_t>(params)) << name;
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    }
    EXPECT_EQ(ModelCatalog::Get("pythia-6.9b").family, "pythia");
    EXPECT_EQ(ModelCatalog::Get("gpt2-1.5b").family, "gpt2");
}

TEST(ModelCatalog, UnknownModelNamesItAndTheKnownOnes)
{
    std::string msg = InvalidArgumentOf([] { ModelCatalog::Get("gpt3-175b"); });
    EXPECT_NE(msg.find("gpt3-175b"), std::string::npos) << msg;
    EXPECT_NE(msg.find("pythia-12b"), std::string::npos) << msg;
    // Names are exact: no case folding.
    EXPECT_THROW(ModelCatalog::Get("GPT2-124M"), std::invalid_argument);
}

TEST(ModelCatalog, BytesPerElementAndGradientBytes)
{
    EXPECT_EQ(ModelCatalog::BytesPerElement("fp16"), 2u);
    EXPECT_EQ(ModelCatalog::BytesPerElement("bf16"), 2u);
    EXPECT_EQ(ModelCatalog::BytesPerElement("fp32"), 4u);
    std::string msg = InvalidArgumentOf([] { ModelCatalog::BytesPerElement("int8"); });
    EXPECT_NE(msg.find("int8"), std::string::npos) << msg;

    const ModelProfile& gpt2 = ModelCatalog::Get("gpt2-124m");
    EXPECT_EQ(ModelCatalog::GradientBytes(gpt2, "bf16"), 248000000ULL);
    EXPECT_EQ(ModelCatalog::GradientBytes(gpt2, "fp32"), 496000000ULL);
    EXPECT_EQ(ModelCatalog::GradientBytes(ModelCatalog::Get("pythia-12b"), "fp16"), 24000000000ULL);
}

TEST(ModelCatalog, GradientBytesOfJobAppliesScale)
{
    JobSpec spec;
    spec.model = "gpt2-124m";
    spec.dtype = "bf16";
    EXPECT_EQ(ModelCatalog::GradientBytes(spec), 248000000ULL);
    spec.scale = 0.001;
    EXPECT_EQ(ModelCatalog::GradientBytes(spec), 248000ULL);
    spec.scale = 1e-12; // rounds to 0, kept at one byte
    EXPECT_EQ(ModelCatalog::GradientBytes(spec), 1ULL);
    spec.scale = 1.0;
    spec.model = "vgg-16";
    spec.dtype = "fp32";
    EXPECT_EQ(ModelCatalog::GradientBytes(spec), 552000000ULL);
    spec.model = "nope-1b";
    std::string msg = InvalidArgumentOf([&] { ModelCatalog::GradientBytes(spec); });
    EXPECT_NE(msg.find("nope-1b"), std::string::npos) << msg;
}

TEST(ModelCatalog, PeakFlops)
{
    EXPECT_DOUBLE_EQ(ModelCatalog::PeakFlops("a100", "bf16"), 312e12);
    EXPECT_DOUBLE_EQ(ModelCatalog::PeakFlops("a100", "fp16"), 312e12);
    EXPECT_DOUBLE_EQ(ModelCatalog::PeakFlops("h100", "bf16"), 989e12);
    EXPECT_DOUBLE_EQ(ModelCatalog::PeakFlops("a100", "fp32"), 19.5e12);
    EXPECT_DOUBLE_EQ(ModelCatalog::PeakFlops("h100", "fp32"), 67e12);
    std::string msg = InvalidArgumentOf([] { ModelCatalog::PeakFlops("v100", "bf16"); });
    EXPECT_NE(msg.find("v100"), std::string::npos) << msg;
}

TEST(ModelCatalog, ComputeTimeOfLanguageModel)
{
    JobSpec spec;
    spec.model = "gpt2-124m";
    spec.gpu = "a100";
    spec.dtype = "bf16";
    spec.computeEfficiency = 0.4;
    spec.batchPerGpu = 8;
    spec.sequenceLength = 1024;
    // 6 x 124e6 x 8192 / (312e12 x 0.4) s = 48.8375 ms
    double expectedNs = 6.0 * 124e6 * 8192 / (312e12 * 0.4) * 1e9;
    EXPECT_NEAR(static_cast<double>(ModelCatalog::ComputeTimeNs(spec)), expectedNs, 1.0);
    EXPECT_NEAR(expectedNs, 48.8375e6, 0.01e6); // the arithmetic above, checked once more
    EXPECT_EQ(ModelCatalog::ComputeTime(spec), NanoSeconds(ModelCatalog::ComputeTimeNs(spec)));

    spec.scale = 0.25;
    EXPECT_NEAR(static_cast<double>(ModelCatalog::ComputeTimeNs(spec)), expectedNs * 0.25, 1.0);

    // H100, fp32, another model and batch.
    spec.scale = 1.0;
    spec.model = "pythia-1b";
    spec.gpu = "h100";
    spec.dtype = "fp32";
    spec.computeEfficiency = 0.5;
    spec.batchPerGpu = 2;
    spec.sequenceLength = 2048;
    double h100Ns = 6.0 * 1e9 * 4096 / (67e12 * 0.5) * 1e9;
    EXPECT_NEAR(static_cast<double>(ModelCatalog::ComputeTimeNs(spec)), h100Ns, 1.0);
}

TEST(ModelCatalog, ComputeTimeOfVisionModelCountsImages)
{
    JobSpec spec;
    spec.model = "resnet-50";
    spec.gpu = "h100";
    spec.dtype = "bf16";
    spec.computeEfficiency = 0.5;
    spec.batchPerGpu = 32;
    spec.sequenceLength = 1024;
    double expectedNs = 12.3e9 * 32 / (989e12 * 0.5) * 1e9;
    EXPECT_NEAR(static_cast<double>(ModelCatalog::ComputeTimeNs(spec)), expectedNs, 1.0);
    spec.sequenceLength = 7; // ignored for images
    EXPECT_NEAR(static_cast<double>(ModelCatalog::ComputeTimeNs(spec)), expectedNs, 1.0);

    spec.model = "vgg-16";
    spec.gpu = "a100";
    spec.computeEfficiency = 0.3;
    spec.batchPerGpu = 16;
    EXPECT_NEAR(static_cast<double>(ModelCatalog::ComputeTimeNs(spec)),
                46.5e9 * 16 / (312e12 * 0.3) * 1e9,
                1.0);
}

TEST(ModelCatalog, GivenComputeTimeIsScaled)
{
    JobSpec spec;
    spec.computeTimeNs = 5000000;
    spec.model = "pythia-12b"; // irrelevant when the time is given
    EXPECT_EQ(ModelCatalog::ComputeTimeNs(spec), 5000000);
    spec.scale = 2.0;
    EXPECT_EQ(ModelCatalog::ComputeTimeNs(spec), 10000000);
    spec.scale = 0.1;
    EXPECT_EQ(ModelCatalog::ComputeTimeNs(spec), 500000);
    spec.scale = 1e-9; // rounds to 0, kept at one nanosecond
    EXPECT_EQ(ModelCatalog::ComputeTimeNs(spec), 1);
}

TEST(ModelCatalog, ComputeTimeRejectsUnknownNames)
{
    JobSpec spec;
    spec.gpu = "tpu-v5";
    std::string msg = InvalidArgumentOf([&] { ModelCatalog::ComputeTimeNs(spec); });
    EXPECT_NE(msg.find("tpu-v5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("gpu"), std::string::npos) << msg;
    spec.gpu = "a100";
    spec.model = "llama-7b";
    msg = InvalidArgumentOf([&] { ModelCatalog::ComputeTimeNs(spec); });
    EXPECT_NE(msg.find("llama-7b"), std::string::npos) << msg;
}

TEST(ModelCatalog, ValidateAcceptsTheDefaultsAndEveryKnownName)
{
    JobSpec spec;
    EXPECT_NO_THROW(ModelCatalog::Validate(spec));
    for (const char* c : {"ring-all-reduce",
                          "halving-doubling-all-reduce",
                          "reduce-scatter",
                          "all-gather",
                          "all-to-all"})
    {
        spec.collective = c;
        EXPECT_NO_THROW(ModelCatalog::Validate(spec)) << c;
    }
    for (const auto& name : ModelCatalog::Names())
    {
        spec.model = name;
        EXPECT_NO_THROW(ModelCatalog::Validate(spec)) << name;
    }
    spec.placement = "explicit";
    spec.workers = 3;
    spec.gpusPerHost = 2;
    spec.hosts = {5, 5, 1}; // a host may repeat up to gpusPerHost times
    EXPECT_NO_THROW(ModelCatalog::Validate(spec));
}

TEST(ModelCatalog, ValidateNamesTheBadField)
{
    // A valid spec with one change, which must be rejected naming `what`.
    auto reject = [](const std::function<void(JobSpec&)>& change, const std::string& what) {
        JobSpec s;
        s.id = 17;
        change(s);
        ExpectRejected(s, what);
    };
    reject([](JobSpec& s) { s.workers = 0; }, "workers");
    reject([](JobSpec& s) { s.gpusPerHost = 0; }, "gpusPerHost");
    reject([](JobSpec& s) { s.iterations = 0; }, "iterations");
    reject([](JobSpec& s) { s.computeEfficiency = -0.1; }, "computeEfficiency");
    reject([](JobSpec& s) { s.computeEfficiency = 1.5; }, "computeEfficiency");
    reject([](JobSpec& s) { s.computeEfficiency = std::nan(""); }, "computeEfficiency");
    reject([](JobSpec& s) { s.recompute = "full"; }, "recompute");
    reject([](JobSpec& s) { s.gradientDtype = "fp8"; }, "gradientDtype");
    reject([](JobSpec& s) { s.channels = 0; }, "channels");
    reject([](JobSpec& s) { s.buckets = 0; }, "buckets");
    reject([](JobSpec& s) { s.scale = 0; }, "scale");
    reject([](JobSpec& s) { s.scale = -1; }, "scale");
    reject([](JobSpec& s) { s.weight = -2; }, "weight");
    reject([](JobSpec& s) { s.arrivalNs = -1; }, "arrivalNs");
    reject([](JobSpec& s) { s.computeTimeNs = -1; }, "computeTimeNs");
    reject([](JobSpec& s) { s.batchPerGpu = 0; }, "batchPerGpu");
    reject([](JobSpec& s) { s.sequenceLength = 0; }, "sequenceLength");
    reject([](JobSpec& s) { s.model = "gpt-5"; }, "gpt-5");
    reject([](JobSpec& s) { s.dtype = "fp8"; }, "fp8");
    reject([](JobSpec& s) { s.gpu = "v100"; }, "v100");
    reject([](JobSpec& s) { s.placement = "bestfit"; }, "bestfit");
    reject([](JobSpec& s) { s.collective = "ring-allreduce"; }, "ring-allreduce");
    reject([](JobSpec& s) { s.collective = "broadcast"; }, "collective");

    // Given compute time: batch and sequence length are not used.
    JobSpec s;
    s.computeTimeNs = 1000;
    s.batchPerGpu = 0;
    s.sequenceLength = 0;
    EXPECT_NO_THROW(ModelCatalog::Validate(s));
    // Images: sequence length is not used.
    s = JobSpec();
    s.model = "resnet-50";
    s.sequenceLength = 0;
    EXPECT_NO_THROW(ModelCatalog::Validate(s));
}

TEST(ModelCatalog, ValidateExplicitHosts)
{
    JobSpec s;
    s.placement = "explicit";
    s.workers = 4;
    s.gpusPerHost = 2;
    s.hosts = {0, 1, 2}; // one short
    ExpectRejected(s, "hosts");
    s.hosts = {0, 0, 0, 1}; // host 0 three times, limit 2
    ExpectRejected(s, "hosts");
    s.hosts = {0, 0, 1, 1};
    EXPECT_NO_THROW(ModelCatalog::Validate(s));

    // A host list with another policy would be ignored: rejected instead.
    s.placement = "packed";
    ExpectRejected(s, "hosts");
}
