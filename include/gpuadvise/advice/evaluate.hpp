// The one evaluation of a job over the catalog: every offer that can run it, with its
// configuration (instances x GPUs, the planner's layout), the hours one run takes and is billed,
// and the chosen plan's cost; when none can, the constraint that bound and the nearest miss.
// recommend, plan, compare and what-if all price through it, so a run costs the same everywhere.
#pragma once

#include <string>
#include <vector>

#include "gpuadvise/advice/recommendation.hpp"

namespace gpuadvise {

struct EvaluatedOption {
    const Offer* offer = nullptr;
    const Gpu* gpu = nullptr;
    int instances = 1;
    int gpu_count = 1;
    double hours_per_run = 0;     // the estimate plus the run's set-up (policy run_setup_minutes)
    Plan plan = Plan::on_demand;  // the plan chosen for the job
    double cost_per_run = 0;      // output currency
    double cost_per_month = 0;
    bool in_filter = true;  // passes the --gpu/--provider/--region filters (others only pass the constraints)
};

struct Evaluation {
    std::vector<EvaluatedOption> options;  // every option that passes the constraints, catalog order
    NothingFeasible nothing;               // meaningful when no option is in the filters
    double setup_hours = 0;                // added to every run (0 for serving)
};

Evaluation evaluate(const Catalog& catalog, const RecommendRequest& request);

// The spot terms a job is priced with: the policy's interruption rate and restart time, and the
// job's checkpoint interval.
SpotAssumptions spot_assumptions(const Catalog& catalog, const RecommendRequest& request);

// What one run of `estimated_hours` costs on `offer` for `gpus` GPUs at `price_per_gpu_hour`, billed
// as recommend bills it: set-up added, the idle tail kept up, rounded up to the provider's increment
// and at least its minimum (docs/methodology.md, "Billing").
double cost_of_run(const Catalog& catalog, const Offer& offer, double estimated_hours, int gpus,
                   double price_per_gpu_hour);

}  // namespace gpuadvise
