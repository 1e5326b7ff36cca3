/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "gpu-catalog.h"

#include <stdexcept>

namespace ns3
{

namespace
{

const std::string kA100 = "a100-80gb";

const std::vector<GpuSpec>&
Table()
{
    // Peaks: NVIDIA's datasheets, dense (half the sparsity figures), SXM
    // parts. Kernel fractions (doc/design-notes.md, "GPU compute, kernel by
    // kernel"):
    // - A100: GEMM 0.68 and element-wise 0.70 of the HBM bandwidth, the one
    //   set with which Table 1 of Narayanan et al. (SC'21) is reproduced
    //   within 4% on its rows of 1.7B to 145.6B parameters
    //   (benchmarks/megatron-table1.py); attention 0.60, FlashAttention-2's
    //   forward and backward on A100 (50-73% of the peak, Dao 2023, 4.1);
    // - Hopper and Blackwell: GEMM 0.70, attention 0.55 (FlashAttention-3 and
    //   cuDNN's fused attention, Shah et al. 2024), element-wise 0.70; not
    //   yet checked against a published end-to-end table.
    // name, peak16, peak32, memory, gemm, attention, element-wise, source
    static const std::vector<GpuSpec> table = {
        {"a100-80gb",
         312e12,
         19.5e12,
         2.039e12,
         0.68,
         0.60,
         0.70,
         "A100 80 GB SXM datasheet (2021): 312 TFLOP/s bf16 dense, 2,039 GB/s HBM2e"},
        {"a100-40gb",
         312e12,
         19.5e12,
         1.555e12,
         0.68,
         0.60,
         0.70,
         "A100 40 GB SXM datasheet (2021): 312 TFLOP/s bf16 dense, 1,555 GB/s HBM2"},
        {"h100",
         989e12,
         67e12,
         3.35e12,
         0.70,
         0.55,
         0.70,
         "H100 SXM5 datasheet (2023): 989 TFLOP/s bf16 dense, 3.35 TB/s HBM3"},
        {"h200",
         989e12,
         67e12,
         4.8e12,
         0.70,
         0.55,
         0.70,
         "H200 SXM datasheet (2024): H100's compute, 4.8 TB/s HBM3e"},
        {"b200",
         2.25e15,
         75e12,
         8.0e12,
         0.70,
         0.55,
         0.70,
         "HGX B200 datasheet (2024): 2.25 PFLOP/s bf16 dense, 8 TB/s HBM3e"},
    };
    return table;
}

} // namespace

double
GpuSpec::Peak(uint32_t elementBytes) const
{
    return elementBytes == 2 ? peak16 : peak32;
}

double
GpuSpec::GemmSeconds(double flops, uint32_t elementBytes) const
{
    return flops / (Peak(elementBytes) * gemmEfficiency);
}

double
GpuSpec::AttentionSeconds(double flops, uint32_t elementBytes) const
{
    return flops / (Peak(elementBytes) * attentionEfficiency);
}

double
GpuSpec::ElementwiseSeconds(double bytes) const
{
    return bytes / (memoryBandwidth * elementwiseEfficiency);
}

const GpuSpec&
GpuCatalog::Get(const std::string& name)
{
    // "a100" is the 80 GB part, the one most clusters run.
    const std::string& key = name == "a100" ? kA100 : name;
    for (const GpuSpec& g : Table())
    {
        if (g.name == key)
        {
            return g;
        }
    }
    std::string known;
    for (const std::string& n : Names())
    {
        known += (known.empty() ? "" : ", ") + n;
    }
    throw std::invalid_argument("unknown gpu '" + name + "' (known: " + known + ")");
}

std::vector<std::string>
GpuCatalog::Names()
{
    std::vector<std::string> names{"a100"};
    for (const GpuSpec& g : Table())
    {
        names.push_back(g.name);
    }
    return names;
}

} // namespace ns3
