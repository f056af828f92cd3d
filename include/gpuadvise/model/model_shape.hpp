// Parameters, KV cache and weight bytes from a transformer's shape (catalog/models.hpp holds the
// shape; the formulas are here, in the model room). docs/methodology.md, "Parameters from the shape",
// "KV cache", "Weight formats".
#pragma once

#include "gpuadvise/catalog/models.hpp"

namespace gpuadvise {

// Parameter counts of a complete shape (count_params), by where the weights sit. Formulas in
// docs/methodology.md ("Parameters from the shape"); they reproduce the published counts of the 24
// configs in data/model-configs/ (PROVENANCE.md) within 2 %.
struct ParamCount {
    double embedding = 0;        // input token embedding (vocab x hidden)
    double head = 0;             // output layer (0 when tied to the embedding)
    double attention = 0;        // q/k/v/o (or MLA) projection matrices, all layers
    double attention_extra = 0;  // their biases, q/k norms, latent norms, sinks
    double dense_mlp = 0;        // dense MLP matrices (every layer of a dense model, dense layers of an MoE)
    double experts = 0;          // routed expert matrices (and biases), all experts of all MoE layers
    double experts_active = 0;   // the same for the active_experts a token is routed to
    double shared = 0;           // shared experts and their gate
    double router = 0;           // router weights and biases
    double norms = 0;            // per-layer and final norms
    double total() const {
        return embedding + head + attention + attention_extra + dense_mlp + experts + shared + router + norms;
    }
    // Per token, counting both embeddings (the convention of most model cards: Mixtral, Qwen3,
    // DeepSeek-V3 "37B activated incl. 0.9B embedding + 0.9B head").
    double active() const { return total() - experts + experts_active; }
    // What a token multiplies by: active() without the input embedding, a lookup (gpt-oss's
    // "5.1B active" counts this way). Forward FLOPs per token = 2 x this.
    double active_compute() const { return active() - embedding; }
    double non_embedding() const { return total() - embedding - head; }
    // Matrices a weight format quantises: the blocks' linear layers (attention, MLP, experts);
    // embeddings, output layer, router, norms and biases stay 16-bit.
    double quantisable() const { return attention + dense_mlp + experts + shared; }
};

// Parameters of a complete shape (shape.complete()); zeros otherwise.
ParamCount count_params(const TransformerShape& s);

// Elements of the KV cache one sequence of `tokens` tokens keeps, over all layers: 2 x kv_heads x
// head_dim per layer and token (MLA: kv_lora_rank + qk_rope_dim, the latent cache serving engines
// keep), sliding-window layers holding at most their window.
double kv_cache_elements(const TransformerShape& s, double tokens);

// Bytes per quantised parameter including its group scales (docs/methodology.md, "Weight formats").
double bytes_per_param(WeightFormat f);
bool is_16bit(WeightFormat f);

}  // namespace gpuadvise
