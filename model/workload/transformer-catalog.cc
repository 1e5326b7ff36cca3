/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "transformer-catalog.h"

#include <stdexcept>

namespace ns3
{

namespace
{

const std::vector<TransformerConfig>&
Table()
{
    // name, layers, hidden, ffn, heads, kvHeads, vocab, gated, tied, experts, topK, source
    static const std::vector<TransformerConfig> table = {
        {"gpt3-6.7b",
         32,
         4096,
         16384,
         32,
         32,
         50257,
         false,
         true,
         0,
         0,
         "Brown et al. 2020, table 2.1 (d_ff = 4 d_model)"},
        // The table gives d_model 5140 with 40 heads of 128; 5120 = 40 x 128,
        // as Megatron-LM and every reproduction use.
        {"gpt3-13b",
         40,
         5120,
         20480,
         40,
         40,
         50257,
         false,
         true,
         0,
         0,
         "Brown et al. 2020, table 2.1 (d_model 5120 = 40 x 128)"},
        {"gpt3-175b",
         96,
         12288,
         49152,
         96,
         96,
         50257,
         false,
         true,
         0,
         0,
         "Brown et al. 2020, table 2.1"},
        {"llama-7b",
         32,
         4096,
         11008,
         32,
         32,
         32000,
         true,
         false,
         0,
         0,
         "Touvron et al. 2023 (LLaMA), table 2; model card"},
        {"llama-13b",
         40,
         5120,
         13824,
         40,
         40,
         32000,
         true,
         false,
         0,
         0,
         "Touvron et al. 2023 (LLaMA), table 2; model card"},
        {"llama2-70b",
         80,
         8192,
         28672,
         64,
         8,
         32000,
         true,
         false,
         0,
         0,
         "Touvron et al. 2023 (Llama 2); model card (grouped-query attention, 8 KV heads)"},
        {"mixtral-8x7b",
         32,
         4096,
         14336,
         32,
         8,
         32000,
         true,
         false,
         8,
         2,
         "Jiang et al. 2024 (Mixtral of Experts); model card"},
    };
    return table;
}

} // namespace

uint64_t
TransformerConfig::AttentionParameters() const
{
    const uint64_t h = hidden;
    const uint64_t kvWidth = h / heads * kvHeads;
    return 2 * h * h + 2 * h * kvWidth;
}

uint64_t
TransformerConfig::MlpParameters() const
{
    return (gatedMlp ? 3ULL : 2ULL) * hidden * ffn;
}

uint64_t
TransformerConfig::LayerParameters() const
{
    const uint64_t mlps = IsMoe() ? experts : 1;
    const uint64_t router = IsMoe() ? static_cast<uint64_t>(hidden) * experts : 0;
    return AttentionParameters() + mlps * MlpParameters() + router + 2ULL * hidden;
}

uint64_t
TransformerConfig::EmbeddingParameters() const
{
    const uint64_t table = static_cast<uint64_t>(vocab) * hidden;
    return tiedEmbedding ? table : 2 * table;
}

uint64_t
TransformerConfig::Parameters() const
{
    return static_cast<uint64_t>(layers) * LayerParameters() + EmbeddingParameters() + hidden;
}

double
TransformerConfig::LayerForwardFlopsPerToken(uint32_t seq) const
{
    const double active = static_cast<double>(AttentionParameters()) +
                          static_cast<double>(IsMoe() ? topK : 1) * MlpParameters() +
                          (IsMoe() ? static_cast<double>(hidden) * experts : 0.0);
    return 2.0 * active + 4.0 * seq * static_cast<double>(hidden);
}

double
TransformerConfig::LogitsForwardFlopsPerToken() const
{
    return 2.0 * vocab * static_cast<double>(hidden);
}

const TransformerConfig&
TransformerCatalog::Get(const std::string& name)
{
    for (const TransformerConfig& c : Table())
    {
        if (c.name == name)
        {
            return c;
        }
    }
    std::string known;
    for (const std::string& n : Names())
    {
        known += (known.empty() ? "" : ", ") + n;
    }
    throw std::invalid_argument("unknown transformer '" + name + "' (known: " + known + ")");
}

bool
TransformerCatalog::Has(const std::string& name)
{
    for (const TransformerConfig& c : Table())
    {
        if (c.name == name)
        {
            return true;
        }
    }
    return false;
}

std::vector<std::string>
TransformerCatalog::Names()
{
    std::vector<std::string> names;
    for (const TransformerConfig& c : Table())
    {
        names.push_back(c.name);
    }
    return names;
}

} // namespace ns3
