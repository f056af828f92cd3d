// Memory per GPU (gpu-facts §3a): model states by optimizer and precision, sharded by tensor and
// pipeline parallelism and by ZeRO stage over the data ranks; LoRA/QLoRA with 16-bit embeddings;
// activations (Korthikanti et al.) with or without FlashAttention; inference weights + KV cache.
#include <algorithm>

#include "gpuadvise/model/physics.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {
namespace {

constexpr double kGB = 1e9;
constexpr double kCudaContextGB = 1.0;      // "between 300 MiB and 2 GiB" on first use (§3a)
constexpr double kInferenceOverhead = 0.2;  // M ≈ 1.2 × weights + KV [S25][S27]
// Serving a model whose full shape is known: instead of the 20 % rule, the activations of one
// scheduler step of this many tokens (vLLM V1's default max_num_batched_tokens for its API server),
// what a server profiles and reserves before it sizes the KV cache.
constexpr double kServingStepTokens = 8192;

// Activation bytes live at once per token in one layer while serving, per tensor-parallel rank:
// the residual stream in and out, q/k/v, and the MLP's gate and up projections (of an MoE: for
// each of the active experts a token is routed to), 16-bit.
double serving_workspace_bytes_per_token(const TransformerShape& s, int tensor) {
    const double t = std::max(1, tensor);
    const double hd = s.effective_head_dim();
    const double qkv = (s.heads + 2.0 * std::max(1, s.kv_heads)) * hd;
    const double mlp = s.moe() ? 2.0 * std::max(1, s.active_experts) * (s.moe_ffn > 0 ? s.moe_ffn : s.ffn) +
                                     2.0 * s.shared_experts * (s.shared_ffn > 0 ? s.shared_ffn : s.moe_ffn)
                               : 2.0 * s.ffn;
    return (2.0 * s.hidden + (qkv + mlp) / t) * 2.0;
}

bool full_precision(Precision p) { return p == Precision::fp32 || p == Precision::tf32; }

// Bytes per parameter of weights, gradients and optimizer states (§3a table).
struct StateBytes {
    double weights, grads, optimizer;
};

StateBytes state_bytes(Optimizer o, Precision p) {
    if (full_precision(p)) {
        switch (o) {
            case Optimizer::adamw: return {4, 4, 8};     // 16 B/param
            case Optimizer::sgd: return {4, 4, 4};       // momentum: 12
            case Optimizer::adam8bit: return {4, 4, 2};  // 10
        }
    }
    switch (o) {
        case Optimizer::adamw: return {2, 2, 12};    // fp32 master 4 + m 4 + v 4: 16 B/param
        case Optimizer::sgd: return {2, 2, 8};       // master 4 + momentum 4: 12
        case Optimizer::adam8bit: return {2, 2, 6};  // master 4 + 1 + 1: 10
    }
    return {2, 2, 12};
}

// ZeRO-Offload / FSDP CPU offload: the optimizer states (fp32 master and moments) move to host
// RAM; with `params` the parameters and gradients too, the GPU keeping the 16-bit parameters of two
// layers (the one computing and the one prefetched; layer count from the shape, else 1/32).
void apply_offload(const Workload& w, MemoryBreakdown& m) {
    if (w.offload == Offload::none) return;
    m.host_gb += m.optimizer_gb;
    m.optimizer_gb = 0;
    if (w.offload == Offload::params) {
        const double layers = std::max(1, w.shape.layers > 0 ? w.shape.layers : 32);
        const double kept = std::min(m.weights_gb, m.weights_gb * 2 / layers);
        m.host_gb += m.weights_gb - kept + m.gradients_gb;
        m.weights_gb = kept;
        m.gradients_gb = std::min(m.gradients_gb, m.gradients_gb * 2 / layers);
    }
}

}  // namespace

Attention resolve_attention(const Workload& w, const Gpu& gpu) {
    if (w.attention) return *w.attention;
    auto cc = gpu.compute_capability_value();
    return (!cc || *cc + 1e-9 >= 8.0) ? Attention::flash : Attention::eager;
}

MemoryBreakdown layout_memory(const Workload& w, const Gpu& gpu, Precision p, const Parallelism& l,
                              int concurrency) {
    return layout_memory(w, resolve_attention(w, gpu), p, l, concurrency);
}

MemoryBreakdown layout_memory(const Workload& w, Attention att, Precision p, const Parallelism& l,
                              int concurrency) {
    MemoryBreakdown m;
    const double model_parallel = std::max(1, l.tensor) * std::max(1, l.pipeline);
    const double dp = std::max(1, l.data);
    const double psi = w.params / model_parallel;            // parameters held by one model-parallel rank
    const double act_scale = full_precision(p) ? 2.0 : 1.0;  // formulas are for 16-bit activations
    if (!w.is_training()) {
        // Expert parallelism splits the routed experts further over `expert` data ranks.
        const double experts = w.expert_weight_bytes(p);
        m.weights_gb = ((w.weight_bytes(p) - experts) / model_parallel +
                        experts / (model_parallel * std::max(1, l.expert))) /
                       kGB;
        if (w.shape.decoder && w.shape.layers > 0 && w.shape.heads > 0) {
            // [S30]: 2 x layers x KV heads x head_dim per token (MLA: the latent), sliding-window
            // layers at most their window; fp8 compute keeps a 16-bit cache unless --kv-cache fp8.
            const int sequences = concurrency > 0 ? concurrency : w.batch_size;
            m.kv_cache_gb = w.kv_bytes(p, w.seq_len) * sequences / w.kv_shards(l.tensor, l.pipeline) / kGB;
        } else {
            m.activations_gb =
                w.activation_bytes_per_sample(false, att) / 3.0 * act_scale * w.batch_size / kGB;
        }
        if (w.shape.complete() && w.shape.decoder)
            m.overhead_gb = kServingStepTokens * serving_workspace_bytes_per_token(w.shape, l.tensor) / kGB +
                            kCudaContextGB;
        else
            m.overhead_gb = kInferenceOverhead * m.weights_gb + kCudaContextGB;
        return m;
    }
    // Activations of one micro-batch on one stage: the stage's layers; 1F1B keeps up to `pipeline`
    // micro-batches in flight on the first stage, i.e. about all layers' worth of one micro-batch
    // (Korthikanti et al. §4.2.3).
    const double stage_share = std::min<double>(l.pipeline, l.grad_accumulation) / std::max(1, l.pipeline);
    const double acts = w.activation_bytes_per_sample(l.checkpointing, att, l.tensor);
    m.activations_gb = acts * act_scale * l.micro_batch * stage_share / kGB;
    if (w.shape.decoder && w.shape.vocab > 0)  // fp32 logits, vocabulary-parallel over t
        m.activations_gb +=
            static_cast<double>(l.micro_batch) * w.seq_len * w.shape.vocab * 4.0 / l.tensor / kGB;
    m.overhead_gb = kCudaContextGB;
    // Expert parallelism: the routed experts' share of the parameters lives on 1/ep of the data
    // ranks, and ZeRO shards it over the dp/ep ranks that hold the same experts.
    const ParamCount pc = w.param_count();
    const double ep = std::max(1, l.expert);
    const double expert_share = pc.total() > 0 && ep > 1 ? pc.experts / pc.total() : 0.0;
    const double dp_e = std::max(1.0, dp / ep);
    auto spread = [&](double per_rank, bool sharded_by_zero) {
        // per_rank: bytes of a model-parallel rank without EP; ZeRO divisor applied per part.
        const double dense = per_rank * (1 - expert_share), expert = per_rank * expert_share / ep;
        return sharded_by_zero ? dense / dp + expert / dp_e : dense + expert;
    };
    if (w.task == Task::lora || w.task == Task::qlora) {
        // Frozen base: 16-bit, or NF4 for QLoRA with the embeddings and the output layer kept in
        // 16-bit (bitsandbytes quantises only the linear layers of the blocks). FSDP (ZeRO-3)
        // shards the frozen base too (QLoRA + FSDP).
        double base_bytes =
            w.weights ? w.weight_bytes(p) : w.params * weight_bytes(full_precision(p) ? p : Precision::bf16);
        if (w.task == Task::qlora) base_bytes = w.weight_bytes_as(WeightFormat::nf4);
        const double trainable = w.lora_trainable_params() / model_parallel;
        StateBytes sb = state_bytes(w.optimizer, full_precision(p) ? p : Precision::bf16);
        m.weights_gb =
            (spread(base_bytes / model_parallel, l.zero_stage >= 3) + trainable * sb.weights) / kGB;
        m.gradients_gb = trainable * sb.grads / (l.zero_stage >= 2 ? dp : 1.0) / kGB;
        m.optimizer_gb = trainable * sb.optimizer / (l.zero_stage >= 1 ? dp : 1.0) / kGB;
        apply_offload(w, m);
        return m;
    }
    // Full training: ZeRO stages shard optimizer (1), + gradients (2), + parameters (3) [S29].
    StateBytes sb = state_bytes(w.optimizer, p);
    m.weights_gb = spread(psi * sb.weights, l.zero_stage >= 3) / kGB;
    m.gradients_gb = spread(psi * sb.grads, l.zero_stage >= 2) / kGB;
    m.optimizer_gb = spread(psi * sb.optimizer, l.zero_stage >= 1) / kGB;
    apply_offload(w, m);
    return m;
}

MemoryBreakdown estimate_memory(const Workload& w, Precision p, int gpu_count) {
    // The data-parallel (or, for inference, tensor-parallel) layout of the workload's own settings,
    // on a GPU with FlashAttention-class kernels unless the workload forces eager attention.
    Gpu modern;
    modern.compute_capability = "8.0";
    Parallelism l;
    const int n = std::max(1, gpu_count);
    if (w.is_training()) {
        l.data = n;
        l.zero_stage = w.zero_stage;
        l.micro_batch = w.batch_size;
        l.checkpointing = w.grad_checkpointing;
    } else {
        l.tensor = n;
    }
    return layout_memory(w, modern, p, l);
}

}  // namespace gpuadvise
