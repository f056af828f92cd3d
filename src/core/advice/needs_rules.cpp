#include "needs_rules.hpp"

#include "host_rules.hpp"
#include "recommend_candidates.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpuadvise/base/format.hpp"
#include "gpuadvise/base/text.hpp"

namespace gpuadvise::detail {
namespace {

std::string fmt(const char* format, double a, double b = 0, double c = 0) {
    char buf[256];
    std::snprintf(buf, sizeof buf, format, a, b, c);
    return buf;
}

std::vector<const Gpu*> gpus_by_memory(const Catalog& catalog) {
    std::vector<const Gpu*> gpus;
    for (const auto& g : catalog.gpus) gpus.push_back(&g);
    std::stable_sort(gpus.begin(), gpus.end(),
                     [](const Gpu* a, const Gpu* b) { return a->memory_gb < b->memory_gb; });
    return gpus;
}

}  // namespace

StepReport step1_model_size(const RuleInput& in, std::string& heuristic_family) {
    StepReport s{"1", "model size", {}, StepId::model_size};
    const Workload& w = in.request.workload;
    const Policy& policy = in.catalog.policy;
    // The guide's three tiers name a model of each size; above a billion parameters "BERT-class"
    // would mislead, so the large tier is named by its size class (the guide's answer stays A100).
    const char* tier = w.params <= 1e9    ? "large (BERT-class)"
                       : w.params <= 2e10 ? "large (a multi-billion-parameter LLM)"
                                          : "very large (a 20B+ parameter LLM)";
    heuristic_family = "A100";
    if (w.params <= policy.get("tier_small_max_params")) {
        tier = "small (LeNet-class)";
        heuristic_family = "T4";
    } else if (w.params <= policy.get("tier_medium_max_params")) {
        tier = "medium (ResNet-class)";
        heuristic_family = "V100";
    }
    s.findings.push_back({"1.tier_heuristic",
                          FindingKind::heuristic,
                          "the guide's rule of thumb: " + format_count(w.params) + " parameters is " + tier +
                              " -> " + heuristic_family,
                          {{"params", w.params}}});

    const Gpu* smallest_single = nullptr;
    double need_gb = 0;
    for (const Gpu* g : gpus_by_memory(in.catalog)) {
        const Estimate& e = in.estimates.get(*g, 1, LinkSpec{});
        if (e.fits) {
            smallest_single = g;
            need_gb = e.memory_required_gb;
            break;
        }
    }
    // "A CPU would do" as estimate_job says it (policy cpu_max_*).
    const bool cpu_would_do = in.winner && gpuadvise::cpu_would_do(w, in.winner->estimate, in.catalog.policy);
    if (in.winner && in.winner->estimate.utilisation < in.catalog.policy.get("tiny_utilisation"))
        s.findings.push_back(
            {"1.tiny_model",
             FindingKind::explanation,
             fmt("the model keeps the GPU about %.2f%% busy (estimate): it is too small to fill any GPU, "
                 "so the cheapest GPU per hour wins",
                 100 * in.winner->estimate.utilisation) +
                 std::string(cpu_would_do ? " (a CPU would do too)" : ""),
             {{"utilisation", in.winner->estimate.utilisation}}});
    if (smallest_single) {
        // One figure per option: the need on the smallest GPU is that GPU's layout (a small GPU may
        // need checkpointing or a smaller micro-batch); #1's own layout may use more, and is named.
        std::vector<FindingNumber> numbers{{"memory_gb_per_gpu", need_gb},
                                           {"gpu_memory_gb", smallest_single->memory_gb}};
        std::string top_part;
        if (in.winner && in.winner->estimate.memory_available_gb > 0 &&
            (in.winner->gpu != smallest_single || in.winner->gpu_count != 1 ||
             fmt("%.1f", in.winner->estimate.memory_required_gb) != fmt("%.1f", need_gb))) {
            top_part = "; #1 (" + in.winner->gpu->id + " x" + std::to_string(in.winner->gpu_count) +
                       ", its own layout) uses " + fmt("%.1f", in.winner->estimate.memory_required_gb) +
                       " of " + fmt("%.0f", in.winner->estimate.memory_available_gb) + " GB per GPU";
            numbers.push_back({"top_memory_gb_per_gpu", in.winner->estimate.memory_required_gb});
        }
        s.findings.push_back(
            {"1.memory_need", FindingKind::constraint,
             "computed: about " + fmt("%.1f", need_gb) + " GB per GPU on " + smallest_single->id + " (" +
                 std::string(to_string(w.task)) + ", estimate); the smallest GPU that holds it alone is " +
                 smallest_single->id + " (" + fmt("%.0f", smallest_single->memory_gb) + " GB)" + top_part,
             std::move(numbers)});
        const Gpu* tier_gpu = nullptr;
        for (const auto& g : in.catalog.gpus)
            if (g.family == heuristic_family && (!tier_gpu || g.memory_gb < tier_gpu->memory_gb))
                tier_gpu = &g;
        if (tier_gpu && smallest_single->memory_gb < tier_gpu->memory_gb)
            s.findings.push_back({"1.tier_vs_computed",
                                  FindingKind::explanation,
                                  "the guide's rule of thumb asks for " + heuristic_family +
                                      ", but the job fits a " + fmt("%.0f", smallest_single->memory_gb) +
                                      " GB GPU: every GPU that fits is priced below, not only " +
                                      heuristic_family,
                                  {{"gpu_memory_gb", smallest_single->memory_gb}}});
        else if (tier_gpu && !in.estimates.get(*tier_gpu, 1, LinkSpec{}).fits)
            s.findings.push_back(
                {"1.tier_vs_computed",
                 FindingKind::warning,
                 "the " + heuristic_family + " (" + fmt("%.0f", tier_gpu->memory_gb) +
                     " GB) that the guide's rule of thumb names is too small for this job on one GPU",
                 {{"gpu_memory_gb", tier_gpu->memory_gb}}});
    } else {
        // Fits nowhere on one GPU: say how many of the largest, or what would make it fit.
        const Gpu* largest = gpus_by_memory(in.catalog).empty() ? nullptr : gpus_by_memory(in.catalog).back();
        if (largest) {
            const Estimate& e = in.estimates.get(*largest, 1, LinkSpec{});
            std::string msg = "computed: about " + fmt("%.0f", e.memory_required_gb) +
                              " GB per GPU on one GPU: no single GPU holds it";
            std::vector<FindingNumber> numbers{{"memory_gb_per_gpu", e.memory_required_gb}};
            if (e.min_gpu_count) {
                msg += "; " + std::to_string(*e.min_gpu_count) + "x " + largest->id +
                       " do (with a sharded layout)";
                numbers.push_back({"gpu_count", static_cast<double>(*e.min_gpu_count)});
            }
            s.findings.push_back({"1.memory_need", FindingKind::constraint, msg, std::move(numbers)});
            for (const auto& n : e.notes)
                s.findings.push_back({"1.make_it_fit", FindingKind::explanation, n});
        }
    }
    return s;
}

namespace {

// The best commitment of a candidate's configuration: the chosen plan when it is one, else the
// cheapest reserved alternative.
const PlanCost* best_commitment(const Candidate& c) {
    if (c.cost.plan == Plan::reserved) return &c.cost;
    const PlanCost* best = nullptr;
    for (const auto& a : c.alternatives)
        if (a.plan == Plan::reserved && (!best || a.cost_per_month < best->cost_per_month)) best = &a;
    return best;
}

const PlanCost* on_demand_of(const Candidate& c) {
    if (c.cost.plan == Plan::on_demand) return &c.cost;
    for (const auto& a : c.alternatives)
        if (a.plan == Plan::on_demand) return &a;
    return nullptr;
}

// "Google Cloud's 1-year a2-highgpu-1g commitment"
std::string commitment_name(const Provider* provider, const Offer& offer, const Gpu& gpu, const PlanCost& k) {
    const std::string who = provider ? provider->name : offer.provider.str();
    const std::string what =
        offer.instance_type.empty() ? gpu.id + " x" + std::to_string(offer.gpu_count) : offer.instance_type;
    return who + "'s " + term_label(k.term_months) + " " + what + " commitment" +
           (offer.region.empty() ? "" : " in " + offer.region);
}

}  // namespace

StepReport step2_frequency(const RuleInput& in, std::optional<CommitmentCrossover>& crossover) {
    const auto& r = in.request;
    const bool service = r.service.has_value();
    StepReport s{"2", service ? "serving schedule" : "training frequency", {}, StepId::frequency};
    const double threshold = in.catalog.policy.get("reserved_runs_per_week_heuristic");
    const double hours_per_month = in.catalog.policy.get("hours_per_month");
    // A service's "runs" are its days up: the guide's rule counts training runs, and reads an
    // always-on service as more than `threshold` runs a week.
    const bool heuristic_reserved = r.runs_per_week > threshold;
    if (service)
        s.findings.push_back({"2.frequency_heuristic",
                              FindingKind::heuristic,
                              "the guide's rule of thumb counts training runs a week (more than " +
                                  fmt("%g", threshold) +
                                  " -> monthly reserved); an online service up every day reads as always on "
                                  "-> monthly reserved",
                              {{"runs_per_week", r.runs_per_week}, {"threshold_runs_per_week", threshold}}});
    else if (r.one_off())
        s.findings.push_back({"2.frequency_heuristic",
                              FindingKind::heuristic,
                              "the guide's rule of thumb counts runs a week (more than " +
                                  fmt("%g", threshold) + " -> monthly reserved); a one-off job of " +
                                  count_noun(r.runs.value_or(1), "run") + " does not recur -> on-demand",
                              {{"runs_per_week", r.runs_per_week}, {"threshold_runs_per_week", threshold}}});
    else
        s.findings.push_back({"2.frequency_heuristic",
                              FindingKind::heuristic,
                              "the guide's rule of thumb: " + count_noun(r.runs_per_week, "run") +
                                  " a week is " + (heuristic_reserved ? "more" : "not more") +
                                  fmt(" than %g -> ", threshold) +
                                  (heuristic_reserved ? "monthly reserved" : "on-demand"),
                              {{"runs_per_week", r.runs_per_week}, {"threshold_runs_per_week", threshold}}});
    if (const Candidate* c = in.winner) {
        const double run_hours = c->run_hours_per_run;
        const double monthly_hours = runs_per_month(r.runs_per_week) * run_hours;
        std::string msg =
            service && c->service
                ? "computed: " + count_noun(c->service->replicas, "replica") + " on " +
                      count_noun(c->instances, "instance") +
                      fmt(" carry the peak of %.3g requests/s at %.0f%% utilisation, each instance up %.0f h "
                          "a month",
                          c->service->peak_rps, 100 * c->service->utilisation, monthly_hours)
            : r.one_off()
                ? "computed: one-off, " + count_noun(r.runs.value_or(1), "run") +
                      fmt(" x %.2f h (with set-up) = %.0f h in all on the top option", run_hours,
                          r.runs.value_or(1) * run_hours)
                : fmt("computed: %.1f runs/month x %.2f h (with set-up) = %.0f h a month on the top option",
                      runs_per_month(r.runs_per_week), run_hours, monthly_hours);
        const PlanCost* k = best_commitment(*c);
        const PlanCost* od = on_demand_of(*c);
        std::vector<FindingNumber> numbers{{"runs_per_month", runs_per_month(r.runs_per_week)},
                                           {"hours_per_run", run_hours},
                                           {"hours_per_month", monthly_hours}};
        if (k && k->break_even_utilisation) {
            numbers.push_back({"break_even_utilisation", *k->break_even_utilisation});
            numbers.push_back({"term_months", static_cast<double>(k->term_months)});
        }
        if (k && k->break_even_utilisation && *k->break_even_utilisation > 1)
            msg += "; its best commitment (" + term_label(k->term_months) + ") costs " +
                   fmt("%.2f times on-demand running all month", *k->break_even_utilisation) +
                   " -> on-demand is cheaper";
        else if (k && k->break_even_utilisation)
            msg += "; its best commitment (" + term_label(k->term_months) + ") breaks even at " +
                   fmt("%.0f%% of the term's hours", 100 * *k->break_even_utilisation) +
                   fmt(" (%.0f h a month per instance)", *k->break_even_utilisation * hours_per_month) +
                   (od && k->cost_per_month < od->cost_per_month ? " -> the commitment is cheaper"
                                                                 : " -> on-demand is cheaper");
        else if (k)
            msg += "; " + c->offer->provider + " has a commitment but no on-demand price for it";
        else if (!has_commitment(*c->offer) &&
                 std::find(in.without_commitments.begin(), in.without_commitments.end(),
                           c->offer->provider) != in.without_commitments.end()) {
            msg += "; no commitment prices known for " + c->offer->provider;
            // A hint, labelled: the hours a commitment at a typical discount would need (#28).
            const double discount = in.catalog.policy.get("typical_commitment_discount");
            const double pays_from = (1 - discount) * hours_per_month;
            if (c->cost.plan == Plan::on_demand && monthly_hours > pays_from) {
                msg += fmt("; a hint, not a price: at a typical %.0f%% commitment discount (policy "
                           "typical_commitment_discount) a commitment pays from %.0f h a month per instance, "
                           "and this job runs %.0f h: ask ",
                           100 * discount, pays_from, monthly_hours) +
                       c->offer->provider + " whether it sells one";
                numbers.push_back({"hint_commitment_pays_from_hours", pays_from});
            }
        } else
            msg += "; " + c->offer->provider + " has no commitment price for it";
        msg += "; plan chosen: " + std::string(plan_label(c->cost.plan)) +
               (c->cost.plan == Plan::reserved ? " (" + term_label(c->cost.term_months) + ")" : "");
        s.findings.push_back({"2.break_even", FindingKind::preference, msg, std::move(numbers)});
        // Where a commitment takes over, in runs a week of this job: against what the user would
        // otherwise rent (the cheapest on-demand option, or spot), the point where --what-if flips (#28).
        const Candidate* where = k ? c : nullptr;
        if (!where)
            for (const auto& other : in.reservable)
                if (best_commitment(other)) {
                    where = &other;
                    break;
                }
        if (const PlanFlip* f = in.flip) {
            const Option& o = *f->reserved;
            const PlanCost& x = f->commitment;
            const Option& a = *f->against.option;
            const bool same = a.offer == o.offer;
            crossover = CommitmentCrossover{o.offer,
                                            x.term_months,
                                            x.break_even_utilisation.value_or(0),
                                            f->runs_per_week,
                                            x.billed_hours_per_run,
                                            o.offer == c->offer,
                                            a.offer,
                                            f->against.plan,
                                            f->against.cost_per_run,
                                            x.crossover_runs_per_week};
            const double hours_a_day = f->runs_per_week * x.billed_hours_per_run / kDaysPerWeek;
            std::string against_text =
                same ? std::string(plan_label(f->against.plan))
                     : "the cheapest " + std::string(plan_label(f->against.plan)) + " option (" +
                           a.offer->provider + " " + a.gpu->id + " x" + std::to_string(a.gpu_count) +
                           (a.offer->instance_type.empty() ? "" : " " + a.offer->instance_type) +
                           (a.price_complete ? ", " : ", GPU only, host VM extra, ") +
                           format_amount(f->against.cost_per_run, r.currency) + " a run)";
            std::string own;
            if (!same && x.crossover_runs_per_week)
                own = service ? fmt("; against its own machine on demand it pays off above %.1f h a day",
                                    *x.crossover_runs_per_week * x.billed_hours_per_run / kDaysPerWeek)
                              : fmt("; against its own machine on demand it pays off above %.1f runs a week",
                                    *x.crossover_runs_per_week);
            std::vector<FindingNumber> crossover_numbers{{"crossover_runs_per_week", f->runs_per_week},
                                                         {"runs_per_week", r.runs_per_week},
                                                         {"term_months", static_cast<double>(x.term_months)}};
            if (x.crossover_runs_per_week)
                crossover_numbers.push_back({"own_crossover_runs_per_week", *x.crossover_runs_per_week});
            s.findings.push_back(
                {"2.crossover", FindingKind::preference,
                 (service ? fmt("above %.1f h a day up, ", hours_a_day)
                          : fmt("above %.1f runs a week of this job, ", f->runs_per_week)) +
                     commitment_name(o.provider, *o.offer, *o.gpu, x) + " beats " + against_text + own +
                     (service ? "; this service: " + fmt("%g h a day", r.service->hours_per_day)
                              : "; this workload: " + count_noun(r.runs_per_week, "run") + " a week") +
                     "; the commitment is paid for its whole " + term_label(x.term_months) +
                     " term whether used or not" +
                     (!service && r.runs_per_week > f->runs_per_week && c->cost.plan != Plan::reserved &&
                              r.objective == Objective::cost
                          ? std::string("; more runs need more committed slots, and at this workload's "
                                        "frequency on-demand is cheaper again (--what-if runs-per-week shows "
                                        "where the plans change)")
                          : std::string()),
                 std::move(crossover_numbers)});
        } else if (where) {
            const PlanCost* x = best_commitment(*where);
            if (x->break_even_utilisation)
                crossover = CommitmentCrossover{where->offer,
                                                x->term_months,
                                                *x->break_even_utilisation,
                                                std::nullopt,
                                                x->billed_hours_per_run,
                                                where == c,
                                                nullptr,
                                                Plan::on_demand,
                                                0,
                                                x->crossover_runs_per_week};
            s.findings.push_back(
                {"2.crossover",
                 FindingKind::preference,
                 "no listed commitment beats the cheapest " +
                     std::string(r.interruptible ? "on-demand or spot" : "on-demand") +
                     " option at up to 10000 runs a week of this job" +
                     (x->crossover_runs_per_week
                          ? "; against its own machine on demand, " +
                                commitment_name(where->provider, *where->offer, *where->gpu, *x) +
                                fmt(" pays off above %.1f runs a week", *x->crossover_runs_per_week)
                          : std::string()),
                 {{"runs_per_week", r.runs_per_week}}});
        }
        const bool chose_reserved = c->cost.plan == Plan::reserved;
        const double month_share = monthly_hours / hours_per_month;
        // Over a month's hours the load is several instances' worth, never a share above 100 %.
        const std::string load =
            month_share <= 1 + 1e-9
                ? fmt("%.1f h use %.0f%% of a month", run_hours, 100 * month_share)
                : fmt("%.1f h need %.1f instances' worth of hours a month", run_hours, month_share) +
                      (chose_reserved && c->cost.committed_instances > 0
                           ? ": " + std::to_string(c->cost.committed_instances) + " committed" +
                                 (c->cost.on_demand_overflow_per_month > 0 ? " + on demand for the rest" : "")
                           : std::string());
        if (chose_reserved != heuristic_reserved && c->cost.plan != Plan::spot && !service) {
            std::string why = std::string("the guide's rule of thumb would pick ") +
                              (heuristic_reserved ? "reserved" : "on-demand");
            if (k && k->break_even_utilisation)
                why +=
                    fmt("; the plan is chosen on the break-even instead: the rule counts runs, not hours or "
                        "prices (%g runs of ",
                        r.runs_per_week) +
                    load +
                    (*k->break_even_utilisation <= 1
                         ? fmt(", against a break-even of %.0f%%)", 100 * *k->break_even_utilisation)
                         : std::string(", and the commitment costs more than on-demand all month)"));
            else
                // No commitment price for the top option: no break-even to choose on.
                why += "; the catalog has no commitment price for the top option (" + c->offer->provider +
                       "), so on-demand is the only plan priced for it (" +
                       fmt("%g runs of ", r.runs_per_week) + load + ")";
            s.findings.push_back({"2.heuristic_differs",
                                  FindingKind::explanation,
                                  why,
                                  {{"runs_per_week", r.runs_per_week},
                                   {"hours_per_run", run_hours},
                                   {"month_share", month_share}}});
        }
    }
    if (r.interruptible) {
        const double per_hour = in.catalog.policy.get("spot_interruptions_per_hour");
        const double restart = in.catalog.policy.get("spot_restart_minutes");
        const double overhead = spot_overhead_fraction({per_hour, restart, r.checkpoint_minutes});
        s.findings.push_back(
            {"2.spot",
             FindingKind::preference,
             fmt("spot allowed (--interruptible): expected overhead %.1f%% of run time (%g interruptions/h x "
                 "(",
                 100 * overhead, per_hour) +
                 fmt("%g min restart + %g min lost work)), an assumption", restart, r.checkpoint_minutes / 2),
             {{"overhead_share", overhead},
              {"interruptions_per_hour", per_hour},
              {"restart_minutes", restart},
              {"lost_work_minutes", r.checkpoint_minutes / 2}}});
    } else
        s.findings.push_back(
            {"2.spot", FindingKind::constraint, "spot excluded: the job is not marked --interruptible"});
    return s;
}

StepReport step3_dataset(const RuleInput& in) {
    StepReport s{"3", "dataset", {}, StepId::dataset};
    const auto& r = in.request;
    const Workload& w = r.workload;
    if (r.dataset == Dataset::unspecified && !r.dataset_gb) {
        s.findings.push_back(
            {"3.dataset", FindingKind::explanation,
             "no dataset given (--dataset, --dataset-gb): the preset's default job is assumed"});
    } else if (r.dataset != Dataset::unspecified) {
        std::string msg = std::string("dataset: ") + to_string(r.dataset);
        std::vector<FindingNumber> numbers;
        if (w.image_size > 0) {
            msg += ", " + std::to_string(w.image_size) + " px images";
            numbers.push_back({"image_px", static_cast<double>(w.image_size)});
        }
        if (in.winner) {
            msg += fmt("; activations %.1f GB per GPU on the top option (estimate)",
                       in.winner->estimate.memory.activations_gb);
            numbers.push_back({"activations_gb_per_gpu", in.winner->estimate.memory.activations_gb});
        }
        s.findings.push_back({"3.modality", FindingKind::explanation, msg, std::move(numbers)});
    }
    if (r.dataset == Dataset::image_hires) {
        const double min_gb = in.catalog.policy.get("hires_min_gpu_memory_gb");
        s.findings.push_back(
            {"3.hires_heuristic",
             FindingKind::heuristic,
             fmt("the guide's rule of thumb: high-resolution images (4K medical) want the %.0f GB class",
                 min_gb),
             {{"gpu_memory_gb", min_gb}}});
        if (in.winner && in.winner->gpu->memory_gb < min_gb)
            s.findings.push_back({"3.hires_vs_computed",
                                  FindingKind::explanation,
                                  "computed memory fits a " + fmt("%.0f", in.winner->gpu->memory_gb) +
                                      " GB GPU at this batch and resolution; raise --image-size/--batch-size "
                                      "to see when it stops",
                                  {{"gpu_memory_gb", in.winner->gpu->memory_gb}}});
    }
    if (r.dataset_gb)
        s.findings.push_back(
            {"3.storage",
             FindingKind::constraint,
             fmt("dataset of %.0f GB: local NVMe of at least that size keeps the loader fed", *r.dataset_gb),
             {{"dataset_gb", *r.dataset_gb}}});
    const Policy& policy = in.catalog.policy;
    std::vector<FindingNumber> ram{{"load_ram_factor", policy.get("checkpoint_load_ram_factor")},
                                   {"reserve_gb", policy.get("host_ram_reserve_gb")}};
    if (in.winner)
        ram.push_back(
            {"host_ram_gb_per_node", checkpoint_host_ram_gb(in.catalog, r.workload, in.winner->estimate)});
    s.findings.push_back(
        {"3.host_ram", FindingKind::constraint,
         fmt("host RAM must hold the node's share of the checkpoint while it loads (2 bytes a parameter, 4 "
             "for "
             "fp32/tf32; split over nodes by tensor/pipeline parallelism; x %g + %g GB): offers with less "
             "are rejected",
             ram[0].value, ram[1].value) +
             (in.winner ? fmt(" (top option: %.0f GB per node)", ram[2].value) : std::string()),
         ram});
    s.findings.push_back({"3.host_ram_heuristic",
                          FindingKind::heuristic,
                          fmt("the guide's rule of thumb: host RAM of at least %gx the total GPU memory (not "
                              "checked per option)",
                              policy.get("host_ram_per_gpu_memory")),
                          {{"host_ram_per_gpu_memory", policy.get("host_ram_per_gpu_memory")}}});
    if (in.winner)
        if (auto vcpus = data_loading_vcpus(in.catalog, r.workload, in.winner->estimate))
            s.findings.push_back({"3.data_loading",
                                  FindingKind::explanation,
                                  fmt("data loading: about %.0f vCPUs per node decode and augment JPEGs fast "
                                      "enough for the top option "
                                      "(estimate: %g images/s per core; options with fewer vCPUs are warned)",
                                      std::ceil(*vcpus), policy.get("jpeg_images_per_core")),
                                  {{"vcpus_per_node", std::ceil(*vcpus)},
                                   {"images_per_s_per_core", policy.get("jpeg_images_per_core")}}});
    return s;
}

StepReport step4_scaling(const RuleInput& in) {
    StepReport s{"4", "scaling", {}, StepId::scaling};
    const auto& r = in.request;
    const double min_net = in.catalog.policy.get("multi_node_min_network_gbps");
    if (r.gpus_now || r.scale_to) {
        std::vector<FindingNumber> numbers;
        if (r.gpus_now) numbers.push_back({"gpus_now", static_cast<double>(*r.gpus_now)});
        if (r.scale_to) numbers.push_back({"scale_to", static_cast<double>(*r.scale_to)});
        s.findings.push_back(
            {"4.gpus", FindingKind::explanation,
             "GPUs now: " + (r.gpus_now ? std::to_string(*r.gpus_now) : std::string("as needed")) +
                 ", within six months: " +
                 (r.scale_to ? std::to_string(*r.scale_to) : std::string("no change")),
             std::move(numbers)});
    }
    if (const Candidate* c = in.winner) {
        if (c->gpu_count > 1)
            s.findings.push_back({"4.communication",
                                  FindingKind::explanation,
                                  fmt("%.0f GPUs: scaling efficiency about %.0f%%, communication %.0f%% of "
                                      "step time (estimate, all-reduce model)",
                                      static_cast<double>(c->gpu_count), 100 * c->estimate.scaling_efficiency,
                                      100 * c->estimate.comm_share),
                                  {{"gpu_count", static_cast<double>(c->gpu_count)},
                                   {"scaling_efficiency", c->estimate.scaling_efficiency},
                                   {"communication_share", c->estimate.comm_share}}});
        else
            s.findings.push_back(
                {"4.single_gpu", FindingKind::explanation, "one GPU: no interconnect needed"});
        if (c->estimate.comm_share > in.catalog.policy.get("comm_share_warn"))
            s.findings.push_back(
                {"4.communication_high",
                 FindingKind::warning,
                 "communication dominates: use gradient accumulation (bigger per-GPU batch), PowerSGD "
                 "compression, or NVLink (SXM/NVL) parts",
                 {{"communication_share", c->estimate.comm_share}}});
        if (r.scale_to && *r.scale_to > c->gpu_count) {
            int largest = 0;
            for (const auto& o : in.catalog.offers)
                if (o.provider == c->offer->provider && o.gpu == c->offer->gpu)
                    largest = std::max(largest, o.gpu_count);
            if (largest >= *r.scale_to)
                s.findings.push_back({"4.scale_to",
                                      FindingKind::explanation,
                                      c->offer->provider + " offers " + std::to_string(largest) + "x " +
                                          c->offer->gpu + " in one node: growing to " +
                                          std::to_string(*r.scale_to) + " GPUs stays on one node",
                                      {{"gpus_per_node", static_cast<double>(largest)},
                                       {"scale_to", static_cast<double>(*r.scale_to)}}});
            else {
                const bool rdma =
                    c->provider && c->provider->rdma && c->provider->rdma_gbps.value_or(0) >= min_net;
                s.findings.push_back(
                    {"4.scale_to",
                     rdma ? FindingKind::explanation : FindingKind::warning,
                     "growing to " + std::to_string(*r.scale_to) + " GPUs needs several nodes at " +
                         c->offer->provider +
                         (rdma ? ", which has RDMA"
                               : ", which lists no RDMA of >= " + fmt("%.0f", min_net) +
                                     " Gbps: prefer a provider that does"),
                     {{"scale_to", static_cast<double>(*r.scale_to)}, {"min_network_gbps", min_net}}});
            }
        }
        if (c->instances > 1 && c->provider && c->provider->network_gbps &&
            *c->provider->network_gbps <= in.catalog.policy.get("slow_network_gbps"))
            s.findings.push_back({"4.slow_network",
                                  FindingKind::warning,
                                  fmt("a %g Gbps network between nodes: the guide saw 40%% of time in "
                                      "gradient sync on 4x V100; "
                                      "use >= 25 Gbps RDMA, gradient accumulation or PowerSGD",
                                      *c->provider->network_gbps),
                                  {{"network_gbps", *c->provider->network_gbps}}});
    }
    if (r.nodes && *r.nodes > 1)
        s.findings.push_back({"4.multi_node",
                              FindingKind::constraint,
                              fmt("%.0f nodes: each needs NVLink inside and RDMA of >= %.0f Gbps between "
                                  "nodes (the guide's rule of thumb)",
                                  static_cast<double>(*r.nodes), min_net),
                              {{"nodes", static_cast<double>(*r.nodes)}, {"min_network_gbps", min_net}}});
    return s;
}

StepReport pitfalls(const RuleInput& in) {
    StepReport s{"pitfalls", "pitfalls", {}, StepId::pitfalls};
    bool over = false;
    for (const auto& c : in.ranked)
        for (const auto& w : c.warnings)
            if (w.kind == WarningKind::over_buying && !over) {
                over = true;
                s.findings.push_back(
                    {"pitfall.over_buying", FindingKind::warning, c.gpu->id + ": " + w.message});
            }
    if (!over)
        s.findings.push_back({"pitfall.over_buying",
                              FindingKind::explanation,
                              fmt("no listed option is beaten by a cheaper GPU reaching %.0f%% of its speed",
                                  100 * in.catalog.policy.get("overbuy_speed_fraction")),
                              {{"speed_share", in.catalog.policy.get("overbuy_speed_fraction")}}});
    bool network = false;
    for (const auto& c : in.ranked)
        if (c.instances > 1) network = true;
    s.findings.push_back({"pitfall.network", FindingKind::explanation,
                          network
                              ? "multi-node options listed: check the network warnings on each"
                              : "every listed option runs inside one node: no inter-node network needed"});
    return s;
}

}  // namespace gpuadvise::detail
