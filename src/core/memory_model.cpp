// Memory per GPU (gpu-facts §3a): model states by optimizer and precision, ZeRO stages,
// LoRA/QLoRA, activations, inference weights + KV cache, the CUDA context.
#include <algorithm>

#include "gpuadvise/workload.hpp"

namespace gpuadvise {
namespace {

constexpr double kGB = 1e9;
constexpr double kCudaContextGB = 1.0;  // "between 300 MiB and 2 GiB" on first use (§3a)
constexpr double kInferenceOverhead = 0.2;  // M ≈ 1.2 × weights + KV [S25][S27]
constexpr double kQloraBytesPerParam = 0.55;  // NF4 0.5 B + quantisation constants (double-quant ≈ 0.127 bit)

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

double weight_bytes(Precision p) {
    switch (p) {
        case Precision::fp32:
        case Precision::tf32: return 4;
        case Precision::fp8: return 1;
        default: return 2;
    }
}

}  // namespace

MemoryBreakdown estimate_memory(const Workload& w, Precision p, int gpu_count) {
    MemoryBreakdown m;
    const double n = std::max(1, gpu_count);
    const double psi = w.params;
    const double act_scale = full_precision(p) ? 2.0 : 1.0;  // formulas are for 16-bit activations
    if (!w.is_training()) {
        // Inference: weights sharded across the GPUs (tensor/pipeline parallel) when there are several.
        m.weights_gb = psi * weight_bytes(p) / n / kGB;
        if (w.shape.decoder && w.shape.layers > 0 && w.shape.heads > 0) {
            const double head_dim = static_cast<double>(w.shape.hidden) / w.shape.heads;
            const double kv_elem = full_precision(p) ? 4 : 2;  // fp8 weights keep a 16-bit KV cache
            const double kv = 2.0 * w.shape.layers * std::max(1, w.shape.kv_heads) * head_dim * w.seq_len *
                              w.batch_size * kv_elem;  // [S30]
            m.kv_cache_gb = kv / n / kGB;
        } else {
            m.activations_gb = w.activation_bytes_per_sample / 3.0 * act_scale * w.batch_size / kGB;
        }
        m.overhead_gb = kInferenceOverhead * m.weights_gb + kCudaContextGB;
        return m;
    }
    const double acts = (w.grad_checkpointing ? w.checkpointed_activation_bytes_per_sample : w.activation_bytes_per_sample);
    m.activations_gb = acts * act_scale * w.batch_size / kGB;
    if (w.shape.decoder && w.shape.vocab > 0)
        m.activations_gb += static_cast<double>(w.batch_size) * w.seq_len * w.shape.vocab * 4.0 / kGB;  // fp32 logits
    m.overhead_gb = kCudaContextGB;
    if (w.task == Task::lora || w.task == Task::qlora) {
        const double base = w.task == Task::qlora ? kQloraBytesPerParam : weight_bytes(full_precision(p) ? p : Precision::bf16);
        const double trainable = psi * w.lora_trainable_fraction;
        StateBytes sb = state_bytes(w.optimizer, full_precision(p) ? p : Precision::bf16);
        // FSDP (ZeRO-3) shards the frozen base too (QLoRA + FSDP).
        m.weights_gb = (psi * base / (w.zero_stage >= 3 ? n : 1.0) + trainable * sb.weights) / kGB;
        m.gradients_gb = trainable * sb.grads / kGB;
        m.optimizer_gb = trainable * sb.optimizer / kGB;
        return m;
    }
    // Full training: ZeRO stages shard optimizer (1), + gradients (2), + parameters (3) [S29].
    StateBytes sb = state_bytes(w.optimizer, p);
    m.weights_gb = psi * sb.weights / (w.zero_stage >= 3 ? n : 1.0) / kGB;
    m.gradients_gb = psi * sb.grads / (w.zero_stage >= 2 ? n : 1.0) / kGB;
    m.optimizer_gb = psi * sb.optimizer / (w.zero_stage >= 1 ? n : 1.0) / kGB;
    return m;
}

int minimum_gpu_count(const Workload& w, Precision p, double memory_gb) {
    for (int n = 1; n <= 64; ++n)
        if (estimate_memory(w, p, n).total_gb() <= memory_gb) return n;
    return 0;
}

}  // namespace gpuadvise
