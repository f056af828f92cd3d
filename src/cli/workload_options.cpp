#include "cli/workload_options.hpp"

#include <cmath>
#include <memory>
#include <sstream>

#include "cli/context.hpp"
#include "cli/option_checks.hpp"
#include "io/hf_config.hpp"

namespace gpuadvise::cli {
namespace {}  // namespace

void add_workload_options(CommandApp& app, WorkloadRequest& r) {
    app.add_option_function<std::string>(
           "--model,-m", [&r](const std::string& v) { r.model = v; },
           "Model preset or alias (see 'gpuadvise models'), e.g. bert, resnet50, llama-2-7b")
        ->type_name("NAME");
    app.add_option_function<std::string>(
           "--model-config", [&r](const std::string& path) { r.model_config_file = path; },
           "A Hugging Face config.json (a local file): the model's shape, parameters and weight format")
        ->type_name("FILE");
    struct ShapeFlag {
        const char* name;
        std::optional<int> WorkloadRequest::*field;
        const char* help;
        int max;  // 1 to max, as the model room's check (docs/usage.md, "Value bounds")
    };
    for (const ShapeFlag& f : {
             ShapeFlag{"--layers", &WorkloadRequest::layers, "Shape: transformer layers (num_hidden_layers)",
                       10000},
             ShapeFlag{"--hidden", &WorkloadRequest::hidden, "Shape: hidden size (hidden_size)", 1000000},
             ShapeFlag{"--heads", &WorkloadRequest::heads, "Shape: attention heads (num_attention_heads)",
                       100000},
             ShapeFlag{"--kv-heads", &WorkloadRequest::kv_heads,
                       "Shape: key/value heads, fewer than --heads under GQA (num_key_value_heads)", 100000},
             ShapeFlag{"--head-dim", &WorkloadRequest::head_dim,
                       "Shape: dimension per head (default hidden/heads)", 100000},
             ShapeFlag{"--ffn", &WorkloadRequest::ffn, "Shape: MLP width (intermediate_size; gated MLP)",
                       10000000},
             ShapeFlag{"--vocab", &WorkloadRequest::vocab, "Shape: vocabulary size (vocab_size)", 100000000},
             ShapeFlag{"--experts", &WorkloadRequest::experts, "Shape: routed experts per MoE layer", 100000},
             ShapeFlag{"--active-experts", &WorkloadRequest::active_experts,
                       "Shape: experts per token (num_experts_per_tok)", 100000},
             ShapeFlag{"--moe-ffn", &WorkloadRequest::moe_ffn,
                       "Shape: width of one expert (moe_intermediate_size; default --ffn)", 10000000},
         }) {
        auto field = f.field;
        app.add_option_function<int>(
               f.name, [&r, field](const int& v) { r.*field = v; }, f.help)
            ->type_name("N")
            ->transform(whole_number(1, f.max, false));
    }
    app.add_option_function<std::string>(
           "--weights", [&r](const std::string& v) { r.weights = v; },
           "How the weights are stored (default: the checkpoint's dtype or quantisation; compute stays "
           "--precision)")
        ->type_name(kWeightFormatNames.choices());
    app.add_option_function<std::string>(
           "--kv-cache", [&r](const std::string& v) { r.kv_cache = v; },
           "KV cache element type for serving (default 16-bit)")
        ->type_name("fp16|bf16|fp8");
    app.add_option_function<std::string>(
           "--offload", [&r](const std::string& v) { r.offload = v; },
           "Training: keep the optimizer states (or also the parameters and gradients) in host RAM "
           "(ZeRO-Offload / FSDP CPU offload; default none)")
        ->type_name("none|optimizer|params");
    app.add_option_function<std::string>(
           "--stack", [&r](const std::string& v) { r.stack = v; },
           "Training: the software stack, its efficiency from a published run (default tuned)")
        ->type_name(kTrainingStackNames.choices());
    app.add_option_function<std::string>(
           "--params", [&r](const std::string& v) { r.params = v; },
           "Custom model size (or override the preset's): 7B, 350M")
        ->type_name("N")
        ->check(quantity_value());
    app.add_option_function<std::string>(
           "--flops-per-token", [&r](const std::string& v) { r.flops_per_token = v; },
           "Forward FLOPs per token (true FLOPs, 2 x MAC); default 2 x params + attention")
        ->type_name("N")
        ->check(quantity_value());
    app.add_option_function<std::string>(
           "--flops-per-sample", [&r](const std::string& v) { r.flops_per_sample = v; },
           "Forward FLOPs per sample (true FLOPs, 2 x MAC)")
        ->type_name("N")
        ->check(quantity_value());
    app.add_option_function<std::string>(
           "--task", [&r](const std::string& v) { r.task = v; },
           "What the job does (default: the preset's default job)")
        ->type_name("train|finetune|lora|qlora|serve|batch-inference|inference");
    app.add_option_function<std::string>(
           "--precision", [&r](const std::string& v) { r.precision = v; },
           "Compute precision (default: mixed, bf16 where the GPU supports it, else fp16)")
        ->type_name(kPrecisionNames.choices());
    app.add_option_function<std::string>(
           "--optimizer", [&r](const std::string& v) { r.optimizer = v; },
           "Optimizer (default: adamw; sgd with momentum for CNNs)")
        ->type_name("adamw|sgd|adam8bit");
    app.add_option_function<int>(
           "--batch-size", [&r](const int& v) { r.batch_size = v; }, "Micro-batch per GPU")
        ->type_name("N")
        ->transform(whole_number(1, 1000000, false));
    app.add_option_function<int>(
           "--seq-len", [&r](const int& v) { r.seq_len = v; }, "Tokens per sequence")
        ->type_name("N")
        ->transform(whole_number(1, 10000000, false));
    app.add_option_function<int>(
           "--image-size", [&r](const int& v) { r.image_size = v; }, "Image side in pixels")
        ->type_name("PX")
        ->transform(whole_number(1, 100000, false));
    app.add_option_function<std::string>(
           "--samples", [&r](const std::string& v) { r.samples = v; },
           "Dataset size in samples per epoch: 1.28M")
        ->type_name("N")
        ->check(quantity_value());
    app.add_option_function<std::string>(
           "--tokens", [&r](const std::string& v) { r.tokens = v; },
           "Dataset size in tokens per epoch (text models): 2B")
        ->type_name("N")
        ->check(quantity_value());
    app.add_option_function<double>(
           "--epochs", [&r](const double& v) { r.epochs = v; }, "Passes over the dataset")
        ->type_name("N")
        ->check(decimal_number(1e-6, 1e6, false));
    // Both spellings on one line contradict each other (their sum would quietly pick one): a usage error.
    auto checkpointing = std::make_shared<CLI::Option*>(nullptr);
    *checkpointing = app.add_flag_function(
        "--grad-checkpointing,!--no-grad-checkpointing",
        [&r, checkpointing](std::int64_t count) {
            bool on = false, off = false;
            for (const auto& v : (*checkpointing)->results()) {
                try {
                    (CLI::detail::to_flag_value(v) > 0 ? on : off) = true;
                } catch (const std::exception&) {  // not a flag value: flag_value() has said so
                }
            }
            if (on && off)
                throw CLI::ValidationError("--grad-checkpointing",
                                           "given together with --no-grad-checkpointing; give one of them "
                                           "(or neither: the layout planner decides)");
            r.grad_checkpointing = count > 0;
        },
        "Recompute activations in backward (less memory, ~1/3 more compute)");
    app.add_option_function<int>(
           "--zero", [&r](const int& v) { r.zero_stage = v; },
           "ZeRO stage across the GPUs (3 = FSDP full shard)")
        ->type_name("0|1|2|3")
        ->transform(whole_number(0, 3, false));
    app.add_option_function<int>(
           "--tp", [&r](const int& v) { r.tensor_parallel = v; },
           "Pin tensor parallelism (inside a node; default: the layout planner chooses)")
        ->type_name("N")
        ->transform(whole_number(1, 64, false));
    app.add_option_function<int>(
           "--ep", [&r](const int& v) { r.expert_parallel = v; },
           "Pin expert parallelism (mixture of experts: experts split over N data ranks; default: the "
           "planner chooses)")
        ->type_name("N")
        ->transform(whole_number(1, 4096, false));
    app.add_option_function<int>(
           "--pp", [&r](const int& v) { r.pipeline_parallel = v; },
           "Pin pipeline parallelism (stages, across nodes; default: the planner chooses)")
        ->type_name("N")
        ->transform(whole_number(1, 1024, false));
    app.add_option_function<int>(
           "--micro-batch", [&r](const int& v) { r.micro_batch = v; },
           "Pin the micro-batch per GPU (sequences); accumulation makes up the global batch")
        ->type_name("N")
        ->transform(whole_number(1, 1000000, false));
    app.add_option_function<std::string>(
           "--global-batch", [&r](const std::string& v) { r.global_batch = v; },
           "Sequences per optimizer step (1024), or tokens with a t suffix (4Mt); default: "
           "--batch-size x GPUs")
        ->type_name("N");
    app.add_option_function<std::string>(
           "--attention", [&r](const std::string& v) { r.attention = v; },
           "Attention kernels (default: flash on compute capability >= 8.0, else eager)")
        ->type_name("flash|eager");
    app.add_option_function<int>(
           "--lora-rank", [&r](const int& v) { r.lora_rank = v; }, "LoRA rank (default 8, as PEFT)")
        ->type_name("R")
        ->transform(whole_number(1, 4096, false));
    app.add_option_function<std::string>(
           "--lora-targets", [&r](const std::string& v) { r.lora_targets = v; },
           "Layers LoRA adapts: q and v projections (PEFT's default) or all linear layers")
        ->type_name("qv|all");
    app.add_option_function<int>(
           "--prompt-len", [&r](const int& v) { r.prompt_len = v; },
           "Serving: prompt tokens per request (default 1024, or --seq-len)")
        ->type_name("N")
        ->transform(whole_number(1, 10000000, false));
    app.add_option_function<int>(
           "--output-len", [&r](const int& v) { r.output_len = v; },
           "Serving: output tokens per request (default 256)")
        ->type_name("N")
        ->transform(whole_number(1, 10000000, false));
    app.add_option_function<int>(
           "--concurrency", [&r](const int& v) { r.concurrency = v; },
           "Serving: concurrent requests (default: as many as the KV cache holds, at most 256 per replica; "
           "--task serve: the most that meet the latency targets)")
        ->type_name("N")
        ->transform(whole_number(1, 1000000, false));
    app.add_option_function<double>(
           "--ttft-ms", [&r](const double& v) { r.ttft_ms = v; },
           "Serving: time to first token at the peak, milliseconds (default 2000)")
        ->type_name("MS")
        ->check(decimal_number(1, 3.6e6, false));
    app.add_option_function<double>(
           "--tpot-ms", [&r](const double& v) { r.tpot_ms = v; },
           "Serving: time per output token at the peak, milliseconds (default 200)")
        ->type_name("MS")
        ->check(decimal_number(1, 3.6e6, false));
    app.add_option_function<std::string>(
           "--engine", [&r](const std::string& v) { r.engine = v; },
           "Serving engine whose measured efficiency applies (default vllm)")
        ->type_name(kServingEngineNames.choices());
    app.add_option_function<double>(
           "--hours-per-run", [&r](const double& v) { r.hours_per_run = v; },
           "Your own timing of one run (with --measured-on); other GPUs are scaled from it")
        ->type_name("H")
        ->check(decimal_number(1e-6, 1e6, false));
    app.add_option_function<std::string>(
           "--measured-on", [&r](const std::string& v) { r.measured_on = v; },
           "The GPU --hours-per-run was measured on")
        ->type_name("GPU");
    app.add_option_function<int>(
           "--measured-gpus", [&r](const int& v) { r.measured_gpu_count = v; },
           "How many GPUs the measured run used (default 1)")
        ->type_name("N")
        ->transform(whole_number(1, 4096, false));
}

void load_model_config(WorkloadRequest& r) {
    if (!r.model_config_file || r.model_config) return;
    io::HfConfig cfg = io::load_hf_config(*r.model_config_file);
    r.model_config = std::make_shared<const ModelPreset>(std::move(cfg.preset));
    r.model_config_defaults = std::move(cfg.defaults);
}

nlohmann::ordered_json workload_json(const Workload& w) {
    nlohmann::ordered_json j;
    j["model"] = w.model_id;
    j["model_name"] = w.model_name;
    j["requested_as"] =
        w.requested_as.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(w.requested_as);
    j["kind"] = std::string(to_string(w.kind));
    j["params"] = w.params;
    j["task"] = std::string(to_string(w.task));
    if (w.is_training()) {
        const StackProfile& s = stack_profile(w.stack);
        j["stack"] = {{"id", std::string(kTrainingStackNames.name(w.stack))},
                      {"efficiency", s.efficiency},
                      {"calibrated", s.calibrated},
                      {"source", std::string(s.source)}};
    } else {
        j["stack"] = nullptr;
    }
    // inference: "serve" (an online service) or "batch-inference"; null for training.
    j["inference_mode"] = w.is_training() ? nlohmann::ordered_json(nullptr)
                                          : nlohmann::ordered_json(std::string(w.task_label()));
    j["precision"] = w.precision ? std::string(to_string(*w.precision)) : std::string("mixed");
    j["optimizer"] = w.is_training() ? nlohmann::ordered_json(std::string(to_string(w.optimizer)))
                                     : nlohmann::ordered_json(nullptr);
    j["batch_size_per_gpu"] = w.batch_size;
    j["seq_len"] = w.seq_len > 0 ? nlohmann::ordered_json(w.seq_len) : nlohmann::ordered_json(nullptr);
    j["image_size"] =
        w.image_size > 0 ? nlohmann::ordered_json(w.image_size) : nlohmann::ordered_json(nullptr);
    j["samples"] = json_number(w.samples);
    j["epochs"] = json_number(w.epochs);
    j["grad_checkpointing"] = w.grad_checkpointing;
    j["zero_stage"] = w.zero_stage;
    j["forward_flops_per_sample"] = json_number(w.forward_flops_per_sample());
    j["unit"] = w.unit;
    j["assumptions"] = w.assumptions;
    // The model as the memory and time formulas see it (docs/json.md).
    nlohmann::ordered_json m;
    const ParamCount c = w.param_count();
    m["params_total"] = w.params;
    m["params_active"] = w.params_active();
    m["experts"] = w.shape.experts;
    m["active_experts"] = w.shape.active_experts;
    const Precision p = w.precision.value_or(Precision::bf16);
    m["kv_bytes_per_token"] = w.shape.decoder && w.seq_len > 0
                                  ? json_number(w.kv_bytes(p, w.seq_len) / w.seq_len)
                                  : nlohmann::ordered_json(nullptr);
    m["weights_format"] = w.weights ? nlohmann::ordered_json(std::string(to_string(*w.weights)))
                                    : nlohmann::ordered_json(nullptr);
    m["weights_scope"] = w.weights_scope == QuantScope::experts ? "experts" : "linear";
    m["weights_gb"] = json_number(w.weight_bytes(p) / 1e9);
    m["kv_cache_format"] = w.kv_cache ? nlohmann::ordered_json(std::string(to_string(*w.kv_cache)))
                                      : nlohmann::ordered_json(nullptr);
    m["max_seq_len"] = w.preset && w.preset->max_seq_len > 0 ? nlohmann::ordered_json(w.preset->max_seq_len)
                                                             : nlohmann::ordered_json(nullptr);
    m["shape_complete"] = c.total() > 0;
    j["model_details"] = m;
    return j;
}

nlohmann::ordered_json parallelism_json(const Configuration& c) {
    nlohmann::ordered_json j;
    j["data"] = c.layout.data;
    j["tensor"] = c.layout.tensor;
    j["pipeline"] = c.layout.pipeline;
    j["zero_stage"] = c.layout.zero_stage;
    j["micro_batch"] = c.layout.micro_batch;
    j["grad_accumulation"] = c.layout.grad_accumulation;
    j["nodes"] = c.nodes;
    j["gpus_per_node"] = c.gpus_per_node;
    j["activation_checkpointing"] = c.layout.checkpointing;
    j["expert"] = c.layout.expert;
    return j;
}

nlohmann::ordered_json serving_json(const std::optional<ServingEstimate>& s) {
    if (!s) return nullptr;
    nlohmann::ordered_json j;
    j["tokens_per_s"] = json_number(s->tokens_per_s);
    j["time_to_first_token_s"] = json_number(s->time_to_first_token_s);
    j["time_per_output_token_s"] = json_number(s->time_per_output_token_s);
    j["cost_per_million_tokens"] = json_number(s->cost_per_million_tokens);
    j["prompt_len"] = s->prompt_len;
    j["output_len"] = s->output_len;
    j["concurrency"] = s->concurrency;
    return j;
}

std::string layout_label(const Configuration& c, bool training) {
    const Parallelism& l = c.layout;
    std::string s = "dp" + std::to_string(l.data);
    if (l.tensor > 1) s += " tp" + std::to_string(l.tensor);
    if (l.pipeline > 1) s += " pp" + std::to_string(l.pipeline);
    if (l.expert > 1) s += " ep" + std::to_string(l.expert);
    if (training) {
        if (l.zero_stage > 0) s += " z" + std::to_string(l.zero_stage);
        s += " mb" + std::to_string(l.micro_batch);
        if (l.grad_accumulation > 1) s += "x" + std::to_string(l.grad_accumulation);
        if (l.checkpointing) s += " ckpt";
    } else if (l.micro_batch > 1) {
        s += " c" + std::to_string(l.micro_batch);
    }
    return s;
}

std::string workload_summary(const Workload& w) {
    std::string s = (w.requested_as.empty() ? "" : "'" + w.requested_as + "' -> ") + w.model_id + " (" +
                    w.model_name + ", " + format_count(w.params) + " params), " +
                    std::string(w.task_label());
    if (w.seq_len > 0 && w.shape.patch_size == 0 && !w.decoder_serving()) s += ", seq " + std::to_string(w.seq_len);
    if (w.image_size > 0) s += ", " + std::to_string(w.image_size) + "x" + std::to_string(w.image_size);
    if (w.serving.output_len)
        s += ", prompt " + std::to_string(*w.serving.prompt_len) + " + output " +
             std::to_string(*w.serving.output_len) + " tokens";
    else
        s += ", batch " + std::to_string(w.batch_size) + "/GPU";
    if (w.pins.global_batch) s += ", global batch " + format_count(*w.pins.global_batch);
    if (!w.decoder_serving())
        s += ", " + format_count(w.samples) + " samples x " + [&] {
            std::ostringstream ss;
            ss << w.epochs;
            return ss.str();
        }() + " epochs";
    else if (!w.serving.online)
        s += ", " + format_count(w.samples) + " requests a run";
    if (w.decoder_serving()) s += ", " + std::string(serving_engine(w.serving.engine).name);
    s += ", " + (w.precision ? std::string(to_string(*w.precision)) : std::string("mixed precision"));
    if (w.is_training()) s += ", " + std::string(to_string(w.optimizer));
    if (w.grad_checkpointing_pinned && w.grad_checkpointing) s += ", grad checkpointing";
    if (w.zero_pinned && w.zero_stage > 0) s += ", ZeRO-" + std::to_string(w.zero_stage);
    return s;
}

}  // namespace gpuadvise::cli
