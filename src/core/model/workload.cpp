// Building a Workload from a request: preset resolution, custom models, defaults (each recorded
// as an assumption) and the input-size-dependent quantities of gpu-facts §3a/§3b.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/format.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "gpuadvise/model/serving.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {
namespace {

// The request field an option sets, by its key: "--measured-on" -> "measured_on".
std::string field_of(std::string_view flag) {
    std::string key(flag.substr(flag.starts_with("--") ? 2 : 0));
    std::replace(key.begin(), key.end(), '-', '_');
    return key;
}

double need_quantity(const std::optional<std::string>& text, const char* flag) {
    auto v = parse_quantity(*text);
    if (!v)
        throw UsageError(std::string(flag) + ": '" + *text + "' is not a positive number of at most 1e18",
                         "use a number with an optional k, M, B or T suffix, e.g. 7B, 350M, 1.28M",
                         field_of(flag));
    return *v;
}

template <typename T>
T need_enum(const std::optional<std::string>& text, std::optional<T> (*parse)(std::string_view),
            const char* flag, const std::vector<std::string>& names) {
    if (auto v = parse(*text)) return *v;
    std::string hint = "expected one of: " + join(names, ", ");
    if (auto best = closest_match(*text, names)) hint = "did you mean '" + *best + "'? " + hint;
    throw UsageError(std::string(flag) + ": unknown value '" + *text + "'", hint, field_of(flag));
}

// A transformer of N parameters shaped like Llama (hidden/layers = 128, N = 12 L h^2).
TransformerShape shape_for_params(double params) {
    TransformerShape s;
    double h = std::cbrt(params * 128.0 / 12.0);
    int hidden = std::max(128, static_cast<int>(std::lround(h / 128.0)) * 128);
    s.hidden = hidden;
    s.layers = std::max(1, hidden / 128);
    s.heads = std::max(1, hidden / 128);
    s.kv_heads = s.heads;
    s.vocab = 32000;
    s.decoder = true;
    return s;
}

}  // namespace

std::string_view to_string(Task t) {
    switch (t) {
        case Task::train: return "train";
        case Task::finetune: return "finetune";
        case Task::lora: return "lora";
        case Task::qlora: return "qlora";
        case Task::inference: return "inference";
    }
    return "train";
}

std::optional<Task> parse_task(std::string_view text) {
    for (Task t : {Task::train, Task::finetune, Task::lora, Task::qlora, Task::inference})
        if (iequals(text, to_string(t))) return t;
    if (iequals(text, "fine-tune")) return Task::finetune;
    return std::nullopt;
}

std::string_view to_string(Optimizer o) {
    switch (o) {
        case Optimizer::adamw: return "adamw";
        case Optimizer::sgd: return "sgd";
        case Optimizer::adam8bit: return "adam8bit";
    }
    return "adamw";
}

std::optional<Optimizer> parse_optimizer(std::string_view text) {
    for (Optimizer o : {Optimizer::adamw, Optimizer::sgd, Optimizer::adam8bit})
        if (iequals(text, to_string(o))) return o;
    if (iequals(text, "adam")) return Optimizer::adamw;
    return std::nullopt;
}

std::string_view to_string(Attention a) { return a == Attention::eager ? "eager" : "flash"; }

std::optional<Attention> parse_attention(std::string_view text) {
    if (iequals(text, "flash") || iequals(text, "sdpa")) return Attention::flash;
    if (iequals(text, "eager")) return Attention::eager;
    return std::nullopt;
}

std::string_view to_string(LoraTargets t) { return t == LoraTargets::all ? "all" : "qv"; }

std::optional<LoraTargets> parse_lora_targets(std::string_view text) {
    if (iequals(text, "qv") || iequals(text, "q,v")) return LoraTargets::qv;
    if (iequals(text, "all") || iequals(text, "all-linear")) return LoraTargets::all;
    return std::nullopt;
}

std::optional<double> parse_quantity(std::string_view text) {
    std::string t(text);
    while (!t.empty() && t.back() == ' ') t.pop_back();
    if (t.empty()) return std::nullopt;
    double scale = 1;
    switch (t.back()) {
        case 'k':
        case 'K': scale = 1e3; break;
        case 'm':
        case 'M': scale = 1e6; break;
        case 'b':
        case 'B':
        case 'g':
        case 'G': scale = 1e9; break;
        case 't':
        case 'T': scale = 1e12; break;
        default: break;
    }
    if (scale != 1) t.pop_back();
    if (t.empty()) return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size() || !std::isfinite(v) || v <= 0) return std::nullopt;
    v *= scale;
    if (!std::isfinite(v) || v > 1e18) return std::nullopt;
    return v;
}

double Workload::units_per_sample() const { return unit == "tokens" ? std::max(1, seq_len) : 1.0; }

void Workload::set_image_size(int pixels) {
    image_size = pixels;
    if (shape.patch_size > 0 && image_size > 0) {
        const int side = image_size / shape.patch_size;
        seq_len = side * side + 1;
    }
}

double Workload::forward_flops_per_sample() const {
    if (flops_per_sample_override) return *flops_per_sample_override;
    const ModelPreset* p = preset;
    const TransformerShape& s = shape;
    if (flops_per_token_override) return *flops_per_token_override * std::max(1, seq_len);
    const double scale_area = (p && p->reference_image_size > 0 && image_size > 0)
                                  ? std::pow(static_cast<double>(image_size) / p->reference_image_size, 2.0)
                                  : 1.0;
    // Forward FLOPs: per token (plus the attention term 2·L·s·h of Kaplan et al., §3b) times the
    // tokens, or per sample at the reference input scaled by the pixel count.
    const double per_token = p ? p->flops_per_token * flops_scale : 2.0 * params_per_token();
    if (kind == ModelKind::transformer && per_token > 0) {
        const double attention_flops = 2.0 * s.layers * static_cast<double>(seq_len) * s.hidden;
        return (per_token + attention_flops) * seq_len;
    }
    if (p) return p->flops_per_sample * scale_area * flops_scale;
    return 0;
}

double Workload::activation_bytes_per_sample(bool checkpointed, Attention att, int tensor_parallel) const {
    const double t = std::max(1, tensor_parallel);
    if (kind == ModelKind::transformer || kind == ModelKind::speech) {
        // Korthikanti et al. per layer with tensor + sequence parallelism: s·h·(34 + 5·a·s/h)/t;
        // FlashAttention/SDPA never stores the s x s scores, leaving 34·s·h/t. Full recompute keeps
        // the layer inputs (2·s·h/t with sequence parallelism) plus one layer's working set.
        const double sh = static_cast<double>(seq_len) * shape.hidden;
        const double scores =
            att == Attention::eager ? 5.0 * shape.heads * static_cast<double>(seq_len) * seq_len : 0.0;
        const double layer = (34.0 * sh + scores) / t;
        if (checkpointed) return 2.0 * sh / t * shape.layers + layer;
        return layer * shape.layers;
    }
    if (!preset) return 0;
    const double scale_area =
        (preset->reference_image_size > 0 && image_size > 0)
            ? std::pow(static_cast<double>(image_size) / preset->reference_image_size, 2.0)
            : 1.0;
    const double full = preset->activation_mb_per_image * 1e6 * scale_area;
    // Checkpointing at block boundaries keeps block inputs plus one block's working set;
    // we take a quarter of the full figure (an assumption, see docs/methodology.md).
    return checkpointed ? full * 0.25 : full;
}

double Workload::embedding_params() const {
    if (shape.vocab <= 0 || shape.hidden <= 0) return 0;
    // Input embedding and output layer (untied, as in Llama); each vocab x hidden.
    return std::min(params * 0.5, 2.0 * shape.vocab * static_cast<double>(shape.hidden));
}

double Workload::lora_trainable_params() const {
    if (shape.layers <= 0 || shape.hidden <= 0 || shape.heads <= 0)
        return params * 0.01;  // no shape: 1 % (assumption)
    const double h = shape.hidden;
    const double kv = h / shape.heads * std::max(1, shape.kv_heads);
    const double r = lora_rank;
    // q: h -> h, v: h -> kv (GQA); every adapted matrix W (in x out) adds r·(in + out).
    double per_layer = r * (h + h) + r * (h + kv);
    if (lora_targets == LoraTargets::all) {
        // + k and o, and the three MLP matrices (gate, up, down: h <-> ffn); ffn from the
        // parameter count: per layer ≈ 2h² + 2h·kv (attention) + 3h·ffn.
        const double per_layer_params = (params - embedding_params()) / shape.layers;
        const double ffn = std::max(h, (per_layer_params - 2 * h * h - 2 * h * kv) / (3 * h));
        per_layer += r * (h + kv) + r * (h + h) + 3 * r * (h + ffn);
    }
    return per_layer * shape.layers;
}

namespace {

// make_workload's steps, in order: each reads its part of the request into the workload and
// records what it assumed.
class WorkloadBuilder {
public:
    WorkloadBuilder(const Catalog& in, const WorkloadRequest& request) : catalog(in), r(request) {}
    Workload build() {
        resolve_model();
        start_from_preset();
        apply_shape_flags();
        apply_params_override();
        read_task_and_formats();
        read_input_size();
        read_dataset();
        read_memory_knobs();
        read_layout_pins();
        read_serving();
        read_measurement();
        read_flops();
        return std::move(w);
    }

private:
    const Catalog& catalog;
    const WorkloadRequest& r;
    Workload w;
    const ModelPreset* p = nullptr;
    DefaultJob job;
    bool shape_flags = false;  // any of --layers ... --moe-ffn
    // --task serve or batch-inference as typed (inference: decided by the traffic in read_serving).
    enum class TaskMode { unnamed, serve, batch } task_mode = TaskMode::unnamed;
    // Serving a decoder LM: its batch is the concurrency and its sequence the prompt and output.
    bool serves_decoder() const {
        return w.task == Task::inference && w.shape.decoder && w.kind == ModelKind::transformer;
    }

    void assume(std::string text) { w.assumptions.push_back(std::move(text)); }
    void resolve_model();
    void start_from_preset();
    void apply_shape_flags();
    void apply_params_override();
    void read_task_and_formats();
    void read_input_size();
    void read_dataset();
    void read_memory_knobs();
    void read_layout_pins();
    void read_serving();
    void read_service_mode();
    void read_stack();
    void read_measurement();
    void read_flops();
};

// An integer option that must lie in 1..max.
std::optional<int> bounded(std::optional<int> v, const char* flag, int max) {
    if (v && (*v < 1 || *v > max))
        throw UsageError(std::string(flag) + " must be between 1 and " + std::to_string(max));
    return v;
}

void WorkloadBuilder::resolve_model() {
    shape_flags = r.layers || r.hidden || r.heads || r.kv_heads || r.head_dim || r.ffn || r.vocab ||
                  r.experts || r.active_experts || r.moe_ffn;
    if (r.model_config) {
        if (r.model) throw UsageError("--model and --model-config both name a model", "give one of them");
        p = r.model_config.get();
        w.owned_preset = r.model_config;
        for (const auto& d : r.model_config_defaults) assume(d);
    } else if (r.model) {
        p = find_model(catalog, *r.model);
        if (!p) {
            std::vector<std::string> names;
            for (const auto& m : catalog.models) {
                names.push_back(m.id);
                for (const auto& a : m.aliases) names.push_back(a);
            }
            std::string hint =
                "run 'gpuadvise models' for the presets, or describe the model with --model-config FILE, "
                "--params or the shape flags";
            if (auto best = closest_match(*r.model, names))
                hint = "did you mean '" + *best + "'? (" + hint + ")";
            throw UsageError("unknown model '" + *r.model + "'", hint, "model");
        }
        if (!iequals(*r.model, p->id) && fold_name(*r.model) != fold_name(p->id)) {
            w.requested_as = *r.model;
            assume("'" + *r.model + "' means " + p->id + " (" + p->name + ")");
        }
    } else if (!r.params && !shape_flags) {
        throw UsageError("no model given",
                         "name a preset with --model (see 'gpuadvise models'), read a config.json with "
                         "--model-config FILE, or give --params (e.g. --params 7B) or the shape flags");
    }
}

void WorkloadBuilder::start_from_preset() {
    w.preset = p;
    if (p) {
        w.model_id = p->id;
        w.model_name = p->name;
        w.kind = p->kind;
        w.unit = p->unit;
        w.params = p->params;
        w.shape = p->shape;
        w.weights = p->weights;
        w.weights_scope = p->weights_scope;
        job = p->default_job;
    } else {
        w.model_id = "custom";
        w.kind = ModelKind::transformer;
        w.unit = "tokens";
        if (r.params) {
            w.params = need_quantity(r.params, "--params");
            w.model_name = "custom " + format_count(w.params) + "-parameter transformer";
            w.shape = shape_for_params(w.params);
            if (!shape_flags)
                assume("custom model shaped like Llama: " + std::to_string(w.shape.layers) +
                       " layers, hidden " + std::to_string(w.shape.hidden) + ", " +
                       std::to_string(w.shape.heads) + " heads, vocabulary 32000");
        } else {
            w.shape.decoder = true;
            if (!r.layers || !r.hidden || !r.heads || !r.ffn || !r.vocab)
                throw UsageError(
                    "a custom model from shape flags needs --layers, --hidden, --heads, --ffn and --vocab",
                    "give the missing ones (or --params N for a model known only by its size)");
        }
        job.task = "finetune";
        job.seq_len = 2048;
        job.batch_size = 4;
        job.samples = 50000;
        job.epochs = 1;
        job.grad_checkpointing = true;
        job.description = "50,000 sequences of 2,048 tokens, 1 epoch";
    }
}

void WorkloadBuilder::apply_shape_flags() {
    if (shape_flags) {
        if (w.kind != ModelKind::transformer || w.shape.patch_size > 0)
            throw UsageError("the shape flags (--layers … --moe-ffn) describe language models; " +
                             w.model_id + " is not one");
        TransformerShape& s = w.shape;
        const bool kv_given = r.kv_heads.has_value();
        if (auto v = bounded(r.layers, "--layers", 10000)) s.layers = *v;
        if (auto v = bounded(r.hidden, "--hidden", 1000000)) s.hidden = *v;
        if (auto v = bounded(r.heads, "--heads", 100000)) {
            s.heads = *v;
            if (!kv_given && (s.kv_heads == 0 || s.heads % s.kv_heads != 0)) s.kv_heads = s.heads;
        }
        if (auto v = bounded(r.kv_heads, "--kv-heads", 100000)) s.kv_heads = *v;
        if (auto v = bounded(r.head_dim, "--head-dim", 100000)) s.head_dim = *v;
        if (auto v = bounded(r.ffn, "--ffn", 10000000)) s.ffn = *v;
        if (auto v = bounded(r.vocab, "--vocab", 100000000)) s.vocab = *v;
        if (auto v = bounded(r.experts, "--experts", 100000)) s.experts = *v;
        if (auto v = bounded(r.active_experts, "--active-experts", 100000)) s.active_experts = *v;
        if (auto v = bounded(r.moe_ffn, "--moe-ffn", 10000000)) s.moe_ffn = *v;
        if (s.kv_heads <= 0) s.kv_heads = s.heads;
        if (s.kv_heads > s.heads || s.heads % s.kv_heads != 0)
            throw UsageError("--kv-heads " + std::to_string(s.kv_heads) + " must divide --heads " +
                             std::to_string(s.heads));
        if (s.head_dim == 0 && s.hidden % s.heads != 0)
            throw UsageError("--hidden " + std::to_string(s.hidden) + " is not a multiple of --heads " +
                                 std::to_string(s.heads),
                             "give --head-dim");
        if ((r.active_experts || r.moe_ffn) && s.experts == 0)
            throw UsageError(
                "--active-experts and --moe-ffn describe a mixture of experts; give --experts too");
        if (s.experts > 0) {
            if (s.active_experts == 0)
                throw UsageError("--experts needs --active-experts (experts per token)");
            if (s.active_experts > s.experts)
                throw UsageError("--active-experts " + std::to_string(s.active_experts) +
                                 " exceeds --experts " + std::to_string(s.experts));
            if (s.moe_ffn == 0) s.moe_ffn = s.ffn;
        }
        if (s.vocab > 0 && s.ffn == 0 && !r.params)
            throw UsageError("the parameter count needs --ffn (the MLP width, intermediate_size)");
        if (s.complete() && !r.params) {
            const ParamCount c = count_params(s);
            if (c.total() > 1e15) throw UsageError("the shape gives more than 10^15 parameters");
            w.params = c.total();
            if (!p) w.model_name = "custom " + format_count(w.params) + "-parameter transformer";
            assume("parameters from the shape: " + format_count(c.total()) + " total" +
                   (s.moe() ? ", " + format_count(c.active()) + " active per token" : std::string()) +
                   " (gated MLP, untied embeddings, 2 norms per layer unless the preset says otherwise)");
            if (p) w.flops_per_token_override = 2 * c.active_compute();
        }
    }
}

void WorkloadBuilder::apply_params_override() {
    if (p && r.params) {
        w.params = need_quantity(r.params, "--params");
        assume("parameters overridden to " + format_count(w.params) + "; FLOPs scaled with them");
    }
}

// Task, precision, optimizer.
void WorkloadBuilder::read_task_and_formats() {
    if (r.task && (same_name(*r.task, "serve") || same_name(*r.task, "batch-inference"))) {
        w.task = Task::inference;
        task_mode = same_name(*r.task, "serve") ? TaskMode::serve : TaskMode::batch;
    } else if (r.task)
        w.task = need_enum<Task>(r.task, parse_task, "--task",
                                 {"train", "finetune", "lora", "qlora", "inference", "serve", "batch-inference"});
    else {
        w.task = parse_task(job.task).value_or(Task::train);
        assume("task " + std::string(to_string(w.task)) +
               (job.description.empty() ? "" : ": " + job.description));
    }
    if (r.precision) {
        try {
            w.precision = kPrecisionNames.parse_or_throw(*r.precision, "--precision");
        } catch (const UsageError& e) {
            throw UsageError(e.what(), e.hint(), "precision");
        }
    } else {
        assume(
            "mixed precision (AMP): bf16 on GPUs with compute capability >= 8.0, fp16 with loss scaling "
            "below");
    }
    if (r.weights) {
        w.weights = kWeightFormatNames.parse_or_throw(*r.weights, "--weights");
        if (w.weights != (p ? p->weights : std::nullopt) && p && p->weights_scope == QuantScope::experts)
            w.weights_scope = QuantScope::linear;  // a format of the user's own: every linear layer
    } else if (w.weights && !is_16bit(*w.weights)) {
        assume("weights in " + std::string(to_string(*w.weights)) + " as the checkpoint ships them" +
               (w.weights_scope == QuantScope::experts ? " (experts only; the rest 16-bit)" : "") +
               " (--weights sets another format)");
    }
    if (r.kv_cache) {
        const Precision kv = kPrecisionNames.parse_or_throw(*r.kv_cache, "--kv-cache");
        if (kv != Precision::fp16 && kv != Precision::bf16 && kv != Precision::fp8)
            throw UsageError("--kv-cache: '" + *r.kv_cache + "' is not fp16, bf16 or fp8");
        w.kv_cache = kv;
    }
    if (r.offload) {
        if (*r.offload == "none")
            w.offload = Offload::none;
        else if (*r.offload == "optimizer")
            w.offload = Offload::optimizer;
        else if (*r.offload == "params")
            w.offload = Offload::params;
        else
            throw UsageError("--offload: unknown value '" + *r.offload + "'",
                             "expected none, optimizer or params");
        if (w.offload != Offload::none && w.task == Task::inference)
            throw UsageError("--offload applies to training (ZeRO-Offload / FSDP CPU offload)");
    }
    if (r.optimizer)
        w.optimizer =
            need_enum<Optimizer>(r.optimizer, parse_optimizer, "--optimizer", {"adamw", "sgd", "adam8bit"});
    else if (w.is_training()) {
        w.optimizer = w.kind == ModelKind::cnn ? Optimizer::sgd : Optimizer::adamw;
        assume("optimizer " + std::string(to_string(w.optimizer)) +
               (w.kind == ModelKind::cnn ? " with momentum" : ""));
    }
}

// Input size and batch.
void WorkloadBuilder::read_input_size() {
    bounded(r.batch_size, "--batch-size", 1000000);
    bounded(r.seq_len, "--seq-len", 10000000);
    bounded(r.image_size, "--image-size", 100000);
    w.batch_size = r.batch_size.value_or(job.batch_size > 0 ? job.batch_size : 1);
    if (!r.batch_size && !serves_decoder()) assume("batch size " + std::to_string(w.batch_size) + " per GPU");
    if (w.kind == ModelKind::cnn || w.kind == ModelKind::diffusion || w.shape.patch_size > 0) {
        w.set_image_size(
            r.image_size.value_or(job.image_size > 0 ? job.image_size : (p ? p->reference_image_size : 224)));
        if (!r.image_size)
            assume("image size " + std::to_string(w.image_size) + "x" + std::to_string(w.image_size));
    } else if (r.image_size) {
        throw UsageError("--image-size applies to vision models; " + w.model_id + " takes --seq-len");
    }
    if (w.kind == ModelKind::transformer && w.shape.patch_size == 0) {
        w.seq_len = r.seq_len.value_or(job.seq_len > 0 ? job.seq_len : (p ? p->reference_seq_len : 2048));
        if (!r.seq_len && !serves_decoder()) assume("sequence length " + std::to_string(w.seq_len) + " tokens");
        if (p && p->max_seq_len > 0 && w.seq_len > p->max_seq_len)
            throw UsageError("--seq-len " + std::to_string(w.seq_len) + " exceeds " + p->id +
                             "'s context of " + std::to_string(p->max_seq_len) + " tokens");
    } else if (w.kind == ModelKind::speech) {
        w.seq_len = p ? p->reference_seq_len : 1500;
        if (r.seq_len)
            throw UsageError("--seq-len does not apply to " + w.model_id + " (fixed 30 s audio windows)");
    } else if (r.seq_len && w.shape.patch_size == 0) {
        throw UsageError("--seq-len applies to transformers; " + w.model_id + " takes --image-size");
    }
}

// Dataset size and epochs.
void WorkloadBuilder::read_dataset() {
    if (r.tokens) {
        if (w.seq_len <= 0 || w.shape.patch_size > 0)
            throw UsageError("--tokens applies to text models; use --samples");
        w.samples = need_quantity(r.tokens, "--tokens") / w.seq_len;
    } else if (r.samples) {
        w.samples = need_quantity(r.samples, "--samples");
    } else if (serves_decoder()) {
        // A run of an offline (batch) inference job is its requests; an online service has none.
        w.samples = job.samples > 0 ? job.samples : 10000;
    } else {
        w.samples = job.samples > 0 ? job.samples : 10000;
        std::string what = w.seq_len > 0 && w.shape.patch_size == 0
                               ? " (" + format_count(w.samples * w.seq_len) + " tokens)"
                               : "";
        assume("dataset of " + format_count(w.samples) + " samples" + what);
    }
    if (r.epochs && (!(*r.epochs > 0) || *r.epochs > 1e6))
        throw UsageError("--epochs must be a positive number of at most 1e6");
    w.epochs = w.is_training() ? r.epochs.value_or(job.epochs > 0 ? job.epochs : 1) : r.epochs.value_or(1);
    if (!r.epochs && w.is_training()) {
        std::ostringstream ss;
        ss << w.epochs;
        assume(ss.str() + " epoch" + (w.epochs == 1 ? "" : "s"));
    }
}

// Memory knobs.
void WorkloadBuilder::read_memory_knobs() {
    if (r.zero_stage && (*r.zero_stage < 0 || *r.zero_stage > 3))
        throw UsageError("--zero must be 0, 1, 2 or 3");
    w.zero_stage = r.zero_stage.value_or(0);
    w.zero_pinned = r.zero_stage.has_value();
    w.grad_checkpointing_pinned = r.grad_checkpointing.has_value();
    const bool adapter = w.is_adapter();
    w.grad_checkpointing =
        r.grad_checkpointing.value_or(w.is_training() && (job.grad_checkpointing || adapter));
    if (!r.grad_checkpointing && w.is_training())
        assume(
            "layout (data/tensor/pipeline parallelism, ZeRO stage, micro-batch, activation checkpointing) "
            "chosen by "
            "the layout planner: the fastest that fits (--tp, --pp, --zero, --micro-batch, "
            "--grad-checkpointing pin it)");
    if (adapter) {
        if (r.lora_rank && (*r.lora_rank < 1 || *r.lora_rank > 4096))
            throw UsageError("--lora-rank must be between 1 and 4096");
        w.lora_rank = r.lora_rank.value_or(8);
        if (r.lora_targets)
            w.lora_targets =
                need_enum<LoraTargets>(r.lora_targets, parse_lora_targets, "--lora-targets", {"qv", "all"});
        std::ostringstream ss;
        ss.precision(2);
        ss << std::fixed << 100 * w.lora_trainable_fraction();
        if (!r.lora_rank || !r.lora_targets)
            assume("LoRA rank " + std::to_string(w.lora_rank) + " on " +
                   (w.lora_targets == LoraTargets::qv
                        ? std::string("the q and v projections (PEFT's default for Llama)")
                        : std::string("every linear layer")) +
                   ": " + ss.str() + " % of the parameters train");
    } else if (r.lora_rank || r.lora_targets) {
        throw UsageError("--lora-rank and --lora-targets apply to --task lora or qlora");
    }
    if (r.attention)
        w.attention = need_enum<Attention>(r.attention, parse_attention, "--attention", {"flash", "eager"});
}

// Layout pins.
void WorkloadBuilder::read_layout_pins() {
    w.pins.tensor = bounded(r.tensor_parallel, "--tp", 64);
    w.pins.pipeline = bounded(r.pipeline_parallel, "--pp", 1024);
    w.pins.micro_batch = bounded(r.micro_batch, "--micro-batch", 1000000);
    w.pins.expert = bounded(r.expert_parallel, "--ep", 4096);
    if (w.pins.expert) {
        if (!w.shape.moe())
            throw UsageError("--ep applies to a mixture of experts; " + w.model_id + " is dense");
        if ((*w.pins.expert & (*w.pins.expert - 1)) != 0 || w.shape.experts % *w.pins.expert != 0)
            throw UsageError("--ep must be a power of two dividing the " + std::to_string(w.shape.experts) +
                             " experts");
    }
    if (w.pins.tensor && (*w.pins.tensor & (*w.pins.tensor - 1)) != 0)
        throw UsageError("--tp must be a power of two (1, 2, 4, 8, ...)");
    if (r.global_batch) {
        std::string text = *r.global_batch;
        bool tokens = false;
        for (std::string_view suffix : {" tokens", "tokens", "t", "tok"}) {
            if (text.size() > suffix.size() &&
                iequals(std::string_view(text).substr(text.size() - suffix.size()), suffix) &&
                !(suffix == "t" &&
                  (text.size() < 2 || !std::isalpha(static_cast<unsigned char>(text[text.size() - 2]))))) {
                text.resize(text.size() - suffix.size());
                tokens = true;
                break;
            }
        }
        auto v = parse_quantity(text);
        if (!v)
            throw UsageError(
                "--global-batch: '" + *r.global_batch + "' is not a positive number",
                "give sequences (--global-batch 1024) or tokens (--global-batch 4Mt, '4M tokens')");
        if (tokens) {
            if (w.seq_len <= 0)
                throw UsageError("--global-batch in tokens needs a token model; give sequences");
            *v /= w.seq_len;
        }
        if (*v < 1) throw UsageError("--global-batch is less than one sequence");
        w.pins.global_batch = std::floor(*v + 0.5);
    }
    if (!w.is_training() && (w.pins.pipeline || w.pins.micro_batch || w.pins.global_batch))
        throw UsageError(
            "--pp, --micro-batch and --global-batch apply to training; inference takes --tp and "
            "--concurrency");
}

// Serving.
void WorkloadBuilder::read_serving() {
    w.serving.prompt_len = bounded(r.prompt_len, "--prompt-len", 10000000);
    w.serving.output_len = bounded(r.output_len, "--output-len", 10000000);
    w.serving.concurrency = bounded(r.concurrency, "--concurrency", 1000000);
    if (w.is_training() && (r.prompt_len || r.output_len || r.concurrency))
        throw UsageError("--prompt-len, --output-len and --concurrency apply to --task inference");
    if (w.task == Task::inference && w.zero_stage != 0)
        throw UsageError("--zero applies to training, not inference");
    read_service_mode();
    read_stack();
    if (serves_decoder()) {
        // Serving a decoder LM: prompt + generated tokens; each sample is one request.
        const int context = p && p->max_seq_len > 0 ? p->max_seq_len : 1 << 20;
        const int prompt = w.serving.prompt_len.value_or(r.seq_len.value_or(std::min(1024, context / 2)));
        const int output = w.serving.output_len.value_or(std::min(256, std::max(1, context - prompt)));
        if (prompt + output > context)
            throw UsageError("--prompt-len + --output-len = " + std::to_string(prompt + output) +
                             " exceeds " + w.model_id + "'s context of " + std::to_string(context) +
                             " tokens");
        if (!w.serving.prompt_len || !w.serving.output_len)
            assume("serving: prompts of " + std::to_string(prompt) + " tokens, " + std::to_string(output) +
                   " output tokens per request (set --prompt-len, --output-len)");
        w.serving.prompt_len = prompt;
        w.serving.output_len = output;
        w.seq_len = prompt + output;
    } else if (r.prompt_len || r.output_len || r.concurrency) {
        throw UsageError(
            "--prompt-len, --output-len and --concurrency apply to decoder language models (e.g. "
            "llama-2-7b)");
    }
}

// The training stack (stack.hpp): stated for every training job, its factor from a published run.
void WorkloadBuilder::read_stack() {
    if (!w.is_training()) {
        if (r.stack)
            throw UsageError("--stack applies to training; serving takes --engine vllm|sglang|trt-llm|tgi");
        return;
    }
    if (r.stack) {
        w.stack = kTrainingStackNames.parse_or_throw(*r.stack, "--stack");
        const StackProfile& s = stack_profile(w.stack);
        assume("training stack: " + std::string(s.name) + ", " + format_fixed(s.efficiency, 2) +
               " x the time model's speed (" + std::string(s.source) + ")");
        return;
    }
    const StackProfile& hf = stack_profile(TrainingStack::hf_trainer);
    assume("training stack: a tuned one (the time model, Megatron class); Hugging Face Trainer fine-tunes run "
           "about " + format_fixed(1 / hf.efficiency, 1) + "x slower (Stanford Alpaca's published run; --stack "
           "hf-trainer|accelerate-fsdp|deepspeed|torchtitan|megatron|nemo)");
}

// Online or offline inference, the latency targets and the engine.
void WorkloadBuilder::read_service_mode() {
    const bool targets = r.ttft_ms || r.tpot_ms;
    if (w.is_training()) {
        if (targets || r.engine)
            throw UsageError("--ttft-ms, --tpot-ms and --engine apply to serving (--task serve)");
        return;
    }
    if (!serves_decoder()) {
        if (task_mode == TaskMode::serve || targets || r.engine)
            throw UsageError("--task serve, --ttft-ms, --tpot-ms and --engine size the serving of a decoder "
                             "language model (e.g. llama-3-8b); " + w.model_id + " is not one",
                             "use --task batch-inference (or inference) for " + w.model_id);
        return;
    }
    if (task_mode == TaskMode::batch && targets)
        throw UsageError("--ttft-ms and --tpot-ms are targets of an online service, not of --task batch-inference",
                         "use --task serve with latency targets");
    w.serving.online = task_mode == TaskMode::serve ||
                       (task_mode == TaskMode::unnamed && (r.online_traffic || targets));
    if (task_mode == TaskMode::unnamed)
        assume(w.serving.online
                   ? "--task inference read as --task serve: an online service, its replicas up while users "
                     "may call, sized to the peak (--task batch-inference prices a volume of tokens as runs)"
                   : "--task inference read as --task batch-inference: a volume of requests run as batch "
                     "jobs (--task serve sizes an online service to its peak and latency targets)");
    auto target = [&](const std::optional<double>& ms, const char* flag) -> std::optional<double> {
        if (!ms) return std::nullopt;
        if (!(*ms >= 1) || *ms > 3.6e6)
            throw UsageError(std::string(flag) + " must be between 1 and 3600000 milliseconds", "e.g. " +
                             std::string(flag) + " 200");
        return *ms / 1000.0;
    };
    if (auto v = target(r.ttft_ms, "--ttft-ms")) {
        w.serving.targets.ttft_s = *v;
        w.serving.targets.ttft_given = true;
    }
    if (auto v = target(r.tpot_ms, "--tpot-ms")) {
        w.serving.targets.tpot_s = *v;
        w.serving.targets.tpot_given = true;
    }
    if (w.serving.online && (!r.ttft_ms || !r.tpot_ms))
        assume("latency targets at the peak: time to first token " +
               format_number(w.serving.targets.ttft_s * 1000) + " ms" + (r.ttft_ms ? " (--ttft-ms)" : "") + ", " +
               format_number(w.serving.targets.tpot_s * 1000) + " ms per output token" +
               (r.tpot_ms ? " (--tpot-ms)" : "") +
               "; the defaults are MLPerf Inference's server targets for Llama-2-70B (--ttft-ms, --tpot-ms)");
    if (r.engine) {
        w.serving.engine = kServingEngineNames.parse_or_throw(*r.engine, "--engine");
        w.serving.engine_given = true;
    } else {
        assume("serving engine " + std::string(serving_engine(w.serving.engine).name) +
               " (--engine vllm|sglang|trt-llm|tgi)");
    }
}

// A user's own timing.
void WorkloadBuilder::read_measurement() {
    if (r.hours_per_run || r.measured_on) {
        if (!r.hours_per_run || !r.measured_on)
            throw UsageError("--hours-per-run and --measured-on go together",
                             "e.g. --hours-per-run 10 --measured-on V100");
        if (!(*r.hours_per_run > 0) || *r.hours_per_run > 1e6)
            throw UsageError("--hours-per-run must be a positive number of hours");
        GpuMatch m;
        try {
            m = resolve_gpu_name(catalog, *r.measured_on);
        } catch (const UsageError& e) {
            throw UsageError(e.what(), e.hint(), "measured_on");
        }
        const Gpu* measured = m.gpus.size() == 1 ? m.gpus.front() : nullptr;
        std::vector<std::string> ids;
        for (const Gpu* g : m.gpus) ids.push_back(g->id);
        if (!measured) {
            // A family name: a user who measured "on a V100" rarely knows the variant; take the
            // family's most common cloud variant (GPU data `family_default`) and say so (#13).
            for (const Gpu* g : m.gpus)
                if (!g->family_default.empty()) {
                    measured = g;
                    std::vector<std::string> others;
                    for (const auto& id : ids)
                        if (id != g->id) others.push_back(id);
                    assume("--measured-on " + *r.measured_on + " read as " + g->id +
                           ", the family's most common cloud variant (" + g->family_default +
                           "); name another with --measured-on " + join(others, " or "));
                    break;
                }
        }
        if (!measured)
            throw UsageError("--measured-on '" + *r.measured_on + "' is ambiguous",
                             "name the variant: " + join(ids, ", "), "measured_on");
        w.measured_hours = *r.hours_per_run;
        w.measured_on = measured;
        w.measured_gpu_count = r.measured_gpu_count.value_or(1);
        if (w.measured_gpu_count < 1 || w.measured_gpu_count > 4096)
            throw UsageError("the measured GPU count must be 1 to 4096");
    }
}

void WorkloadBuilder::read_flops() {
    if (r.flops_per_sample)
        w.flops_per_sample_override = need_quantity(r.flops_per_sample, "--flops-per-sample");
    else if (r.flops_per_token) {
        if (w.seq_len <= 0) throw UsageError("--flops-per-token needs a token model; use --flops-per-sample");
        w.flops_per_token_override = need_quantity(r.flops_per_token, "--flops-per-token");
    } else if (p && r.params) {
        w.flops_scale = w.params / p->params;
    }
    if (!p && !r.flops_per_sample && !r.flops_per_token)
        assume(w.shape.complete() ? "forward FLOPs = 2 x the " + format_count(w.params_per_token()) +
                                        " parameters a token multiplies by, plus attention"
                                  : std::string("forward FLOPs = 2 x parameters per token, plus attention"));
}

}  // namespace

Workload make_workload(const Catalog& catalog, const WorkloadRequest& r) {
    return WorkloadBuilder(catalog, r).build();
}

}  // namespace gpuadvise
