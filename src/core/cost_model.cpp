#include "gpuadvise/cost_model.hpp"

#include <cmath>

namespace gpuadvise {

double runs_per_month(double runs_per_week) { return runs_per_week * 52.0 / 12.0; }

double spot_overhead_fraction(const SpotAssumptions& spot) {
    return spot.interruptions_per_hour * (spot.restart_minutes + spot.checkpoint_minutes / 2.0) / 60.0;
}

std::optional<PlanCost> cost_plan(const Catalog& catalog, const Offer& offer, int instances, Plan plan,
                                  double hours_per_run, double runs_per_week, const SpotAssumptions& spot,
                                  const std::string& currency) {
    auto raw = offer.price(plan);
    if (!raw || *raw <= 0) return std::nullopt;
    auto converted = catalog.convert(*raw, offer.currency, currency);
    if (!converted) return std::nullopt;
    const double hours_per_month = catalog.policy.get("hours_per_month");
    const double runs = runs_per_month(runs_per_week);

    PlanCost c;
    c.plan = plan;
    c.hours_per_run = hours_per_run;
    switch (plan) {
        case Plan::on_demand:
            c.price_per_hour = *converted * instances;
            break;
        case Plan::spot:
            c.spot_overhead = spot_overhead_fraction(spot);
            c.hours_per_run = hours_per_run * (1.0 + *c.spot_overhead);
            c.price_per_hour = *converted * instances;
            break;
        case Plan::reserved: {
            // A reservation is per instance per month: the month's run hours must fit in the reserved
            // hours, so a workload needing more than 730 h a month reserves several configurations.
            const double busy_hours = runs * hours_per_run;
            // In double: a huge workload must not overflow an int (undefined) into a cheap month.
            const double sets = std::max(1.0, std::ceil(busy_hours / hours_per_month - 1e-9));
            c.reserved_sets = sets < 2e9 ? static_cast<int>(sets) : 2000000000;
            const double monthly = *converted * instances * sets;
            c.cost_per_month = monthly;
            c.price_per_hour = busy_hours > 0 ? monthly / busy_hours : monthly / hours_per_month;
            if (auto od = offer.on_demand_per_hour; od && *od > 0)
                if (auto od_converted = catalog.convert(*od, offer.currency, currency))
                    c.break_even_hours_per_month = *converted / *od_converted;
            break;
        }
    }
    c.cost_per_run = c.hours_per_run * c.price_per_hour;
    if (plan != Plan::reserved) c.cost_per_month = c.cost_per_run * runs;
    c.gpu_hours_per_month = runs * hours_per_run * offer.gpu_count * instances;
    return c;
}

}  // namespace gpuadvise
