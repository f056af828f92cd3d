// gpuadvise compare GPU...: specs and economics side by side.
#include <algorithm>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/freshness.hpp"
#include "cli/gpu_json.hpp"
#include "cli/help_footer.hpp"
#include "cli/workload_options.hpp"
#include "gpuadvise/advice/compare.hpp"
#include "gpuadvise/base/format.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/html_report.hpp"
#include "io/terminal.hpp"

namespace gpuadvise::cli {
namespace {

struct CompareOptions {
    std::vector<std::string> gpus;
    bool include_examples = false;
    bool variants = false;    // --variants: one column per variant instead of one per name
    WorkloadRequest request;  // --model … : hours and cost per run of that job
};

bool has_workload(const WorkloadRequest& r) {
    return r.model || r.model_config_file || r.params || r.flops_per_token || r.flops_per_sample || r.layers;
}

nlohmann::ordered_json price_json(const std::optional<CheapestPrice>& p) {
    if (!p) return nullptr;
    nlohmann::ordered_json j;
    j["provider"] = p->provider;
    j["price"] = json_price(p->price);  // the catalog's price, exactly
    j["currency"] = p->currency;
    j["unit"] = p->unit;
    j["gpu_count"] = p->offer->gpu_count;
    j["term_months"] =
        p->term_months ? nlohmann::ordered_json(p->term_months) : nlohmann::ordered_json(nullptr);
    j["region"] = p->offer->region;
    j["as_of"] = p->offer->as_of;
    j["example"] = !p->rentable;
    j["price_complete"] = !p->offer || p->offer->price_complete;  // false: the GPU alone, the host VM extra
    return j;
}

std::string price_cell(const std::optional<CheapestPrice>& p, int decimals) {
    if (!p) return "-";
    return io::fmt_number(p->price, decimals) + " (" + p->provider +
           (p->term_months ? " " + term_short(p->term_months) : "") + (p->rentable ? "" : ", example") +
           (p->offer && !p->offer->price_complete ? ", GPU only" : "") + ")";
}

std::string ratio_cell(const std::optional<double>& r) { return r ? io::fmt_number(*r, 2) + "x" : "-"; }

nlohmann::ordered_json to_json(const Comparison& c, const std::optional<Workload>& workload) {
    auto json = json_document();
    json["currency"] = c.currency;
    if (workload) json["workload"] = workload_json(*workload);
    json["queries"] = nlohmann::ordered_json::array();
    for (const auto& m : c.matches) {
        nlohmann::ordered_json q;
        q["name"] = m.query;
        q["matched_by"] = m.matched_by;
        q["gpus"] = nlohmann::ordered_json::array();
        for (const Gpu* g : m.gpus) q["gpus"].push_back(g->id);
        json["queries"].push_back(q);
    }
    json["requested"] = nlohmann::ordered_json::array();
    for (const auto& r : c.requested) {
        nlohmann::ordered_json q;
        q["name"] = r.name;
        q["variants"] = nlohmann::ordered_json::array();
        for (std::size_t i : r.variants) q["variants"].push_back(c.gpus[i].gpu->id);
        q["shown"] = c.gpus[r.shown].gpu->id;
        json["requested"].push_back(q);
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
        if (r.job) {
            nlohmann::ordered_json job;
            job["gpu_count"] = r.job->gpu_count;
            job["fits"] = r.job->fits;
            job["precision_supported"] = r.job->precision_supported;
            job["hours_per_run"] = r.job->hours_per_run > 0 ? json_number(r.job->hours_per_run)
                                                            : nlohmann::ordered_json(nullptr);
            job["cost_per_run"] = json_number(r.job->cost_per_run);
            job["relative_speed"] = json_number(r.job->relative_speed);
            j["job"] = job;
        }
        j["uncertain"] = r.gpu->uncertain;
        j["source"] = r.gpu->source;
        json["gpus"].push_back(j);
    }

    return json;
}

io::TextDocument to_document(const Comparison& c, const CompareOptions& opt,
                             const std::optional<Workload>& workload) {
    // One column per requested name (its shown variant), or per variant with --variants; one row per
    // property. Every column may wrap to fit the terminal; none is hidden (each was asked for).
    std::vector<std::size_t> columns;
    std::vector<std::string> headers;
    if (opt.variants) {
        for (std::size_t i = 0; i < c.gpus.size(); ++i) {
            columns.push_back(i);
            headers.push_back(c.gpus[i].gpu->id);
        }
    } else {
        for (const auto& r : c.requested) {
            if (std::find(columns.begin(), columns.end(), r.shown) != columns.end()) continue;
            columns.push_back(r.shown);
            headers.push_back(r.name);  // as typed; the "variant shown" row names the GPU
        }
    }
    const GpuComparison& base = c.gpus[columns.front()];
    io::TextTable t;
    t.columns.push_back({"", io::Align::left, 0, true});
    for (const auto& h : headers) t.columns.push_back({h, io::Align::right, 0, true});
    auto row = [&](const std::string& label, auto cell) {
        std::vector<std::string> cells{label};
        for (std::size_t i : columns) cells.push_back(cell(c.gpus[i]));
        t.rows.push_back(cells);
    };
    auto vs_base = [](const std::optional<double>& v,
                      const std::optional<double>& b) -> std::optional<double> {
        if (!v || !b || *b == 0) return std::nullopt;
        return *v / *b;
    };
    auto spec = [](const Gpu& g, const std::optional<double>& v, const char* field, int decimals) {
        std::string s = io::fmt_optional(v, decimals);
        return v && g.is_uncertain(field) ? s + "?" : s;
    };
    if (!opt.variants) row("variant shown", [](const GpuComparison& r) { return r.gpu->id; });
    const std::string cur = c.currency;
    row("architecture", [](const GpuComparison& r) { return r.gpu->architecture; });
    row("memory GB", [](const GpuComparison& r) { return io::fmt_number(r.gpu->memory_gb, 0); });
    row("bandwidth GB/s", [&](const GpuComparison& r) {
        return spec(*r.gpu, r.gpu->memory_bandwidth_gb_per_s, "memory_bandwidth_gb_per_s", 0);
    });
    row("FP32 TFLOPS", [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.fp32, "fp32", 1); });
    row("TF32 TFLOPS dense",
        [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.tf32, "tf32", 1); });
    row("FP16 TFLOPS dense",
        [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.fp16, "fp16", 1); });
    row("BF16 TFLOPS dense",
        [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.bf16, "bf16", 1); });
    row("FP8 TFLOPS dense",
        [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tflops.fp8, "fp8", 1); });
    row("TDP W", [&](const GpuComparison& r) { return spec(*r.gpu, r.gpu->tdp_w, "tdp_w", 0); });
    row("interconnect", [](const GpuComparison& r) {
        // The first clause, kept short so the columns stay readable; the full text is in --json.
        std::string s = r.gpu->interconnect.substr(0, r.gpu->interconnect.find(';'));
        if (s.size() > 28) s = s.substr(0, s.rfind(' ', 27)) + "…";
        return s.empty() ? std::string("-") : s;
    });
    row("compute capability", [](const GpuComparison& r) { return r.gpu->compute_capability; });
    row("on-demand " + cur + "/GPU-h", [](const GpuComparison& r) { return price_cell(r.on_demand, 2); });
    row("commitment " + cur + "/GPU-h, full use",
        [](const GpuComparison& r) { return price_cell(r.reserved, 2); });
    row("spot " + cur + "/GPU-h", [](const GpuComparison& r) { return price_cell(r.spot, 2); });
    row("USD/TFLOPS-h (FP16)",
        [](const GpuComparison& r) { return io::fmt_optional(r.usd_per_tflops_hour, 4); });
    row("FP16 vs first",
        [&](const GpuComparison& r) { return ratio_cell(vs_base(r.relative_fp16, base.relative_fp16)); });
    row("bandwidth vs first", [&](const GpuComparison& r) {
        return ratio_cell(vs_base(r.relative_bandwidth, base.relative_bandwidth));
    });
    row("on-demand price vs first", [&](const GpuComparison& r) {
        return ratio_cell(vs_base(r.relative_on_demand_price, base.relative_on_demand_price));
    });
    if (workload) {
        auto job_cell = [](const GpuComparison& r, auto value) -> std::string {
            if (!r.job) return "-";
            if (!r.job->precision_supported) return "precision n/a";
            if (!r.job->fits) return "does not fit";
            return value(*r.job);
        };
        row("GPUs for the job", [&](const GpuComparison& r) {
            return job_cell(r, [](const JobOnGpu& j) { return std::to_string(j.gpu_count); });
        });
        row("hours per run (estimate)", [&](const GpuComparison& r) {
            return job_cell(r, [](const JobOnGpu& j) { return format_hours(j.hours_per_run); });
        });
        row("cost per run " + cur + ", on-demand", [&](const GpuComparison& r) {
            return job_cell(r, [](const JobOnGpu& j) {
                return j.cost_per_run ? format_money(*j.cost_per_run) : std::string("-");
            });
        });
        row("speed vs first", [&](const GpuComparison& r) {
            return job_cell(r, [](const JobOnGpu& j) { return ratio_cell(j.relative_speed); });
        });
    }

    io::TextDocument doc;
    if (workload) doc.lead.push_back("Job: " + workload_summary(*workload));
    for (const auto& r : c.requested)
        if (r.variants.size() > 1) {
            std::vector<std::string> ids;
            for (std::size_t i : r.variants) ids.push_back(c.gpus[i].gpu->id);
            std::string line =
                "'" + r.name + "' covers " + std::to_string(ids.size()) + " variants: " + join(ids, ", ");
            if (!opt.variants)
                line += "; its column shows " + c.gpus[r.shown].gpu->id +
                        (c.gpus[r.shown].on_demand ? ", the cheapest to rent on demand" : "") +
                        " (--variants shows each)";
            doc.lead.push_back(line);
        }
    doc.tables.push_back(t);
    doc.notes.push_back(
        "TFLOPS are dense peak (sparse figures are 2x and never used here). Cheapest price per GPU across "
        "the catalog, in " +
        cur + ", with its provider; USD/TFLOPS-h uses the cheapest on-demand price.");
    doc.notes.push_back("? = value marked uncertain in its source.");
    const auto partial = [](const std::optional<CheapestPrice>& p) { return p && p->offer && !p->offer->price_complete; };
    if (std::any_of(c.gpus.begin(), c.gpus.end(), [&](const GpuComparison& g) {
            return partial(g.on_demand) || partial(g.reserved) || partial(g.spot);
        }))
        doc.notes.push_back(
            "GPU only: that price is the GPU alone, not a whole offer; the host VM is extra and not in the "
            "catalog.");
    if (workload)
        doc.notes.push_back(
            "Hours and cost per run are estimates for the job on the fewest GPUs of each model that hold it "
            "(up to 8), at the cheapest on-demand price per GPU; the cost is billed as recommend bills a run "
            "(set-up and idle tail added, rounded up to the provider's increment); speed is relative to the "
            "first column. 'gpuadvise recommend' prices whole instances and plans.");
    return doc;
}

int run_compare(Context& ctx, const CompareOptions& opt) {
    const Catalog& catalog = ctx.catalog();
    std::optional<Workload> workload;
    if (has_workload(opt.request)) {
        WorkloadRequest request = opt.request;
        load_model_config(request);
        workload = make_workload(catalog, request);
    }
    Comparison c = compare_gpus(catalog, opt.gpus, ctx.currency(), opt.include_examples,
                                workload ? &*workload : nullptr);

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
    ctx.emit(
        [&] {
            auto json = to_json(c, workload);
            add_freshness(fresh, json);
            return json;
        },
        [&] {
            auto doc = to_document(c, opt, workload);
            add_freshness(fresh, doc);
            return doc;
        },
        sections,
        [&] {
            auto doc = to_document(c, opt, workload);
            add_freshness(fresh, doc);
            return io::render_html("GPU comparison", fresh.warnings, doc);
        });
    return 0;
}

}  // namespace

Runner setup_compare(CommandApp& sub) {
    auto opt = std::make_shared<CompareOptions>();
    sub.add_option("gpus", opt->gpus, "GPU names: families (A100), variants (a100-80gb-sxm) or aliases")
        ->required()
        ->type_name("GPU");
    sub.add_flag(
        "--variants", opt->variants,
        "One column per variant of a family (A100: its 40/80 GB PCIe and SXM) instead of one per name");
    add_workload_options(sub, opt->request);
    sub.add_flag("--include-examples", opt->include_examples,
                 "Let the guide's example providers be the cheapest (marked 'example')");
    set_footer(sub, {{FooterBlock::Kind::examples,
                      {"gpuadvise compare A100 V100 T4", "gpuadvise compare h100-sxm a100-80gb-sxm --json",
                       "gpuadvise compare A100 V100 T4 --model bert", "gpuadvise compare A100 --variants"}}});
    return [opt](Context& ctx) { return run_compare(ctx, *opt); };
}

}  // namespace gpuadvise::cli
