// The cost model: what one configuration (an offer rented `instances` times) costs for a
// workload on one plan. All amounts in the output currency. See docs/methodology.md.
#pragma once

#include <optional>
#include <string>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/configuration.hpp"

namespace gpuadvise {

// Runs per month from runs per week: 52 weeks / 12 months.
double runs_per_month(double runs_per_week);

struct SpotAssumptions {
    double interruptions_per_hour = 0;  // policy spot_interruptions_per_hour
    double restart_minutes = 0;         // policy spot_restart_minutes
    double checkpoint_minutes = 30;     // --checkpoint-minutes: work lost is half of it on average
};

// Expected extra share of run time from interruptions: each one costs the restart plus, on
// average, half a checkpoint interval of lost work.
double spot_overhead_fraction(const SpotAssumptions& spot);

struct PlanCost {
    Plan plan = Plan::on_demand;
    double price_per_hour = 0;  // whole configuration; reserved: monthly fees spread over the workload's hours
    double hours_per_run = 0;   // spot: expected, including interruptions
    double cost_per_run = 0;    // = hours_per_run × price_per_hour
    double cost_per_month = 0;
    double gpu_hours_per_month = 0;
    int reserved_sets = 0;      // reserved: configurations reserved so the monthly hours fit (730 h each)
    std::optional<double> break_even_hours_per_month;  // reserved monthly ÷ on-demand hourly, same configuration
    std::optional<double> spot_overhead;               // fraction added to the run time
};

// Cost of a plan, or nullopt when the offer has no such price (or it cannot be converted).
std::optional<PlanCost> cost_plan(const Catalog& catalog, const Offer& offer, int instances, Plan plan,
                                  double hours_per_run, double runs_per_week, const SpotAssumptions& spot,
                                  const std::string& currency);

// The same for a configuration: its instances are the copies of the offer rented (the offer's
// GPUs per instance are config.gpus_per_node).
std::optional<PlanCost> cost_plan(const Catalog& catalog, const Offer& offer, const Configuration& config, Plan plan,
                                  double hours_per_run, double runs_per_week, const SpotAssumptions& spot,
                                  const std::string& currency);

}  // namespace gpuadvise
