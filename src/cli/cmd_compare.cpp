// gpuadvise compare GPU...: specs and economics side by side.
#include <memory>

#include "cli/commands.hpp"
#include "cli/freshness.hpp"
#include "cli/gpu_json.hpp"
#include "gpuadvise/compare.hpp"
#include "gpuadvise/text.hpp"
#include "io/terminal.hpp"

namespace gpuadvise::cli {
namespace {

struct CompareOptions {
    std::vector<std::string> gpus;
    bool include_examples = false;
};

nlohmann::ordered_json price_json(const std::optional<CheapestPrice>& p) {
    if (!p) return nullptr;
    nlohmann::ordered_json j;
    j["provider"] = p->provider;
    j["price"] = json_price(p->price);  // the catalog's price, exactly
    j["currency"] = p->currency;
    j["unit"] = p->unit;
    j["gpu_count"] = p->offer->gpu_count;
    j["term_months"] = p->term_months ? nlohmann::ordered_json(p->term_months) : nlohmann::ordered_json(nullptr);
    j["region"] = p->offer->region;
    j["as_of"] = p->offer->as_of;
    j["example"] = !p->rentable;
    return j;
}

std::string price_cell(const std::optional<CheapestPrice>& p, int decimals) {
    if (!p) return "-";
    return io::fmt_number(p->price, decimals) + " (" + p->provider + (p->term_months ? " " + term_short(p->term_months) : "") + (p->rentable ? "" : ", example") + ")";
}

std::string ratio_cell(const std::optional<double>& r) { return r ? io::fmt_number(*r, 2) + "x" : "-"; }

nlohmann::ordered_json to_json(const Comparison& c) {
    auto json = json_document();
    json["currency"] = c.currency;
    json["queries"] = nlohmann::ordered_json::array();
    for (const auto& m : c.matches) {
        nlohmann::ordered_json q;
        q["name"] = m.query;
        q["matched_by"] = m.matched_by;
        q["gpus"] = nlohmann::ordered_json::array();
        for (const Gpu* g : m.gpus) q["gpus"].push_back(g->id);
        json["queries"].push_back(q);
    }
    json["gpus"] = nlohmann::ordered_json::array();
    for (const auto& r : c.gpus) {
        auto j = gpu_identity_json(*r.gpu);
        j["architecture"] = r.gpu->architecture;
        j["tdp_w"] = json_number(r.gpu->tdp_w);
        j["interconnect"] = r.gpu->interconnect;
        nlohmann::ordered_json cheapest;
        cheapest["on_demand"] = price_json(r.on_demand);
        cheapest["reserved"] = price_json(r.reserved);
        cheapest["spot"] = price_json(r.spot);
        j["cheapest"] = cheapest;
        j["usd_per_tflops_hour"] = json_number(r.usd_per_tflops_hour);
        nlohmann::ordered_json rel;
        rel["fp16_tflops"] = json_number(r.relative_fp16);
        rel["memory_bandwidth"] = json_number(r.relative_bandwidth);
        rel["on_demand_price"] = json_number(r.relative_on_demand_price);
        j["relative_to_first"] = rel;
        j["uncertain"] = r.gpu->uncertain;
        j["source"] = r.gpu->source;
        json["gpus"].push_back(j);
    }

    return json;
}

io::TextDocument to_document(const Comparison& c) {
    // One column per GPU, one row per property.
    io::TextTable t;
    t.columns.push_back({""});
    for (const auto& r : c.gpus) t.columns.push_back({r.gpu->id, io::Align::right});
    auto row = [&](const std::string& label, auto cell) {
        std::vector<std::string> cells{label};
        for (const auto& r : c.gpus) cells.push_back(cell(r));
        t.rows.push_back(cells);
    };
    auto spec = [](const Gpu& g, const std::optional<double>& v, const char* field, int decimals) {
        std::string s = io::fmt_optional(v, decimals);
        return v && g.is_uncertain(field) ? s + "?" : s;
    };
    const std::string cur = c.currency;
    row("architecture", [](const GpuComparison& r) { return r.gpu->architecture; });
    row("memory GB", [](const GpuComparison& r) { return io::fmt_number(r.gpu->memory_gb, 0); });
    row("bandwidth GB/s", [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->memory_bandwidth_gb_per_s, "memory_bandwidth_gb_per_s", 0); });
    row("FP32 TFLOPS", [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.fp32, "fp32", 1); });
    row("TF32 TFLOPS dense", [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.tf32, "tf32", 1); });
    row("FP16 TFLOPS dense", [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.fp16, "fp16", 1); });
    row("BF16 TFLOPS dense", [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.bf16, "bf16", 1); });
    row("FP8 TFLOPS dense", [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.fp8, "fp8", 1); });
    row("TDP W", [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tdp_w, "tdp_w", 0); });
    row("interconnect", [](const GpuComparison& r) {
        // The first clause, kept short so the columns stay readable; the full text is in --json.
        std::string s = r.gpu->interconnect.substr(0, r.gpu->interconnect.find(';'));
        if (s.size() > 28) s = s.substr(0, s.rfind(' ', 27)) + "…";
        return s.empty() ? std::string("-") : s;
    });
    row("compute capability", [](const GpuComparison& r) { return r.gpu->compute_capability; });
    row("on-demand " + cur + "/GPU-h", [](const GpuComparison& r) { return price_cell(r.on_demand, 2); });
    row("commitment " + cur + "/GPU-h, full use", [](const GpuComparison& r) { return price_cell(r.reserved, 2); });
    row("spot " + cur + "/GPU-h", [](const GpuComparison& r) { return price_cell(r.spot, 2); });
    row("USD/TFLOPS-h (FP16)", [](const GpuComparison& r) { return io::fmt_optional(r.usd_per_tflops_hour, 4); });
    row("FP16 vs first", [](const GpuComparison& r) { return ratio_cell(r.relative_fp16); });
    row("bandwidth vs first", [](const GpuComparison& r) { return ratio_cell(r.relative_bandwidth); });
    row("on-demand price vs first", [](const GpuComparison& r) { return ratio_cell(r.relative_on_demand_price); });

    io::TextDocument doc;
    for (const auto& m : c.matches)
        if (m.gpus.size() > 1) {
            std::vector<std::string> ids;
            for (const Gpu* g : m.gpus) ids.push_back(g->id);
            doc.lead.push_back("'" + m.query + "' covers " + std::to_string(ids.size()) + " variants: " + join(ids, ", "));
        }
    doc.tables.push_back(t);
    doc.notes.push_back("TFLOPS are dense peak (sparse figures are 2x and never used here). Cheapest price per GPU across "
                        "the catalog, in " + cur + ", with its provider; USD/TFLOPS-h uses the cheapest on-demand price.");
    doc.notes.push_back("? = value marked uncertain in its source.");
    return doc;
}

int run_compare(Context& ctx, const CompareOptions& opt) {
    const Catalog& catalog = ctx.catalog();
    Comparison c = compare_gpus(catalog, opt.gpus, ctx.currency(), opt.include_examples);

    std::vector<const Offer*> shown;
    for (const auto& r : c.gpus)
        for (const auto* p : {&r.on_demand, &r.reserved, &r.spot})
            if (*p) shown.push_back((*p)->offer);
    const Freshness fresh = check_freshness(catalog, shown, c.currency, io::today_iso());
    warn_freshness(ctx, fresh);
    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"gpus", "/gpus", "", {}},
        {"queries", "/queries", "", {}},
        {"warnings", "/warnings", "", {}},
        {"rates", "/rates", "", {}},
    };
    // Only the renderer of the format printed runs.
    ctx.emit([&] {
        auto json = to_json(c);
        add_freshness(fresh, json);
        return json;
    }, [&] {
        auto doc = to_document(c);
        add_freshness(fresh, doc);
        return doc;
    }, sections);
    return 0;
}

}  // namespace

Runner setup_compare(CLI::App& sub) {
    auto opt = std::make_shared<CompareOptions>();
    sub.add_option("gpus", opt->gpus, "GPU names: families (A100), variants (a100-80gb-sxm) or aliases")
        ->required()
        ->type_name("GPU");
    sub.add_flag("--include-examples", opt->include_examples,
                 "Let the source document's example providers be the cheapest (marked 'example')");
    sub.footer("Examples:\n  gpuadvise compare A100 V100 T4\n  gpuadvise compare h100-sxm a100-80gb-sxm --json");
    return [opt](Context& ctx) { return run_compare(ctx, *opt); };
}

}  // namespace gpuadvise::cli
