// The catalog: GPUs, providers, offers, exchange rates, policy, model presets and compatibility
// tables, as one value the rest of the core reads. Readers in src/io build it; nothing here does I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpuadvise/base/diagnostics.hpp"
#include "gpuadvise/base/policy.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/compat_tables.hpp"
#include "gpuadvise/catalog/gpu.hpp"
#include "gpuadvise/catalog/models.hpp"
#include "gpuadvise/catalog/network.hpp"
#include "gpuadvise/catalog/offer.hpp"

namespace gpuadvise {

struct ExchangeRate {
    std::string currency;  // ISO 4217
    double usd_per_unit = 0;
    std::string as_of;
    std::string source;

    bool operator==(const ExchangeRate&) const = default;
};

// What a skip reason is about, for summaries (recorded with the reason, never read back from its text).
enum class SkipKind {
    spot_not_below_on_demand,  // spot price dropped, offer kept
    empty_price,               // on-demand price empty in the table
    zero_price,                // a price of 0 (on-demand, or spot meaning "no spot market")
    sentinel_price,            // GCP's 700.0 placeholder
    accelerator,               // the accelerator is not a GPU, unknown or ambiguous: row skipped
    merged,                    // zone duplicate merged into another offer
    variant_assumed,           // GPU variant not told: kept as the family's most conservative variant, marked
    other,                     // GPU-only prices, no usable price, bad counts
};

// What an import (e.g. a SkyPilot table) could not use, counted per reason and per kind of reason.
struct SkipSummary {
    std::string file;
    std::map<std::string, long> rows_by_reason;
    std::map<SkipKind, long> rows_by_kind;
    std::map<std::string, SkipKind> reason_kinds;  // the kind of each reason in rows_by_reason
    // A variant_assumed reason's wording when --strict-variants drops its rows ("ambiguous variant:
    // A100 could be x, y (dropped by --strict-variants)").
    std::map<std::string, std::string> strict_reasons = {};

    bool operator==(const SkipSummary&) const = default;
};

// A region's grid carbon intensity (section `grid_carbon`): gCO2e per kWh of the local grid.
struct GridIntensity {
    std::string provider;
    std::string region;
    double g_co2e_per_kwh = 0;
    std::string source;

    bool operator==(const GridIntensity&) const = default;
};

struct Catalog {
    std::vector<Gpu> gpus;
    std::vector<Provider> providers;
    std::vector<Offer> offers;
    std::vector<ExchangeRate> rates;
    Policy policy;
    std::vector<ModelPreset> models;
    std::vector<CalibrationPoint> calibration;
    CompatTables compat;
    std::vector<InstanceNetwork> networks;   // per instance family (section instance_networks)
    std::vector<std::string> files;          // what was loaded, in order
    std::vector<GridIntensity> grid_carbon;  // per provider and region (section grid_carbon)
    std::vector<SkipSummary> skipped;
    Diagnostics warnings;  // lint found while loading

    const Gpu* find_gpu(std::string_view id) const;
    const Provider* find_provider(std::string_view id) const;
    // Amount in `from` converted to `to` through USD; nullopt when a rate is missing.
    // The common case, the same spelling, is compared here, inline: currency codes are a few letters, and
    // a call cost more than the comparison at the 10,000 conversions of a recommend.
    std::optional<double> convert(double amount, std::string_view from, std::string_view to) const {
        if (from.size() == 3 && to.size() == 3) {  // an ISO 4217 code, the usual case: its letters at once
            if (from[0] == to[0] && from[1] == to[1] && from[2] == to[2]) return amount;
        } else if (from.size() == to.size()) {
            std::size_t i = 0;
            while (i < from.size() && from[i] == to[i]) ++i;
            if (i == from.size()) return amount;
        }
        return convert_other(amount, from, to);
    }
    std::optional<double> convert_other(double amount, std::string_view from,
                                        std::string_view to) const;  // convert's rest
    const ExchangeRate* rate_for(std::string_view currency) const;
    bool operator==(const Catalog&) const = default;
};

// A model preset by id or alias, case-insensitive; nullptr if none.
const ModelPreset* find_model(const Catalog& catalog, std::string_view name);

// GPUs by id, for lookups once per offer (find_gpu scans the list). Views into `catalog.gpus`.
std::unordered_map<std::string_view, const Gpu*, TextHash> gpus_by_id(const Catalog& catalog);

// Providers by id, for lookups once per offer or run of offers (find_provider scans the list: a
// tree of 10,000 clouds made a query quadratic). An exact id is found in the index; any other
// spelling as find_provider finds it (ignoring case). Holds views into `catalog.providers`.
class ProviderIndex {
public:
    explicit ProviderIndex(const Catalog& catalog);
    const Provider* find(std::string_view id) const;

private:
    const Catalog* catalog_;
    std::unordered_map<std::string_view, const Provider*> exact_;
};

}  // namespace gpuadvise
