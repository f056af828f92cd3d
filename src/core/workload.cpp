// Building a Workload from a request: preset resolution, custom models, defaults (each recorded
// as an assumption) and the input-size-dependent quantities of gpu-facts §3a/§3b.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "gpuadvise/errors.hpp"
#include "gpuadvise/gpu_query.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {
namespace {

std::string fmt_count(double v) {
    std::ostringstream ss;
    ss.precision(3);
    if (v >= 1e9) ss << v / 1e9 << "B";
    else if (v >= 1e6) ss << v / 1e6 << "M";
    else if (v >= 1e3) ss << v / 1e3 << "k";
    else ss << v;
    return ss.str();
}

double need_quantity(const std::optional<std::string>& text, const char* flag) {
    auto v = parse_quantity(*text);
    if (!v) throw UsageError(std::string(flag) + ": '" + *text + "' is not a positive number of at most 1e18",
                             "use a number with an optional k, M, B or T suffix, e.g. 7B, 350M, 1.28M");
    return *v;
}

template <typename T>
T need_enum(const std::optional<std::string>& text, std::optional<T> (*parse)(std::string_view), const char* flag,
            const std::vector<std::string>& names) {
    if (auto v = parse(*text)) return *v;
    std::string hint = "expected one of: " + join(names, ", ");
    if (auto best = closest_match(*text, names)) hint = "did you mean '" + *best + "'? " + hint;
    throw UsageError(std::string(flag) + ": unknown value '" + *text + "'", hint);
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

std::optional<double> parse_quantity(std::string_view text) {
    std::string t(text);
    while (!t.empty() && t.back() == ' ') t.pop_back();
    if (t.empty()) return std::nullopt;
    double scale = 1;
    switch (t.back()) {
        case 'k': case 'K': scale = 1e3; break;
        case 'm': case 'M': scale = 1e6; break;
        case 'b': case 'B': case 'g': case 'G': scale = 1e9; break;
        case 't': case 'T': scale = 1e12; break;
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

void update_derived(Workload& w) {
    const ModelPreset* p = w.preset;
    const TransformerShape& s = w.shape;
    const double scale_area =
        (p && p->reference_image_size > 0 && w.image_size > 0)
            ? std::pow(static_cast<double>(w.image_size) / p->reference_image_size, 2.0)
            : 1.0;
    if (s.patch_size > 0 && w.image_size > 0) {
        const int side = w.image_size / s.patch_size;
        w.seq_len = side * side + 1;
    }
    // Forward FLOPs: per token (plus the attention term 2·L·s·h of Kaplan et al., §3b) times the
    // tokens, or per sample at the reference input scaled by the pixel count.
    const double per_token = p ? p->flops_per_token : 2.0 * w.params;
    if (w.kind == ModelKind::transformer && per_token > 0) {
        const double attention = 2.0 * s.layers * static_cast<double>(w.seq_len) * s.hidden;
        w.forward_flops_per_sample = (per_token + attention) * w.seq_len;
    } else if (p) {
        w.forward_flops_per_sample = p->flops_per_sample * scale_area;
    }
    // Activations kept for backward, 16-bit (§3a). Transformers: Korthikanti per layer
    // s·h·(34 + 5·a·s/h); we assume PyTorch SDPA/FlashAttention, which never stores the s×s
    // scores, leaving 34·s·h; full recompute keeps 2·s·h per layer plus one layer's working set.
    if (w.kind == ModelKind::transformer || w.kind == ModelKind::speech) {
        const double sh = static_cast<double>(w.seq_len) * s.hidden;
        w.activation_bytes_per_sample = 34.0 * sh * s.layers;
        w.checkpointed_activation_bytes_per_sample = 2.0 * sh * s.layers + 34.0 * sh;
        w.layers = s.layers;
    } else if (p) {
        w.activation_bytes_per_sample = p->activation_mb_per_image * 1e6 * scale_area;
        // Checkpointing at block boundaries keeps block inputs plus one block's working set;
        // we take a quarter of the full figure (an assumption, see docs/methodology.md).
        w.checkpointed_activation_bytes_per_sample = w.activation_bytes_per_sample * 0.25;
    }
}

Workload make_workload(const Catalog& catalog, const WorkloadRequest& r) {
    Workload w;
    auto assume = [&](std::string text) { w.assumptions.push_back(std::move(text)); };
    const ModelPreset* p = nullptr;
    if (r.model) {
        p = find_model(catalog, *r.model);
        if (!p) {
            std::vector<std::string> names;
            for (const auto& m : catalog.models) {
                names.push_back(m.id);
                for (const auto& a : m.aliases) names.push_back(a);
            }
            std::string hint = "run 'gpuadvise models' for the presets, or describe a custom model with --params";
            if (auto best = closest_match(*r.model, names)) hint = "did you mean '" + *best + "'? (" + hint + ")";
            throw UsageError("unknown model '" + *r.model + "'", hint);
        }
        if (!iequals(*r.model, p->id) && fold_name(*r.model) != fold_name(p->id)) {
            w.requested_as = *r.model;
            assume("'" + *r.model + "' means " + p->id + " (" + p->name + ")");
        }
    } else if (!r.params) {
        throw UsageError("no model given", "name a preset with --model (see 'gpuadvise models') or give --params, e.g. --params 7B");
    }
    w.preset = p;
    DefaultJob job;
    if (p) {
        w.model_id = p->id;
        w.model_name = p->name;
        w.kind = p->kind;
        w.unit = p->unit;
        w.params = p->params;
        w.shape = p->shape;
        job = p->default_job;
    } else {
        w.model_id = "custom";
        w.params = need_quantity(r.params, "--params");
        w.model_name = "custom " + fmt_count(w.params) + "-parameter transformer";
        w.kind = ModelKind::transformer;
        w.unit = "tokens";
        w.shape = shape_for_params(w.params);
        assume("custom model shaped like Llama: " + std::to_string(w.shape.layers) + " layers, hidden " +
               std::to_string(w.shape.hidden) + ", " + std::to_string(w.shape.heads) + " heads, vocabulary 32000");
        job.task = "finetune";
        job.seq_len = 2048;
        job.batch_size = 4;
        job.samples = 50000;
        job.epochs = 1;
        job.grad_checkpointing = true;
        job.description = "50,000 sequences of 2,048 tokens, 1 epoch";
    }
    if (p && r.params) {
        w.params = need_quantity(r.params, "--params");
        assume("parameters overridden to " + fmt_count(w.params) + "; FLOPs scaled with them");
    }
    // Task, precision, optimizer.
    if (r.task) w.task = need_enum<Task>(r.task, parse_task, "--task", {"train", "finetune", "lora", "qlora", "inference"});
    else {
        w.task = parse_task(job.task).value_or(Task::train);
        assume("task " + std::string(to_string(w.task)) + (job.description.empty() ? "" : ": " + job.description));
    }
    if (r.precision) {
        w.precision = kPrecisionNames.parse_or_throw(*r.precision, "--precision");
    } else {
        assume("mixed precision (AMP): bf16 on GPUs with compute capability >= 8.0, fp16 with loss scaling below");
    }
    if (r.optimizer) w.optimizer = need_enum<Optimizer>(r.optimizer, parse_optimizer, "--optimizer", {"adamw", "sgd", "adam8bit"});
    else if (w.is_training()) {
        w.optimizer = w.kind == ModelKind::cnn ? Optimizer::sgd : Optimizer::adamw;
        assume("optimizer " + std::string(to_string(w.optimizer)) + (w.kind == ModelKind::cnn ? " with momentum" : ""));
    }
    // Input size and batch.
    auto positive = [](std::optional<int> v, const char* flag, int max) {
        if (v && (*v < 1 || *v > max))
            throw UsageError(std::string(flag) + " must be between 1 and " + std::to_string(max));
        return v;
    };
    positive(r.batch_size, "--batch-size", 1000000);
    positive(r.seq_len, "--seq-len", 10000000);
    positive(r.image_size, "--image-size", 100000);
    w.batch_size = r.batch_size.value_or(job.batch_size > 0 ? job.batch_size : 1);
    if (!r.batch_size) assume("batch size " + std::to_string(w.batch_size) + " per GPU");
    if (w.kind == ModelKind::cnn || w.kind == ModelKind::diffusion || w.shape.patch_size > 0) {
        w.image_size = r.image_size.value_or(job.image_size > 0 ? job.image_size : (p ? p->reference_image_size : 224));
        if (!r.image_size) assume("image size " + std::to_string(w.image_size) + "x" + std::to_string(w.image_size));
    } else if (r.image_size) {
        throw UsageError("--image-size applies to vision models; " + w.model_id + " takes --seq-len");
    }
    if (w.kind == ModelKind::transformer && w.shape.patch_size == 0) {
        w.seq_len = r.seq_len.value_or(job.seq_len > 0 ? job.seq_len : (p ? p->reference_seq_len : 2048));
        if (!r.seq_len) assume("sequence length " + std::to_string(w.seq_len) + " tokens");
        if (p && p->max_seq_len > 0 && w.seq_len > p->max_seq_len)
            throw UsageError("--seq-len " + std::to_string(w.seq_len) + " exceeds " + p->id + "'s context of " +
                             std::to_string(p->max_seq_len) + " tokens");
    } else if (w.kind == ModelKind::speech) {
        w.seq_len = p ? p->reference_seq_len : 1500;
        if (r.seq_len) throw UsageError("--seq-len does not apply to " + w.model_id + " (fixed 30 s audio windows)");
    } else if (r.seq_len && w.shape.patch_size == 0) {
        throw UsageError("--seq-len applies to transformers; " + w.model_id + " takes --image-size");
    }
    // Dataset size and epochs.
    if (r.tokens) {
        if (w.seq_len <= 0 || w.shape.patch_size > 0) throw UsageError("--tokens applies to text models; use --samples");
        w.samples = need_quantity(r.tokens, "--tokens") / w.seq_len;
    } else if (r.samples) {
        w.samples = need_quantity(r.samples, "--samples");
    } else {
        w.samples = job.samples > 0 ? job.samples : 10000;
        std::string what = w.seq_len > 0 && w.shape.patch_size == 0 ? " (" + fmt_count(w.samples * w.seq_len) + " tokens)" : "";
        assume("dataset of " + fmt_count(w.samples) + " samples" + what);
    }
    if (r.epochs && (!(*r.epochs > 0) || *r.epochs > 1e6)) throw UsageError("--epochs must be a positive number of at most 1e6");
    w.epochs = w.is_training() ? r.epochs.value_or(job.epochs > 0 ? job.epochs : 1) : r.epochs.value_or(1);
    if (!r.epochs && w.is_training()) {
        std::ostringstream ss;
        ss << w.epochs;
        assume(ss.str() + " epoch" + (w.epochs == 1 ? "" : "s"));
    }
    // Memory knobs.
    if (r.zero_stage && (*r.zero_stage < 0 || *r.zero_stage > 3)) throw UsageError("--zero must be 0, 1, 2 or 3");
    w.zero_stage = r.zero_stage.value_or(0);
    const bool adapter = w.task == Task::lora || w.task == Task::qlora;
    w.grad_checkpointing = r.grad_checkpointing.value_or(w.is_training() && (job.grad_checkpointing || adapter));
    if (!r.grad_checkpointing && w.grad_checkpointing) assume("gradient checkpointing on");
    if (adapter) {
        w.lora_trainable_fraction = 0.01;
        assume("LoRA adapters train 1 % of the parameters (rank 16 on every linear layer of Llama-2-7B is 0.6 %)");
    }
    if (w.task == Task::inference && w.zero_stage != 0) throw UsageError("--zero applies to training, not inference");
    // A user's own timing.
    if (r.hours_per_run || r.measured_on) {
        if (!r.hours_per_run || !r.measured_on)
            throw UsageError("--hours-per-run and --measured-on go together", "e.g. --hours-per-run 10 --measured-on V100");
        if (!(*r.hours_per_run > 0) || *r.hours_per_run > 1e6) throw UsageError("--hours-per-run must be a positive number of hours");
        GpuMatch m = resolve_gpu_name(catalog, *r.measured_on);
        if (m.gpus.size() != 1) {
            std::vector<std::string> ids;
            for (const Gpu* g : m.gpus) ids.push_back(g->id);
            throw UsageError("--measured-on '" + *r.measured_on + "' is ambiguous", "name the variant: " + join(ids, ", "));
        }
        w.measured_hours = *r.hours_per_run;
        w.measured_on = m.gpus.front();
        w.measured_gpu_count = r.measured_gpu_count.value_or(1);
        if (w.measured_gpu_count < 1 || w.measured_gpu_count > 4096) throw UsageError("the measured GPU count must be 1 to 4096");
    }
    update_derived(w);
    if (r.flops_per_sample) w.forward_flops_per_sample = need_quantity(r.flops_per_sample, "--flops-per-sample");
    else if (r.flops_per_token) {
        if (w.seq_len <= 0) throw UsageError("--flops-per-token needs a token model; use --flops-per-sample");
        w.forward_flops_per_sample = need_quantity(r.flops_per_token, "--flops-per-token") * w.seq_len;
    } else if (p && r.params) {
        w.forward_flops_per_sample *= w.params / p->params;
    }
    if (!p && !r.flops_per_sample && !r.flops_per_token) assume("forward FLOPs = 2 x parameters per token, plus attention");
    return w;
}

}  // namespace gpuadvise
