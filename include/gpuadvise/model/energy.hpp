// Energy and carbon of a run: GPU power under load x GPUs x hours x the data centre's PUE, and the
// region's grid carbon intensity where the catalog has a published table (else unknown, never a
// guess). See docs/methodology.md "Energy and carbon".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise {

struct RunEnergy {
    double load_share_of_tdp = 0;  // policy gpu_load_power_share_of_tdp
    double gpu_watts = 0;          // per GPU under load: share x TDP
    int gpus = 0;
    double hours_per_run = 0;  // the run's hours (the idle tail draws far less and is left out)
    double pue = 0;
    bool pue_assumed = false;  // the provider publishes none: policy default_pue
    std::string pue_source;
    double kwh_per_run = 0, kwh_per_month = 0;
    std::optional<double> grid_g_co2e_per_kwh;  // the region's, from the catalog's grid_carbon table
    std::optional<double> co2e_kg_per_run, co2e_kg_per_month;  // nullopt: unknown
    std::string co2e_basis;  // how the carbon figure was made, or why it is unknown
};

// The grid_carbon rows by provider and region (ids and regions match ignoring case), built once.
class GridCarbonIndex {
public:
    GridCarbonIndex() = default;
    explicit GridCarbonIndex(const Catalog& catalog);
    const GridIntensity* find(std::string_view provider, std::string_view region) const;

private:
    std::unordered_map<std::string, const GridIntensity*> rows_;
};

// nullopt when the GPU's TDP is unknown.
std::optional<RunEnergy> run_energy(const Catalog& catalog, const GridCarbonIndex& grid, const Gpu& gpu,
                                    const Provider* provider, const Offer& offer, int gpus,
                                    double hours_per_run, double runs_per_week);

}  // namespace gpuadvise
