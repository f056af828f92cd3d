// Readers for the models and calibration sections (data/models.yaml). Every problem is reported
// with its location; a preset with errors is not added. Calibration points naming a GPU or model
// that is not in the catalog are ignored by the estimate (the GPU catalog may be replaced by
// --no-default-catalog), so they are not load errors.
#include <set>

#include "gpuadvise/base/text.hpp"
#include "gpuadvise/model/workload.hpp"
#include "io/catalog_sections.hpp"

namespace gpuadvise::io {
namespace {

int as_int(std::optional<long long> v) { return v ? static_cast<int>(*v) : 0; }

void read_shape(const YAML::Node& node, const std::string& path, YamlContext& ctx, TransformerShape& s) {
    if (!ctx.expect_map(node, path)) return;
    ctx.check_keys(node, path,
                   {"layers",
                    "hidden",
                    "heads",
                    "kv_heads",
                    "vocab",
                    "patch_size",
                    "decoder",
                    "head_dim",
                    "ffn",
                    "tied_embeddings",
                    "sliding_window",
                    "sliding_layers",
                    "norms_per_layer",
                    "qkv_bias",
                    "o_bias",
                    "qk_norm",
                    "attention_sinks",
                    "experts",
                    "active_experts",
                    "moe_ffn",
                    "shared_experts",
                    "shared_ffn",
                    "shared_expert_gate",
                    "dense_layers",
                    "expert_bias",
                    "router_score_bias",
                    "kv_lora_rank",
                    "q_lora_rank",
                    "qk_rope_dim",
                    "qk_nope_dim",
                    "v_head_dim"});
    s.layers = as_int(ctx.integer(node, path, "layers", true, 1, 10000));
    s.hidden = as_int(ctx.integer(node, path, "hidden", true, 1, 1000000));
    s.heads = as_int(ctx.integer(node, path, "heads", true, 1, 10000));
    s.kv_heads = as_int(ctx.integer(node, path, "kv_heads", false, 1, 10000));
    if (s.kv_heads == 0) s.kv_heads = s.heads;
    s.vocab = as_int(ctx.integer(node, path, "vocab", false, 0, 100000000));
    s.patch_size = as_int(ctx.integer(node, path, "patch_size", false, 1, 10000));
    s.decoder = ctx.boolean(node, path, "decoder").value_or(false);
    // The full shape (count_params): dense width, attention details, experts, MLA.
    s.head_dim = as_int(ctx.integer(node, path, "head_dim", false, 1, 100000));
    s.ffn = as_int(ctx.integer(node, path, "ffn", false, 1, 10000000));
    s.tied_embeddings = ctx.boolean(node, path, "tied_embeddings").value_or(false);
    s.sliding_window = as_int(ctx.integer(node, path, "sliding_window", false, 1, 100000000));
    s.sliding_layers = as_int(ctx.integer(node, path, "sliding_layers", false, 0, 10000));
    s.norms_per_layer =
        node["norms_per_layer"] ? as_int(ctx.integer(node, path, "norms_per_layer", false, 0, 16)) : 2;
    s.qkv_bias = ctx.boolean(node, path, "qkv_bias").value_or(false);
    s.o_bias = ctx.boolean(node, path, "o_bias").value_or(false);
    s.qk_norm = ctx.boolean(node, path, "qk_norm").value_or(false);
    s.attention_sinks = ctx.boolean(node, path, "attention_sinks").value_or(false);
    s.experts = as_int(ctx.integer(node, path, "experts", false, 1, 100000));
    s.active_experts = as_int(ctx.integer(node, path, "active_experts", s.experts > 0, 1, 100000));
    s.moe_ffn = as_int(ctx.integer(node, path, "moe_ffn", false, 1, 10000000));
    s.shared_experts = as_int(ctx.integer(node, path, "shared_experts", false, 0, 1000));
    s.shared_ffn = as_int(ctx.integer(node, path, "shared_ffn", false, 1, 10000000));
    s.shared_expert_gate = ctx.boolean(node, path, "shared_expert_gate").value_or(false);
    s.dense_layers = as_int(ctx.integer(node, path, "dense_layers", false, 0, 10000));
    s.expert_bias = ctx.boolean(node, path, "expert_bias").value_or(false);
    s.router_score_bias = ctx.boolean(node, path, "router_score_bias").value_or(false);
    s.kv_lora_rank = as_int(ctx.integer(node, path, "kv_lora_rank", false, 1, 1000000));
    s.q_lora_rank = as_int(ctx.integer(node, path, "q_lora_rank", false, 1, 1000000));
    s.qk_rope_dim = as_int(ctx.integer(node, path, "qk_rope_dim", s.kv_lora_rank > 0, 1, 100000));
    s.qk_nope_dim = as_int(ctx.integer(node, path, "qk_nope_dim", s.kv_lora_rank > 0, 1, 100000));
    s.v_head_dim = as_int(ctx.integer(node, path, "v_head_dim", s.kv_lora_rank > 0, 1, 100000));
    if (s.heads > 0 && s.head_dim == 0 && s.hidden % s.heads != 0)
        ctx.error(node, path, "hidden must be a multiple of heads (or give head_dim)");
    if (s.kv_heads > 0 && s.heads % s.kv_heads != 0) ctx.error(node, path, "kv_heads must divide heads");
    if (s.active_experts > s.experts) ctx.error(node, path, "active_experts exceeds experts");
    if (s.dense_layers > s.layers) ctx.error(node, path, "dense_layers exceeds layers");
    if (s.sliding_layers > s.layers) ctx.error(node, path, "sliding_layers exceeds layers");
    if (s.sliding_layers > 0 && s.sliding_window == 0)
        ctx.error(node, path, "sliding_layers needs sliding_window");
    if (s.ffn > 0 && s.vocab == 0) ctx.error(node, path, "a full shape (ffn) needs vocab");
}

void read_job(const YAML::Node& node, const std::string& path, YamlContext& ctx, DefaultJob& j) {
    if (!ctx.expect_map(node, path)) return;
    ctx.check_keys(node, path,
                   {"task", "samples", "epochs", "batch_size", "seq_len", "image_size", "grad_checkpointing",
                    "description"});
    j.task = ctx.text(node, path, "task", true).value_or("train");
    if (!parse_task(j.task))
        ctx.error(node["task"], key_path(path, "task"),
                  "unknown task '" + j.task + "'; expected train, finetune, lora, qlora or inference");
    j.samples = ctx.number(node, path, "samples", true, 1, 1e15).value_or(0);
    j.epochs = ctx.number(node, path, "epochs", false, 0.001, 1e6).value_or(1);
    j.batch_size = as_int(ctx.integer(node, path, "batch_size", true, 1, 1000000));
    j.seq_len = as_int(ctx.integer(node, path, "seq_len", false, 1, 10000000));
    j.image_size = as_int(ctx.integer(node, path, "image_size", false, 1, 100000));
    j.grad_checkpointing = ctx.boolean(node, path, "grad_checkpointing").value_or(false);
    j.description = ctx.text(node, path, "description", true).value_or("");
}

}  // namespace

void read_models_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_sequence(node, "models")) return;
    std::set<std::string> names;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const YAML::Node item = node[i];
        const std::string path = index_path("models", i);
        if (!ctx.expect_map(item, path)) continue;
        const std::size_t errors_before = ctx.diagnostics().error_count();
        ctx.check_keys(item, path,
                       {"id",
                        "aliases",
                        "name",
                        "kind",
                        "unit",
                        "params",
                        "flops_per_token",
                        "flops_per_sample",
                        "reference_image_size",
                        "reference_seq_len",
                        "max_seq_len",
                        "activation_mb_per_image",
                        "activation_basis",
                        "shape",
                        "inference_passes",
                        "default_job",
                        "uncertain",
                        "weights",
                        "weights_scope",
                        "source",
                        "notes"});
        ModelPreset m;
        m.where = ctx.where(item);
        m.id = ctx.text(item, path, "id", true).value_or("");
        m.aliases = ctx.text_list(item, path, "aliases");
        m.name = ctx.text(item, path, "name").value_or(m.id);
        const std::string kind = ctx.text(item, path, "kind", true).value_or("transformer");
        if (auto k = parse_model_kind(kind))
            m.kind = *k;
        else
            ctx.error(item["kind"], key_path(path, "kind"),
                      "unknown kind '" + kind + "'; expected cnn, transformer, diffusion or speech");
        m.unit = ctx.text(item, path, "unit", true).value_or("samples");
        if (m.unit != "images" && m.unit != "sequences" && m.unit != "tokens" && m.unit != "windows")
            ctx.error(item["unit"], key_path(path, "unit"),
                      "unknown unit '" + m.unit + "'; expected images, sequences, tokens or windows");
        // A full shape (ffn given) counts its own parameters; `params` then must not be typed again.
        const bool full_shape = item["shape"] && item["shape"].IsMap() && item["shape"]["ffn"];
        if (full_shape && item["params"])
            ctx.error(item["params"], key_path(path, "params"),
                      "the shape counts the parameters (it gives ffn); remove params");
        m.params = ctx.number(item, path, "params", !full_shape, 1, 1e15).value_or(0);
        m.flops_per_token = ctx.number(item, path, "flops_per_token", false, 1, 1e18).value_or(0);
        m.flops_per_sample = ctx.number(item, path, "flops_per_sample", false, 1, 1e21).value_or(0);
        m.reference_image_size = as_int(ctx.integer(item, path, "reference_image_size", false, 1, 100000));
        m.reference_seq_len = as_int(ctx.integer(item, path, "reference_seq_len", false, 1, 10000000));
        m.max_seq_len = as_int(ctx.integer(item, path, "max_seq_len", false, 1, 100000000));
        m.activation_mb_per_image =
            ctx.number(item, path, "activation_mb_per_image", false, 0.0001, 1e7).value_or(0);
        m.activation_basis = ctx.text(item, path, "activation_basis").value_or("");
        m.inference_passes = as_int(ctx.integer(item, path, "inference_passes", false, 1, 100000));
        if (m.inference_passes == 0) m.inference_passes = 1;
        if (item["shape"]) read_shape(item["shape"], key_path(path, "shape"), ctx, m.shape);
        if (full_shape && m.shape.complete()) {
            const ParamCount c = count_params(m.shape);
            m.params = c.total();
            if (m.shape.moe()) m.params_active = c.active();
            if (m.flops_per_token <= 0) m.flops_per_token = 2 * c.active_compute();
        }
        if (auto wf = ctx.text(item, path, "weights")) {
            if (auto f = kWeightFormatNames.parse(*wf))
                m.weights = *f;
            else
                ctx.error(item["weights"], key_path(path, "weights"),
                          "unknown weight format '" + *wf + "'; expected " + kWeightFormatNames.choices());
        }
        if (auto scope = ctx.text(item, path, "weights_scope")) {
            if (*scope == "experts")
                m.weights_scope = QuantScope::experts;
            else if (*scope != "linear")
                ctx.error(item["weights_scope"], key_path(path, "weights_scope"),
                          "unknown scope '" + *scope + "'; expected linear or experts");
        }
        if (item["default_job"])
            read_job(item["default_job"], key_path(path, "default_job"), ctx, m.default_job);
        else
            ctx.error(item, path, "missing required key 'default_job'");
        m.uncertain = ctx.text_list(item, path, "uncertain");
        m.source = ctx.text(item, path, "source", true).value_or("");
        m.notes = ctx.text(item, path, "notes").value_or("");
        // What the estimate formulas need for this kind.
        const bool token_model = m.kind == ModelKind::transformer;
        if (token_model && m.flops_per_token <= 0)
            ctx.error(item, path, "a transformer needs flops_per_token");
        if (!token_model && m.flops_per_sample <= 0)
            ctx.error(item, path, "a " + kind + " model needs flops_per_sample");
        if ((token_model || m.kind == ModelKind::speech) && !item["shape"])
            ctx.error(item, path, "a " + kind + " model needs a shape (layers, hidden, heads)");
        if ((m.kind == ModelKind::cnn || m.kind == ModelKind::diffusion) &&
            (m.activation_mb_per_image <= 0 || m.reference_image_size <= 0))
            ctx.error(item, path,
                      "a " + kind + " model needs activation_mb_per_image and reference_image_size");
        std::set<std::string> own;
        for (const std::string& n : m.aliases) own.insert(fold_name(n));
        own.insert(fold_name(m.id));
        for (const std::string& n : own)
            if (!names.insert(n).second) ctx.error(item, path, "name '" + n + "' is used by another preset");
        if (ctx.diagnostics().error_count() == errors_before) out.models.push_back(std::move(m));
    }
}

void read_calibration_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_sequence(node, "calibration")) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const YAML::Node item = node[i];
        const std::string path = index_path("calibration", i);
        if (!ctx.expect_map(item, path)) continue;
        const std::size_t errors_before = ctx.diagnostics().error_count();
        ctx.check_keys(item, path,
                       {"model", "gpu", "precision", "throughput", "throughput_high", "unit", "gpu_count",
                        "batch_size", "seq_len", "image_size", "source"});
        CalibrationPoint c;
        c.where = ctx.where(item);
        c.model = ctx.text(item, path, "model", true).value_or("");
        c.gpu = ctx.text(item, path, "gpu", true).value_or("");
        c.precision = to_lower(ctx.text(item, path, "precision").value_or("amp"));
        if (c.precision != "amp" && c.precision != "fp32" && c.precision != "tf32" && c.precision != "fp8")
            ctx.error(item["precision"], key_path(path, "precision"),
                      "unknown precision '" + c.precision + "'; expected amp, fp32, tf32 or fp8");
        c.throughput = ctx.number(item, path, "throughput", true, 1e-9, 1e15).value_or(0);
        c.throughput_high = ctx.number(item, path, "throughput_high", false, 1e-9, 1e15).value_or(0);
        if (c.throughput_high > 0 && c.throughput_high < c.throughput)
            ctx.error(item["throughput_high"], key_path(path, "throughput_high"),
                      "must not be below throughput");
        c.unit = ctx.text(item, path, "unit", true).value_or("");
        c.gpu_count = as_int(ctx.integer(item, path, "gpu_count", false, 1, 100000));
        if (c.gpu_count == 0) c.gpu_count = 1;
        c.batch_size = as_int(ctx.integer(item, path, "batch_size", false, 1, 1000000));
        c.seq_len = as_int(ctx.integer(item, path, "seq_len", false, 1, 10000000));
        c.image_size = as_int(ctx.integer(item, path, "image_size", false, 1, 100000));
        c.source = ctx.text(item, path, "source", true).value_or("");
        // The unit must be the preset's when the preset is in this document.
        for (const auto& m : out.models)
            if (m.id == c.model && m.unit != c.unit)
                ctx.error(item["unit"], key_path(path, "unit"),
                          "unit '" + c.unit + "' differs from " + m.id + "'s unit '" + m.unit + "'");
        if (ctx.diagnostics().error_count() == errors_before) out.calibration.push_back(std::move(c));
    }
}

}  // namespace gpuadvise::io
