/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRANSFORMER_CATALOG_H
#define TRANSFORMER_CATALOG_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The shape of a decoder-only transformer, as its paper or model card
 * publishes it: what the LLM job generator needs to size each layer's
 * compute, activations and parameters.
 */
struct TransformerConfig
{
    std::string name;          ///< catalog name, lower case, e.g. "llama-7b"
    uint32_t layers{0};        ///< transformer blocks
    uint32_t hidden{0};        ///< model width h
    uint32_t ffn{0};           ///< feed-forward width (per expert for a mixture of experts)
    uint32_t heads{0};         ///< attention heads
    uint32_t kvHeads{0};       ///< key/value heads (< heads: grouped-query attention)
    uint32_t vocab{0};         ///< vocabulary
    bool gatedMlp{false};      ///< SwiGLU (three FFN matrices) rather than GELU (two)
    bool tiedEmbedding{false}; ///< the output layer shares the input embedding
    uint32_t experts{0};       ///< experts per MoE layer; 0 for a dense model
    uint32_t topK{0};          ///< experts each token is routed to
    std::string source;        ///< where the numbers come from

    /// Parameters of one attention block: Q and O (h x h each), K and V (h x kv width each).
    uint64_t AttentionParameters() const;
    /// Parameters of one expert's (or the dense) feed-forward block.
    uint64_t MlpParameters() const;
    /// Parameters of one transformer block: attention, every expert, router, norms.
    uint64_t LayerParameters() const;
    /// Input embedding, plus the output layer unless tied.
    uint64_t EmbeddingParameters() const;
    /// Every parameter of the model.
    uint64_t Parameters() const;
    /**
     * Forward FLOPs of one block for one token of a sequence of \p seq:
     * 2 x the parameters a token uses (attention, top-k experts, router)
     * plus 4 x seq x h for the attention scores and their weighted sum.
     */
    double LayerForwardFlopsPerToken(uint32_t seq) const;
    /// Forward FLOPs of the output layer (logits) per token: 2 x vocab x h.
    double LogitsForwardFlopsPerToken() const;

    bool IsMoe() const
    {
        return experts > 0;
    }
};

/**
 * \ingroup collective-scheduling
 * \brief The transformers LLM jobs may train: the GPT-3 family (GPT-3
 * paper, table 2.1), LLaMA 7B/13B and Llama 2 70B (their papers and model
 * cards) and Mixtral 8x7B (its model card). A fixed table.
 */
class TransformerCatalog
{
  public:
    /// \throw std::invalid_argument naming \p name and listing the known names
    static const TransformerConfig& Get(const std::string& name);
    /// Whether \p name is in the catalog.
    static bool Has(const std::string& name);
    /// Every name, in catalog order.
    static std::vector<std::string> Names();
};

} // namespace ns3

#endif /* TRANSFORMER_CATALOG_H */
