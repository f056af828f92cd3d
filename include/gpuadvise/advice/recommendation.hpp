// `gpuadvise recommend`: the four-step needs analysis (rule engine) and the cost model, ranked.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/advice/service.hpp"
#include "gpuadvise/base/names.hpp"
#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "gpuadvise/compat/compat.hpp"
#include "gpuadvise/market/cost_model.hpp"
#include "gpuadvise/model/energy.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {

// carbon: the lowest kg CO2e per run among options within max_cost_increase of the cheapest a month.
enum class Objective { cost, time, balanced, carbon };
inline constexpr NameTable<Objective, 4> kObjectiveNames{{{{Objective::cost, "cost"},
                                                           {Objective::time, "time"},
                                                           {Objective::balanced, "balanced"},
                                                           {Objective::carbon, "carbon"}}}};
enum class Dataset { unspecified, text, image, image_hires, video, audio, tabular };
// The modalities a user can name (unspecified is the absence of --dataset).
inline constexpr NameTable<Dataset, 6> kDatasetNames{{{{Dataset::text, "text"},
                                                       {Dataset::image, "image"},
                                                       {Dataset::image_hires, "image-hires"},
                                                       {Dataset::video, "video"},
                                                       {Dataset::audio, "audio"},
                                                       {Dataset::tabular, "tabular"}}}};

const char* to_string(Objective o);
const char* to_string(Dataset d);
std::optional<Dataset> parse_dataset(std::string_view text);

// What a finding is: the source documents' heuristic, a constraint on the offers, a preference
// between them, a warning or an explanation.
enum class FindingKind { heuristic, constraint, preference, warning, explanation };
inline constexpr NameTable<FindingKind, 5> kFindingKindNames{{{{FindingKind::heuristic, "heuristic"},
                                                               {FindingKind::constraint, "constraint"},
                                                               {FindingKind::preference, "preference"},
                                                               {FindingKind::warning, "warning"},
                                                               {FindingKind::explanation, "explanation"}}}};
inline const char* to_string(FindingKind k) { return kFindingKindNames.name(k).data(); }

// Why an offer was rejected (and, when nothing is feasible, which of these binds; `filters`:
// nothing matched the --gpu/--provider/--region filters). Alphabetical: ties in "the constraint
// that removed the most" go to the first name.
// `host_ram`: the host cannot hold the checkpoint while loading it (#13); `latency`: an online
// service's TTFT or TPOT target is missed even at one sequence per replica.
enum class Constraint {
    budget,
    deadline,
    environment,
    filters,
    host_ram,
    latency,
    memory,
    network,
    precision,
    price,
    scaling
};
inline constexpr NameTable<Constraint, 11> kConstraintNames{{{{Constraint::budget, "budget"},
                                                              {Constraint::deadline, "deadline"},
                                                              {Constraint::environment, "environment"},
                                                              {Constraint::filters, "filters"},
                                                              {Constraint::host_ram, "host_ram"},
                                                              {Constraint::latency, "latency"},
                                                              {Constraint::memory, "memory"},
                                                              {Constraint::network, "network"},
                                                              {Constraint::precision, "precision"},
                                                              {Constraint::price, "price"},
                                                              {Constraint::scaling, "scaling"}}}};
inline const char* to_string(Constraint c) { return kConstraintNames.name(c).data(); }

// When nothing is feasible: the constraint that removed the most options (budget and deadline
// only when what they removed was otherwise feasible), and the closest option it removed.
struct NothingFeasible {
    Constraint binding = Constraint::filters;
    std::string nearest_miss;
};

// What a warning on one option is about.
enum class WarningKind {
    over_buying,
    slow_network,
    host_ram,
    local_disk,
    example_provider,
    data_loading_cpu,
    deadline_risk,
    unknown_network
};
inline constexpr NameTable<WarningKind, 8> kWarningKindNames{
    {{{WarningKind::over_buying, "over_buying"},
      {WarningKind::slow_network, "slow_network"},
      {WarningKind::host_ram, "host_ram"},
      {WarningKind::local_disk, "local_disk"},
      {WarningKind::example_provider, "example_provider"},
      {WarningKind::data_loading_cpu, "data_loading_cpu"},
      {WarningKind::deadline_risk, "deadline_risk"},
      {WarningKind::unknown_network, "unknown_network"}}}};

// --deadline-confidence: a run must finish by the deadline at the high end of its time band (high,
// the default), or at the point estimate (point: a row whose band's high end misses is warned about).
enum class DeadlineConfidence { point, high };
inline constexpr NameTable<DeadlineConfidence, 2> kDeadlineConfidenceNames{
    {{{DeadlineConfidence::point, "point"}, {DeadlineConfidence::high, "high"}}}};
struct OptionWarning {
    WarningKind kind;
    std::string message;
};

struct RecommendRequest {
    Workload workload;
    double runs_per_week = 1;
    Dataset dataset = Dataset::unspecified;
    std::optional<double> dataset_gb;
    std::optional<int> gpus_now;  // GPUs the job uses now
    std::optional<int> scale_to;  // GPUs needed within six months
    std::optional<int> nodes;     // nodes the job must span
    bool interruptible = false;   // spot allowed
    double checkpoint_minutes = 30;
    std::optional<double> budget_monthly;  // output currency
    std::optional<double> deadline_hours;  // per run
    DeadlineConfidence deadline_confidence = DeadlineConfidence::high;
    std::optional<int> runs;  // --runs N: a one-off job of N runs (not recurring)
    std::string currency = "USD";
    Objective objective = Objective::cost;
    GpuSpec gpu;  // --gpu filter
    std::vector<std::string> providers;
    std::vector<std::string> regions;
    int top = 5;
    std::optional<PytorchVersion> pytorch;  // --pytorch: offers no wheel of it supports are excluded
    std::optional<PlanFilter> plan;         // --plan: only this plan (reserved: of this term, 0 = any)
    bool include_examples =
        false;  // rank example providers' quotes too (each gets a warning); so does naming one in providers

    // The network between nodes where the catalog does not know it (--network-gbps, --rdma), and
    // whether multi-node options over a network nothing states rank among the others.
    std::optional<double> network_gbps;
    std::optional<bool> rdma;
    bool allow_unknown_network = false;
    // An online service (--task serve): set with workload.serving.online; runs_per_week is then
    // kDaysPerWeek, one run a day of traffic.hours_per_day hours.
    std::optional<ServiceTraffic> service;

    // A one-off job (--runs N, or --runs-per-week 0): ranked by cost per run, no monthly cost.
    bool one_off() const { return !service && (runs.has_value() || runs_per_week <= 0); }
    std::optional<double>
        idle_minutes;  // --idle-minutes: idle tail per run; unset = policy idle_minutes_after_run
    std::optional<double>
        max_cost_increase;  // --max-cost-increase (share, 0.1 = 10 %); unset = policy carbon_max_cost_increase
};

// A number a finding states, by name ("runs_per_week", "crossover_runs_per_week"), in the unit the
// name says (a share is 0..1, not a percentage).
struct FindingNumber {
    std::string name;
    double value = 0;
};

// One fired rule: its id, its kind and the numbers it states; the message is written from them.
struct Finding {
    std::string rule;
    FindingKind kind;
    std::string message;
    std::vector<FindingNumber> numbers = {};
    std::optional<double> number(std::string_view name) const {
        for (const auto& n : numbers)
            if (n.name == name) return n.value;
        return std::nullopt;
    }
};

// Which part of the needs analysis a report is: the guide's four steps, then the pitfalls.
enum class StepId { model_size, frequency, dataset, scaling, pitfalls };

struct StepReport {
    std::string step;  // "1".."4" or "pitfalls" (as printed)
    std::string name;
    std::vector<Finding> findings;
    StepId id = StepId::model_size;
};

struct Candidate {
    const Offer* offer = nullptr;
    const Gpu* gpu = nullptr;
    const Provider* provider = nullptr;
    int instances = 1;  // copies of the offer rented together (one node each)
    int parallel_copies =
        1;  // copies of the whole configuration run side by side: the weekly hours exceed a week's 168
    int gpu_count = 1;  // total GPUs
    Estimate estimate;
    PlanCost cost;                       // the chosen plan
    std::vector<PlanCost> alternatives;  // the other plans that exist for this configuration
    double setup_hours_per_run = 0;      // billed per run on top of the job (policy run_setup_minutes)
    double run_hours_per_run = 0;        // job + set-up, before any spot overhead
    double hours_low = 0,
           hours_high = 0;  // billed hours per run: the estimate's band + set-up (+ spot overhead)
    std::optional<double>
        break_even_hours_per_month;  // reserved monthly / on-demand hourly, whichever plan was chosen
    std::optional<double> usd_per_tflops_hour;  // per GPU, at the job's precision (dense)
    std::optional<double> cost_per_pflop;       // output currency per PFLOP of model work delivered
    bool price_complete =
        true;  // false: the offer's price is the GPU alone (host VM extra); ranked after complete ones
    BillingAssumptions billing;  // how the chosen plan's runs were billed (increment, minimum, idle tail)
    std::optional<RunEnergy> energy;  // nullopt when the GPU's TDP is unknown
    bool pareto = false;
    int rank = 0;
    std::vector<std::string> reasons;
    std::vector<OptionWarning> warnings;
    // An online service: its replicas, utilisation at the peak and cost per million output tokens.
    std::optional<ServiceSizing> service;
    std::string network_note;  // several GPUs: the network between the nodes, or that there is none
    // Runs a week of this job above which this configuration's best commitment costs less a month than
    // what the user would otherwise rent (the cheapest on-demand option, or spot for --interruptible):
    // nullopt without a commitment or when it never does (#28).
    std::optional<double> crossover_runs_per_week;
};

struct Rejection {
    const Offer* offer = nullptr;
    Constraint constraint = Constraint::price;
    std::string reason;
};

// Where a commitment takes over from on-demand for this job: on the top option, or else on the best
// listed option that has a commitment price (step 2).
// The crossover is against what the user would otherwise rent: the cheapest on-demand option of the
// same job and filters (spot for an --interruptible job when cheaper), so it is where
// `--what-if runs-per-week` flips; against the commitment's own machine on demand it is own_runs_per_week.
struct CommitmentCrossover {
    const Offer* offer = nullptr;
    int term_months = 0;
    double break_even_utilisation = 0;    // share of the term's hours, against its own machine on demand
    std::optional<double> runs_per_week;  // nullopt: never beats what the user would otherwise rent
    double hours_per_run = 0;             // billed, with set-up
    bool top_option = false;              // about the #1 option (else the best one with a commitment)
    const Offer* against = nullptr;       // what the user would otherwise rent
    Plan against_plan = Plan::on_demand;
    double against_cost_per_run = 0;          // output currency
    std::optional<double> own_runs_per_week;  // against its own machine on demand (break-even utilisation)
};

// One feasible option as a point of the cost/time chart (the HTML report): every option that passes
// the constraints and the filters, in rank order, at most kFeasiblePointsCap of them plus any Pareto
// option beyond the cap (so the front is always whole).
struct FeasiblePoint {
    // Views into the catalog's offer and GPU (the catalog outlives the recommendation, as for
    // Candidate::offer): up to 500 points of four texts each were copied for every recommend.
    std::string_view provider, gpu, instance_type, region;
    int gpu_count = 1;
    Plan plan = Plan::on_demand;
    double hours_per_run = 0;  // billed, with set-up (+ spot overhead)
    double cost =
        0;  // what the ranking reads: the cost per month, or a one-off job's cost (runs x cost per run)
    bool pareto = false;
    int rank = 0;  // 1 = the top option
};
inline constexpr std::size_t kFeasiblePointsCap = 500;

struct Recommendation {
    std::vector<StepReport> steps;
    std::vector<Candidate> ranked;               // best first, at most `top`
    std::vector<std::string> why_top;            // one or two reasons why #1 wins (also first in its reasons)
    std::size_t feasible = 0;                    // before --top
    std::vector<FeasiblePoint> feasible_points;  // all feasible options (capped, see FeasiblePoint)
    bool feasible_points_capped = false;         // some non-Pareto options beyond the cap were left out
    std::vector<Rejection> rejected;
    std::vector<std::string> warnings;
    std::string heuristic_gpu_family;                     // step 1's tier answer (T4 / V100 / A100)
    std::string why_not_heuristic;                        // when that family is not the winner
    Constraint binding_constraint = Constraint::filters;  // when nothing is feasible
    std::string nearest_miss;
    std::vector<std::string>
        providers_without_commitments;  // of the ranked options: no commitment price in the catalog
    std::optional<CommitmentCrossover> crossover;
};

}  // namespace gpuadvise
