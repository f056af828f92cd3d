// What commitments cost a workload: the committed slots, the on-demand overflow, the break-even
// utilisation and the crossover in runs a week (docs/methodology.md, the cost model).
#pragma once

#include <optional>

namespace gpuadvise {

// What a commitment costs a workload in one month. The job runs `instances` copies of the offer
// side by side, each `busy_hours` a month (a copy busier than the month's hours needs several
// committed slots). `committed` slots (one instance for the term each) are paid in full whether used
// or not; what they do not cover runs on demand.
struct CommitmentCost {
    double committed_per_month = 0;  // committed × price_per_month
    double on_demand_per_month = 0;  // the hours the commitment does not cover, at on-demand
    double total_per_month = 0;
    double covered_hours = 0;    // instance-hours a month the committed slots serve
    double on_demand_hours = 0;  // instance-hours a month left to on-demand
};
CommitmentCost cost_with_commitment(double price_per_month_per_instance,
                                    std::optional<double> on_demand_per_hour_per_instance, int instances,
                                    int committed, double busy_hours, double hours_per_month);

// The committed slots that cost least for this load: per copy ⌊busy/month⌋ or ⌈busy/month⌉ slots
// (at least one), whichever is cheaper with on-demand for the rest.
int best_committed_slots(double price_per_month_per_instance,
                         std::optional<double> on_demand_per_hour_per_instance, int instances,
                         double busy_hours, double hours_per_month);

// The share of the term's hours above which the commitment is cheaper than on-demand for the same
// configuration: price_per_month / (on-demand per hour × hours_per_month). May exceed 1 (never wins).
double break_even_utilisation(double price_per_month, double on_demand_per_hour, double hours_per_month);

// Runs a week of a job of `hours_per_run` (billed, with set-up) at which one copy is busy for
// `utilisation` of the month; nullopt when utilisation is not in (0, 1) (no crossover in range).
std::optional<double> crossover_runs_per_week(double utilisation, double hours_per_month,
                                              double hours_per_run);

}  // namespace gpuadvise
