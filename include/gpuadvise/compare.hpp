// `gpuadvise compare A100 V100 T4`: specs and economics side by side, relative to the first GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/gpu_query.hpp"

namespace gpuadvise {

// The cheapest price of one plan per GPU, in the output currency.
struct CheapestPrice {
    std::string provider;
    double price = 0;      // per GPU
    std::string currency;
    std::string unit;      // "per_gpu_hour"; reserved: "per_gpu_hour_at_full_use" (the commitment's month over 730 h)
    const Offer* offer = nullptr;
    int term_months = 0;   // reserved: the commitment's term
    bool rentable = true;  // false: an example provider's quote (only with include_examples)
};

struct GpuComparison {
    const Gpu* gpu = nullptr;
    std::string query;  // the name the user typed that covered this GPU
    std::optional<CheapestPrice> on_demand, reserved, spot;
    std::optional<double> usd_per_tflops_hour;  // cheapest on-demand per GPU (USD) / dense FP16
    // Ratios to the first GPU of the comparison (1.0 for itself).
    std::optional<double> relative_fp16;
    std::optional<double> relative_bandwidth;
    std::optional<double> relative_on_demand_price;
};

struct Comparison {
    std::vector<GpuMatch> matches;  // how each name resolved (family names cover several variants)
    std::vector<GpuComparison> gpus;
    std::string currency;
};

// Throws UsageError for unknown names (with "did you mean").
// Cheapest prices come from rentable providers only, unless include_examples (then example
// providers count too, marked; placeholders never).
Comparison compare_gpus(const Catalog& catalog, const std::vector<std::string>& names, const std::string& currency,
                        bool include_examples = false);

}  // namespace gpuadvise
