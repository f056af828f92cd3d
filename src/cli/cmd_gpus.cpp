// gpuadvise gpus [--gpu SPEC]: the GPU models of the catalog with their key specs.
#include <memory>

#include "cli/commands.hpp"
#include "cli/gpu_json.hpp"
#include "cli/help_footer.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"

namespace gpuadvise::cli {
namespace {

struct GpusOptions {
    std::string gpu;
};

nlohmann::ordered_json to_json(const std::vector<const Gpu*>& gpus) {
    auto json = json_document();
    json["gpus"] = nlohmann::ordered_json::array();
    for (const Gpu* g : gpus) {
        auto j = gpu_identity_json(*g);
        j["vendor"] = g->vendor;
        j["architecture"] = g->architecture;
        j["tdp_w"] = json_number(g->tdp_w);
        j["form_factor"] = g->form_factor;
        j["interconnect"] = g->interconnect;
        j["year"] = g->year ? nlohmann::ordered_json(g->year) : nlohmann::ordered_json(nullptr);
        j["aliases"] = g->aliases;
        j["uncertain"] = g->uncertain;
        j["source"] = g->source;
        j["devices_per_package"] = g->devices_per_package;
        j["family_default"] = g->family_default.empty() ? nlohmann::ordered_json(nullptr)
                                                        : nlohmann::ordered_json(g->family_default);
        json["gpus"].push_back(j);
    }
    return json;
}

io::TextDocument to_document(const std::vector<const Gpu*>& gpus) {
    io::TextTable table;
    table.columns = {{"ID"},
                     {"FAMILY"},
                     {"MEMORY GB", io::Align::right},
                     {"BW GB/s", io::Align::right},
                     {"FP32", io::Align::right},
                     {"TF32", io::Align::right},
                     {"FP16", io::Align::right},
                     {"BF16", io::Align::right},
                     {"FP8", io::Align::right},
                     {"CC", io::Align::left, 2},
                     {"TDP W", io::Align::right, 3},
                     {"YEAR", io::Align::right, 4}};
    bool any_uncertain = false;
    bool multi_device = false;
    std::vector<std::string> doc_notes;  // one per multi-device GPU (#13)
    for (const Gpu* g : gpus) {
        if (g->devices_per_package > 1) {
            multi_device = true;
            doc_notes.push_back(g->id + ": " + std::to_string(g->devices_per_package) +
                                " devices per package as PyTorch sees them; its figures are per device (" +
                                g->devices_source + ")");
        }
        auto cell = [&](const std::optional<double>& v, const char* field, int decimals) {
            std::string s = io::fmt_optional(v, decimals);
            if (v && g->is_uncertain(field)) {
                s += "?";
                any_uncertain = true;
            }
            return s;
        };
        table.rows.push_back({g->id, g->family, io::fmt_number(g->memory_gb, 0),
                              cell(g->memory_bandwidth_gb_per_s, "memory_bandwidth_gb_per_s", 0),
                              cell(g->tflops.fp32, "fp32", 1), cell(g->tflops.tf32, "tf32", 1),
                              cell(g->tflops.fp16, "fp16", 1), cell(g->tflops.bf16, "bf16", 1),
                              cell(g->tflops.fp8, "fp8", 1), g->compute_capability,
                              cell(g->tdp_w, "tdp_w", 0), g->year ? std::to_string(g->year) : "-"});
    }
    io::TextDocument doc;
    doc.tables.push_back(table);
    doc.notes.push_back(
        "TFLOPS are dense peak (no 2:4 sparsity); GeForce FP16 is the FP32-accumulate rate AMP uses.");
    if (multi_device)
        for (auto& n : doc_notes) doc.notes.push_back(std::move(n));
    if (any_uncertain)
        doc.notes.push_back("? = uncertain value in the source; see 'gpuadvise gpus --json' for sources.");
    return doc;
}

int run_gpus(Context& ctx, const GpusOptions& opt) {
    const Catalog& catalog = ctx.catalog();
    GpuSpec spec;
    if (!opt.gpu.empty()) spec = parse_gpu_spec(opt.gpu);
    std::vector<const Gpu*> gpus = select_gpus(catalog, spec);

    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"gpus", "/gpus", "", {}},
    };
    ctx.emit([&] { return to_json(gpus); }, [&] { return to_document(gpus); }, sections);
    return 0;
}

}  // namespace

Runner setup_gpus(CommandApp& sub) {
    auto opt = std::make_shared<GpusOptions>();
    sub.add_option("--gpu", opt->gpu, "Only these GPUs: NAME[,NAME…][:MEMORY], e.g. A100, H100,H200, 80GB")
        ->type_name("SPEC");
    set_footer(sub, {{FooterBlock::Kind::examples, {"gpuadvise gpus", "gpuadvise gpus --gpu A100 --json"}}});
    return [opt](Context& ctx) { return run_gpus(ctx, *opt); };
}

}  // namespace gpuadvise::cli
