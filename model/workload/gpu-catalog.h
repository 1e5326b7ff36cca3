/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef GPU_CATALOG_H
#define GPU_CATALOG_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One GPU generation: its datasheet peaks and the fraction of them
 * each kind of kernel reaches, from which an LLM job's compute ops are timed
 * kernel by kernel (doc/design-notes.md, "GPU compute, kernel by kernel").
 *
 * A matrix multiplication runs at peak x gemmEfficiency, the attention
 * core (scores and their weighted sum, a fused FlashAttention kernel) at
 * peak x attentionEfficiency, and element-wise work (norms, activations,
 * bias-dropout-add, the loss) is bound by memory: its bytes at
 * memoryBandwidth x elementwiseEfficiency.
 */
struct GpuSpec
{
    std::string name;                ///< catalog name, lower case, e.g. "h100"
    double peak16{0};                ///< dense fp16/bf16 tensor-core FLOP/s (no sparsity)
    double peak32{0};                ///< plain fp32 FLOP/s (not TF32)
    double memoryBandwidth{0};       ///< HBM bytes/s
    double gemmEfficiency{0};        ///< of the peak, large GEMMs
    double attentionEfficiency{0};   ///< of the peak, fused attention forward and backward
    double elementwiseEfficiency{0}; ///< of the memory bandwidth, element-wise kernels
    std::string source;              ///< where the numbers come from

    /// Peak FLOP/s for elements of \p elementBytes: 2 -> peak16, 4 -> peak32.
    double Peak(uint32_t elementBytes) const;
    /// Seconds of matrix multiplications of \p flops with elements of \p elementBytes.
    double GemmSeconds(double flops, uint32_t elementBytes) const;
    /// Seconds of the attention core's \p flops with elements of \p elementBytes.
    double AttentionSeconds(double flops, uint32_t elementBytes) const;
    /// Seconds of element-wise kernels moving \p bytes to and from memory.
    double ElementwiseSeconds(double bytes) const;
};

/**
 * \ingroup collective-scheduling
 * \brief The GPUs jobs run on: A100 (40 and 80 GB), H100 SXM, H200 and
 * B200. A fixed table; "a100" is the 80 GB part.
 */
class GpuCatalog
{
  public:
    /// \throw std::invalid_argument naming \p name and listing the known names
    static const GpuSpec& Get(const std::string& name);
    /// Every name, in catalog order.
    static std::vector<std::string> Names();
};

} // namespace ns3

#endif /* GPU_CATALOG_H */
