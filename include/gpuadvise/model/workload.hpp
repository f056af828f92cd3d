// The workload model: what a PyTorch job needs (memory per GPU) and how long it runs on a GPU
// model and count. Formulas and sources: docs/methodology.md and reference/gpu-facts.md §3–§4.
// Everything here is an estimate; Workload::assumptions lists every default that was filled in.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpuadvise/base/source_location.hpp"
#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/model/configuration.hpp"
#include "gpuadvise/model/model_shape.hpp"
#include "gpuadvise/model/stack.hpp"

namespace gpuadvise {

enum class Task { train, finetune, lora, qlora, inference };
// Where a run time comes from: a measurement (published, or the user's own) or the model.
enum class TimeBasis { estimated, measured };
inline constexpr NameTable<TimeBasis, 2> kTimeBasisNames{
    {{{TimeBasis::estimated, "estimated"}, {TimeBasis::measured, "measured"}}}};
inline std::string_view to_string(TimeBasis b) { return kTimeBasisNames.name(b); }
enum class Optimizer { adamw, sgd, adam8bit };
// Attention kernels: FlashAttention-style (never stores the s x s scores) or eager (stores them).
enum class Attention { flash, eager };
// Which linear layers LoRA adapts: PEFT's default for Llama (q_proj, v_proj) or every linear layer.
enum class LoraTargets { qv, all };
// ZeRO-Offload / FSDP CPU offload: the optimizer states, or the parameters, gradients and optimizer
// states, kept in host RAM and moved over PCIe.
enum class Offload { none, optimizer, params };

std::string_view to_string(Task t);
std::optional<Task> parse_task(std::string_view text);
std::string_view to_string(Optimizer o);
std::optional<Optimizer> parse_optimizer(std::string_view text);
std::string_view to_string(Attention a);
std::optional<Attention> parse_attention(std::string_view text);
std::string_view to_string(LoraTargets t);
std::optional<LoraTargets> parse_lora_targets(std::string_view text);

// "7B", "350M", "1.5e9", "60k" -> number; nullopt if not a positive finite quantity.
std::optional<double> parse_quantity(std::string_view text);

// Every command-line knob of a job, as typed (nullopt = not given, the preset's default job or
// a documented default applies). Text fields are validated by make_workload.
struct WorkloadRequest {
    std::optional<std::string> model;             // preset id or alias ("bert")
    std::optional<std::string> params;            // custom model: "7B"
    std::optional<std::string> flops_per_token;   // forward FLOPs per token: "14e9"
    std::optional<std::string> flops_per_sample;  // forward FLOPs per sample: "8.2e9"
    std::optional<std::string> task;              // train|finetune|lora|qlora|inference|serve|batch-inference
    std::optional<std::string> precision;         // fp32|tf32|fp16|bf16|fp8 (default: mixed)
    std::optional<std::string> optimizer;         // adamw|sgd|adam8bit
    std::optional<int> batch_size;                // per GPU
    std::optional<int> seq_len;
    std::optional<int> image_size;
    std::optional<std::string> samples;  // dataset size in samples: "1.28M"
    std::optional<std::string> tokens;   // dataset size in tokens (per epoch): "2B"
    std::optional<double> epochs;
    std::optional<bool> grad_checkpointing;
    std::optional<int> zero_stage;           // 0-3 (FSDP FULL_SHARD = 3)
    std::optional<double> hours_per_run;     // the user's own timing ...
    std::optional<std::string> measured_on;  // ... on this GPU
    std::optional<int> measured_gpu_count;   // ... with this many GPUs (default 1)
    // Parallel layout pins (nullopt = the layout planner chooses).
    std::optional<int> tensor_parallel;    // --tp
    std::optional<int> pipeline_parallel;  // --pp
    std::optional<int> micro_batch;        // --micro-batch (sequences per GPU per micro-step)
    std::optional<int> expert_parallel;    // --ep (mixture of experts)
    std::optional<std::string>
        global_batch;  // --global-batch: sequences ("1024") or tokens ("4M tokens", "4Mt")
    std::optional<std::string> attention;     // flash|eager
    std::optional<int> lora_rank;             // --lora-rank (default 8, as PEFT)
    std::optional<std::string> lora_targets;  // qv|all
    // Serving. --task serve|batch-inference name the kind of inference job; --task inference is
    // read as serve when the request gives online traffic (--requests-per-day, --peak-rps: the
    // caller sets online_traffic) or a latency target, else as batch-inference.
    std::optional<int> prompt_len, output_len, concurrency;
    std::optional<double> ttft_ms, tpot_ms;  // latency targets of an online service, at its peak
    std::optional<std::string> engine;       // --engine vllm|sglang|trt-llm|tgi
    bool online_traffic = false;
    // A model read from a Hugging Face config.json (--model-config, io/hf_config.cpp) instead of a
    // preset, and the defaults the reader filled in (recorded as assumptions).
    std::optional<std::string> model_config_file;  // --model-config FILE, read by the cli
    std::shared_ptr<const ModelPreset> model_config;
    std::vector<std::string> model_config_defaults;
    // Shape flags (--layers … --moe-ffn): a custom model's shape, or overrides of a preset's.
    std::optional<int> layers, hidden, heads, kv_heads, head_dim, ffn, vocab, experts, active_experts,
        moe_ffn;
    std::optional<std::string> weights;   // --weights bf16|fp16|fp8|int8|int4|nf4|mxfp4|nvfp4
    std::optional<std::string> kv_cache;  // --kv-cache fp16|bf16|fp8
    std::optional<std::string> offload;   // --offload none|optimizer|params (training)
    std::optional<std::string> stack;     // --stack tuned|hf-trainer|... (training)
};

struct Workload {
    std::string model_id;                 // preset id, or "custom"
    std::string model_name;               // display name
    std::string requested_as;             // what the user typed when it was an alias ("bert"), else empty
    const ModelPreset* preset = nullptr;  // into the catalog (or owned_preset); nullptr for a custom model
    std::shared_ptr<const ModelPreset> owned_preset;  // a --model-config preset, kept alive here
    ModelKind kind = ModelKind::transformer;
    std::string unit = "samples";  // throughput unit without "/s": images, sequences, tokens
    double params = 0;
    Task task = Task::train;
    std::optional<Precision> precision;  // nullopt = mixed: bf16 where CC >= 8.0, else fp16
    Optimizer optimizer = Optimizer::adamw;
    int batch_size = 1;  // per GPU
    int seq_len = 0;     // tokens per sample (transformers, speech)
    int image_size = 0;  // pixels per side (vision)
    double samples = 0;  // per epoch
    double epochs = 1;
    bool grad_checkpointing = false;
    int zero_stage = 0;
    bool grad_checkpointing_pinned = false;  // the user said --grad-checkpointing / --no-grad-checkpointing
    bool zero_pinned = false;                // the user gave --zero
    int lora_rank = 8;
    LoraTargets lora_targets = LoraTargets::qv;
    std::optional<Attention> attention;  // nullopt = flash on compute capability >= 8.0, eager below
    LayoutPins pins;                     // --tp, --pp, --micro-batch, --global-batch
    ServingRequest serving;              // --prompt-len, --output-len, --concurrency (inference)
    // Forward-FLOP overrides: --flops-per-sample, --flops-per-token; a --params override of a preset
    // scales the preset's FLOPs by this factor.
    std::optional<double> flops_per_sample_override, flops_per_token_override;
    double flops_scale = 1;
    TransformerShape shape;
    // Weights as stored (nullopt = 16-bit following the compute precision) and the KV cache's
    // element type (nullopt = 16-bit, fp32 at fp32/tf32).
    std::optional<WeightFormat> weights;
    QuantScope weights_scope = QuantScope::linear;
    std::optional<Precision> kv_cache;
    Offload offload = Offload::none;
    TrainingStack stack =
        TrainingStack::tuned;  // training: the software stack's efficiency (model/stack.hpp)
    std::optional<double> measured_hours;
    const Gpu* measured_on = nullptr;
    int measured_gpu_count = 1;
    std::vector<std::string> assumptions;

    bool is_training() const { return task != Task::inference; }
    // Serving a decoder LM (prompt and output tokens, continuous batching).
    bool decoder_serving() const { return task == Task::inference && serving.output_len.has_value(); }
    // The kind of job as the output names it: serve and batch-inference for inference.
    std::string_view task_label() const {
        if (task != Task::inference) return to_string(task);
        return serving.online ? "serve" : "batch-inference";
    }
    // LoRA or QLoRA: a frozen base, adapters trained.
    bool is_adapter() const { return task == Task::lora || task == Task::qlora; }
    // Samples processed over the whole run (samples x epochs).
    double total_samples() const { return samples * epochs; }
    // Throughput unit per sample: seq_len for token units, else 1.
    double units_per_sample() const;
    // Derived quantities, computed on demand from the fields above (so later changes to seq_len,
    // image_size or the overrides always count).
    // Forward FLOPs for one sample at this job's input, true FLOPs (gpu-facts §3b).
    double forward_flops_per_sample() const;
    // Activation bytes per sample kept for backward (16-bit), per GPU for tensor-parallel size t
    // (with sequence parallelism), with full recompute or not, and with or without the stored
    // s x s attention scores (Korthikanti et al. 2022, gpu-facts §3a).
    double activation_bytes_per_sample(bool checkpointed, Attention attention, int tensor_parallel = 1) const;
    // Trainable parameters of a LoRA/QLoRA job: rank x (in + out) of each adapted matrix.
    double lora_trainable_params() const;
    double lora_trainable_fraction() const { return params > 0 ? lora_trainable_params() / params : 0; }
    // Parameters of the token embedding and the output layer (kept 16-bit when the rest is 4-bit).
    double embedding_params() const;
    // Sets the image side; vision transformers derive their token count from it.
    void set_image_size(int pixels);
    // --- Weights, experts and KV cache (src/core/model_shape.cpp, docs/methodology.md). ---
    // The parameter count of the shape (count_params) scaled to `params` (a --params override).
    ParamCount param_count() const;
    // Parameters a token multiplies by (forward FLOPs = 2 x this): the shape's active_compute, or
    // all parameters for a model known only by its count.
    double params_per_token() const;
    double params_active() const;  // MoE: per token incl. embeddings (ParamCount::active); else params
    // Bytes of all weights at compute precision p: the weight format's bytes (with group scales) for
    // the matrices it quantises, 16-bit for embeddings, output layer, router and norms; without a
    // format, p's element size for everything (4 at fp32/tf32, 1 at fp8, else 2).
    double weight_bytes(Precision p) const;
    // The same with format f (QLoRA's NF4 base).
    double weight_bytes_as(WeightFormat f) const;
    // Of weight_bytes(p): the routed experts' share (0 for a dense model).
    double expert_weight_bytes(Precision p) const;
    // Bytes a decode step reads for `sequences` sequences at once: the non-expert weights plus the
    // experts those tokens are routed to (E·(1 - (1 - k/E)^n) of E per layer, uniform routing).
    double decode_weight_bytes(Precision p, double sequences) const;
    // KV cache of one sequence of `tokens` tokens (kv_cache_elements x the element size).
    double kv_bytes(Precision p, double tokens) const;
    double kv_element_bytes(Precision p) const;
    // How many ways the KV cache splits over `tensor` x `pipeline` ranks: layers over stages; KV
    // heads over tensor ranks up to one head each (MLA's latent cache is replicated).
    double kv_shards(int tensor, int pipeline) const;
};

// Resolves a preset (case-insensitive id or alias, "did you mean" otherwise) or a custom model and
// fills every default, recording it in `assumptions`. Throws UsageError on bad input.
Workload make_workload(const Catalog& catalog, const WorkloadRequest& request);

// The precision a job uses on a GPU: the forced one, or mixed (bf16 from CC 8.0, else fp16,
// fp32 when the GPU has neither).
Precision resolve_precision(const Workload& w, const Gpu& gpu);
// Whether PyTorch can run this precision on the GPU: bf16/tf32 need CC >= 8.0, fp8 CC >= 8.9
// (gpu-facts §5c rules 3-4) and a datasheet figure.
bool precision_supported(const Gpu& gpu, Precision p);
// Why a GPU without support for p cannot run it, and what to use instead (the estimate's note, and the
// hint when no selected GPU supports it): "BF16 needs compute capability 8.0 or newer; use --precision fp16 …".
std::string precision_unsupported_reason(Precision p);

struct MemoryBreakdown {
    double weights_gb = 0;
    double gradients_gb = 0;
    double optimizer_gb = 0;
    double activations_gb = 0;
    double kv_cache_gb = 0;
    double overhead_gb = 0;  // CUDA context/allocator, inference workspace (the 20 %)
    double host_gb = 0;      // moved to host RAM by --offload, per GPU (not in total_gb)
    double total_gb() const {
        return weights_gb + gradients_gb + optimizer_gb + activations_gb + kv_cache_gb + overhead_gb;
    }
};

struct Estimate {
    const Gpu* gpu = nullptr;
    int gpu_count = 1;
    Precision precision = Precision::fp16;
    bool precision_supported = true;
    bool fits = false;
    double memory_required_gb = 0;  // per GPU
    double memory_available_gb = 0;
    // Smallest GPU count that fits with the best layout; nullopt = no count up to 4,096 fits.
    std::optional<int> min_gpu_count;
    Configuration config;                    // nodes x GPUs per node, network and the chosen parallel layout
    double bubble_share = 0;                 // share of step time the pipeline idles
    std::optional<ServingEstimate> serving;  // inference of decoder LMs
    MemoryBreakdown memory;
    double throughput_per_s = 0;  // whole job (all GPUs), in throughput_unit
    std::string throughput_unit;  // "images/s", "sequences/s", "tokens/s"
    double hours_per_run = 0, hours_low = 0, hours_high = 0;
    double scaling_efficiency = 1, comm_share = 0, utilisation = 0;
    double total_flops = 0;
    TimeBasis basis = TimeBasis::estimated;
    SharedText basis_detail;         // which measurement, or "roofline model" (copied to every estimate)
    std::vector<std::string> notes;  // e.g. what would make it fit
};

// The job on `gpus_per_node` x `link.nodes` GPUs of one model: the layout planner picks the fastest
// layout that fits (within the workload's pins) and time, memory and serving figures follow from it.
Estimate estimate_job(const Catalog& catalog, const Workload& workload, const Gpu& gpu, int gpus_per_node,
                      const LinkSpec& link = {});
// The same, reading single-GPU speeds through `speeds` (its catalog and workload).
class SpeedTable;
Estimate estimate_job(SpeedTable& speeds, const Gpu& gpu, int gpus_per_node, const LinkSpec& link = {});
// Why the workload's --tp/--pp pins cannot hold on `gpus_per_node` GPUs in each of `nodes` nodes
// (tensor parallelism stays inside a node; tensor x pipeline must divide the GPUs), or nullopt:
// `estimate`, given the count, reports it as a usage error instead of planning another layout.
std::optional<std::string> layout_pin_problem(const Workload& workload, int gpus_per_node, int nodes = 1);
// True when a CPU would do the job: small in compute, memory and parameters (policy cpu_max_flops,
// cpu_max_memory_gb, cpu_max_params) and not a decoder LLM. The estimate's note and step 1 both ask it.
bool cpu_would_do(const Workload& workload, const Estimate& estimate, const Policy& policy);

// --- The parts, exposed for tests and for docs/methodology.md. ---

// Memory per GPU for `gpu_count` GPUs at precision p, data parallel with the workload's ZeRO stage
// and checkpointing (inference: tensor parallel over the GPUs).
MemoryBreakdown estimate_memory(const Workload& w, Precision p, int gpu_count);
// Memory per GPU of one layout (training: model states sharded by tensor x pipeline and ZeRO over
// data; inference: weights over tensor x pipeline plus the KV cache of `concurrency` sequences).
MemoryBreakdown layout_memory(const Workload& w, const Gpu& gpu, Precision p, const Parallelism& layout,
                              int concurrency = 0);
// The same with the attention kernels given (resolve_attention(w, gpu): the only thing of the GPU
// the memory reads), for the planner, which asks it for every layout of one GPU model.
MemoryBreakdown layout_memory(const Workload& w, Attention att, Precision p, const Parallelism& layout,
                              int concurrency = 0);
// The attention kernels a job uses on a GPU: the forced one, else flash from compute capability 8.0.
Attention resolve_attention(const Workload& w, const Gpu& gpu);

struct SingleGpuSpeed {
    double samples_per_s = 0;
    double utilisation = 0;  // model FLOP/s / dense peak at the precision
    TimeBasis basis = TimeBasis::estimated;
    SharedText basis_detail;             // shared: every micro-batch's entry and every plan's timing copy it
    double band_low = 0, band_high = 0;  // multipliers on time
};
// Throughput on one GPU. use_measurements=false gives the pure model (used by the calibration test).
SingleGpuSpeed single_gpu_speed(const Catalog& catalog, const Workload& w, const Gpu& gpu, Precision p,
                                bool use_measurements = true);
// Training FLOPs (3 x forward, 4 x with full recompute) or inference FLOPs per sample.
double flops_per_sample(const Workload& w);

// Single-GPU speeds of one workload on one catalog, as the layout planner reads them: the speed at
// the job's own per-GPU batch (a measurement where one exists) with `checkpointing` set, scaled to
// another micro-batch by the model's ratio between the two. Keyed on (GPU, precision, micro-batch,
// checkpointing): single_gpu_speed reads only those, the workload and the catalog's calibration
// points, never the GPU count, the nodes or the network, so one table serves every plan of a run
// (recommend plans the same GPU model for many counts and offers). The table holds references: the
// catalog and the workload must outlive it unchanged; a different workload needs its own table.
// Calibration points, each with the catalog's GPU it was measured on.
using MeasuredPoints = std::vector<std::pair<const CalibrationPoint*, const Gpu*>>;

class SpeedTable {
public:
    SpeedTable(const Catalog& catalog, const Workload& workload) : catalog_(catalog), workload_(workload) {}
    const SingleGpuSpeed& get(const Gpu& gpu, Precision p, int micro_batch, bool checkpointing);
    const Catalog& catalog() const { return catalog_; }
    const Workload& workload() const { return workload_; }
    std::size_t size() const { return cache_.size(); }  // entries computed so far (for tests)
    // minimum_gpus(workload, gpu, p) with its default limits (layout_planner.hpp), computed once per
    // GPU model and precision: it reads only the workload, the GPU and the precision, never a
    // count or a network, and estimate_job asks it for every plan.
    std::optional<int> minimum_gpus(const Gpu& gpu, Precision p);

private:
    // The workload with this recompute at the job's own batch, in the copy `scratch_`: the speeds are
    // asked with it (a copy per speed read was 8 % of them).
    Workload& scratch(bool checkpointing);

    const Catalog& catalog_;
    const Workload& workload_;
    using SpeedKey = std::tuple<const Gpu*, Precision, int, bool>;
    struct SpeedKeyHash {
        std::size_t operator()(const SpeedKey& k) const noexcept {
            const std::uint64_t gpu = reinterpret_cast<std::uintptr_t>(std::get<0>(k));
            const std::uint64_t rest = static_cast<std::uint64_t>(std::get<2>(k)) << 9 |
                                       static_cast<std::uint64_t>(std::get<1>(k)) << 1 | std::get<3>(k);
            const std::uint64_t mixed = (gpu ^ rest * 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL;
            return static_cast<std::size_t>(mixed >> 17);
        }
    };
    // The maps' nodes come from one arena, freed with the table at once (with the estimate cache's
    // arena, 0.16 M of the common question's 19.5 M instructions fewer).
    std::pmr::monotonic_buffer_resource nodes_;
    // Hashed, not a tree: a recommend reads it a thousand times. Entries never move (references are kept).
    std::pmr::unordered_map<SpeedKey, SingleGpuSpeed, SpeedKeyHash> cache_{&nodes_};
    // The calibration points of the workload's model per GPU and precision (read once per GPU model).
    std::pmr::map<std::pair<const Gpu*, Precision>, MeasuredPoints> points_{&nodes_};
    std::optional<MeasuredPoints> model_points_;  // the workload model's points, found once
    std::pmr::map<std::pair<const Gpu*, Precision>, std::optional<int>> minimum_gpus_{&nodes_};
    // The pure model's speed at the job's own batch per GPU, precision and checkpointing (the
    // denominator of every other micro-batch's ratio).
    std::pmr::map<std::tuple<const Gpu*, Precision, bool>, double> modelled_at_job_{&nodes_};
    std::optional<Workload> scratch_;  // scratch()
};

// Bandwidth of the links a layout uses, GB/s per GPU (§3d): inside a node (NVLink/NVSwitch or PCIe)
// and between nodes (the node's network shared by its GPUs).
struct Links {
    double intra_gb_per_s = 0;       // NCCL bus bandwidth inside a node
    double inter_node_gb_per_s = 0;  // the node's network, usable GB/s (all its NICs)
    int nvlink_domain =
        1;  // GPUs joined by NVLink/NVSwitch (Infinity Fabric): 8 on SXM/OAM boards, 2 with a bridge
};
Links resolve_links(const Gpu& gpu, const LinkSpec& link);

}  // namespace gpuadvise
