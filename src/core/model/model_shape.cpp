// Parameters, KV cache and weight bytes from a transformer's shape (docs/methodology.md,
// "Parameters from the shape", "KV cache", "Weight formats").
#include <algorithm>

#include <cmath>

#include "gpuadvise/model/physics.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {

int TransformerShape::effective_head_dim() const {
    if (head_dim > 0) return head_dim;
    return heads > 0 ? hidden / heads : 0;
}

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

ParamCount Workload::param_count() const {
    ParamCount c = count_params(shape);
    const double total = c.total();
    if (total <= 0 || params <= 0 || std::fabs(params / total - 1) < 1e-12) return c;
    const double k = params / total;  // --params override: every part scales alike
    for (double* part : {&c.embedding, &c.head, &c.attention, &c.attention_extra, &c.dense_mlp, &c.experts,
                         &c.experts_active, &c.shared, &c.router, &c.norms})
        *part *= k;
    return c;
}

double Workload::params_per_token() const {
    const ParamCount c = param_count();
    return c.total() > 0 ? c.active_compute() : params;
}

double Workload::params_active() const {
    const ParamCount c = param_count();
    return c.total() > 0 ? c.active() : params;
}

namespace {

// Parameters a weight format applies to and the routed experts among them.
struct QuantSplit {
    double quantised = 0, experts = 0;
};

QuantSplit quant_split(const Workload& w) {
    const ParamCount c = w.param_count();
    if (c.total() <= 0) return {w.params - w.embedding_params(), 0};  // embeddings and head kept 16-bit
    if (w.weights_scope == QuantScope::experts) return {c.experts, c.experts};
    return {c.quantisable(), c.experts};
}

}  // namespace

double Workload::weight_bytes_as(WeightFormat f) const {
    if (is_16bit(f)) return params * 2.0;
    const QuantSplit q = quant_split(*this);
    return q.quantised * bytes_per_param(f) + (params - q.quantised) * 2.0;
}

double Workload::weight_bytes(Precision p) const {
    if (weights) return weight_bytes_as(*weights);
    return params * gpuadvise::weight_bytes(p);
}

double Workload::expert_weight_bytes(Precision p) const {
    const QuantSplit q = quant_split(*this);
    if (q.experts <= 0) return 0;
    const double per =
        weights ? (is_16bit(*weights) ? 2.0 : bytes_per_param(*weights)) : gpuadvise::weight_bytes(p);
    return q.experts * per;
}

double Workload::decode_weight_bytes(Precision p, double sequences) const {
    const double all = weight_bytes(p);
    const double experts = expert_weight_bytes(p);
    if (experts <= 0 || shape.experts <= 0) return all;
    const double e = shape.experts, k = std::max(1, shape.active_experts);
    const double touched = 1 - std::pow(1 - k / e, std::max(1.0, sequences));
    return all - experts + experts * touched;
}

double Workload::kv_element_bytes(Precision p) const {
    if (kv_cache) return gpuadvise::weight_bytes(*kv_cache);
    return (p == Precision::fp32 || p == Precision::tf32) ? 4 : 2;  // fp8 compute keeps a 16-bit cache
}

double Workload::kv_bytes(Precision p, double tokens) const {
    return kv_cache_elements(shape, tokens) * kv_element_bytes(p);
}

double Workload::kv_shards(int tensor, int pipeline) const {
    const int t = std::max(1, tensor), pp = std::max(1, pipeline);
    if (shape.mla()) return pp;
    return static_cast<double>(pp) * std::min(t, std::max(1, shape.kv_heads));
}

}  // namespace gpuadvise
