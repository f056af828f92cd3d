// `gpuadvise recommend`: the four-step needs analysis (rule engine) and the cost model, ranked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/compat.hpp"
#include "gpuadvise/cost_model.hpp"
#include "gpuadvise/gpu_query.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class Objective { cost, time, balanced };
enum class Dataset { unspecified, text, image, image_hires, video, audio, tabular };

const char* to_string(Objective o);
const char* to_string(Dataset d);
std::optional<Dataset> parse_dataset(std::string_view text);

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
    std::optional<PlanFilter> plan;         // --plan: only this plan (reserved: of this term, 0 = any)
};

// One fired rule. kind: "heuristic" (what the source documents say), "constraint", "preference",
// "warning" or "explanation".
struct Finding {
    std::string rule;
    std::string kind;
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
    std::optional<double> usd_per_tflops_hour;  // per GPU, at the job's precision (dense)
    std::optional<double> cost_per_pflop;       // output currency per PFLOP of model work delivered
    bool pareto = false;
    int rank = 0;
    std::vector<std::string> reasons;
    std::vector<std::string> warnings;
};

struct Rejection {
    const Offer* offer = nullptr;
    std::string constraint;  // "memory", "budget", "deadline", "network", "precision", "environment", "price"
    std::string reason;
};

// Where a commitment takes over from on-demand for this job: on the top option, or else on the best
// listed option that has a commitment price (step 2).
struct CommitmentCrossover {
    const Offer* offer = nullptr;
    int term_months = 0;
    double break_even_utilisation = 0;             // share of the term's hours
    std::optional<double> runs_per_week;           // nullopt: never wins (dearer than on-demand at full use)
    double hours_per_run = 0;                      // billed, with set-up
    bool top_option = false;                       // about the #1 option (else the best one with a commitment)
};

struct Recommendation {
    std::vector<StepReport> steps;
    std::vector<Candidate> ranked;       // best first, at most `top`
    std::size_t feasible = 0;            // before --top
    std::vector<Rejection> rejected;
    std::vector<std::string> warnings;
    std::string heuristic_gpu_family;    // step 1's tier answer (T4 / V100 / A100)
    std::string why_not_heuristic;       // when that family is not the winner
    std::string binding_constraint;      // when nothing is feasible
    std::string nearest_miss;
    std::vector<std::string> providers_without_commitments;  // of the ranked options: no commitment price in the catalog
    std::optional<CommitmentCrossover> crossover;
};

Recommendation recommend(const Catalog& catalog, const RecommendRequest& request);

// --what-if runs-per-week=FROM:TO[:STEP]: the best option of each plan (lowest monthly cost, the
// request's constraints and filters) at each point, and where the cheapest plan changes.
struct WhatIfBest {
    std::string provider, gpu, instance_type, region;
    int gpu_count = 0;
    int term_months = 0;  // reserved only
    double cost_per_month = 0;
};
struct WhatIfPoint {
    double runs_per_week = 0;
    std::optional<WhatIfBest> on_demand, reserved, spot;
};
struct WhatIfCrossover {
    double runs_per_week = 0;  // the point where the two plans cost the same (refined between grid points)
    Plan from = Plan::on_demand, to = Plan::reserved;  // cheapest below, cheapest above
};
struct WhatIf {
    std::vector<WhatIfPoint> points;
    std::vector<WhatIfCrossover> crossovers;
};
WhatIf what_if_runs_per_week(const Catalog& catalog, const RecommendRequest& request, double from, double to, double step);

}  // namespace gpuadvise
