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
// NF4 0.5 B/param + double-quantised constants (0.127 bit/param, QLoRA paper §3) = 0.516 B/param.
constexpr double kNf4BytesPerParam = 0.5 + 0.127 / 8;

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
        m.weights_gb = psi * weight_bytes(p) / kGB;
        if (w.shape.decoder && w.shape.layers > 0 && w.shape.heads > 0) {
            const double head_dim = static_cast<double>(w.shape.hidden) / w.shape.heads;
            const double kv_elem = full_precision(p) ? 4 : 2;  // fp8 weights keep a 16-bit KV cache
            const int sequences = concurrency > 0 ? concurrency : w.batch_size;
            const double kv = 2.0 * w.shape.layers * std::max(1, w.shape.kv_heads) * head_dim * w.seq_len *
                              sequences * kv_elem;  // [S30]
            m.kv_cache_gb = kv / model_parallel / kGB;
        } else {
            m.activations_gb =
                w.activation_bytes_per_sample(false, att) / 3.0 * act_scale * w.batch_size / kGB;
        }
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
    const double zw = l.zero_stage >= 3 ? dp : 1.0, zg = l.zero_stage >= 2 ? dp : 1.0,
                 zo = l.zero_stage >= 1 ? dp : 1.0;
    if (w.task == Task::lora || w.task == Task::qlora) {
        // Frozen base: 16-bit, or NF4 for QLoRA with the embeddings and the output layer kept in
        // 16-bit (bitsandbytes quantises only the linear layers of the blocks). FSDP (ZeRO-3)
        // shards the frozen base too (QLoRA + FSDP).
        double base_bytes = w.params * weight_bytes(full_precision(p) ? p : Precision::bf16);
        if (w.task == Task::qlora) {
            const double emb = w.embedding_params();
            base_bytes = (w.params - emb) * kNf4BytesPerParam + emb * 2.0;
        }
        const double trainable = w.lora_trainable_params() / model_parallel;
        StateBytes sb = state_bytes(w.optimizer, full_precision(p) ? p : Precision::bf16);
        m.weights_gb = (base_bytes / model_parallel / zw + trainable * sb.weights) / kGB;
        m.gradients_gb = trainable * sb.grads / zg / kGB;
        m.optimizer_gb = trainable * sb.optimizer / zo / kGB;
        return m;
    }
    // Full training: ZeRO stages shard optimizer (1), + gradients (2), + parameters (3) [S29].
    StateBytes sb = state_bytes(w.optimizer, p);
    m.weights_gb = psi * sb.weights / zw / kGB;
    m.gradients_gb = psi * sb.grads / zg / kGB;
    m.optimizer_gb = psi * sb.optimizer / zo / kGB;
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
