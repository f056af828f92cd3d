// `gpuadvise recommend`: the four-step needs analysis (rule engine) and the cost model, ranked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/compat.hpp"
#include "gpuadvise/cost_model.hpp"
#include "gpuadvise/gpu_query.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class Objective { cost, time, balanced };
inline constexpr NameTable<Objective, 3> kObjectiveNames{
    {{{Objective::cost, "cost"}, {Objective::time, "time"}, {Objective::balanced, "balanced"}}}};
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
enum class Constraint { budget, deadline, environment, filters, memory, network, precision, price };
inline constexpr NameTable<Constraint, 8> kConstraintNames{{{{Constraint::budget, "budget"},
                                                             {Constraint::deadline, "deadline"},
                                                             {Constraint::environment, "environment"},
                                                             {Constraint::filters, "filters"},
                                                             {Constraint::memory, "memory"},
                                                             {Constraint::network, "network"},
                                                             {Constraint::precision, "precision"},
                                                             {Constraint::price, "price"}}}};
inline const char* to_string(Constraint c) { return kConstraintNames.name(c).data(); }

// What a warning on one option is about.
enum class WarningKind { over_buying, slow_network, host_ram, local_disk, example_provider };
inline constexpr NameTable<WarningKind, 5> kWarningKindNames{{{{WarningKind::over_buying, "over_buying"},
                                                              {WarningKind::slow_network, "slow_network"},
                                                              {WarningKind::host_ram, "host_ram"},
                                                              {WarningKind::local_disk, "local_disk"},
                                                              {WarningKind::example_provider, "example_provider"}}}};
struct OptionWarning {
    WarningKind kind;
    std::string message;
};

struct RecommendRequest {
    Workload workload;
    double runs_per_week = 1;
    Dataset dataset = Dataset::unspecified;
    std::optional<double> dataset_gb;
    std::optional<int> gpus_now;   // GPUs the job uses now
    std::optional<int> scale_to;   // GPUs needed within six months
    std::optional<int> nodes;      // nodes the job must span
    bool interruptible = false;    // spot allowed
    double checkpoint_minutes = 30;
    std::optional<double> budget_monthly;  // output currency
    std::optional<double> deadline_hours;  // per run
    std::string currency = "USD";
    Objective objective = Objective::cost;
    GpuSpec gpu;                   // --gpu filter
    std::vector<std::string> providers;
    std::vector<std::string> regions;
    int top = 5;
    std::optional<PytorchVersion> pytorch;  // --pytorch: offers no wheel of it supports are excluded
    bool include_examples = false;  // rank example providers' quotes too (each gets a warning); so does naming one in providers
};

// One fired rule.
struct Finding {
    std::string rule;
    FindingKind kind;
    std::string message;
};

struct StepReport {
    std::string step;  // "1".."4" or "pitfalls"
    std::string name;
    std::vector<Finding> findings;
};

struct Candidate {
    const Offer* offer = nullptr;
    const Gpu* gpu = nullptr;
    const Provider* provider = nullptr;
    int instances = 1;   // copies of the offer rented together (one node each)
    int gpu_count = 1;   // total GPUs
    Estimate estimate;
    PlanCost cost;                          // the chosen plan
    std::vector<PlanCost> alternatives;     // the other plans that exist for this configuration
    double setup_hours_per_run = 0;         // billed per run on top of the job (policy run_setup_minutes)
    double run_hours_per_run = 0;           // job + set-up, before any spot overhead
    double hours_low = 0, hours_high = 0;   // billed hours per run: the estimate's band + set-up (+ spot overhead)
    std::optional<double> break_even_hours_per_month;  // reserved monthly / on-demand hourly, whichever plan was chosen
    std::optional<double> usd_per_tflops_hour;  // per GPU, at the job's precision (dense)
    std::optional<double> cost_per_pflop;       // output currency per PFLOP of model work delivered
    bool pareto = false;
    int rank = 0;
    std::vector<std::string> reasons;
    std::vector<OptionWarning> warnings;
};

struct Rejection {
    const Offer* offer = nullptr;
    Constraint constraint = Constraint::price;
    std::string reason;
};

struct Recommendation {
    std::vector<StepReport> steps;
    std::vector<Candidate> ranked;       // best first, at most `top`
    std::size_t feasible = 0;            // before --top
    std::vector<Rejection> rejected;
    std::vector<std::string> warnings;
    std::string heuristic_gpu_family;    // step 1's tier answer (T4 / V100 / A100)
    std::string why_not_heuristic;       // when that family is not the winner
    Constraint binding_constraint = Constraint::filters;  // when nothing is feasible
    std::string nearest_miss;
};

Recommendation recommend(const Catalog& catalog, const RecommendRequest& request);

}  // namespace gpuadvise
