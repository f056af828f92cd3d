// Model presets and calibration points (data in data/models.yaml; sources in
// reference/gpu-facts.md §3c and §4). Owned by the workload model (workload.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/base/names.hpp"
#include "gpuadvise/base/source_location.hpp"
#include "gpuadvise/catalog/gpu.hpp"

namespace gpuadvise {

// What the estimate formulas need to know about a model's structure:
//   cnn          activations from measured bytes per image at a reference resolution (§3a)
//   transformer  activations and KV cache from the shape (Korthikanti, §3a)
//   diffusion    a denoising UNet: per-image bytes like a CNN, FLOPs per UNet evaluation
//   speech       an encoder-decoder transformer over a fixed audio window (Whisper)
enum class ModelKind { cnn, transformer, diffusion, speech };

std::string_view to_string(ModelKind k);
std::optional<ModelKind> parse_model_kind(std::string_view text);

// Transformer dimensions (zeros when not a transformer). The fields after `decoder` describe a
// model completely enough to count its parameters (count_params): they come from a Hugging Face
// config.json (io/hf_config.cpp), a preset's shape in data/models.yaml or the shape flags; `ffn` = 0
// means the shape is partial and the preset's `params` are the count.
struct TransformerShape {
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kv_heads = 0;      // < heads under GQA/MQA
    int vocab = 0;         // 0 = no language-model head (no logits memory)
    int patch_size = 0;    // vision transformers: tokens = (image / patch)^2 + 1
    bool decoder = false;  // autoregressive LM: KV cache at inference, tokens as the unit

    int head_dim = 0;              // 0 = hidden / heads (not always so: Qwen3-32B, Gemma 2/3, Mistral NeMo)
    int ffn = 0;                   // dense MLP width (intermediate_size); 0 = partial shape
    bool tied_embeddings = false;  // the output layer reuses the input embedding
    int sliding_window = 0;        // tokens a sliding-window layer attends to (0 = none)
    int sliding_layers = 0;        // how many layers use it (the rest attend to the whole context)
    int norms_per_layer = 2;       // RMSNorm/LayerNorm vectors of `hidden` per layer (Gemma 2/3: 4)
    bool qkv_bias = false;         // q, k, v projections with biases (Qwen2, gpt-oss)
    bool o_bias = false;           // output projection with a bias (gpt-oss)
    bool qk_norm = false;          // per-head RMSNorm of q and k (Qwen3, Gemma 3)
    bool attention_sinks = false;  // one learned sink logit per head (gpt-oss)
    // Mixture of experts (experts = 0: dense).
    int experts = 0;                  // routed experts per MoE layer
    int active_experts = 0;           // routed experts per token (num_experts_per_tok)
    int moe_ffn = 0;                  // width of one expert (moe_intermediate_size)
    int shared_experts = 0;           // always-active experts (DeepSeek n_shared_experts, Qwen2-MoE: 1)
    int shared_ffn = 0;               // width of one shared expert (0 = moe_ffn)
    bool shared_expert_gate = false;  // Qwen2-MoE's sigmoid gate on the shared expert (hidden x 1)
    int dense_layers = 0;             // layers with a dense MLP of `ffn` instead (first_k_dense_replace)
    bool expert_bias = false;         // expert MLPs with biases, router with a bias (gpt-oss)
    bool router_score_bias = false;   // DeepSeek-V3's e_score_correction_bias (one per expert)
    // Multi-head latent attention (DeepSeek-V2/V3; kv_lora_rank > 0).
    int kv_lora_rank = 0, q_lora_rank = 0, qk_rope_dim = 0, qk_nope_dim = 0, v_head_dim = 0;

    bool operator==(const TransformerShape&) const = default;
    int effective_head_dim() const { return head_dim > 0 ? head_dim : heads > 0 ? hidden / heads : 0; }
    bool complete() const { return layers > 0 && hidden > 0 && heads > 0 && ffn > 0 && vocab > 0; }
    bool moe() const { return experts > 0; }
    bool mla() const { return kv_lora_rank > 0; }
    int moe_layers() const { return experts > 0 ? layers - dense_layers : 0; }
};

// How weights are stored (independent of the compute precision, --precision).
enum class WeightFormat { bf16, fp16, fp8, int8, int4, nf4, mxfp4, nvfp4 };
inline constexpr NameTable<WeightFormat, 8> kWeightFormatNames{{{{WeightFormat::bf16, "bf16"},
                                                                 {WeightFormat::fp16, "fp16"},
                                                                 {WeightFormat::fp8, "fp8"},
                                                                 {WeightFormat::int8, "int8"},
                                                                 {WeightFormat::int4, "int4"},
                                                                 {WeightFormat::nf4, "nf4"},
                                                                 {WeightFormat::mxfp4, "mxfp4"},
                                                                 {WeightFormat::nvfp4, "nvfp4"}}}};
inline std::string_view to_string(WeightFormat f) { return kWeightFormatNames.name(f); }
// Which weights a format applies to: every linear layer of the blocks, or the routed experts only
// (gpt-oss's MXFP4 checkpoint keeps attention in BF16).
enum class QuantScope { linear, experts };

// The job `--model X` alone answers; every field can be overridden on the command line.
struct DefaultJob {
    std::string task;    // "train", "finetune", "lora", "qlora", "inference"
    double samples = 0;  // dataset size in samples (images, sequences, audio windows)
    double epochs = 1;
    int batch_size = 0;  // per GPU
    int seq_len = 0;     // tokens per sample (transformers)
    int image_size = 0;  // pixels per side (vision)
    bool grad_checkpointing = false;
    std::string description;  // "ImageNet-1k, 90 epochs (DLE recipe)"

    bool operator==(const DefaultJob&) const = default;
};

struct ModelPreset {
    std::string id;
    std::vector<std::string> aliases;
    std::string name;
    ModelKind kind = ModelKind::transformer;
    std::string unit = "samples";  // what one sample is: images, sequences, tokens, windows
    double params = 0;
    // Forward FLOPs, true FLOPs (2 x MAC, gpu-facts §0.2). Transformers give per token without the
    // attention-score term (added from the shape and sequence length); others per sample at
    // the reference input.
    double flops_per_token = 0;
    double flops_per_sample = 0;
    int reference_image_size = 0;  // the input flops_per_sample and activation bytes refer to
    int reference_seq_len = 0;
    int max_seq_len = 0;  // context window (0 = no limit known)
    // CNN/diffusion: activation bytes stored per image for backward at reference_image_size with
    // 16-bit activations (AMP); scaled by H*W and doubled for fp32 (gpu-facts §3a).
    double activation_mb_per_image = 0;
    std::string activation_basis;  // where that figure comes from
    TransformerShape shape;
    // Inference passes per sample (diffusion: denoising steps x 2 for classifier-free guidance).
    int inference_passes = 1;
    DefaultJob default_job;
    std::vector<std::string> uncertain;  // fields whose values are uncertain in the source
    // The checkpoint's weight format (data/models.yaml `weights`, a config's torch_dtype or
    // quantization_config); nullopt = 16-bit, following the compute precision.
    std::optional<WeightFormat> weights;
    QuantScope weights_scope = QuantScope::linear;
    double params_active = 0;  // MoE: parameters per token (ParamCount::active); 0 = params
    std::string source;
    std::string notes;
    SourceLocation where;

    bool is_uncertain(std::string_view field) const;
    bool operator==(const ModelPreset&) const = default;
};

// One measured training throughput (single GPU unless gpu_count says otherwise).
struct CalibrationPoint {
    std::string model;              // preset id
    std::string gpu;                // GPU id in the catalog
    std::string precision = "amp";  // "amp" (fp16/bf16 autocast), "fp32" or "tf32"
    double throughput = 0;          // per second, in `unit`
    double throughput_high = 0;     // when the source gives a range; 0 = single value
    std::string unit;               // must equal the preset's unit
    int gpu_count = 1;
    int batch_size = 0;  // per GPU, as measured (0 = not stated)
    int seq_len = 0;
    int image_size = 0;
    std::string source;
    SourceLocation where;

    bool matches(Precision p) const;  // amp matches fp16 and bf16
    bool operator==(const CalibrationPoint&) const = default;
};

}  // namespace gpuadvise
