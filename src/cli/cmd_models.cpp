// gpuadvise models: the model presets, their parameters and default jobs.
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/help_footer.hpp"
#include "cli/workload_options.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise::cli {
namespace {

struct ModelsOptions {
    std::string kind;
};

// The checkpoint's weight format: "fp8", "mxfp4 (experts)", or "16-bit" (follows --precision).
std::string weights_text(const ModelPreset& m) {
    if (!m.weights) return m.kind == ModelKind::transformer && m.shape.decoder ? "16-bit" : "-";
    std::string s(to_string(*m.weights));
    if (m.weights_scope == QuantScope::experts) s += " (experts)";
    return s;
}

// A context window as model cards write it: 131072 -> "128k", 4096 -> "4k", 128000 -> "128k".
std::string context_text(int tokens) {
    if (tokens <= 0) return "-";
    if (tokens % 1024 == 0 && tokens % 1000 != 0) return std::to_string(tokens / 1024) + "k";
    return format_count(tokens);
}

std::string job_text(const DefaultJob& j) {
    std::string s = j.task + ": " + j.description + ", batch " + std::to_string(j.batch_size);
    if (j.grad_checkpointing) s += ", grad checkpointing";
    return s;
}

// The presets shown (--kind), with the catalog their calibration points are counted in.
struct ModelsResult {
    const Catalog& catalog;
    std::vector<const ModelPreset*> models;
};

nlohmann::ordered_json to_json(const ModelsResult& result) {
    const Catalog& catalog = result.catalog;
    auto json = json_document();
    json["models"] = nlohmann::ordered_json::array();
    for (const ModelPreset* preset : result.models) {
        const ModelPreset& m = *preset;
        nlohmann::ordered_json j;
        j["id"] = m.id;
        j["aliases"] = m.aliases;
        j["params"] = m.params;
        j["kind"] = std::string(to_string(m.kind));
        nlohmann::ordered_json job;
        job["task"] = m.default_job.task;
        job["samples"] = json_number(m.default_job.samples);
        job["epochs"] = json_number(m.default_job.epochs);
        job["batch_size"] = m.default_job.batch_size;
        job["seq_len"] = m.default_job.seq_len > 0 ? nlohmann::ordered_json(m.default_job.seq_len)
                                                   : nlohmann::ordered_json(nullptr);
        job["image_size"] = m.default_job.image_size > 0 ? nlohmann::ordered_json(m.default_job.image_size)
                                                         : nlohmann::ordered_json(nullptr);
        job["grad_checkpointing"] = m.default_job.grad_checkpointing;
        job["description"] = m.default_job.description;
        j["default_job"] = job;
        j["source"] = m.source;
        j["name"] = m.name;
        j["unit"] = m.unit;
        j["flops_per_token"] =
            m.flops_per_token > 0 ? json_number(m.flops_per_token) : nlohmann::ordered_json(nullptr);
        j["flops_per_sample"] =
            m.flops_per_sample > 0 ? json_number(m.flops_per_sample) : nlohmann::ordered_json(nullptr);
        j["reference_image_size"] = m.reference_image_size > 0
                                        ? nlohmann::ordered_json(m.reference_image_size)
                                        : nlohmann::ordered_json(nullptr);
        j["reference_seq_len"] = m.reference_seq_len > 0 ? nlohmann::ordered_json(m.reference_seq_len)
                                                         : nlohmann::ordered_json(nullptr);
        if (m.shape.layers > 0)
            j["shape"] = {{"layers", m.shape.layers},
                          {"hidden", m.shape.hidden},
                          {"heads", m.shape.heads},
                          {"kv_heads", m.shape.kv_heads},
                          {"vocab", m.shape.vocab},
                          {"head_dim", m.shape.effective_head_dim()},
                          {"ffn", m.shape.ffn > 0 ? nlohmann::ordered_json(m.shape.ffn)
                                                  : nlohmann::ordered_json(nullptr)},
                          {"experts", m.shape.experts},
                          {"active_experts", m.shape.active_experts}};
        else
            j["shape"] = nullptr;
        j["activation_mb_per_image"] = m.activation_mb_per_image > 0 ? json_number(m.activation_mb_per_image)
                                                                     : nlohmann::ordered_json(nullptr);
        j["uncertain"] = m.uncertain;
        int points = 0;
        for (const auto& c : catalog.calibration) points += c.model == m.id ? 1 : 0;
        j["calibration_points"] = points;
        j["notes"] = m.notes;
        j["params_active"] = m.params_active > 0 ? m.params_active : m.params;
        j["max_seq_len"] =
            m.max_seq_len > 0 ? nlohmann::ordered_json(m.max_seq_len) : nlohmann::ordered_json(nullptr);
        j["weights_format"] = m.weights ? nlohmann::ordered_json(std::string(to_string(*m.weights)))
                                        : nlohmann::ordered_json(nullptr);
        j["weights_scope"] =
            m.weights ? nlohmann::ordered_json(m.weights_scope == QuantScope::experts ? "experts" : "linear")
                      : nlohmann::ordered_json(nullptr);
        json["models"].push_back(j);
    }
    return json;
}

io::TextDocument to_document(const ModelsResult& result) {
    io::TextTable table;
    table.columns = {{"ID"},
                     {"ALIASES", io::Align::left, 2, true},
                     {"KIND", io::Align::left, 3},
                     {"PARAMS", io::Align::right},
                     {"ACTIVE", io::Align::right, 1},
                     {"CONTEXT", io::Align::right, 1},
                     {"WEIGHTS", io::Align::left, 1},
                     {"FWD FLOPS", io::Align::right, 1},
                     {"DEFAULT JOB", io::Align::left, 0, true}};
    for (const ModelPreset* preset : result.models) {
        const ModelPreset& m = *preset;
        std::string flops = m.flops_per_token > 0 ? format_count(m.flops_per_token) + "/token"
                                                  : format_count(m.flops_per_sample) + "/sample";
        if (!m.uncertain.empty() && (m.is_uncertain("flops_per_sample") || m.is_uncertain("flops_per_token")))
            flops += "?";
        table.rows.push_back({m.id, m.aliases.empty() ? "-" : join(m.aliases, ", "),
                              std::string(to_string(m.kind)), format_count(m.params),
                              m.params_active > 0 ? format_count(m.params_active) : "-",
                              context_text(m.max_seq_len), weights_text(m), flops, job_text(m.default_job)});
    }
    io::TextDocument doc;
    doc.tables.push_back(table);
    doc.notes.push_back(
        "FLOPs are true forward FLOPs (2 x MAC); transformers add the attention term per token. ? = "
        "uncertain in the source.");
    doc.notes.push_back(
        "ACTIVE: parameters per token of a mixture of experts (both embeddings counted; FLOPs use them "
        "without the input embedding). WEIGHTS: the checkpoint's format (--weights sets another); "
        "16-bit follows --precision.");
    doc.notes.push_back(
        "'gpuadvise estimate --model ID' runs the default job; every part of it can be overridden (--task, "
        "--batch-size, ...).");
    return doc;
}

int run_models(Context& ctx, const ModelsOptions& opt) {
    const Catalog& catalog = ctx.catalog();
    std::optional<ModelKind> kind;
    if (!opt.kind.empty()) {
        kind = parse_model_kind(opt.kind);
        if (!kind)
            throw UsageError("--kind: unknown kind '" + opt.kind + "'",
                             "expected cnn, transformer, diffusion or speech");
    }
    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"models", "/models", "", {}},
    };
    ModelsResult result{catalog, {}};
    for (const auto& m : catalog.models)
        if (!kind || m.kind == *kind) result.models.push_back(&m);
    ctx.emit([&] { return to_json(result); }, [&] { return to_document(result); }, sections);
    return 0;
}

}  // namespace

Runner setup_models(CommandApp& sub) {
    auto opt = std::make_shared<ModelsOptions>();
    sub.add_option("--kind", opt->kind, "Only presets of this kind")
        ->type_name("cnn|transformer|diffusion|speech");
    set_footer(sub,
               {{FooterBlock::Kind::examples, {"gpuadvise models", "gpuadvise models --kind cnn --json"}}});
    return [opt](Context& ctx) { return run_models(ctx, *opt); };
}

}  // namespace gpuadvise::cli
