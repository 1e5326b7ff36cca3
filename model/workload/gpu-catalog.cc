/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "gpu-catalog.h"

#include <stdexcept>

namespace ns3
{

namespace
{

const std::vector<GpuSpec>&
Table()
{
    // Peaks: NVIDIA's datasheets, dense (half the sparsity figures), SXM
    // parts. Kernel fractions (doc/design-notes.md, "GPU compute, kernel by
    // kernel", gives the reasoning for each):
    // - GEMM: large bf16 GEMMs reach about 80% of the peak on A100 and 70%
    //   on Hopper and Blackwell, whose peaks the clocks under load do not hold;
    // - attention: FlashAttention-2 runs forward and backward at 50-73% of
    //   A100's peak (Dao 2023, section 4.1); FlashAttention-3 and cuDNN's fused
    //   attention at 55-75% of H100's (Shah et al. 2024, section 4.1);
    // - element-wise kernels stream at about 80% of the HBM bandwidth.
    // name, peak16, peak32, memory, gemm, attention, element-wise, source
    static const std::vector<GpuSpec> table = {
        {"a100",
         312e12,
         19.5e12,
         2.039e12,
         0.80,
         0.60,
         0.80,
         "A100 80 GB SXM datasheet (2021): 312 TFLOP/s bf16 dense, 2,039 GB/s HBM2e"},
        {"a100-80gb",
         312e12,
         19.5e12,
         2.039e12,
         0.80,
         0.60,
         0.80,
         "A100 80 GB SXM datasheet (2021): 312 TFLOP/s bf16 dense, 2,039 GB/s HBM2e"},
        {"a100-40gb",
         312e12,
         19.5e12,
         1.555e12,
         0.80,
         0.60,
         0.80,
         "A100 40 GB SXM datasheet (2021): 312 TFLOP/s bf16 dense, 1,555 GB/s HBM2"},
        {"h100",
         989e12,
         67e12,
         3.35e12,
         0.70,
         0.55,
         0.80,
         "H100 SXM5 datasheet (2023): 989 TFLOP/s bf16 dense, 3.35 TB/s HBM3"},
        {"h200",
         989e12,
         67e12,
         4.8e12,
         0.70,
         0.55,
         0.80,
         "H200 SXM datasheet (2024): H100's compute, 4.8 TB/s HBM3e"},
        {"b200",
         2.25e15,
         75e12,
         8.0e12,
         0.70,
         0.55,
         0.80,
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
    for (const GpuSpec& g : Table())
    {
        if (g.name == name)
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
    std::vector<std::string> names;
    for (const GpuSpec& g : Table())
    {
        names.push_back(g.name);
    }
    return names;
}

} // namespace ns3
