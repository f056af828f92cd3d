#include "gpuadvise/model/energy.hpp"

#include <cstdio>

#include "gpuadvise/base/calendar.hpp"
#include "gpuadvise/base/text.hpp"

namespace gpuadvise {
namespace {

std::string grid_key(std::string_view provider, std::string_view region) {
    return to_lower(provider) + "\n" + to_lower(region);
}

std::string number(double x, int digits) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

}  // namespace

GridCarbonIndex::GridCarbonIndex(const Catalog& catalog) {
    for (const auto& g : catalog.grid_carbon)
        rows_[grid_key(g.provider, g.region)] = &g;  // later rows override
}

const GridIntensity* GridCarbonIndex::find(std::string_view provider, std::string_view region) const {
    if (rows_.empty() || region.empty()) return nullptr;
    auto it = rows_.find(grid_key(provider, region));
    return it == rows_.end() ? nullptr : it->second;
}

std::optional<RunEnergy> run_energy(const Catalog& catalog, const GridCarbonIndex& grid, const Gpu& gpu,
                                    const Provider* provider, const Offer& offer, int gpus,
                                    double hours_per_run, double runs_per_week) {
    if (!gpu.tdp_w || !(*gpu.tdp_w > 0)) return std::nullopt;
    RunEnergy e;
    e.load_share_of_tdp = catalog.policy.get("gpu_load_power_share_of_tdp");
    e.gpu_watts = e.load_share_of_tdp * *gpu.tdp_w;
    e.gpus = gpus;
    e.hours_per_run = hours_per_run;
    if (provider && provider->pue) {
        e.pue = *provider->pue;
        e.pue_source = provider->pue_source;
    } else {
        e.pue = catalog.policy.get("default_pue");
        e.pue_assumed = true;
        e.pue_source = "policy default_pue";
    }
    // Host power (CPUs, memory, NICs) is not known per offer and is not included.
    e.kwh_per_run = e.gpu_watts * gpus * hours_per_run * e.pue / 1000.0;
    e.kwh_per_month = e.kwh_per_run * runs_per_month(runs_per_week);
    if (const GridIntensity* g = grid.find(offer.provider, offer.region)) {
        e.grid_g_co2e_per_kwh = g->g_co2e_per_kwh;
        e.co2e_kg_per_run = e.kwh_per_run * g->g_co2e_per_kwh / 1000.0;
        e.co2e_kg_per_month = e.kwh_per_month * g->g_co2e_per_kwh / 1000.0;
        e.co2e_basis = number(e.kwh_per_run, 3) + " kWh x " + number(g->g_co2e_per_kwh, 2) +
                       " gCO2e/kWh, the grid intensity of " + offer.provider + " " + offer.region + " (" +
                       g->source + ")";
    } else {
        e.co2e_basis = "unknown: the catalog has no grid carbon intensity for " + offer.provider + " " +
                       (offer.region.empty() ? std::string("(no region)") : offer.region);
    }
    return e;
}

}  // namespace gpuadvise
