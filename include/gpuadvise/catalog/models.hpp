// Model presets and calibration points (data in data/models.yaml; sources in
// reference/gpu-facts.md §3c and §4). Owned by the workload model (workload.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// Transformer dimensions (zeros when not a transformer).
struct TransformerShape {
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kv_heads = 0;      // < heads under GQA/MQA
    int vocab = 0;         // 0 = no language-model head (no logits memory)
    int patch_size = 0;    // vision transformers: tokens = (image / patch)^2 + 1
    bool decoder = false;  // autoregressive LM: KV cache at inference, tokens as the unit

    bool operator==(const TransformerShape&) const = default;
};

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
