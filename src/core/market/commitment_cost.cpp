// What commitments cost a workload, break-even and crossover.
#include "gpuadvise/market/commitment_cost.hpp"

#include "gpuadvise/base/calendar.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuadvise {

CommitmentCost cost_with_commitment(double price_per_month_per_instance,
                                    std::optional<double> on_demand_per_hour_per_instance, int instances,
                                    int committed, double busy_hours, double hours_per_month) {
    CommitmentCost c;
    instances = std::max(1, instances);
    committed = std::max(0, committed);
    busy_hours = std::max(0.0, busy_hours);
    // Slots are spread over the copies as evenly as they go: each copy is one lane of `busy_hours`,
    // and a slot serves at most the month's hours of one lane.
    const int full = committed / instances, extra = committed % instances;
    c.covered_hours = extra * std::min(busy_hours, hours_per_month * (full + 1)) +
                      (instances - extra) * std::min(busy_hours, hours_per_month * full);
    c.on_demand_hours = std::max(0.0, instances * busy_hours - c.covered_hours);
    c.committed_per_month = committed * price_per_month_per_instance;
    if (c.on_demand_hours > 1e-9)
        c.on_demand_per_month = on_demand_per_hour_per_instance
                                    ? c.on_demand_hours * *on_demand_per_hour_per_instance
                                    : std::numeric_limits<double>::infinity();
    c.total_per_month = c.committed_per_month + c.on_demand_per_month;
    return c;
}

int best_committed_slots(double price_per_month_per_instance,
                         std::optional<double> on_demand_per_hour_per_instance, int instances,
                         double busy_hours, double hours_per_month) {
    instances = std::min(std::max(1, instances), 100000);
    // Capped so that the slot counts stay far inside int (a huge workload must not overflow, which is
    // undefined, into a cheap month): what the slots do not cover is costed on demand.
    const double lanes = std::min(busy_hours / hours_per_month, 10000.0);
    const int high = std::max(1, static_cast<int>(std::ceil(lanes - 1e-9)));
    const int low = std::max(1, static_cast<int>(std::floor(lanes + 1e-9)));
    if (low == high) return high * instances;
    const double at_high = cost_with_commitment(price_per_month_per_instance, on_demand_per_hour_per_instance,
                                                instances, high * instances, busy_hours, hours_per_month)
                               .total_per_month;
    const double at_low = cost_with_commitment(price_per_month_per_instance, on_demand_per_hour_per_instance,
                                               instances, low * instances, busy_hours, hours_per_month)
                              .total_per_month;
    return at_low < at_high ? low * instances : high * instances;
}

double break_even_utilisation(double price_per_month, double on_demand_per_hour, double hours_per_month) {
    if (!(on_demand_per_hour > 0) || !(hours_per_month > 0)) return std::numeric_limits<double>::infinity();
    return price_per_month / (on_demand_per_hour * hours_per_month);
}

std::optional<double> crossover_runs_per_week(double utilisation, double hours_per_month,
                                              double hours_per_run) {
    if (!(utilisation > 0 && utilisation < 1) || !(hours_per_run > 0)) return std::nullopt;
    // utilisation × month = runs a month × hours a run; runs a month = runs a week × 52 / 12.
    return runs_per_week_of_month(utilisation * hours_per_month / hours_per_run);
}

}  // namespace gpuadvise
