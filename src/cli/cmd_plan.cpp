// gpuadvise plan JOBS.yaml: several workloads planned together on committed instances (docs/plan.md).
#include <memory>

#include "cli/commands.hpp"
#include "cli/help_footer.hpp"
#include "cli/workload_options.hpp"
#include "gpuadvise/advice/pool.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/catalog_loader.hpp"
#include "io/jobs_yaml.hpp"

namespace gpuadvise::cli {
namespace {

struct PlanOptions {
    std::string file;
};

std::string percent(const std::optional<double>& share) {
    return share ? io::fmt_number(100 * *share, 0) + " %" : "-";
}

std::string offer_label(const PoolPlan& p) {
    const Offer& o = *p.offer;
    return o.provider + " " + o.gpu + " x" + std::to_string(o.gpu_count) +
           (o.instance_type.empty() ? "" : " " + o.instance_type) +
           (o.region.empty() ? "" : " in " + o.region);
}

nlohmann::ordered_json sizing_json(const PoolSizing& s) {
    nlohmann::ordered_json j;
    j["committed_instances"] = s.committed_instances;
    j["peak_concurrent_instances"] = round_money(s.peak_instances);
    j["instance_hours_per_week"] = round_money(s.demand_hours_per_week);
    j["committed_hours_per_week"] = round_money(s.served_hours_per_week);
    j["overflow_hours_per_week"] = round_money(s.overflow_hours_per_week);
    j["utilisation"] = json_number(s.utilisation);
    j["committed_cost_per_month"] = round_money(s.committed_cost_per_month);
    j["overflow_cost_per_month"] = round_money(s.overflow_cost_per_month);
    j["cost_per_month"] = round_money(s.cost_per_month);
    return j;
}

// A pool's JSON: its offer, prices, sizings, saving and jobs (docs/json.md).
nlohmann::ordered_json pool_json(const PoolPlan& p, const std::string& cur) {
    nlohmann::ordered_json pj;
    pj["pool"] = p.name;
    pj["currency"] = cur;  // of every amount in the pool (also a column of --format csv)
    if (!p.offer) {
        pj["offer"] = nullptr;
        pj["nothing_fits"] = p.why;
        return pj;
    }
    const Offer& o = *p.offer;
    pj["offer"] = {{"provider", o.provider},
                   {"gpu", o.gpu},
                   {"gpus_per_instance", o.gpu_count},
                   {"instance_type", o.instance_type},
                   {"region", o.region},
                   {"as_of", o.as_of},
                   {"source", o.source}};
    pj["common_offers"] = p.common_offers;
    pj["term_months"] =
        p.term_months ? nlohmann::ordered_json(p.term_months) : nlohmann::ordered_json(nullptr);
    pj["committed_price_per_month"] = json_number(p.committed_price_per_month);
    pj["on_demand_per_hour"] = json_number(p.on_demand_per_hour);
    pj["overflow_plan"] = to_string(p.overflow_plan);
    pj["overflow_price_per_hour"] = json_number(p.overflow_price_per_hour);
    pj["spot_overhead_fraction"] = json_number(p.spot_overhead);
    pj["pooled"] = sizing_json(p.pooled);
    pj["alone"] = {{"committed_instances", p.alone_committed_instances},
                   {"cost_per_month", round_money(p.alone_cost_per_month)}};
    pj["dedicated"] = {{"committed_instances", p.dedicated_instances},
                       {"utilisation", json_number(p.dedicated_utilisation)},
                       {"cost_per_month", round_money(p.dedicated_cost_per_month)}};
    pj["saving_per_month"] = round_money(p.saving_per_month);
    pj["saving_fraction"] = json_number(p.saving_fraction);
    nlohmann::ordered_json jj = nlohmann::ordered_json::array();
    for (const auto& x : p.jobs) {
        const PoolJob& job = *x.job;
        const Workload& w = job.request.workload;
        nlohmann::ordered_json j;
        j["name"] = job.name;
        j["team"] = job.team.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(job.team);
        j["model"] = w.model_id;
        j["task"] = std::string(to_string(w.task));
        j["runs_per_week"] = job.request.runs_per_week;
        j["schedule"] = job.schedule.text;
        j["schedule_hours_per_week"] = job.schedule.slots();
        j["interruptible"] = job.request.interruptible;
        j["instances"] = x.instances;
        j["gpu_count"] = x.gpu_count;
        j["hours_per_run"] = round_money(x.hours_per_run);
        j["instance_hours_per_week"] = round_money(x.instance_hours_per_week);
        j["feasible_offers"] = x.feasible_offers;
        j["alone"] = sizing_json(x.alone);
        j["dedicated_utilisation"] = json_number(x.dedicated.utilisation);
        jj.push_back(j);
    }
    pj["jobs"] = jj;
    return pj;
}

// A planned pool's jobs, one row each.
io::TextTable pool_jobs_table(const PoolPlan& p) {
    io::TextTable t;
    t.title = "Pool '" + p.name + "' on " + offer_label(p) + ": the jobs";
    // Narrow terminals hide OWN INSTANCE BUSY first, then ALONE: COMMITTED, SCHEDULE, INST-H/WEEK, TEAM, INSTANCES.
    t.columns = {{"JOB", io::Align::left, 0, true},         {"TEAM", io::Align::left, 2},
                 {"MODEL", io::Align::left, 0, true},       {"SCHEDULE", io::Align::left, 4},
                 {"INSTANCES", io::Align::right, 1},        {"H/RUN", io::Align::right},
                 {"RUNS/WEEK", io::Align::right},           {"INST-H/WEEK", io::Align::right, 3},
                 {"ALONE: COMMITTED", io::Align::right, 5}, {"UTILISATION", io::Align::right},
                 {"COST/MONTH", io::Align::right},          {"OWN INSTANCE BUSY", io::Align::right, 6}};
    for (const auto& x : p.jobs) {
        const PoolJob& job = *x.job;
        const Workload& w = job.request.workload;
        t.rows.push_back(
            {job.name, job.team.empty() ? "-" : job.team, w.model_id + " " + std::string(to_string(w.task)),
             job.schedule.text, std::to_string(x.instances), io::fmt_number(x.hours_per_run, 2),
             io::fmt_number(job.request.runs_per_week, 1), io::fmt_number(x.instance_hours_per_week, 1),
             std::to_string(x.alone.committed_instances), percent(x.alone.utilisation),
             io::fmt_number(x.alone.cost_per_month, 0), percent(x.dedicated.utilisation)});
    }
    return t;
}

// A planned pool's committed instances: each job on its own, each alone at its cheapest, pooled.
io::TextTable pool_sizing_table(const PoolPlan& p, const std::string& cur) {
    io::TextTable s;
    s.title = "Pool '" + p.name + "': committed instances against each job alone (" + cur + " a month)";
    s.columns = {{"PLAN", io::Align::left, 0, true},      {"COMMITTED", io::Align::right},
                 {"UTILISATION", io::Align::right},       {"OVERFLOW INST-H/MONTH", io::Align::right, 2},
                 {"COMMITTED COST", io::Align::right, 1}, {"OVERFLOW COST", io::Align::right, 1},
                 {"TOTAL/MONTH", io::Align::right}};
    const PoolSizing alone = alone_total(p);
    if (p.dedicated_instances > 0)
        s.rows.push_back({"each job on its own instances", std::to_string(p.dedicated_instances),
                          percent(p.dedicated_utilisation), "0",
                          io::fmt_number(p.dedicated_cost_per_month, 0), "0",
                          io::fmt_number(p.dedicated_cost_per_month, 0)});
    s.rows.push_back(
        {"each job alone, cheapest", std::to_string(p.alone_committed_instances), percent(alone.utilisation),
         io::fmt_number(alone.overflow_hours_per_week * kWeeksPerMonth, 0),
         io::fmt_number(alone.committed_cost_per_month, 0), io::fmt_number(alone.overflow_cost_per_month, 0),
         io::fmt_number(p.alone_cost_per_month, 0)});
    s.rows.push_back({"pooled", std::to_string(p.pooled.committed_instances), percent(p.pooled.utilisation),
                      io::fmt_number(p.pooled.overflow_hours_per_week * kWeeksPerMonth, 0),
                      io::fmt_number(p.pooled.committed_cost_per_month, 0),
                      io::fmt_number(p.pooled.overflow_cost_per_month, 0),
                      io::fmt_number(p.pooled.cost_per_month, 0)});
    return s;
}

// A planned pool's prices, peak demand and saving, as notes.
void add_pool_notes(const PoolPlan& p, const std::string& cur, std::vector<io::TextLine>& notes) {
    std::string prices = "Pool '" + p.name + "': " + offer_label(p) + " (cheapest pooled total of " +
                         std::to_string(p.common_offers) + " offer" + (p.common_offers == 1 ? "" : "s") +
                         " every job can run on); ";
    prices += p.committed_price_per_month
                  ? "committed " + io::fmt_number(*p.committed_price_per_month, 2) + " " + cur +
                        " a month per instance (" + term_label(p.term_months) + ")"
                  : std::string("no commitment price in the catalog");
    prices += p.overflow_price_per_hour
                  ? ", overflow " + std::string(plan_label(p.overflow_plan)) + " " +
                        io::fmt_number(*p.overflow_price_per_hour, 4) + " " + cur + " an instance-hour" +
                        (p.spot_overhead ? " (with " + io::fmt_number(100 * *p.spot_overhead, 1) +
                                               " % interruption overhead)"
                                         : "")
                  : std::string(", no on-demand price: the committed instances cover the peak");
    notes.push_back(prices + ".");
    notes.push_back(
        "Pool '" + p.name + "': peak concurrent demand " + io::fmt_number(p.pooled.peak_instances, 2) +
        " instances; " + std::to_string(p.pooled.committed_instances) + " committed (" +
        std::to_string(p.alone_committed_instances) + " when each job is planned alone), utilisation " +
        percent(p.pooled.utilisation) + "; saving " + io::fmt_number(p.saving_per_month, 0) + " " + cur +
        " a month (" + percent(p.saving_fraction) + ") against planning each job alone.");
}

int run_plan(Context& ctx, const PlanOptions& opt) {
    const Catalog& catalog = ctx.catalog();
    const std::string cur = ctx.currency();
    const std::vector<PoolJob> jobs = io::parse_jobs_yaml(
        io::read_file(opt.file, io::kMaxJobsFileBytes, io::kJobsTooLargeFix), opt.file, catalog, cur);
    const PoolResult result = plan_pools(catalog, jobs);

    auto json = json_document();
    json["file"] = opt.file;
    json["currency"] = cur;
    nlohmann::ordered_json pools = nlohmann::ordered_json::array();
    io::TextDocument doc;
    doc.lead.push_back("Plan for " + std::to_string(jobs.size()) + " job" + (jobs.size() == 1 ? "" : "s") +
                       " from " + opt.file + " (" + cur + "; times and costs are estimates)");
    bool unplanned = false;
    for (const auto& p : result.pools) {
        pools.push_back(pool_json(p, cur));
        if (!p.offer) {
            unplanned = true;
            doc.notes.push_back("Pool '" + p.name + "': nothing satisfies it: " + p.why + ".");
            continue;
        }
        doc.tables.push_back(pool_jobs_table(p));
        doc.tables.push_back(pool_sizing_table(p, cur));
        add_pool_notes(p, cur, doc.notes);
    }
    json["pools"] = pools;
    json["assumptions"] = result.assumptions;
    for (const auto& a : result.assumptions) doc.notes.push_back("Assumed: " + a + ".");
    // --format csv/tsv: one row per pool by default, --section jobs one row per job (docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"pools", "/pools", "", {}},
        {"jobs", "/pools", "jobs", {"pool"}},
        {"assumptions", "/assumptions", "", {}},
    };
    ctx.emit([&] { return json; }, [&] { return doc; }, sections);
    if (unplanned) {
        ctx.err << "gpuadvise: nothing satisfies the jobs file (a pool has no offer every job can run on)\n";
        return 3;
    }
    return 0;
}

}  // namespace

Runner setup_plan(CommandApp& sub) {
    auto opt = std::make_shared<PlanOptions>();
    sub.add_option("jobs", opt->file, "The jobs file (YAML; format in docs/plan.md)")
        ->required()
        ->type_name("JOBS.yaml");
    set_footer(sub,
               {{FooterBlock::Kind::examples,
                 {"gpuadvise plan jobs.yaml", "gpuadvise plan docs/examples/jobs-pool.yaml --json"}},
                {FooterBlock::Kind::paragraph,
                 {"Exit code 1 for a bad jobs file (each problem as FILE:LINE:COL), 3 when a pool has no "
                  "offer every job can run on."}}});
    return [opt](Context& ctx) { return run_plan(ctx, *opt); };
}

}  // namespace gpuadvise::cli
