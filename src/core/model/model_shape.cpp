// Parameters, KV cache and weight bytes from a transformer's shape (docs/methodology.md,
// "Parameters from the shape", "KV cache", "Weight formats").
#include <algorithm>

#include <cmath>

#include "gpuadvise/model/model_shape.hpp"

namespace gpuadvise {

ParamCount count_params(const TransformerShape& s) {
    ParamCount c;
    if (!s.complete()) return c;
    const double H = s.hidden, L = s.layers, V = s.vocab;
    const double nh = s.heads, nkv = std::max(1, s.kv_heads), hd = s.effective_head_dim();
    c.embedding = V * H;
    c.head = s.tied_embeddings ? 0 : V * H;
    // Attention per layer.
    double attn = 0, attn_extra = 0;
    if (s.mla()) {
        // DeepSeek-V2/V3 (modeling_deepseek.py): q through a low-rank q_a/q_b pair (or one q_proj),
        // k/v through the shared latent kv_a (kv_lora_rank + the decoupled rope key) and kv_b,
        // RMSNorms on both latents, o from the heads' value dims.
        const double qk = s.qk_nope_dim + s.qk_rope_dim;
        if (s.q_lora_rank > 0) {
            attn += H * s.q_lora_rank + static_cast<double>(s.q_lora_rank) * nh * qk;
            attn_extra += s.q_lora_rank;
        } else {
            attn += H * nh * qk;
        }
        attn += H * (s.kv_lora_rank + s.qk_rope_dim) +
                static_cast<double>(s.kv_lora_rank) * nh * (s.qk_nope_dim + s.v_head_dim);
        attn_extra += s.kv_lora_rank;
        attn += nh * s.v_head_dim * H;
    } else {
        attn = H * nh * hd + 2 * H * nkv * hd + nh * hd * H;
        if (s.qkv_bias) attn_extra += nh * hd + 2 * nkv * hd;
        if (s.o_bias) attn_extra += H;
        if (s.qk_norm) attn_extra += 2 * hd;
    }
    if (s.attention_sinks) attn_extra += nh;
    c.attention = attn * L;
    c.attention_extra = attn_extra * L;
    // MLP: gated (gate, up, down: 3 x hidden x width) in every config this reads.
    const double moe_layers = s.moe_layers();
    const double dense_layers = L - moe_layers;
    c.dense_mlp = dense_layers * 3 * H * s.ffn;
    if (s.moe()) {
        const double width = s.moe_ffn > 0 ? s.moe_ffn : s.ffn;
        double expert = 3 * H * width;
        if (s.expert_bias) expert += 2 * width + H;  // gate_up bias (2 x width) + down bias
        c.experts = moe_layers * s.experts * expert;
        c.experts_active = moe_layers * std::min(s.experts, std::max(1, s.active_experts)) * expert;
        const double shared_width = s.shared_ffn > 0 ? s.shared_ffn : width;
        c.shared = moe_layers * (s.shared_experts * 3 * H * shared_width + (s.shared_expert_gate ? H : 0));
        double router = H * s.experts;
        if (s.expert_bias || s.router_score_bias) router += s.experts;
        c.router = moe_layers * router;
    }
    c.norms = L * s.norms_per_layer * H + H;
    return c;
}

double kv_cache_elements(const TransformerShape& s, double tokens) {
    if (s.layers <= 0 || s.heads <= 0 || tokens <= 0) return 0;
    const double per_layer_token = s.mla() ? static_cast<double>(s.kv_lora_rank) + s.qk_rope_dim
                                           : 2.0 * std::max(1, s.kv_heads) * s.effective_head_dim();
    const int sliding = s.sliding_window > 0 ? std::clamp(s.sliding_layers, 0, s.layers) : 0;
    const double windowed = std::min<double>(tokens, s.sliding_window);
    return per_layer_token * ((s.layers - sliding) * tokens + sliding * windowed);
}

double bytes_per_param(WeightFormat f) {
    switch (f) {
        case WeightFormat::bf16:
        case WeightFormat::fp16: return 2;
        // E4M3 with one fp32 scale per 128 x 128 block (DeepSeek-V3 weight_block_size).
        case WeightFormat::fp8: return 1 + 4.0 / (128 * 128);
        // W8A16/W8A8 with one fp16 scale per output channel (per hidden-size row): ~1 B.
        case WeightFormat::int8: return 1 + 2.0 / 4096;
        // AWQ/GPTQ: 4-bit weights, groups of 128 with an fp16 scale and a 4-bit zero point.
        case WeightFormat::int4: return 0.5 + (2 + 0.5) / 128;
        // NF4 + double-quantised constants: 0.127 bit/param (QLoRA paper §3).
        case WeightFormat::nf4: return 0.5 + 0.127 / 8;
        // OCP MX: blocks of 32 FP4 (E2M1) values sharing one E8M0 scale byte.
        case WeightFormat::mxfp4: return 0.5 + 1.0 / 32;
        // NVFP4: blocks of 16 E2M1 values with one FP8 (E4M3) scale (+ one fp32 per tensor).
        case WeightFormat::nvfp4: return 0.5 + 1.0 / 16;
    }
    return 2;
}

bool is_16bit(WeightFormat f) { return f == WeightFormat::bf16 || f == WeightFormat::fp16; }

}  // namespace gpuadvise
