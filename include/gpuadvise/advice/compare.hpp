// `gpuadvise compare A100 V100 T4`: specs and economics side by side, relative to the first GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {

// The cheapest price of one plan per GPU, in the output currency.
struct CheapestPrice {
    std::string provider;
    double price = 0;  // per GPU
    std::string currency;
    std::string
        unit;  // "per_gpu_hour"; reserved: "per_gpu_hour_at_full_use" (the commitment's month over 730 h)
    const Offer* offer = nullptr;
    int term_months = 0;   // reserved: the commitment's term
    bool rentable = true;  // false: an example provider's quote (only with include_examples)
};

// `compare … --model M`: the job on one GPU model, on the fewest GPUs it fits (up to 8), an estimate.
struct JobOnGpu {
    int gpu_count = 1;
    bool fits = false;
    bool precision_supported = true;
    double hours_per_run = 0;  // 0 when it does not fit or the precision is unsupported
    std::optional<double>
        cost_per_run;  // billed as recommend bills it (evaluate.hpp cost_of_run), cheapest on-demand price per GPU
    std::optional<double> relative_speed;  // the first column's hours over these (2.0 = twice as fast)
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
    std::optional<JobOnGpu> job;  // with a workload only
};

// One name as typed: a family covers several variants; the table shows one column per name, for the
// variant the user is most likely to rent (`shown`: the one with the cheapest rentable on-demand
// price, else the first with any price, else the first), unless --variants expands it.
struct RequestedName {
    std::string name;
    std::vector<std::size_t> variants;  // indexes into Comparison::gpus
    std::size_t shown = 0;              // index into Comparison::gpus
};

struct Comparison {
    std::vector<GpuMatch> matches;  // how each name resolved (family names cover several variants)
    std::vector<GpuComparison> gpus;
    std::vector<RequestedName> requested;
    std::string currency;
};

// Throws UsageError for unknown names (with "did you mean").
// Cheapest prices come from rentable providers only, unless include_examples (then example
// providers count too, marked; placeholders never).
// With a workload, each GPU also gets the job's hours and cost per run (JobOnGpu); relative speed is
// against the first requested name's shown variant.
Comparison compare_gpus(const Catalog& catalog, const std::vector<std::string>& names,
                        const std::string& currency, bool include_examples = false,
                        const Workload* workload = nullptr);

}  // namespace gpuadvise
