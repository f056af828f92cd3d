// Filtering, pricing and sorting offers: what `gpuadvise offers` shows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "gpuadvise/market/cost_model.hpp"

namespace gpuadvise {

enum class OfferSort { price, price_per_gpu, usd_per_tflops };

struct OfferQuery {
    GpuSpec gpu;
    std::vector<std::string> providers;  // ids, case-insensitive; empty = all
    std::vector<std::string> regions;    // substrings, case-insensitive; empty = all
    std::optional<Plan> plan;            // keep offers with this plan, price them by it
    int term_months = 0;                 // reserved: only commitments of this term (0 = any)
    std::optional<double>
        max_price;  // per hour for the whole offer, output currency (reserved: monthly / hours_per_month)
    std::string currency = "USD";
    OfferSort sort = OfferSort::price;
    std::optional<std::size_t> limit;
    bool include_examples =
        false;  // also example and placeholder providers (rows marked); naming them in providers does too
};

struct OfferRow {
    const Offer* offer = nullptr;
    const Gpu* gpu = nullptr;
    // The offer's prices converted to the query currency (whole offer).
    std::optional<double> on_demand_per_hour;
    std::optional<double> reserved_per_month;  // the cheapest commitment (of the asked term) per month
    std::optional<double> spot_per_hour;
    const Commitment* commitment = nullptr;  // that commitment; nullptr for a bare reserved_per_month
    int term_months = 0;                     // its term (reserved_per_month alone: 1)
    Plan plan = Plan::on_demand;             // the plan this row is priced by
    std::optional<double>
        hourly_price;  // that plan per hour, whole offer (reserved: monthly / hours_per_month)
    std::optional<double> hourly_price_per_gpu;
    std::optional<double> usd_per_tflops_hour;  // per-GPU USD/h over dense FP16 (FP32 where no FP16)
    bool rentable = true;  // false: an example or placeholder provider (only with include_examples)
};

struct OfferList {
    std::vector<OfferRow> rows;
    std::size_t matched = 0;  // before --limit
    std::vector<const Gpu*> gpus_covered;
    std::string currency;
};

// Throws UsageError for unknown GPU names or providers (with "did you mean").
OfferList query_offers(const Catalog& catalog, const OfferQuery& query);

// Hourly-equivalent price of one plan in `currency`, whole offer; nullopt when the plan is absent.
// reserved: the cheapest commitment of `term_months` (0 = any) at full use (monthly / hours_per_month).
std::optional<double> hourly_price(const Catalog& catalog, const Offer& offer, Plan plan,
                                   const std::string& currency, int term_months = 0);
// Peak dense TFLOPS used for $/TFLOPS-hour: FP16, or FP32 for GPUs without FP16 figures.
std::optional<double> reference_tflops(const Gpu& gpu);

}  // namespace gpuadvise
