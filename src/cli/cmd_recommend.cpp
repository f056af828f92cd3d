// gpuadvise recommend: the four-step needs analysis and the cost model, ranked and explained.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <memory>

#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/freshness.hpp"
#include "cli/help_footer.hpp"
#include "cli/pytorch_option.hpp"
#include "cli/workload_options.hpp"
#include "gpuadvise/advice/recommend.hpp"
#include "gpuadvise/base/calendar.hpp"
#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/html_report.hpp"
#include "io/terminal.hpp"

namespace gpuadvise::cli {
namespace {

struct RecommendOptions {
    WorkloadRequest workload;
    double runs_per_week = 1;
    std::string dataset;
    std::optional<double> dataset_gb;
    std::optional<int> resolution;
    std::optional<int> gpus_now, scale_to, nodes;
    bool interruptible = false;
    double checkpoint_minutes = 30;
    std::optional<double> budget_monthly, deadline_hours;
    std::string objective = "cost";
    std::string gpu;
    std::vector<std::string> providers, regions;
    int top = 5;
    bool explain = false;
    std::string pytorch;
    std::optional<double> tokens_per_month, requests_per_day;  // quantities (500M, 10k): quantity_number
    std::optional<double> peak_rps, peak_factor, hours_per_day;  // --task serve
    std::optional<int> min_replicas;
    std::optional<double> network_gbps;  // --network-gbps
    std::string rdma;                    // --rdma yes|no
    bool allow_unknown_network = false;
    std::string plan;     // --plan on-demand|reserved|reserved-1m|reserved-1y|reserved-3y|spot
    std::string what_if;  // --what-if runs-per-week=FROM:TO[:STEP]
    bool include_examples = false;
    std::optional<int> runs;                   // --runs N: a one-off job
    std::string deadline_confidence = "high";  // --deadline-confidence point|high
    bool runs_per_week_given = false;
    std::optional<double> idle_minutes;  // --idle-minutes
    std::string max_cost_increase;       // --max-cost-increase 10% (with --objective carbon)
    LaunchOptions launch;                // --emit skypilot|dstack, --pick, -o, --force (cli/emit.cpp)
};

// --max-cost-increase: a percentage, "10%" or "10"; returns the share (0.1).
double parse_cost_increase(const std::string& text) {
    std::string digits = text;
    if (!digits.empty() && digits.back() == '%') digits.pop_back();
    double x = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), x);
    if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || !std::isfinite(x) ||
        x < 0 || x > 10000)
        throw UsageError("--max-cost-increase " + text + ": expected a percentage such as 10%",
                         "e.g. --objective carbon --max-cost-increase 10%");
    return x / 100.0;
}

// An online service's traffic and schedule: one run a day of --hours-per-day hours.
void read_service(const RecommendOptions& opt, RecommendRequest& r) {
    if (opt.runs_per_week_given || opt.runs || opt.deadline_hours)
        throw UsageError("--runs-per-week, --runs and --deadline-hours describe batch jobs; an online service "
                         "(--task serve) is sized by its traffic",
                         "give --requests-per-day, --tokens-per-month or --peak-rps");
    const int given = (opt.requests_per_day ? 1 : 0) + (opt.tokens_per_month ? 1 : 0);
    if (given > 1) throw UsageError("give --requests-per-day or --tokens-per-month, not both");
    if (given == 0 && !opt.peak_rps)
        throw UsageError("an online service (--task serve) needs its traffic",
                         "give --requests-per-day, --tokens-per-month or --peak-rps, e.g. --requests-per-day 10000");
    if (opt.peak_rps && opt.peak_factor && given > 0)
        throw UsageError("--peak-rps and --peak-factor both set the peak; give one",
                         "--peak-factor scales the mean of --requests-per-day or --tokens-per-month");
    ServiceTraffic t;
    t.requests_per_day = opt.requests_per_day;
    t.tokens_per_month = opt.tokens_per_month;
    t.peak_rps = opt.peak_rps;
    t.peak_factor = opt.peak_factor;
    t.hours_per_day = opt.hours_per_day.value_or(24);
    t.min_replicas = opt.min_replicas.value_or(1);
    r.service = t;
    r.runs_per_week = kDaysPerWeek;
    const ServiceLoad load = service_load(t, *r.workload.serving.output_len);
    std::string traffic = opt.peak_rps && given == 0
                              ? "peak " + format_number(load.peak_rps) + " requests/s (--peak-rps), mean " +
                                    format_number(load.mean_rps) + " requests/s at a peak factor of " +
                                    format_number(load.peak_factor) +
                                    (opt.peak_factor ? " (--peak-factor)" : " (the default; --peak-factor)")
                              : format_count(load.requests_per_month / kDaysPerMonth) + " requests a day (" +
                                    format_count(load.output_tokens_per_month) +
                                    " output tokens a month), mean " + format_number(load.mean_rps) +
                                    " requests/s, peak " + format_number(load.peak_rps) + " requests/s (" +
                                    (opt.peak_rps ? "--peak-rps"
                                                  : format_number(load.peak_factor) + "x the mean" +
                                                        (opt.peak_factor ? ", --peak-factor"
                                                                         : ": the default, --peak-factor")) +
                                    ")";
    r.workload.assumptions.push_back("traffic: " + traffic);
    r.workload.assumptions.push_back(
        "replicas up " + format_number(t.hours_per_day) + " h a day (" +
        format_number(t.hours_per_day * kDaysPerMonth) + " h a month" +
        (opt.hours_per_day ? ", --hours-per-day" : "; --hours-per-day for a service that stops") + "), at least " +
        count_noun(t.min_replicas, "replica") + (opt.min_replicas ? " (--min-replicas)" : " (--min-replicas)"));
}

RecommendRequest build_request(Context& ctx, const RecommendOptions& options) {
    const RecommendOptions& opt = options;
    const Catalog& catalog = ctx.catalog();
    RecommendRequest r;
    WorkloadRequest wr = opt.workload;
    if (opt.resolution && !wr.image_size) wr.image_size = opt.resolution;
    load_model_config(wr);
    wr.online_traffic = opt.requests_per_day || opt.peak_rps;
    r.workload = make_workload(catalog, wr);
    r.runs_per_week = opt.runs_per_week;
    const bool service_options = opt.peak_rps || opt.peak_factor || opt.hours_per_day || opt.min_replicas;
    if (r.workload.serving.online) {
        read_service(opt, r);
    } else if (service_options) {
        throw UsageError("--peak-rps, --peak-factor, --hours-per-day and --min-replicas size an online service",
                         "add --task serve");
    } else if (opt.tokens_per_month || opt.requests_per_day) {
        // Serving volume: a run is the dataset's requests; the month's output tokens set the runs.
        const Workload& w = r.workload;
        if (!w.serving.output_len)
            throw UsageError(
                "--tokens-per-month and --requests-per-day apply to serving a decoder LM (--task inference)");
        if (opt.tokens_per_month && opt.requests_per_day)
            throw UsageError("give --tokens-per-month or --requests-per-day, not both");
        const double tokens = opt.tokens_per_month
                                  ? *opt.tokens_per_month
                                  : *opt.requests_per_day * *w.serving.output_len * kDaysPerMonth;
        const double per_run = w.total_samples() * *w.serving.output_len;
        r.runs_per_week = runs_per_week_of_month(tokens / per_run);
        r.workload.serving.tokens_per_month = tokens;
        r.workload.assumptions.push_back("serving volume: " + format_count(tokens) +
                                         " output tokens a month");
    }
    if (!opt.dataset.empty()) r.dataset = kDatasetNames.parse_or_throw(opt.dataset, "--dataset");
    r.dataset_gb = opt.dataset_gb;
    r.gpus_now = opt.gpus_now;
    r.scale_to = opt.scale_to;
    r.nodes = opt.nodes;
    r.interruptible = opt.interruptible;
    r.checkpoint_minutes = opt.checkpoint_minutes;
    r.budget_monthly = opt.budget_monthly;
    r.deadline_hours = opt.deadline_hours;
    r.deadline_confidence =
        kDeadlineConfidenceNames.parse_or_throw(opt.deadline_confidence, "--deadline-confidence");
    if (opt.runs) {
        if (opt.runs_per_week_given || opt.tokens_per_month || opt.requests_per_day)
            throw UsageError(
                "--runs is a one-off job of N runs; it cannot be combined with --runs-per-week, "
                "--tokens-per-month or --requests-per-day",
                "give --runs N for a one-off job, or --runs-per-week for a recurring one");
        r.runs = opt.runs;
        r.runs_per_week = 0;
    }
    r.currency = ctx.currency();
    r.objective = kObjectiveNames.parse_or_throw(opt.objective, "--objective");
    r.idle_minutes = opt.idle_minutes;
    if (!opt.max_cost_increase.empty()) {
        if (r.objective != Objective::carbon)
            throw UsageError("--max-cost-increase applies to --objective carbon",
                             "add --objective carbon, or leave --max-cost-increase out");
        r.max_cost_increase = parse_cost_increase(opt.max_cost_increase);
    }
    if (!opt.gpu.empty()) r.gpu = parse_gpu_spec(opt.gpu);
    select_gpus(catalog, r.gpu);  // unknown names fail here, with "did you mean"
    for (const auto& p : opt.providers)
        if (!catalog.find_provider(p)) {
            std::vector<std::string> ids;
            for (const auto& x : catalog.providers) ids.push_back(x.id);
            auto best = closest_match(p, ids);
            throw UsageError("unknown provider '" + p + "'",
                             best ? "did you mean '" + *best + "'?" : "known providers: " + join(ids, ", "));
        }
    r.providers = opt.providers;
    r.regions = opt.regions;
    r.network_gbps = opt.network_gbps;
    if (!opt.rdma.empty()) r.rdma = opt.rdma == "yes";
    r.allow_unknown_network = opt.allow_unknown_network;
    r.top = opt.top;
    r.include_examples = opt.include_examples;
    if (!opt.pytorch.empty()) r.pytorch = parse_pytorch_option(catalog, opt.pytorch);
    if (!opt.plan.empty()) {
        r.plan = parse_plan_filter(opt.plan);
        if (!r.plan)
            throw UsageError("--plan " + opt.plan + ": not a plan",
                             "use on-demand, reserved, reserved-1m, reserved-1y, reserved-3y or spot");
        if (r.plan->plan == Plan::spot && !r.interruptible)
            throw UsageError("--plan spot needs --interruptible",
                             "mark the job --interruptible (it checkpoints and can restart)");
    }
    return r;
}

// The workload block shared with `estimate`, plus what only recommend asks.
nlohmann::ordered_json recommend_workload_json(const Workload& w, const RecommendRequest& r) {
    nlohmann::ordered_json j = workload_json(w);
    j["runs_per_week"] = r.runs_per_week;
    j["one_off"] = r.one_off();
    j["runs"] = r.one_off() ? nlohmann::ordered_json(r.runs.value_or(1)) : nlohmann::ordered_json(nullptr);
    j["deadline_confidence"] = std::string(kDeadlineConfidenceNames.name(r.deadline_confidence));
    j["dataset"] = to_string(r.dataset);
    j["dataset_gb"] = json_number(r.dataset_gb);
    j["interruptible"] = r.interruptible;
    j["checkpoint_minutes"] = r.checkpoint_minutes;
    j["objective"] = to_string(r.objective);
    j["idle_minutes"] =
        r.idle_minutes ? nlohmann::ordered_json(*r.idle_minutes) : nlohmann::ordered_json(nullptr);
    j["max_cost_increase"] = r.objective == Objective::carbon && r.max_cost_increase
                                 ? nlohmann::ordered_json(*r.max_cost_increase)
                                 : nlohmann::ordered_json(nullptr);
    return j;
}

nlohmann::ordered_json billing_json(const Candidate& c) {
    const BillingAssumptions& b = c.billing;
    nlohmann::ordered_json j;
    j["increment_seconds"] = b.increment_seconds > 0 ? nlohmann::ordered_json(b.increment_seconds)
                                                     : nlohmann::ordered_json(nullptr);
    j["minimum_seconds"] = b.minimum_seconds;
    j["increment_assumed"] = b.increment_assumed;
    j["stopped_instances_bill_storage"] = b.stopped_bills_storage
                                              ? nlohmann::ordered_json(*b.stopped_bills_storage)
                                              : nlohmann::ordered_json(nullptr);
    j["source"] = b.source.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(b.source);
    return j;
}

nlohmann::ordered_json candidate_json(const Candidate& c, const std::string& currency,
                                      const RecommendRequest& r) {
    nlohmann::ordered_json j;
    j["rank"] = c.rank;
    j["provider"] = c.offer->provider;
    j["gpu"] = c.gpu->id;
    j["gpu_family"] = c.gpu->family;
    j["gpu_count"] = c.gpu_count;
    j["instances"] = c.instances;
    j["gpus_per_instance"] = c.offer->gpu_count;  // the offer's, as priced
    j["instance_type"] = c.offer->instance_type;
    j["vcpus"] = json_number(c.offer->vcpus);    // per instance, as the catalog lists the host
    j["ram_gb"] = json_number(c.offer->ram_gb);  // per instance
    j["parallel_copies"] =
        c.parallel_copies;  // copies of the configuration run side by side (weekly hours > 168)
    j["region"] = c.offer->region;
    j["plan"] = to_string(c.cost.plan);
    j["precision"] = std::string(to_string(c.estimate.precision));
    j["parallelism"] = parallelism_json(c.estimate.config);
    j["network_gbps"] = c.estimate.config.network.inter_node_gbps > 0
                            ? nlohmann::ordered_json(c.estimate.config.network.inter_node_gbps)
                            : nlohmann::ordered_json(nullptr);
    if (const LinkSpec& n = c.estimate.config.network; c.estimate.config.nodes > 1 && n.inter_node_gbps > 0) {
        // Several nodes: the network the estimate assumed, and whether anything stated it (docs/json.md).
        j["network"] = {{"gbps", n.inter_node_gbps},
                        {"kind", n.network_kind ? nlohmann::ordered_json(std::string(to_string(*n.network_kind)))
                                                : nlohmann::ordered_json(nullptr)},
                        {"assumed", n.assumed},
                        {"stated", n.stated},
                        {"source", n.network_source}};
    } else {
        j["network"] = nullptr;
    }
    j["serving"] = serving_json(c.estimate.serving);
    if (c.service && c.estimate.serving) {
        // An online service (docs/json.md, "serving"): fixed keys.
        const ServingEstimate& s = *c.estimate.serving;
        nlohmann::ordered_json& sj = j["serving"];
        sj["replicas"] = c.service->replicas;
        sj["concurrency_per_replica"] = s.concurrency_per_replica;
        sj["peak_rps"] = json_number(c.service->peak_rps);
        sj["ttft_s"] = json_number(s.time_to_first_token_s);
        sj["tpot_s"] = json_number(s.time_per_output_token_s);
        sj["utilisation"] = json_number(c.service->utilisation);
        sj["cost_per_month"] = round_money(c.cost.cost_per_month);
        sj["cost_per_million_tokens"] = json_number(c.service->cost_per_million_tokens);
        sj["engine"] = std::string(kServingEngineNames.name(s.engine));
        sj["limited_by"] = s.limited_by;
        sj["hours_per_month"] = json_number(c.service->hours_per_month);
    }
    j["hours_per_run"] = round_money(c.cost.hours_per_run);  // billed: job + set-up (+ spot overhead)
    j["job_hours_per_run"] = round_money(c.estimate.hours_per_run);
    j["setup_hours_per_run"] = round_money(c.setup_hours_per_run);
    j["hours_per_run_band"] = {round_money(c.hours_low), round_money(c.hours_high)};
    j["time_basis"] = to_string(c.estimate.basis);
    j["price_per_hour"] = json_price(c.cost.price_per_hour);  // the catalog's price, exactly
    j["price_complete"] = c.price_complete;                   // false: the GPU alone, the host VM is extra
    j["cost_per_run"] = round_money(c.cost.cost_per_run);
    j["cost_per_month"] = r.one_off() ? nlohmann::ordered_json(nullptr)
                                      : nlohmann::ordered_json(round_money(c.cost.cost_per_month));
    j["cost_of_runs"] = r.one_off()
                            ? nlohmann::ordered_json(round_money(c.cost.cost_per_run * r.runs.value_or(1)))
                            : nlohmann::ordered_json(nullptr);
    j["currency"] = currency;
    j["gpu_hours_per_month"] = round_money(c.cost.gpu_hours_per_month);
    j["break_even_hours_per_month"] = json_number(c.break_even_hours_per_month);
    j["reserved_sets"] = c.cost.plan == Plan::reserved ? nlohmann::ordered_json(c.cost.reserved_sets)
                                                       : nlohmann::ordered_json(nullptr);
    // The best commitment of this configuration (the chosen plan, or the cheapest reserved alternative).
    const PlanCost* k = c.cost.plan == Plan::reserved ? &c.cost : nullptr;
    for (const auto& a : c.alternatives)
        if (!k && a.plan == Plan::reserved)
            k = &a;
        else if (k != &c.cost && a.plan == Plan::reserved && a.cost_per_month < k->cost_per_month)
            k = &a;
    j["term_months"] = c.cost.plan == Plan::reserved ? nlohmann::ordered_json(c.cost.term_months)
                                                     : nlohmann::ordered_json(nullptr);
    j["break_even_utilisation"] =
        k ? json_number(k->break_even_utilisation) : nlohmann::ordered_json(nullptr);
    // Against what the user would otherwise rent (the cheapest on-demand, or spot, option: where
    // --what-if flips); against this configuration's own on-demand price in own_crossover_runs_per_week.
    j["crossover_runs_per_week"] = json_number(c.crossover_runs_per_week);
    j["own_crossover_runs_per_week"] =
        k ? json_number(k->crossover_runs_per_week) : nlohmann::ordered_json(nullptr);
    j["commitment_term_months"] =
        k ? nlohmann::ordered_json(k->term_months) : nlohmann::ordered_json(nullptr);
    // The chosen plan's commitment (reserved only): what it is, how it is paid, the sum paid at the start.
    const Commitment* chosen = c.cost.plan == Plan::reserved ? c.cost.commitment : nullptr;
    j["commitment_kind"] = chosen
                               ? nlohmann::ordered_json(std::string(kCommitmentKindNames.name(chosen->kind)))
                               : nlohmann::ordered_json(nullptr);
    j["commitment_payment"] = chosen
                                  ? nlohmann::ordered_json(std::string(kPaymentNames.name(chosen->payment)))
                                  : nlohmann::ordered_json(nullptr);
    j["upfront_total"] = chosen ? json_number(c.cost.upfront_total) : nlohmann::ordered_json(nullptr);
    j["committed_instances"] = c.cost.plan == Plan::reserved
                                   ? nlohmann::ordered_json(c.cost.committed_instances)
                                   : nlohmann::ordered_json(nullptr);
    j["spot_overhead_fraction"] = json_number(c.cost.spot_overhead);
    j["usd_per_tflops_hour"] = json_number(c.usd_per_tflops_hour);
    j["cost_per_pflop"] = json_number(c.cost_per_pflop);
    j["billed_hours_per_run"] = round_money(c.cost.billed_hours_per_run);
    j["idle_minutes_per_run"] = round_money(c.cost.idle_hours_per_run * 60.0);
    j["idle_cost_per_run"] = round_money(c.cost.idle_cost_per_run);
    j["prompt_release_minutes"] = c.billing.prompt_release_minutes;
    j["prompt_release_saving_per_run"] = round_money(c.cost.prompt_release_saving_per_run);
    j["billing"] = billing_json(c);
    const std::optional<RunEnergy>& e = c.energy;
    j["energy_kwh_per_run"] = e ? json_number(e->kwh_per_run) : nlohmann::ordered_json(nullptr);
    j["energy_kwh_per_month"] = e ? json_number(e->kwh_per_month) : nlohmann::ordered_json(nullptr);
    j["co2e_kg_per_run"] = e ? json_number(e->co2e_kg_per_run) : nlohmann::ordered_json(nullptr);
    j["co2e_kg_per_month"] = e ? json_number(e->co2e_kg_per_month) : nlohmann::ordered_json(nullptr);
    j["co2e_basis"] = e ? e->co2e_basis : "unknown: the GPU's TDP is not in the catalog";
    if (e)
        j["energy_basis"] = {{"gpu_watts", round_money(e->gpu_watts)},
                             {"load_share_of_tdp", e->load_share_of_tdp},
                             {"gpus", e->gpus},
                             {"hours_per_run", round_money(e->hours_per_run)},
                             {"pue", e->pue},
                             {"pue_assumed", e->pue_assumed},
                             {"pue_source", e->pue_source},
                             {"grid_g_co2e_per_kwh", json_number(e->grid_g_co2e_per_kwh)},
                             {"host_power_included", false}};
    else
        j["energy_basis"] = nullptr;
    j["scaling_efficiency"] = round_money(c.estimate.scaling_efficiency);
    j["memory_required_gb"] = round_money(c.estimate.memory_required_gb);
    j["memory_available_gb"] = c.estimate.memory_available_gb;
    j["pareto"] = c.pareto;
    j["as_of"] = c.offer->as_of;
    j["source"] = c.offer->source;
    j["offer_notes"] = c.offer->notes;  // e.g. "variant assumed: ..." (a bare A100 in the table)
    j["reasons"] = c.reasons;
    j["warnings"] = nlohmann::ordered_json::array();
    for (const auto& w : c.warnings) j["warnings"].push_back(w.message);
    nlohmann::ordered_json alts = nlohmann::ordered_json::array();
    for (const auto& a : c.alternatives) {
        nlohmann::ordered_json x;
        x["plan"] = to_string(a.plan);
        x["term_months"] = a.plan == Plan::reserved ? nlohmann::ordered_json(a.term_months)
                                                    : nlohmann::ordered_json(nullptr);
        x["hours_per_run"] = round_money(a.hours_per_run);
        x["cost_per_run"] = round_money(a.cost_per_run);
        x["cost_per_month"] = round_money(a.cost_per_month);
        alts.push_back(x);
    }
    j["alternatives"] = alts;
    return j;
}

// "n1-highmem-8 8c/52G": the instance type and the host's size, as compact as the table allows.
std::string instance_cell(const Offer& o) {
    std::string cell = o.instance_type.empty() ? "-" : o.instance_type;
    if (o.vcpus || o.ram_gb)
        cell += " " + (o.vcpus ? io::fmt_number(*o.vcpus, 0) + "c" : std::string("?c")) + "/" +
                (o.ram_gb ? io::fmt_number(*o.ram_gb, 0) + "G" : std::string("?G"));
    return cell;
}

// "reserved 1y" for a commitment of a known term, else the plan's label.
std::string plan_term_label(Plan p, int term_months) {
    std::string label(plan_label(p));
    if (p == Plan::reserved && term_months) label += " " + term_short(term_months);
    return label;
}

// FROM:TO[:STEP] of --what-if runs-per-week=…, or FROM:TO of requests-per-day=… (an online service).
struct WhatIfRange {
    double from = 0, to = 0, step = 1;
    bool traffic = false;  // requests-per-day
};
WhatIfRange parse_what_if(const std::string& text) {
    const std::string traffic_key = "requests-per-day=";
    if (text.rfind(traffic_key, 0) == 0) {
        const UsageError bad("--what-if " + text + ": expected requests-per-day=FROM:TO",
                             "e.g. --what-if requests-per-day=1k:1M");
        const std::string range = text.substr(traffic_key.size());
        const auto colon = range.find(':');
        if (colon == std::string::npos) throw bad;
        const auto from = parse_quantity(range.substr(0, colon));
        const auto to = parse_quantity(range.substr(colon + 1));
        if (!from || !to) throw bad;
        return {*from, *to, 1, true};
    }
    const std::string key = "runs-per-week=";
    const UsageError bad("--what-if " + text + ": expected runs-per-week=FROM:TO[:STEP] (or requests-per-day=FROM:TO "
                         "for --task serve)",
                         "e.g. --what-if runs-per-week=1:40");
    if (text.rfind(key, 0) != 0) throw bad;
    std::vector<double> v;
    std::vector<std::string> parts(1);
    for (char ch : text.substr(key.size())) {
        if (ch == ':')
            parts.emplace_back();
        else
            parts.back() += ch;
    }
    for (const auto& part : parts) {
        double x = 0;
        auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), x);
        if (ec != std::errc() || ptr != part.data() + part.size() || !std::isfinite(x)) throw bad;
        v.push_back(x);
    }
    if (v.size() < 2 || v.size() > 3) throw bad;
    return {v[0], v[1], v.size() == 3 ? v[2] : 1.0};
}

nlohmann::ordered_json what_if_best_json(const std::optional<WhatIfBest>& b) {
    if (!b) return nullptr;
    nlohmann::ordered_json j;
    j["provider"] = b->provider;
    j["gpu"] = b->gpu;
    j["gpu_count"] = b->gpu_count;
    j["term_months"] =
        b->term_months ? nlohmann::ordered_json(b->term_months) : nlohmann::ordered_json(nullptr);
    j["cost_per_month"] = round_money(b->cost_per_month);
    return j;
}

// What run_recommend computed; to_json and to_document render it (only the one printed is built).
struct RecommendResult {
    const RecommendOptions& opt;
    const RecommendRequest& request;
    const Recommendation& rec;
    const std::optional<WhatIf>& what_if;
    const Catalog& catalog;
    Format format;  // the one printed: the HTML report adds what its charts need
    const std::optional<ServiceWhatIf>& service_what_if;
    bool quiet = false;  // -q: the text keeps the decision and the table
};
nlohmann::ordered_json to_json(const RecommendResult& result);
io::TextDocument to_document(const RecommendResult& result);
io::RecommendReport to_report(const RecommendResult& result, const Freshness& fresh);

// The answer in a few lines, first in the text output and the JSON's "summary": what to rent, what it
// costs a run and a month (an online service: its replicas and month), how long a run takes, how old
// its price is, and the one thing that would change the answer.
struct Decision {
    std::vector<io::TextLine> lines;  // as the text prints them
    std::string changer_kind;         // deadline, memory, crossover, runner_up or none
    std::string changer;              // the text of the "Would change it" line
    std::optional<long> price_age_days;
    bool price_stale = false;
};

// An amount as the table prints it: "2.67 USD".
std::string money(double amount, const std::string& cur) { return io::fmt_number(amount, 2) + " " + cur; }

// A reserved plan's commitment: what is bought, its term, how it is paid and the sum paid at the start,
// " (1-year reservation, all upfront: 12,345.00 USD paid at the start)"; "" for other plans.
std::string commitment_terms_text(const Candidate& c, const std::string& currency) {
    const Commitment* k = c.cost.plan == Plan::reserved ? c.cost.commitment : nullptr;
    // A plain monthly or term price (the payment not stated): the plan label says it all.
    if (!k || (k->kind == CommitmentKind::reservation && k->payment == Payment::unknown && !k->discount))
        return "";
    std::string s = " (" + commitment_label(*k);
    if (c.cost.upfront_total && *c.cost.upfront_total > 0)
        s += ": " + io::fmt_number(*c.cost.upfront_total, 2) + " " + currency + " paid at the start" +
             (c.cost.committed_instances > 1
                  ? " for " + std::to_string(c.cost.committed_instances) + " instances"
                  : "");
    else if (c.cost.upfront_total)
        s += ": nothing paid at the start, the term's fee monthly";
    else if (k->payment == Payment::partial_upfront)
        s += ": the upfront part is not in the catalog";
    return s + ")";
}

// "verda v100-16gb-pcie x1 (instance 1V100.6V), FIN-01, on-demand"
std::string decision_option(const Candidate& c, const std::string& currency) {
    std::string what = c.offer->provider + " " + c.gpu->id + " x" + std::to_string(c.gpu_count);
    if (c.instances > 1) what += " (" + count_noun(c.instances, "node") + ")";
    if (!c.offer->instance_type.empty()) what += ", instance " + c.offer->instance_type;
    if (!c.offer->region.empty()) what += ", " + c.offer->region;
    return what + ", " + plan_term_label(c.cost.plan, c.cost.term_months) + commitment_terms_text(c, currency);
}

// Which one thing would change the answer: the deadline when it bites, a tight memory margin, the
// plan crossover, else the option ranked second.
void decision_changer(const RecommendResult& result, Decision& d) {
    const RecommendRequest& r = result.request;
    const Recommendation& rec = result.rec;
    const Candidate& top = rec.ranked.front();
    const std::string& cur = r.currency;
    const bool deadline_rejected =
        std::any_of(rec.rejected.begin(), rec.rejected.end(),
                    [](const Rejection& x) { return x.constraint == Constraint::deadline; });
    const double run_hours =
        r.deadline_confidence == DeadlineConfidence::high ? top.hours_high : top.cost.hours_per_run;
    const double share = top.estimate.memory_available_gb > 0
                             ? top.estimate.memory_required_gb / top.estimate.memory_available_gb
                             : 0;
    if (r.deadline_hours && (deadline_rejected || run_hours > 0.8 * *r.deadline_hours)) {
        d.changer_kind = "deadline";
        d.changer = "the deadline: #1 takes " +
                    std::string(r.deadline_confidence == DeadlineConfidence::high ? "up to " : "about ") +
                    format_duration(run_hours) + " a run of the " + format_duration(*r.deadline_hours) +
                    " allowed (--deadline-hours)" +
                    (deadline_rejected ? "; a later deadline admits the options it rejects" : "");
    } else if (!top.estimate.serving && share > result.catalog.policy.get("tight_memory_share")) {
        d.changer_kind = "memory";
        d.changer = "the memory margin: " + io::fmt_number(top.estimate.memory_required_gb, 1) + " of " +
                    io::fmt_number(top.estimate.memory_available_gb, 0) + " GB per GPU (" +
                    format_percent(1 - share) +
                    " to spare, estimate); a larger batch, sequence or model needs a bigger GPU";
    } else if (rec.crossover && rec.crossover->runs_per_week && !r.one_off() &&
               *rec.crossover->runs_per_week * rec.crossover->hours_per_run <= kHoursPerWeek) {
        // (a crossover past the week's hours is out of reach: the runner-up says more)
        const CommitmentCrossover& x = *rec.crossover;
        const std::string where =
            x.offer->provider + " " + x.offer->gpu + " x" + std::to_string(x.offer->gpu_count);
        const std::string at =
            r.service ? io::fmt_number(*x.runs_per_week * x.hours_per_run / kDaysPerWeek, 1) + " h a day up"
                      : io::fmt_number(*x.runs_per_week, 1) + " runs a week";
        d.changer_kind = "crossover";
        d.changer = top.cost.plan == Plan::reserved && x.top_option
                        ? "the plan crossover at " + at + ": below it on-demand beats the " +
                              term_label(x.term_months) + " commitment"
                        : "the plan crossover at " + at + ": above it a " + term_label(x.term_months) +
                              " commitment (" + where + ") beats on-demand";
    } else if (rec.ranked.size() > 1) {
        const Candidate& next = rec.ranked[1];
        const bool by_time = r.objective == Objective::time;
        // A one-off job compares its runs, a recurring job and an online service their months.
        const double a = by_time       ? top.cost.hours_per_run
                         : r.one_off() ? top.cost.cost_per_run
                                       : top.cost.cost_per_month;
        const double b = by_time       ? next.cost.hours_per_run
                         : r.one_off() ? next.cost.cost_per_run
                                       : next.cost.cost_per_month;
        d.changer_kind = "runner_up";
        d.changer =
            "#2, " + next.offer->provider + " " + next.gpu->id + " x" + std::to_string(next.gpu_count) +
            ", " +
            (by_time ? "takes " + io::fmt_number(b, 2) + " h a run"
                     : "costs " + money(b, cur) + (r.one_off() ? " a run" : " a month")) +
            (a > 0 && b > a ? " (" + format_percent(b / a - 1) + " more)" : "");
    } else {
        d.changer_kind = "none";
        d.changer = "only one option satisfies the request";
    }
}

Decision make_decision(const RecommendResult& result) {
    const RecommendRequest& r = result.request;
    const Recommendation& rec = result.rec;
    const std::string& cur = r.currency;
    Decision d;
    if (rec.ranked.empty()) {
        d.changer_kind = std::string(to_string(rec.binding_constraint));
        d.changer = "the binding constraint, " + d.changer_kind;
        d.lines.push_back("Answer: nothing satisfies the request (binding constraint: " + d.changer_kind +
                          "). Nearest miss: " + rec.nearest_miss);
        return d;
    }
    const Candidate& c = rec.ranked.front();
    const std::string gpu_only = c.price_complete ? "" : "; GPU only: the host VM is extra";
    d.lines.push_back(
        "Answer: rent " + decision_option(c, cur) +
        (c.parallel_copies > 1 ? ", " + std::to_string(c.parallel_copies) + " copies in parallel" : "") +
        ".");
    if (r.service && c.service && c.estimate.serving) {
        const ServingEstimate& s = *c.estimate.serving;
        d.lines.push_back({"Cost: " + money(c.cost.cost_per_month, cur) + " a month for " +
                               count_noun(c.service->replicas, "replica") + " up " +
                               io::fmt_number(r.service->hours_per_day, 0) + " h a day" +
                               (c.service->cost_per_million_tokens
                                    ? ", " + io::fmt_number(*c.service->cost_per_million_tokens, 3) + " " +
                                          cur + " a million output tokens"
                                    : "") +
                               " (estimates" + gpu_only + ").",
                           io::ListMark::indent});
        d.lines.push_back({"Latency at the peak: " + io::fmt_number(1000 * s.time_to_first_token_s, 0) +
                               " ms to the first token, " +
                               io::fmt_number(1000 * s.time_per_output_token_s, 1) +
                               " ms a token after it (estimates).",
                           io::ListMark::indent});
    } else {
        d.lines.push_back({"Cost: " + money(c.cost.cost_per_run, cur) + " a run, " +
                               (r.one_off() ? money(c.cost.cost_per_run * r.runs.value_or(1), cur) +
                                                  " in all for " + count_noun(r.runs.value_or(1), "run")
                                            : money(c.cost.cost_per_month, cur) + " a month at " +
                                                  count_noun(r.runs_per_week, "run") + " a week") +
                               " (estimates" + gpu_only + ").",
                           io::ListMark::indent});
        d.lines.push_back({"Time: about " + io::fmt_number(c.cost.hours_per_run, 2) + " h a run (" +
                               io::fmt_number(c.hours_low, 2) + " to " + io::fmt_number(c.hours_high, 2) +
                               " h" + ", estimate).",
                           io::ListMark::indent});
    }
    // The price's date, always: stale when older than policy max_price_age_days or of unknown date.
    const std::string as_of = c.offer->as_of.str();
    const auto today = parse_iso_date(io::today_iso());
    const auto dated = parse_iso_date(as_of);
    const double max_age = result.catalog.policy.get("max_price_age_days");
    if (today && dated) d.price_age_days = *today - *dated;
    d.price_stale = as_of.empty() || (d.price_age_days && static_cast<double>(*d.price_age_days) > max_age);
    const std::string refresh = "'gpuadvise catalog update' refreshes it";
    std::string price = as_of.empty()
                            ? "Price: as-of date unknown, treated as stale (" + refresh + ", or --as-of)"
                            : "Price: as of " + as_of;
    if (!as_of.empty() && d.price_age_days)
        price += " (" + count_noun(static_cast<double>(*d.price_age_days), "day") + " old" +
                 (d.price_stale ? ": stale; " + refresh : std::string()) + ")";
    else if (!as_of.empty() && d.price_stale)
        price += " (stale; " + refresh + ")";
    d.lines.push_back({price + ".", io::ListMark::indent});
    decision_changer(result, d);
    d.lines.push_back({"Would change it: " + d.changer + ".", io::ListMark::indent});
    return d;
}

nlohmann::ordered_json summary_json(const RecommendResult& result, const Decision& d) {
    const Recommendation& rec = result.rec;
    nlohmann::ordered_json j;
    if (rec.ranked.empty()) {
        j["answer"] = nullptr;
    } else {
        const Candidate& c = rec.ranked.front();
        j["answer"] = {
            {"rank", c.rank},
            {"provider", c.offer->provider},
            {"gpu", c.gpu->id},
            {"gpu_count", c.gpu_count},
            {"instances", c.instances},
            {"instance_type", c.offer->instance_type},
            {"region", c.offer->region},
            {"plan", to_string(c.cost.plan)},
            {"term_months", c.cost.plan == Plan::reserved ? nlohmann::ordered_json(c.cost.term_months)
                                                          : nlohmann::ordered_json(nullptr)}};
    }
    j["as_of"] = rec.ranked.empty() ? nlohmann::ordered_json(nullptr)
                                    : nlohmann::ordered_json(rec.ranked.front().offer->as_of);
    j["price_age_days"] =
        d.price_age_days ? nlohmann::ordered_json(*d.price_age_days) : nlohmann::ordered_json(nullptr);
    j["price_stale"] =
        rec.ranked.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(d.price_stale);
    j["would_change"] = {{"kind", d.changer_kind}, {"text", d.changer}};
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const auto& l : d.lines) lines.push_back(l.text);
    j["lines"] = lines;
    return j;
}
// The top option's billing (increment, minimum, idle tail, what prompt release saves) and energy.
void billing_energy_notes(const Candidate& c, const std::string& cur, std::vector<io::TextLine>& notes) {
    const BillingAssumptions& b = c.billing;
    const PlanCost& k = c.cost;
    const std::string provider = c.offer->provider;
    auto increment_text = [](double s) {
        return s == 1      ? std::string("per second")
               : s == 60   ? std::string("per minute")
               : s == 3600 ? std::string("per hour")
                           : "per " + io::fmt_number(s, 0) + " s";
    };
    if (b.increment_seconds > 0 && k.plan != Plan::reserved) {
        std::string line =
            "#1 billing: " + provider +
            (b.increment_assumed
                 ? "'s billing is not in the catalog; assumed " + increment_text(b.increment_seconds) +
                       " with a " + io::fmt_number(b.minimum_seconds, 0) +
                       " s minimum (policy default_billing_increment_seconds, default_minimum_charge_seconds)"
                 : " bills " + increment_text(b.increment_seconds) + ", at least " +
                       io::fmt_number(b.minimum_seconds, 0) + " s (" + b.source + ")");
        notes.push_back(line + "; a run is billed " + io::fmt_number(k.billed_hours_per_run, 3) +
                        " h per instance.");
    }
    if (b.idle_minutes > 0 || k.idle_cost_per_run > 0) {
        std::string line = "#1 idle: " + io::fmt_number(b.idle_minutes, 0) + " min after each run cost " +
                           io::fmt_number(k.idle_cost_per_run, 2) + " " + cur + " a run";
        if (k.prompt_release_saving_per_run > 0 && k.cost_per_run > 0)
            line += "; releasing the GPU " + io::fmt_number(b.prompt_release_minutes, 0) +
                    " min after the run saves " + io::fmt_number(k.prompt_release_saving_per_run, 2) + " " +
                    cur + " a run (" +
                    io::fmt_number(100 * k.prompt_release_saving_per_run / k.cost_per_run, 1) +
                    " % of its cost; the guide's rule of thumb says 20 %)";
        else
            line += " (releasing within " + io::fmt_number(b.prompt_release_minutes, 0) +
                    " min, the guide's rule, is already assumed; the guide's rule of thumb puts the saving "
                    "at 20 %)";
        notes.push_back(line + ".");
    }
    if (b.stopped_bills_storage && *b.stopped_bills_storage)
        notes.push_back("#1 billing: a stopped " + provider +
                        " instance still bills its storage: delete it when the job is done.");
    if (const auto& e = c.energy) {
        notes.push_back(
            "#1 energy: " + io::fmt_number(e->kwh_per_run, 2) + " kWh a run, " +
            io::fmt_number(e->kwh_per_month, 1) + " kWh a month (estimate: " + count_noun(e->gpus, "GPU") +
            " x " + io::fmt_number(e->gpu_watts, 0) + " W, " + io::fmt_number(100 * e->load_share_of_tdp, 0) +
            " % of TDP, x " + io::fmt_number(e->hours_per_run, 2) + " h x PUE " + io::fmt_number(e->pue, 2) +
            " (" + e->pue_source + "); host power not included).");
        notes.push_back("#1 carbon: " + (e->co2e_kg_per_run
                                             ? io::fmt_number(*e->co2e_kg_per_run, 3) + " kg CO2e a run, " +
                                                   io::fmt_number(*e->co2e_kg_per_month, 2) +
                                                   " kg a month (" + e->co2e_basis + ")."
                                             : e->co2e_basis + "."));
    }
}

int run_recommend(Context& ctx, const RecommendOptions& opt) {
    const Catalog& catalog = ctx.catalog();
    check_launch_options(opt.launch);
    RecommendRequest request = build_request(ctx, opt);
    // --what-if and the HTML report's charts re-cost what recommend sized, not the whole catalog again.
    RecommendBasis basis;
    const bool what_if_follows = !opt.what_if.empty() || ctx.format() == Format::html;
    Recommendation rec = recommend(catalog, request, what_if_follows ? &basis : nullptr);
    if (!opt.launch.emit.empty() && !rec.ranked.empty()) {  // -o FILE: the report follows on stdout
        const int rc = emit_launcher(ctx, opt.launch, request, rec);
        if (rc != 0 || opt.launch.output.empty()) return rc;
    }
    const std::string& cur = request.currency;
    std::optional<WhatIf> what_if;
    std::optional<ServiceWhatIf> service_what_if;
    if (!opt.what_if.empty()) {
        const WhatIfRange range = parse_what_if(opt.what_if);
        if (range.traffic)
            service_what_if = what_if_requests_per_day(catalog, request, range.from, range.to, &basis);
        else if (request.service)
            throw UsageError("--what-if runs-per-week applies to batch jobs; an online service varies its traffic",
                             "e.g. --what-if requests-per-day=1k:1M");
        else
            what_if = what_if_runs_per_week(catalog, request, range.from, range.to, range.step,
                                            ctx.format() == Format::html, &basis);
    } else if (ctx.format() == Format::html && !rec.ranked.empty() && !request.service) {
        // The report's plan chart: 1 to 40 runs a week (or to twice the request's), 40 points.
        const double to = std::max(40.0, std::ceil(2 * request.runs_per_week));
        what_if = what_if_runs_per_week(catalog, request, 1, to, (to - 1) / 39, true, &basis);
    } else if (ctx.format() == Format::html && !rec.ranked.empty() && request.service &&
               !request.service->peak_rps) {
        // The report's serving chart: a tenth to a hundred times the request's traffic.
        const double at = service_load(*request.service, *request.workload.serving.output_len).requests_per_month /
                          kDaysPerMonth;
        service_what_if =
            what_if_requests_per_day(catalog, request, std::max(0.001, at / 10), at * 100, &basis);
    }

    std::vector<const Offer*> shown;
    for (const auto& c : rec.ranked) shown.push_back(c.offer);
    const Freshness fresh = check_freshness(catalog, shown, cur, io::today_iso());
    warn_freshness(ctx, fresh);
    const RecommendResult result{
        opt, request, rec, what_if, catalog, ctx.format(), service_what_if, ctx.global.quiet};
    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"recommendations", "/recommendations", "", {}},
        {"alternatives",
         "/recommendations",
         "alternatives",
         {"rank", "provider", "gpu", "gpu_count", "instances", "instance_type", "region", "currency"}},
        {"steps", "/analysis/steps", "findings", {"step", "name"}},
        {"workload", "/workload", "", {}},
        {"warnings", "/warnings", "", {}},
        {"rates", "/rates", "", {}},
        {"plan_crossover", "/plan_crossover", "", {}},
        {"what_if", "/what_if", "", {}},
        {"what_if_crossovers", "/what_if_crossovers", "", {}},
        {"rejected", "/rejected", "", {}},
    };
    // Only the renderer of the format printed runs.
    ctx.emit(
        [&] {
            auto json = to_json(result);
            add_freshness(fresh, json);
            return json;
        },
        [&] {
            auto doc = to_document(result);
            add_freshness(fresh, doc);
            return doc;
        },
        sections,
        [&] {
            auto doc = to_document(result);
            add_freshness(fresh, doc);
            return io::render_html(to_report(result, fresh), doc);
        });
    if (rec.ranked.empty()) {
        ctx.err << "gpuadvise: nothing satisfies the request (binding constraint: "
                << to_string(rec.binding_constraint) << ")\n";
        return 3;
    }
    return 0;
}

nlohmann::ordered_json to_json(const RecommendResult& result) {
    const RecommendOptions& opt = result.opt;
    const RecommendRequest& request = result.request;
    const Recommendation& rec = result.rec;
    const std::optional<WhatIf>& what_if = result.what_if;
    const Workload& w = request.workload;
    const std::string& cur = request.currency;
    auto json = json_document();
    json["summary"] = summary_json(result, make_decision(result));
    json["workload"] = recommend_workload_json(w, request);
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const auto& s : rec.steps) {
        nlohmann::ordered_json sj;
        sj["step"] = s.step;
        sj["name"] = s.name;
        sj["findings"] = nlohmann::ordered_json::array();
        for (const auto& f : s.findings) {
            nlohmann::ordered_json fj{{"rule", f.rule}, {"kind", to_string(f.kind)}, {"message", f.message}};
            for (const auto& n : f.numbers) fj["numbers"][n.name] = round_money(n.value);  // absent when none
            sj["findings"].push_back(std::move(fj));
        }
        steps.push_back(sj);
    }
    json["analysis"] = {
        {"steps", steps},
        {"heuristic_gpu_family", rec.heuristic_gpu_family},
        {"why_not_heuristic", rec.why_not_heuristic.empty() ? nlohmann::ordered_json(nullptr)
                                                            : nlohmann::ordered_json(rec.why_not_heuristic)}};
    json["recommendations"] = nlohmann::ordered_json::array();
    for (const auto& c : rec.ranked) json["recommendations"].push_back(candidate_json(c, cur, request));
    json["feasible_options"] = rec.feasible;
    json["warnings"] = rec.warnings;
    json["providers_without_commitment_prices"] = rec.providers_without_commitments;
    if (rec.crossover) {
        const auto& x = *rec.crossover;
        json["plan_crossover"] = {{"provider", x.offer->provider},
                                  {"gpu", x.offer->gpu},
                                  {"gpu_count", x.offer->gpu_count},
                                  {"instance_type", x.offer->instance_type},
                                  {"region", x.offer->region},
                                  {"term_months", x.term_months},
                                  {"break_even_utilisation", x.break_even_utilisation},
                                  {"crossover_runs_per_week", json_number(x.runs_per_week)},
                                  {"hours_per_run", x.hours_per_run},
                                  {"top_option", x.top_option},
                                  {"own_crossover_runs_per_week", json_number(x.own_runs_per_week)}};
        json["plan_crossover"]["against"] =
            x.against ? nlohmann::ordered_json{{"provider", x.against->provider},
                                               {"gpu", x.against->gpu},
                                               {"gpu_count", x.against->gpu_count},
                                               {"instance_type", x.against->instance_type},
                                               {"region", x.against->region},
                                               {"plan", to_string(x.against_plan)},
                                               {"cost_per_run", round_money(x.against_cost_per_run)}}
                      : nlohmann::ordered_json(nullptr);
    } else {
        json["plan_crossover"] = nullptr;
    }
    if (result.service_what_if) {
        nlohmann::ordered_json points = nlohmann::ordered_json::array();
        for (const auto& p : result.service_what_if->points) {
            nlohmann::ordered_json x = what_if_best_json(p.best);
            if (p.best) {
                x["plan"] = to_string(p.plan);
                x["replicas"] = p.replicas;
                x["utilisation"] = json_number(p.utilisation);
                x["cost_per_million_tokens"] = json_number(p.cost_per_million_tokens);
            }
            points.push_back({{"requests_per_day", p.requests_per_day}, {"best", x}});
        }
        json["what_if"] = points;
    }
    if (what_if) {
        nlohmann::ordered_json points = nlohmann::ordered_json::array();
        for (const auto& p : what_if->points)
            points.push_back({{"runs_per_week", p.runs_per_week},
                              {"on_demand", what_if_best_json(p.on_demand)},
                              {"reserved", what_if_best_json(p.reserved)},
                              {"spot", what_if_best_json(p.spot)}});
        if (result.format == Format::html)  // the report's plan chart draws one line per commitment term
            for (std::size_t i = 0; i < what_if->points.size(); ++i) {
                nlohmann::ordered_json terms = nlohmann::ordered_json::array();
                for (const auto& b : what_if->points[i].reserved_by_term)
                    terms.push_back(what_if_best_json(b));
                points[i]["reserved_by_term"] = terms;
            }
        json["what_if"] = points;
        nlohmann::ordered_json crossings = nlohmann::ordered_json::array();
        for (const auto& x : what_if->crossovers)
            crossings.push_back({{"runs_per_week", round_money(x.runs_per_week)},
                                 {"from", to_string(x.from)},
                                 {"to", to_string(x.to)}});
        json["what_if_crossovers"] = crossings;
    }
    if (opt.explain || result.format == Format::html) {
        // Every feasible option as (hours, cost, pareto): the report's cost/time chart. As in
        // recommendations[], a one-off job has cost_of_runs and a null cost_per_month, a recurring one the reverse.
        const nlohmann::ordered_json null_cost = nullptr;
        nlohmann::ordered_json points = nlohmann::ordered_json::array();
        for (const auto& p : rec.feasible_points) {
            const nlohmann::ordered_json cost = round_money(p.cost);
            points.push_back({{"rank", p.rank},
                              {"provider", p.provider},
                              {"gpu", p.gpu},
                              {"gpu_count", p.gpu_count},
                              {"instance_type", p.instance_type},
                              {"region", p.region},
                              {"plan", to_string(p.plan)},
                              {"hours_per_run", round_money(p.hours_per_run)},
                              {"cost_per_month", request.one_off() ? null_cost : cost},
                              {"cost_of_runs", request.one_off() ? cost : null_cost},
                              {"pareto", p.pareto}});
        }
        json["feasible_points"] = points;
        json["feasible_points_capped"] = rec.feasible_points_capped;
    }
    if (rec.ranked.empty())
        json["nothing_fits"] = {{"binding_constraint", to_string(rec.binding_constraint)},
                                {"nearest_miss", rec.nearest_miss}};
    if (opt.explain) {
        nlohmann::ordered_json rj = nlohmann::ordered_json::array();
        for (const auto& x : rec.rejected)
            rj.push_back({{"provider", x.offer->provider},
                          {"gpu", x.offer->gpu},
                          {"gpu_count", x.offer->gpu_count},
                          {"region", x.offer->region},
                          {"constraint", to_string(x.constraint)},
                          {"reason", x.reason}});
        json["rejected"] = rj;
    }

    return json;
}

// The HTML report's view of the result: the figures its JSON has, rounded as there.
io::RecommendReport to_report(const RecommendResult& result, const Freshness& fresh) {
    const RecommendRequest& request = result.request;
    const Recommendation& rec = result.rec;
    const Workload& w = request.workload;
    io::RecommendReport r;
    r.model_name = w.model_name;
    r.task = to_string(w.task);
    r.precision = w.precision ? std::string(to_string(*w.precision)) : std::string("mixed");
    r.objective = to_string(request.objective);
    r.runs_per_week = request.runs_per_week;
    r.one_off = request.one_off();
    r.currency = request.currency;
    if (request.service && request.workload.serving.output_len)
        r.requests_per_day =
            service_load(*request.service, *request.workload.serving.output_len).requests_per_month / kDaysPerMonth;
    if (result.service_what_if)
        for (const auto& p : result.service_what_if->points)
            if (p.best)
                r.service.push_back({p.requests_per_day,
                                     p.best->provider + " " + p.best->gpu + " x" + std::to_string(p.best->gpu_count),
                                     p.plan, p.replicas, round_money(p.best->cost_per_month),
                                     p.cost_per_million_tokens});
    for (const auto& c : rec.ranked) {
        io::ReportOption o;
        o.rank = c.rank;
        o.provider = c.offer->provider.str();
        o.gpu = c.gpu->id;
        o.gpu_count = c.gpu_count;
        o.instance_type = c.offer->instance_type;
        o.region = c.offer->region;
        o.plan = c.cost.plan;
        if (c.cost.plan == Plan::reserved) o.term_months = c.cost.term_months;
        o.hours_per_run = round_money(c.cost.hours_per_run);
        o.cost = request.one_off() ? round_money(c.cost.cost_per_run * request.runs.value_or(1))
                                   : round_money(c.cost.cost_per_month);
        o.pareto = c.pareto;
        o.as_of = c.offer->as_of.str();
        o.source = c.offer->source.str();
        for (const auto& x : c.warnings) o.warnings.push_back(x.message);
        r.recommendations.push_back(std::move(o));
    }
    for (const auto& p : rec.feasible_points) {
        io::ReportOption o;
        o.rank = p.rank;
        o.provider = p.provider;
        o.gpu = p.gpu;
        o.gpu_count = p.gpu_count;
        o.instance_type = p.instance_type;
        o.region = p.region;
        o.plan = p.plan;
        o.hours_per_run = round_money(p.hours_per_run);
        o.cost = round_money(p.cost);
        o.pareto = p.pareto;
        r.feasible_points.push_back(std::move(o));
    }
    r.feasible_points_capped = rec.feasible_points_capped;
    auto best = [](const WhatIfBest& b) {
        io::ReportPlanBest x{b.provider, b.gpu, b.gpu_count, std::nullopt, round_money(b.cost_per_month)};
        if (b.term_months) x.term_months = b.term_months;
        return x;
    };
    auto best_of = [&](const std::optional<WhatIfBest>& b) {
        return b ? std::optional<io::ReportPlanBest>(best(*b)) : std::nullopt;
    };
    if (result.what_if) {
        for (const auto& p : result.what_if->points) {
            io::ReportWhatIfPoint x{
                p.runs_per_week, best_of(p.on_demand), best_of(p.reserved), best_of(p.spot), {}};
            for (const auto& b : p.reserved_by_term) x.reserved_by_term.push_back(best(b));
            r.what_if.push_back(std::move(x));
        }
        for (const auto& x : result.what_if->crossovers)
            r.crossovers.push_back({round_money(x.runs_per_week), x.from, x.to});
    }
    r.warnings = rec.warnings;
    r.warnings.insert(r.warnings.end(), fresh.warnings.begin(), fresh.warnings.end());
    for (const ExchangeRate* x : fresh.rates_used)
        r.rates.push_back({x->currency, x->usd_per_unit, x->as_of});
    return r;
}

// The workload's assumptions: "assumed: …" items in the HTML report's lead, one "Assumed: …; …"
// paragraph in the text's notes.
void add_assumptions(const RecommendResult& result, std::vector<io::TextLine>& into) {
    const RecommendRequest& request = result.request;
    const Workload& w = request.workload;
    std::vector<std::string> items = w.assumptions;
    if (!w.serving.output_len) {
        const double idle =
            request.idle_minutes.value_or(result.catalog.policy.get("idle_minutes_after_run"));
        items.push_back(io::fmt_number(idle, 0) + " min idle after each run before the instance is released" +
                        (request.idle_minutes
                             ? " (--idle-minutes)"
                             : " (policy idle_minutes_after_run; --idle-minutes changes it)"));
    }
    if (result.format == Format::html)
        for (const auto& a : items) into.push_back({"assumed: " + a, io::ListMark::indent});
    else if (!items.empty())
        into.push_back("Assumed: " + join(items, "; ") + ".");
}

// The lead: the decision (text), then the workload (the HTML report: with its assumptions) and what
// the ranking means.
void add_recommend_lead(const RecommendResult& result, io::TextDocument& doc) {
    const Catalog& catalog = result.catalog;
    const RecommendRequest& request = result.request;
    const Workload& w = request.workload;
    const bool report = result.format == Format::html;
    if (!report)
        for (auto& line : make_decision(result).lines) doc.lead.push_back(std::move(line));
    if (result.quiet && !report) return;
    doc.lead.push_back("Workload: " + workload_summary(w) + ", " +
                       (request.service ? "an online service up " +
                                              io::fmt_number(request.service->hours_per_day, 0) + " h a day"
                        : request.one_off() ? "one-off: " + count_noun(request.runs.value_or(1), "run") +
                                                  " (ranked by cost per run, no monthly cost)"
                                            : count_noun(request.runs_per_week, "run") + " a week"));
    if (report) add_assumptions(result, doc.lead);
    if (request.objective == Objective::carbon)
        doc.lead.push_back(
            {"ranked by kg CO2e per run among options costing at most " +
                 io::fmt_number(
                     100 * request.max_cost_increase.value_or(catalog.policy.get("carbon_max_cost_increase")),
                     0) +
                 " % more a month than the cheapest (--max-cost-increase); unknown carbon after known",
             io::ListMark::indent});
    if (report)
        doc.lead.push_back(
            "Times and costs are estimates (bands in --json); prices carry their as-of dates.");
}

// A finding of a step by its rule, or null.
const Finding* step_finding(const StepReport& s, std::string_view rule) {
    for (const auto& f : s.findings)
        if (f.rule == rule) return &f;
    return nullptr;
}

// `text` without a leading "computed: ".
std::string uncomputed(const std::string& text) {
    const std::string prefix = "computed: ";
    return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
}

// What a step decided, in one line (the default needs analysis; --explain prints every finding).
std::string step_line(const StepReport& s, const Recommendation& rec, const RecommendRequest& r) {
    const Candidate* top = rec.ranked.empty() ? nullptr : &rec.ranked.front();
    switch (s.id) {
        case StepId::model_size:
            if (const Finding* f = step_finding(s, "1.memory_need")) {
                const auto need = f->number("memory_gb_per_gpu");
                const auto fits = f->number("gpu_memory_gb");
                // One figure per option, each naming it: the smallest GPU's layout, and #1's when it differs.
                const auto on_top = f->number("top_memory_gb_per_gpu");
                const std::string top_text =
                    on_top && top ? "; #1's " + top->gpu->id + " layout uses " + io::fmt_number(*on_top, 1) +
                                        " of " + io::fmt_number(top->estimate.memory_available_gb, 0) + " GB"
                                  : "";
                return need && fits ? "about " + io::fmt_number(*need, 1) +
                                          " GB per GPU (estimate) on the smallest GPU that holds it (" +
                                          io::fmt_number(*fits, 0) + " GB)" + top_text +
                                          "; the guide: " + rec.heuristic_gpu_family
                                    : uncomputed(f->message);
            }
            break;
        case StepId::frequency: {
            const Finding* f = step_finding(s, "2.break_even");
            const Finding* spot = step_finding(s, "2.spot");
            const std::string spot_text = !spot ? ""
                                          : spot->kind == FindingKind::constraint
                                              ? "; no spot (not --interruptible)"
                                              : "; spot allowed (--interruptible)";
            if (!f || !top) break;
            const std::string plan = plan_term_label(top->cost.plan, top->cost.term_months);
            if (r.service) return uncomputed(f->message.substr(0, f->message.find(';'))) + ": " + plan;
            if (r.one_off())
                return "one-off, " + count_noun(r.runs.value_or(1), "run") + " of " +
                       format_duration(top->run_hours_per_run) + ": " + plan + spot_text;
            const Finding* h = step_finding(s, "2.frequency_heuristic");
            const auto threshold = h ? h->number("threshold_runs_per_week") : std::nullopt;
            return io::fmt_number(f->number("hours_per_month").value_or(0), 0) + " h a month on #1: " + plan +
                   (threshold ? std::string(" (the guide: ") +
                                    (r.runs_per_week > *threshold ? "reserved" : "on-demand") + ")"
                              : "") +
                   spot_text;
        }
        case StepId::dataset: {
            std::string line;
            if (step_finding(s, "3.dataset"))
                line = "none given: the preset's default job";
            else if (const Finding* f = step_finding(s, "3.modality"))
                line = f->message;
            if (const Finding* f = step_finding(s, "3.storage"))
                line += (line.empty() ? "" : "; ") + std::string("local disk of at least ") +
                        io::fmt_number(f->number("dataset_gb").value_or(0), 0) + " GB";
            if (const Finding* f = step_finding(s, "3.host_ram"))
                if (const auto gb = f->number("host_ram_gb_per_node"))
                    line += (line.empty() ? "" : "; ") + std::string("host RAM of at least ") +
                            io::fmt_number(*gb, 0) + " GB a node";
            if (!line.empty()) return line;
            break;
        }
        case StepId::scaling: {
            std::vector<std::string> parts;
            for (const char* rule :
                 {"4.gpus", "4.single_gpu", "4.communication", "4.scale_to", "4.multi_node"})
                if (const Finding* f = step_finding(s, rule))
                    parts.push_back(f->message);
            if (!parts.empty()) return join(parts, "; ");
            break;
        }
        case StepId::pitfalls: break;
    }
    for (const auto& f : s.findings)
        if (f.kind != FindingKind::heuristic && f.kind != FindingKind::warning) return uncomputed(f.message);
    return s.findings.empty() ? "" : s.findings.front().message;
}

// The four steps' findings: one line a step (and its warnings) by default; with `full` (--explain, the
// HTML report) every finding, --explain also naming each rule.
io::TextTable needs_analysis_table(const RecommendResult& result, bool full) {
    const Recommendation& rec = result.rec;
    const bool explain = result.opt.explain;
    io::TextTable steps_table;
    steps_table.role = io::TableRole::needs_analysis;
    if (!full) {
        steps_table.title = "Needs analysis (one line a step; --explain prints every finding and rule)";
        steps_table.columns = {{"STEP"}, {"FINDING", io::Align::left, 0, true}};
        for (const auto& s : rec.steps) {
            const std::string label = s.step == s.name ? s.name : s.step + " " + s.name;
            bool first = true;
            if (const std::string line = s.id == StepId::pitfalls ? "" : step_line(s, rec, result.request);
                !line.empty()) {
                steps_table.rows.push_back({label, line});
                first = false;
            }
            for (const auto& f : s.findings)
                if (f.kind == FindingKind::warning) {
                    steps_table.rows.push_back({first ? label : "", "warning: " + f.message});
                    first = false;
                }
        }
        return steps_table;
    }
    steps_table.title = "Needs analysis";
    steps_table.columns = {{"STEP"}, {"KIND"}, {"FINDING", io::Align::left, 0, true}};
    for (const auto& s : rec.steps)
        for (std::size_t i = 0; i < s.findings.size(); ++i) {
            const auto& f = s.findings[i];
            if (!explain && f.kind == FindingKind::explanation && s.id == StepId::pitfalls) continue;
            steps_table.rows.push_back({i == 0 ? (s.step == s.name ? s.name : s.step + " " + s.name) : "",
                                        to_string(f.kind),
                                        explain ? "[" + f.rule + "] " + f.message : f.message});
        }
    return steps_table;
}

// The NOTES cell of a ranked option: "pareto, measured, 2 warnings, ...".
std::string option_notes_cell(const Candidate& c, const std::string& cur) {
    std::string notes = c.pareto ? "pareto" : "";
    if (c.estimate.basis == TimeBasis::measured) notes += std::string(notes.empty() ? "" : ", ") + "measured";
    if (c.estimate.serving && c.estimate.serving->cost_per_million_tokens)
        notes += std::string(notes.empty() ? "" : ", ") +
                 io::fmt_number(*c.estimate.serving->cost_per_million_tokens, 3) + " " + cur + "/M tokens";
    if (!c.warnings.empty())
        notes += std::string(notes.empty() ? "" : ", ") +
                 count_noun(static_cast<double>(c.warnings.size()), "warning");
    if (c.offer->variant_assumed) notes += std::string(notes.empty() ? "" : ", ") + "variant assumed";
    if (!c.price_complete) notes += std::string(notes.empty() ? "" : ", ") + "GPU only; host VM extra";
    if (c.parallel_copies > 1)
        notes += std::string(notes.empty() ? "" : ", ") + std::to_string(c.parallel_copies) + " in parallel";
    return notes;
}

// An online service's ranked options: replicas, latency at the peak, the month and the tokens' cost.
io::TextTable service_table(const RecommendResult& result) {
    const RecommendRequest& request = result.request;
    const Recommendation& rec = result.rec;
    const std::string& cur = request.currency;
    io::TextTable t;
    t.role = io::TableRole::recommendations;
    t.title = "Recommendations (" + std::to_string(rec.ranked.size()) + " of " + std::to_string(rec.feasible) +
              " feasible options, by " + to_string(request.objective) + ", " + cur +
              "; latency at the peak, estimates)";
    t.columns = {{"#", io::Align::right},
                 {"PROVIDER"},
                 {"GPU x N", io::Align::left, 0, true},
                 {"INSTANCE", io::Align::left, 3, true},
                 {"REGION", io::Align::left, 2, true},
                 {"PLAN"},
                 {"REPLICAS", io::Align::right},
                 {"CONC", io::Align::right},
                 {"TTFT MS", io::Align::right},
                 {"TPOT MS", io::Align::right},
                 {"UTIL", io::Align::right},
                 {"COST/MONTH", io::Align::right},
                 {cur + "/M TOK", io::Align::right},
                 {"NOTES", io::Align::left, 1, true}};
    for (const auto& c : rec.ranked) {
        const ServingEstimate& s = *c.estimate.serving;
        t.rows.push_back(
            {std::to_string(c.rank), c.offer->provider,
             c.gpu->id + " x" + std::to_string(c.gpu_count) +
                 (c.instances > 1 ? " (" + std::to_string(c.instances) + " instances)" : ""),
             instance_cell(*c.offer), c.offer->region.empty() ? "-" : c.offer->region,
             plan_term_label(c.cost.plan, c.cost.term_months),
             c.service ? std::to_string(c.service->replicas) : "-",
             std::to_string(s.concurrency_per_replica), io::fmt_number(1000 * s.time_to_first_token_s, 0),
             io::fmt_number(1000 * s.time_per_output_token_s, 1),
             c.service ? format_percent(c.service->utilisation) : "-", io::fmt_number(c.cost.cost_per_month, 2),
             io::fmt_optional(c.service ? c.service->cost_per_million_tokens : std::nullopt, 3),
             c.pareto ? "pareto" : (c.warnings.empty() ? "" : count_noun(static_cast<double>(c.warnings.size()), "warning"))});
    }
    return t;
}

// --what-if requests-per-day: the cheapest option at each traffic point.
void add_service_what_if_table(const ServiceWhatIf& what_if, const std::string& cur, io::TextDocument& doc) {
    io::TextTable wt;
    wt.title = "What if: the cheapest option a month by traffic (" + cur + ", estimates)";
    wt.columns = {{"REQUESTS/DAY", io::Align::right}, {"CHEAPEST", io::Align::left, 0, true},
                  {"PLAN"},                           {"REPLICAS", io::Align::right},
                  {"UTIL", io::Align::right},         {"COST/MONTH", io::Align::right},
                  {cur + "/M TOK", io::Align::right}};
    const WhatIfBest* last = nullptr;
    for (const auto& p : what_if.points) {
        if (!p.best) {
            wt.rows.push_back({format_count(p.requests_per_day), "-", "-", "-", "-", "-", "-"});
            continue;
        }
        const WhatIfBest& b = *p.best;
        wt.rows.push_back({format_count(p.requests_per_day),
                           b.provider + " " + b.gpu + " x" + std::to_string(b.gpu_count),
                           plan_term_label(p.plan, b.term_months), std::to_string(p.replicas),
                           format_percent(p.utilisation), io::fmt_number(b.cost_per_month, 0),
                           io::fmt_optional(p.cost_per_million_tokens, 3)});
        if (last && (last->gpu != b.gpu || last->provider != b.provider))
            doc.notes.push_back("What if: at " + format_count(p.requests_per_day) + " requests a day " + b.provider +
                                " " + b.gpu + " x" + std::to_string(b.gpu_count) + " takes over from " +
                                last->provider + " " + last->gpu + " x" + std::to_string(last->gpu_count) + ".");
        last = &b;
    }
    doc.tables.push_back(wt);
}

// The ranked options, one row each.
io::TextTable recommendations_table(const RecommendResult& result) {
    const RecommendRequest& request = result.request;
    const Recommendation& rec = result.rec;
    const Workload& w = request.workload;
    const std::string& cur = request.currency;
    io::TextTable t;
    t.role = io::TableRole::recommendations;
    t.title = "Recommendations (" + std::to_string(rec.ranked.size()) + " of " +
              std::to_string(rec.feasible) + " feasible options, by " + to_string(request.objective) +
              (request.one_off() && request.objective != Objective::time ? " per run" : "") + ", " + cur +
              ")";
    // Narrow terminals hide USD/TFLOPS-H first, then KG CO2E/RUN (kept with --objective carbon), BREAK-EVEN, LAYOUT,
    // INSTANCE and REGION (--wide shows all).
    const int carbon_priority = request.objective == Objective::carbon ? 0 : 6;  // the column asked for stays
    t.columns = {{"#", io::Align::right},
                 {"PROVIDER"},
                 {"GPU x N", io::Align::left, 0, true},
                 {"INSTANCE", io::Align::left, 3, true},
                 {"LAYOUT", io::Align::left, 4},
                 {"REGION", io::Align::left, 2, true},
                 {"PLAN"},
                 {"H/RUN", io::Align::right},
                 {"COST/RUN", io::Align::right},
                 {"COST/MONTH", io::Align::right},
                 {"BREAK-EVEN H/MO", io::Align::right, 5},
                 {"USD/TFLOPS-H", io::Align::right, 7},
                 {"KG CO2E/RUN", io::Align::right, carbon_priority},
                 {"NOTES", io::Align::left, 1, true}};
    for (const auto& c : rec.ranked)
        t.rows.push_back(
            {std::to_string(c.rank), c.offer->provider,
             c.gpu->id + " x" + std::to_string(c.gpu_count) +
                 (c.instances > 1 ? " (" + std::to_string(c.instances) + " nodes)" : ""),
             instance_cell(*c.offer), layout_label(c.estimate.config, w.is_training()),
             c.offer->region.empty() ? "-" : c.offer->region,
             plan_term_label(c.cost.plan, c.cost.term_months), io::fmt_number(c.cost.hours_per_run, 2),
             io::fmt_number(c.cost.cost_per_run, 2),
             request.one_off() ? "-" : io::fmt_number(c.cost.cost_per_month, 2),
             io::fmt_optional(c.break_even_hours_per_month, 0), io::fmt_optional(c.usd_per_tflops_hour, 4),
             c.energy && c.energy->co2e_kg_per_run ? io::fmt_number(*c.energy->co2e_kg_per_run, 3)
                                                   : "unknown",
             option_notes_cell(c, cur)});
    return t;
}

// The CHEAPEST cell of a --what-if point: the plan, provider and configuration of the lowest month.
std::string what_if_cheapest(const WhatIfPoint& p) {
    std::string best = "-";
    double low = 0;
    for (Plan plan : {Plan::on_demand, Plan::reserved, Plan::spot}) {
        const auto& b = plan == Plan::on_demand ? p.on_demand : plan == Plan::reserved ? p.reserved : p.spot;
        if (b && (best == "-" || b->cost_per_month < low - 1e-9)) {
            low = b->cost_per_month;
            best = std::string(plan_label(plan)) + ": " + b->provider + " " + b->gpu + " x" +
                   std::to_string(b->gpu_count) + (b->instance_type.empty() ? "" : " " + b->instance_type);
        }
    }
    return best;
}

// --what-if: the monthly cost of the best option per plan over the range, and where the plan changes.
void add_what_if_table(const WhatIf& what_if, const std::string& cur, io::TextDocument& doc) {
    io::TextTable wt;
    wt.title = "What if: monthly cost of the best option per plan (" + cur + ")";
    wt.columns = {{"RUNS/WEEK", io::Align::right},
                  {"ON-DEMAND", io::Align::right},
                  {"RESERVED", io::Align::right},
                  {"SPOT", io::Align::right},
                  {"CHEAPEST", io::Align::left, 0, true}};
    auto cell = [](const std::optional<WhatIfBest>& b) {
        if (!b) return std::string("-");
        // Cents, as the ranked table's COST/MONTH: a small job's 0.67 a month is not "1".
        return io::fmt_number(b->cost_per_month, 2) +
               (b->term_months ? " (" + term_short(b->term_months) + ")" : "");
    };
    for (const auto& p : what_if.points)
        wt.rows.push_back({io::fmt_number(p.runs_per_week, 1), cell(p.on_demand), cell(p.reserved),
                           cell(p.spot), what_if_cheapest(p)});
    doc.tables.push_back(wt);
    for (const auto& x : what_if.crossovers)
        doc.notes.push_back("What if: at " + io::fmt_number(x.runs_per_week, 2) + " runs a week " +
                            std::string(plan_label(x.to)) + " takes over from " +
                            std::string(plan_label(x.from)) + ".");
    if (what_if.crossovers.empty())
        doc.notes.push_back("What if: the cheapest plan is the same across the range.");
}

// --explain: where "the guide" comes from, and every rejected offer, grouped by its reason.
void add_rejected_notes(const Recommendation& rec, std::vector<io::TextLine>& notes) {
    notes.push_back(
        "'The guide' is the 2025 buyer's guide to GPU cloud servers for PyTorch that gpuadvise started "
        "from "
        "(docs/methodology.md); its rules of thumb are the heuristic findings, each shown beside what "
        "gpuadvise computes.");
    std::map<std::string, int> grouped;
    for (const auto& x : rec.rejected)
        grouped[x.offer->provider + " " + x.offer->gpu + " x" + std::to_string(x.offer->gpu_count) + ": [" +
                to_string(x.constraint) + "] " + x.reason]++;
    for (const auto& [line, n] : grouped)
        notes.push_back("rejected: " + line + (n > 1 ? " (" + std::to_string(n) + " offers)" : ""));
}

// The notes after the tables: commitments, why #1, its billing and energy, warnings, why not, rejections.
void add_recommend_notes(const RecommendResult& result, io::TextDocument& doc) {
    const RecommendOptions& opt = result.opt;
    const Recommendation& rec = result.rec;
    const std::string& cur = result.request.currency;
    if (!rec.why_top.empty()) doc.notes.push_back("Why #1: " + join(rec.why_top, "; ") + ".");
    if (!rec.ranked.empty() && !opt.explain)
        for (const auto& x : rec.ranked.front().warnings) doc.notes.push_back("#1 warning: " + x.message);
    if (!rec.why_not_heuristic.empty())
        doc.notes.push_back("Why not " + rec.heuristic_gpu_family + ": " + rec.why_not_heuristic);
    if (result.format != Format::html) add_assumptions(result, doc.notes);
    // One line for every provider without commitment prices.
    const auto& without = rec.providers_without_commitments;
    if (without.size() == 1)
        doc.notes.push_back("No commitment prices known for " + without.front() +
                            " (the catalog has none; the provider may still sell them).");
    else if (!without.empty())
        doc.notes.push_back("No commitment prices known for " +
                            join(std::vector<std::string>(without.begin(), without.end() - 1), ", ") +
                            " or " + without.back() +
                            " (the catalog has none; the providers may still sell them).");
    if (!rec.ranked.empty()) billing_energy_notes(rec.ranked.front(), cur, doc.notes);
    if (opt.explain)
        for (const auto& c : rec.ranked) {
            for (const auto& x : c.warnings)
                doc.notes.push_back("#" + std::to_string(c.rank) + " warning: " + x.message);
            for (const auto& x : c.reasons) doc.notes.push_back("#" + std::to_string(c.rank) + ": " + x);
        }
    if (rec.ranked.empty() && result.format == Format::html)  // the text says it in the decision
        doc.notes.push_back("Nothing satisfies the request. Binding constraint: " +
                            std::string(to_string(rec.binding_constraint)) +
                            ". Nearest miss: " + rec.nearest_miss);
    if (opt.explain)
        add_rejected_notes(rec, doc.notes);
    else if (rec.ranked.size() > 1)
        doc.notes.push_back("Warnings of options below #1 are counted in NOTES; --explain prints them.");
    if (!opt.explain && !rec.rejected.empty()) {
        doc.notes.push_back(count_noun(static_cast<double>(rec.rejected.size()), "offer") +
                            " rejected; --explain lists them with the reason.");
    }
}

io::TextDocument to_document(const RecommendResult& result) {
    // Text: the decision first, then the ranked table, the steps (one line each unless --explain) and
    // the notes; -q keeps the decision and the table. The HTML report places the tables by role.
    io::TextDocument doc;
    const bool report = result.format == Format::html;
    const bool brief = result.quiet && !report;
    add_recommend_lead(result, doc);
    if (report) doc.tables.push_back(needs_analysis_table(result, true));
    // No option: the decision says why, not an empty header (exit 3).
    if (!result.rec.ranked.empty())
        doc.tables.push_back(result.request.service ? service_table(result) : recommendations_table(result));
    if (result.what_if) add_what_if_table(*result.what_if, result.request.currency, doc);
    if (result.service_what_if)
        add_service_what_if_table(*result.service_what_if, result.request.currency, doc);
    if (!report && !brief) doc.tables.push_back(needs_analysis_table(result, result.opt.explain));
    if (!brief) add_recommend_notes(result, doc);
    return doc;
}

}  // namespace

Runner setup_recommend(CommandApp& sub) {
    auto opt = std::make_shared<RecommendOptions>();
    add_workload_options(sub, opt->workload);
    sub.add_option("--runs-per-week", opt->runs_per_week,
                   "Training runs a week (default 1; 0 = a one-off job, ranked by cost per run)")
        ->check(decimal_number(0.0, 10000.0))
        ->each([opt](const std::string&) { opt->runs_per_week_given = true; });
    sub.add_option("--runs", opt->runs,
                   "A one-off job of N runs (not recurring): ranked by cost per run, no monthly cost")
        ->transform(whole_number(1, 1000000));
    sub.add_option("--dataset", opt->dataset, "Dataset modality")->check(one_of(kDatasetNames.names()));
    sub.add_option("--dataset-gb", opt->dataset_gb, "Dataset size in GB (local disk and host RAM checks)")
        ->check(decimal_number(0.0, 1e9));
    sub.add_option("--resolution", opt->resolution, "Image side in pixels (same as --image-size)")
        ->transform(whole_number(8, 65536));
    sub.add_option("--gpus-now", opt->gpus_now, "GPUs the job uses now")->transform(whole_number(1, 4096));
    sub.add_option("--scale-to", opt->scale_to, "GPUs needed within six months")
        ->transform(whole_number(1, 4096));
    sub.add_option("--nodes", opt->nodes, "Instances (nodes) to rent of each offer: fixes the count")
        ->transform(whole_number(1, 512));
    // Volumes take quantities (500M, 10k): quantity_number reads them into the number.
    sub.add_option("--tokens-per-month", opt->tokens_per_month,
                   "Serving: output tokens a month, e.g. 500M (batch-inference: the volume; serve: the mean traffic)")
        ->type_name("N")
        ->transform(quantity_number(1.0, 1e18));
    sub.add_option("--requests-per-day", opt->requests_per_day,
                   "Serving: requests a day, e.g. 10k (an online service's mean traffic; reads --task inference as "
                   "serve)")
        ->type_name("N")
        ->transform(quantity_number(0.001, 1e15));
    sub.add_option("--peak-rps", opt->peak_rps, "Serving (--task serve): requests a second at the peak")
        ->check(decimal_number(1e-6, 1e9));
    sub.add_option("--peak-factor", opt->peak_factor,
                   "Serving (--task serve): the peak over the mean of the hours up (default 3)")
        ->check(decimal_number(1.0, 1000.0));
    sub.add_option("--hours-per-day", opt->hours_per_day,
                   "Serving (--task serve): hours a day the replicas are up (default 24)")
        ->check(decimal_number(0.5, 24.0));
    sub.add_option("--min-replicas", opt->min_replicas, "Serving (--task serve): replicas at least (default 1)")
        ->transform(whole_number(1, 100000));
    sub.add_option("--network-gbps", opt->network_gbps,
                   "Network between nodes, Gbit/s, for every offer whose network the catalog does not state")
        ->check(decimal_number(0.1, 100000.0));
    sub.add_option("--rdma", opt->rdma, "Whether that network has RDMA (InfiniBand, RoCE, EFA): yes or no")
        ->check(one_of({"yes", "no"}));
    sub.add_flag("--allow-unknown-network", opt->allow_unknown_network,
                 "Rank multi-node options over a network nothing states with the others (default: after them)");
    sub.add_flag("--interruptible", opt->interruptible,
                 "The job checkpoints and tolerates interruption: spot is allowed");
    sub.add_option("--checkpoint-minutes", opt->checkpoint_minutes,
                   "Minutes between checkpoints (spot lost work)")
        ->check(decimal_number(0.0, 10080.0));
    sub.add_option("--budget-monthly", opt->budget_monthly,
                   "Most the workload may cost a month (output currency)")
        ->check(decimal_number(0.0, 1e12));
    sub.add_option("--deadline-hours", opt->deadline_hours, "Longest a run may take")
        ->check(decimal_number(1e-6, 1e6));  // 0 h leaves no time for a run (jobs files: the same bound)
    sub.add_option("--deadline-confidence", opt->deadline_confidence,
                   "Check the deadline against the high end of the time band (high, default) or the estimate "
                   "(point: rows that may miss are warned)")
        ->check(one_of(kDeadlineConfidenceNames.names()));
    sub.add_option("--objective", opt->objective, "What to rank by")->check(one_of(kObjectiveNames.names()));
    sub.add_option("--max-cost-increase", opt->max_cost_increase,
                   "With --objective carbon: how much more a month than the cheapest an option may cost "
                   "(default 10%)")
        ->type_name("PERCENT");
    sub.add_option("--idle-minutes", opt->idle_minutes,
                   "Minutes each instance stays up after a run before release (default: policy "
                   "idle_minutes_after_run, 5)")
        ->check(decimal_number(0.0, 10080.0));
    sub.add_option("--gpu", opt->gpu, "Only these GPUs: NAME[,NAME…][:MEMORY][:COUNT]");
    sub.add_option("--provider", opt->providers, "Only this provider (repeatable)");
    sub.add_option("--region", opt->regions, "Only regions containing this text (repeatable)");
    sub.add_option("--top", opt->top, "How many options to list (default 5)")
        ->transform(whole_number(1, 1000));
    sub.add_option(
        "--pytorch", opt->pytorch,
        "PyTorch version the job needs (e.g. 2.1 or 1.12+cu102): offers no wheel of it runs on are excluded");
    sub.add_option(
           "--plan", opt->plan,
           "Only this plan: on-demand, reserved (any term), reserved-1m, reserved-1y, reserved-3y, spot")
        ->type_name("on-demand|reserved|reserved-1m|reserved-1y|reserved-3y|spot");
    sub.add_option("--what-if", opt->what_if,
                   "Monthly cost of the best option per plan over a range: runs-per-week=FROM:TO[:STEP], or "
                   "(--task serve) the cheapest option over traffic: requests-per-day=FROM:TO")
        ->type_name("runs-per-week=FROM:TO|requests-per-day=FROM:TO");
    sub.add_flag("--include-examples", opt->include_examples,
                 "Also rank the guide's example providers (not rentable; each is marked with a warning)");
    sub.add_flag("--explain", opt->explain,
                 "Print every rule that fired and every rejected offer with the reason");
    add_launch_options(sub, opt->launch);
    set_footer(sub, {{FooterBlock::Kind::examples,
                      {"gpuadvise recommend --model bert --runs-per-week 4",
                       "gpuadvise recommend --model llama-2-7b --task lora --json",
                       "gpuadvise recommend --model resnet50 --runs-per-week 20 --interruptible "
                       "--checkpoint-minutes 15"}},
                     {FooterBlock::Kind::paragraph,
                      {"Exit code 3 when nothing satisfies the constraints (the output names the binding "
                       "one)."}}});
    return [opt](Context& ctx) { return run_recommend(ctx, *opt); };
}

}  // namespace gpuadvise::cli
