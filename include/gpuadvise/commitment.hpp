// Commitment plans: capacity bought for a term (1 month, 1 year, 3 years …) and paid whether used
// or not. An offer carries any number of them beside its on-demand and spot prices; the guide's
// monthly reserved price (`reserved_per_month`) is a 1-month commitment. See docs/catalog.md
// (format) and docs/methodology.md (the cost model).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuadvise {

struct Commitment {
    int term_months = 0;         // 1, 12, 36 …
    double price_per_month = 0;  // the whole offer (all its GPUs), the offer's currency, upfront included
    std::optional<double>
        discount;        // as given in the catalog: share off on-demand (0–0.95), when given that way
    double upfront = 0;  // share of the term's total paid at the start (0–1); the monthly figure includes it
    std::string scope;   // "instance type + region", "gpu model", "spend" …
    std::string source;
    std::string as_of;
    std::string note;  // e.g. "term not stated by the source; modelled as 1 month"

    bool operator==(const Commitment&) const = default;
};

// "1-month", "1-year", "3-year", "18-month".
std::string term_label(int months);
// "1m", "1y", "3y", "18m" (tables, --plan reserved-1y).
std::string term_short(int months);

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
