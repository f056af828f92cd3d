// gpuadvise estimate: memory and time of a workload per GPU model and count, without prices.
#include <cmath>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/gpu_json.hpp"
#include "cli/help_footer.hpp"
#include "cli/workload_options.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/format.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"

namespace gpuadvise::cli {
namespace {

struct EstimateOptions {
    WorkloadRequest request;
    std::string gpu = "all";
    int gpus = 1;
    int nodes = 1;
    double network_gbps = 0;
    double busbw = 0;
};

std::string fmt_rate(double v) {
    if (v <= 0) return "-";
    if (v >= 100) return io::fmt_number(v, 0);
    if (v >= 10) return io::fmt_number(v, 1);
    return io::fmt_number(v, 2);
}

// What run_estimate computed; to_json and to_document render it (only the one printed is built).
struct EstimateResult {
    const Workload& w;
    const std::vector<Estimate>& estimates;
};

nlohmann::ordered_json to_json(const EstimateResult& result) {
    const Workload& w = result.w;
    auto json = json_document();
    json["estimate_kind"] = "estimate";
    json["workload"] = workload_json(w);
    json["estimates"] = nlohmann::ordered_json::array();
    for (const Estimate& e : result.estimates) {
        const Gpu& g = *e.gpu;
        nlohmann::ordered_json j;
        j["gpu"] = g.id;
        j["gpu_family"] = g.family;
        j["gpu_count"] = e.gpu_count;
        j["precision"] = std::string(to_string(e.precision));
        j["precision_supported"] = e.precision_supported;
        j["fits"] = e.fits;
        j["memory_required_gb"] = json_number(e.memory_required_gb);
        j["memory_available_gb"] = json_number(e.memory_available_gb);
        j["min_gpu_count"] =
            e.min_gpu_count ? nlohmann::ordered_json(*e.min_gpu_count) : nlohmann::ordered_json(nullptr);
        j["parallelism"] = parallelism_json(e.config);
        j["memory_breakdown_gb"] = {{"weights", json_number(e.memory.weights_gb)},
                                    {"gradients", json_number(e.memory.gradients_gb)},
                                    {"optimizer", json_number(e.memory.optimizer_gb)},
                                    {"activations", json_number(e.memory.activations_gb)},
                                    {"kv_cache", json_number(e.memory.kv_cache_gb)},
                                    {"overhead", json_number(e.memory.overhead_gb)}};
        j["throughput_per_s"] = json_number(e.throughput_per_s);
        j["throughput_unit"] = e.throughput_unit;
        j["hours_per_run"] = json_number(e.hours_per_run);
        j["hours_low"] = json_number(e.hours_low);
        j["hours_high"] = json_number(e.hours_high);
        j["scaling_efficiency"] = json_number(e.scaling_efficiency);
        j["comm_share"] = json_number(e.comm_share);
        j["utilisation"] = json_number(e.utilisation);
        j["total_flops"] = json_number(e.total_flops);
        j["bubble_share"] = json_number(e.bubble_share);
        j["serving"] = serving_json(e.serving);
        j["basis"] = to_string(e.basis);
        j["basis_detail"] = e.basis_detail.str();
        j["notes"] = e.notes;
        json["estimates"].push_back(j);
    }
    return json;
}

io::TextDocument to_document(const EstimateResult& result) {
    const Workload& w = result.w;
    io::TextTable table;
    // Narrow terminals hide UTIL first, then EFF, LAYOUT, RANGE H, MIN N, HAS GB and BASIS.
    table.columns = {{"GPU"},
                     {"N", io::Align::right},
                     {"LAYOUT", io::Align::left, 6, true},
                     {"PREC"},
                     {"FITS"},
                     {"NEED GB/GPU", io::Align::right},
                     {"HAS GB", io::Align::right, 3},
                     {"MIN N", io::Align::right, 4},
                     {"THROUGHPUT", io::Align::right},
                     {"HOURS", io::Align::right},
                     {"RANGE H", io::Align::right, 5},
                     {"EFF", io::Align::right, 7},
                     {"UTIL", io::Align::right, 8},
                     {"BASIS", io::Align::left, 2}};
    std::vector<std::string> notes;
    for (const Estimate& e : result.estimates) {
        const Gpu& g = *e.gpu;
        const bool ok = e.precision_supported;
        table.rows.push_back(
            {g.id, std::to_string(e.gpu_count), ok ? layout_label(e.config, w.is_training()) : "-",
             std::string(to_string(e.precision)) + (ok ? "" : "!"),
             !ok      ? "n/a"
             : e.fits ? "yes"
                      : "no",
             ok ? io::fmt_number(e.memory_required_gb, 1) : "-", io::fmt_number(e.memory_available_gb, 0),
             e.min_gpu_count ? std::to_string(*e.min_gpu_count) : "-",
             ok ? fmt_rate(e.throughput_per_s) + " " + e.throughput_unit : "-",
             ok ? format_hours(e.hours_per_run) : "-",
             ok ? format_hours(e.hours_low) + "-" + format_hours(e.hours_high) : "-",
             ok && e.gpu_count > 1 ? io::fmt_number(100 * e.scaling_efficiency, 0) + "%" : "-",
             ok ? format_percent(e.utilisation) : "-", std::string(to_string(e.basis))});
        for (const auto& n : e.notes) notes.push_back(g.id + ": " + n);
        if (e.serving && ok && e.fits && w.serving.online && !e.serving->meets_targets) {
            const ServingEstimate& s = *e.serving;
            notes.push_back(g.id + ": as a service, misses the latency targets even at one sequence per replica: TPOT " +
                            io::fmt_number(1000 * s.best_tpot_s, 1) + " ms and TTFT " +
                            io::fmt_number(1000 * s.best_ttft_s, 0) + " ms against " +
                            io::fmt_number(1000 * w.serving.targets.tpot_s, 0) + " and " +
                            io::fmt_number(1000 * w.serving.targets.ttft_s, 0) + " ms asked");
        } else if (e.serving && ok && e.fits && w.serving.online) {
            // An online service: what one configuration carries at the latency targets.
            const ServingEstimate& s = *e.serving;
            notes.push_back(
                g.id + ": as a service, " + std::to_string(s.concurrency_per_replica) +
                " concurrent requests per replica (the most that meet TTFT " +
                io::fmt_number(1000 * w.serving.targets.ttft_s, 0) + " ms and TPOT " +
                io::fmt_number(1000 * w.serving.targets.tpot_s, 0) + " ms; limited by " +
                (s.limited_by == "engine"   ? std::string("the engine's batch limit")
                 : s.limited_by == "memory" ? std::string("the KV cache's memory")
                                            : "the " + s.limited_by) +
                "): " + io::fmt_number(s.requests_per_s, 2) + " requests/s for the configuration, first token " +
                io::fmt_number(1000 * s.time_to_first_token_s, 0) + " ms and " +
                io::fmt_number(1000 * s.time_per_output_token_s, 1) +
                " ms per output token at full load (HOURS: the dataset's requests back to back; "
                "recommend --task serve sizes replicas to traffic)");
        } else if (e.serving && ok && e.fits)
            notes.push_back(
                g.id + ": serving " + io::fmt_number(e.serving->tokens_per_s, 0) + " output tokens/s at " +
                std::to_string(e.serving->concurrency) + " concurrent requests" +
                (e.serving->concurrency_from_memory ? " (what the KV cache holds)" : "") + ", first token " +
                io::fmt_number(1000 * e.serving->time_to_first_token_s, 0) + " ms, " +
                io::fmt_number(1000 * e.serving->time_per_output_token_s, 1) + " ms per output token");
    }
    io::TextDocument doc;
    doc.lead.push_back("Estimate for " + workload_summary(w));
    doc.tables.push_back(table);
    doc.notes.push_back(
        "These are estimates, not measurements (basis 'measured' = scaled from a published benchmark). "
        "Method and sources: docs/methodology.md.");
    for (const auto& n : notes) doc.notes.push_back(n);
    doc.notes.push_back("Assumptions:");
    for (const auto& a : w.assumptions) doc.notes.push_back({a, io::ListMark::indent_dash});
    return doc;
}

int run_estimate(Context& ctx, const EstimateOptions& opt) {
    const Catalog& catalog = ctx.catalog();
    WorkloadRequest request = opt.request;
    load_model_config(request);
    Workload w = make_workload(catalog, request);
    GpuSpec spec;
    if (!iequals(opt.gpu, "all")) spec = parse_gpu_spec(opt.gpu);
    std::vector<const Gpu*> gpus = select_gpus(catalog, spec);
    if (gpus.empty())
        throw UsageError("no GPU in the catalog matches '" + opt.gpu + "'", "run 'gpuadvise gpus'");
    const int count = spec.count.value_or(opt.gpus);
    LinkSpec link;
    link.nodes = opt.nodes;
    link.inter_node_gbps = opt.network_gbps;
    link.intra_node_busbw_gb_per_s = opt.busbw;

    if (const auto why = layout_pin_problem(w, count, opt.nodes))
        throw UsageError(
            "the layout pin cannot hold: " + *why,
            "give --gpus a multiple of --tp x --pp (with --tp at most the GPUs of a node), or drop "
            "the pin to let the layout planner choose");
    std::vector<Estimate> estimates;
    for (const Gpu* g : gpus) estimates.push_back(estimate_job(catalog, w, *g, count, link));
    const bool any_supported = std::any_of(estimates.begin(), estimates.end(),
                                           [](const Estimate& e) { return e.precision_supported; });
    if (!any_supported) {
        throw UsageError("--precision " + std::string(to_string(*w.precision)) + " is not supported by " +
                             (gpus.size() == 1 ? gpus.front()->id : std::string("any selected GPU")),
                         precision_unsupported_reason(estimates.front().precision));
    }

    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"estimates", "/estimates", "", {}},
        {"workload", "/workload", "", {}},
    };
    const EstimateResult result{w, estimates};
    ctx.emit([&] { return to_json(result); }, [&] { return to_document(result); }, sections);
    const bool any_fits =
        std::any_of(estimates.begin(), estimates.end(), [](const Estimate& e) { return e.fits; });
    if (!any_fits) {
        ctx.err << "gpuadvise: the job fits none of these GPUs at this count; see the notes for what would "
                   "make it fit\n";
        return 3;
    }
    return 0;
}

}  // namespace

Runner setup_estimate(CommandApp& sub) {
    auto opt = std::make_shared<EstimateOptions>();
    add_workload_options(sub, opt->request);
    sub.add_option("--gpu", opt->gpu,
                   "GPUs to estimate for: NAME[,NAME…][:MEMORY][:COUNT] or 'all' (default)")
        ->type_name("SPEC");
    sub.add_option("--gpus", opt->gpus, "GPUs per node (instance) (default 1)")
        ->transform(whole_number(1, 4096))
        ->type_name("N");
    sub.add_option("--nodes", opt->nodes, "Nodes (instances) (default 1)")
        ->transform(whole_number(1, 4096))
        ->type_name("N");
    sub.add_option("--network-gbps", opt->network_gbps,
                   "Network between nodes, Gbit/s per node (default: policy unknown_network_gbps, 10 Gbit/s "
                   "Ethernet, with a note)")
        ->check(decimal_number(0.001, 1e6))
        ->type_name("GBPS");
    sub.add_option("--busbw", opt->busbw,
                   "Measured all-reduce bus bandwidth inside a node, GB/s (default: the GPU's)")
        ->check(decimal_number(0.001, 1e6))
        ->type_name("GB/S");
    set_footer(sub, {{FooterBlock::Kind::examples,
                      {"gpuadvise estimate --model bert --gpu V100,A100,H100",
                       "gpuadvise estimate --model llama-2-7b --task lora --gpu 24GB",
                       "gpuadvise estimate --model llama-2-7b --zero 3 --gpu h100-sxm --gpus 8 --json",
                       "gpuadvise estimate --params 3B --seq-len 4096 --gpu A100"}},
                     {FooterBlock::Kind::paragraph,
                      {"Exit code 3 when the job fits none of the GPUs at the given count."}}});
    return [opt](Context& ctx) { return run_estimate(ctx, *opt); };
}

}  // namespace gpuadvise::cli
